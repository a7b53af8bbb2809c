//! The database: every room, its seats (as hashes of their tokens) and every accepted
//! turn, in one SQLite file.
//!
//! One thread owns the connection. Callers send it jobs and await the answer; the thread
//! runs whatever jobs are waiting in one transaction (each in a savepoint of its own, so
//! one failing job undoes only itself) and answers them all once the transaction is
//! committed. A turn is therefore acknowledged only after it is on disk, and many rooms'
//! turns share one commit when the server is busy.
//!
//! The file is in WAL mode with `synchronous=FULL`: a commit is on disk (the WAL is
//! synced) before anyone is answered, so neither a killed process nor a power cut loses
//! an acknowledged turn.

use std::fmt;
use std::path::Path;
use std::sync::mpsc as channel;

use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use punct_rules::{Color, Outcome, Turn, Variant};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use punct_protocol::{ArchivedGame, Visibility};

/// The schema, one migration per version. The database's `user_version` says how many
/// have run; those after it run at start, in order, each in its own transaction.
const MIGRATIONS: &[&str] = &[
    // 1: rooms, seats and turns.
    "CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        variant TEXT NOT NULL,
        visibility TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        -- SHA-256 of each seat's token; NULL while the seat is free.
        white_token BLOB,
        black_token BLOB,
        -- How many times the room has been loaded: the high half of its sequence numbers.
        incarnation INTEGER NOT NULL DEFAULT 0,
        -- The result as JSON once the game is over.
        outcome TEXT,
        finished_at INTEGER
    );
    CREATE TABLE turns (
        room TEXT NOT NULL REFERENCES rooms(id),
        number INTEGER NOT NULL,
        turn TEXT NOT NULL,
        played_at INTEGER NOT NULL,
        PRIMARY KEY (room, number)
    ) WITHOUT ROWID;
    CREATE INDEX rooms_unfinished ON rooms(id) WHERE outcome IS NULL;",
    // 2: time controls, and both clocks after each turn.
    "ALTER TABLE rooms ADD COLUMN clock_base_ms INTEGER;
    ALTER TABLE rooms ADD COLUMN clock_increment_ms INTEGER;
    ALTER TABLE turns ADD COLUMN white_ms INTEGER;
    ALTER TABLE turns ADD COLUMN black_ms INTEGER;",
    // 3: the archive pages through finished games by the time they ended.
    "CREATE INDEX rooms_finished ON rooms(finished_at, id) WHERE outcome IS NOT NULL;",
    // 4: a seat the server's engine plays, and its level.
    "ALTER TABLE rooms ADD COLUMN computer_color TEXT;
    ALTER TABLE rooms ADD COLUMN computer_level INTEGER;",
];

/// Most jobs run in one transaction: bounds the time any one caller waits behind others.
const MAX_BATCH: usize = 512;

/// The SHA-256 of a seat token: what the database keeps instead of the token.
pub(crate) type TokenHash = [u8; 32];

/// Hashes a seat token.
pub(crate) fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// The database could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoreError(String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "database: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

/// A job for the database thread: runs against the open transaction, says whether it
/// succeeded, and gives back what delivers its answer once the commit is known.
type Job = Box<dyn FnOnce(&Connection) -> (bool, Reply) + Send>;
/// Delivers a job's answer, given how the commit went.
type Reply = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

/// A cheap handle on the database thread.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    /// Where jobs go; the thread ends when every handle is gone.
    jobs: channel::Sender<Job>,
    /// How long each commit took, for `/metrics`.
    commits: Histogram,
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

