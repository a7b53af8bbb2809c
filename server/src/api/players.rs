//! Player pages and the leaderboard (JSON), and the signed-in player's own games and
//! mail settings; the unsubscribe link of every mail.

use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Html;
use axum::routing::get;
use punct_protocol::{
    ErrorCode, Leaderboard, LeaderboardEntry, MyGames, Notifications, NotifyMode, PlayerProfile,
    RatingPoint, Results, VariantRating,
};
use punct_rules::{Outcome, Variant};
use serde::Deserialize;

use super::auth::SignedIn;
use super::body::ApiJson;
use super::error::ApiError;
use crate::accounts::{check_email, username_key};
use crate::clock::now;
use crate::i18n::Lang;
use crate::rating::PROVISIONAL_ABOVE;
use crate::state::AppState;
use crate::store::{Account, AccountId, MailSettings, StoreError};
use crate::views::my_games_of;
use crate::views::rating_view;

/// Games on a player's page.
const RECENT_GAMES: usize = 20;

/// Players on a leaderboard.
const LEADERS: usize = 100;

/// The routes of player pages, the leaderboard and one's own games and settings.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/players/{username}", get(profile))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/me/games", get(my_games))
        .route(
            "/api/me/notifications",
            get(notifications).put(set_notifications),
        )
}

/// The route of the unsubscribe link, which needs no session: whoever has the link
/// turns the mail off, signed in or not, as anyone. Only a `POST` does: link scanners
/// `GET` every link of a mail.
pub(crate) fn unchecked_routes() -> Router<AppState> {
    Router::new().route("/unsubscribe", get(unsubscribe_page).post(unsubscribe))
}

/// `GET /api/me/notifications`: the signed-in player's mail settings.
async fn notifications(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
) -> Result<Json<Notifications>, ApiError> {
    notifications_of(&state, &account).await.map(Json)
}

/// `account`'s mail settings.
pub(super) async fn notifications_of(
    state: &AppState,
    account: &Account,
) -> Result<Notifications, ApiError> {
    let store = &state.services.store;
    let settings = store.mail_settings(&account.id).await;
    let settings = settings.map_err(|e| unavailable(&e))?.unwrap_or_default();
    Ok(Notifications {
        email: settings.email,
        mode: settings.mode,
    })
}

/// `PUT /api/me/notifications`: sets the signed-in player's mail settings. Mail needs an
/// address; the first gets an unsubscribe link, kept through every later change.
async fn set_notifications(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
    ApiJson(wanted): ApiJson<Notifications>,
) -> Result<Json<Notifications>, ApiError> {
    let email = wanted
        .email
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty());
    let email = email.as_deref().map(check_email).transpose()?;
    if email.is_none() && wanted.mode != NotifyMode::Off {
        return Err(ApiError::bad_request("mail needs an address"));
    }
    let settings = MailSettings {
        // Kept by the store if the account has one already.
        unsubscribe: email.as_ref().map(|_| crate::secret::token()),
        email,
        mode: wanted.mode,
    };
    let store = &state.services.store;
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

/// A page of the unsubscribe link in `lang`: `body`, written from its catalogue.
fn link_page(lang: Lang, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang={}><meta charset=utf-8><title>PÜNCT</title>{body}",
        lang.code()
    ))
}

/// A page of the unsubscribe link that says the text of `key` in `lang`.
fn link_says(lang: Lang, key: &str) -> Html<String> {
    link_page(lang, &format!("<p>{}", lang.text(key)))
}

