//! What the database keeps of rooms, and every question asked of it.
//!
//! Reads answer from what is stored and change nothing; only creating a room, giving out
//! a seat, a turn, a result, loading a room to run it (which counts one more
//! incarnation) and expiring stale rooms write.

use punct_protocol::{ArchivedGame, Visibility};
use punct_rules::{Color, Outcome, Turn, Variant, WinReason};
use rusqlite::{Connection, OptionalExtension, params};

use super::{Store, StoreError, TokenHash};

/// A room to create: everything about it is written in one transaction, so a room is
/// never half made.
#[derive(Debug)]
pub(crate) struct NewRoom {
    /// Its id.
    pub(crate) id: String,
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// The time control in milliseconds, base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// White's and Black's token hashes, for the seats given out (at least one).
    pub(crate) seats: [Option<TokenHash>; 2],
    /// The seat the server's engine plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

/// A room as the database has it: enough to rebuild it exactly.
#[derive(Debug)]
pub(crate) struct StoredRoom {
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// White's and Black's token hashes.
    pub(crate) seats: [Option<TokenHash>; 2],
    /// Times the room was loaded before, this time included.
    pub(crate) incarnation: u32,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The time control, in milliseconds: base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// White's and Black's time left after the last turn, if it was timed.
    pub(crate) clocks_left: Option<[u64; 2]>,
    /// The result, if the game is over (including ends decided off the board).
    pub(crate) outcome: Option<Outcome>,
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

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
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// Turns played.
    pub(crate) turns: usize,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
}

/// A game's record as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredRecord {
    /// The game played.
    pub(crate) variant: Variant,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
}

/// A room nobody has come back to for too long, as it was when found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stale {
    /// Its id.
    pub(crate) id: String,
    /// Its incarnation when found: if it has been loaded since, it is left alone.
    incarnation: u32,
    /// What becomes of it.
    pub(crate) end: StaleEnd,
}

/// What becomes of a stale room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StaleEnd {
    /// Nobody took its free seat: it is deleted.
    Expire,
    /// Nobody played in it: the game ends so.
    Finish(Outcome),
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

