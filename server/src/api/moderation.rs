//! Routes of moderation: players' reports and warnings, and the moderators' pages and
//! their JSON (`server/API.md`, "Moderation"). `moderation` has the rules.

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use punct_protocol::{ChatLine, RoomSummary};
use serde::{Deserialize, Serialize};

use super::accounts::{Address, Warning, addresses_of, warnings_of};
use super::auth::{Session, SignedIn};
use super::body::ApiJson;
use super::error::ApiError;
use super::web::moderation_page;
use crate::moderation::Ask;
use crate::state::AppState;
use crate::store::{Account, AccountState, Entry, Report, Role};
use crate::views::summary_of;

/// Entries of the audit log a page shows at most.
const MAX_LOG_PAGE: usize = 200;
/// Lines of a player's chat a record shows: the latest.
const RECORD_CHAT: usize = 100;
/// Games a record shows: the latest.
const RECORD_GAMES: usize = 50;

/// The routes, all behind the session check.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/reports", post(report))
        .route("/api/me/warnings", get(warnings))
        .route("/api/mod/reports", get(queue))
        .route("/api/mod/players/{username}", get(record))
        .route("/api/mod/actions", post(act))
        .route("/api/mod/log", get(log))
        .route("/mod", get(page))
        .route("/mod/players/{username}", get(page))
        .route("/mod/log", get(page))
}

/// The moderators' page, to moderators only: `403` for anyone else, signed in or not.
async fn page(
    State(state): State<AppState>,
    Session(account): Session,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let account = account.ok_or_else(|| {
        ApiError::new(
            punct_protocol::ErrorCode::NotAModerator,
            "only a moderator may see this page; sign in first",
        )
    })?;
    state.moderation.role_of(&account).await?;
    Ok(moderation_page(headers).await)
}

/// The body of `POST /api/reports`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportBody {
    /// The player reported (unless `line` is given: then its speaker).
    #[serde(default)]
    username: Option<String>,
    /// The line of chat reported.
    #[serde(default)]
    line: Option<u64>,
    /// Why.
    reason: String,
}

/// The answer of `POST /api/reports`.
#[derive(Debug, Serialize)]
struct Reported {
    /// The report's id.
    id: String,
}

/// `POST /api/reports`: a signed-in player reports a player or a line of chat (`201`).
async fn report(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
    ApiJson(body): ApiJson<ReportBody>,
) -> Result<(StatusCode, Json<Reported>), ApiError> {
    let id = state
        .moderation
        .report(&account, body.username.as_deref(), body.line, &body.reason)
        .await?;
    Ok((StatusCode::CREATED, Json(Reported { id })))
}

/// The answer of `GET /api/me/warnings`.
#[derive(Debug, Serialize)]
struct Warnings {
    /// Newest first.
    warnings: Vec<Warning>,
}

/// `GET /api/me/warnings`: the warnings moderators gave the player.
async fn warnings(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
) -> Result<Json<Warnings>, ApiError> {
    let warnings = warnings_of(&state, &account).await?;
    Ok(Json(Warnings { warnings }))
}

/// The answer of `GET /api/mod/reports`.
#[derive(Debug, Serialize)]
struct Queue {
    /// The open reports, oldest first.
    reports: Vec<Report>,
}

/// `GET /api/mod/reports`: the queue of open reports.
async fn queue(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
) -> Result<Json<Queue>, ApiError> {
    let reports = state.moderation.queue(&account).await?;
    Ok(Json(Queue { reports }))
}

/// A player's record, as moderators read it.
#[derive(Debug, Serialize)]
struct Record {
    /// The username.
    username: String,
    /// Its role, if above a player's.
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<Role>,
    /// When it was banned, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    banned_at: Option<i64>,
    /// Until when it is muted, if a mute stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    muted_until: Option<i64>,
    /// Whether it is barred from rated games.
    barred_from_rated: bool,
    /// Its latest games, newest first.
    games: Vec<RoomSummary>,
    /// Its latest lines of chat, newest first.
    chat: Vec<RecordLine>,
    /// Reports it made or received, newest first.
    reports: Vec<Report>,
    /// Moderators' actions on it (warnings among them), newest first.
    actions: Vec<Entry>,
    /// The addresses it signed in from, as the start of their keyed hashes: equal
    /// hashes across accounts are the same address.
    addresses: Vec<Address>,
}

/// A line of chat in a record.
#[derive(Debug, Serialize)]
struct RecordLine {
    /// Its room.
    room: String,
    /// The line.
    #[serde(flatten)]
    line: ChatLine,
}

/// `GET /api/mod/players/{username}`: a player's record.
async fn record(
    State(state): State<AppState>,
    SignedIn(moderator): SignedIn,
    Path(username): Path<String>,
) -> Result<Json<Record>, ApiError> {
    state.moderation.role_of(&moderator).await?;
    let account: Account = state.accounts.named(&username).await?;
    let store = &state.services.store;
    let failed = |e| ApiError::storage("reading a player's record", &e);
    let account_state: AccountState = store
        .account_state(&account.id)
        .await
        .map_err(failed)?
        .unwrap_or_default();
    let rows = store.games_of(&account.id).await.map_err(failed)?;
    let games = rows
        .iter()
        .rev()
        .take(RECORD_GAMES)
        .map(summary_of)
        .collect();
    let chat = store.chat_of(&account.id).await.map_err(failed)?;
    let chat = chat
        .into_iter()
        .rev()
        .take(RECORD_CHAT)
        .map(|(room, line)| RecordLine { room, line })
        .collect();
    let addresses = addresses_of(&state, &account).await?;
    Ok(Json(Record {
        username: account.username.clone(),
        role: account_state.role,
        banned_at: account_state.banned_at,
        muted_until: account_state
            .muted_until
            .filter(|&until| until > crate::clock::now()),
        barred_from_rated: account_state.barred_from_rated,
        games,
        chat,
        reports: store.reports_about(&account.id).await.map_err(failed)?,
        actions: store.audit_of(&account.id).await.map_err(failed)?,
        addresses,
    }))
}

/// `POST /api/mod/actions`: a moderator's action (`204`).
async fn act(
    State(state): State<AppState>,
    SignedIn(moderator): SignedIn,
    ApiJson(ask): ApiJson<Ask>,
) -> Result<StatusCode, ApiError> {
    state.moderation.act(&moderator, ask).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The query of `GET /api/mod/log`.
#[derive(Debug, Deserialize)]
struct LogQuery {
    /// Entries numbered below this one (the next page).
    before: Option<i64>,
    /// How many, at most 200 (50 when not said).
    limit: Option<usize>,
}

/// The answer of `GET /api/mod/log`.
#[derive(Debug, Serialize)]
struct Log {
    /// Newest first.
    entries: Vec<Entry>,
}

/// `GET /api/mod/log`: the audit log, newest first, a page at a time.
async fn log(
    State(state): State<AppState>,
    SignedIn(moderator): SignedIn,
    Query(query): Query<LogQuery>,
) -> Result<Json<Log>, ApiError> {
    let limit = query.limit.unwrap_or(50).clamp(1, MAX_LOG_PAGE);
    let entries = state
        .moderation
        .log(&moderator, query.before, limit)
        .await?;
    Ok(Json(Log { entries }))
}
