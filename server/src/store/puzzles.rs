//! The page's puzzles: which each account has solved, each account's first result of
//! each, the puzzle ratings of players and of puzzles, and each player's best streak.
//!
//! Rating a puzzle reads the player's and the puzzle's ratings and writes them back, and
//! two players may play the same puzzle at once, so it runs alone as a rated game does
//! (`Db::exclusive`).

use super::db::Store;
use super::driver::{Conn, params};
use super::error::StoreError;
use crate::clock::now;
use crate::rating::{Change, PuzzleChange, Rating, Standing};

/// What finishing a puzzle did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PuzzlePlayed {
    /// Whether it was the player's first result of the puzzle, the one rated; if not,
    /// the ratings are as they stood (the player's before and after alike).
    pub(crate) rated: bool,
    /// The player's and the puzzle's ratings.
    pub(crate) change: PuzzleChange,
}

/// A player's standing in puzzles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PuzzlePlayer {
    /// Their puzzle rating and when they last played a rated puzzle.
    pub(crate) standing: Standing,
    /// Their longest streak.
    pub(crate) best_streak: u32,
}

impl Store {
    /// Account `account` finished puzzle `puzzle` (now), having `solved` it or not: the
    /// first result rates both, every result `solved` is kept as solved.
    pub(crate) async fn play_puzzle(
        &self,
        account: &str,
        puzzle: &str,
        solved: bool,
    ) -> Result<PuzzlePlayed, StoreError> {
        let (account, puzzle, at) = (account.to_owned(), puzzle.to_owned(), now());
        self.db
            .exclusive(move |db| {
                Box::pin(async move { play(db, &account, &puzzle, solved, at).await })
            })
            .await
    }

    /// The puzzles `account` has solved, by id.
    pub(crate) async fn solved_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { solved_of(db, &account).await }))
            .await
    }

    /// `account`'s puzzle rating and best streak (a newcomer's before any).
    pub(crate) async fn puzzle_player(&self, account: &str) -> Result<PuzzlePlayer, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { puzzle_player(db, &account).await }))
            .await
    }

    /// The rating of every puzzle played rated, by id.
    pub(crate) async fn puzzle_ratings(&self) -> Result<Vec<(String, Rating)>, StoreError> {
        self.db.run(|db| Box::pin(puzzle_ratings(db))).await
    }

    /// `account` ended a streak of `streak` puzzles: answers its best streak now.
    pub(crate) async fn end_streak(&self, account: &str, streak: u32) -> Result<u32, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { end_streak(db, &account, streak).await }))
            .await
    }
}

/// Account `account` finished puzzle `puzzle` at `at`, having `solved` it or not.
async fn play(
    db: &dyn Conn,
    account: &str,
    puzzle: &str,
    solved: bool,
    at: i64,
) -> Result<PuzzlePlayed, StoreError> {
    if solved {
        db.execute(INSERT_SOLVED, params![account, puzzle, at])
            .await?;
    }
    let first = db
        .execute(INSERT_ATTEMPT, params![account, puzzle, solved, at])
        .await?
        == 1;
    let player = puzzle_player(db, account).await?.standing;
    let rating = match db.query_opt(PUZZLE_RATING, params![puzzle]).await? {
        Some(row) => super::ratings::rating(&row, super::ratings::RATING)?,
        None => Rating::NEW,
    };
    if !first {
        let now = player.at(at);
        let change = PuzzleChange {
            player: Change {
                before: now,
                after: now,
            },
            puzzle: rating,
        };
        return Ok(PuzzlePlayed {
            rated: false,
            change,
        });
    }
    let change = PuzzleChange::of(player, rating, solved, at);
    let Rating {
        rating,
        deviation,
        volatility,
    } = change.player.after;
    db.execute(
        PUT_PLAYER,
        params![account, rating, deviation, volatility, at],
    )
    .await?;
    let Rating {
        rating,
        deviation,
        volatility,
    } = change.puzzle;
    db.execute(PUT_PUZZLE, params![puzzle, rating, deviation, volatility])
        .await?;
    Ok(PuzzlePlayed {
        rated: true,
        change,
    })
}

/// The puzzles `account` has solved, by id.
async fn solved_of(db: &dyn Conn, account: &str) -> Result<Vec<String>, StoreError> {
    let rows = db.query(SOLVED_OF, params![account]).await?;
    rows.iter().map(|row| row.get("puzzle")).collect()
}