/// Whose turn it is after `turns` turns: the players alternate strictly (a pass is a
/// turn), so the count alone tells.
pub(crate) fn to_move(turns: usize) -> Color {
    if turns.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

impl Store {
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
        self.call(move |db| {
            db.execute(
                "INSERT INTO rooms (id, variant, visibility, created_at, white_token, black_token,
                                    clock_base_ms, clock_increment_ms, computer_color, computer_level)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    room.id,
                    variant,
                    visibility,
                    now(),
                    white,
                    black,
                    base,
                    increment,
                    computer_color,
                    computer_level
                ],
            )
            .map(drop)
        })
        .await
    }

    /// Records that the seat of `color` in `room` was given out; false if it was taken
    /// already (nothing is changed then).
    pub(crate) async fn take_seat(
        &self,
        room: &str,
        color: Color,
        token: TokenHash,
    ) -> Result<bool, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            let sql = format!(
                "UPDATE rooms SET {color}_token = ?2 WHERE id = ?1 AND {color}_token IS NULL"
            );
            db.execute(&sql, params![room, token]).map(|n| n == 1)
        })
        .await
    }

    /// Records turn `number` of `room`, the clocks after it (White's and Black's time
    /// left, in a timed game), and the result if it ended the game.
    pub(crate) async fn turn(
        &self,
        room: &str,
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
        self.call(move |db| {
            db.prepare_cached(
                "INSERT INTO turns (room, number, turn, played_at, white_ms, black_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![room, number, turn, now(), white, black])?;
            if let Some(outcome) = outcome {
                finish(db, &room, outcome)?;
            }
            Ok(())
        })
        .await
    }

    /// Records that `room` ended off the board (resignation, agreement, time, abandonment).
    pub(crate) async fn finish(&self, room: &str, outcome: Outcome) -> Result<(), StoreError> {
        let room = room.to_owned();
        self.call(move |db| finish(db, &room, outcome)).await
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
            read_room(db, &room)
        })
        .await
    }

    /// `room` as the lobby would show it, read only.
    pub(crate) async fn summary(&self, room: &str) -> Result<Option<RoomRow>, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            db.prepare_cached(&format!("{ROW_SELECT} WHERE r.id = ?1"))?
                .query_row(params![room], room_row)
                .optional()
        })
        .await
    }

    /// The record of `room`, read only.
    pub(crate) async fn record(&self, room: &str) -> Result<Option<StoredRecord>, StoreError> {
        let room = room.to_owned();
        self.call(move |db| {
            let head = db
                .query_row(
                    "SELECT variant, outcome FROM rooms WHERE id = ?1",
                    params![room],
                    |row| Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?)),
                )
                .optional()?;
            let Some((variant, outcome)) = head else {
                return Ok(None);
            };
            let turns = db
                .prepare_cached("SELECT turn FROM turns WHERE room = ?1 ORDER BY number")?
                .query_map(params![room], |row| parse_turn(&row.get::<_, String>(0)?))?
                .collect::<rusqlite::Result<Vec<Turn>>>()?;
            Ok(Some(StoredRecord {
                variant: from_text(&variant)?,
                turns,
                outcome: outcome.as_deref().map(from_text).transpose()?,
            }))
        })
        .await
    }

    /// Up to `limit` public rooms whose game is not over, oldest first.
    pub(crate) async fn lobby(&self, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let public = text(&Visibility::Public);
        self.call(move |db| {
            db.prepare_cached(&format!(
                "{ROW_SELECT} WHERE r.outcome IS NULL AND r.visibility = ?1
                 ORDER BY r.created_at, r.id LIMIT ?2"
            ))?
            .query_map(params![public, limit], room_row)?
            .collect()
        })
        .await
    }

    /// The rooms whose game is not over and that need a timer running: a timed game whose
    /// clock runs (the first turn is played), or a game where the computer is to move.
    pub(crate) async fn with_timers(&self) -> Result<Vec<String>, StoreError> {
        self.call(|db| {
            let mut query = db.prepare(
                "SELECT r.id, r.clock_base_ms IS NOT NULL, r.computer_color,
                        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id)
                 FROM rooms r
                 WHERE r.outcome IS NULL
                   AND (r.clock_base_ms IS NOT NULL OR r.computer_color IS NOT NULL)
                 ORDER BY r.created_at, r.id",
            )?;
            let rows = query.query_map([], |row| {
                let id: String = row.get(0)?;
                let timed: bool = row.get(1)?;
                let computer = row
                    .get::<_, Option<String>>(2)?
                    .map(|c| from_text::<Color>(&c))
                    .transpose()?;
                let turns = count(row.get(3)?);
                let needs = (timed && turns > 0) || computer == Some(to_move(turns));
                Ok(needs.then_some(id))
            })?;
            rows.filter_map(Result::transpose).collect()
        })
        .await
    }

    /// The unfinished rooms created before `open_before` whose seat nobody took, and the
    /// games with both seats taken in which nobody played since `abandoned_before`
    /// (milliseconds since the Unix epoch). An abandoned game ends as if the player
    /// waited for had been claimed against: the player to move loses by abandonment. A
    /// game where the computer is to move is never stale: the computer plays on.
    pub(crate) async fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
    ) -> Result<Vec<Stale>, StoreError> {
        self.call(move |db| {
            let mut query = db.prepare(
                "SELECT r.id, r.incarnation, r.created_at,
                        r.white_token IS NOT NULL AND r.black_token IS NOT NULL,
                        r.computer_color,
                        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id),
                        (SELECT MAX(t.played_at) FROM turns t WHERE t.room = r.id)
                 FROM rooms r
                 WHERE r.outcome IS NULL AND r.created_at < MAX(?1, ?2)
                 ORDER BY r.created_at, r.id",
            )?;
            let rows = query.query_map(params![open_before, abandoned_before], |row| {
                let id: String = row.get(0)?;
                let incarnation: u32 = row.get(1)?;
                let created_at: i64 = row.get(2)?;
                let seated: bool = row.get(3)?;
                let computer = row
                    .get::<_, Option<String>>(4)?
                    .map(|c| from_text::<Color>(&c))
                    .transpose()?;
                let turns = count(row.get(5)?);
                let active = row.get::<_, Option<i64>>(6)?.unwrap_or(created_at);
                let waited_for = to_move(turns);
                let end = if !seated && created_at < open_before {
                    Some(StaleEnd::Expire)
                } else if seated && active < abandoned_before && computer != Some(waited_for) {
                    Some(StaleEnd::Finish(Outcome::Win {
                        winner: waited_for.opponent(),
                        reason: WinReason::Abandonment,
                    }))
                } else {
                    None
                };
                Ok(end.map(|end| Stale {
                    id,
                    incarnation,
                    end,
                }))
            })?;
            rows.filter_map(Result::transpose).collect()
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
    ) -> Result<Vec<ArchivedGame>, StoreError> {
        let (finished_at, room) =
            after.map_or((None, None), |c| (Some(c.finished_at), Some(c.room)));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let public = text(&Visibility::Public);
        self.call(move |db| {
            let mut query = db.prepare_cached(
                "SELECT id, variant, outcome, finished_at,
                        (SELECT COUNT(*) FROM turns WHERE turns.room = rooms.id)
                 FROM rooms
                 WHERE outcome IS NOT NULL AND visibility = ?1
                   AND (?2 IS NULL OR (finished_at, id) < (?2, ?3))
                 ORDER BY finished_at DESC, id DESC
                 LIMIT ?4",
            )?;
            let games = query.query_map(params![public, finished_at, room, limit], |row| {
                Ok(ArchivedGame {
                    room: row.get(0)?,
                    variant: from_text(&row.get::<_, String>(1)?)?,
                    outcome: from_text(&row.get::<_, String>(2)?)?,
                    finished_at: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
                    turns: count(row.get(4)?),
                })
            })?;
            games.collect()
        })
        .await
    }
}