/// `GET /unsubscribe?token=T`: a page with a button that posts to the same link. It
/// changes nothing: a link scanner that fetches it unsubscribes no one. In the language
/// of the browser that opened it, as every page.
async fn unsubscribe_page(
    State(state): State<AppState>,
    lang: Lang,
    query: Result<Query<UnsubscribeQuery>, QueryRejection>,
) -> (StatusCode, Html<String>) {
    let Ok(Query(query)) = query else {
        return (
            StatusCode::BAD_REQUEST,
            link_says(lang, "unsubscribe.unknown"),
        );
    };
    let store = &state.services.store;
    match store.unsubscribe_known(&query.token).await {
        // Known, so one the server made: hex, safe in the page as it is.
        Ok(true) => {
            let form = format!(
                "<form method=post action=\"/unsubscribe?token={}\"><p>{} <button>{}</button></form>",
                query.token,
                lang.text("unsubscribe.ask"),
                lang.text("unsubscribe.button"),
            );
            (StatusCode::OK, link_page(lang, &form))
        }
        Ok(false) => (
            StatusCode::NOT_FOUND,
            link_says(lang, "unsubscribe.unknown"),
        ),
        Err(e) => {
            unavailable(&e);
            (
                StatusCode::SERVICE_UNAVAILABLE,
                link_says(lang, "unsubscribe.try-again"),
            )
        }
    }
}

/// `POST /unsubscribe?token=T`: turns off the mail of the account whose link this is,
/// without signing in: the page's button, or a mail program's one click (RFC 8058, whose
/// body, `List-Unsubscribe=One-Click`, is not needed to know what is asked).
async fn unsubscribe(
    State(state): State<AppState>,
    lang: Lang,
    query: Result<Query<UnsubscribeQuery>, QueryRejection>,
) -> (StatusCode, Html<String>) {
    let Ok(Query(query)) = query else {
        return (
            StatusCode::BAD_REQUEST,
            link_says(lang, "unsubscribe.unknown"),
        );
    };
    match state.services.store.unsubscribe(&query.token).await {
        Ok(true) => (StatusCode::OK, link_says(lang, "unsubscribe.done")),
        Ok(false) => (
            StatusCode::NOT_FOUND,
            link_says(lang, "unsubscribe.unknown"),
        ),
        Err(e) => {
            unavailable(&e);
            (
                StatusCode::SERVICE_UNAVAILABLE,
                link_says(lang, "unsubscribe.try-again"),
            )
        }
    }
}

fn unavailable(e: &StoreError) -> ApiError {
    ApiError::storage("reading players", e)
}

fn no_such_player(username: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NoSuchPlayer,
        format!("no account is named {username}"),
    )
}

/// `GET /api/me/games`: the signed-in player's unfinished games, those waiting for their
/// move first, the least time left first.
async fn my_games(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
) -> Result<Json<MyGames>, ApiError> {
    let rows = state.services.store.games_of(&account.id).await;
    let rows = rows.map_err(|e| unavailable(&e))?;
    Ok(Json(MyGames {
        games: my_games_of(&account, &rows, now()),
    }))
}

/// The id of the account named `username`.
pub(super) async fn account_id(state: &AppState, username: &str) -> Result<AccountId, ApiError> {
    let store = &state.services.store;
    let found = store
        .account_by_key(&username_key(username))
        .await
        .map_err(|e| unavailable(&e))?;
    found
        .map(|(account, _)| account.id)
        .ok_or_else(|| no_such_player(username))
}

/// `GET /api/players/{username}`.
async fn profile(
    State(state): State<AppState>,
    Path(username): Path<String>,
) -> Result<Json<PlayerProfile>, ApiError> {
    profile_of(&state, &username).await.map(Json)
}

/// The page of the player named `username`: ratings and their history, results, recent
/// games.
pub(super) async fn profile_of(
    state: &AppState,
    username: &str,
) -> Result<PlayerProfile, ApiError> {
    let store = &state.services.store;
    let record = store
        .player(&username_key(username))
        .await
        .map_err(|e| unavailable(&e))?
        .ok_or_else(|| no_such_player(username))?;
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
    Ok(PlayerProfile {
        username: record.account.username,
        created_at: u64::try_from(record.created_at).unwrap_or(0),
        ratings,
        results,
        recent,
    })
}

/// The query of `GET /api/leaderboard`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LeaderboardQuery {
    /// Which game; standard if left out.
    variant: Option<Variant>,
}

/// `GET /api/leaderboard?variant=V`.
async fn leaderboard(
    State(state): State<AppState>,
    query: Result<Query<LeaderboardQuery>, QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let variant = query.variant.unwrap_or(Variant::Standard);
    // The stored deviation only grows with time: those above the mark now were above
    // it when stored, so the database leaves them out; the rest are judged as of now.
    let leaders = state
        .services
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
