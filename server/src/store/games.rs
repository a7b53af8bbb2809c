//! Rooms read as games, without loading them: a room's summary and record, the lobby,
//! a player's games and the archive of finished ones.

use punct_protocol::{ArchivedGame, TimeControl, Visibility};
use punct_rules::{Color, Outcome, Turn, Variant};

use super::db::Store;
use super::driver::{Conn, FromRow, Row, params};
use super::error::StoreError;
use super::model::{AccountId, Player, both, running_left, text, time_control};
use super::rooms::{
    PLAYERS_COLUMNS, PLAYERS_JOIN, TURNS, computer, players, room_sql, to_move, turn,
};
use crate::rating;

/// A room as the lobby lists it, read without replaying its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RoomRow {
    /// Its id.
    pub(crate) id: String,
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// Whether White's and Black's seats are given out.
    pub(crate) taken: [bool; 2],
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// Turns played.
    pub(crate) turns: usize,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
    /// The time control, as the room was created with it.
    pub(crate) clock: Option<TimeControl>,
    /// When the last turn was played and both clocks after it, if it was timed.
    pub(crate) last_turn: Option<(i64, [u64; 2])>,
    /// The tournament whose game this is, if any.
    pub(crate) tournament: Option<String>,
    /// White's and Black's accounts' ratings in its variant, rounded, for those that
    /// have one.
    pub(crate) ratings: [Option<u32>; 2],
}

impl RoomRow {
    /// The time the player to move has left at `now` (milliseconds since the Unix
    /// epoch), once their clock runs.
    pub(crate) fn time_left(&self, now: i64) -> Option<u64> {
        if self.outcome.is_some() {
            return None;
        }
        let (at, left) = self.last_turn?;
        Some(running_left(left, to_move(self.turns), at, now))
    }
}

/// A game's record as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredRecord {
    /// The game played.
    pub(crate) variant: Variant,
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
}

/// Where a page of the archive starts: just after the game that ended at `finished_at`
/// (milliseconds since the Unix epoch) in room `room`, the last of the page before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArchiveCursor {
    /// When that game ended.
    pub(crate) finished_at: i64,
    /// Its room: tells apart games that ended in the same millisecond.
    pub(crate) room: String,
}

impl Store {
    /// `room` as the lobby would show it, read only.
    pub(crate) async fn summary(&self, room: &str) -> Result<Option<RoomRow>, StoreError> {
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { summary(db, &room).await }))
            .await
    }

    /// The record of `room`, read only.
    pub(crate) async fn record(&self, room: &str) -> Result<Option<StoredRecord>, StoreError> {
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { record(db, &room).await }))
            .await
    }

    /// Up to `limit` public rooms whose game is not over, oldest first.
    pub(crate) async fn lobby(&self, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
        self.db.run(move |db| Box::pin(lobby(db, limit))).await
    }

    /// The unfinished games in which `account` holds a seat, oldest first.
    pub(crate) async fn games_of(&self, account: &str) -> Result<Vec<RoomRow>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { games_of(db, &account).await }))
            .await
    }

    /// Up to `limit` finished public games, the one that ended last first, starting after
    /// `after`; only those `player`'s account played, if given.
    pub(crate) async fn archive(
        &self,
        after: Option<ArchiveCursor>,
        limit: usize,
        player: Option<AccountId>,
    ) -> Result<Vec<ArchivedGame>, StoreError> {
        self.db
            .run(move |db| Box::pin(archive(db, after, limit, player)))
            .await
    }
}

/// `room` as the lobby would show it.
async fn summary(db: &dyn Conn, room: &str) -> Result<Option<RoomRow>, StoreError> {
    let statement = format!("{} WHERE r.id = $1", room_rows_sql());
    db.query_opt(&statement, params![room])
        .await?
        .map(|row| RoomRow::from_row(&row))
        .transpose()
}

/// The record of `room`.
async fn record(db: &dyn Conn, room: &str) -> Result<Option<StoredRecord>, StoreError> {
    let Some(head) = db.query_opt(&room_sql(), params![room]).await? else {
        return Ok(None);
    };
    let turns = db
        .query(TURNS, params![room])
        .await?
        .iter()
        .map(turn)
        .collect::<Result<_, _>>()?;
    Ok(Some(StoredRecord {
        variant: head.stored("variant")?,
        players: players(&head)?,
        rated: head.get("rated")?,
        turns,
        outcome: head.stored_opt("outcome")?,
    }))
}

/// Up to `limit` public rooms whose game is not over, oldest first.
async fn lobby(db: &dyn Conn, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
    let statement = format!(
        "{} WHERE r.outcome IS NULL AND r.visibility = $1 ORDER BY r.created_at, r.id LIMIT $2",
        room_rows_sql()
    );
    let rows = db
        .query(&statement, params![text(&Visibility::Public), limit])
        .await?;
    rows.iter().map(RoomRow::from_row).collect()
}

/// The unfinished games in which `account` holds a seat, oldest first.
async fn games_of(db: &dyn Conn, account: &str) -> Result<Vec<RoomRow>, StoreError> {
    let rows = db.query(&games_of_sql(), params![account]).await?;
    rows.iter().map(RoomRow::from_row).collect()
}