impl Store {
    /// Opens (creating it if need be) the database at `path`, or an in-memory one for
    /// `None`, brings its schema up to date, and starts its thread.
    pub(crate) fn open(path: Option<&Path>) -> Result<Store, StoreError> {
        let mut db = match path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "FULL")?;
        db.pragma_update(None, "foreign_keys", "ON")?;
        migrate(&mut db)?;
        let (jobs, inbox) = channel::channel();
        // From half a millisecond to about two seconds.
        let commits = Histogram::new(exponential_buckets(0.0005, 2.0, 13));
        let timed = commits.clone();
        std::thread::Builder::new()
            .name("punct-store".into())
            .spawn(move || serve(db, inbox, &timed))
            .map_err(|e| StoreError(format!("cannot start the database thread: {e}")))?;
        Ok(Store { jobs, commits })
    }

    /// The histogram of commit times.
    pub(crate) fn commit_times(&self) -> Histogram {
        self.commits.clone()
    }

    /// Runs `job` in the next transaction; answers its result once that is committed.
    async fn call<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move |db| {
            let result = job(db).map_err(StoreError::from);
            let ok = result.is_ok();
            let reply: Reply = Box::new(move |committed| {
                let _ = answer.send(committed.and(result));
            });
            (ok, reply)
        });
        let closed = || StoreError("the database thread has stopped".into());
        self.jobs.send(job).map_err(|_| closed())?;
        answered.await.map_err(|_| closed())?
    }

    /// Records a new room whose creator holds the seat of `color`.
    pub(crate) async fn create_room(
        &self,
        id: &str,
        variant: Variant,
        visibility: Visibility,
        clock: Option<[u64; 2]>,
        color: Color,
        token: TokenHash,
    ) -> Result<(), StoreError> {
        let (id, variant, visibility) = (id.to_owned(), text(&variant), text(&visibility));
        let [base, increment] = clock
            .map(|c| c.map(sql_ms))
            .map_or([None, None], |c| c.map(Some));
        self.call(move |db| {
            db.execute(
                "INSERT INTO rooms (id, variant, visibility, created_at, clock_base_ms, clock_increment_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, variant, visibility, now(), base, increment],
            )?;
            db.execute(&seat_sql(color), params![id, token])?;
            Ok(())
        })
        .await
    }

    /// Records that the computer plays the seat of `color` in `room`, at `level`.
    pub(crate) async fn seat_computer(
        &self,
        room: &str,
        color: Color,
        level: u8,
    ) -> Result<(), StoreError> {
        let (room, color) = (room.to_owned(), text(&color));
        self.call(move |db| {
            db.execute(
                "UPDATE rooms SET computer_color = ?2, computer_level = ?3 WHERE id = ?1",
                params![room, color, level],
            )
            .map(drop)
        })
        .await
    }

    /// Records that the seat of `color` in `room` was given out.
    pub(crate) async fn take_seat(
        &self,
        room: &str,
        color: Color,
        token: TokenHash,
    ) -> Result<(), StoreError> {
        let room = room.to_owned();
        self.call(move |db| db.execute(&seat_sql(color), params![room, token]).map(drop))
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

    /// Records that `room` ended off the board (resignation, agreement).
    pub(crate) async fn finish(&self, room: &str, outcome: Outcome) -> Result<(), StoreError> {
        let room = room.to_owned();
        self.call(move |db| finish(db, &room, outcome)).await
    }

    /// Answers once the database has run a query: it is open and its thread is alive.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.call(|db| db.query_row("SELECT 1", [], |_| Ok(())))
            .await
    }

    /// The ids of the rooms whose game is not over.
    pub(crate) async fn unfinished(&self) -> Result<Vec<String>, StoreError> {
        self.call(|db| {
            let mut query = db.prepare("SELECT id FROM rooms WHERE outcome IS NULL")?;
            let ids = query.query_map([], |row| row.get(0))?;
            ids.collect()
        })
        .await
    }

    /// Loads `room` to run it again, counting one more incarnation; `None` if there is no
    /// such room.
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
                    turns: usize::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                })
            })?;
            games.collect()
        })
        .await
    }
}

/// The statement that stores a seat's token hash.
fn seat_sql(color: Color) -> String {
    format!("UPDATE rooms SET {color}_token = ?2 WHERE id = ?1")
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
                    row.get::<_, Option<String>>(8)?
                        .zip(row.get::<_, Option<u8>>(9)?),
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
            let text: String = row.get(0)?;
            let left = both(row.get(1)?, row.get(2)?);
            Ok((text.parse::<Turn>().map_err(|e| corrupt(0, e))?, left))
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
        computer: computer
            .map(|(color, level)| -> rusqlite::Result<(Color, u8)> {
                Ok((from_text(&color)?, level))
            })
            .transpose()?,
    }))
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
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Runs the migrations the database has not had yet.
fn migrate(db: &mut Connection) -> Result<(), StoreError> {
    let version: u32 = db.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let version = version as usize;
    if version > MIGRATIONS.len() {
        return Err(StoreError(format!(
            "the database is at schema version {version}, newer than this server ({})",
            MIGRATIONS.len()
        )));
    }
    for (number, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        let tx = db.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (number + 1) as u32)?;
        tx.commit()?;
        tracing::info!(version = number + 1, "database schema migrated");
    }
    Ok(())
}

