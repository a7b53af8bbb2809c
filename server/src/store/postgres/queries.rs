//! Every question PostgreSQL is asked, and every change made to it.
//!
//! A room's own writes (seats, turns, results) first take a share lock on the room's row
//! at the incarnation that made them, and are refused (fenced) when it is not the stored
//! one. Loading a room raises its incarnation with an update of that row, which waits for
//! writes holding the lock: so a load reads every turn of the incarnation before it, and
//! no turn of that incarnation can be stored after it.

use std::sync::Arc;

use futures_util::future::join_all;
use punct_protocol::{ArchivedGame, Visibility};
use punct_rules::{Color, Outcome, Turn};
use tokio_postgres::{Client, Row};

use super::Postgres;
use crate::store::StoreError;
use crate::store::model::{
    AccountId, Activity, ArchiveCursor, NewRoom, Player, RoomRow, Stale, StaleEnd, StoredRecord,
    StoredRoom, TokenHash, both, count, from_text, now, outcome_text, sql_ms, text, time_control,
    to_move,
};
use crate::store::sql::{self, PLAYERS_COLUMNS, PLAYERS_JOIN};

/// A change the writer makes, in the next transaction.
#[derive(Debug)]
pub(crate) enum Write {
    /// Store a new room.
    CreateRoom(NewRoom),
    /// Give out a seat.
    TakeSeat {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The seat.
        color: Color,
        /// Its token's hash.
        token: TokenHash,
        /// Who takes it.
        player: Player,
    },
    /// Store a turn, and the result if it ended the game.
    Turn {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The turn's number.
        number: i32,
        /// The turn in notation.
        turn: String,
        /// White's and Black's time left after it, in a timed game.
        clocks: [Option<i64>; 2],
        /// The result, as stored.
        outcome: Option<String>,
    },
    /// Store a result reached off the board.
    Finish {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The result, as stored.
        outcome: String,
    },
    /// Delete or finish stale rooms not loaded since they were found.
    Expire(Vec<Stale>),
    /// Take back the turns after the first `played`.
    TakeBack {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The turns that remain.
        played: i32,
        /// White's and Black's time left now, in a timed game.
        clocks: [Option<i64>; 2],
    },
    /// Delete a room whose game is not over and has a seat free.
    Cancel {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
    },
}

/// What a write answers: how many rooms it changed (a seat given out or not; the stale
/// rooms expired or finished).
pub(crate) type Written = usize;

/// Runs `writes` in one transaction; answers each write's result. If any fails, the
/// transaction is rolled back and each is run alone, so that one undoes only itself.
pub(super) async fn commit(
    client: &mut Client,
    writes: &[Write],
) -> Vec<Result<Written, StoreError>> {
    if let Ok(results) = together(client, writes).await {
        return results;
    }
    let mut results = Vec::with_capacity(writes.len());
    for write in writes {
        let alone = together(client, std::slice::from_ref(write)).await;
        results.push(alone.map_or_else(Err, |mut one| one.remove(0)));
    }
    results
}

/// Runs `writes` in one transaction. Fails (and rolls back) if a statement failed or the
/// commit did; a write refused as fenced is its own answer, and fails nothing else.
async fn together(
    client: &mut Client,
    writes: &[Write],
) -> Result<Vec<Result<Written, StoreError>>, StoreError> {
    let tx = client.transaction().await?;
    // Polled together, the writes' statements go out back to back on the connection.
    let results = join_all(writes.iter().map(|write| run(&tx, write))).await;
    if let Some(failed) = results
        .iter()
        .position(|r| r.as_ref().is_err_and(|e| !matches!(e, StoreError::Fenced)))
    {
        let mut results = results;
        tx.rollback().await?;
        return Err(results.swap_remove(failed).unwrap_err());
    }
    match tx.commit().await {
        Ok(()) => Ok(results),
        Err(e) => Err(StoreError::Commit(Arc::new(e))),
    }
}

