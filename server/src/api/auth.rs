//! How a request is signed in: the session cookie (the web page) or
//! `Authorization: Bearer TOKEN` (programs), checked by the [`Session`] and [`SignedIn`]
//! extractors.
//!
//! - A session presented that expired or was signed out is `401 sign-in-required`,
//!   never served as anonymous: the player thinks they are signed in. Presented by the
//!   cookie, the answer also clears the cookie, so the page's next request is anonymous.
//! - A request that changes something (not `GET` or `HEAD`) signed in by the cookie
//!   must come from the server's own pages: a browser says where a request comes from
//!   (`Sec-Fetch-Site`, `Origin`), and one from another site is `403 cross-site`.
//! - A WebSocket upgrade counts the cookie only from the server's own pages: a page
//!   elsewhere must not play as the player (WebSockets know no same-origin policy).
//! - Bearer tokens are never sent by a browser on its own, so they need no such check.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use punct_protocol::ErrorCode;

use super::error::ApiError;
use crate::state::AppState;
use crate::store::Account;

/// The session cookie's name.
pub(crate) const COOKIE: &str = "punct_session";

/// How a request presents a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum By {
    /// The session cookie.
    Cookie,
    /// `Authorization: Bearer`.
    Bearer,
}

/// The session secret a request presents, and how; a bearer token wins over a cookie.
pub(crate) fn presented(headers: &HeaderMap) -> Option<(String, By)> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|token| (token.trim().to_owned(), By::Bearer));
    bearer.or_else(|| cookie(headers, COOKIE).map(|token| (token.to_owned(), By::Cookie)))
}

/// The value of the cookie `name` a request sends, if it sends it.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value)
}

/// A request that needs no session (registering, signing in, a mailed link) sent from
/// the server's own pages or by a program; `403` for one sent by a page of another site,
/// which could sign a visitor in to an account of its choosing, or mail on their behalf.
/// Put before the body, so that such a request is refused before its body is read.
pub(crate) struct OwnPages;

impl<S: Send + Sync> FromRequestParts<S> for OwnPages {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<OwnPages, ApiError> {
        if from_own_pages(&parts.headers) {
            Ok(OwnPages)
        } else {
            Err(cross_site())
        }
    }
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

/// The `403 cross-site` of a request a page of another site sent.
pub(crate) fn cross_site() -> ApiError {
    ApiError::new(
        ErrorCode::CrossSite,
        "a page of another site may not act for a signed-in player",
    )
}

/// The cookie header that clears the session cookie.
pub(crate) fn clear_cookie() -> (header::HeaderName, &'static str) {
    (
        header::SET_COOKIE,
        "punct_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
    )
}

/// The account a request is signed in as, checked once per request (the answer is kept
/// in the request's extensions): `None` when it presents no session.
#[derive(Clone, Debug)]
pub(crate) struct Session(pub(crate) Option<Account>);

impl FromRequestParts<AppState> for Session {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Session, Response> {
        if let Some(session) = parts.extensions.get::<Session>() {
            return Ok(session.clone());
        }
        let session = Session(check(parts, state).await?);
        parts.extensions.insert(session.clone());
        Ok(session)
    }
}

/// The checks of the module's docs, in order; the account, if one is presented.
async fn check(parts: &Parts, state: &AppState) -> Result<Option<Account>, Response> {
    let headers = &parts.headers;
    let Some((token, by)) = presented(headers) else {
        return Ok(None);
    };
    if by == By::Cookie && !from_own_pages(headers) {
        if !parts.method.is_safe() {
            return Err(cross_site().into_response());
        }
        if headers.contains_key(header::UPGRADE) {
            return Ok(None);
        }
    }
    match state.accounts.session(&token).await.map_err(ApiError::from) {
        Ok(Some(account)) => Ok(Some(account)),
        Ok(None) => {
            let expired = ApiError::new(
                ErrorCode::SignInRequired,
                "the session has expired or was signed out; sign in again",
            );
            Err(match by {
                By::Cookie => ([clear_cookie()], expired).into_response(),
                By::Bearer => expired.into_response(),
            })
        }
        Err(failed) => Err(failed.into_response()),
    }
}

/// The account of a request that must be signed in: `401 sign-in-required` without one.
#[derive(Clone, Debug)]
pub(crate) struct SignedIn(pub(crate) Account);

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<SignedIn, Response> {
        let Session(account) = Session::from_request_parts(parts, state).await?;
        account.map(SignedIn).ok_or_else(|| {
            ApiError::new(ErrorCode::SignInRequired, "sign in first").into_response()
        })
    }
}

impl OptionalFromRequestParts<AppState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Option<SignedIn>, Response> {
        let Session(account) =
            <Session as FromRequestParts<AppState>>::from_request_parts(parts, state).await?;
        Ok(account.map(SignedIn))
    }
}
