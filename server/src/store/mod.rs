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
//!
//! # Layout
//!
//! - this file: the [`Store`] handle, its thread and [`StoreError`];
//! - `schema`: the migrations;
//! - `rooms`: what is stored and read: rooms, seats, turns, results, the lobby, the
//!   archive, and the rooms that went stale.

mod rooms;
mod schema;

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc as channel;

use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use rusqlite::Connection;
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

pub(crate) use rooms::{ArchiveCursor, NewRoom, RoomRow, StoredRoom, now, to_move};

/// Most jobs run in one transaction: bounds the time any one caller waits behind others.
const MAX_BATCH: usize = 512;

/// The SHA-256 of a seat token: what the database keeps instead of the token.
pub(crate) type TokenHash = [u8; 32];

/// Hashes a seat token.
pub(crate) fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// Why the database could not do what was asked. Each keeps its cause.
#[derive(Debug)]
pub(crate) enum StoreError {
    /// SQLite refused or failed the request's own statements; nothing of it was kept.
    Sqlite(rusqlite::Error),
    /// The transaction that held the request (and others) failed to commit.
    Commit(Arc<rusqlite::Error>),
    /// The schema could not be brought up to date, or is newer than this server.
    Migration(rusqlite_migration::Error),
    /// The database thread could not be started.
    Thread(std::io::Error),
    /// The database thread has stopped.
    Stopped,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "database: {e}"),
            StoreError::Commit(e) => write!(f, "database commit failed: {e}"),
            StoreError::Migration(e) => write!(f, "database schema: {e}"),
            StoreError::Thread(e) => write!(f, "cannot start the database thread: {e}"),
            StoreError::Stopped => f.write_str("the database thread has stopped"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Sqlite(e) => Some(e),
            StoreError::Commit(e) => Some(e.as_ref()),
            StoreError::Migration(e) => Some(e),
            StoreError::Thread(e) => Some(e),
            StoreError::Stopped => None,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(e)
    }
}

/// A job for the database thread: runs against the open transaction, says whether it
/// succeeded, and gives back what delivers its answer once the commit is known.
type Job = Box<dyn FnOnce(&Connection) -> (bool, Reply) + Send>;
/// Delivers a job's answer, given how the commit went.
type Reply = Box<dyn FnOnce(Result<(), Arc<rusqlite::Error>>) + Send>;

/// A cheap handle on the database thread.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    /// Where jobs go; the thread ends when every handle is gone.
    jobs: channel::Sender<Job>,
    /// How long each commit took, for `/metrics`.
    commits: Histogram,
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
        schema::migrations()
            .to_latest(&mut db)
            .map_err(StoreError::Migration)?;
        let (jobs, inbox) = channel::channel();
        // From half a millisecond to about two seconds.
        let commits = Histogram::new(exponential_buckets(0.0005, 2.0, 13));
        let timed = commits.clone();
        std::thread::Builder::new()
            .name("punct-store".into())
            .spawn(move || serve(db, inbox, &timed))
            .map_err(StoreError::Thread)?;
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
            let result = job(db);
            let ok = result.is_ok();
            let reply: Reply = Box::new(move |committed| {
                let answer_now = match committed {
                    Ok(()) => result.map_err(StoreError::Sqlite),
                    Err(e) => Err(StoreError::Commit(e)),
                };
                let _ = answer.send(answer_now);
            });
            (ok, reply)
        });
        self.jobs.send(job).map_err(|_| StoreError::Stopped)?;
        answered.await.map_err(|_| StoreError::Stopped)?
    }

    /// Answers once the database has run a query: it is open and its thread is alive.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.call(|db| db.query_row("SELECT 1", [], |_| Ok(())))
            .await
    }
}

/// The database thread: runs the waiting jobs in one transaction, then answers them.
fn serve(mut db: Connection, jobs: channel::Receiver<Job>, commits: &Histogram) {
    while let Ok(first) = jobs.recv() {
        let batch: Vec<Job> = std::iter::once(first)
            .chain(jobs.try_iter().take(MAX_BATCH - 1))
            .collect();
        let mut replies = Vec::with_capacity(batch.len());
        let started = std::time::Instant::now();
        let committed = run_batch(&mut db, batch, &mut replies).map_err(Arc::new);
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
        assert_eq!(version, 5);
        let mode: String = db
            .pragma_query_value(None, "journal_mode", |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        db.pragma_update(None, "user_version", version + 1).unwrap();
        drop(db);
        let newer = Store::open(Some(&path)).unwrap_err();
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
        drop(Store::open(Some(&path)).unwrap());
        let db = Connection::open(&path).unwrap();
        let version: u32 = db
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, 5);
        let rooms: u32 = db
            .query_row("SELECT COUNT(*) FROM rooms", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rooms, 1, "the rooms are kept");
    }
}
