//! Rated games and ratings in SQLite. A game is rated in one job (so in one transaction
//! with nothing else between its reads and writes: the database thread runs one job at a
//! time).

use punct_rules::{Color, Outcome, Variant};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::Sqlite;
use super::queries::stored;
use crate::rating::{Change, Ledger, Rating, Standing};
use crate::store::model::{Account, PlayerRecord, Rated, text};
use crate::store::{StoreError, sql};

impl Sqlite {
    /// Rates `room` if it is a finished rated game between two accounts, both of whom
    /// played a turn, and has not been rated yet; answers what it did.
    pub(crate) async fn rate_game(&self, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
        let room = room.to_owned();
        self.call(move |db| Ok(rate(db, &room)?)).await
    }

    /// The finished rated games not rated yet (their rating failed), oldest first.
    pub(crate) async fn unrated_games(&self) -> Result<Vec<String>, StoreError> {
        self.call(|db| {
            Ok(db
                .prepare(sql::UNRATED_GAMES)?
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Rebuilds every rating and every game's rating change by replaying the rated
    /// games in the order they were rated; answers how many games.
    pub(crate) async fn rebuild_ratings(&self) -> Result<usize, StoreError> {
        self.call(|db| Ok(rebuild(db)?)).await
    }

    /// The page of the account whose username has `key`.
    pub(crate) async fn player(&self, key: &str) -> Result<Option<PlayerRecord>, StoreError> {
        let key = key.to_owned();
        self.call(move |db| Ok(player(db, &key)?)).await
    }

    /// Up to `limit` players of `variant` whose stored deviation is at most
    /// `deviation`, best first: username, standing, rated games.
    pub(crate) async fn leaders(
        &self,
        variant: Variant,
        deviation: f64,
        limit: usize,
    ) -> Result<Vec<(String, Standing, u32)>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.call(move |db| {
            Ok(db
                .prepare_cached(sql::LEADERS)?
                .query_map(params![text(&variant), deviation, limit], |row| {
                    Ok((row.get(0)?, standing(row, 1)?, row.get(5)?))
                })?
                .collect::<rusqlite::Result<_>>()?)
        })
        .await
    }
}

/// A rating stored in three columns from `first`.
fn rating(row: &Row<'_>, first: usize) -> rusqlite::Result<Rating> {
    Ok(Rating {
        rating: row.get(first)?,
        deviation: row.get(first + 1)?,
        volatility: row.get(first + 2)?,
    })
}

/// A standing stored as a rating and the time of the last rated game, from `first`.
fn standing(row: &Row<'_>, first: usize) -> rusqlite::Result<Standing> {
    Ok(Standing {
        rating: rating(row, first)?,
        last_rated_at: row.get(first + 3)?,
    })
}

fn rate(db: &Connection, room: &str) -> rusqlite::Result<Option<[Rated; 2]>> {
    let game = db
        .query_row(sql::GAME_TO_RATE, params![room], |row| {
            Ok((
                stored::<Variant>(&row.get::<_, String>(0)?)?,
                stored::<Outcome>(&row.get::<_, String>(1)?)?,
                row.get::<_, i64>(2)?,
                [row.get::<_, String>(3)?, row.get::<_, String>(4)?],
                [row.get::<_, String>(5)?, row.get::<_, String>(6)?],
                row.get::<_, i64>(7)?,
            ))
        })
        .optional()?;
    let Some((variant, outcome, at, accounts, usernames, turns)) = game else {
        return Ok(None);
    };
    // An aborted game (one side never played) changes nothing.
    if turns < 2 {
        return Ok(None);
    }
    let standing_of = |account: &str| {
        db.query_row(sql::STANDING, params![account, text(&variant)], |row| {
            standing(row, 0)
        })
        .optional()
        .map(|found| found.unwrap_or(Standing::NEW))
    };
    let standings = [standing_of(&accounts[0])?, standing_of(&accounts[1])?];
    let changes = Change::of_game(standings, outcome, at);
    db.execute(sql::INSERT_RATED_GAME, params![room, at])?;
    for (color, (account, change)) in Color::ALL.into_iter().zip(accounts.iter().zip(changes)) {
        write_change(db, room, color, account, variant, at, change)?;
        db.execute(
            sql::RATE_ONE_MORE,
            params![
                account,
                text(&variant),
                change.after.rating,
                change.after.deviation,
                change.after.volatility,
                at
            ],
        )?;
    }
    let [white, black] = usernames;
    let [white_change, black_change] = changes;
    Ok(Some([
        Rated {
            username: white,
            change: white_change,
        },
        Rated {
            username: black,
            change: black_change,
        },
    ]))
}

/// Stores (or, rebuilding, overwrites) what a game did to one player's rating.
fn write_change(
    db: &Connection,
    room: &str,
    color: Color,
    account: &str,
    variant: Variant,
    at: i64,
    change: Change,
) -> rusqlite::Result<()> {
    let (before, after) = (change.before, change.after);
    db.execute(
        sql::PUT_CHANGE,
        params![
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
            after.volatility
        ],
    )
    .map(drop)
}

fn rebuild(db: &Connection) -> rusqlite::Result<usize> {
    let mut query = db.prepare(sql::RATED_GAMES)?;
    let games = query
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                stored::<Variant>(&row.get::<_, String>(1)?)?,
                stored::<Outcome>(&row.get::<_, String>(2)?)?,
                row.get::<_, i64>(3)?,
                [row.get::<_, String>(4)?, row.get::<_, String>(5)?],
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut ledger = Ledger::default();
    for (room, variant, outcome, at, accounts) in &games {
        let changes = ledger.rate(
            accounts.each_ref().map(String::as_str),
            *variant,
            *outcome,
            *at,
        );
        for (color, (account, change)) in Color::ALL.into_iter().zip(accounts.iter().zip(changes)) {
            write_change(db, room, color, account, *variant, *at, change)?;
        }
    }
    db.execute("DELETE FROM ratings", [])?;
    for ((account, variant), (standing, games)) in ledger.into_entries() {
        let rating = standing.rating;
        db.execute(
            sql::INSERT_RATING,
            params![
                account,
                text(&variant),
                rating.rating,
                rating.deviation,
                rating.volatility,
                games,
                standing.last_rated_at
            ],
        )?;
    }
    Ok(games.len())
}

pub(super) fn game_ratings(db: &Connection, room: &str) -> rusqlite::Result<Option<[Rated; 2]>> {
    let mut query = db.prepare_cached(sql::GAME_RATINGS)?;
    let rated = query
        .query_map(params![room], |row| {
            Ok(Rated {
                username: row.get(0)?,
                change: Change {
                    before: rating(row, 1)?,
                    after: rating(row, 4)?,
                },
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(<[Rated; 2]>::try_from(rated).ok())
}

fn player(db: &Connection, key: &str) -> rusqlite::Result<Option<PlayerRecord>> {
    let found = db
        .query_row(sql::PLAYER, params![key], |row| {
            Ok((
                Account {
                    id: row.get(0)?,
                    username: row.get(1)?,
                },
                row.get::<_, i64>(2)?,
            ))
        })
        .optional()?;
    let Some((account, created_at)) = found else {
        return Ok(None);
    };
    let ratings = db
        .prepare_cached(sql::PLAYER_RATINGS)?
        .query_map(params![account.id], |row| {
            Ok((
                stored(&row.get::<_, String>(0)?)?,
                standing(row, 1)?,
                row.get(5)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let history = db
        .prepare_cached(sql::PLAYER_HISTORY)?
        .query_map(params![account.id], |row| {
            Ok((
                stored(&row.get::<_, String>(0)?)?,
                row.get(1)?,
                row.get(2)?,
                rating(row, 3)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let results = db
        .prepare_cached(sql::PLAYER_RESULTS)?
        .query_map(params![account.id], |row| {
            Ok((
                stored(&row.get::<_, String>(0)?)?,
                stored(&row.get::<_, String>(1)?)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some(PlayerRecord {
        account,
        created_at,
        ratings,
        history,
        results,
    }))
}