/// Makes `write` in the open transaction.
async fn run(tx: &tokio_postgres::Transaction<'_>, write: &Write) -> Result<Written, StoreError> {
    match write {
        Write::CreateRoom(room) => {
            let [base, increment] = room
                .clock
                .map(|c| c.map(sql_ms))
                .map_or([None, None], |c| c.map(Some));
            let [white, black] = room.seats.map(|seat| seat.map(Vec::from));
            let computer_color = room.computer.map(|(color, _)| text(&color));
            let computer_level = room.computer.map(|(_, level)| i16::from(level));
            let [white_player, black_player] = &room.players;
            tx.execute(
                "INSERT INTO rooms (id, variant, visibility, created_at, white_token,
                                    black_token, clock_base_ms, clock_increment_ms,
                                    computer_color, computer_level, white_name, white_account,
                                    black_name, black_account, rated, clock_days)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                         $16)",
                &[
                    &room.id,
                    &text(&room.variant),
                    &text(&room.visibility),
                    &now(),
                    &white,
                    &black,
                    &base,
                    &increment,
                    &computer_color,
                    &computer_level,
                    &white_player.name,
                    &white_player.account_id(),
                    &black_player.name,
                    &black_player.account_id(),
                    &room.rated,
                    &room.days.map(i16::from),
                ],
            )
            .await?;
            Ok(1)
        }
        Write::TakeSeat {
            room,
            incarnation,
            color,
            token,
            player,
        } => {
            fence(tx, room, *incarnation).await?;
            let sql = format!(
                "UPDATE rooms SET {color}_token = $2, {color}_name = $3, {color}_account = $4
                 WHERE id = $1 AND {color}_token IS NULL"
            );
            let token = token.as_slice();
            let seated = tx
                .execute(&sql, &[room, &token, &player.name, &player.account_id()])
                .await?;
            Ok(usize::try_from(seated).unwrap_or(0))
        }
        Write::Turn {
            room,
            incarnation,
            number,
            turn,
            clocks: [white, black],
            outcome,
        } => {
            fence(tx, room, *incarnation).await?;
            tx.execute(
                "INSERT INTO turns (room, number, turn, played_at, white_ms, black_ms)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[room, number, turn, &now(), white, black],
            )
            .await?;
            if let Some(outcome) = outcome {
                finish(tx, room, outcome).await?;
            }
            Ok(1)
        }
        Write::Finish {
            room,
            incarnation,
            outcome,
        } => {
            fence(tx, room, *incarnation).await?;
            finish(tx, room, outcome).await?;
            Ok(1)
        }
        Write::TakeBack {
            room,
            incarnation,
            played,
            clocks: [white, black],
        } => {
            fence(tx, room, *incarnation).await?;
            tx.execute(
                "DELETE FROM turns WHERE room = $1 AND number > $2",
                &[room, played],
            )
            .await?;
            tx.execute(
                "UPDATE turns SET white_ms = $3, black_ms = $4, played_at = $5
                 WHERE room = $1 AND number = $2",
                &[room, played, white, black, &now()],
            )
            .await?;
            Ok(1)
        }
        Write::Cancel { room, incarnation } => {
            fence(tx, room, *incarnation).await?;
            if tx.query_opt(sql::CANCELLABLE, &[room]).await?.is_none() {
                return Ok(0);
            }
            tx.execute(sql::DELETE_CHAT, &[room]).await?;
            tx.execute("DELETE FROM turns WHERE room = $1", &[room])
                .await?;
            tx.execute("DELETE FROM rooms WHERE id = $1", &[room])
                .await?;
            Ok(1)
        }
        Write::Expire(stale) => {
            let mut done = 0;
            for room in stale {
                let unchanged = tx
                    .query_opt(
                        "SELECT 1 FROM rooms
                         WHERE id = $1 AND incarnation = $2 AND outcome IS NULL
                           AND ($3 OR white_token IS NULL OR black_token IS NULL)
                         FOR UPDATE",
                        &[
                            &room.id,
                            &i64::from(room.incarnation),
                            &matches!(room.end, StaleEnd::Finish(_)),
                        ],
                    )
                    .await?
                    .is_some();
                if !unchanged {
                    continue;
                }
                match room.end {
                    StaleEnd::Expire => {
                        tx.execute(sql::DELETE_CHAT, &[&room.id]).await?;
                        tx.execute("DELETE FROM turns WHERE room = $1", &[&room.id])
                            .await?;
                        tx.execute("DELETE FROM rooms WHERE id = $1", &[&room.id])
                            .await?;
                    }
                    StaleEnd::Finish(outcome) => {
                        finish(tx, &room.id, &outcome_text(outcome)).await?;
                    }
                }
                done += 1;
            }
            Ok(done)
        }
    }
}

/// Takes the share lock of `room`'s row at `incarnation`; fenced if that is not the
/// stored incarnation.
async fn fence(
    tx: &tokio_postgres::Transaction<'_>,
    room: &str,
    incarnation: u32,
) -> Result<(), StoreError> {
    let held = tx
        .query_opt(
            "SELECT 1 FROM rooms WHERE id = $1 AND incarnation = $2 FOR SHARE",
            &[&room, &i64::from(incarnation)],
        )
        .await?;
    held.map(drop).ok_or(StoreError::Fenced)
}

