//! Who blocks whom, since when, until lifted.

use super::db::Store;
use super::driver::{Conn, FromRow, params};
use super::error::StoreError;
use super::model::{Account, AccountId};
use crate::clock::now;

/// An account another blocks, as the blocker's list shows it.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// The account blocked.
    pub(crate) account: Account,
    /// When the block was made.
    pub(crate) since: i64,
}

impl Store {
    /// Account `blocker` blocks account `blocked` from now on, until lifted.
    pub(crate) async fn block(&self, blocker: &str, blocked: &str) -> Result<(), StoreError> {
        let (blocker, blocked, at) = (blocker.to_owned(), blocked.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { block(db, &blocker, &blocked, at).await }))
            .await
    }

    /// Account `blocker` no longer blocks account `blocked`; false if it did not.
    pub(crate) async fn unblock(&self, blocker: &str, blocked: &str) -> Result<bool, StoreError> {
        let (blocker, blocked) = (blocker.to_owned(), blocked.to_owned());
        self.db
            .run(move |db| Box::pin(async move { unblock(db, &blocker, &blocked).await }))
            .await
    }

    /// The accounts `blocker` blocks, oldest block first.
    pub(crate) async fn blocks_of(&self, blocker: &str) -> Result<Vec<Block>, StoreError> {
        let blocker = blocker.to_owned();
        self.db
            .run(move |db| Box::pin(async move { blocks_of(db, &blocker).await }))
            .await
    }

    /// The accounts that block `blocked`.
    pub(crate) async fn blockers_of(&self, blocked: &str) -> Result<Vec<AccountId>, StoreError> {
        let blocked = blocked.to_owned();
        self.db
            .run(move |db| Box::pin(async move { blockers_of(db, &blocked).await }))
            .await
    }
}

/// Account `blocker` blocks account `blocked` from `at` (again: nothing changes).
async fn block(db: &dyn Conn, blocker: &str, blocked: &str, at: i64) -> Result<(), StoreError> {
    db.execute(INSERT_BLOCK, params![blocker, blocked, at])
        .await?;
    Ok(())
}

/// Account `blocker` no longer blocks account `blocked`; false if it did not.
async fn unblock(db: &dyn Conn, blocker: &str, blocked: &str) -> Result<bool, StoreError> {
    Ok(db.execute(DELETE_BLOCK, params![blocker, blocked]).await? > 0)
}

/// The accounts `blocker` blocks, oldest block first.
async fn blocks_of(db: &dyn Conn, blocker: &str) -> Result<Vec<Block>, StoreError> {
    let rows = db.query(BLOCKS_OF, params![blocker]).await?;
    rows.iter()
        .map(|row| {
            Ok(Block {
                account: Account::from_row(row)?,
                since: row.get("created_at")?,
            })
        })
        .collect()
}

/// The accounts that block `blocked`.
async fn blockers_of(db: &dyn Conn, blocked: &str) -> Result<Vec<AccountId>, StoreError> {
    let rows = db.query(BLOCKERS_OF, params![blocked]).await?;
    rows.iter().map(|row| row.get("blocker")).collect()
}

/// Account `$1` blocks account `$2` from `$3`; nothing changes if it did already.
const INSERT_BLOCK: &str = "INSERT INTO blocks (blocker, blocked, created_at)
     VALUES ($1, $2, $3) ON CONFLICT (blocker, blocked) DO NOTHING";

/// Account `$1` no longer blocks account `$2`.
const DELETE_BLOCK: &str = "DELETE FROM blocks WHERE blocker = $1 AND blocked = $2";

/// The accounts account `$1` blocks, oldest block first: id, username, since when.
const BLOCKS_OF: &str = "SELECT a.id, a.username, b.created_at
     FROM blocks b JOIN accounts a ON a.id = b.blocked
     WHERE b.blocker = $1 ORDER BY b.created_at, a.username";

/// The accounts that block account `$1`.
const BLOCKERS_OF: &str = "SELECT blocker FROM blocks WHERE blocked = $1";
