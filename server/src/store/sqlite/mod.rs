//! The embedded database: one SQLite file, and its driver.
//!
//! One thread owns the connection. Callers send it jobs and await the answer; the thread
//! runs whatever jobs are waiting in one transaction (each in a savepoint of its own, so
//! one failing job undoes only itself) and answers them all once the transaction is
//! committed. A turn is therefore acknowledged only after it is on disk, and many rooms'
//! turns share one commit when the server is busy. Being alone, the thread needs no
//! locks: a job (a rating, a load) runs with nothing between its reads and writes.
//!
//! The file is in WAL mode with `synchronous=FULL`: a commit is on disk (the WAL is
//! synced) before anyone is answered, so neither a killed process nor a power cut loses
//! an acknowledged turn.
//!
//! A job is the same `async` query PostgreSQL runs. Here each statement runs when it is
//! called and its future is ready at once, so a job completes in its first poll, on the
//! thread.

mod schema;

use std::borrow::Cow;
use std::path::Path;
use std::sync::mpsc as channel;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::FutureExt;
use prometheus_client::metrics::histogram::Histogram;
use rusqlite::types::{ToSqlOutput, ValueRef};
use tokio::sync::oneshot;

use super::driver::{Answer, Conn, Row, Value, corrupt};
use super::error::StoreError;

/// Most jobs run in one transaction: bounds the time any one caller waits behind others.
const MAX_BATCH: usize = 512;

/// Statements kept prepared: more than the store has, so none is prepared twice.
const STATEMENT_CACHE: usize = 96;

/// A job for the database thread: runs against the open transaction, says whether it
/// succeeded, and gives back what delivers its answer once the commit is known.
type Job = Box<dyn FnOnce(&dyn Conn) -> (bool, Reply) + Send>;
/// Delivers a job's answer, given how the commit went.
type Reply = Box<dyn FnOnce(Result<(), Arc<rusqlite::Error>>) + Send>;

/// A cheap handle on the database thread.
#[derive(Clone, Debug)]
pub(crate) struct Sqlite {
    /// Where jobs go; the thread ends when every handle is gone.
    jobs: channel::Sender<Job>,
}

impl Sqlite {
    /// Opens (creating it if need be) the database at `path`, or an in-memory one for
    /// `None`, brings its schema up to date, and starts its thread, which times each
    /// commit into `commits`.
    pub(crate) fn open(path: Option<&Path>, commits: Histogram) -> Result<Sqlite, StoreError> {
        let mut db = match path {
            Some(path) => rusqlite::Connection::open(path)?,
            None => rusqlite::Connection::open_in_memory()?,
        };
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "FULL")?;
        db.pragma_update(None, "foreign_keys", "ON")?;
        db.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        schema::migrations()
            .to_latest(&mut db)
            .map_err(StoreError::Migration)?;
        let (jobs, inbox) = channel::channel();
        let db = Local(Mutex::new(db));
        std::thread::Builder::new()
            .name("punct-store".into())
            .spawn(move || serve(&db, &inbox, &commits))
            .map_err(StoreError::Thread)?;
        Ok(Sqlite { jobs })
    }

    /// Runs `work` in the next transaction; answers its result once that is committed.
    pub(super) async fn call<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move |db| {
            // Every statement's future is ready when made: the work is done in one poll.
            let result = work(db).now_or_never().unwrap_or(Err(StoreError::Pending));
            let ok = result.is_ok();
            let reply: Reply = Box::new(move |committed| {
                let answer_now = match committed {
                    Ok(()) => result,
                    Err(e) => Err(StoreError::Commit(e)),
                };
                let _ = answer.send(answer_now);
            });
            (ok, reply)
        });
        self.jobs.send(job).map_err(|_| StoreError::Stopped)?;
        answered.await.map_err(|_| StoreError::Stopped)?
    }
}

/// The connection, as the thread's jobs see it. (In a mutex only so that it may be
/// shared as `&dyn Conn`: the thread alone ever locks it.)
struct Local(Mutex<rusqlite::Connection>);

impl Local {
    /// Runs `f` on the connection.
    fn with<T>(&self, f: impl FnOnce(&rusqlite::Connection) -> T) -> T {
        // A panic while it was held ended the thread with it: nothing is left half done.
        f(&self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Runs `sql` (without parameters), e.g. to begin or end a transaction.
    fn batch(&self, sql: &str) -> rusqlite::Result<()> {
        self.with(|db| db.execute_batch(sql))
    }
}

impl Conn for Local {
    fn execute<'a>(&'a self, sql: &'a str, params: &'a [Value]) -> Answer<'a, u64> {
        let changed = self.with(|db| {
            let mut statement = db.prepare_cached(&dialect(sql))?;
            let changed = statement.execute(rusqlite::params_from_iter(params))?;
            Ok(u64::try_from(changed).unwrap_or(u64::MAX))
        });
        Box::pin(std::future::ready(changed))
    }