async fn finish(
    tx: &tokio_postgres::Transaction<'_>,
    room: &str,
    outcome: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE rooms SET outcome = $2, finished_at = $3 WHERE id = $1",
        &[&room, &outcome, &now()],
    )
    .await?;
    Ok(())
}

impl Postgres {
    /// Records a new room, its seats given out and its computer, in one transaction.
    pub(crate) async fn create_room(&self, room: NewRoom) -> Result<(), StoreError> {
        self.write(Write::CreateRoom(room)).await.map(drop)
    }

    /// Records that the seat of `color` in `room` (run as `incarnation`) was given out;
    /// false if it was taken already.
    pub(crate) async fn take_seat(
        &self,
        room: &str,
        incarnation: u32,
        color: Color,
        token: TokenHash,
        player: Player,
    ) -> Result<bool, StoreError> {
        let write = Write::TakeSeat {
            room: room.to_owned(),
            incarnation,
            color,
            token,
            player,
        };
        Ok(self.write(write).await? == 1)
    }

    /// Records turn `number` of `room` (run as `incarnation`), the clocks after it, and
    /// the result if it ended the game.
    pub(crate) async fn turn(
        &self,
        room: &str,
        incarnation: u32,
        number: usize,
        turn: Turn,
        clocks: Option<[u64; 2]>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        let write = Write::Turn {
            room: room.to_owned(),
            incarnation,
            number: i32::try_from(number).expect("turn numbers are small"),
            turn: turn.to_string(),
            clocks: clocks
                .map(|c| c.map(sql_ms))
                .map_or([None, None], |c| c.map(Some)),
            outcome: outcome.map(outcome_text),
        };
        self.write(write).await.map(drop)
    }

    /// Takes back the turns of `room` after the first `played`, the clocks now becoming
    /// those after turn `played`.
    pub(crate) async fn take_back(
        &self,
        room: &str,
        incarnation: u32,
        played: usize,
        clocks: Option<[u64; 2]>,
    ) -> Result<(), StoreError> {
        let write = Write::TakeBack {
            room: room.to_owned(),
            incarnation,
            played: i32::try_from(played).expect("turn numbers are small"),
            clocks: clocks
                .map(|c| c.map(sql_ms))
                .map_or([None, None], |c| c.map(Some)),
        };
        self.write(write).await.map(drop)
    }

    /// Deletes `room` if its game is not over and a seat is free; false otherwise.
    pub(crate) async fn cancel(&self, room: &str, incarnation: u32) -> Result<bool, StoreError> {
        let write = Write::Cancel {
            room: room.to_owned(),
            incarnation,
        };
        self.write(write).await.map(|cancelled| cancelled == 1)
    }

    /// Records that `room` (run as `incarnation`) ended off the board.
    pub(crate) async fn finish(
        &self,
        room: &str,
        incarnation: u32,
        outcome: Outcome,
    ) -> Result<(), StoreError> {
        let write = Write::Finish {
            room: room.to_owned(),
            incarnation,
            outcome: outcome_text(outcome),
        };
        self.write(write).await.map(drop)
    }

    /// Deletes or finishes the stale rooms of `stale` that have not been loaded since
    /// they were found; answers how many.
    pub(crate) async fn expire(&self, stale: Vec<Stale>) -> Result<usize, StoreError> {
        self.write(Write::Expire(stale)).await
    }

    /// Loads `room` to run it, counting one more incarnation; `None` if there is no such
    /// room.
    pub(crate) async fn load(&self, room: &str) -> Result<Option<StoredRoom>, StoreError> {
        let db = self.reader().await?;
        let Some(row) = db
            .query_opt(
                "UPDATE rooms SET incarnation = incarnation + 1 WHERE id = $1
                 RETURNING variant, visibility, white_token, black_token, incarnation,
                           outcome, clock_base_ms, clock_increment_ms, computer_color,
                           computer_level, clock_days",
                &[&room],
            )
            .await?
        else {
            return Ok(None);
        };
        let (rated, players) = players_of(&db, room).await?;
        let mut clocks_left = None;
        let mut last_turn_at = None;
        let mut turns = Vec::new();
        for turn in db
            .query(
                "SELECT turn, white_ms, black_ms, played_at FROM turns WHERE room = $1
                 ORDER BY number",
                &[&room],
            )
            .await?
        {
            turns.push(parse_turn(turn.get(0))?);
            clocks_left = both(turn.get(1), turn.get(2));
            last_turn_at = Some(turn.get(3));
        }
        Ok(Some(StoredRoom {
            variant: stored(row.get(0))?,
            visibility: stored(row.get(1))?,
            seats: [token(row.get(2))?, token(row.get(3))?],
            ratings: if rated {
                super::ratings::game_ratings(&*db, room).await?
            } else {
                None
            },
            chat: super::chat::room_chat(&*db, room).await?,
            muted: super::chat::room_mutes(&*db, room).await?,
            players,
            rated,
            incarnation: u32::try_from(row.get::<_, i64>(4)).map_err(corrupt)?,
            turns,
            clock: both(row.get(6), row.get(7)),
            days: days(row.get(10))?,
            clocks_left,
            last_turn_at,
            outcome: row.get::<_, Option<&str>>(5).map(stored).transpose()?,
            computer: computer(row.get(8), row.get(9))?,
        }))
    }

