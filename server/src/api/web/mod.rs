//! The browser client: the lobby at `/`, the game page at `/room/{id}`, a player's page at
//! `/player/{username}`, the leaderboard at `/leaderboard`, the archive at `/games`, a
//! player's games at `/mine`, the analysis board at `/analysis`, the rules at
//! `/how-to-play`, the tutorial at `/learn`, the puzzles at `/puzzles`, a game against the
//! computer in the page at `/offline`, the tournaments at `/tournaments` and one at
//! `/tournament/{id}`, the moderators' pages at `/mod` (served by
//! `api::moderation`), and their assets under `/assets/`. The pages get everything else
//! from the JSON API. A room's page for a room that does not exist is a `404` page of its
//! own.
//!
//! The site installs as a web app: `/manifest.webmanifest` describes it, and the service
//! worker `/sw.js` (at the root, so that it may serve every page) keeps this release's
//! pages and assets for when there is no network.
//!
//! The assets are plain HTML, CSS and JavaScript modules in `server/web/`, and the rules
//! and the engine compiled to WebAssembly by the build script, all compiled into the
//! binary: the server needs no files at run time. Pages load their assets under
//! `/assets/{version}/`, where the version is a hash of every asset: those answers may
//! be cached for a year, and a new release is seen at once. Every answer is sent
//! gzipped to a browser that takes it.
//!
//! Every page is its own parts put in one layout (`layout`, of `layout.html`: the head's
//! shared lines, the header with the navigation of `nav.html`), then rendered once in
//! each language (`template`), and served in the request's (`language`), all made once.

mod layout;

use std::io::Write;
use std::sync::{LazyLock, OnceLock};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use flate2::Compression;
use flate2::write::GzEncoder;
use punct_protocol::ErrorCode;
use sha2::{Digest, Sha256};

use self::layout::in_layout;
use super::error::ApiError;
use super::language;
use super::template;
use crate::i18n::LANGS;
use crate::state::AppState;

/// The path of the game page, which is served only for a room that exists.
const ROOM_PAGE: &str = "/room/{id}";

/// The path of the moderators' pages, served only to moderators (`api::moderation`).
const MODERATION_PAGE: &str = "/mod";

/// The routes of the browser client, merged into the server's router.
pub(crate) fn routes() -> Router<AppState> {
    let pages = PAGES
        .iter()
        .enumerate()
        .filter(|(_, (path, _, _))| *path != ROOM_PAGE && *path != MODERATION_PAGE)
        .fold(Router::new(), |router, (index, &(path, _, _))| {
            router.route(path, get(move |headers| page(index, headers)))
        });
    pages
        .route(ROOM_PAGE, get(room_page))
        .route("/favicon.ico", get(favicon))
        .route("/sw.js", get(service_worker))
        .route("/manifest.webmanifest", get(manifest))
        .route("/assets/{file}", get(unversioned_asset))
        .route("/assets/{version}/{file}", get(asset))
}

/// The page's rules engine, built by `build.rs`; empty when the server was built
/// without the WebAssembly target, and then not served (the page falls back on the
/// server's lists of legal turns).
const RULES_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/punct_rules.wasm"));

/// The page's engine, built by `build.rs` beside the rules; empty and not served
/// likewise (the analysis board and the offline game then say they need it).
const ENGINE_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/punct_engine.wasm"));

/// The page for a path the site has none for.
const NOT_FOUND: &str = include_str!("../../../web/not-found.html");

/// The service worker, whose `__RELEASE__` becomes the release and `__PRECACHE__` the
/// list of what it keeps.
const SERVICE_WORKER: &str = include_str!("../../../web/sw.js");

/// The web app's manifest.
const MANIFEST: &str = include_str!("../../../web/manifest.webmanifest");

/// The pages the service worker keeps for use without a network: those that work
/// without the server, and the lobby, which links to them.
const OFFLINE_PAGES: &[&str] = &["/", "/offline", "/analysis", "/how-to-play"];

