//! The HTTP API (documented in `server/API.md`) and the WebSocket endpoint.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use punct_protocol::{ApiError, Archive, CancelRoom, CreateRoom, ErrorCode, Lobby, TakeSeat};
use serde::Deserialize;
use tracing::Instrument;

use crate::AppState;
use crate::accounts::http::{failure, signed_in};
use crate::connection;
use crate::metrics::{Gauges, Refused};
use crate::room::Key;
use crate::store::{Account, ArchiveCursor, Player};

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

/// Largest HTTP request body accepted: requests are a few small JSON fields.
const MAX_BODY_BYTES: usize = 4096;

/// Games on one page of the archive, unless the request asks for fewer.
const ARCHIVE_PAGE: usize = 20;

/// A WebSocket connection's read buffer: enough for the largest request.
const READ_BUFFER_BYTES: usize = 4096;

/// Most games on one page of the archive.
const MAX_ARCHIVE_PAGE: usize = 100;

/// Every route of the server.
pub(crate) fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/api/rooms", post(create_room).get(lobby))
        .route("/api/rooms/{id}", get(room))
        .route("/api/rooms/{id}/seat", post(take_seat))
        .route("/api/rooms/{id}/cancel", post(cancel_room))
        .route("/api/rooms/{id}/record", get(record))
        .route("/api/rooms/{id}/record.txt", get(record_text))
        .route("/api/games", get(archive))
        .route("/ws", get(websocket))
        .merge(crate::accounts::http::routes())
        .merge(crate::players::routes())
        .merge(crate::web::routes())
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// An HTTP error with its JSON body.
pub(crate) struct Failure(StatusCode, ErrorCode, String);

impl From<ErrorCode> for Failure {
    /// The status and message of an error a room or the registry answered.
    fn from(code: ErrorCode) -> Failure {
        let (status, message) = match code {
            ErrorCode::NoSuchRoom => (StatusCode::NOT_FOUND, "no room has this id"),
            ErrorCode::RoomFull => (StatusCode::CONFLICT, "both seats are taken"),
            ErrorCode::TooManyRooms => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the server holds as many rooms as it may",
            ),
            ErrorCode::SignInRequired => (
                StatusCode::UNAUTHORIZED,
                "the seats of a rated game go to signed-in players; sign in first",
            ),
            ErrorCode::BadRequest => (
                StatusCode::BAD_REQUEST,
                "nobody may take both seats of a rated game",
            ),
            ErrorCode::BadToken => (
                StatusCode::FORBIDDEN,
                "the token is not the seat token of this room",
            ),
            ErrorCode::NotAPlayer => (
                StatusCode::FORBIDDEN,
                "your account holds no seat in this room",
            ),
            ErrorCode::NotCancellable => (
                StatusCode::CONFLICT,
                "only a room whose other seat is free and whose game is not over can be cancelled",
            ),
            _ => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the database could not answer; try again",
            ),
        };
        Failure(status, code, message.into())
    }
}

impl Failure {
    /// A failure with its status, code and message.
    pub(crate) fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure(status, code, message.into())
    }

    /// A `400 bad-request`.
    pub(crate) fn bad_request(message: impl Into<String>) -> Failure {
        Failure(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            message.into(),
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

/// Ready to take games: the database answers and the server is not shutting down.
async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if *state.stop.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n");
    }
    match state.rooms.context().store.ping().await {
        Ok(()) => (StatusCode::OK, "ready\n"),
        Err(e) => {
            tracing::error!("not ready: {e}");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable\n")
        }
    }
}

/// The counters, in the Prometheus text format.
async fn metrics(State(state): State<AppState>) -> Response {
    let context = state.rooms.context();
    let page = context.metrics.render(Gauges {
        connections: state.config.max_connections - state.connections.available_permits(),
        rooms: state
            .rooms
            .running_summaries()
            .iter()
            .map(|room| room.status)
            .collect(),
        computers: context.computers.load(),
    });
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, content_type)], page).into_response()
}

