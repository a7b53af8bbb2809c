//! `GET /ws`: the WebSocket endpoint. The upgrade is refused before any socket exists
//! when the page's origin is not allowed, the address or the server has as many
//! connections as it may, or the session presented has ended; then the connection
//! speaks the protocol of `punct-protocol` (`connection`).

use std::sync::atomic::Ordering;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use punct_protocol::ErrorCode;
use tracing::Instrument;

use super::auth::{self, Session};
use super::error::ApiError;
use super::language;
use crate::connection;
use crate::metrics::TurnedAway;
use crate::proxy::ClientAddr;
use crate::secret::hash_token;
use crate::state::AppState;

/// A WebSocket connection's read buffer: every request but the longest chat lines fits
/// (tungstenite grows it for a larger one). Every connection holds it for its whole
/// life, so it is kept small.
const READ_BUFFER_BYTES: usize = 512;

/// Frames a WebSocket connection's writer gathers before writing them out, if it has not
/// flushed by then.
const WRITE_BUFFER_BYTES: usize = 16 * 1024;

/// The route of the WebSocket endpoint.
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/ws", get(websocket))
}

/// Whether a WebSocket upgrade may proceed given its `Origin`: any origin when no list is
/// set; otherwise no `Origin` (not a browser), the server's own (the `Host` asked for), or
/// one on the list.
fn origin_allowed(allowed: &[String], headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    if allowed.is_empty() {
        return true;
    }
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim_end_matches('/');
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let same_origin = origin
        .split_once("://")
        .is_some_and(|(_, authority)| host.is_some_and(|h| h.eq_ignore_ascii_case(authority)));
    same_origin
        || allowed
            .iter()
            .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
}

/// `GET /ws`.
async fn websocket(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    headers: HeaderMap,
    Session(account): Session,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let metrics = &state.services.metrics;
    if !origin_allowed(&state.config.allowed_origins, &headers) {
        metrics.refused(TurnedAway::Origin);
        return Err(ErrorCode::OriginNotAllowed.into());
    }
    let Some(slot) = state.addresses.connect(peer) else {
        metrics.refused(TurnedAway::ConnectionsPerIp);
        return Err(ApiError::new(
            ErrorCode::TooManyConnections,
            "this address has as many connections open as it may",
        )
        .with_status(StatusCode::TOO_MANY_REQUESTS));
    };
    let Ok(permit) = state.connections.clone().try_acquire_owned() else {
        metrics.refused(TurnedAway::MaxConnections);
        return Err(ErrorCode::TooManyConnections.into());
    };
    let id = state.next_connection.fetch_add(1, Ordering::Relaxed);
    let max = state.config.max_message_bytes;
    let lang = language::of(&headers);
    // The session the account was found by (the extractor's pick): its end ends the
    // connection.
    let session = account
        .as_ref()
        .and_then(|_| auth::presented(&headers))
        .map(|(token, _)| hash_token(&token));
    // Small buffers: tungstenite's default of 128 KiB each way would cost 256 KiB per
    // idle connection; requests are at most `max` bytes. The writer flushes after the
    // frames waiting together, so they are held only up to that flush, and only as many
    // as they take (the buffer grows as filled).
    Ok(upgrade
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| {
            let span = tracing::info_span!("conn", conn = id, %peer, room = tracing::field::Empty);
            async move {
                let signed_in = account.as_ref().map(|account| account.id.clone());
                // Boxed: it looks at the database, and inline it would make every
                // connection's task that large for its whole life.
                let ticket = Box::pin(state.endings.open(id, session, signed_in)).await;
                connection::serve(socket, id, state, account, lang, ticket).await;
                drop((permit, slot));
            }
            .instrument(span)
        })
        .into_response())
}
