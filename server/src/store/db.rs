//! [`Store`], the one handle on the database: it chooses the database from the setting,
//! and sends each request down one of its paths: what an actor owns (a room's
//! group-committed write, a room's or a tournament's statements) only while the node
//! holds its lease ([`Store::owned`]); a statement or two, a transaction, a rating. Each aggregate's
//! requests are its own `impl Store` block, beside its SQL.

use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

use super::driver::{Answer, Conn, Grouped};
use super::error::StoreError;
use super::migrate::{self, Copied};
use super::postgres::Postgres;
use super::sqlite::Sqlite;
use crate::lease::Lease;

/// A cheap handle on the database.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    /// The database.
    pub(super) db: Db,
    /// How long each commit took, for `/metrics`.
    pub(super) commits: Histogram,
    /// Checked before each write of what an actor owns: a node of a cluster that lost its
    /// lease writes nothing of the rooms and tournaments the others now take over.
    pub(super) lease: Lease,
}

/// Which database: where the queries of `rooms`, `accounts` and `ratings` run.
#[derive(Clone, Debug)]
pub(super) enum Db {
    /// The embedded SQLite file.
    Sqlite(Sqlite),
    /// PostgreSQL.
    Postgres(Postgres),
}

impl Db {
    /// Makes `write` in the next group commit; answers once it is committed.
    pub(super) async fn write(&self, write: Box<dyn Grouped>) -> Result<usize, StoreError> {
        match self {
            Db::Sqlite(db) => {
                db.call(move |db| Box::pin(async move { write.run(db).await }))
                    .await
            }
            Db::Postgres(db) => db.write(write).await,
        }
    }

    /// Runs `work`: on SQLite in the next transaction (answered once it is committed),
    /// on PostgreSQL on a pooled connection, each statement committing alone.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Db::Sqlite(db) => db.call(work).await,
            Db::Postgres(db) => db.call(work).await,
        }
    }

    /// Runs `work` in a transaction with no other rating beside it: on SQLite, as any
    /// job of its one thread; on PostgreSQL, under an advisory lock all nodes take.
    pub(super) async fn exclusive<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Db::Sqlite(db) => db.call(work).await,
            Db::Postgres(db) => db.transaction(true, work).await,
        }
    }

    /// Runs `work` in one transaction: on SQLite, as any job of its one thread; on
    /// PostgreSQL, in a transaction of its own.
    pub(super) async fn atomic<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Db::Sqlite(db) => db.call(work).await,
            Db::Postgres(db) => db.transaction(false, work).await,
        }
    }
}

/// Whether `database` names a PostgreSQL database rather than a SQLite file.
pub(crate) fn is_postgres(database: &str) -> bool {
    database.starts_with("postgres://") || database.starts_with("postgresql://")
}

impl Store {
    /// Opens the database `database` names: a PostgreSQL URL (`postgres://…` or
    /// `postgresql://…`), a SQLite file path (created if need be), or SQLite in memory
    /// for `None` or `:memory:`. Its schema is brought up to date.
    pub(crate) async fn open(database: Option<&str>) -> Result<Store, StoreError> {
        // From half a millisecond to about two seconds.
        let commits = Histogram::new(exponential_buckets(0.0005, 2.0, 13));
        let db = match database {
            Some(url) if is_postgres(url) => {
                Db::Postgres(Postgres::open(url, commits.clone()).await?)
            }
            Some(":memory:") | None => Db::Sqlite(Sqlite::open(None, commits.clone())?),
            Some(path) => Db::Sqlite(Sqlite::open(
                Some(std::path::Path::new(path)),
                commits.clone(),
            )?),
        };
        Ok(Store {
            db,
            commits,
            lease: Lease::default(),
        })
    }

    /// Opens the SQLite file at `path` for a migration to copy, refusing it unless it
    /// can be read whole: never created, no server on it, its WAL folded in (see
    /// `Sqlite::open_whole`).
    pub(crate) fn open_whole(path: &std::path::Path) -> Result<Store, StoreError> {
        let commits = Histogram::new(exponential_buckets(0.0005, 2.0, 13));
        Ok(Store {
            db: Db::Sqlite(Sqlite::open_whole(path, commits.clone())?),
            commits,
            lease: Lease::default(),
        })
    }

