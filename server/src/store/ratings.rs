//! Rated games and ratings, written once for both databases.
//!
//! Rating a game reads both players' ratings and writes them back, so it runs alone: in
//! a transaction of its own that no other rating runs beside (`Db::exclusive`: SQLite's
//! one thread; PostgreSQL's advisory lock, taken by every node). `rated_games.seq` is
//! therefore the order games were rated in, which a rebuild replays.

use punct_rules::{Color, Outcome, Variant};

use super::driver::{Conn, Row, params};
use super::error::StoreError;
use super::model::{Account, PlayerRecord, Rated, text};
use super::sql;
use crate::rating::{Change, Ledger, Rating, Standing};

/// Rates `room` if it is a finished rated game between two accounts, both of whom played
/// a turn, and has not been rated yet; answers what it did.
pub(super) async fn rate(db: &dyn Conn, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
    let Some(game) = db.query_opt(sql::GAME_TO_RATE, params![room]).await? else {
        return Ok(None);
    };
    // An aborted game (one side never played) changes nothing.
    if game.get::<usize>(7)? < 2 {
        return Ok(None);
    }
    let variant: Variant = game.stored(0)?;
    let outcome: Outcome = game.stored(1)?;
    let at: i64 = game.get(2)?;
    let accounts: [String; 2] = [game.get(3)?, game.get(4)?];
    let mut standings = [Standing::NEW; 2];
    for (now, account) in standings.iter_mut().zip(&accounts) {
        let found = db
            .query_opt(sql::STANDING, params![account, text(&variant)])
            .await?;
        if let Some(row) = found {
            *now = standing(&row, 0)?;
        }
    }
    let changes = Change::of_game(standings, outcome, at);
    db.execute(sql::INSERT_RATED_GAME, params![room, at])
        .await?;
    for (color, (account, change)) in Color::ALL.into_iter().zip(accounts.iter().zip(changes)) {
        put_change(db, room, color, account, variant, at, change).await?;
        put_rating(db, account, variant, change.after, 1, Some(at)).await?;
    }
    let [white, black] = changes;
    Ok(Some([
        Rated {
            username: game.get(5)?,
            change: white,
        },
        Rated {
            username: game.get(6)?,
            change: black,
        },
    ]))
}

/// Rebuilds every rating and every game's rating change by replaying the rated games in
/// the order they were rated; answers how many games.
pub(super) async fn rebuild(db: &dyn Conn) -> Result<usize, StoreError> {
    let games = db.query(sql::RATED_GAMES, &[]).await?;
    let mut ledger = Ledger::default();
    for game in &games {
        let room: String = game.get(0)?;
        let variant: Variant = game.stored(1)?;
        let outcome: Outcome = game.stored(2)?;
        let at: i64 = game.get(3)?;
        let accounts: [String; 2] = [game.get(4)?, game.get(5)?];
        let changes = ledger.rate(
            accounts.each_ref().map(String::as_str),
            variant,
            outcome,
            at,
        );
        for (color, (account, change)) in Color::ALL.into_iter().zip(accounts.iter().zip(changes)) {
            put_change(db, &room, color, account, variant, at, change).await?;
        }
    }
    db.execute(sql::DELETE_RATINGS, &[]).await?;
    for ((account, variant), (standing, games)) in ledger.into_entries() {
        let Standing {
            rating,
            last_rated_at,
        } = standing;
        put_rating(db, &account, variant, rating, games, last_rated_at).await?;
    }
    Ok(games.len())
}

/// Stores `account`'s `rating` in `variant` after `games` more rated games, the last of
/// which ended at `at`.
async fn put_rating(
    db: &dyn Conn,
    account: &str,
    variant: Variant,
    rating: Rating,
    games: u32,
    at: Option<i64>,
) -> Result<(), StoreError> {
    let values = params![
        account,
        text(&variant),
        rating.rating,
        rating.deviation,
        rating.volatility,
        games,
        at,
    ];
    db.execute(sql::PUT_RATING, values).await?;
    Ok(())
}