/// Up to `limit` finished public games, the one that ended last first, starting after
/// `after`; only those `player`'s account played, if given.
async fn archive(
    db: &dyn Conn,
    after: Option<ArchiveCursor>,
    limit: usize,
    player: Option<AccountId>,
) -> Result<Vec<ArchivedGame>, StoreError> {
    let (finished_at, room) = after.map_or((None, None), |c| (Some(c.finished_at), Some(c.room)));
    let values = params![text(&Visibility::Public), finished_at, room, limit, player];
    let rows = db.query(&archive_sql(), values).await?;
    rows.iter()
        .map(|row| {
            let [white, black] = players(row)?;
            Ok(ArchivedGame {
                room: row.get("id")?,
                variant: row.stored("variant")?,
                outcome: row.stored("outcome")?,
                finished_at: u64::try_from(row.get::<i64>("finished_at")?).unwrap_or(0),
                turns: row.get("turns")?,
                rated: row.get("rated")?,
                white: white.view(),
                black: black.view(),
                tournament: row.get("tournament")?,
            })
        })
        .collect()
}

/// A room's row as the lobby shows it, read from [`room_rows_sql`].
impl FromRow for RoomRow {
    fn from_row(row: &Row) -> Result<RoomRow, StoreError> {
        let shown = |name: &str| -> Result<Option<u32>, StoreError> {
            Ok(row.get::<Option<f64>>(name)?.map(rating::shown))
        };
        Ok(RoomRow {
            id: row.get("id")?,
            variant: row.stored("variant")?,
            visibility: row.stored("visibility")?,
            taken: [row.get("white_taken")?, row.get("black_taken")?],
            computer: computer(row)?,
            turns: row.get("turns")?,
            outcome: row.stored_opt("outcome")?,
            rated: row.get("rated")?,
            players: players(row)?,
            clock: time_control(
                both(row.get("clock_base_ms")?, row.get("clock_increment_ms")?),
                row.get("clock_days")?,
            ),
            last_turn: row
                .get::<Option<i64>>("played_at")?
                .zip(both(row.get("white_ms")?, row.get("black_ms")?)),
            tournament: row.get("tournament")?,
            ratings: [shown("white_rating")?, shown("black_rating")?],
        })
    }
}

/// The columns of a room's row as the lobby shows it (`RoomRow`): id, variant,
/// visibility, whether each seat is taken, the computer's colour and level, turns played,
/// the outcome, whether it is rated, both players (see [`PLAYERS_COLUMNS`]), the time
/// control (base and increment in milliseconds, days per move), then of the last turn:
/// when, and both clocks after it; the tournament whose game it is; each seat's account's
/// rating in the room's variant, if it has one. Its caller adds the `WHERE`.
fn room_rows_sql() -> String {
    format!(
        "SELECT r.id, r.variant, r.visibility,
            r.white_token IS NOT NULL AS white_taken, r.black_token IS NOT NULL AS black_taken,
            r.computer_color, r.computer_level,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) AS turns, r.outcome, r.rated,
            {PLAYERS_COLUMNS},
            r.clock_base_ms, r.clock_increment_ms, r.clock_days,
            lt.played_at, lt.white_ms, lt.black_ms,
            (SELECT tp.tournament FROM tournament_pairings tp WHERE tp.room = r.id)
                AS tournament,
            (SELECT g.rating FROM ratings g WHERE g.account = r.white_account AND g.variant = r.variant)
                AS white_rating,
            (SELECT g.rating FROM ratings g WHERE g.account = r.black_account AND g.variant = r.variant)
                AS black_rating
        FROM rooms r {PLAYERS_JOIN} {LAST_TURN_JOIN}"
    )
}

/// Joins rooms `r` to their last turn `lt`, if one was played.
const LAST_TURN_JOIN: &str = "LEFT JOIN turns lt ON lt.room = r.id
     AND lt.number = (SELECT MAX(t.number) FROM turns t WHERE t.room = r.id)";

/// The unfinished games in which account `$1` holds a seat, as [`room_rows_sql`], oldest
/// first.
fn games_of_sql() -> String {
    format!(
        "{} WHERE r.outcome IS NULL AND (r.white_account = $1 OR r.black_account = $1)
         ORDER BY r.created_at, r.id",
        room_rows_sql()
    )
}

/// Up to `$4` finished games of visibility `$1`, the one that ended last first, after
/// the game that ended at `$2` in room `$3` (if given), and only those account `$5`
/// played (if given): room, variant, outcome, when it ended, turns played, whether
/// rated, both players, the tournament whose game it was.
fn archive_sql() -> String {
    format!(
        "SELECT r.id, r.variant, r.outcome, r.finished_at,
                (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) AS turns, r.rated,
                {PLAYERS_COLUMNS},
                (SELECT tp.tournament FROM tournament_pairings tp WHERE tp.room = r.id)
                    AS tournament
         FROM rooms r {PLAYERS_JOIN}
         WHERE r.outcome IS NOT NULL AND r.visibility = $1
           AND (CAST($2 AS BIGINT) IS NULL
                OR (r.finished_at, r.id) < (CAST($2 AS BIGINT), CAST($3 AS TEXT)))
           AND (CAST($5 AS TEXT) IS NULL OR r.white_account = $5 OR r.black_account = $5)
         ORDER BY r.finished_at DESC, r.id DESC
         LIMIT $4"
    )
}
