//! The routes of rooms: creating one, taking its free seat, cancelling it, the lobby,
//! one room's summary, record and positions, and where it runs.

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use punct_protocol::{
    CancelRoom, CreateRoom, ErrorCode, Lobby, PositionView, Record, RoomNode, RoomSummary,
    SeatGranted, SeekList, SeekPoolNode, TakeSeat,
};
use punct_rules::Game;

use super::auth::SignedIn;
use super::body::JsonOrDefault;
use super::error::ApiError;
use crate::endings;
use crate::metrics::TurnedAway;
use crate::proxy::ClientAddr;
use crate::room::Key;
use crate::state::AppState;
use crate::store::Player;

/// The routes of rooms.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/rooms", post(create).get(lobby))
        .route("/api/seeks", get(seeks))
        .route("/api/seeks/node", get(seeks_node))
        .route("/api/rooms/{id}", get(summary))
        .route("/api/rooms/{id}/seat", post(take_seat))
        .route("/api/rooms/{id}/cancel", post(cancel))
        .route("/api/rooms/{id}/record", get(record))
        .route("/api/rooms/{id}/record.txt", get(record_text))
        .route("/api/rooms/{id}/position/{after}", get(position))
        .route("/api/rooms/{id}/node", get(node))
}

/// `POST /api/rooms`: creates a room, and gives its creator a seat.
async fn create(
    State(state): State<AppState>,
    ClientAddr(peer): ClientAddr,
    account: Option<SignedIn>,
    JsonOrDefault(request): JsonOrDefault<CreateRoom>,
) -> Result<(StatusCode, Json<SeatGranted>), ApiError> {
    if !state.addresses.create_room(peer) {
        let metrics = &state.services.metrics;
        metrics.refused(TurnedAway::RoomsPerMinute);
        let most = state.config.rooms_per_minute;
        return Err(ApiError::new(
            ErrorCode::RateLimited,
            format!("an address may create {most} rooms a minute; wait a little"),
        ));
    }
    if let Some(level) = request.computer
        && punct_engine::Level::new(level).is_none()
    {
        return Err(ApiError::bad_request(format!(
            "the computer plays at levels 1 to {}, not {level}",
            punct_engine::Level::STRONGEST
        )));
    }
    if let Some(why) = request.clock.and_then(|clock| clock.refusal()) {
        return Err(ApiError::bad_request(why));
    }
    if request.rated {
        let Some(SignedIn(signed_in)) = &account else {
            return Err(ApiError::new(
                ErrorCode::SignInRequired,
                "sign in to create a rated game",
            ));
        };
        state.moderation.may_play_rated(signed_in).await?;
        if request.computer.is_some() {
            return Err(ApiError::bad_request(
                "games against the computer are not rated",
            ));
        }
    }
    let creator = player(&state, account, request.name.as_deref()).await?;
    let granted = state.rooms.create(request, creator).await?;
    tracing::info!(room = %granted.room, color = %granted.color, "room created");
    Ok((StatusCode::CREATED, Json(granted)))
}

/// `GET /api/rooms`: the lobby.
async fn lobby(State(state): State<AppState>) -> Result<Json<Lobby>, ApiError> {
    Ok(Json(Lobby {
        rooms: state.rooms.lobby().await?,
    }))
}

/// `GET /api/seeks`: the open seeks of quick pairing.
async fn seeks(State(state): State<AppState>) -> Json<SeekList> {
    Json(state.seeks.list().await)
}

/// `GET /api/seeks/node`: where the seek pool runs.
async fn seeks_node(State(state): State<AppState>) -> Result<Json<SeekPoolNode>, ApiError> {
    let whereabouts = state.seeks.whereabouts().await?;
    Ok(Json(SeekPoolNode {
        node: whereabouts.node,
        alive: whereabouts.alive,
        here: whereabouts.here,
        this_node: state.services.nodes.tag(),
    }))
}

