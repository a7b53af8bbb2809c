//! The routes of accounts and sessions: registering, signing in, who one is, signing
//! out. How a request is signed in is `auth`'s.

use std::net::IpAddr;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{AppendHeaders, IntoResponse, Response};
use axum::routing::{delete, get, post, put};
use punct_protocol::{
    ChatLine, Credentials, ErrorCode, Notifications, PlayerProfile, Record, Session, SignedIn,
};
use serde::{Deserialize, Serialize};

use super::auth::{self, By, COOKIE};
use super::body::ApiJson;
use super::error::ApiError;
use super::language;
use super::players::{notifications_of, profile_of};
use super::puzzles::{Solved, solved_of};
use crate::accounts::{device, username_key};
use crate::endings::Ended;
use crate::i18n::Lang;
use crate::proxy::ClientAddr;
use crate::secret::{hash_token, hex};
use crate::state::AppState;
use crate::store::{Account, StoreError};

/// The routes of accounts and sessions.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/accounts", post(register))
        .route("/api/session", post(sign_in).get(who_am_i).delete(sign_out))
        .route("/api/email/confirm", post(confirm_email))
        .route("/api/password/forgot", post(forgot_password))
        .route("/api/password/reset", post(reset_password))
}

/// The routes of one's own account, for a signed-in player only.
pub(crate) fn own_routes() -> Router<AppState> {
    Router::new()
        .route("/api/me/password", post(change_password))
        .route(
            "/api/me/sessions",
            get(sessions).delete(sign_out_everywhere),
        )
        .route("/api/me", delete(delete_account))
        .route("/api/me/export", get(export))
        .route("/api/me/email", post(ask_confirmation))
        .route("/api/me/blocks", get(blocks))
        .route("/api/me/blocks/{username}", put(block).delete(unblock))
}

/// Hex digits of an address hash shown: enough to tell addresses apart.
const ADDRESS_DIGITS: usize = 16;

/// The answer of `GET /api/me/blocks`.
#[derive(Debug, Serialize)]
struct Blocks {
    /// The accounts blocked, oldest block first.
    blocks: Vec<BlockView>,
}

/// One account blocked, as the list shows it.
#[derive(Debug, Serialize)]
struct BlockView {
    /// Its username.
    username: String,
    /// When the block was made, in milliseconds since the Unix epoch.
    since: i64,
}

/// `GET /api/me/blocks`: the accounts the player blocks.
async fn blocks(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
) -> Result<Json<Blocks>, ApiError> {
    let blocks = blocks_of(&state, &account).await?;
    Ok(Json(Blocks { blocks }))
}

/// The accounts `account` blocks, as they are shown.
async fn blocks_of(state: &AppState, account: &Account) -> Result<Vec<BlockView>, ApiError> {
    let blocks = state.accounts.blocks(account).await?;
    Ok(blocks
        .into_iter()
        .map(|block| BlockView {
            username: block.account.username,
            since: block.since,
        })
        .collect())
}

