//! The page's puzzles each account has solved.

use super::db::Store;
use super::driver::{Conn, params};
use super::error::StoreError;
use crate::clock::now;

impl Store {
    /// Account `account` solved puzzle `puzzle` (now, unless it had before).
    pub(crate) async fn solve(&self, account: &str, puzzle: &str) -> Result<(), StoreError> {
        let (account, puzzle, at) = (account.to_owned(), puzzle.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { solve(db, &account, &puzzle, at).await }))
            .await
    }

    /// The puzzles `account` has solved, by id.
    pub(crate) async fn solved_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { solved_of(db, &account).await }))
            .await
    }
}

/// Account `account` solved puzzle `puzzle` at `at` (again: nothing changes).
async fn solve(db: &dyn Conn, account: &str, puzzle: &str, at: i64) -> Result<(), StoreError> {
    db.execute(INSERT_SOLVED, params![account, puzzle, at])
        .await?;
    Ok(())
}

/// The puzzles `account` has solved, by id.
async fn solved_of(db: &dyn Conn, account: &str) -> Result<Vec<String>, StoreError> {
    let rows = db.query(SOLVED_OF, params![account]).await?;
    rows.iter().map(|row| row.get("puzzle")).collect()
}

/// Account `$1` solved puzzle `$2` at `$3`; nothing changes if it had already.
const INSERT_SOLVED: &str = "INSERT INTO puzzles_solved (account, puzzle, solved_at)
     VALUES ($1, $2, $3) ON CONFLICT (account, puzzle) DO NOTHING";

/// The puzzles account `$1` has solved, by id.
const SOLVED_OF: &str = "SELECT puzzle FROM puzzles_solved WHERE account = $1 ORDER BY puzzle";
