//! The routes of accounts and sessions: registering, signing in, who one is, signing
//! out. How a request is signed in is `auth`'s.

use std::net::IpAddr;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use punct_protocol::{Credentials, ErrorCode, Session, SignedIn};

use super::auth::{self, By, COOKIE};
use super::error::ApiError;
use crate::proxy::ClientAddr;
use crate::state::AppState;

/// The routes of accounts and sessions.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/accounts", post(register))
        .route("/api/session", post(sign_in).get(who_am_i).delete(sign_out))
}

/// Reads the credentials of a register or sign-in request, refusing one sent by a page
/// of another site (which could sign a visitor in to an account of its choosing).
fn credentials(headers: &HeaderMap, body: &Bytes) -> Result<Credentials, ApiError> {
    if !auth::from_own_pages(headers) {
        return Err(auth::cross_site());
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(e.to_string()))
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
    ClientAddr(peer): ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    start_session(&state, peer, &headers, &body, true).await
}

/// `POST /api/session`: signs in.
async fn sign_in(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    start_session(&state, peer, &headers, &body, false).await
}

/// Registers (`new`) or signs in to the account the body names, from `peer`.
async fn start_session(
    state: &AppState,
    peer: IpAddr,
    headers: &HeaderMap,
    body: &Bytes,
    new: bool,
) -> Result<Response, ApiError> {
    let request = credentials(headers, body)?;
    let (username, password) = (&request.username, &request.password);
    let (session, status) = if new {
        let registered = state.accounts.register(username, password, peer);
        (registered.await, StatusCode::CREATED)
    } else {
        let signed_in = state.accounts.sign_in(username, password, peer);
        (signed_in.await, StatusCode::OK)
    };
    let session = session?;
    tracing::info!(username = %session.username, new, "signed in");
    Ok(session_response(state, status, session))
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
    Ok((StatusCode::NO_CONTENT, [auth::clear_cookie()]).into_response())
}