async fn create_room(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Failure> {
    let account = signed_in(&state, &headers, true).await?;
    if !state.addresses.create_room(peer.ip()) {
        state
            .rooms
            .context()
            .metrics
            .refused(Refused::RoomsPerMinute);
        let most = state.config.rooms_per_minute;
        return Err(Failure(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("an address may create {most} rooms a minute; wait a little"),
        ));
    }
    let request: CreateRoom = if body.iter().all(u8::is_ascii_whitespace) {
        CreateRoom::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| Failure::bad_request(e.to_string()))?
    };
    if let Some(level) = request.computer
        && punct_engine::Level::new(level).is_none()
    {
        return Err(Failure::bad_request(format!(
            "the computer plays at levels 1 to {}, not {level}",
            punct_engine::Level::STRONGEST
        )));
    }
    if let Some(why) = request.clock.and_then(|clock| clock.refusal()) {
        return Err(Failure::bad_request(why));
    }
    if request.rated {
        if account.is_none() {
            return Err(Failure::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::SignInRequired,
                "sign in to create a rated game",
            ));
        }
        if request.computer.is_some() {
            return Err(Failure::bad_request(
                "games against the computer are not rated",
            ));
        }
    }
    let creator = player(&state, account, request.name.as_deref()).await?;
    let granted = state.rooms.create(request, creator).await?;
    tracing::info!(room = %granted.room, color = %granted.color, "room created");
    Ok((StatusCode::CREATED, Json(granted)).into_response())
}

async fn lobby(State(state): State<AppState>) -> Result<Json<Lobby>, Failure> {
    Ok(Json(Lobby {
        rooms: state.rooms.lobby().await?,
    }))
}

async fn room(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, Failure> {
    Ok(Json(state.rooms.summary(&id).await?).into_response())
}

async fn take_seat(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Failure> {
    let account = signed_in(&state, &headers, true).await?;
    let request: TakeSeat = if body.iter().all(u8::is_ascii_whitespace) {
        TakeSeat::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| Failure::bad_request(e.to_string()))?
    };
    let player = player(&state, account, request.name.as_deref()).await?;
    Ok(Json(state.rooms.take_seat(&id, player).await?).into_response())
}

/// `POST /api/rooms/{id}/cancel`: the creator deletes a room nobody has joined.
async fn cancel_room(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, Failure> {
    let account = signed_in(&state, &headers, true).await?;
    let request: CancelRoom = if body.iter().all(u8::is_ascii_whitespace) {
        CancelRoom::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| Failure::bad_request(e.to_string()))?
    };
    let key = match (request.token, account) {
        (Some(token), _) => Key::Token(token),
        (None, Some(account)) => Key::Account(account.id),
        (None, None) => {
            return Err(Failure::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::SignInRequired,
                "give the room's seat token, or sign in to the account that holds the seat",
            ));
        }
    };
    state.rooms.cancel(&id, key).await?;
    tracing::info!(room = %id, "room cancelled");
    Ok(StatusCode::NO_CONTENT)
}

/// Who takes a seat: a signed-in player as their account (under its username), anyone
/// else under the name they gave, once it is checked, or none.
async fn player(
    state: &AppState,
    account: Option<Account>,
    name: Option<&str>,
) -> Result<Player, Failure> {
    match (account, name) {
        (Some(account), _) => Ok(Player::of(account)),
        (None, Some(name)) => {
            let name = state.accounts.check_name(name).await.map_err(failure)?;
            Ok(Player {
                name: Some(name),
                account: None,
            })
        }
        (None, None) => Ok(Player::default()),
    }
}

async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    Ok(Json(state.rooms.record(&id).await?).into_response())
}

