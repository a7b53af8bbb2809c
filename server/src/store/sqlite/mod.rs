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
//! an acknowledged turn. Closing the store (a clean stop) folds the WAL into the file and
//! empties it, so that `punct.db` alone then holds everything: it is what operators copy.
//!
//! A job is the same `async` query PostgreSQL runs. Here each statement runs when it is
//! called and its future is ready at once, so a job completes in its first poll, on the
//! thread.

mod schema;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::mpsc as channel;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use prometheus_client::metrics::histogram::Histogram;
use rusqlite::types::{ToSqlOutput, ValueRef};
use tokio::sync::oneshot;

use super::driver::{Answer, ColumnNames, Conn, Row, Value, corrupt};
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

/// What the database thread is sent.
enum Message {
    /// A job for the next transaction.
    Job(Job),
    /// Close the database once the jobs sent before are committed; answer how it went.
    Close(oneshot::Sender<Result<(), StoreError>>),
}

/// A cheap handle on the database thread.
#[derive(Clone, Debug)]
pub(crate) struct Sqlite {
    /// Where jobs go; the thread ends when every handle is gone, or once closed.
    jobs: channel::Sender<Message>,
}

impl Sqlite {
    /// Opens (creating it if need be) the database at `path`, or an in-memory one for
    /// `None`, brings its schema up to date, and starts its thread, which times each
    /// commit into `commits`.
    pub(crate) fn open(path: Option<&Path>, commits: Histogram) -> Result<Sqlite, StoreError> {
        let db = match path {
            Some(path) => rusqlite::Connection::open(path)?,
            None => rusqlite::Connection::open_in_memory()?,
        };
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "FULL")?;
        Sqlite::start(db, commits)
    }

    /// Opens the existing file at `path` for `migrate` to copy, only if this process can
    /// read all of it alone: no server has it open, and whatever its WAL holds is folded
    /// into the file first. The lock taken here is held until the store closes, so no
    /// server starts on the file while it is copied.
    pub(crate) fn open_whole(path: &Path, commits: Histogram) -> Result<Sqlite, StoreError> {
        use rusqlite::OpenFlags;
        let named = path.display();
        let wal = PathBuf::from(format!("{named}-wal"));
        let wal_held = std::fs::metadata(&wal).is_ok_and(|wal| wal.len() > 0);
        let refused = |why: String| Err(StoreError::NotCopied(why));
        // Without CREATE: a path that is not there is an error, not a new empty file.
        let db = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // SQLite opens a file it may not write read only, without saying so; the lock
        // below and folding in the WAL both need to write.
        if db.is_readonly(rusqlite::MAIN_DB)? {
            return refused(if wal_held {
                format!(
                    "the file cannot be written, so {} beside it, which holds data the file \
                     does not, cannot be folded in; copy both somewhere writable, or stop \
                     the server cleanly (SIGTERM), which leaves everything in the file",
                    wal.display()
                )
            } else {
                "the file cannot be written (migrate locks it while it copies); copy it \
                 somewhere writable"
                    .into()
            });
        }
        // A server keeps a shared lock on its file for as long as it has it open, even
        // idle (in WAL mode SQLite never lets go of it), so an exclusive lock is had only
        // when no process has the file open. An exclusive transaction alone would not
        // tell: in WAL mode it takes only the write lock, free whenever the server is
        // not committing. In the exclusive locking mode the lock is taken on the file
        // itself, and kept; without waiting, a server holding it refuses at once.
        db.busy_timeout(Duration::ZERO)?;
        db.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        match db.execute_batch("BEGIN EXCLUSIVE; COMMIT") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                return refused(
                    "a server has it open (it holds the file's lock); stop the server \
                     first, as migrate copies only a file nothing writes"
                        .into(),
                );
            }
            locked => locked?,
        }
        // A WAL left by a server that was killed, or copied with the file, holds the
        // latest commits: fold them into the file, which then holds everything.
        let busy: i64 =
            db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get("busy"))?;
        if busy != 0 {
            return refused(format!(
                "{} could not be folded into the file",
                wal.display()
            ));
        }
        // A server's file holds its schema from the first checkpoint on; until then (a
        // server that never stopped cleanly, copied without its WAL) the file is empty,
        // and migrating it would copy nothing and say so with success.
        let version: u32 =
            db.pragma_query_value(None, "user_version", |row| row.get("user_version"))?;
        if version == 0 {
            return refused(format!(
                "the file holds no punct database (no schema): if it was copied while its \
                 server ran or after it was killed, copy {} with it, or stop the server \
                 cleanly (SIGTERM) and copy the file again",
                wal.display()
            ));
        }
        Sqlite::start(db, commits)
    }

    /// Brings the schema of `db` up to date and starts its thread.
    fn start(mut db: rusqlite::Connection, commits: Histogram) -> Result<Sqlite, StoreError> {
        db.pragma_update(None, "foreign_keys", "ON")?;
        db.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        schema::migrate(&mut db, crate::store::schema::LATEST)?;
        let (jobs, inbox) = channel::channel();
        let db = Local(Mutex::new(db));
        std::thread::Builder::new()
            .name("punct-store".into())
            .spawn(move || {
                let closing = serve(&db, &inbox, &commits);
                // Jobs sent from now on fail at once: nothing is written after the close.
                drop(inbox);
                let closed = close(db);
                match closing {
                    Some(answer) => {
                        let _ = answer.send(closed);
                    }
                    None => {
                        if let Err(e) = closed {
                            tracing::warn!("closing the database: {e}");
                        }
                    }
                }
            })
            .map_err(StoreError::Thread)?;
        Ok(Sqlite { jobs })
    }

    /// Closes the database once every job sent before is committed: its WAL folded into
    /// the file and emptied. Jobs sent after fail with [`StoreError::Stopped`].
    pub(super) async fn close(&self) -> Result<(), StoreError> {
        let (answer, answered) = oneshot::channel();
        self.jobs
            .send(Message::Close(answer))
            .map_err(|_| StoreError::Stopped)?;
        answered.await.map_err(|_| StoreError::Stopped)?
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
        self.jobs
            .send(Message::Job(job))
            .map_err(|_| StoreError::Stopped)?;
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
            let names: ColumnNames = statement
                .column_names()
                .into_iter()
                .map(Box::from)
                .collect();
            let mut rows = statement.query(rusqlite::params_from_iter(params))?;
            let mut answer = Vec::new();
            while let Some(row) = rows.next()? {
                let values = (0..names.len())
                    .map(|at| value(row.get_ref(at)?))
                    .collect::<Result<_, StoreError>>()?;
                answer.push(Row::new(Arc::clone(&names), values));
            }
            Ok(answer)
        });
        Box::pin(std::future::ready(rows))
    }
}

