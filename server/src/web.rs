//! The browser client: the lobby at `/`, the game page at `/room/{id}`, a player's page at
//! `/player/{username}`, the leaderboard at `/leaderboard`, the archive at `/games`, their
//! assets under `/assets/`, and `GET /api/rooms/{id}/position/{after}`, which replays the
//! first N turns with the rules engine so the page can show past positions without
//! knowing the rules. The pages get everything else from the JSON API.
//!
//! The assets are plain HTML, CSS and JavaScript modules in `server/web/`, compiled into
//! the binary: there is no build step, and the server needs no files at run time.

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use punct_protocol::{Reserves, StackView};
use punct_rules::{Color, Game};
use serde::Serialize;

use crate::AppState;
use crate::http::Failure;

/// The routes of the browser client, merged into the server's router.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/",
            get(|| async { Html(include_str!("../web/lobby.html")) }),
        )
        .route(
            "/room/{id}",
            get(|| async { Html(include_str!("../web/room.html")) }),
        )
        .route(
            "/player/{username}",
            get(|| async { Html(include_str!("../web/player.html")) }),
        )
        .route(
            "/leaderboard",
            get(|| async { Html(include_str!("../web/leaderboard.html")) }),
        )
        .route(
            "/games",
            get(|| async { Html(include_str!("../web/games.html")) }),
        )
        .route(
            "/mine",
            get(|| async { Html(include_str!("../web/mine.html")) }),
        )
        .route("/assets/{file}", get(asset))
        .route("/api/rooms/{id}/position/{after}", get(position))
}

/// Every asset: its name under `/assets/`, its media type and its bytes.
const ASSETS: &[(&str, &str, &str)] = &[
    ("style.css", "text/css", include_str!("../web/style.css")),
    (
        "lobby.js",
        "text/javascript",
        include_str!("../web/lobby.js"),
    ),
    ("room.js", "text/javascript", include_str!("../web/room.js")),
    (
        "board.js",
        "text/javascript",
        include_str!("../web/board.js"),
    ),
    ("api.js", "text/javascript", include_str!("../web/api.js")),
    ("ui.js", "text/javascript", include_str!("../web/ui.js")),
    ("chat.js", "text/javascript", include_str!("../web/chat.js")),
    (
        "account.js",
        "text/javascript",
        include_str!("../web/account.js"),
    ),
    (
        "player.js",
        "text/javascript",
        include_str!("../web/player.js"),
    ),
    (
        "leaderboard.js",
        "text/javascript",
        include_str!("../web/leaderboard.js"),
    ),
    (
        "games.js",
        "text/javascript",
        include_str!("../web/games.js"),
    ),
    ("mine.js", "text/javascript", include_str!("../web/mine.js")),
];

async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, media, body)) => (
            [
                (header::CONTENT_TYPE, format!("{media}; charset=utf-8")),
                // The assets change only with the binary; a short cache keeps a new
                // release visible within minutes.
                (header::CACHE_CONTROL, "max-age=300".to_owned()),
            ],
            *body,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The board and reserves after some turns, in the form of a snapshot's.
#[derive(Serialize)]
struct PositionView {
    /// How many turns were replayed.
    after: usize,
    /// Whose turn it is in that position.
    to_move: Color,
    /// Every cell that holds a dot, its dots topmost first.
    board: Vec<StackView>,
    /// Both reserves.
    reserves: Reserves,
}

async fn position(
    State(state): State<AppState>,
    Path((id, after)): Path<(String, usize)>,
) -> Result<Json<PositionView>, Failure> {
    let record = state.rooms.record(&id).await?;
    if after > record.turns.len() {
        return Err(Failure::bad_request(format!(
            "the game has only {} turns",
            record.turns.len()
        )));
    }
    let mut game = Game::new(record.variant);
    for &turn in &record.turns[..after] {
        // The room accepted every recorded turn with the same rules engine.
        game.play(turn).expect("a recorded turn is legal");
    }
    let position = game.position();
    Ok(Json(PositionView {
        after,
        to_move: position.to_move(),
        board: StackView::all(position),
        reserves: Reserves::of(position),
    }))
}

#[cfg(test)]
mod tests {
    use super::ASSETS;

    /// The pages, by their source, for the check that what they load is served.
    const PAGES: &[(&str, &str)] = &[
        ("lobby.html", include_str!("../web/lobby.html")),
        ("room.html", include_str!("../web/room.html")),
        ("player.html", include_str!("../web/player.html")),
        ("leaderboard.html", include_str!("../web/leaderboard.html")),
        ("games.html", include_str!("../web/games.html")),
    ];

    /// The names that follow `prefix` up to `end` in `text`.
    fn references<'a>(text: &'a str, prefix: &str, end: char) -> Vec<&'a str> {
        text.split(prefix)
            .skip(1)
            .filter_map(|rest| rest.split(end).next())
            .collect()
    }

    #[test]
    fn every_asset_a_page_or_module_loads_is_served() {
        let served = |name: &str| ASSETS.iter().any(|(asset, _, _)| *asset == name);
        for (page, html) in PAGES {
            let loaded = references(html, "\"/assets/", '"');
            assert_eq!(
                loaded.len(),
                2,
                "{page} loads its stylesheet and its module"
            );
            for asset in loaded {
                assert!(
                    served(asset),
                    "{page} loads /assets/{asset}, which is not served"
                );
            }
        }
        for (module, _, source) in ASSETS.iter().filter(|(name, _, _)| name.ends_with(".js")) {
            for import in references(source, "from './", '\'') {
                assert!(
                    served(import),
                    "{module} imports ./{import}, which is not served"
                );
            }
        }
    }
}
