//! Player pages and leaderboards, as JSON: `GET /api/players/{username}` and
//! `GET /api/leaderboard?variant=V`. Ratings are shown as they stand now: each
//! deviation grown for the time since the player's last rated game.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Html;
use axum::routing::get;
use punct_protocol::{
    ErrorCode, Leaderboard, LeaderboardEntry, MyGame, MyGames, Notifications, NotifyMode,
    PlayerProfile, RatingPoint, Results, RoomStatus, VariantRating,
};
use punct_rules::{Color, Outcome, Variant};
use serde::Deserialize;

use crate::AppState;
use crate::accounts::http::signed_in;
use crate::accounts::username_key;
use crate::http::Failure;
use crate::rating::PROVISIONAL_ABOVE;
use crate::room::summary_of;
use crate::store::{Account, AccountId, MailSettings, RoomRow, StoreError, now, rating_view};

/// Games on a player's page.
const RECENT_GAMES: usize = 20;

/// Players on a leaderboard.
const LEADERS: usize = 100;

/// The longest mail address (RFC 5321's path limit).
const MAX_EMAIL: usize = 254;

/// The routes of player pages and leaderboards.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/players/{username}", get(profile))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/me/games", get(my_games))
        .route(
            "/api/me/notifications",
            get(notifications).put(set_notifications),
        )
        .route("/unsubscribe", get(unsubscribe).post(unsubscribe))
}

/// The signed-in account, or `401 sign-in-required`; `changes`: the request changes
/// something (see `signed_in`).
async fn account_of(
    state: &AppState,
    headers: &HeaderMap,
    changes: bool,
) -> Result<Account, Failure> {
    signed_in(state, headers, changes).await?.ok_or_else(|| {
        Failure::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::SignInRequired,
            "sign in first",
        )
    })
}

/// `GET /api/me/notifications`: the signed-in player's mail settings.
async fn notifications(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Notifications>, Failure> {
    let account = account_of(&state, &headers, false).await?;
    let store = &state.rooms.context().store;
    let settings = store.mail_settings(&account.id).await;
    let settings = settings.map_err(|e| unavailable(&e))?.unwrap_or_default();
    Ok(Json(Notifications {
        email: settings.email,
        mode: settings.mode,
    }))
}

/// `PUT /api/me/notifications`: sets the signed-in player's mail settings. Mail needs an
/// address; each new address gets a new unsubscribe link.
async fn set_notifications(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Notifications>, Failure> {
    let account = account_of(&state, &headers, true).await?;
    let wanted: Notifications =
        serde_json::from_slice(&body).map_err(|e| Failure::bad_request(e.to_string()))?;
    let email = wanted
        .email
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty());
    if let Some(email) = &email
        && (email.len() > MAX_EMAIL || email.parse::<lettre::Address>().is_err())
    {
        return Err(Failure::bad_request(format!(
            "'{email}' is not a mail address"
        )));
    }
    if email.is_none() && wanted.mode != NotifyMode::Off {
        return Err(Failure::bad_request("mail needs an address"));
    }
    let settings = MailSettings {
        unsubscribe: email.as_ref().map(|_| crate::secret::token()),
        email,
        mode: wanted.mode,
    };
    let store = &state.rooms.context().store;
    let set = store.set_mail_settings(&account.id, settings.clone()).await;
    set.map_err(|e| unavailable(&e))?;
    Ok(Json(Notifications {
        email: settings.email,
        mode: settings.mode,
    }))
}

/// The query of the link in every mail.
#[derive(Debug, Deserialize)]
struct UnsubscribeQuery {
    token: String,
}

/// `GET` or `POST /unsubscribe?token=T`: turns off the mail of the account whose link
/// this is, without signing in (mail programs post it in one click, RFC 8058).
async fn unsubscribe(
    State(state): State<AppState>,
    query: Result<Query<UnsubscribeQuery>, QueryRejection>,
) -> (StatusCode, Html<&'static str>) {
    const DONE: &str = "<!doctype html><meta charset=utf-8><title>PÜNCT</title>\
        <p>No more mail from PÜNCT. Turn it on again from your page when you like.";
    const UNKNOWN: &str = "<!doctype html><meta charset=utf-8><title>PÜNCT</title>\
        <p>This link is not known: it may be from an address changed since.";
    let Ok(Query(query)) = query else {
        return (StatusCode::BAD_REQUEST, Html(UNKNOWN));
    };
    match state.rooms.context().store.unsubscribe(&query.token).await {
        Ok(true) => (StatusCode::OK, Html(DONE)),
        Ok(false) => (StatusCode::NOT_FOUND, Html(UNKNOWN)),
        Err(e) => {
            unavailable(&e);
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Html("<!doctype html><p>Try again in a moment."),
            )
        }
    }
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

/// `GET /api/me/games`: the signed-in player's unfinished games, those waiting for their
/// move first, the least time left first.
async fn my_games(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<MyGames>, Failure> {
    let account = account_of(&state, &headers, false).await?;
    let rows = state.rooms.context().store.games_of(&account.id).await;
    let rows = rows.map_err(|e| unavailable(&e))?;
    Ok(Json(MyGames {
        games: my_games_of(&account, &rows, now()),
    }))
}

/// `account`'s games among `rows`, as `GET /api/me/games` lists them at `now`.
pub(crate) fn my_games_of(account: &Account, rows: &[RoomRow], now: i64) -> Vec<MyGame> {
    let mut games: Vec<MyGame> = rows
        .iter()
        .filter_map(|row| {
            let color = Color::ALL.into_iter().find(|&color| {
                row.players[color as usize]
                    .account
                    .as_ref()
                    .is_some_and(|held| held.id == account.id)
            })?;
            let summary = summary_of(row);
            Some(MyGame {
                your_move: summary.status == RoomStatus::Live && summary.to_move == color,
                time_left_ms: row.time_left(now),
                summary,
                color,
            })
        })
        .collect();
    // Stable: among equals, the oldest game first.
    games.sort_by_key(|game| (!game.your_move, game.time_left_ms.unwrap_or(u64::MAX)));
    games
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