/// `account`'s puzzle rating and best streak.
async fn puzzle_player(db: &dyn Conn, account: &str) -> Result<PuzzlePlayer, StoreError> {
    let Some(row) = db.query_opt(PUZZLE_PLAYER, params![account]).await? else {
        return Ok(PuzzlePlayer {
            standing: Standing::NEW,
            best_streak: 0,
        });
    };
    Ok(PuzzlePlayer {
        standing: Standing {
            rating: super::ratings::rating(&row, super::ratings::RATING)?,
            last_rated_at: row.get("last_rated_at")?,
        },
        best_streak: row.get("best_streak")?,
    })
}

/// The rating of every puzzle played rated, by id.
async fn puzzle_ratings(db: &dyn Conn) -> Result<Vec<(String, Rating)>, StoreError> {
    let rows = db.query(PUZZLE_RATINGS, &[]).await?;
    rows.iter()
        .map(|row| {
            let rating = super::ratings::rating(row, super::ratings::RATING)?;
            Ok((row.get("puzzle")?, rating))
        })
        .collect()
}

/// `account` ended a streak of `streak`: answers its best streak now.
async fn end_streak(db: &dyn Conn, account: &str, streak: u32) -> Result<u32, StoreError> {
    let Rating {
        rating,
        deviation,
        volatility,
    } = Rating::NEW;
    let values = params![account, rating, deviation, volatility, streak];
    db.query_one(END_STREAK, values).await?.get("best_streak")
}

/// Account `$1` solved puzzle `$2` at `$3`; nothing changes if it had already.
const INSERT_SOLVED: &str = "INSERT INTO puzzles_solved (account, puzzle, solved_at)
     VALUES ($1, $2, $3) ON CONFLICT (account, puzzle) DO NOTHING";

/// Account `$1`'s first result of puzzle `$2` (solved: `$3`) at `$4`: a row only if it
/// is the first.
const INSERT_ATTEMPT: &str = "INSERT INTO puzzle_attempts (account, puzzle, solved, played_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT (account, puzzle) DO NOTHING";

/// The puzzles account `$1` has solved, by id.
const SOLVED_OF: &str = "SELECT puzzle FROM puzzles_solved WHERE account = $1 ORDER BY puzzle";

/// Account `$1`'s puzzle rating, when last rated, and best streak.
const PUZZLE_PLAYER: &str =
    "SELECT rating, deviation, volatility, last_rated_at, best_streak FROM puzzle_players
     WHERE account = $1";

/// Puzzle `$1`'s rating.
const PUZZLE_RATING: &str =
    "SELECT rating, deviation, volatility FROM puzzle_ratings WHERE puzzle = $1";

/// Every rated puzzle's id and rating.
const PUZZLE_RATINGS: &str =
    "SELECT puzzle, rating, deviation, volatility FROM puzzle_ratings ORDER BY puzzle";

/// Account `$1`'s puzzle rating (`$2` to `$4`) after a puzzle played at `$5`.
const PUT_PLAYER: &str =
    "INSERT INTO puzzle_players (account, rating, deviation, volatility, last_rated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account) DO UPDATE SET
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility, last_rated_at = excluded.last_rated_at";

/// Puzzle `$1`'s rating (`$2` to `$4`) after one more rated play.
const PUT_PUZZLE: &str =
    "INSERT INTO puzzle_ratings (puzzle, rating, deviation, volatility, played)
     VALUES ($1, $2, $3, $4, 1)
     ON CONFLICT (puzzle) DO UPDATE SET
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility, played = puzzle_ratings.played + 1";

/// Account `$1` ended a streak of `$5`: its best streak, the longer of that and the one
/// kept, answered. An account that never played a rated puzzle gets a newcomer's rating
/// (`$2` to `$4`) with it. (A `CASE` rather than SQLite's `max` or PostgreSQL's
/// `GREATEST`: it reads the same in both.)
const END_STREAK: &str =
    "INSERT INTO puzzle_players (account, rating, deviation, volatility, best_streak)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account) DO UPDATE SET best_streak =
         CASE WHEN excluded.best_streak > puzzle_players.best_streak
              THEN excluded.best_streak ELSE puzzle_players.best_streak END
     RETURNING best_streak";