    fn query<'a>(&'a self, sql: &'a str, params: &'a [Value]) -> Answer<'a, Vec<Row>> {
        let rows = self.with(|db| {
            let mut statement = db.prepare_cached(&dialect(sql))?;
            let columns = statement.column_count();
            let mut rows = statement.query(rusqlite::params_from_iter(params))?;
            let mut answer = Vec::new();
            while let Some(row) = rows.next()? {
                let values = (0..columns)
                    .map(|at| value(row.get_ref(at)?))
                    .collect::<Result<_, StoreError>>()?;
                answer.push(Row(values));
            }
            Ok(answer)
        });
        Box::pin(std::future::ready(rows))
    }
}

/// A statement written for PostgreSQL (see `store/sql.rs`) as SQLite reads it: `?1` for
/// `$1`, and no row locks (one thread writes, so there is nothing to lock against, nor
/// locked rows to skip).
fn dialect(sql: &str) -> Cow<'_, str> {
    if !sql.contains('$') && !sql.contains(" FOR ") {
        return Cow::Borrowed(sql);
    }
    Cow::Owned(
        sql.replace('$', "?")
            .replace(" FOR UPDATE SKIP LOCKED", "")
            .replace(" FOR SHARE", "")
            .replace(" FOR UPDATE", ""),
    )
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(n) => ValueRef::Integer(*n),
            Value::Real(x) => ValueRef::Real(*x),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
            Value::Bytes(b) => ValueRef::Blob(b),
            Value::Bool(b) => ValueRef::Integer(i64::from(*b)),
        }))
    }
}

/// A column as SQLite answered it.
fn value(column: ValueRef<'_>) -> Result<Value, StoreError> {
    Ok(match column {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Int(n),
        ValueRef::Real(x) => Value::Real(x),
        ValueRef::Text(bytes) => {
            Value::Text(std::str::from_utf8(bytes).map_err(corrupt)?.to_owned())
        }
        ValueRef::Blob(bytes) => Value::Bytes(bytes.to_vec()),
    })
}

/// The database thread: runs the waiting jobs in one transaction, then answers them.
fn serve(db: &Local, jobs: &channel::Receiver<Job>, commits: &Histogram) {
    while let Ok(first) = jobs.recv() {
        let batch: Vec<Job> = std::iter::once(first)
            .chain(jobs.try_iter().take(MAX_BATCH - 1))
            .collect();
        let mut replies = Vec::with_capacity(batch.len());
        let started = std::time::Instant::now();
        let committed = run_batch(db, batch, &mut replies).map_err(Arc::new);
        commits.observe(started.elapsed().as_secs_f64());
        if let Err(e) = &committed {
            tracing::error!("commit failed: {e}");
        }
        for reply in replies {
            reply(committed.clone());
        }
    }
}

