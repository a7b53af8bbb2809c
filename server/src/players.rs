//! Player pages and leaderboards, as JSON: `GET /api/players/{username}` and
//! `GET /api/leaderboard?variant=V`. Ratings are shown as they stand now: each
//! deviation grown for the time since the player's last rated game.

use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use punct_protocol::{
    ErrorCode, Leaderboard, LeaderboardEntry, PlayerProfile, RatingPoint, Results, VariantRating,
};
use punct_rules::{Outcome, Variant};
use serde::Deserialize;

use crate::AppState;
use crate::accounts::username_key;
use crate::http::Failure;
use crate::rating::PROVISIONAL_ABOVE;
use crate::store::{AccountId, StoreError, now, rating_view};

/// Games on a player's page.
const RECENT_GAMES: usize = 20;

/// Players on a leaderboard.
const LEADERS: usize = 100;

/// The routes of player pages and leaderboards.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/players/{username}", get(profile))
        .route("/api/leaderboard", get(leaderboard))
}

fn unavailable(e: &StoreError) -> Failure {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "reading players");
    Failure::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StorageFailed,
        "the database could not answer; try again",
    )
}

fn no_such_player(username: &str) -> Failure {
    Failure::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NoSuchPlayer,
        format!("no account is named {username}"),
    )
}

/// The id of the account named `username`.
pub(crate) async fn account_id(state: &AppState, username: &str) -> Result<AccountId, Failure> {
    let store = &state.rooms.context().store;
    let found = store
        .account_by_key(&username_key(username))
        .await
        .map_err(|e| unavailable(&e))?;
    found
        .map(|(account, _)| account.id)
        .ok_or_else(|| no_such_player(username))
}

async fn profile(
    State(state): State<AppState>,
    Path(username): Path<String>,
) -> Result<Json<PlayerProfile>, Failure> {
    let store = &state.rooms.context().store;
    let record = store
        .player(&username_key(&username))
        .await
        .map_err(|e| unavailable(&e))?
        .ok_or_else(|| no_such_player(&username))?;
    let now = now();
    let ratings = record
        .ratings
        .iter()
        .map(|&(variant, standing, games)| VariantRating {
            variant,
            rating: rating_view(standing.at(now)),
            games,
            history: record
                .history
                .iter()
                .filter(|(v, ..)| *v == variant)
                .map(|(_, room, at, rating)| RatingPoint {
                    room: room.clone(),
                    at: u64::try_from(*at).unwrap_or(0),
                    rating: rating.rating,
                    deviation: rating.deviation,
                })
                .collect(),
        })
        .collect();
    let mut results = Results::default();
    for &(color, outcome) in &record.results {
        match outcome {
            Outcome::Win { winner, .. } if winner == color => results.wins += 1,
            Outcome::Win { .. } => results.losses += 1,
            Outcome::Draw { .. } => results.draws += 1,
        }
    }
    let recent = store
        .archive(None, RECENT_GAMES, Some(record.account.id.clone()))
        .await
        .map_err(|e| unavailable(&e))?;
    Ok(Json(PlayerProfile {
        username: record.account.username,
        created_at: u64::try_from(record.created_at).unwrap_or(0),
        ratings,
        results,
        recent,
    }))
}

/// The query of `GET /api/leaderboard`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LeaderboardQuery {
    /// Which game; standard if left out.
    variant: Option<Variant>,
}

async fn leaderboard(
    State(state): State<AppState>,
    query: Result<Query<LeaderboardQuery>, QueryRejection>,
) -> Result<Json<Leaderboard>, Failure> {
    let Query(query) = query.map_err(|e| Failure::bad_request(e.body_text()))?;
    let variant = query.variant.unwrap_or(Variant::Standard);
    // The stored deviation only grows with time: those above the mark now were above
    // it when stored, so the database leaves them out; the rest are judged as of now.
    let leaders = state
        .rooms
        .context()
        .store
        .leaders(variant, PROVISIONAL_ABOVE, LEADERS * 4)
        .await
        .map_err(|e| unavailable(&e))?;
    let now = now();
    let mut players: Vec<LeaderboardEntry> = leaders
        .into_iter()
        .map(|(username, standing, games)| LeaderboardEntry {
            username,
            rating: rating_view(standing.at(now)),
            games,
        })
        .filter(|entry| !entry.rating.provisional)
        .collect();
    players.truncate(LEADERS);
    Ok(Json(Leaderboard { variant, players }))
}