/// The columns of a [`RoomRow`], read by [`room_row`].
const ROW_SELECT: &str = "SELECT r.id, r.variant, r.visibility,
        r.white_token IS NOT NULL, r.black_token IS NOT NULL,
        r.computer_color, r.computer_level,
        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.outcome
    FROM rooms r";

fn room_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RoomRow> {
    Ok(RoomRow {
        id: row.get(0)?,
        variant: from_text(&row.get::<_, String>(1)?)?,
        visibility: from_text(&row.get::<_, String>(2)?)?,
        taken: [row.get(3)?, row.get(4)?],
        computer: computer(row.get(5)?, row.get(6)?)?,
        turns: count(row.get(7)?),
        outcome: row
            .get::<_, Option<String>>(8)?
            .as_deref()
            .map(from_text)
            .transpose()?,
    })
}

fn finish(db: &Connection, room: &str, outcome: Outcome) -> rusqlite::Result<()> {
    let outcome = serde_json::to_string(&outcome).expect("outcomes serialise");
    db.execute(
        "UPDATE rooms SET outcome = ?2, finished_at = ?3 WHERE id = ?1",
        params![room, outcome, now()],
    )
    .map(drop)
}

fn read_room(db: &Connection, room: &str) -> rusqlite::Result<Option<StoredRoom>> {
    let row = db
        .query_row(
            "SELECT variant, visibility, white_token, black_token, incarnation, outcome,
                    clock_base_ms, clock_increment_ms, computer_color, computer_level
             FROM rooms WHERE id = ?1",
            params![room],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<TokenHash>>(2)?,
                    row.get::<_, Option<TokenHash>>(3)?,
                    row.get::<_, u32>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    both(row.get::<_, Option<i64>>(6)?, row.get::<_, Option<i64>>(7)?),
                    computer(row.get(8)?, row.get(9)?)?,
                ))
            },
        )
        .optional()?;
    let Some((variant, visibility, white, black, incarnation, outcome, clock, computer)) = row
    else {
        return Ok(None);
    };
    let mut query = db.prepare_cached(
        "SELECT turn, white_ms, black_ms FROM turns WHERE room = ?1 ORDER BY number",
    )?;
    let mut clocks_left = None;
    let turns = query
        .query_map(params![room], |row| {
            Ok((
                parse_turn(&row.get::<_, String>(0)?)?,
                both(row.get(1)?, row.get(2)?),
            ))
        })?
        .map(|row| {
            let (turn, left) = row?;
            clocks_left = left;
            Ok(turn)
        })
        .collect::<rusqlite::Result<Vec<Turn>>>()?;
    Ok(Some(StoredRoom {
        variant: from_text(&variant)?,
        visibility: from_text(&visibility)?,
        seats: [white, black],
        incarnation,
        turns,
        clock,
        clocks_left,
        outcome: outcome.as_deref().map(from_text).transpose()?,
        computer,
    }))
}

