//! Rated games and ratings, written once for both databases.
//!
//! Rating a game reads both players' ratings and writes them back, so it runs alone: in
//! a transaction of its own that no other rating runs beside (`Db::exclusive`: SQLite's
//! one thread; PostgreSQL's advisory lock, taken by every node). `rated_games.seq` is
//! therefore the order games were rated in, which a rebuild replays.

use punct_rules::{Color, Outcome, Variant};

use super::db::Store;
use super::driver::{Conn, FromRow, Row, params};
use super::error::StoreError;
use super::model::{Account, text};
use crate::rating::{Change, Ledger, Rating, Standing};

/// One player's side of a rated game: who, and what the game did to their rating.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rated {
    /// The player's username.
    pub(crate) username: String,
    /// Their rating before and after.
    pub(crate) change: Change,
}

/// What a player's page shows, as stored.
#[derive(Debug)]
pub(crate) struct PlayerRecord {
    /// The account.
    pub(crate) account: Account,
    /// When it was made.
    pub(crate) created_at: i64,
    /// Each variant's standing and rated games.
    pub(crate) ratings: Vec<(Variant, Standing, u32)>,
    /// Each rated game's result for the player, oldest first: variant, room, when, and
    /// the rating after it.
    pub(crate) history: Vec<(Variant, String, i64, Rating)>,
    /// Every finished game's outcome, with the player's colour.
    pub(crate) results: Vec<(Color, Outcome)>,
}

impl Store {
    /// Rates `room` if it is a finished rated game between two accounts, both of whom
    /// played a turn, and has not been rated yet; answers what it did.
    pub(crate) async fn rate_game(&self, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
        let room = room.to_owned();
        self.db
            .exclusive(move |db| Box::pin(async move { rate(db, &room).await }))
            .await
    }

    /// The finished rated games not rated yet (rating them failed), oldest first.
    pub(crate) async fn unrated_games(&self) -> Result<Vec<String>, StoreError> {
        self.db.run(|db| Box::pin(unrated_games(db))).await
    }

    /// Rebuilds every rating, and what each game did to them, by replaying the rated
    /// games in the order they were rated; answers how many games.
    pub(crate) async fn rebuild_ratings(&self) -> Result<usize, StoreError> {
        self.db.exclusive(|db| Box::pin(rebuild(db))).await
    }

    /// The page of the account whose username has `key`.
    pub(crate) async fn player(&self, key: &str) -> Result<Option<PlayerRecord>, StoreError> {
        let key = key.to_owned();
        self.db
            .run(move |db| Box::pin(async move { player(db, &key).await }))
            .await
    }

    /// Up to `limit` players of `variant` whose stored deviation is at most `deviation`,
    /// best first: username, standing, rated games.
    pub(crate) async fn leaders(
        &self,
        variant: Variant,
        deviation: f64,
        limit: usize,
    ) -> Result<Vec<(String, Standing, u32)>, StoreError> {
        self.db
            .run(move |db| Box::pin(leaders(db, variant, deviation, limit)))
            .await
    }
}

/// Rates `room` if it is a finished rated game between two accounts, both of whom played
/// a turn, and has not been rated yet; answers what it did.
async fn rate(db: &dyn Conn, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
    let Some(game) = db.query_opt(GAME_TO_RATE, params![room]).await? else {
        return Ok(None);
    };
    // An aborted game (one side never played) changes nothing.
    if game.get::<usize>("turns")? < 2 {
        return Ok(None);
    }
    let RatedGame {
        variant,
        outcome,
        at,
        accounts,
    } = RatedGame::from_row(&game)?;
    let mut standings = [Standing::NEW; 2];
    for (now, account) in standings.iter_mut().zip(&accounts) {
        let found = db
            .query_opt(STANDING, params![account, text(&variant)])
            .await?;
        if let Some(row) = found {
            *now = Standing::from_row(&row)?;
        }
    }
    let changes = Change::of_game(standings, outcome, at);
    db.execute(INSERT_RATED_GAME, params![room, at]).await?;
    for (color, (account, change)) in Color::ALL.into_iter().zip(accounts.iter().zip(changes)) {
        put_change(db, room, color, account, variant, at, change).await?;
        put_rating(db, account, variant, change.after, 1, Some(at)).await?;
    }
    let [white, black] = changes;
    Ok(Some([
        Rated {
            username: game.get("white_username")?,
            change: white,
        },
        Rated {
            username: game.get("black_username")?,
            change: black,
        },
    ]))
}

