//! The archive: finished public games, newest first, page by page.

use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::routing::get;
use punct_protocol::Archive;
use serde::Deserialize;

use super::error::ApiError;
use super::players::account_id;
use crate::state::AppState;
use crate::store::ArchiveCursor;

/// Games on one page of the archive, unless the request asks for fewer.
const ARCHIVE_PAGE: usize = 20;

/// Most games on one page of the archive.
const MAX_ARCHIVE_PAGE: usize = 100;

/// The routes of the archive.
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/api/games", get(archive))
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
) -> Result<Json<Archive>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let limit = query.limit.unwrap_or(ARCHIVE_PAGE);
    if !(1..=MAX_ARCHIVE_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(format!(
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
            cursor.ok_or_else(|| ApiError::bad_request("after must be the next of an earlier page"))
        })
        .transpose()?;
    let player = match query.player {
        Some(username) => Some(account_id(&state, &username).await?),
        None => None,
    };
    // One more than asked for tells whether there is a next page.
    let mut games = state
        .services
        .store
        .archive(after, limit + 1, player)
        .await
        .map_err(|e| ApiError::storage("reading the archive", &e))?;
    let next = (games.len() > limit).then(|| {
        games.truncate(limit);
        let last = games.last().expect("limit is at least 1");
        format!("{}.{}", last.finished_at, last.room)
    });
    Ok(Json(Archive { games, next }))
}
