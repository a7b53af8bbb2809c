//! Rooms read as games, without loading them: a room's summary and record, the lobby,
//! a player's games and the archive of finished ones.

use punct_protocol::{ArchivedGame, TimeControl, Visibility};
use punct_rules::{Color, Outcome, Turn, Variant};

use super::db::Store;
use super::driver::{Conn, Row, params};
use super::error::StoreError;
use super::model::{AccountId, Player, both, running_left, text, time_control};
use super::rooms::{
    PLAYERS_COLUMNS, PLAYERS_JOIN, TURNS, computer, parse_turn, players, room_sql, to_move,
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
        .map(|row| room_row(&row))
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
        .map(|row| parse_turn(&row.get::<String>(0)?))
        .collect::<Result<_, _>>()?;
    Ok(Some(StoredRecord {
        variant: head.stored(0)?,
        players: players(&head, 13)?,
        rated: head.get(10)?,
        turns,
        outcome: head.stored_opt(4)?,
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
    rows.iter().map(room_row).collect()
}

/// The unfinished games in which `account` holds a seat, oldest first.
async fn games_of(db: &dyn Conn, account: &str) -> Result<Vec<RoomRow>, StoreError> {
    let rows = db.query(&games_of_sql(), params![account]).await?;
    rows.iter().map(room_row).collect()
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
            let [white, black] = players(row, 6)?;
            Ok(ArchivedGame {
                room: row.get(0)?,
                variant: row.stored(1)?,
                outcome: row.stored(2)?,
                finished_at: u64::try_from(row.get::<i64>(3)?).unwrap_or(0),
                turns: row.get(4)?,
                rated: row.get(5)?,
                white: white.view(),
                black: black.view(),
                tournament: row.get(12)?,
            })
        })
        .collect()
}

/// A room's row as the lobby shows it, read from [`room_rows_sql`].
fn room_row(row: &Row) -> Result<RoomRow, StoreError> {
    Ok(RoomRow {
        id: row.get(0)?,
        variant: row.stored(1)?,
        visibility: row.stored(2)?,
        taken: [row.get(3)?, row.get(4)?],
        computer: computer(row.stored_opt(5)?, row.get(6)?),
        turns: row.get(7)?,
        outcome: row.stored_opt(8)?,
        rated: row.get(9)?,
        players: players(row, 10)?,
        clock: time_control(both(row.get(16)?, row.get(17)?), row.get(18)?),
        last_turn: row
            .get::<Option<i64>>(19)?
            .zip(both(row.get(20)?, row.get(21)?)),
        tournament: row.get(22)?,
        ratings: [
            row.get::<Option<f64>>(23)?.map(rating::shown),
            row.get::<Option<f64>>(24)?.map(rating::shown),
        ],
    })
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
            r.white_token IS NOT NULL, r.black_token IS NOT NULL,
            r.computer_color, r.computer_level,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.outcome, r.rated,
            {PLAYERS_COLUMNS},
            r.clock_base_ms, r.clock_increment_ms, r.clock_days,
            lt.played_at, lt.white_ms, lt.black_ms,
            (SELECT tp.tournament FROM tournament_pairings tp WHERE tp.room = r.id),
            (SELECT g.rating FROM ratings g WHERE g.account = r.white_account AND g.variant = r.variant),
            (SELECT g.rating FROM ratings g WHERE g.account = r.black_account AND g.variant = r.variant)
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
                (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.rated,
                {PLAYERS_COLUMNS},
                (SELECT tp.tournament FROM tournament_pairings tp WHERE tp.room = r.id)
         FROM rooms r {PLAYERS_JOIN}
         WHERE r.outcome IS NOT NULL AND r.visibility = $1
           AND (CAST($2 AS BIGINT) IS NULL
                OR (r.finished_at, r.id) < (CAST($2 AS BIGINT), CAST($3 AS TEXT)))
           AND (CAST($5 AS TEXT) IS NULL OR r.white_account = $5 OR r.black_account = $5)
         ORDER BY r.finished_at DESC, r.id DESC
         LIMIT $4"
    )
}
