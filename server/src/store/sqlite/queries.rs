//! Every question the SQLite database is asked, and every change made to it.
//!
//! Reads change nothing; only creating a room, giving out a seat, a turn, a result,
//! loading a room to run it (which counts one more incarnation) and expiring stale rooms
//! write. A room's own writes (seats, turns, results) name the incarnation that made
//! them: once the room has been loaded again elsewhere, they are refused (fenced).

use punct_protocol::{ArchivedGame, Visibility};
use punct_rules::{Color, Outcome, Turn};
use rusqlite::{Connection, OptionalExtension, params};

use super::Sqlite;
use crate::store::StoreError;
use crate::store::model::{
    AccountId, Activity, ArchiveCursor, NewRoom, Player, RoomRow, Stale, StaleEnd, StoredRecord,
    StoredRoom, TokenHash, both, count, from_text, now, outcome_text, sql_ms, text, time_control,
    to_move,
};
use crate::store::sql::{self, PLAYERS_COLUMNS, PLAYERS_JOIN};

impl Sqlite {
    /// Records a new room, its seats given out and its computer, in one transaction.
    pub(crate) async fn create_room(&self, room: NewRoom) -> Result<(), StoreError> {
        let (variant, visibility) = (text(&room.variant), text(&room.visibility));
        let [base, increment] = room
            .clock
            .map(|c| c.map(sql_ms))
            .map_or([None, None], |c| c.map(Some));
        let [white, black] = room.seats;
        let (computer_color, computer_level) = room
            .computer
            .map(|(color, level)| (text(&color), level))
            .unzip();
        let created_at = now();
        self.call(move |db| {
            let [white_player, black_player] = &room.players;
            db.execute(
                "INSERT INTO rooms (id, variant, visibility, created_at, white_token, black_token,
                                    clock_base_ms, clock_increment_ms, computer_color, computer_level,
                                    white_name, white_account, black_name, black_account, rated,
                                    clock_days)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                params![
                    room.id,
                    variant,
                    visibility,
                    created_at,
                    white,
                    black,
                    base,
                    increment,
                    computer_color,
                    computer_level,
                    white_player.name,
                    white_player.account_id(),
                    black_player.name,
                    black_player.account_id(),
                    room.rated,
                    room.days,
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// Records that the seat of `color` in `room` (run as `incarnation`) was given out;
    /// false if it was taken already (nothing is changed then).
    pub(crate) async fn take_seat(
        &self,
        room: &str,
        incarnation: u32,
        color: Color,
        token: TokenHash,
        player: Player,
    ) -> Result<bool, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            fence(db, &room, incarnation)?;
            let sql = format!(
                "UPDATE rooms SET {color}_token = ?2, {color}_name = ?3, {color}_account = ?4
                 WHERE id = ?1 AND {color}_token IS NULL"
            );
            let seated = params![room, token, player.name, player.account_id()];
            Ok(db.execute(&sql, seated)? == 1)
        })
        .await
    }

    /// Records turn `number` of `room`, the clocks after it (White's and Black's time
    /// left, in a timed game), and the result if it ended the game.
    pub(crate) async fn turn(
        &self,
        room: &str,
        incarnation: u32,
        number: usize,
        turn: Turn,
        clocks: Option<[u64; 2]>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        let (room, turn) = (room.to_owned(), turn.to_string());
        let number = i64::try_from(number).expect("turn numbers are small");
        let [white, black] = clocks
            .map(|c| c.map(sql_ms))
            .map_or([None, None], |c| c.map(Some));
        // The time is read here, on the runtime, not on the database's thread: the
        // clock a test pauses is the runtime's.
        let played_at = now();
        self.call(move |db| {
            fence(db, &room, incarnation)?;
            db.prepare_cached(
                "INSERT INTO turns (room, number, turn, played_at, white_ms, black_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![room, number, turn, played_at, white, black])?;
            if let Some(outcome) = outcome {
                finish(db, &room, outcome)?;
            }
            Ok(())
        })
        .await
    }

    /// Takes back the turns of `room` after the first `played`; the clocks now (White's
    /// and Black's time left, in a timed game) become those after turn `played`, as if it
    /// had just been played, so that a room loaded later starts from them.
    pub(crate) async fn take_back(
        &self,
        room: &str,
        incarnation: u32,
        played: usize,
        clocks: Option<[u64; 2]>,
    ) -> Result<(), StoreError> {
        let room = room.to_owned();
        let played = i64::try_from(played).expect("turn numbers are small");
        let [white, black] = clocks
            .map(|c| c.map(sql_ms))
            .map_or([None, None], |c| c.map(Some));
        let at = now();
        self.call(move |db| {
            fence(db, &room, incarnation)?;
            db.execute(
                "DELETE FROM turns WHERE room = ?1 AND number > ?2",
                params![room, played],
            )?;
            db.execute(
                "UPDATE turns SET white_ms = ?3, black_ms = ?4, played_at = ?5
                 WHERE room = ?1 AND number = ?2",
                params![room, played, white, black, at],
            )?;
            Ok(())
        })
        .await
    }

    /// Deletes `room`, with its turns and chat, if its game is not over and a seat is
    /// still free; false (and nothing deleted) otherwise.
    pub(crate) async fn cancel(&self, room: &str, incarnation: u32) -> Result<bool, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            fence(db, &room, incarnation)?;
            let open = db
                .query_row(sql::CANCELLABLE, params![room], |_| Ok(()))
                .optional()?
                .is_some();
            if open {
                db.execute(sql::DELETE_CHAT, params![room])?;
                db.execute("DELETE FROM turns WHERE room = ?1", params![room])?;
                db.execute("DELETE FROM rooms WHERE id = ?1", params![room])?;
            }
            Ok(open)
        })
        .await
    }

    /// Records that `room` ended off the board (resignation, agreement, time, abandonment).
    pub(crate) async fn finish(
        &self,
        room: &str,
        incarnation: u32,
        outcome: Outcome,
    ) -> Result<(), StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            fence(db, &room, incarnation)?;
            Ok(finish(db, &room, outcome)?)
        })
        .await
    }

    /// Loads `room` to run it, counting one more incarnation; `None` if there is no such
    /// room.
    pub(crate) async fn load(&self, room: &str) -> Result<Option<StoredRoom>, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            let updated = db.execute(
                "UPDATE rooms SET incarnation = incarnation + 1 WHERE id = ?1",
                params![room],
            )?;
            if updated == 0 {
                return Ok(None);
            }
            Ok(read_room(db, &room)?)
        })
        .await
    }

    /// `room` as the lobby would show it, read only.
    pub(crate) async fn summary(&self, room: &str) -> Result<Option<RoomRow>, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            Ok(db
                .prepare_cached(&format!("{} WHERE r.id = ?1", sql::room_rows()))?
                .query_row(params![room], room_row)
                .optional()?)
        })
        .await
    }

    /// The record of `room`, read only.
    pub(crate) async fn record(&self, room: &str) -> Result<Option<StoredRecord>, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            let head = db
                .query_row(
                    &format!(
                        "SELECT r.variant, r.outcome, r.rated, {PLAYERS_COLUMNS}
                         FROM rooms r {PLAYERS_JOIN} WHERE r.id = ?1"
                    ),
                    params![room],
                    |row| {
                        Ok((
                            row.get::<_, String>(0)?,
                            row.get::<_, Option<String>>(1)?,
                            row.get::<_, bool>(2)?,
                            players(row, 3)?,
                        ))
                    },
                )
                .optional()?;
            let Some((variant, outcome, rated, players)) = head else {
                return Ok(None);
            };
            let turns = db
                .prepare_cached("SELECT turn FROM turns WHERE room = ?1 ORDER BY number")?
                .query_map(params![room], |row| parse_turn(&row.get::<_, String>(0)?))?
                .collect::<rusqlite::Result<Vec<Turn>>>()?;
            Ok(Some(StoredRecord {
                variant: stored(&variant)?,
                players,
                rated,
                turns,
                outcome: outcome.as_deref().map(stored).transpose()?,
            }))
        })
        .await
    }

    /// Up to `limit` public rooms whose game is not over, oldest first.
    pub(crate) async fn lobby(&self, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let public = text(&Visibility::Public);
        self.call(move |db| {
            Ok(db
                .prepare_cached(&format!(
                    "{} WHERE r.outcome IS NULL AND r.visibility = ?1
                     ORDER BY r.created_at, r.id LIMIT ?2",
                    sql::room_rows()
                ))?
                .query_map(params![public, limit], room_row)?
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// The unfinished games in which `account` holds a seat, oldest first.
    pub(crate) async fn games_of(&self, account: AccountId) -> Result<Vec<RoomRow>, StoreError> {
        self.call(move |db| {
            Ok(db
                .prepare_cached(&sql::games_of())?
                .query_map(params![account], room_row)?
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// The rooms whose game is not over and that need a timer running: a timed game whose
    /// clock runs (the first turn is played), or a game where the computer is to move.
    pub(crate) async fn with_timers(&self) -> Result<Vec<String>, StoreError> {
        self.call(|db| {
            let mut query = db.prepare(sql::WITH_TIMERS)?;
            let rows = query.query_map([], |row| {
                let id: String = row.get(0)?;
                let timed: bool = row.get(1)?;
                let computer = row
                    .get::<_, Option<String>>(2)?
                    .map(|c| stored::<Color>(&c))
                    .transpose()?;
                let turns = count(row.get(3)?);
                let needs = (timed && turns > 0) || computer == Some(to_move(turns));
                Ok(needs.then_some(id))
            })?;
            Ok(rows
                .filter_map(Result::transpose)
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// The unfinished rooms gone stale by [`Activity::stale`], given the times of
    /// `open_before` and `abandoned_before` (milliseconds since the Unix epoch).
    pub(crate) async fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
        now: i64,
    ) -> Result<Vec<Stale>, StoreError> {
        self.call(move |db| {
            let mut query = db.prepare(sql::STALE)?;
            let rows = query.query_map(params![open_before.max(abandoned_before)], |row| {
                let (id, incarnation): (String, u32) = (row.get(0)?, row.get(1)?);
                let activity = Activity {
                    created_at: row.get(2)?,
                    seated: row.get(3)?,
                    computer: row
                        .get::<_, Option<String>>(4)?
                        .map(|c| stored::<Color>(&c))
                        .transpose()?,
                    turns: count(row.get(5)?),
                    last_turn_at: row.get(6)?,
                    clocks_left: both(row.get(7)?, row.get(8)?),
                    days: row.get(9)?,
                };
                let end = activity.stale(open_before, abandoned_before, now);
                Ok(end.map(|end| Stale {
                    id,
                    incarnation,
                    end,
                }))
            })?;
            Ok(rows
                .filter_map(Result::transpose)
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Deletes or finishes the stale rooms of `stale` that have not been loaded since
    /// they were found (nor finished, nor had their seat taken); answers how many.
    pub(crate) async fn expire(&self, stale: Vec<Stale>) -> Result<usize, StoreError> {
        self.call(move |db| {
            let mut done = 0;
            for room in stale {
                let unchanged = db
                    .query_row(
                        "SELECT 1 FROM rooms
                         WHERE id = ?1 AND incarnation = ?2 AND outcome IS NULL
                           AND (?3 OR white_token IS NULL OR black_token IS NULL)",
                        params![
                            room.id,
                            room.incarnation,
                            matches!(room.end, StaleEnd::Finish(_))
                        ],
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
                if !unchanged {
                    continue;
                }
                match room.end {
                    StaleEnd::Expire => {
                        db.execute(sql::DELETE_CHAT, params![room.id])?;
                        db.execute("DELETE FROM turns WHERE room = ?1", params![room.id])?;
                        db.execute("DELETE FROM rooms WHERE id = ?1", params![room.id])?;
                    }
                    StaleEnd::Finish(outcome) => finish(db, &room.id, outcome)?,
                }
                done += 1;
            }
            Ok(done)
        })
        .await
    }

    /// Up to `limit` finished public games, the one that ended last first, starting after
    /// `after`.
    pub(crate) async fn archive(
        &self,
        after: Option<ArchiveCursor>,
        limit: usize,
        player: Option<AccountId>,
    ) -> Result<Vec<ArchivedGame>, StoreError> {
        let (finished_at, room) =
            after.map_or((None, None), |c| (Some(c.finished_at), Some(c.room)));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let public = text(&Visibility::Public);
        self.call(move |db| {
            let mut query = db.prepare_cached(&format!(
                "SELECT r.id, r.variant, r.outcome, r.finished_at,
                        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.rated,
                        {PLAYERS_COLUMNS}
                 FROM rooms r {PLAYERS_JOIN}
                 WHERE r.outcome IS NOT NULL AND r.visibility = ?1
                   AND (?2 IS NULL OR (r.finished_at, r.id) < (?2, ?3))
                   AND (?5 IS NULL OR r.white_account = ?5 OR r.black_account = ?5)
                 ORDER BY r.finished_at DESC, r.id DESC
                 LIMIT ?4"
            ))?;
            let games =
                query.query_map(params![public, finished_at, room, limit, player], |row| {
                    let [white, black] = players(row, 6)?;
                    Ok(ArchivedGame {
                        room: row.get(0)?,
                        variant: stored(&row.get::<_, String>(1)?)?,
                        outcome: stored(&row.get::<_, String>(2)?)?,
                        finished_at: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
                        turns: count(row.get(4)?),
                        rated: row.get(5)?,
                        white: white.view(),
                        black: black.view(),
                    })
                })?;
            Ok(games.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }
}

fn room_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RoomRow> {
    Ok(RoomRow {
        id: row.get(0)?,
        variant: stored(&row.get::<_, String>(1)?)?,
        visibility: stored(&row.get::<_, String>(2)?)?,
        taken: [row.get(3)?, row.get(4)?],
        computer: computer(row.get(5)?, row.get(6)?)?,
        turns: count(row.get(7)?),
        outcome: row
            .get::<_, Option<String>>(8)?
            .as_deref()
            .map(stored)
            .transpose()?,
        rated: row.get(9)?,
        players: players(row, 10)?,
        clock: time_control(both(row.get(16)?, row.get(17)?), row.get(18)?),
        last_turn: row
            .get::<_, Option<i64>>(19)?
            .zip(both(row.get(20)?, row.get(21)?)),
    })
}

/// Both seats' players, read from the [`PLAYERS_COLUMNS`] starting at column `first`.
fn players(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<[Player; 2]> {
    let seat = |at: usize| -> rusqlite::Result<Player> {
        Ok(Player::read(
            row.get(at)?,
            row.get(at + 1)?,
            row.get(at + 2)?,
        ))
    };
    Ok([seat(first)?, seat(first + 3)?])
}

/// Refuses a room's own write once the room has been loaded again (elsewhere): the
/// incarnation it was loaded as is no longer the stored one.
fn fence(db: &Connection, room: &str, incarnation: u32) -> Result<(), StoreError> {
    let current: Option<u32> = db
        .prepare_cached("SELECT incarnation FROM rooms WHERE id = ?1")?
        .query_row(params![room], |row| row.get(0))
        .optional()?;
    match current {
        Some(current) if current == incarnation => Ok(()),
        _ => Err(StoreError::Fenced),
    }
}

fn finish(db: &Connection, room: &str, outcome: Outcome) -> rusqlite::Result<()> {
    let outcome = outcome_text(outcome);
    db.execute(
        "UPDATE rooms SET outcome = ?2, finished_at = ?3 WHERE id = ?1",
        params![room, outcome, now()],
    )
    .map(drop)
}

fn read_room(db: &Connection, room: &str) -> rusqlite::Result<Option<StoredRoom>> {
    let row = db
        .query_row(
            &format!(
                "SELECT r.variant, r.visibility, r.white_token, r.black_token, r.incarnation,
                        r.outcome, r.clock_base_ms, r.clock_increment_ms, r.computer_color,
                        r.computer_level, r.rated, r.clock_days, {PLAYERS_COLUMNS}
                 FROM rooms r {PLAYERS_JOIN} WHERE r.id = ?1"
            ),
            params![room],
            |row| {
                Ok((
                    (
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<TokenHash>>(2)?,
                        row.get::<_, Option<TokenHash>>(3)?,
                        row.get::<_, u32>(4)?,
                        row.get::<_, Option<String>>(5)?,
                    ),
                    both(row.get::<_, Option<i64>>(6)?, row.get::<_, Option<i64>>(7)?),
                    computer(row.get(8)?, row.get(9)?)?,
                    row.get::<_, bool>(10)?,
                    row.get::<_, Option<u8>>(11)?,
                    players(row, 12)?,
                ))
            },
        )
        .optional()?;
    let Some((
        (variant, visibility, white, black, incarnation, outcome),
        clock,
        computer,
        rated,
        days,
        players,
    )) = row
    else {
        return Ok(None);
    };
    let mut query = db.prepare_cached(
        "SELECT turn, white_ms, black_ms, played_at FROM turns WHERE room = ?1 ORDER BY number",
    )?;
    let mut clocks_left = None;
    let mut last_turn_at = None;
    let turns = query
        .query_map(params![room], |row| {
            Ok((
                parse_turn(&row.get::<_, String>(0)?)?,
                both(row.get(1)?, row.get(2)?),
                row.get(3)?,
            ))
        })?
        .map(|row| {
            let (turn, left, at) = row?;
            clocks_left = left;
            last_turn_at = Some(at);
            Ok(turn)
        })
        .collect::<rusqlite::Result<Vec<Turn>>>()?;
    Ok(Some(StoredRoom {
        variant: stored(&variant)?,
        visibility: stored(&visibility)?,
        seats: [white, black],
        players,
        rated,
        ratings: if rated {
            super::ratings::game_ratings(db, room)?
        } else {
            None
        },
        chat: super::chat::room_chat(db, room)?,
        muted: super::chat::room_mutes(db, room)?,
        incarnation,
        turns,
        clock,
        days,
        clocks_left,
        last_turn_at,
        outcome: outcome.as_deref().map(stored).transpose()?,
        computer,
    }))
}

/// The computer's seat and level, when both are stored.
fn computer(color: Option<String>, level: Option<u8>) -> rusqlite::Result<Option<(Color, u8)>> {
    color
        .zip(level)
        .map(|(color, level)| Ok((stored(&color)?, level)))
        .transpose()
}

/// A stored turn in notation.
fn parse_turn(text: &str) -> rusqlite::Result<Turn> {
    text.parse().map_err(corrupt)
}

/// A value written by [`text`], read back.
pub(super) fn stored<T: serde::de::DeserializeOwned>(value: &str) -> rusqlite::Result<T> {
    from_text(value).map_err(corrupt)
}

/// A stored value that does not read back: the file was changed by hand or is damaged.
fn corrupt(e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
}