/// Every page: the path it is served at, its file and its source.
const PAGES: &[(&str, &str, &str)] = &[
    ("/", "lobby.html", include_str!("../../../web/lobby.html")),
    (
        ROOM_PAGE,
        "room.html",
        include_str!("../../../web/room.html"),
    ),
    (
        "/player/{username}",
        "player.html",
        include_str!("../../../web/player.html"),
    ),
    (
        "/leaderboard",
        "leaderboard.html",
        include_str!("../../../web/leaderboard.html"),
    ),
    (
        "/games",
        "games.html",
        include_str!("../../../web/games.html"),
    ),
    ("/mine", "mine.html", include_str!("../../../web/mine.html")),
    (
        "/account",
        "account.html",
        include_str!("../../../web/account.html"),
    ),
    (
        "/analysis",
        "analysis.html",
        include_str!("../../../web/analysis.html"),
    ),
    (
        "/how-to-play",
        "how-to-play.html",
        include_str!("../../../web/how-to-play.html"),
    ),
    (
        MODERATION_PAGE,
        "moderation.html",
        include_str!("../../../web/moderation.html"),
    ),
    (
        "/offline",
        "offline.html",
        include_str!("../../../web/offline.html"),
    ),
    (
        "/learn",
        "learn.html",
        include_str!("../../../web/learn.html"),
    ),
    (
        "/puzzles",
        "puzzles.html",
        include_str!("../../../web/puzzles.html"),
    ),
    (
        "/tournaments",
        "tournaments.html",
        include_str!("../../../web/tournaments.html"),
    ),
    (
        "/tournament/{id}",
        "tournament.html",
        include_str!("../../../web/tournament.html"),
    ),
];

/// Every asset: its name under `/assets/`, its media type and its bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "style.css",
        "text/css",
        include_bytes!("../../../web/style.css"),
    ),
    (
        "theme.js",
        "text/javascript",
        include_bytes!("../../../web/theme.js"),
    ),
    (
        "site-nav.js",
        "text/javascript",
        include_bytes!("../../../web/site-nav.js"),
    ),
    (
        "lobby.js",
        "text/javascript",
        include_bytes!("../../../web/lobby.js"),
    ),
    (
        "tournament-follow.js",
        "text/javascript",
        include_bytes!("../../../web/tournament-follow.js"),
    ),
    (
        "seek.js",
        "text/javascript",
        include_bytes!("../../../web/seek.js"),
    ),
    (
        "room.js",
        "text/javascript",
        include_bytes!("../../../web/room.js"),
    ),
    (
        "socket.js",
        "text/javascript",
        include_bytes!("../../../web/socket.js"),
    ),
    (
        "room-session.js",
        "text/javascript",
        include_bytes!("../../../web/room-session.js"),
    ),
    (
        "room-state.js",
        "text/javascript",
        include_bytes!("../../../web/room-state.js"),
    ),
    (
        "room-input.js",
        "text/javascript",
        include_bytes!("../../../web/room-input.js"),
    ),
    (
        "room-view.js",
        "text/javascript",
        include_bytes!("../../../web/room-view.js"),
    ),
    (
        "board.js",
        "text/javascript",
        include_bytes!("../../../web/board.js"),
    ),
    (
        "api.js",
        "text/javascript",
        include_bytes!("../../../web/api.js"),
    ),
    (
        "ui.js",
        "text/javascript",
        include_bytes!("../../../web/ui.js"),
    ),
    (
        "i18n.js",
        "text/javascript",
        include_bytes!("../../../web/i18n.js"),
    ),
    (
        "chat.js",
        "text/javascript",
        include_bytes!("../../../web/chat.js"),
    ),
    (
        "account-page.js",
        "text/javascript",
        include_bytes!("../../../web/account-page.js"),
    ),
    (
        "account.js",
        "text/javascript",
        include_bytes!("../../../web/account.js"),
    ),
    (
        "player.js",
        "text/javascript",
        include_bytes!("../../../web/player.js"),
    ),
    (
        "leaderboard.js",
        "text/javascript",
        include_bytes!("../../../web/leaderboard.js"),
    ),
    (
        "games.js",
        "text/javascript",
        include_bytes!("../../../web/games.js"),
    ),
    (
        "mine.js",
        "text/javascript",
        include_bytes!("../../../web/mine.js"),
    ),
    (
        "how-to-play.js",
        "text/javascript",
        include_bytes!("../../../web/how-to-play.js"),
    ),
    (
        "engine.js",
        "text/javascript",
        include_bytes!("../../../web/engine.js"),
    ),
    (
        "lessons.json",
        "application/json",
        include_bytes!("../../../web/lessons.json"),
    ),
    (
        "pick.js",
        "text/javascript",
        include_bytes!("../../../web/pick.js"),
    ),
    (
        "practice.js",
        "text/javascript",
        include_bytes!("../../../web/practice.js"),
    ),
    (
        "learn.js",
        "text/javascript",
        include_bytes!("../../../web/learn.js"),
    ),
    (
        "tutorial.json",
        "application/json",
        include_bytes!("../../../web/tutorial.json"),
    ),
    (
        "puzzles.js",
        "text/javascript",
        include_bytes!("../../../web/puzzles.js"),
    ),
    ("puzzles.json", "application/json", PUZZLES.as_bytes()),
    (
        "analysis.js",
        "text/javascript",
        include_bytes!("../../../web/analysis.js"),
    ),
    (
        "moderation.js",
        "text/javascript",
        include_bytes!("../../../web/moderation.js"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        include_bytes!("../../../web/icon.svg"),
    ),
    (
        "engine-worker.js",
        "text/javascript",
        include_bytes!("../../../web/engine-worker.js"),
    ),
    (
        "thinker.js",
        "text/javascript",
        include_bytes!("../../../web/thinker.js"),
    ),
    (
        "review.js",
        "text/javascript",
        include_bytes!("../../../web/review.js"),
    ),
    (
        "offline.js",
        "text/javascript",
        include_bytes!("../../../web/offline.js"),
    ),
    (
        "tournaments.js",
        "text/javascript",
        include_bytes!("../../../web/tournaments.js"),
    ),
    (
        "tournament.js",
        "text/javascript",
        include_bytes!("../../../web/tournament.js"),
    ),
    (
        "tournament-state.js",
        "text/javascript",
        include_bytes!("../../../web/tournament-state.js"),
    ),
    ("rules.wasm", "application/wasm", RULES_WASM),
    ("engine.wasm", "application/wasm", ENGINE_WASM),
];