    /// `room` as the lobby would show it, read only.
    pub(crate) async fn summary(&self, room: &str) -> Result<Option<RoomRow>, StoreError> {
        let db = self.reader().await?;
        db.query_opt(&format!("{} WHERE r.id = $1", sql::room_rows()), &[&room])
            .await?
            .map(|row| room_row(&row))
            .transpose()
    }

    /// The record of `room`, read only.
    pub(crate) async fn record(&self, room: &str) -> Result<Option<StoredRecord>, StoreError> {
        let db = self.reader().await?;
        let Some(head) = db
            .query_opt("SELECT variant, outcome FROM rooms WHERE id = $1", &[&room])
            .await?
        else {
            return Ok(None);
        };
        let (rated, players) = players_of(&db, room).await?;
        let turns = db
            .query(
                "SELECT turn FROM turns WHERE room = $1 ORDER BY number",
                &[&room],
            )
            .await?
            .iter()
            .map(|row| parse_turn(row.get(0)))
            .collect::<Result<_, _>>()?;
        Ok(Some(StoredRecord {
            variant: stored(head.get(0))?,
            players,
            rated,
            turns,
            outcome: head.get::<_, Option<&str>>(1).map(stored).transpose()?,
        }))
    }

    /// Up to `limit` public rooms whose game is not over, oldest first.
    pub(crate) async fn lobby(&self, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
        let db = self.reader().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        db.query(
            &format!(
                "{} WHERE r.outcome IS NULL AND r.visibility = $1
                 ORDER BY r.created_at, r.id LIMIT $2",
                sql::room_rows()
            ),
            &[&text(&Visibility::Public), &limit],
        )
        .await?
        .iter()
        .map(room_row)
        .collect()
    }

    /// The unfinished games in which `account` holds a seat, oldest first.
    pub(crate) async fn games_of(&self, account: AccountId) -> Result<Vec<RoomRow>, StoreError> {
        let db = self.reader().await?;
        db.query(&sql::games_of(), &[&account])
            .await?
            .iter()
            .map(room_row)
            .collect()
    }

    /// The rooms whose game is not over and that need a timer running.
    pub(crate) async fn with_timers(&self) -> Result<Vec<String>, StoreError> {
        let db = self.reader().await?;
        let rows = db.query(sql::WITH_TIMERS, &[]).await?;
        let mut ids = Vec::new();
        for row in rows {
            let timed: bool = row.get(1);
            let computer = row
                .get::<_, Option<&str>>(2)
                .map(stored::<Color>)
                .transpose()?;
            let turns = count(row.get(3));
            if (timed && turns > 0) || computer == Some(to_move(turns)) {
                ids.push(row.get(0));
            }
        }
        Ok(ids)
    }