/// `PUT /api/me/blocks/{username}`: blocks an account until lifted (`204`).
async fn block(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
    Path(username): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.accounts.block(&account, &username).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/me/blocks/{username}`: lifts a block (`204`, whether or not one stood).
async fn unblock(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
    Path(username): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.accounts.unblock(&account, &username).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The body of `DELETE /api/me`.
#[derive(Debug, Deserialize)]
struct Password {
    /// The account's password: deleting is for its owner, not for whoever holds a
    /// session.
    password: String,
}

/// The answer of `GET /api/me/export`: everything stored about the player.
#[derive(Debug, Serialize)]
struct Export {
    /// The account: its username and when it was made.
    account: ExportedAccount,
    /// Mail: the address and how often, and whether the address is confirmed.
    mail: ExportedMail,
    /// The sessions that have not ended.
    sessions: Vec<SessionView>,
    /// The player's page: ratings and what each rated game did to them, results.
    profile: PlayerProfile,
    /// Every game the account took a seat in, with its record.
    games: Vec<Record>,
    /// Every line of chat the player said, oldest first.
    chat: Vec<ExportedLine>,
    /// The accounts the player blocks (not those that block the player: a block is not
    /// told to the account it blocks).
    blocks: Vec<BlockView>,
    /// The puzzles the player has solved.
    puzzles: Solved,
    /// The addresses the player signed in from, hashed as moderators see them.
    addresses: Vec<Address>,
    /// The warnings moderators gave the player.
    warnings: Vec<Warning>,
    /// The reports the player made (not those made about the player: who reported is
    /// not told).
    reports: Vec<ExportedReport>,
}

/// A warning, as the player reads it.
#[derive(Debug, Serialize)]
pub(super) struct Warning {
    /// When, in milliseconds since the Unix epoch.
    at: i64,
    /// The moderator's reason.
    reason: String,
}

/// An address a player signed in from, hashed.
#[derive(Debug, Serialize)]
pub(super) struct Address {
    /// The start of its keyed hash, in hex.
    hash: String,
    /// The first sign-in from it.
    first_at: i64,
    /// The last.
    last_at: i64,
}

/// The addresses `account` signed in from, each as the start of its keyed hash.
pub(super) async fn addresses_of(
    state: &AppState,
    account: &Account,
) -> Result<Vec<Address>, ApiError> {
    let store = &state.services.store;
    let sign_ins = store
        .sign_ins_of(&account.id)
        .await
        .map_err(|e| ApiError::storage("reading sign-in addresses", &e))?;
    Ok(sign_ins
        .into_iter()
        .map(|sign_in| Address {
            hash: hex(&sign_in.address)[..ADDRESS_DIGITS].to_owned(),
            first_at: sign_in.first_at,
            last_at: sign_in.last_at,
        })
        .collect())
}

/// The warnings moderators gave `account`, newest first.
pub(super) async fn warnings_of(
    state: &AppState,
    account: &Account,
) -> Result<Vec<Warning>, ApiError> {
    let entries = state.moderation.warnings(account).await?;
    Ok(entries
        .into_iter()
        .map(|entry| Warning {
            at: entry.at,
            reason: entry.reason,
        })
        .collect())
}

/// A report the player made, in an export.
#[derive(Debug, Serialize)]
struct ExportedReport {
    /// The player reported, if it has an account.
    #[serde(skip_serializing_if = "Option::is_none")]
    reported: Option<String>,
    /// The line of chat reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    /// Why.
    reason: String,
    /// When, in milliseconds since the Unix epoch.
    at: i64,
}

/// The account in an export.
#[derive(Debug, Serialize)]
struct ExportedAccount {
    /// Its id (a UUIDv7), as the database keeps it.
    id: String,
    /// Its username.
    username: String,
    /// When it was made, in milliseconds since the Unix epoch.
    created_at: u64,
    /// The language its owner reads (`en`, `de`, `fr`, `nl`), if one was chosen.
    language: Option<String>,
}

/// The mail settings in an export.
#[derive(Debug, Serialize)]
struct ExportedMail {
    /// As `GET /api/me/notifications` shows them.
    #[serde(flatten)]
    settings: Notifications,
    /// Whether the address was confirmed by a mailed link.
    confirmed: bool,
}

/// A line of chat in an export, with its room.
#[derive(Debug, Serialize)]
struct ExportedLine {
    /// The room it was said in.
    room: String,
    /// The line.
    #[serde(flatten)]
    line: ChatLine,
}

/// The body of `POST /api/me/email` and `POST /api/password/forgot`.
#[derive(Debug, Deserialize)]
struct Email {
    /// The mail address.
    email: String,
}

/// The body of `POST /api/email/confirm`.
#[derive(Debug, Deserialize)]
struct Link {
    /// The secret of the mailed link.
    token: String,
}

/// The body of `POST /api/password/reset`.
#[derive(Debug, Deserialize)]
struct Reset {
    /// The secret of the mailed link.
    token: String,
    /// The password from now on.
    new_password: String,
}

/// The answer of `DELETE /api/me`.
#[derive(Debug, Serialize)]
struct Deleted {
    /// What the account's games show from now on: "deleted player N".
    name: String,
}

/// A session in the list of one's sessions.
#[derive(Debug, Serialize)]
struct SessionView {
    /// The device, for people (`Firefox on Linux`).
    device: String,
    /// The `User-Agent` it was started with, as sent.
    user_agent: Option<String>,
    /// When it started, in milliseconds since the Unix epoch.
    created_at: i64,
    /// When it was last used, to the minute.
    last_seen_at: i64,
    /// When it ends.
    expires_at: i64,
    /// Whether it is the session asking.
    current: bool,
}

/// The answer of `GET /api/me/sessions`.
#[derive(Debug, Serialize)]
struct Sessions {
    /// Oldest first.
    sessions: Vec<SessionView>,
}

/// The body of `POST /api/me/password`.
#[derive(Debug, Deserialize)]
struct NewPassword {
    /// The password now: a session alone must not be enough to take the account over.
    password: String,
    /// The password from now on.
    new_password: String,
}

/// The answer to registering or signing in: the session, the cookie that holds it, and
/// the cookie of the account's language, `lang`.
fn session_response(
    state: &AppState,
    status: StatusCode,
    session: Session,
    lang: Lang,
) -> Response {
    let max_age = state.config.session_lifetime.as_secs();
    let secure = if state.config.insecure_cookies {
        ""
    } else {
        "; Secure"
    };
    let cookie = format!(
        "{COOKIE}={}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}",
        session.token
    );
    let lang = language::set_cookie(lang);
    // Appended: an array of headers would keep only the last of the same name.
    let cookies = AppendHeaders([(header::SET_COOKIE, cookie), lang]);
    (status, cookies, Json(session)).into_response()
}

/// `POST /api/accounts`: registers an account and signs in to it.
async fn register(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    headers: HeaderMap,
    _: auth::OwnPages,
    ApiJson(request): ApiJson<Credentials>,
) -> Result<Response, ApiError> {
    start_session(&state, peer, &headers, request, true).await
}

/// `POST /api/session`: signs in.
async fn sign_in(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    headers: HeaderMap,
    _: auth::OwnPages,
    ApiJson(request): ApiJson<Credentials>,
) -> Result<Response, ApiError> {
    start_session(&state, peer, &headers, request, false).await
}

/// Registers (`new`) or signs in to the account `request` names, from `peer`. A new
/// account reads the language of the page it registered on; signing in brings back the
/// account's language to this device.
async fn start_session(
    state: &AppState,
    peer: IpAddr,
    headers: &HeaderMap,
    request: Credentials,
    new: bool,
) -> Result<Response, ApiError> {
    let (username, password) = (&request.username, &request.password);
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    let reading = language::of(headers);
    let (session, status) = if new {
        let registered = state
            .accounts
            .register(username, password, reading, peer, agent);
        (registered.await, StatusCode::CREATED)
    } else {
        let signed_in = state.accounts.sign_in(username, password, peer, agent);
        (signed_in.await, StatusCode::OK)
    };
    let session = session?;
    let lang = state.accounts.language(&session.username, reading).await?;
    tracing::info!(username = %session.username, new, "signed in");
    Ok(session_response(state, status, session, lang))
}

/// `GET /api/session`: who the request is signed in as.
async fn who_am_i(auth::SignedIn(account): auth::SignedIn) -> Json<SignedIn> {
    Json(SignedIn {
        username: account.username,
    })
}

/// `DELETE /api/session`: signs out; the session can no longer be used, and the cookie is
/// cleared. (A session that had ended already is signed out all the same.)
async fn sign_out(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let Some((token, by)) = auth::presented(&headers) else {
        return Err(ApiError::new(ErrorCode::SignInRequired, "not signed in"));
    };
    if by == By::Cookie && !auth::from_own_pages(&headers) {
        return Err(auth::cross_site());
    }
    state.accounts.sign_out(&token).await?;
    state.endings.end(Ended::Session(hash_token(&token))).await;
    Ok((StatusCode::NO_CONTENT, [auth::clear_cookie()]).into_response())
}

/// The session secret of a request the `SignedIn` extractor let through.
fn own_token(headers: &HeaderMap) -> Result<String, ApiError> {
    auth::presented(headers)
        .map(|(token, _)| token)
        .ok_or_else(|| ApiError::new(ErrorCode::SignInRequired, "sign in first"))
}

/// `POST /api/me/password`: changes the password, and signs out every other session
/// (`204`).
async fn change_password(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    auth::SignedIn(account): auth::SignedIn,
    headers: HeaderMap,
    ApiJson(request): ApiJson<NewPassword>,
) -> Result<StatusCode, ApiError> {
    let token = own_token(&headers)?;
    let (old, new) = (&request.password, &request.new_password);
    state
        .accounts
        .change_password(&account, &token, old, new, peer)
        .await?;
    let ended = Ended::Sessions {
        account: account.id,
        keep: Some(hash_token(&token)),
    };
    state.endings.end(ended).await;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/me/sessions`: the signed-in player's sessions, the one asking marked.
async fn sessions(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
    headers: HeaderMap,
) -> Result<Json<Sessions>, ApiError> {
    let token = own_token(&headers)?;
    let sessions = sessions_of(&state, &account, &token).await?;
    Ok(Json(Sessions { sessions }))
}

/// `account`'s sessions as they are shown, the one of `token` marked.
async fn sessions_of(
    state: &AppState,
    account: &Account,
    token: &str,
) -> Result<Vec<SessionView>, ApiError> {
    let sessions = state.accounts.sessions(account, token).await?;
    Ok(sessions
        .into_iter()
        .map(|(session, current)| SessionView {
            device: device(session.user_agent.as_deref()),
            user_agent: session.user_agent,
            created_at: session.created_at,
            last_seen_at: session.last_seen_at,
            expires_at: session.expires_at,
            current,
        })
        .collect())
}

/// `DELETE /api/me/sessions`: signs out every session of the account, this one too
/// (`204`); the cookie is cleared.
async fn sign_out_everywhere(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
) -> Result<Response, ApiError> {
    state.accounts.sign_out_everywhere(&account).await?;
    let ended = Ended::Sessions {
        account: account.id,
        keep: None,
    };
    state.endings.end(ended).await;
    Ok((StatusCode::NO_CONTENT, [auth::clear_cookie()]).into_response())
}

/// `DELETE /api/me`: deletes the account (`200`, with the name its games show now); its
/// sessions end, and the cookie is cleared.
async fn delete_account(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    auth::SignedIn(account): auth::SignedIn,
    ApiJson(request): ApiJson<Password>,
) -> Result<Response, ApiError> {
    let name = state
        .accounts
        .delete(&account, &request.password, peer)
        .await?;
    let ended = Ended::Account {
        account: account.id,
        deleted_as: Some(name.clone()),
    };
    state.endings.end(ended).await;
    Ok(([auth::clear_cookie()], Json(Deleted { name })).into_response())
}

/// `GET /api/me/export`: everything stored about the signed-in player, as JSON to
/// download.
async fn export(
    State(state): State<AppState>,
    auth::SignedIn(account): auth::SignedIn,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    state.accounts.may_export(&account)?;
    let token = own_token(&headers)?;
    let store = &state.services.store;
    let failed = |e: StoreError| ApiError::storage("export", &e);
    let profile = profile_of(&state, &account.username).await?;
    let mut games = Vec::new();
    for room in store.rooms_of(&account.id).await.map_err(failed)? {
        games.push(state.rooms.record(&room).await?);
    }
    let chat = store.chat_of(&account.id).await.map_err(failed)?;
    let export = Export {
        account: ExportedAccount {
            id: account.id.clone(),
            username: account.username.clone(),
            created_at: profile.created_at,
            language: store
                .language_by_key(&username_key(&account.username))
                .await
                .map_err(failed)?
                .flatten(),
        },
        mail: ExportedMail {
            settings: notifications_of(&state, &account).await?,
            confirmed: store.email_confirmed(&account.id).await.map_err(failed)?,
        },
        sessions: sessions_of(&state, &account, &token).await?,
        profile,
        games,
        chat: chat
            .into_iter()
            .map(|(room, line)| ExportedLine { room, line })
            .collect(),
        blocks: blocks_of(&state, &account).await?,
        addresses: addresses_of(&state, &account).await?,
        warnings: warnings_of(&state, &account).await?,
        reports: store
            .reports_about(&account.id)
            .await
            .map_err(failed)?
            .into_iter()
            .filter(|report| report.reporter == account.username)
            .map(|report| ExportedReport {
                reported: report.reported,
                line: report.line,
                reason: report.reason,
                at: report.at,
            })
            .collect(),
        puzzles: solved_of(&state, &account).await?,
    };
    let file = format!("attachment; filename=\"punct-{}.json\"", account.username);
    Ok(([(header::CONTENT_DISPOSITION, file)], Json(export)).into_response())
}

/// `POST /api/me/email`: mails the address a link that confirms it as the account's
/// (`202`).
async fn ask_confirmation(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    auth::SignedIn(account): auth::SignedIn,
    ApiJson(request): ApiJson<Email>,
) -> Result<StatusCode, ApiError> {
    let accounts = &state.accounts;
    accounts
        .ask_confirmation(&account, &request.email, peer)
        .await?;
    state.services.mail.wake();
    Ok(StatusCode::ACCEPTED)
}

/// `POST /api/email/confirm`: confirms the address a link was mailed to (`204`).
async fn confirm_email(
    State(state): State<AppState>,
    _: auth::OwnPages,
    ApiJson(request): ApiJson<Link>,
) -> Result<StatusCode, ApiError> {
    state.accounts.confirm_email(&request.token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/password/forgot`: mails a link that sets a new password to the accounts
/// whose confirmed address it is (`202`, whether or not any is).
async fn forgot_password(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    _: auth::OwnPages,
    ApiJson(request): ApiJson<Email>,
) -> Result<StatusCode, ApiError> {
    state.accounts.forgot_password(&request.email, peer)?;
    Ok(StatusCode::ACCEPTED)
}

/// `POST /api/password/reset`: sets a new password with a mailed link (`204`); every
/// session of the account ends.
async fn reset_password(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    _: auth::OwnPages,
    ApiJson(request): ApiJson<Reset>,
) -> Result<StatusCode, ApiError> {
    let accounts = &state.accounts;
    let account = accounts
        .reset_password(&request.token, &request.new_password, peer)
        .await?;
    let ended = Ended::Sessions {
        account,
        keep: None,
    };
    state.endings.end(ended).await;
    Ok(StatusCode::NO_CONTENT)
}