/// Rebuilds every rating and every game's rating change by replaying the rated games in
/// the order they were rated; answers how many games.
async fn rebuild(db: &dyn Conn) -> Result<usize, StoreError> {
    let games = db.query(RATED_GAMES, &[]).await?;
    let mut ledger = Ledger::default();
    for game in &games {
        let room: String = game.get("room")?;
        let RatedGame {
            variant,
            outcome,
            at,
            accounts,
        } = RatedGame::from_row(game)?;
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
    db.execute(DELETE_RATINGS, &[]).await?;
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
    db.execute(PUT_RATING, values).await?;
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
    db.execute(PUT_CHANGE, values).await?;
    Ok(())
}

/// What rated game `room` did to the ratings, once it was rated.
pub(super) async fn game_ratings(
    db: &dyn Conn,
    room: &str,
) -> Result<Option<[Rated; 2]>, StoreError> {
    let rated = db
        .query(GAME_RATINGS, params![room])
        .await?
        .iter()
        .map(|row| {
            Ok(Rated {
                username: row.get("username")?,
                change: Change {
                    before: rating(row, RATING_BEFORE)?,
                    after: rating(row, RATING)?,
                },
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(<[Rated; 2]>::try_from(rated).ok())
}

/// The finished rated games not rated yet (rating them failed), oldest first.
async fn unrated_games(db: &dyn Conn) -> Result<Vec<String>, StoreError> {
    let rows = db.query(UNRATED_GAMES, &[]).await?;
    rows.iter().map(|row| row.get("id")).collect()
}

/// The page of the account whose username has `key`.
async fn player(db: &dyn Conn, key: &str) -> Result<Option<PlayerRecord>, StoreError> {
    let Some(found) = db.query_opt(PLAYER, params![key]).await? else {
        return Ok(None);
    };
    let account = Account::from_row(&found)?;
    let ratings = db
        .query(PLAYER_RATINGS, params![&account.id])
        .await?
        .iter()
        .map(|row| {
            let games = row.get("games")?;
            Ok((row.stored("variant")?, Standing::from_row(row)?, games))
        })
        .collect::<Result<_, StoreError>>()?;
    let history = db
        .query(PLAYER_HISTORY, params![&account.id])
        .await?
        .iter()
        .map(|row| {
            let (room, at) = (row.get("room")?, row.get("rated_at")?);
            Ok((row.stored("variant")?, room, at, rating(row, RATING)?))
        })
        .collect::<Result<_, StoreError>>()?;
    let results = db
        .query(PLAYER_RESULTS, params![&account.id])
        .await?
        .iter()
        .map(|row| Ok((row.stored("color")?, row.stored("outcome")?)))
        .collect::<Result<_, StoreError>>()?;
    Ok(Some(PlayerRecord {
        account,
        created_at: found.get("created_at")?,
        ratings,
        history,
        results,
    }))
}

/// Up to `limit` players of `variant` whose stored deviation is at most `deviation`,
/// best first: username, standing, rated games.
async fn leaders(
    db: &dyn Conn,
    variant: Variant,
    deviation: f64,
    limit: usize,
) -> Result<Vec<(String, Standing, u32)>, StoreError> {
    let rows = db
        .query(LEADERS, params![text(&variant), deviation, limit])
        .await?;
    rows.iter()
        .map(|row| {
            let (username, games) = (row.get("username")?, row.get("games")?);
            Ok((username, Standing::from_row(row)?, games))
        })
        .collect()
}

/// A finished rated game as rating reads it, from [`GAME_TO_RATE`] or [`RATED_GAMES`].
struct RatedGame {
    /// The game played: ratings are kept per variant.
    variant: Variant,
    /// How it ended.
    outcome: Outcome,
    /// When it is rated: when it ended.
    at: i64,
    /// White's and Black's accounts.
    accounts: [String; 2],
}

impl FromRow for RatedGame {
    fn from_row(row: &Row) -> Result<RatedGame, StoreError> {
        Ok(RatedGame {
            variant: row.stored("variant")?,
            outcome: row.stored("outcome")?,
            at: row.get("rated_at")?,
            accounts: [row.get("white_account")?, row.get("black_account")?],
        })
    }
}

/// The columns of a rating: the rating, its deviation, its volatility. In
/// `rating_changes`, the rating after the game.
pub(super) const RATING: [&str; 3] = ["rating", "deviation", "volatility"];

/// The columns of the rating before the game, in `rating_changes`.
const RATING_BEFORE: [&str; 3] = ["rating_before", "deviation_before", "volatility_before"];

/// A rating stored in the three columns named, in [`RATING`]'s order, by the second
/// argument: a row of `rating_changes` holds two, before and after the game.
pub(super) fn rating(
    row: &Row,
    [rating, deviation, volatility]: [&str; 3],
) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: row.get(rating)?,
        deviation: row.get(deviation)?,
        volatility: row.get(volatility)?,
    })
}

/// A standing stored as a rating and the time of the last rated game.
impl FromRow for Standing {
    fn from_row(row: &Row) -> Result<Standing, StoreError> {
        Ok(Standing {
            rating: rating(row, RATING)?,
            last_rated_at: row.get("last_rated_at")?,
        })
    }
}

/// Room `$1` if it is a finished rated game between two accounts not rated yet: its
/// variant, outcome, end (when it is rated), both accounts, both usernames, and turns
/// played.
const GAME_TO_RATE: &str =
    "SELECT r.variant, r.outcome, r.finished_at AS rated_at, r.white_account, r.black_account,
            wa.username AS white_username, ba.username AS black_username,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) AS turns
     FROM rooms r
     JOIN accounts wa ON wa.id = r.white_account
     JOIN accounts ba ON ba.id = r.black_account
     WHERE r.id = $1 AND r.rated AND r.outcome IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM rated_games g WHERE g.room = r.id)";