async fn record_text(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    let record = state.rooms.record(&id).await?;
    let mut text = punct_rules::record_text(record.variant, &record.turns);
    // The players, as comment lines after the title: a record reads back as before.
    // (Names hold no control characters, so no line break.)
    let title = text.find('\n').map_or(text.len(), |end| end + 1);
    let mut players = String::new();
    for (color, player) in [("White", &record.white), ("Black", &record.black)] {
        if let Some(name) = &player.name {
            players.push_str(&format!("# {color}: {name}\n"));
        }
    }
    text.insert_str(title, &players);
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// The query of `GET /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchiveQuery {
    /// Games on the page.
    limit: Option<usize>,
    /// The `next` of the page before.
    after: Option<String>,
    /// Only the games of the account with this username.
    player: Option<String>,
}

/// `GET /api/games?limit=N&after=CURSOR`: a page of finished public games.
async fn archive(
    State(state): State<AppState>,
    query: Result<Query<ArchiveQuery>, QueryRejection>,
) -> Result<Json<Archive>, Failure> {
    let Query(query) = query.map_err(|e| Failure::bad_request(e.body_text()))?;
    let limit = query.limit.unwrap_or(ARCHIVE_PAGE);
    if !(1..=MAX_ARCHIVE_PAGE).contains(&limit) {
        return Err(Failure::bad_request(format!(
            "limit must be a number from 1 to {MAX_ARCHIVE_PAGE}"
        )));
    }
    let after = query
        .after
        .map(|cursor| {
            let (at, room) = cursor.split_once('.')?;
            Some(ArchiveCursor {
                finished_at: at.parse().ok()?,
                room: room.to_owned(),
            })
        })
        .map(|cursor| {
            cursor.ok_or_else(|| Failure::bad_request("after must be the next of an earlier page"))
        })
        .transpose()?;
    let player = match query.player {
        Some(username) => Some(crate::players::account_id(&state, &username).await?),
        None => None,
    };
    // One more than asked for tells whether there is a next page.
    let mut games = state
        .rooms
        .context()
        .store
        .archive(after, limit + 1, player)
        .await
        .map_err(|e| {
            let error: &dyn std::error::Error = &e;
            tracing::error!(error, "reading the archive");
            Failure(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::StorageFailed,
                "the archive could not be read; try again".into(),
            )
        })?;
    let next = (games.len() > limit).then(|| {
        games.truncate(limit);
        let last = games.last().expect("limit is at least 1");
        format!("{}.{}", last.finished_at, last.room)
    });
    Ok(Json(Archive { games, next }))
}

async fn websocket(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let metrics = &state.rooms.context().metrics;
    if !origin_allowed(&state.config.allowed_origins, &headers) {
        metrics.refused(Refused::Origin);
        return Failure(
            StatusCode::FORBIDDEN,
            ErrorCode::OriginNotAllowed,
            "pages from this origin may not connect to this server".into(),
        )
        .into_response();
    }
    let Some(slot) = state.addresses.connect(peer.ip()) else {
        metrics.refused(Refused::ConnectionsPerIp);
        return Failure(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::TooManyConnections,
            "this address has as many connections open as it may".into(),
        )
        .into_response();
    };
    let Ok(permit) = state.connections.clone().try_acquire_owned() else {
        metrics.refused(Refused::MaxConnections);
        return Failure(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::TooManyConnections,
            "the server has as many connections as it may".into(),
        )
        .into_response();
    };
    let account = crate::accounts::http::connection_account(&state, &headers).await;
    let id = state.next_connection.fetch_add(1, Ordering::Relaxed);
    let max = state.config.max_message_bytes;
    // Small buffers: tungstenite's default of 128 KiB each way would cost 256 KiB per
    // idle connection; requests are at most `max` bytes, and replies go out as soon as
    // they are queued.
    upgrade
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| {
            let span = tracing::info_span!("conn", conn = id, %peer, room = tracing::field::Empty);
            async move {
                connection::serve(socket, id, state, account).await;
                drop((permit, slot));
            }
            .instrument(span)
        })
}