    /// The unfinished rooms gone stale, given the times of `open_before` and
    /// `abandoned_before`.
    pub(crate) async fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
        now: i64,
    ) -> Result<Vec<Stale>, StoreError> {
        let db = self.reader().await?;
        let rows = db
            .query(sql::STALE, &[&open_before.max(abandoned_before)])
            .await?;
        let mut stale = Vec::new();
        for row in rows {
            let activity = Activity {
                created_at: row.get(2),
                seated: row.get(3),
                computer: row.get::<_, Option<&str>>(4).map(stored).transpose()?,
                turns: count(row.get(5)),
                last_turn_at: row.get(6),
                clocks_left: both(row.get(7), row.get(8)),
                days: days(row.get(9))?,
            };
            if let Some(end) = activity.stale(open_before, abandoned_before, now) {
                stale.push(Stale {
                    id: row.get(0),
                    incarnation: u32::try_from(row.get::<_, i64>(1)).map_err(corrupt)?,
                    end,
                });
            }
        }
        Ok(stale)
    }

    /// Up to `limit` finished public games, the one that ended last first, starting after
    /// `after`; only those `player`'s account played, if given.
    pub(crate) async fn archive(
        &self,
        after: Option<ArchiveCursor>,
        limit: usize,
        player: Option<AccountId>,
    ) -> Result<Vec<ArchivedGame>, StoreError> {
        let db = self.reader().await?;
        let (finished_at, room) =
            after.map_or((None, None), |c| (Some(c.finished_at), Some(c.room)));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = db
            .query(
                &format!(
                    "SELECT r.id, r.variant, r.outcome, r.finished_at,
                            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.rated,
                            {PLAYERS_COLUMNS}
                     FROM rooms r {PLAYERS_JOIN}
                     WHERE r.outcome IS NOT NULL AND r.visibility = $1
                       AND ($2::BIGINT IS NULL OR (r.finished_at, r.id) < ($2, $3::TEXT))
                       AND ($5::TEXT IS NULL OR r.white_account = $5 OR r.black_account = $5)
                     ORDER BY r.finished_at DESC, r.id DESC
                     LIMIT $4"
                ),
                &[
                    &text(&Visibility::Public),
                    &finished_at,
                    &room,
                    &limit,
                    &player,
                ],
            )
            .await?;
        rows.iter()
            .map(|row| {
                let [white, black] = players(row, 6);
                Ok(ArchivedGame {
                    room: row.get(0),
                    variant: stored(row.get(1))?,
                    outcome: stored(row.get(2))?,
                    finished_at: u64::try_from(row.get::<_, i64>(3)).unwrap_or(0),
                    turns: count(row.get(4)),
                    rated: row.get(5),
                    white: white.view(),
                    black: black.view(),
                })
            })
            .collect()
    }
}

/// Both seats' players, read from the [`PLAYERS_COLUMNS`] starting at column `first`.
fn players(row: &Row, first: usize) -> [Player; 2] {
    let seat = |at: usize| Player::read(row.get(at), row.get(at + 1), row.get(at + 2));
    [seat(first), seat(first + 3)]
}

/// Whether `room` is rated, and both its players.
async fn players_of(db: &Client, room: &str) -> Result<(bool, [Player; 2]), StoreError> {
    let row = db
        .query_one(
            &format!(
                "SELECT r.rated, {PLAYERS_COLUMNS} FROM rooms r {PLAYERS_JOIN} WHERE r.id = $1"
            ),
            &[&room],
        )
        .await?;
    Ok((row.get(0), players(&row, 1)))
}

fn room_row(row: &Row) -> Result<RoomRow, StoreError> {
    Ok(RoomRow {
        id: row.get(0),
        variant: stored(row.get(1))?,
        visibility: stored(row.get(2))?,
        taken: [row.get(3), row.get(4)],
        computer: computer(row.get(5), row.get(6))?,
        turns: count(row.get(7)),
        outcome: row.get::<_, Option<&str>>(8).map(stored).transpose()?,
        rated: row.get(9),
        players: players(row, 10),
        clock: time_control(both(row.get(16), row.get(17)), days(row.get(18))?),
        last_turn: row
            .get::<_, Option<i64>>(19)
            .zip(both(row.get(20), row.get(21))),
    })
}

/// The computer's seat and level, when both are stored.
fn computer(color: Option<&str>, level: Option<i16>) -> Result<Option<(Color, u8)>, StoreError> {
    color
        .zip(level)
        .map(|(color, level)| Ok((stored(color)?, u8::try_from(level).map_err(corrupt)?)))
        .transpose()
}

/// A correspondence game's days per move as stored.
fn days(stored: Option<i16>) -> Result<Option<u8>, StoreError> {
    stored.map(|d| u8::try_from(d).map_err(corrupt)).transpose()
}

/// A token hash as stored.
fn token(stored: Option<&[u8]>) -> Result<Option<TokenHash>, StoreError> {
    stored
        .map(|bytes| TokenHash::try_from(bytes).map_err(corrupt))
        .transpose()
}

/// A stored turn in notation.
fn parse_turn(text: &str) -> Result<Turn, StoreError> {
    text.parse().map_err(corrupt)
}

/// A value written by [`text`], read back.
pub(super) fn stored<T: serde::de::DeserializeOwned>(value: &str) -> Result<T, StoreError> {
    from_text(value).map_err(corrupt)
}

/// A stored value that does not read back: the database was changed by hand.
fn corrupt(e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Corrupt(Box::new(e))
}