/// The puzzles of the puzzle page, as the page reads them.
const PUZZLES: &str = include_str!("../../../web/puzzles.json");

/// The ids of the puzzle page's puzzles: the only puzzles a player can be told to have
/// solved.
pub(crate) fn puzzle_ids() -> &'static [String] {
    static IDS: LazyLock<Vec<String>> = LazyLock::new(|| {
        #[derive(serde::Deserialize)]
        struct File {
            puzzles: Vec<Puzzle>,
        }
        #[derive(serde::Deserialize)]
        struct Puzzle {
            id: String,
        }
        let file: File =
            serde_json::from_str(PUZZLES).expect("puzzles.json is the page's puzzle file");
        file.puzzles.into_iter().map(|p| p.id).collect()
    });
    &IDS
}

/// A body made the first time it is asked for. Rendering and gzipping every page in every
/// language, and every asset, at once took seconds of the first request after a start
/// (twenty on a busy machine), and most tests ask for one page or none.
struct OnDemand {
    /// The body, once made.
    ready: OnceLock<Prepared>,
    /// How it is made.
    make: Box<dyn Fn() -> Prepared + Send + Sync>,
}

impl OnDemand {
    fn new(make: impl Fn() -> Prepared + Send + Sync + 'static) -> OnDemand {
        OnDemand {
            ready: OnceLock::new(),
            make: Box::new(make),
        }
    }

    /// The body, made now if it was not yet.
    fn get(&self) -> &Prepared {
        self.ready.get_or_init(|| (self.make)())
    }
}

/// A body ready to send: as it is, and gzipped when that is smaller.
struct Prepared {
    /// Its media type.
    media: &'static str,
    /// The bytes (shared: an answer does not copy them).
    plain: Bytes,
    /// The bytes gzipped, unless that saves nothing.
    gzipped: Option<Bytes>,
}