/// The computer's seat and level, when both are stored.
fn computer(color: Option<String>, level: Option<u8>) -> rusqlite::Result<Option<(Color, u8)>> {
    color
        .zip(level)
        .map(|(color, level)| Ok((from_text(&color)?, level)))
        .transpose()
}

/// A stored turn in notation.
fn parse_turn(text: &str) -> rusqlite::Result<Turn> {
    text.parse().map_err(|e| corrupt(0, e))
}

/// A count SQLite answers.
fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Milliseconds as SQLite stores them.
fn sql_ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Two stored milliseconds, when both are there.
fn both(a: Option<i64>, b: Option<i64>) -> Option<[u64; 2]> {
    let ms = |v: i64| u64::try_from(v).unwrap_or(0);
    Some([ms(a?), ms(b?)])
}

/// A stored value that does not read back: the file was changed by hand or is damaged.
fn corrupt(column: usize, e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(e))
}

/// A value as the JSON string serde writes for it, without the quotes.
fn text<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value).expect("plain values serialise") {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Reads back what [`text`] (or `serde_json::to_string`, for objects) wrote.
fn from_text<T: serde::de::DeserializeOwned>(stored: &str) -> rusqlite::Result<T> {
    let json = if stored.starts_with('{') {
        serde_json::from_str(stored)
    } else {
        serde_json::from_value(serde_json::Value::String(stored.to_owned()))
    };
    json.map_err(|e| corrupt(0, e))
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use punct_rules::DrawReason;

    use super::*;
    use crate::store::hash_token;

    fn new_room(id: &str, seats: [Option<TokenHash>; 2]) -> NewRoom {
        NewRoom {
            id: id.into(),
            variant: Variant::Standard,
            visibility: Visibility::Public,
            clock: None,
            seats,
            computer: None,
        }
    }

    #[tokio::test]
    async fn a_room_reads_back_as_it_was_written() {
        let store = Store::open(None).unwrap();
        let (white, black) = (hash_token("w"), hash_token("b"));
        store
            .create_room(NewRoom {
                variant: Variant::Basic,
                visibility: Visibility::Private,
                clock: Some([60_000, 2_000]),
                ..new_room("r1", [Some(white), None])
            })
            .await
            .unwrap();
        assert!(store.take_seat("r1", Color::Black, black).await.unwrap());
        assert!(
            !store.take_seat("r1", Color::Black, white).await.unwrap(),
            "a seat is given out once"
        );
        let turns: Vec<Turn> = ["C4:C5,D5", "pass"].map(|t| t.parse().unwrap()).into();
        for (n, &turn) in turns.iter().enumerate() {
            let left = [60_000 - n as u64, 61_000];
            store
                .turn("r1", n + 1, turn, Some(left), None)
                .await
                .unwrap();
        }
        let room = store.load("r1").await.unwrap().unwrap();
        assert_eq!(room.variant, Variant::Basic);
        assert_eq!(room.visibility, Visibility::Private);
        assert_eq!(room.seats, [Some(white), Some(black)]);
        assert_eq!(room.incarnation, 1);
        assert_eq!(room.turns, turns);
        assert_eq!(room.clock, Some([60_000, 2_000]));
        assert_eq!(room.clocks_left, Some([59_999, 61_000]));
        assert_eq!(room.outcome, None);
        assert_eq!(store.load("r1").await.unwrap().unwrap().incarnation, 2);
        assert!(store.load("nope").await.unwrap().is_none());
        // The timed game's clock runs: it needs its timer after a restart.
        assert_eq!(store.with_timers().await.unwrap(), ["r1"]);
    }

    #[tokio::test]
    async fn reads_change_nothing() {
        let store = Store::open(None).unwrap();
        store
            .create_room(new_room("r", [Some(hash_token("w")), None]))
            .await
            .unwrap();
        let turn: Turn = "C4:C5,D5".parse().unwrap();
        store.turn("r", 1, turn, None, None).await.unwrap();
        for _ in 0..3 {
            let row = store.summary("r").await.unwrap().unwrap();
            assert_eq!(
                (row.taken, row.turns, row.outcome),
                ([true, false], 1, None)
            );
            let record = store.record("r").await.unwrap().unwrap();
            assert_eq!(record.turns, [turn]);
            assert_eq!(store.lobby(10).await.unwrap(), [row]);
        }
        assert_eq!(store.load("r").await.unwrap().unwrap().incarnation, 1);
        assert_eq!(store.summary("nope").await.unwrap(), None);
        assert_eq!(store.record("nope").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_turn_numbered_twice_is_refused_and_the_rest_of_its_batch_stands() {
        let store = Store::open(None).unwrap();
        store
            .create_room(new_room("r", [Some([0; 32]), None]))
            .await
            .unwrap();
        let turn: Turn = "C4:C5,D5".parse().unwrap();
        store.turn("r", 1, turn, None, None).await.unwrap();
        let outcome = Outcome::Draw {
            reason: DrawReason::Repetition,
        };
        let (again, finish) = tokio::join!(
            store.turn("r", 1, turn, None, None),
            store.finish("r", outcome)
        );
        assert!(matches!(again, Err(StoreError::Sqlite(_))), "{again:?}");
        finish.unwrap();
        let room = store.load("r").await.unwrap().unwrap();
        assert_eq!(room.turns, [turn]);
        assert_eq!((room.clock, room.clocks_left), (None, None));
        assert_eq!(room.outcome, Some(outcome));
        assert!(store.lobby(10).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn computer_rooms_need_a_timer_only_while_the_computer_is_to_move() {
        let store = Store::open(None).unwrap();
        let seats = [Some(hash_token("w")), Some(hash_token("b"))];
        for (id, color) in [("c-white", Color::White), ("c-black", Color::Black)] {
            store
                .create_room(NewRoom {
                    computer: Some((color, 3)),
                    ..new_room(id, seats)
                })
                .await
                .unwrap();
        }
        // A timed game whose first turn is not played: no clock runs yet.
        store
            .create_room(NewRoom {
                clock: Some([60_000, 0]),
                ..new_room("timed", seats)
            })
            .await
            .unwrap();
        assert_eq!(store.with_timers().await.unwrap(), ["c-white"]);
    }

    #[tokio::test]
    async fn stale_rooms_are_found_and_expired_unless_loaded_since() {
        let store = Store::open(None).unwrap();
        let w = Some(hash_token("w"));
        let b = Some(hash_token("b"));
        // Named in alphabetical order: some are made in the same millisecond.
        store
            .create_room(new_room("a-open", [w, None]))
            .await
            .unwrap();
        store
            .create_room(new_room("b-played", [w, b]))
            .await
            .unwrap();
        store
            .create_room(new_room("c-loaded", [w, b]))
            .await
            .unwrap();
        store
            .create_room(NewRoom {
                computer: Some((Color::White, 2)),
                ..new_room("d-computer", [w, b])
            })
            .await
            .unwrap();
        let turn: Turn = "C4:C5,D5".parse().unwrap();
        store.turn("b-played", 1, turn, None, None).await.unwrap();
        // Nothing is stale yet.
        assert!(store.stale(0, 0).await.unwrap().is_empty());
        std::thread::sleep(std::time::Duration::from_millis(5));
        let later = now();
        let stale = store.stale(later, later).await.unwrap();
        let ids: Vec<(&str, StaleEnd)> = stale.iter().map(|s| (s.id.as_str(), s.end)).collect();
        let abandoned_by = |loser: Color| {
            StaleEnd::Finish(Outcome::Win {
                winner: loser.opponent(),
                reason: WinReason::Abandonment,
            })
        };
        assert_eq!(
            ids,
            [
                ("a-open", StaleEnd::Expire),
                ("b-played", abandoned_by(Color::Black)),
                ("c-loaded", abandoned_by(Color::White)),
            ],
            "the computer is to move in its room: it plays on"
        );
        // A room loaded since it was found is left alone.
        store.load("c-loaded").await.unwrap();
        assert_eq!(store.expire(stale).await.unwrap(), 2);
        assert!(store.summary("a-open").await.unwrap().is_none());
        assert!(store.record("a-open").await.unwrap().is_none());
        let played = store.summary("b-played").await.unwrap().unwrap();
        assert_eq!(
            played.outcome,
            Some(Outcome::Win {
                winner: Color::White,
                reason: WinReason::Abandonment
            })
        );
        assert_eq!(
            store.summary("c-loaded").await.unwrap().unwrap().outcome,
            None
        );
    }
}