/// The database thread: runs the waiting jobs in one transaction, then answers them.
fn serve(mut db: Connection, jobs: channel::Receiver<Job>, commits: &Histogram) {
    while let Ok(first) = jobs.recv() {
        let batch: Vec<Job> = std::iter::once(first)
            .chain(jobs.try_iter().take(MAX_BATCH - 1))
            .collect();
        let mut replies = Vec::with_capacity(batch.len());
        let started = std::time::Instant::now();
        let committed = run_batch(&mut db, batch, &mut replies).map_err(StoreError::from);
        commits.observe(started.elapsed().as_secs_f64());
        if let Err(e) = &committed {
            tracing::error!("commit failed: {e}");
        }
        for reply in replies {
            reply(committed.clone());
        }
    }
}

fn run_batch(
    db: &mut Connection,
    batch: Vec<Job>,
    replies: &mut Vec<Reply>,
) -> rusqlite::Result<()> {
    let mut tx = db.transaction()?;
    for job in batch {
        let savepoint = tx.savepoint()?;
        let (ok, reply) = job(&savepoint);
        if ok {
            savepoint.commit()?;
        }
        replies.push(reply);
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_room_reads_back_as_it_was_written() {
        let store = Store::open(None).unwrap();
        let (white, black) = (hash_token("w"), hash_token("b"));
        store
            .create_room(
                "r1",
                Variant::Basic,
                Visibility::Private,
                Some([60_000, 2_000]),
                Color::White,
                white,
            )
            .await
            .unwrap();
        store.take_seat("r1", Color::Black, black).await.unwrap();
        let turns: Vec<Turn> = ["C4:C5,D5", "pass"].map(|t| t.parse().unwrap()).into();
        for (n, &turn) in turns.iter().enumerate() {
            let left = [60_000 - n as u64, 61_000];
            store
                .turn("r1", n + 1, turn, Some(left), None)
                .await
                .unwrap();
        }
        assert_eq!(store.unfinished().await.unwrap(), ["r1"]);
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
    }

    #[tokio::test]
    async fn a_turn_numbered_twice_is_refused_and_the_rest_of_its_batch_stands() {
        let store = Store::open(None).unwrap();
        store
            .create_room(
                "r",
                Variant::Standard,
                Visibility::Public,
                None,
                Color::White,
                [0; 32],
            )
            .await
            .unwrap();
        let turn: Turn = "C4:C5,D5".parse().unwrap();
        store.turn("r", 1, turn, None, None).await.unwrap();
        let outcome = Outcome::Draw {
            reason: punct_rules::DrawReason::Repetition,
        };
        let (again, finish) = tokio::join!(
            store.turn("r", 1, turn, None, None),
            store.finish("r", outcome)
        );
        assert!(again.is_err(), "turn 1 is stored already");
        finish.unwrap();
        let room = store.load("r").await.unwrap().unwrap();
        assert_eq!(room.turns, [turn]);
        assert_eq!((room.clock, room.clocks_left), (None, None));
        assert_eq!(room.outcome, Some(outcome));
        assert!(store.unfinished().await.unwrap().is_empty());
    }

    #[test]
    fn migrations_run_once_and_a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        drop(Store::open(Some(&path)).unwrap());
        drop(Store::open(Some(&path)).unwrap());
        let db = Connection::open(&path).unwrap();
        let version: u32 = db
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version as usize, MIGRATIONS.len());
        let mode: String = db
            .pragma_query_value(None, "journal_mode", |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        db.pragma_update(None, "user_version", MIGRATIONS.len() as u32 + 1)
            .unwrap();
        drop(db);
        assert!(Store::open(Some(&path)).is_err());
    }
}