/// Stores (or, rebuilding, overwrites) what a game did to one player's rating.
async fn put_change(
    db: &dyn Conn,
    room: &str,
    color: Color,
    account: &str,
    variant: Variant,
    at: i64,
    change: Change,
) -> Result<(), StoreError> {
    let (before, after) = (change.before, change.after);
    let values = params![
        room,
        text(&color),
        account,
        text(&variant),
        at,
        before.rating,
        before.deviation,
        before.volatility,
        after.rating,
        after.deviation,
        after.volatility,
    ];
    db.execute(sql::PUT_CHANGE, values).await?;
    Ok(())
}

/// What rated game `room` did to the ratings, once it was rated.
pub(super) async fn game_ratings(
    db: &dyn Conn,
    room: &str,
) -> Result<Option<[Rated; 2]>, StoreError> {
    let rated = db
        .query(sql::GAME_RATINGS, params![room])
        .await?
        .iter()
        .map(|row| {
            Ok(Rated {
                username: row.get(0)?,
                change: Change {
                    before: rating(row, 1)?,
                    after: rating(row, 4)?,
                },
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(<[Rated; 2]>::try_from(rated).ok())
}

/// The finished rated games not rated yet (rating them failed), oldest first.
pub(super) async fn unrated_games(db: &dyn Conn) -> Result<Vec<String>, StoreError> {
    let rows = db.query(sql::UNRATED_GAMES, &[]).await?;
    rows.iter().map(|row| row.get(0)).collect()
}

/// The page of the account whose username has `key`.
pub(super) async fn player(db: &dyn Conn, key: &str) -> Result<Option<PlayerRecord>, StoreError> {
    let Some(found) = db.query_opt(sql::PLAYER, params![key]).await? else {
        return Ok(None);
    };
    let account = Account {
        id: found.get(0)?,
        username: found.get(1)?,
    };
    let ratings = db
        .query(sql::PLAYER_RATINGS, params![&account.id])
        .await?
        .iter()
        .map(|row| Ok((row.stored(0)?, standing(row, 1)?, row.get(5)?)))
        .collect::<Result<_, StoreError>>()?;
    let history = db
        .query(sql::PLAYER_HISTORY, params![&account.id])
        .await?
        .iter()
        .map(|row| Ok((row.stored(0)?, row.get(1)?, row.get(2)?, rating(row, 3)?)))
        .collect::<Result<_, StoreError>>()?;
    let results = db
        .query(sql::PLAYER_RESULTS, params![&account.id])
        .await?
        .iter()
        .map(|row| Ok((row.stored(0)?, row.stored(1)?)))
        .collect::<Result<_, StoreError>>()?;
    Ok(Some(PlayerRecord {
        account,
        created_at: found.get(2)?,
        ratings,
        history,
        results,
    }))
}

/// Up to `limit` players of `variant` whose stored deviation is at most `deviation`,
/// best first: username, standing, rated games.
pub(super) async fn leaders(
    db: &dyn Conn,
    variant: Variant,
    deviation: f64,
    limit: usize,
) -> Result<Vec<(String, Standing, u32)>, StoreError> {
    let rows = db
        .query(sql::LEADERS, params![text(&variant), deviation, limit])
        .await?;
    rows.iter()
        .map(|row| Ok((row.get(0)?, standing(row, 1)?, row.get(5)?)))
        .collect()
}

/// A rating stored in three columns from `first`.
fn rating(row: &Row, first: usize) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: row.get(first)?,
        deviation: row.get(first + 1)?,
        volatility: row.get(first + 2)?,
    })
}

/// A standing stored as a rating and the time of the last rated game, from `first`.
fn standing(row: &Row, first: usize) -> Result<Standing, StoreError> {
    Ok(Standing {
        rating: rating(row, first)?,
        last_rated_at: row.get(first + 3)?,
    })
}