/// `GET /api/rooms/{id}`.
async fn summary(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RoomSummary>, ApiError> {
    Ok(Json(state.rooms.summary(&id).await?))
}

/// `POST /api/rooms/{id}/seat`: gives out the free seat.
async fn take_seat(
    State(state): State<AppState>,
    Path(id): Path<String>,
    account: Option<SignedIn>,
    JsonOrDefault(request): JsonOrDefault<TakeSeat>,
) -> Result<Json<SeatGranted>, ApiError> {
    if let Some(SignedIn(signed_in)) = &account
        && state.rooms.summary(&id).await?.rated
    {
        state.moderation.may_play_rated(signed_in).await?;
    }
    let player = player(&state, account, request.name.as_deref()).await?;
    Ok(Json(state.rooms.take_seat(&id, player).await?))
}

/// `POST /api/rooms/{id}/cancel`: the creator deletes a room nobody has joined.
async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    account: Option<SignedIn>,
    JsonOrDefault(request): JsonOrDefault<CancelRoom>,
) -> Result<StatusCode, ApiError> {
    let key = match (request.token, account) {
        (Some(token), _) => {
            endings::seat_account(&state.services.store, &id, &token).await?;
            Key::Token(token)
        }
        (None, Some(SignedIn(account))) => Key::Account(account.id),
        (None, None) => {
            return Err(ApiError::new(
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
    account: Option<SignedIn>,
    name: Option<&str>,
) -> Result<Player, ApiError> {
    match (account, name) {
        (Some(SignedIn(account)), _) => Ok(Player::of(account)),
        (None, Some(name)) => Ok(Player {
            name: Some(state.accounts.check_name(name).await?),
            account: None,
        }),
        (None, None) => Ok(Player::default()),
    }
}

/// `GET /api/rooms/{id}/record`.
async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Record>, ApiError> {
    Ok(Json(state.rooms.record(&id).await?))
}

/// `GET /api/rooms/{id}/record.txt`: the record in the notation of the rules.
async fn record_text(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
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
    let disposition = format!(r#"attachment; filename="{}""#, record_file_name(&record));
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// The name a record is saved under: `punct-anna-Guest-2026-11-27.txt`, the players
/// (their colour for one who gave no name) and the day the room was made (left out for a
/// room whose id does not tell). Only ASCII letters, digits, `-` and `_` of a name are
/// kept, so the name needs no quoting in the header and suits every file system.
fn record_file_name(record: &Record) -> String {
    let mut name = String::from("punct");
    for (color, player) in [("white", &record.white), ("black", &record.black)] {
        let kept: String = player
            .name
            .iter()
            .flat_map(|name| name.chars())
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        name.push('-');
        name.push_str(if kept.is_empty() { color } else { &kept });
    }
    if let Some(made) = crate::secret::made_at(&record.room) {
        // RFC 3339 begins with the date: `2026-11-27T…`.
        name.push('-');
        name.push_str(&humantime::format_rfc3339(made).to_string()[..10]);
    }
    name + ".txt"
}

/// `GET /api/rooms/{id}/position/{after}`: the position after the first `after` turns,
/// for a page without the rules engine.
async fn position(
    State(state): State<AppState>,
    Path((id, after)): Path<(String, usize)>,
) -> Result<Json<PositionView>, ApiError> {
    let record = state.rooms.record(&id).await?;
    if after > record.turns.len() {
        return Err(ApiError::bad_request(format!(
            "the game has only {} turns",
            record.turns.len()
        )));
    }
    // The room accepted every recorded turn with the same rules engine.
    let game =
        Game::replay(record.variant, &record.turns[..after]).expect("recorded turns are legal");
    Ok(Json(PositionView::of(&game)))
}

/// `GET /api/rooms/{id}/node`: where the room runs, for operators.
async fn node(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RoomNode>, ApiError> {
    // A room nobody knows has no whereabouts.
    state.rooms.summary(&id).await?;
    let whereabouts = state.rooms.whereabouts(&id).await?;
    Ok(Json(RoomNode {
        room: id,
        node: whereabouts.node,
        alive: whereabouts.alive,
        here: whereabouts.here,
        this_node: state.services.nodes.tag(),
    }))
}
