//! Why the database could not do what was asked, each kind keeping its cause.

use std::fmt;
use std::sync::Arc;

/// Why the database could not do what was asked. Each keeps its cause.
#[derive(Debug)]
pub(crate) enum StoreError {
    /// SQLite refused or failed the request's own statements; nothing of it was kept.
    Sqlite(rusqlite::Error),
    /// PostgreSQL refused or failed the request, or could not be reached.
    Postgres(tokio_postgres::Error),
    /// No connection to PostgreSQL could be had from the pool.
    Pool(Box<dyn std::error::Error + Send + Sync>),
    /// A stored value does not read back: the database was changed by hand or damaged.
    Corrupt(Box<dyn std::error::Error + Send + Sync>),
    /// The transaction that held the request (and others) failed to commit.
    Commit(Arc<dyn std::error::Error + Send + Sync>),
    /// The database's schema is not one this server knows.
    Schema(String),
    /// A migration was refused (the source cannot be copied whole, or the target holds
    /// data) or its copy differs.
    NotCopied(String),
    /// Closing SQLite left data in its WAL, which another connection (a backup's) was
    /// still reading: the file alone does not hold everything.
    WalLeft,
    /// The database thread could not be started.
    Thread(std::io::Error),
    /// The database thread or task has stopped.
    Stopped,
    /// A job on SQLite's thread waited for something other than its statements, which
    /// the thread cannot wait for: a fault of the store's own code.
    Pending,
    /// The room was loaded again since the writer loaded it (by another node, after a
    /// failover), or this node of a cluster lost its lease: this writer no longer owns
    /// the room, and its write was refused.
    Fenced,
}

impl StoreError {
    /// Whether the database refused a row because a unique key (a username's) is taken.
    pub(super) fn is_unique_violation(&self) -> bool {
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::ConstraintViolation
            }
            StoreError::Postgres(e) => {
                e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
            }
            _ => false,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "database: {e}"),
            StoreError::Postgres(e) => write!(f, "database: {}", postgres_message(e)),
            StoreError::Pool(e) => write!(f, "database connection: {e}"),
            StoreError::Corrupt(e) => write!(f, "a stored value does not read back: {e}"),
            StoreError::Schema(why) => write!(f, "database schema: {why}"),
            StoreError::Commit(e) => write!(f, "database commit failed: {e}"),
            StoreError::NotCopied(why) => f.write_str(why),
            StoreError::WalLeft => f.write_str(
                "the WAL could not be emptied (another connection was reading the file): \
                 the -wal file beside it holds data the file does not",
            ),
            StoreError::Thread(e) => write!(f, "cannot start the database thread: {e}"),
            StoreError::Stopped => f.write_str("the database thread has stopped"),
            StoreError::Pending => f.write_str("a database job waited on the database thread"),
            StoreError::Fenced => {
                f.write_str("the room was loaded again elsewhere, or this node lost its lease")
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Sqlite(e) => Some(e),
            StoreError::Postgres(e) => Some(e),
            StoreError::Pool(e) | StoreError::Corrupt(e) => Some(e.as_ref()),
            StoreError::Commit(e) => Some(e.as_ref()),
            StoreError::Thread(e) => Some(e),
            StoreError::Schema(_)
            | StoreError::NotCopied(_)
            | StoreError::WalLeft
            | StoreError::Stopped
            | StoreError::Pending
            | StoreError::Fenced => None,
        }
    }
}

/// What PostgreSQL (or the way to it) said. `tokio_postgres` shows only the kind of an
/// error ("db error", "error connecting to server") and keeps the server's own message
/// (`database "x" does not exist`) or the system's (`Connection refused`) as its source,
/// which an operator must see.
fn postgres_message(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.to_string();
    }
    let mut message = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(next) = cause {
        message = format!("{message}: {next}");
        cause = next.source();
    }
    message
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(e)
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> StoreError {
        StoreError::Postgres(e)
    }
}

impl From<deadpool_postgres::PoolError> for StoreError {
    fn from(e: deadpool_postgres::PoolError) -> StoreError {
        match e {
            deadpool_postgres::PoolError::Backend(e) => StoreError::Postgres(e),
            other => StoreError::Pool(Box::new(other)),
        }
    }
}
