//! Rated games and ratings in PostgreSQL. Rating a game reads both players' ratings and
//! writes them back: it runs in a transaction of its own, on a connection of its own,
//! under an advisory lock that every node takes, so that games are rated one at a time
//! across the cluster and `rated_games.seq` is the order they were rated in.

use punct_rules::{Color, Outcome, Variant};
use tokio_postgres::{GenericClient, Row, Transaction};

use super::{Postgres, connect};
use crate::rating::{Change, Ledger, Rating, Standing};
use crate::store::model::{Account, PlayerRecord, Rated, text};
use crate::store::{StoreError, sql};

use super::queries::stored;

/// The advisory lock rating runs under: `rating` in ASCII.
const RATING_LOCK: i64 = 0x7261_7469_6e67;

impl Postgres {
    /// Rates `room` if it is a finished rated game between two accounts, both of whom
    /// played a turn, and has not been rated yet; answers what it did.
    pub(crate) async fn rate_game(&self, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
        let mut client = connect(&self.reader.config).await?;
        let tx = locked(&mut client).await?;
        let rated = rate(&tx, room).await?;
        tx.commit().await?;
        Ok(rated)
    }

    /// The finished rated games not rated yet (their rating failed), oldest first.
    pub(crate) async fn unrated_games(&self) -> Result<Vec<String>, StoreError> {
        let db = self.reader().await?;
        let rows = db.query(sql::UNRATED_GAMES, &[]).await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// Rebuilds every rating and every game's rating change by replaying the rated
    /// games in the order they were rated; answers how many games.
    pub(crate) async fn rebuild_ratings(&self) -> Result<usize, StoreError> {
        let mut client = connect(&self.reader.config).await?;
        let tx = locked(&mut client).await?;
        let games = tx.query(sql::RATED_GAMES, &[]).await?;
        let mut ledger = Ledger::default();
        for game in &games {
            let room: &str = game.get(0);
            let variant: Variant = stored(game.get(1))?;
            let outcome: Outcome = stored(game.get(2))?;
            let at: i64 = game.get(3);
            let accounts: [&str; 2] = [game.get(4), game.get(5)];
            let changes = ledger.rate(accounts, variant, outcome, at);
            for (color, (account, change)) in Color::ALL
                .into_iter()
                .zip(accounts.into_iter().zip(changes))
            {
                write_change(&tx, room, color, account, variant, at, change).await?;
            }
        }
        tx.execute("DELETE FROM ratings", &[]).await?;
        for ((account, variant), (standing, games)) in ledger.into_entries() {
            let rating = standing.rating;
            tx.execute(
                sql::INSERT_RATING,
                &[
                    &account,
                    &text(&variant),
                    &rating.rating,
                    &rating.deviation,
                    &rating.volatility,
                    &i32::try_from(games).unwrap_or(i32::MAX),
                    &standing.last_rated_at,
                ],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(games.len())
    }

    /// The page of the account whose username has `key`.
    pub(crate) async fn player(&self, key: &str) -> Result<Option<PlayerRecord>, StoreError> {
        let db = self.reader().await?;
        let Some(found) = db.query_opt(sql::PLAYER, &[&key]).await? else {
            return Ok(None);
        };
        let account = Account {
            id: found.get(0),
            username: found.get(1),
        };
        let ratings = db
            .query(sql::PLAYER_RATINGS, &[&account.id])
            .await?
            .iter()
            .map(|row| Ok((stored(row.get(0))?, standing(row, 1), games(row, 5))))
            .collect::<Result<_, StoreError>>()?;
        let history = db
            .query(sql::PLAYER_HISTORY, &[&account.id])
            .await?
            .iter()
            .map(|row| Ok((stored(row.get(0))?, row.get(1), row.get(2), rating(row, 3))))
            .collect::<Result<_, StoreError>>()?;
        let results = db
            .query(sql::PLAYER_RESULTS, &[&account.id])
            .await?
            .iter()
            .map(|row| Ok((stored(row.get(0))?, stored(row.get(1))?)))
            .collect::<Result<_, StoreError>>()?;
        Ok(Some(PlayerRecord {
            account,
            created_at: found.get(2),
            ratings,
            history,
            results,
        }))
    }

    /// Up to `limit` players of `variant` whose stored deviation is at most
    /// `deviation`, best first: username, standing, rated games.
    pub(crate) async fn leaders(
        &self,
        variant: Variant,
        deviation: f64,
        limit: usize,
    ) -> Result<Vec<(String, Standing, u32)>, StoreError> {
        let db = self.reader().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = db
            .query(sql::LEADERS, &[&text(&variant), &deviation, &limit])
            .await?;
        Ok(rows
            .iter()
            .map(|row| (row.get(0), standing(row, 1), games(row, 5)))
            .collect())
    }
}

/// A transaction holding the rating lock.
async fn locked(client: &mut tokio_postgres::Client) -> Result<Transaction<'_>, StoreError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&RATING_LOCK])
        .await?;
    Ok(tx)
}

/// A rating stored in three columns from `first`.
fn rating(row: &Row, first: usize) -> Rating {
    Rating {
        rating: row.get(first),
        deviation: row.get(first + 1),
        volatility: row.get(first + 2),
    }
}

/// A standing stored as a rating and the time of the last rated game, from `first`.
fn standing(row: &Row, first: usize) -> Standing {
    Standing {
        rating: rating(row, first),
        last_rated_at: row.get(first + 3),
    }
}

/// A count of games, stored as an INTEGER.
fn games(row: &Row, at: usize) -> u32 {
    u32::try_from(row.get::<_, i32>(at)).unwrap_or(0)
}

async fn rate(tx: &Transaction<'_>, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
    let Some(game) = tx.query_opt(sql::GAME_TO_RATE, &[&room]).await? else {
        return Ok(None);
    };
    // An aborted game (one side never played) changes nothing.
    if game.get::<_, i64>(7) < 2 {
        return Ok(None);
    }
    let variant: Variant = stored(game.get(0))?;
    let outcome: Outcome = stored(game.get(1))?;
    let at: i64 = game.get(2);
    let accounts: [&str; 2] = [game.get(3), game.get(4)];
    let mut standings = [Standing::NEW; 2];
    for (standing_now, account) in standings.iter_mut().zip(accounts) {
        if let Some(row) = tx
            .query_opt(sql::STANDING, &[&account, &text(&variant)])
            .await?
        {
            *standing_now = standing(&row, 0);
        }
    }
    let changes = Change::of_game(standings, outcome, at);
    tx.execute(sql::INSERT_RATED_GAME, &[&room, &at]).await?;
    for (color, (account, change)) in Color::ALL
        .into_iter()
        .zip(accounts.into_iter().zip(changes))
    {
        write_change(tx, room, color, account, variant, at, change).await?;
        tx.execute(
            sql::RATE_ONE_MORE,
            &[
                &account,
                &text(&variant),
                &change.after.rating,
                &change.after.deviation,
                &change.after.volatility,
                &at,
            ],
        )
        .await?;
    }
    let [white_change, black_change] = changes;
    Ok(Some([
        Rated {
            username: game.get(5),
            change: white_change,
        },
        Rated {
            username: game.get(6),
            change: black_change,
        },
    ]))
}

/// Stores (or, rebuilding, overwrites) what a game did to one player's rating.
async fn write_change(
    tx: &Transaction<'_>,
    room: &str,
    color: Color,
    account: &str,
    variant: Variant,
    at: i64,
    change: Change,
) -> Result<(), StoreError> {
    let (before, after) = (change.before, change.after);
    tx.execute(
        sql::PUT_CHANGE,
        &[
            &room,
            &text(&color),
            &account,
            &text(&variant),
            &at,
            &before.rating,
            &before.deviation,
            &before.volatility,
            &after.rating,
            &after.deviation,
            &after.volatility,
        ],
    )
    .await?;
    Ok(())
}

/// What rated game `room` did to the ratings, once it was rated.
pub(super) async fn game_ratings(
    db: &impl GenericClient,
    room: &str,
) -> Result<Option<[Rated; 2]>, StoreError> {
    let rows = db.query(sql::GAME_RATINGS, &[&room]).await?;
    let rated: Vec<Rated> = rows
        .iter()
        .map(|row| Rated {
            username: row.get(0),
            change: Change {
                before: rating(row, 1),
                after: rating(row, 4),
            },
        })
        .collect();
    Ok(<[Rated; 2]>::try_from(rated).ok())
}
