//! The embedded database: one SQLite file.
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

mod accounts;
mod chat;
mod queries;
mod ratings;
mod schema;

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc as channel;

use prometheus_client::metrics::histogram::Histogram;
use rusqlite::Connection;
use tokio::sync::oneshot;

use super::StoreError;

/// Most jobs run in one transaction: bounds the time any one caller waits behind others.
const MAX_BATCH: usize = 512;

/// A job for the database thread: runs against the open transaction, says whether it
/// succeeded, and gives back what delivers its answer once the commit is known.
type Job = Box<dyn FnOnce(&Connection) -> (bool, Reply) + Send>;
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
        std::thread::Builder::new()
            .name("punct-store".into())
            .spawn(move || serve(db, inbox, &commits))
            .map_err(StoreError::Thread)?;
        Ok(Sqlite { jobs })
    }

    /// Runs `job` in the next transaction; answers its result once that is committed.
    async fn call<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move |db| {
            let result = job(db);
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

    /// Answers once the database has run a query: it is open and its thread is alive.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.call(|db| Ok(db.query_row("SELECT 1", [], |_| Ok(()))?))
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

    fn open(path: &Path) -> Result<Sqlite, StoreError> {
        Sqlite::open(Some(path), Histogram::new([0.1]))
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
        assert_eq!(version, 8);
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
        assert_eq!(version, 8);
        let rooms: u32 = db
            .query_row("SELECT COUNT(*) FROM rooms", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rooms, 1, "the rooms are kept");
    }
}
