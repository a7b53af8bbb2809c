//! The routes of tournaments: listing, creating, reading one (standings and rounds),
//! joining and withdrawing, and where a director runs.

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use punct_protocol::{CreateTournament, TournamentList, TournamentNode, TournamentView};

use super::auth::SignedIn;
use super::body::ApiJson;
use super::error::ApiError;
use crate::config::TournamentCreators;
use crate::state::AppState;

/// The routes of tournaments.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/tournaments", get(list).post(create))
        .route("/api/tournaments/{id}", get(one))
        .route("/api/tournaments/{id}/join", post(join))
        .route("/api/tournaments/{id}/withdraw", post(withdraw))
        .route("/api/tournaments/{id}/node", get(node))
}

/// `GET /api/tournaments`.
async fn list(State(state): State<AppState>) -> Result<Json<TournamentList>, ApiError> {
    Ok(Json(state.tournaments.list().await?))
}

/// `POST /api/tournaments`: by anyone signed in, or by moderators only
/// (`--tournament-creators`).
async fn create(
    State(state): State<AppState>,
    SignedIn(account): SignedIn,
    ApiJson(request): ApiJson<CreateTournament>,
) -> Result<(StatusCode, Json<TournamentView>), ApiError> {
    if state.config.tournament_creators == TournamentCreators::Moderators {
        state.moderation.role_of(&account).await?;
    }
    if request.rated {
        state.moderation.may_play_rated(&account).await?;
    }
    let view = state.tournaments.create(request, &account).await?;
    tracing::info!(tournament = %view.summary.id, "tournament created");
    Ok((StatusCode::CREATED, Json(view)))
}

/// `GET /api/tournaments/{id}`.
async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TournamentView>, ApiError> {
    Ok(Json(state.tournaments.view(&id).await?))
}

/// `POST /api/tournaments/{id}/join`.
async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SignedIn(account): SignedIn,
) -> Result<Json<TournamentView>, ApiError> {
    if state.tournaments.view(&id).await?.summary.rated {
        state.moderation.may_play_rated(&account).await?;
    }
    state.tournaments.join(&id, account).await?;
    Ok(Json(state.tournaments.view(&id).await?))
}

/// `POST /api/tournaments/{id}/withdraw`.
async fn withdraw(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SignedIn(account): SignedIn,
) -> Result<Json<TournamentView>, ApiError> {
    state.tournaments.withdraw(&id, account.id).await?;
    Ok(Json(state.tournaments.view(&id).await?))
}

/// `GET /api/tournaments/{id}/node`: where the director runs, for operators.
async fn node(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<TournamentNode>, ApiError> {
    let whereabouts = state.tournaments.whereabouts(&id).await?;
    Ok(Json(TournamentNode {
        tournament: id,
        node: whereabouts.node,
        alive: whereabouts.alive,
        here: whereabouts.here,
        this_node: state.services.nodes.tag(),
    }))
}
