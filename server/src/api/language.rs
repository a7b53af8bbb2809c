//! Which language a request reads, and choosing it: the `punct_lang` cookie, else the
//! best of `Accept-Language` among ours, else English. `PUT /api/language` (the switch
//! on every page) sets the cookie, and for a signed-in player the account's language
//! too, which signing in on another device brings back and the mail is written in.
//!
//! Refusals are told in the request's language on their way out ([`localize`]).

use std::convert::Infallible;

use axum::Router;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::put;
use serde::Deserialize;

use super::auth::{self, SignedIn};
use super::body::ApiJson;
use super::error::{AnswerCode, ApiError};
use crate::errors;
use crate::i18n::Lang;
use crate::state::AppState;

/// The cookie that holds the language chosen.
pub(crate) const COOKIE: &str = "punct_lang";

/// How long the cookie is kept: a year, renewed by each choice.
const KEPT_SECONDS: u64 = 365 * 24 * 3600;

/// The route of the switch.
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/api/language", put(choose))
}

/// A handler's `lang: Lang` is the language its request reads ([`of`]).
impl<S: Send + Sync> FromRequestParts<S> for Lang {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Lang, Infallible> {
        Ok(of(&parts.headers))
    }
}

/// The language a request reads: the cookie's, else `Accept-Language`'s, else English.
pub(crate) fn of(headers: &HeaderMap) -> Lang {
    auth::cookie(headers, COOKIE)
        .and_then(Lang::parse)
        .or_else(|| {
            headers
                .get_all(header::ACCEPT_LANGUAGE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find_map(Lang::accepted)
        })
        .unwrap_or_default()
}

/// The header that sets the cookie to `lang`. (Not `HttpOnly`: nothing secret, and
/// nothing the page needs to read either, as the server writes the page in it.)
pub(crate) fn set_cookie(lang: Lang) -> (HeaderName, String) {
    (
        header::SET_COOKIE,
        format!(
            "{COOKIE}={}; Path=/; Max-Age={KEPT_SECONDS}; SameSite=Lax",
            lang.code()
        ),
    )
}

/// The body of `PUT /api/language`.
#[derive(Debug, Deserialize)]
struct Choice {
    /// One of the codes of `i18n::LANGS`: `en`, `de`, `fr`, `it`, `nl`, `es`, `pl`, `ru`,
    /// `cs`.
    language: String,
}

/// `PUT /api/language`: reads `language` from now on, in this browser and, signed in,
/// on the account (`204`).
async fn choose(
    State(state): State<AppState>,
    signed_in: Option<SignedIn>,
    ApiJson(choice): ApiJson<Choice>,
) -> Result<Response, ApiError> {
    let lang = Lang::parse(&choice.language)
        .filter(|lang| lang.code() == choice.language)
        .ok_or_else(|| {
            ApiError::bad_request("the language is one of en, de, fr, it, nl, es, pl, ru and cs")
        })?;
    if let Some(SignedIn(account)) = signed_in {
        state.accounts.set_language(&account, lang).await?;
    }
    Ok((StatusCode::NO_CONTENT, [set_cookie(lang)]).into_response())
}

/// Tells a refusal (an answer marked by `ApiError`) in the request's language: the
/// code's message in it, for any reader of another language than English (whose
/// message may say more).
pub(crate) async fn localize(request: Request, next: Next) -> Response {
    let lang = of(request.headers());
    let response = next.run(request).await;
    let Some(&AnswerCode(code)) = response.extensions().get::<AnswerCode>() else {
        return response;
    };
    if lang == Lang::En {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    let told = punct_protocol::ApiError {
        code,
        message: errors::message(code, lang).to_owned(),
    };
    let body = serde_json::to_vec(&told).expect("an error serialises");
    let mut response = Response::from_parts(parts, Body::from(body));
    response.headers_mut().append(
        header::VARY,
        header::HeaderValue::from_static("accept-language"),
    );
    response
}