    /// Closes the database after every request made before: on SQLite, the WAL is folded
    /// into the file and emptied, so that the file alone holds everything (it is what an
    /// operator copies); requests made after fail. PostgreSQL keeps its own log, and its
    /// connections close as the process ends.
    pub(crate) async fn close(&self) -> Result<(), StoreError> {
        match &self.db {
            Db::Sqlite(db) => db.close().await,
            Db::Postgres(_) => Ok(()),
        }
    }

    /// A new, empty store for a test: in memory, or a database of its own on a
    /// PostgreSQL server the tests start when `PUNCT_TEST_DATABASE=postgres`, so that the
    /// same tests check both.
    #[cfg(test)]
    pub(crate) async fn empty() -> Store {
        let postgres = std::env::var("PUNCT_TEST_DATABASE").is_ok_and(|db| db == "postgres");
        let url = postgres.then(|| punct_testing::Postgres::shared().database());
        Store::open(url.as_deref()).await.unwrap()
    }

    /// Runs the statement `sql` as it is, for a test that must reach past the store's
    /// methods (to see the database itself refuse it).
    #[cfg(test)]
    pub(crate) async fn execute_raw(&self, sql: &'static str) -> Result<u64, StoreError> {
        self.db
            .atomic(move |db| Box::pin(async move { db.execute(sql, &[]).await }))
            .await
    }

    /// The same database, written to only while `lease` is held.
    pub(crate) fn with_lease(self, lease: Lease) -> Store {
        Store { lease, ..self }
    }

    /// The write path of what this node's actors own: a room (loading it, its seats,
    /// turns, result and chat) and a tournament its director runs. It runs only while
    /// the node holds its lease, since the others take those actors over once it has
    /// lapsed; a room's own writes are fenced again in the database, by the incarnation
    /// that loaded it (`rooms::fence`). What no actor owns (accounts and their sessions,
    /// moderation, mail, ratings) any node may write at any time, its conflicts kept
    /// apart by the database's own keys and locks: it goes through [`Db`] directly.
    pub(super) async fn owned<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.leased()?;
        self.db.run(work).await
    }

    /// A room's `write` on the owned path ([`Store::owned`]), in the next group commit.
    pub(super) async fn owned_write(&self, write: Box<dyn Grouped>) -> Result<usize, StoreError> {
        self.leased()?;
        self.db.write(write).await
    }

    /// Refuses a write once the node has lost its lease.
    fn leased(&self) -> Result<(), StoreError> {
        if self.lease.held() {
            Ok(())
        } else {
            Err(StoreError::Fenced)
        }
    }

    /// The histogram of commit times.
    pub(crate) fn commit_times(&self) -> Histogram {
        self.commits.clone()
    }

    /// Answers once the database has run a query.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.db
            .run(|db| Box::pin(async move { db.query(PING, &[]).await.map(drop) }))
            .await
    }

    /// Copies everything in this database (a SQLite file) into `target` (an empty
    /// PostgreSQL database), in one transaction; then checks that both hold as many rows
    /// in each table, and that every game's record and the archive read the same.
    pub(crate) async fn migrate_to(&self, target: &Store) -> Result<Copied, StoreError> {
        let (Db::Sqlite(from), Db::Postgres(to)) = (&self.db, &target.db) else {
            return Err(StoreError::NotCopied(
                "copies from a SQLite file into PostgreSQL only".into(),
            ));
        };
        let from = from.clone();
        // Under the rating lock: no node rates a game into the target meanwhile.
        let rows = to
            .transaction(true, move |db| {
                Box::pin(async move { migrate::copy(&from, db).await })
            })
            .await?;
        let counts = self.db.run(|db| Box::pin(migrate::counts(db))).await?;
        let copied = target.db.run(|db| Box::pin(migrate::counts(db))).await?;
        migrate::same_counts(&counts, &copied)?;
        let rooms = self.db.run(|db| Box::pin(migrate::rooms(db))).await?;
        for room in &rooms {
            if self.record(room).await? != target.record(room).await? {
                return Err(StoreError::NotCopied(format!(
                    "room {room}'s record reads otherwise"
                )));
            }
        }
        if self.archive(None, usize::MAX, None).await?
            != target.archive(None, usize::MAX, None).await?
        {
            return Err(StoreError::NotCopied("the archive reads otherwise".into()));
        }
        Ok(Copied {
            tables: counts.len(),
            rows,
            games: rooms.len(),
        })
    }
}

/// Answers once the database runs a query.
const PING: &str = "SELECT 1 AS up";
