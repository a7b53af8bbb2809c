//! The HTTP API (documented in `server/API.md`) and the WebSocket endpoint.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use punct_protocol::{ApiError, CreateRoom, ErrorCode, Lobby, RoomStatus, Visibility};
use tracing::Instrument;

use crate::AppState;
use crate::connection;

/// Largest HTTP request body accepted: requests are a few small JSON fields.
const MAX_BODY_BYTES: usize = 4096;

/// Every route of the server.
pub(crate) fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/api/rooms", post(create_room).get(lobby))
        .route("/api/rooms/{id}", get(room))
        .route("/api/rooms/{id}/seat", post(take_seat))
        .route("/api/rooms/{id}/record", get(record))
        .route("/api/rooms/{id}/record.txt", get(record_text))
        .route("/ws", get(websocket))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// An HTTP error with its JSON body.
struct Failure(StatusCode, ErrorCode, String);

impl Failure {
    fn no_such_room() -> Failure {
        Failure(
            StatusCode::NOT_FOUND,
            ErrorCode::NoSuchRoom,
            "no room has this id".into(),
        )
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let Failure(status, code, message) = self;
        (status, Json(ApiError { code, message })).into_response()
    }
}

async fn healthz() -> &'static str {
    "ok\n"
}

async fn create_room(State(state): State<AppState>, body: Bytes) -> Result<Response, Failure> {
    let request: CreateRoom = if body.iter().all(u8::is_ascii_whitespace) {
        CreateRoom::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            Failure(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                e.to_string(),
            )
        })?
    };
    let granted = state.rooms.create(request).await.map_err(|code| {
        let message = match code {
            ErrorCode::TooManyRooms => "the server holds as many rooms as it may",
            _ => "the room could not be stored; try again",
        };
        Failure(StatusCode::SERVICE_UNAVAILABLE, code, message.into())
    })?;
    tracing::info!(room = %granted.room, color = %granted.color, "room created");
    Ok((StatusCode::CREATED, Json(granted)).into_response())
}

async fn lobby(State(state): State<AppState>) -> Json<Lobby> {
    let rooms = state
        .rooms
        .summaries()
        .into_iter()
        .filter(|r| r.visibility == Visibility::Public && r.status != RoomStatus::Over)
        .collect();
    Json(Lobby { rooms })
}

async fn room(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, Failure> {
    let handle = state
        .rooms
        .get(&id)
        .await
        .ok_or_else(Failure::no_such_room)?;
    Ok(Json(handle.summary()).into_response())
}

async fn take_seat(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    let handle = state
        .rooms
        .get(&id)
        .await
        .ok_or_else(Failure::no_such_room)?;
    match handle.take_seat().await {
        Ok(Ok(granted)) => Ok(Json(granted).into_response()),
        Ok(Err(code)) => Err(Failure(
            StatusCode::CONFLICT,
            code,
            "both seats are taken".into(),
        )),
        Err(_) => Err(Failure::no_such_room()),
    }
}

async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    let handle = state
        .rooms
        .get(&id)
        .await
        .ok_or_else(Failure::no_such_room)?;
    let (record, _) = handle.record().await.map_err(|_| Failure::no_such_room())?;
    Ok(Json(record).into_response())
}

async fn record_text(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    let handle = state
        .rooms
        .get(&id)
        .await
        .ok_or_else(Failure::no_such_room)?;
    let (_, text) = handle.record().await.map_err(|_| Failure::no_such_room())?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

async fn websocket(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let Ok(permit) = state.connections.clone().try_acquire_owned() else {
        return Failure(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::TooManyConnections,
            "the server has as many connections as it may".into(),
        )
        .into_response();
    };
    let id = state.next_connection.fetch_add(1, Ordering::Relaxed);
    let max = state.config.max_message_bytes;
    upgrade
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| {
            let span = tracing::info_span!("conn", id, %peer);
            async move {
                connection::serve(socket, id, state).await;
                drop(permit);
            }
            .instrument(span)
        })
}