impl Prepared {
    fn new(media: &'static str, plain: Vec<u8>) -> Prepared {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(&plain).expect("writing to memory");
        let gzipped = encoder.finish().expect("writing to memory");
        Prepared {
            media,
            gzipped: (gzipped.len() < plain.len()).then(|| Bytes::from(gzipped)),
            plain: Bytes::from(plain),
        }
    }

    /// The answer, gzipped if the request takes that, with `cache` as its caching.
    fn answer(&self, headers: &HeaderMap, cache: &'static str) -> Response {
        let takes_gzip = headers
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
        let mut response = match (&self.gzipped, takes_gzip) {
            (Some(gzipped), true) => {
                let mut response = Body::from(gzipped.clone()).into_response();
                response
                    .headers_mut()
                    .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                response
            }
            _ => Body::from(self.plain.clone()).into_response(),
        };
        let headers = response.headers_mut();
        let media = if self.media.starts_with("text/") {
            format!("{}; charset=utf-8", self.media)
        } else {
            self.media.to_owned()
        };
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(&media).expect("media types are header values"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        response
    }
}

/// The pages and assets, prepared once.
struct Site {
    /// The hash of every asset, in the paths pages load them from.
    version: String,
    /// By the index of [`PAGES`], then of [`LANGS`], each loading its assets from the
    /// versioned paths.
    pages: Vec<Vec<OnDemand>>,
    /// By the index of [`ASSETS`] (the module that was not built left out).
    assets: Vec<Option<OnDemand>>,
    /// The game page of a room that does not exist, by the index of [`LANGS`]: its own
    /// title, and the panel that says so shown from the start.
    no_room: Vec<OnDemand>,
    /// The site's page for a path it has no page for, by the index of [`LANGS`].
    not_found: Vec<OnDemand>,
    /// The service worker of this release: a new release is a new worker, which the
    /// browser installs in place of the old.
    service_worker: Prepared,
    /// The web app's manifest, its icon under this release's path.
    manifest: Prepared,
}

/// The game page's title, as `room.html` writes it.
const ROOM_TITLE: &str = r#"<title data-i18n="title.room">PÜNCT — game</title>"#;
/// The title of the game page of a room that does not exist.
const NO_ROOM_TITLE: &str = r#"<title data-i18n="title.no-room">PÜNCT — no such room</title>"#;
/// The game page's panel for a room that does not exist, hidden, as `room.html` writes it.
const NO_ROOM_PANEL: &str = r#"<section id="no-room" class="panel no-room" hidden>"#;

static SITE: LazyLock<Site> = LazyLock::new(|| {
    let mut hash = Sha256::new();
    for (name, _, bytes) in ASSETS {
        hash.update(name.as_bytes());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    }
    let digest: [u8; 32] = hash.finalize().into();
    let version: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    let prefix = format!("\"/assets/{version}/");
    let pages: Vec<String> = PAGES
        .iter()
        .map(|(path, _, html)| in_layout(html, path).replace("\"/assets/", &prefix))
        .collect();
    let room = PAGES
        .iter()
        .position(|(path, _, _)| *path == ROOM_PAGE)
        .expect("the game page is one of the pages");
    let no_room = pages[room]
        .replace(ROOM_TITLE, NO_ROOM_TITLE)
        .replace(NO_ROOM_PANEL, &NO_ROOM_PANEL.replace(" hidden", ""));
    let languages = |html: &str| -> Vec<OnDemand> {
        LANGS
            .iter()
            .map(|&lang| {
                let html = html.to_owned();
                OnDemand::new(move || {
                    Prepared::new("text/html", template::render(&html, lang).into_bytes())
                })
            })
            .collect()
    };
    let pages = pages.iter().map(|html| languages(html)).collect();
    let assets: Vec<Option<OnDemand>> = ASSETS
        .iter()
        .map(|&(_, media, bytes)| {
            (!bytes.is_empty()).then(|| OnDemand::new(move || Prepared::new(media, bytes.to_vec())))
        })
        .collect();
    let precache: Vec<String> = OFFLINE_PAGES
        .iter()
        .map(|page| (*page).to_owned())
        .chain(
            ASSETS
                .iter()
                .zip(&assets)
                .filter(|(_, prepared)| prepared.is_some())
                .map(|((name, _, _), _)| format!("/assets/{version}/{name}")),
        )
        .collect();
    let precache = format!(
        "[{}]",
        precache
            .iter()
            .map(|u| format!("\"{u}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let service_worker = SERVICE_WORKER
        .replace("__PRECACHE__", &precache)
        .replace("__RELEASE__", &version);
    Site {
        no_room: languages(&no_room),
        not_found: languages(&in_layout(NOT_FOUND, "").replace("\"/assets/", &prefix)),
        service_worker: Prepared::new("text/javascript", service_worker.into_bytes()),
        manifest: Prepared::new(
            "application/manifest+json",
            MANIFEST.replace("\"/assets/", &prefix).into_bytes(),
        ),
        version,
        pages,
        assets,
    }
});

/// Page number `index` in the request's language: checked again on every visit, so
/// that a new release's assets are loaded at once.
async fn page(index: usize, headers: HeaderMap) -> Response {
    in_language(&SITE.pages[index], &headers)
}

/// The page of `languages` in the request's language, said to vary with what chooses it.
fn in_language(languages: &[OnDemand], headers: &HeaderMap) -> Response {
    let lang = language::of(headers);
    let mut response = languages[lang.index()].get().answer(headers, "no-cache");
    response.headers_mut().insert(
        header::VARY,
        HeaderValue::from_static("accept-encoding, accept-language, cookie"),
    );
    response
}

/// The service worker: checked on every visit (as browsers do at most a day apart
/// anyway), so that a new release replaces it.
async fn service_worker(headers: HeaderMap) -> Response {
    SITE.service_worker.answer(&headers, "no-cache")
}

async fn manifest(headers: HeaderMap) -> Response {
    SITE.manifest.answer(&headers, "no-cache")
}

async fn favicon(headers: HeaderMap) -> Response {
    asset(Path((SITE.version.clone(), "icon.svg".to_owned())), headers).await
}

/// An asset under `/assets/{version}/`: kept for a year when it is this release's.
async fn asset(Path((version, file)): Path<(String, String)>, headers: HeaderMap) -> Response {
    let cache = if version == SITE.version {
        "public, max-age=31536000, immutable"
    } else {
        // A page of another release (a node of the cluster not yet upgraded, say).
        "max-age=300"
    };
    let found = ASSETS.iter().position(|(name, _, _)| *name == file);
    match found.and_then(|index| SITE.assets[index].as_ref().map(OnDemand::get)) {
        Some(prepared) => prepared.answer(&headers, cache),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// An asset under `/assets/`, as pages of earlier releases load them: kept for minutes.
async fn unversioned_asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    asset(Path((String::new(), file)), headers).await
}

/// The moderators' page (all its views: the queue, a player's record, the log), to
/// whoever the caller checked may see it.
pub(super) async fn moderation_page(headers: HeaderMap) -> Response {
    let index = PAGES
        .iter()
        .position(|(path, _, _)| *path == MODERATION_PAGE)
        .expect("the moderators' page is one of the pages");
    page(index, headers).await
}

/// Any path no route has: the site's own page saying so, in the reader's language,
/// answered `404` (an API path gets the API's `not-found` instead).
pub(super) async fn not_found(uri: axum::http::Uri, headers: HeaderMap) -> Response {
    if uri.path().starts_with("/api/") {
        return ApiError::from(ErrorCode::NotFound).into_response();
    }
    let mut page = in_language(&SITE.not_found, &headers);
    *page.status_mut() = StatusCode::NOT_FOUND;
    page
}

/// The game page of room `id`; for a room the store does not know, the same page saying
/// so from the start, answered `404` with a title of its own, so that a wrong link does
/// not look like a game that never loads.
async fn room_page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    match state.rooms.summary(&id).await {
        Err(ErrorCode::NoSuchRoom) => {
            let mut page = in_language(&SITE.no_room, &headers);
            *page.status_mut() = StatusCode::NOT_FOUND;
            page
        }
        // Known, or unknown for now (the database did not answer): the page tells.
        _ => {
            let index = PAGES
                .iter()
                .position(|(path, _, _)| *path == ROOM_PAGE)
                .expect("the game page is one of the pages");
            page(index, headers).await
        }
    }
}

#[cfg(test)]
mod tests;