/// Runs `batch` in one transaction, each job in a savepoint that is rolled back if the
/// job failed; collects the jobs' replies. Rolls back everything if the transaction
/// itself fails.
fn run_batch(db: &Local, batch: Vec<Job>, replies: &mut Vec<Reply>) -> rusqlite::Result<()> {
    let run = || {
        db.batch("BEGIN")?;
        for job in batch {
            db.batch("SAVEPOINT job")?;
            let (ok, reply) = job(db);
            replies.push(reply);
            db.batch(if ok {
                "RELEASE job"
            } else {
                "ROLLBACK TO job; RELEASE job"
            })?;
        }
        db.batch("COMMIT")
    };
    let committed = run();
    if committed.is_err()
        && !db.with(rusqlite::Connection::is_autocommit)
        && let Err(e) = db.batch("ROLLBACK")
    {
        tracing::error!("rollback failed: {e}");
    }
    committed
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    fn open(path: &Path) -> Result<Sqlite, StoreError> {
        Sqlite::open(Some(path), Histogram::new([0.1]))
    }

    #[test]
    fn statements_are_read_in_sqlite_s_spelling() {
        assert_eq!(
            dialect("SELECT 1 FROM rooms WHERE id = $1 AND incarnation = $12 FOR SHARE"),
            "SELECT 1 FROM rooms WHERE id = ?1 AND incarnation = ?12"
        );
        assert_eq!(
            dialect("SELECT id FROM mail_outbox LIMIT $1 FOR UPDATE SKIP LOCKED)"),
            "SELECT id FROM mail_outbox LIMIT ?1)"
        );
        assert!(matches!(dialect("SELECT 1"), Cow::Borrowed(_)));
    }

    #[test]
    fn migrations_run_once_and_a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        drop(open(&path).unwrap());
        drop(open(&path).unwrap());
        let db = Connection::open(&path).unwrap();
        let version: u32 = db
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, 17);
        let mode: String = db
            .pragma_query_value(None, "journal_mode", |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        db.pragma_update(None, "user_version", version + 1).unwrap();
        drop(db);
        let newer = open(&path).unwrap_err();
        assert!(matches!(newer, StoreError::Migration(_)), "{newer}");
        // The cause is kept, for whoever logs the error.
        assert!(std::error::Error::source(&newer).is_some());
    }

    #[test]
    fn a_database_of_the_first_server_is_brought_up_to_date() {
        // Written as the first release left it: migrations 1 to 4 by hand, user_version 4.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let db = Connection::open(&path).unwrap();
        let mut old = Connection::open_in_memory().unwrap();
        schema::migrations().to_version(&mut old, 4).unwrap();
        let sql: Vec<String> = old
            .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        db.execute_batch(&sql.join(";\n")).unwrap();
        db.execute(
            "INSERT INTO rooms (id, variant, visibility, created_at) VALUES ('r', 'basic', 'public', 1)",
            [],
        )
        .unwrap();
        db.pragma_update(None, "user_version", 4).unwrap();
        drop(db);
        drop(open(&path).unwrap());
        let db = Connection::open(&path).unwrap();
        let version: u32 = db
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, 17);
        let rooms: u32 = db
            .query_row("SELECT COUNT(*) FROM rooms", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rooms, 1, "the rooms are kept");
    }

    #[test]
    fn usernames_stored_before_look_alike_keys_get_theirs_and_the_older_keeps_a_shared_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let mut db = Connection::open(&path).unwrap();
        schema::migrations().to_version(&mut db, 8).unwrap();
        for (id, username) in [
            ("01", "bob"),
            ("02", "B0B"),
            ("03", "l33t"),
            ("04", "anna2"),
        ] {
            db.execute(
                "INSERT INTO accounts (id, username, username_key, password, created_at)
                 VALUES (?1, ?2, ?3, 'x', 1)",
                (id, username, crate::accounts::username_key(username)),
            )
            .unwrap();
        }
        drop(db);
        drop(open(&path).unwrap());
        let db = Connection::open(&path).unwrap();
        let keys: Vec<(String, Option<String>)> = db
            .prepare("SELECT username, username_lookalike FROM accounts ORDER BY id")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let key = |name: &str| Some(crate::accounts::lookalike_key(name));
        assert_eq!(
            keys,
            [
                ("bob".into(), key("bob")),
                ("B0B".into(), None),
                ("l33t".into(), key("l33t")),
                ("anna2".into(), key("anna2")),
            ],
            "the same keys as the server gives new usernames"
        );
    }

    #[test]
    fn chat_said_before_lines_knew_their_account_is_given_its_speaker() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let mut db = Connection::open(&path).unwrap();
        schema::migrations().to_version(&mut db, 10).unwrap();
        db.execute_batch(
            "INSERT INTO accounts (id, username, username_key, password, created_at)
                 VALUES ('a', 'anna', 'anna', 'x', 1), ('b', 'bert', 'bert', 'x', 1);
             INSERT INTO rooms (id, variant, visibility, created_at, white_account,
                                black_name)
                 VALUES ('r', 'basic', 'public', 1, 'a', 'Guest');
             INSERT INTO chat (room, channel, color, name, text, at) VALUES
                 ('r', 'players', 'white', 'anna', 'hers, as White', 1),
                 ('r', 'players', 'black', 'Guest', 'a guest''s', 2),
                 ('r', 'spectators', NULL, 'bert', 'his, signed in', 3),
                 ('r', 'spectators', NULL, 'Bert?', 'another guest''s', 4);",
        )
        .unwrap();
        drop(db);
        drop(open(&path).unwrap());
        let db = Connection::open(&path).unwrap();
        let speakers: Vec<Option<String>> = db
            .prepare("SELECT account FROM chat ORDER BY id")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(speakers, [Some("a".into()), None, Some("b".into()), None]);
    }
}
