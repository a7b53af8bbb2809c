//! The routes of the puzzles: their ratings for anyone, and one's own results, puzzle
//! rating and best streak. The puzzles themselves are the page's (`web`'s puzzle file).

use std::collections::HashMap;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use punct_protocol::RatingView;
use serde::{Deserialize, Serialize};

use super::auth;
use super::body::ApiJson;
use super::error::ApiError;
use super::web::puzzle_ids;
use crate::clock::now;
use crate::rating::{Rating, shown};
use crate::state::AppState;
use crate::store::Account;
use crate::views::rating_view;

/// The routes anyone may ask.
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/api/puzzles", get(puzzle_ratings))
}

/// The routes of one's own results, for a signed-in player only.
pub(crate) fn own_routes() -> Router<AppState> {
    Router::new()
        .route("/api/me/puzzles", get(solved).post(solve))
        .route("/api/me/puzzles/streak", post(end_streak))
}

/// The answer of `GET /api/me/puzzles`, and the export's puzzles.
#[derive(Debug, Serialize)]
pub(super) struct Solved {
    /// The ids of the puzzles solved, in order.
    solved: Vec<String>,
    /// The player's puzzle rating now, its deviation grown for the time since their last
    /// rated puzzle.
    rating: RatingView,
    /// The player's longest streak.
    best_streak: u32,
}

/// What `account` has solved, and their puzzle rating and best streak.
pub(super) async fn solved_of(state: &AppState, account: &Account) -> Result<Solved, ApiError> {
    let player = state.accounts.puzzle_player(account).await?;
    Ok(Solved {
        solved: state.accounts.solved(account).await?,
        rating: rating_view(player.standing.at(now())),
        best_streak: player.best_streak,
    })
}

/// `GET /api/me/puzzles`: the puzzles the player has solved, their puzzle rating and
/// best streak.
async fn solved(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
) -> Result<Json<Solved>, ApiError> {
    Ok(Json(solved_of(&state, &account).await?))
}

/// The body of `POST /api/me/puzzles`.
#[derive(Debug, Deserialize)]
struct Solve {
    /// The id of the puzzle finished, as the page's puzzles name it.
    puzzle: String,
    /// Whether the player solved it; absent, they did (all a page before puzzle ratings
    /// ever said).
    solved: Option<bool>,
}

/// The answer of `POST /api/me/puzzles`.
#[derive(Debug, Serialize)]
struct Played {
    /// Whether this was the player's first result of the puzzle, the only one rated.
    rated: bool,
    /// The player's puzzle rating after.
    rating: RatingView,
    /// How many whole points it moved, as shown: the shown rating after less the one
    /// before (0 when not rated).
    change: i64,
    /// The puzzle's rating after.
    puzzle: RatingView,
}

/// `POST /api/me/puzzles`: the player finished a puzzle of the page's, solved or failed;
/// the first result rates the player and the puzzle. `400 bad-request` for an id the page
/// has no puzzle of.
async fn solve(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
    ApiJson(request): ApiJson<Solve>,
) -> Result<Response, ApiError> {
    known_puzzle(&request.puzzle)?;
    let played = state
        .accounts
        .play_puzzle(&account, &request.puzzle, request.solved.unwrap_or(true))
        .await?;
    // A client of the body before ratings (the puzzle alone) is answered as it was.
    if request.solved.is_none() {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let player = played.change.player;
    let change = i64::from(shown(player.after.rating)) - i64::from(shown(player.before.rating));
    Ok(Json(Played {
        rated: played.rated,
        rating: rating_view(player.after),
        change,
        puzzle: rating_view(played.change.puzzle),
    })
    .into_response())
}

/// Refuses an id the page's puzzle file does not have.
fn known_puzzle(id: &str) -> Result<(), ApiError> {
    if puzzle_ids().iter().any(|known| known == id) {
        Ok(())
    } else {
        Err(ApiError::bad_request("no such puzzle"))
    }
}

/// The answer of `GET /api/puzzles`.
#[derive(Debug, Serialize)]
struct PuzzleRatings {
    /// Every puzzle of the page's, in the file's order.
    puzzles: Vec<PuzzleRating>,
}

/// One puzzle's rating.
#[derive(Debug, Serialize)]
struct PuzzleRating {
    /// Its id in the puzzle file.
    id: String,
    /// Its rating: a newcomer's until first played.
    rating: RatingView,
}

/// `GET /api/puzzles`: every puzzle's rating, for anyone (streak mode orders by them).
async fn puzzle_ratings(State(state): State<AppState>) -> Result<Json<PuzzleRatings>, ApiError> {
    let rated: HashMap<String, Rating> =
        state.accounts.puzzle_ratings().await?.into_iter().collect();
    let puzzles = puzzle_ids()
        .iter()
        .map(|id| PuzzleRating {
            id: id.clone(),
            rating: rating_view(rated.get(id).copied().unwrap_or(Rating::NEW)),
        })
        .collect();
    Ok(Json(PuzzleRatings { puzzles }))
}

/// The body of `POST /api/me/puzzles/streak`.
#[derive(Debug, Deserialize)]
struct Streak {
    /// How many puzzles in a row the streak solved.
    streak: u32,
}

/// The answer of `POST /api/me/puzzles/streak`.
#[derive(Debug, Serialize)]
struct BestStreak {
    /// The player's longest streak, this one counted.
    best_streak: u32,
}

/// `POST /api/me/puzzles/streak`: a streak ended; the longest is kept. `400 bad-request`
/// for one longer than the puzzles there are, which no page can have played.
async fn end_streak(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
    ApiJson(request): ApiJson<Streak>,
) -> Result<Json<BestStreak>, ApiError> {
    if usize::try_from(request.streak).map_or(true, |n| n > puzzle_ids().len()) {
        return Err(ApiError::bad_request("a streak longer than the puzzles"));
    }
    let best_streak = state.accounts.end_streak(&account, request.streak).await?;
    Ok(Json(BestStreak { best_streak }))
}