/// The finished rated games not rated yet, in which both sides played, oldest first.
const UNRATED_GAMES: &str = "SELECT r.id FROM rooms r
     WHERE r.rated AND r.outcome IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM rated_games g WHERE g.room = r.id)
       AND (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) >= 2
     ORDER BY r.finished_at, r.id";

/// Account `$1`'s standing in variant `$2`: rating, deviation, volatility, last rated.
const STANDING: &str = "SELECT rating, deviation, volatility, last_rated_at FROM ratings
     WHERE account = $1 AND variant = $2";

/// Room `$1` was rated at `$2` (its `seq` is the order games were rated in).
const INSERT_RATED_GAME: &str = "INSERT INTO rated_games (room, rated_at) VALUES ($1, $2)";

/// Account `$1`'s rating in variant `$2` (rating, deviation, volatility: `$3` to `$5`)
/// after `$6` more rated games, the last of which ended at `$7`: one more after a game, or
/// all of them when rebuilding (the ratings were deleted first).
const PUT_RATING: &str =
    "INSERT INTO ratings (account, variant, rating, deviation, volatility, games,
                          last_rated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account, variant) DO UPDATE SET
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility, games = ratings.games + excluded.games,
         last_rated_at = excluded.last_rated_at";

/// What a game (room, colour) did to a player's rating (account, variant, when, before,
/// after), stored or, when rebuilding, stored again.
const PUT_CHANGE: &str =
    "INSERT INTO rating_changes (room, color, account, variant, rated_at, rating_before,
                                 deviation_before, volatility_before, rating, deviation,
                                 volatility)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (room, color) DO UPDATE SET
         rating_before = excluded.rating_before,
         deviation_before = excluded.deviation_before,
         volatility_before = excluded.volatility_before,
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility";

/// Every rated game in the order it was rated: room, variant, outcome, when, accounts.
const RATED_GAMES: &str =
    "SELECT g.room, r.variant, r.outcome, g.rated_at, r.white_account, r.black_account
     FROM rated_games g JOIN rooms r ON r.id = g.room ORDER BY g.seq";

/// What rated game `$1` did, White's then Black's: username, before, after.
const GAME_RATINGS: &str =
    "SELECT a.username, c.rating_before, c.deviation_before, c.volatility_before,
            c.rating, c.deviation, c.volatility
     FROM rating_changes c JOIN accounts a ON a.id = c.account
     WHERE c.room = $1 ORDER BY c.color = 'black'";

/// The account whose username has key `$1`, unless deleted: id, username, when it was
/// made.
const PLAYER: &str =
    "SELECT id, username, created_at FROM accounts WHERE username_key = $1 AND deleted_at IS NULL";

/// Account `$1`'s standing and games in each variant.
const PLAYER_RATINGS: &str =
    "SELECT variant, rating, deviation, volatility, last_rated_at, games FROM ratings
     WHERE account = $1 ORDER BY variant";

/// Account `$1`'s rating after each rated game, in the order they were rated: variant,
/// room, when, the rating.
const PLAYER_HISTORY: &str =
    "SELECT c.variant, c.room, c.rated_at, c.rating, c.deviation, c.volatility
     FROM rating_changes c JOIN rated_games g ON g.room = c.room
     WHERE c.account = $1 ORDER BY g.seq";

/// Account `$1`'s colour and the outcome of every finished game it played.
const PLAYER_RESULTS: &str =
    "SELECT CASE WHEN white_account = $1 THEN 'white' ELSE 'black' END AS color, outcome
     FROM rooms
     WHERE (white_account = $1 OR black_account = $1) AND outcome IS NOT NULL";

/// Up to `$3` players of variant `$1` whose deviation is at most `$2`, best first:
/// username, standing, games. A deleted account's rating stays (its opponents' were
/// computed from it) but is not on the board.
const LEADERS: &str =
    "SELECT a.username, r.rating, r.deviation, r.volatility, r.last_rated_at, r.games
     FROM ratings r JOIN accounts a ON a.id = r.account
     WHERE r.variant = $1 AND r.deviation <= $2 AND a.deleted_at IS NULL
     ORDER BY r.rating DESC, a.username LIMIT $3";

/// Forgets every rating (a rebuild writes them again).
const DELETE_RATINGS: &str = "DELETE FROM ratings";
