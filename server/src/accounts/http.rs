//! The routes of accounts and sessions, and how a request is signed in.
//!
//! A request is signed in by the session cookie (the web page) or by
//! `Authorization: Bearer TOKEN` (programs). The cookie is `HttpOnly` (no script can read
//! it), `SameSite=Lax` and, unless `--insecure-cookies`, `Secure`. A request that changes
//! something and is signed in by the cookie must come from the server's own pages: a
//! browser says where a request comes from (`Sec-Fetch-Site`, `Origin`), and one from
//! another site is refused with `cross-site`. Bearer tokens are never sent by a browser
//! on its own, so they need no such check.

use std::net::SocketAddr;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use punct_protocol::{Credentials, ErrorCode, Session, SignedIn};

use super::Refused;
use crate::AppState;
use crate::http::Failure;
use crate::store::Account;

/// The session cookie's name.
pub(crate) const COOKIE: &str = "punct_session";

/// The routes of accounts and sessions.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/accounts", post(register))
        .route("/api/session", post(sign_in).get(who_am_i).delete(sign_out))
}

/// How a request presents a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum By {
    /// The session cookie.
    Cookie,
    /// `Authorization: Bearer`.
    Bearer,
}

/// The session secret a request presents, and how; a bearer token wins over a cookie.
fn presented(headers: &HeaderMap) -> Option<(String, By)> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|token| (token.trim().to_owned(), By::Bearer));
    bearer.or_else(|| {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, token)| (token.to_owned(), By::Cookie))
    })
}

/// Whether a browser sent this request from the server's own pages, or no browser sent
/// it (a program: no `Sec-Fetch-Site`, no `Origin`).
pub(crate) fn from_own_pages(headers: &HeaderMap) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site")) {
        // `none`: the user typed the address or used a bookmark.
        return matches!(site, "same-origin" | "none");
    }
    match text(header::ORIGIN) {
        None => true,
        Some(origin) => {
            let host = text(header::HOST);
            origin.split_once("://").is_some_and(|(_, authority)| {
                host.is_some_and(|h| h.eq_ignore_ascii_case(authority))
            })
        }
    }
}

/// The account a request is signed in as, if it presents a session. `changes` says the
/// request changes something: then a cookie must come from the server's own pages. A
/// session presented but expired or signed out is `sign-in-required`, not anonymous: the
/// player thinks they are signed in.
pub(crate) async fn signed_in(
    state: &AppState,
    headers: &HeaderMap,
    changes: bool,
) -> Result<Option<Account>, Failure> {
    let Some((token, by)) = presented(headers) else {
        return Ok(None);
    };
    if changes && by == By::Cookie && !from_own_pages(headers) {
        return Err(cross_site());
    }
    match state.accounts.session(&token).await.map_err(failure)? {
        Some(account) => Ok(Some(account)),
        None => Err(Failure::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::SignInRequired,
            "the session has expired or was signed out; sign in again",
        )),
    }
}

/// The account a WebSocket upgrade is signed in as. A cookie counts only from the
/// server's own pages (a page elsewhere must not act as the player); a session that is
/// not valid leaves the connection anonymous, as it would be without one.
pub(crate) async fn connection_account(state: &AppState, headers: &HeaderMap) -> Option<Account> {
    let (token, by) = presented(headers)?;
    if by == By::Cookie && !from_own_pages(headers) {
        return None;
    }
    state.accounts.session(&token).await.ok().flatten()
}

fn cross_site() -> Failure {
    Failure::new(
        StatusCode::FORBIDDEN,
        ErrorCode::CrossSite,
        "a page of another site may not act for a signed-in player",
    )
}

/// The HTTP failure of a refused account request.
pub(crate) fn failure(Refused(code, message): Refused) -> Failure {
    let status = match code {
        ErrorCode::UsernameTaken => StatusCode::CONFLICT,
        ErrorCode::BadCredentials | ErrorCode::SignInRequired => StatusCode::UNAUTHORIZED,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::StorageFailed => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    Failure::new(status, code, message)
}

/// Reads the credentials of a register or sign-in request, refusing one sent by a page
/// of another site (which could sign a visitor in to an account of its choosing).
fn credentials(headers: &HeaderMap, body: &Bytes) -> Result<Credentials, Failure> {
    if !from_own_pages(headers) {
        return Err(cross_site());
    }
    serde_json::from_slice(body).map_err(|e| Failure::bad_request(e.to_string()))
}

/// The answer to registering or signing in: the session, and the cookie that holds it.
fn session_response(state: &AppState, status: StatusCode, session: Session) -> Response {
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
    (status, [(header::SET_COOKIE, cookie)], Json(session)).into_response()
}

/// `POST /api/accounts`: registers an account and signs in to it.
async fn register(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Failure> {
    start_session(&state, peer, &headers, &body, true).await
}

/// `POST /api/session`: signs in.
async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Failure> {
    start_session(&state, peer, &headers, &body, false).await
}

/// Registers (`new`) or signs in to the account the body names, from `peer`.
async fn start_session(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    body: &Bytes,
    new: bool,
) -> Result<Response, Failure> {
    let request = credentials(headers, body)?;
    let (username, password) = (&request.username, &request.password);
    let (session, status) = if new {
        let registered = state.accounts.register(username, password, peer.ip());
        (registered.await, StatusCode::CREATED)
    } else {
        let signed_in = state.accounts.sign_in(username, password, peer.ip());
        (signed_in.await, StatusCode::OK)
    };
    let session = session.map_err(failure)?;
    tracing::info!(username = %session.username, new, "signed in");
    Ok(session_response(state, status, session))
}

/// `GET /api/session`: who the request is signed in as.
async fn who_am_i(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<SignedIn>, Failure> {
    match signed_in(&state, &headers, false).await? {
        Some(account) => Ok(Json(SignedIn {
            username: account.username,
        })),
        None => Err(Failure::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::SignInRequired,
            "not signed in",
        )),
    }
}

/// `DELETE /api/session`: signs out; the session can no longer be used, and the cookie is
/// cleared.
async fn sign_out(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, Failure> {
    let Some((token, by)) = presented(&headers) else {
        return Err(Failure::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::SignInRequired,
            "not signed in",
        ));
    };
    if by == By::Cookie && !from_own_pages(&headers) {
        return Err(cross_site());
    }
    state.accounts.sign_out(&token).await.map_err(failure)?;
    let clear = format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, clear)]).into_response())
}
