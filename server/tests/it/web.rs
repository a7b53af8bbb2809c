//! The browser client's pages and assets, and the positions it asks for. (The pages
//! themselves are exercised in Chromium by `server/tests/browser/web_test.py`.)

use std::io::Read;

use flate2::read::GzDecoder;
use punct_protocol::{ErrorCode, StackView};
use punct_testing::TestServer;
use serde::Deserialize;

/// The parts of `GET /api/rooms/{id}/position/{after}` these tests read.
#[derive(Deserialize)]
struct Position {
    after: usize,
    to_move: String,
    board: Vec<StackView>,
}

#[tokio::test]
async fn the_pages_and_their_assets_are_served_from_the_binary() {
    let server = TestServer::start().await;
    let (status, lobby) = server.http("GET", "/", "").await;
    assert_eq!(status, 200);
    let version = version_of(&lobby);
    assert!(
        lobby.contains(&format!(r#"src="/assets/{version}/lobby.js""#)),
        "{lobby}"
    );
    let room = format!("/room/{}", server.create_room("").await.room);
    for page in [
        room.as_str(),
        "/analysis",
        "/games",
        "/leaderboard",
        "/mine",
        "/account",
        "/tournaments",
        // A tournament's page says itself when there is no such tournament.
        "/tournament/no-such-id",
    ] {
        let (status, html) = server.http("GET", page, "").await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(
            version_of(&html),
            version,
            "{page} loads this release's assets"
        );
    }
    for asset in [
        "style.css",
        "theme.js",
        "lobby.js",
        "room.js",
        "board.js",
        "api.js",
        "engine.js",
        "account-page.js",
        "tournaments.js",
        "tournament.js",
    ] {
        // Under the release's version, and where pages of earlier releases look.
        for path in [
            format!("/assets/{version}/{asset}"),
            format!("/assets/{asset}"),
        ] {
            let (status, body) = server.http("GET", &path, "").await;
            assert_eq!(status, 200, "{path}");
            assert!(!body.is_empty(), "{path}");
        }
    }
    assert_eq!(server.http("GET", "/assets/secret.rs", "").await.0, 404);
    assert_eq!(
        server
            .http("GET", &format!("/assets/{version}/secret.rs"), "")
            .await
            .0,
        404
    );
}

/// The version in the asset paths of a page.
fn version_of(html: &str) -> String {
    let after = html
        .split("\"/assets/")
        .nth(1)
        .expect("the page loads assets");
    let version = after.split('/').next().unwrap();
    assert!(
        version.len() == 12 && version.bytes().all(|b| b.is_ascii_hexdigit()),
        "{version}"
    );
    version.to_owned()
}

#[tokio::test]
async fn a_room_that_does_not_exist_has_a_page_that_says_so() {
    let server = TestServer::start().await;
    let (status, html) = server.http("GET", "/room/0123abcd", "").await;
    assert_eq!(status, 404);
    assert!(
        html.contains("<title>PÜNCT — no such room</title>"),
        "{html}"
    );
    assert!(html.contains(r#"href="/""#), "it leads back to the lobby");
    // A room cancelled by its creator is gone the same way.
    let granted = server.create_room("").await;
    let body = format!(r#"{{"token":"{}"}}"#, granted.token);
    let (cancelled, _) = server
        .http(
            "POST",
            &format!("/api/rooms/{}/cancel", granted.room),
            &body,
        )
        .await;
    assert_eq!(cancelled, 204);
    let (status, _) = server
        .http("GET", &format!("/room/{}", granted.room), "")
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn an_unknown_path_gets_the_site_s_own_page_in_the_reader_s_language() {
    let server = TestServer::start().await;
    let (status, html) = server.http("GET", "/no/such/page", "").await;
    assert_eq!(status, 404);
    assert!(
        html.contains("<title>PÜNCT — page not found</title>"),
        "{html}"
    );
    assert!(
        html.contains(r#"<nav class="site-nav""#) && html.contains(r#"<li><a href="/">"#),
        "the site's navigation: {html}"
    );
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let german = http
        .get(format!("http://{}/nirgendwo", server.addr))
        .header("accept-language", "de-AT,de;q=0.9")
        .send()
        .await
        .unwrap();
    assert_eq!(german.status(), 404);
    let html = german.text().await.unwrap();
    assert!(html.contains(r#"<html lang="de">"#), "{html}");
    assert!(html.contains("Hier ist keine Seite"), "{html}");
    // An unknown path of the API answers as the API does.
    let (status, body) = server.http("GET", "/api/no-such-thing", "").await;
    assert_eq!(status, 404);
    assert_eq!(punct_testing::api_error(&body), ErrorCode::NotFound);
}

#[tokio::test]
async fn assets_are_kept_a_year_under_their_version_and_sent_gzipped_when_asked() {
    let server = TestServer::start().await;
    let (_, lobby) = server.http("GET", "/", "").await;
    let version = version_of(&lobby);
    let client = reqwest::Client::new();
    let get = |path: String, gzip: bool| {
        let request = client.get(format!("http://{}{path}", server.addr));
        let request = if gzip {
            request.header("accept-encoding", "gzip, deflate, br")
        } else {
            request
        };
        request.send()
    };

    let plain = get(format!("/assets/{version}/room.js"), false)
        .await
        .unwrap();
    assert_eq!(
        plain.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(
        plain.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.bytes().await.unwrap();

    let zipped = get(format!("/assets/{version}/room.js"), true)
        .await
        .unwrap();
    assert_eq!(zipped.headers()["content-encoding"], "gzip");
    assert_eq!(zipped.headers()["vary"], "accept-encoding");
    let zipped = zipped.bytes().await.unwrap();
    assert!(
        zipped.len() * 2 < plain.len(),
        "{} of {}",
        zipped.len(),
        plain.len()
    );
    let mut unzipped = Vec::new();
    GzDecoder::new(&zipped[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain);

    // Another release's path, or none, is kept only minutes; the pages are checked on
    // every visit, so that a new release's assets are loaded at once.
    let old = get("/assets/0123456789ab/room.js".to_owned(), true)
        .await
        .unwrap();
    assert_eq!(old.headers()["cache-control"], "max-age=300");
    let bare = get("/assets/room.js".to_owned(), false).await.unwrap();
    assert_eq!(bare.headers()["cache-control"], "max-age=300");
    let room = server.create_room("").await.room;
    let page = get(format!("/room/{room}"), true).await.unwrap();
    assert_eq!(page.headers()["cache-control"], "no-cache");
    assert_eq!(page.headers()["content-encoding"], "gzip");
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");

    // The rules engine, for the page to run.
    let wasm = get(format!("/assets/{version}/rules.wasm"), false)
        .await
        .unwrap();
    assert_eq!(wasm.headers()["content-type"], "application/wasm");
    assert!(wasm.bytes().await.unwrap().starts_with(b"\0asm"));

    let icon = get("/favicon.ico".to_owned(), false).await.unwrap();
    assert_eq!(icon.status(), 200);
    assert_eq!(icon.headers()["content-type"], "image/svg+xml");
}

#[tokio::test]
async fn a_position_is_the_record_replayed_by_the_rules() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut white = server.player(&table.room, &table.white).await;
    let mut black = server.player(&table.room, &table.black).await;
    white.play("C4:C5,D5").await.unwrap();
    black.play("J14:J15,K15").await.unwrap();
    white.play("C4-C6:C7,D7").await.unwrap();

    let path = |after: usize| format!("/api/rooms/{}/position/{after}", table.room);
    let start: Position = server.get(&path(0)).await;
    assert_eq!((start.after, start.to_move.as_str()), (0, "white"));
    assert!(start.board.is_empty());

    let after_two: Position = server.get(&path(2)).await;
    let cells: Vec<String> = after_two.board.iter().map(|s| s.cell.to_string()).collect();
    assert_eq!(cells, ["C4", "C5", "D5", "J14", "J15", "K15"]);
    assert_eq!(after_two.to_move, "white");

    let now: Position = server.get(&path(3)).await;
    let cells: Vec<String> = now.board.iter().map(|s| s.cell.to_string()).collect();
    assert_eq!(cells, ["C6", "C7", "D7", "J14", "J15", "K15"]);

    let (status, body) = server.http("GET", &path(4), "").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("bad-request"), "{body}");
    let (status, body) = server
        .http("GET", "/api/rooms/nosuchroom/position/0", "")
        .await;
    assert_eq!((status, body.contains("no-such-room")), (404, true));
}
