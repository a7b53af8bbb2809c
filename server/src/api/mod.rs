//! The HTTP edge: every route of the server (`server/API.md`), the one error type they
//! answer with, and how a request is signed in.
//!
//! # Layout
//!
//! - this file: [`router`], which puts the routes together.
//! - `serve`: [`serve`], the routes served on each connection accepted, with a limit on
//!   the time a request's head may take.
//! - `error`: [`ApiError`](error::ApiError), the one error type, over the table of
//!   `errors`.
//! - `auth`: the session cookie and bearer tokens, as the extractors `Session` and
//!   `SignedIn`.
//! - `language`: which language a request reads (a cookie, `Accept-Language`), the
//!   switch that chooses it, and refusals told in it.
//! - `template`: the pages rendered in each language from their sources.
//! - routes by resource: `rooms`, `games` (the archive), `accounts` (registering and
//!   sessions), `players` (player pages, the leaderboard, one's own games and mail),
//!   `puzzles` (their ratings, one's results and streaks),
//!   `tournaments` (listing, creating, joining, withdrawing, one's standings and
//!   rounds, where its director runs), `health` (health, readiness, metrics, the node), `ws` (the WebSocket upgrade), and
//!   `web` (the browser client's pages and assets).
//!
//! Must not be imported by anything but the crate's root: it is the top of the server.

mod accounts;
mod auth;
mod body;
mod error;
mod games;
mod health;
mod language;
mod moderation;
mod players;
mod puzzles;
mod rooms;
mod serve;
mod template;
mod tournaments;
mod web;
mod ws;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::{from_extractor_with_state, from_fn, map_response};
use axum::response::Response;

use crate::state::AppState;

pub(crate) use serve::serve;

/// Largest HTTP request body accepted: requests are a few small JSON fields.
const MAX_BODY_BYTES: usize = 4096;

/// The header of every response that names the node that answered, by its tag: behind
/// a load balancer, an operator can tell which node served a request.
const NODE: HeaderName = HeaderName::from_static("x-punct-node");

/// Every route of the server.
pub(crate) fn router(state: AppState) -> Router {
    let node = HeaderValue::from(state.services.nodes.tag());
    // A request that presents a session that has ended is refused, on every route that
    // may act or read as a player; signing in and out take any session as it comes.
    let checked = Router::new()
        .merge(rooms::routes())
        .merge(games::routes())
        .merge(players::routes())
        .merge(accounts::own_routes())
        .merge(puzzles::own_routes())
        .merge(moderation::routes())
        .merge(tournaments::routes())
        .merge(ws::routes())
        .merge(language::routes())
        .route_layer(from_extractor_with_state::<auth::Session, AppState>(
            state.clone(),
        ));
    Router::new()
        .merge(checked)
        .merge(accounts::routes())
        .merge(puzzles::routes())
        .merge(players::unchecked_routes())
        .merge(health::routes())
        .merge(web::routes())
        .fallback(web::not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(from_fn(language::localize))
        .layer(map_response(move |mut response: Response| {
            response.headers_mut().insert(NODE, node.clone());
            std::future::ready(response)
        }))
        .with_state(state)
}