/// A statement written for PostgreSQL (see `store/mod.rs`) as SQLite reads it: `?1` for
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

/// The database thread: runs the waiting jobs in one transaction, then answers them;
/// until every handle is gone (`None`) or it is told to close (where to answer).
fn serve(
    db: &Local,
    inbox: &channel::Receiver<Message>,
    commits: &Histogram,
) -> Option<oneshot::Sender<Result<(), StoreError>>> {
    while let Ok(first) = inbox.recv() {
        let mut batch: Vec<Job> = Vec::new();
        let mut closing = None;
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Job(job) => batch.push(job),
                Message::Close(answer) => {
                    closing = Some(answer);
                    break;
                }
            }
            if batch.len() < MAX_BATCH {
                next = inbox.try_recv().ok();
            }
        }
        if !batch.is_empty() {
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
        if closing.is_some() {
            return closing;
        }
    }
    None
}

/// Closes the connection after its last commit. Closing alone would fold the WAL into
/// the file only if no other connection (a backup's) had it open; checkpointing first
/// with TRUNCATE empties it in any case but one where a reader still needs it, which is
/// reported rather than left silent.
fn close(db: Local) -> Result<(), StoreError> {
    let db = db.0.into_inner().unwrap_or_else(PoisonError::into_inner);
    let busy: i64 = db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get("busy"))?;
    db.close().map_err(|(_, e)| e)?;
    if busy != 0 {
        return Err(StoreError::WalLeft);
    }
    Ok(())
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

    /// Commits a table `kept` holding one row, 7.
    async fn keep_seven(db: &Sqlite) {
        db.call(|db| {
            Box::pin(async move {
                db.execute("CREATE TABLE kept (n INTEGER)", &[]).await?;
                db.execute("INSERT INTO kept VALUES (7)", &[]).await
            })
        })
        .await
        .unwrap();
    }

    /// What the SQLite file at `path` holds in `kept`, read as a new process would.
    fn kept(path: &Path) -> i64 {
        Connection::open(path)
            .unwrap()
            .query_row("SELECT n FROM kept", [], |row| row.get("n"))
            .unwrap()
    }

    /// The WAL beside the SQLite file at `path`: how many bytes it holds (0 if none).
    fn wal_bytes(path: &Path) -> u64 {
        std::fs::metadata(format!("{}-wal", path.display())).map_or(0, |wal| wal.len())
    }

    #[tokio::test]
    async fn once_closed_the_file_alone_holds_everything_and_nothing_more_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let db = open(&path).unwrap();
        // Another handle, as a server's tasks keep theirs past the stop.
        let late = db.clone();
        keep_seven(&db).await;
        assert!(wal_bytes(&path) > 0, "commits go to the WAL first");
        db.close().await.unwrap();
        assert_eq!(wal_bytes(&path), 0);
        let copy = dir.path().join("copy.db");
        std::fs::copy(&path, &copy).unwrap();
        assert_eq!(kept(&copy), 7);
        let refused = late
            .call(|db| {
                Box::pin(async move { db.execute("INSERT INTO kept VALUES (8)", &[]).await })
            })
            .await;
        assert!(matches!(refused, Err(StoreError::Stopped)), "{refused:?}");
    }

    #[tokio::test]
    async fn a_reader_that_holds_the_wal_at_the_stop_is_reported_and_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let db = open(&path).unwrap();
        keep_seven(&db).await;
        // A backup (or `sqlite3` in a shell) reading through the stop: its snapshot
        // needs the WAL, which may then not be emptied.
        let reader = Connection::open(&path).unwrap();
        reader.execute_batch("BEGIN").unwrap();
        let n: i64 = reader
            .query_row("SELECT n FROM kept", [], |row| row.get("n"))
            .unwrap();
        assert_eq!(n, 7);
        let closed = db.close().await;
        assert!(matches!(closed, Err(StoreError::WalLeft)), "{closed:?}");
        assert!(wal_bytes(&path) > 0, "the WAL is left, not lost");
        reader.execute_batch("COMMIT").unwrap();
        drop(reader);
        // The next opening reads the WAL back: nothing committed is missing.
        assert_eq!(kept(&path), 7);
    }

    #[tokio::test]
    async fn a_file_open_elsewhere_is_not_opened_whole_and_a_file_closed_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let server = open(&path).unwrap();
        let refused = Sqlite::open_whole(&path, Histogram::new([0.1])).unwrap_err();
        assert!(
            refused.to_string().contains("a server has it open"),
            "{refused}"
        );
        server.close().await.unwrap();
        let whole = Sqlite::open_whole(&path, Histogram::new([0.1])).unwrap();
        // And while it is held, no server starts on the file.
        assert!(open(&path).is_err());
        whole.close().await.unwrap();
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
            .pragma_query_value(None, "user_version", |row| row.get("user_version"))
            .unwrap();
        assert_eq!(version, crate::store::schema::LATEST as u32);
        let mode: String = db
            .pragma_query_value(None, "journal_mode", |row| row.get("journal_mode"))
            .unwrap();
        assert_eq!(mode, "wal");
        db.pragma_update(None, "user_version", version + 1).unwrap();
        drop(db);
        let newer = open(&path).unwrap_err();
        assert!(matches!(newer, StoreError::Schema(_)), "{newer}");
        let db = Connection::open(&path).unwrap();
        let untouched: u32 = db
            .pragma_query_value(None, "user_version", |row| row.get("user_version"))
            .unwrap();
        assert_eq!(untouched, version + 1);
    }

    #[test]
    fn a_database_of_the_first_server_is_brought_up_to_date() {
        // Written as the first release left it: migrations 1 to 4 by hand, user_version 4.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let db = Connection::open(&path).unwrap();
        let mut old = Connection::open_in_memory().unwrap();
        schema::migrate(&mut old, 4).unwrap();
        let sql: Vec<String> = old
            .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
            .unwrap()
            .query_map([], |row| row.get("sql"))
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
            .pragma_query_value(None, "user_version", |row| row.get("user_version"))
            .unwrap();
        assert_eq!(version, crate::store::schema::LATEST as u32);
        let rooms: u32 = db
            .query_row("SELECT COUNT(*) AS rooms FROM rooms", [], |row| {
                row.get("rooms")
            })
            .unwrap();
        assert_eq!(rooms, 1, "the rooms are kept");
    }

    #[test]
    fn puzzles_solved_before_puzzle_ratings_count_as_played_and_solved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let mut db = Connection::open(&path).unwrap();
        schema::migrate(&mut db, 18).unwrap();
        db.execute_batch(
            "INSERT INTO accounts (id, username, username_key, password, created_at)
                 VALUES ('01', 'anna', 'anna', 'x', 1);
             INSERT INTO puzzles_solved (account, puzzle, solved_at) VALUES ('01', 'stop-2', 7);",
        )
        .unwrap();
        drop(db);
        drop(open(&path).unwrap());
        let db = Connection::open(&path).unwrap();
        let played: (String, String, bool, i64) = db
            .query_row(
                "SELECT account, puzzle, solved, played_at FROM puzzle_attempts",
                [],
                |row| {
                    Ok((
                        row.get("account")?,
                        row.get("puzzle")?,
                        row.get("solved")?,
                        row.get("played_at")?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(played, ("01".into(), "stop-2".into(), true, 7));
    }

    #[test]
    fn usernames_stored_before_look_alike_keys_get_theirs_and_the_older_keeps_a_shared_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let mut db = Connection::open(&path).unwrap();
        schema::migrate(&mut db, 8).unwrap();
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
            .query_map([], |row| {
                Ok((row.get("username")?, row.get("username_lookalike")?))
            })
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
        schema::migrate(&mut db, 10).unwrap();
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
            .query_map([], |row| row.get("account"))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(speakers, [Some("a".into()), None, Some("b".into()), None]);
    }
}
