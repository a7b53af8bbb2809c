//! Accounts and sessions through the real server: registering, signing in and out,
//! session expiry, cross-site refusal, the sign-in rate limits, names, and seats that
//! belong to an account.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use punct_protocol::{ErrorCode, Lobby, Role, RoomSummary, ServerMessage};
use punct_server::Config;
use punct_testing::{Database, Endpoint, TestServer, api_error};
use reqwest::header::{HeaderMap, HeaderValue};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const PASSWORD: &str = "a fine password";

/// A plain HTTP client, for what the test client does not show: headers and cookies.
fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

fn url(server: &Endpoint, path: &str) -> String {
    format!("http://{}{path}", server.addr)
}

/// Sends `method path` with `headers` and `body`; answers the status, the headers and
/// the body.
async fn send(
    server: &Endpoint,
    method: reqwest::Method,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, HeaderMap, String) {
    let mut request = http()
        .request(method, url(server, path))
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// Presents `username` and `password` at `path` (registering or signing in) with
/// `headers`; answers as [`send`] does.
async fn present(
    server: &Endpoint,
    path: &str,
    headers: &[(&str, &str)],
    username: &str,
    password: &str,
) -> (u16, HeaderMap, String) {
    let body = format!(r#"{{"username":"{username}","password":"{password}"}}"#);
    send(server, reqwest::Method::POST, path, headers, &body).await
}

/// The session cookie a response sets, as `name=value`.
fn cookie(headers: &HeaderMap) -> String {
    let set = headers
        .get("set-cookie")
        .expect("a session cookie")
        .to_str()
        .unwrap();
    set.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn an_account_keeps_only_an_argon2id_hash_and_its_session_is_a_safe_cookie() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    let endpoint: &Endpoint = &server;
    let (status, headers, body) =
        present(endpoint, "/api/accounts", &[], "Kris_Burm", PASSWORD).await;
    assert_eq!(status, 201, "{body}");
    let session: punct_protocol::Session = serde_json::from_str(&body).unwrap();
    assert_eq!(session.username, "Kris_Burm");
    assert_eq!(session.token.len(), 32);
    let set = headers.get("set-cookie").unwrap().to_str().unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Secure", "Path=/", "Max-Age="] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    assert_eq!(cookie(&headers), format!("punct_session={}", session.token));

    let stored = database.query("SELECT password FROM accounts").await;
    let hash = stored[0][0].clone().unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    assert!(!hash.contains(PASSWORD));
    // Nor is the session's secret stored, only its hash.
    let tokens = database.query("SELECT token FROM sessions").await;
    assert_eq!(tokens.len(), 1);
    assert_ne!(tokens[0][0].as_deref(), Some(session.token.as_str()));

    // Look-alikes of a username are the same account.
    for taken in ["kris_burm", "KrisBurm", "kris-burm"] {
        let (status, _, body) = present(endpoint, "/api/accounts", &[], taken, PASSWORD).await;
        assert_eq!((status, api_error(&body)), (409, ErrorCode::UsernameTaken));
    }
    for (username, password, refused) in [
        ("kb", PASSWORD, ErrorCode::BadUsername),
        ("<script>", PASSWORD, ErrorCode::BadUsername),
        ("anna", "short", ErrorCode::BadPassword),
    ] {
        let (status, _, body) = present(endpoint, "/api/accounts", &[], username, password).await;
        assert_eq!((status, api_error(&body)), (400, refused));
    }
    assert_eq!(database.query("SELECT id FROM accounts").await.len(), 1);
}

#[tokio::test]
async fn names_that_pass_for_others_are_refused() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    let endpoint: &Endpoint = &server;
    let register = |username: &'static str| async move {
        let (status, _, body) = present(endpoint, "/api/accounts", &[], username, PASSWORD).await;
        (status, body)
    };
    assert_eq!(register("bob").await.0, 201);
    // A digit for a letter (registering counts against the address's sign-in limit of
    // ten a minute, so each refusal here is one such attempt).
    for taken in ["b0b", "B0B", "bo8"] {
        let (status, body) = register(taken).await;
        assert_eq!(
            (status, api_error(&body)),
            (409, ErrorCode::UsernameTaken),
            "{taken}"
        );
    }
    // Small capitals and Cyrillic soft signs are no username's letters at all, and no
    // name may pass for an account's either.
    for lookalike in ["\u{299}o\u{299}", "\u{44c}\u{43e}\u{44c}"] {
        let (status, body) = register(lookalike).await;
        assert_eq!(
            (status, api_error(&body)),
            (400, ErrorCode::BadUsername),
            "{lookalike}"
        );
    }
    for lookalike in ["\u{299}o\u{299}", "\u{44c}\u{43e}\u{44c}", "b0b", "B 0 B"] {
        let (status, body) = endpoint
            .http(
                "POST",
                "/api/rooms",
                &format!(r#"{{"name":"{lookalike}"}}"#),
            )
            .await;
        assert_eq!(
            (status, api_error(&body)),
            (400, ErrorCode::BadName),
            "{lookalike:?}"
        );
    }
    // Names that only differ, and digits that stand for no one letter, are their own.
    for distinct in ["rob", "bobby", "anna2"] {
        let (status, body) = register(distinct).await;
        assert_eq!(status, 201, "{distinct}: {body}");
    }
    for distinct in ["Rosa", "bobo", "\u{431}o\u{431}"] {
        let (status, body) = endpoint
            .http("POST", "/api/rooms", &format!(r#"{{"name":"{distinct}"}}"#))
            .await;
        assert_eq!(status, 201, "{distinct:?}: {body}");
    }
    assert_eq!(database.query("SELECT id FROM accounts").await.len(), 4);
}

/// `GET /api/session` signed in by `cookie`, then by `bearer`: each status and body.
async fn who_am_i(server: &Endpoint, cookie: &str, bearer: &str) -> [(u16, String); 2] {
    let mut answers = Vec::new();
    for header in [("cookie", cookie), ("authorization", bearer)] {
        let (status, _, body) =
            send(server, reqwest::Method::GET, "/api/session", &[header], "").await;
        answers.push((status, body));
    }
    answers.try_into().unwrap()
}

#[tokio::test]
async fn signing_in_and_out() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    endpoint.register("anna", PASSWORD).await;
    // A wrong password and a username nobody has fail alike.
    for (username, password) in [("anna", "not her password"), ("nobody", PASSWORD)] {
        let (status, _, body) = present(endpoint, "/api/session", &[], username, password).await;
        assert_eq!((status, api_error(&body)), (401, ErrorCode::BadCredentials));
        assert!(body.contains("no account has this username and password"));
    }
    let (status, headers, body) = present(endpoint, "/api/session", &[], "ANNA", PASSWORD).await;
    assert_eq!(status, 200, "{body}");
    let session: punct_protocol::Session = serde_json::from_str(&body).unwrap();
    assert_eq!(session.username, "anna", "the account's own spelling");
    let by_cookie = cookie(&headers);
    let bearer = format!("Bearer {}", session.token);
    for (status, body) in who_am_i(endpoint, &by_cookie, &bearer).await {
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""username":"anna""#), "{body}");
    }

    let (status, headers, _) = send(
        endpoint,
        reqwest::Method::DELETE,
        "/api/session",
        &[("authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(status, 204);
    assert!(
        headers["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0"),
        "the cookie is cleared"
    );
    // Signed out: the session no longer works, by cookie or bearer, over HTTP or on a
    // WebSocket.
    for (status, body) in who_am_i(endpoint, &by_cookie, &bearer).await {
        assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));
    }
    let signed_out = endpoint.signed_in(&session.token);
    let (status, body) = signed_out.http("POST", "/api/rooms", "").await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));
    // Reading as the player is refused too, not served as anonymous: the lobby, a room,
    // and the WebSocket upgrade.
    let room = endpoint.create_room("").await.room;
    for path in ["/api/rooms".to_owned(), format!("/api/rooms/{room}")] {
        let (status, body) = signed_out.http("GET", &path, "").await;
        assert_eq!(
            (status, api_error(&body)),
            (401, ErrorCode::SignInRequired),
            "{path}"
        );
    }
    assert_eq!(signed_out.upgrade_status(None).await, 401);
    // By the cookie, the same answer clears the cookie: the page's next request is
    // anonymous, and served.
    let (status, headers, body) = send(
        endpoint,
        reqwest::Method::GET,
        "/api/rooms",
        &[("cookie", &by_cookie)],
        "",
    )
    .await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));
    let cleared = headers["set-cookie"].to_str().unwrap();
    assert!(
        cleared.starts_with("punct_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    assert_eq!(endpoint.http("GET", "/api/rooms", "").await.0, 200);
    // The pages themselves are served whatever the cookie.
    let (status, ..) = send(
        endpoint,
        reqwest::Method::GET,
        "/",
        &[("cookie", &by_cookie)],
        "",
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_session_expires() {
    let server = TestServer::with(Config {
        session_lifetime: Duration::from_secs(1),
        ..Config::default()
    })
    .await;
    let endpoint: &Endpoint = &server;
    let token = endpoint.register("anna", PASSWORD).await;
    let signed_in = endpoint.signed_in(&token);
    assert_eq!(signed_in.http("GET", "/api/session", "").await.0, 200);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, body) = signed_in.http("GET", "/api/session", "").await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));
}

#[tokio::test]
async fn another_site_cannot_act_with_the_session_cookie() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    let (_, headers, body) = present(endpoint, "/api/accounts", &[], "anna", PASSWORD).await;
    let session: punct_protocol::Session = serde_json::from_str(&body).unwrap();
    let anna = cookie(&headers);
    let own = format!("http://{}", endpoint.addr);
    let evil = "http://evil.example";
    for from in [
        vec![("origin", evil)],
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site"), ("origin", own.as_str())],
    ] {
        let mut headers = from.clone();
        headers.push(("cookie", &anna));
        let (status, _, body) =
            send(endpoint, reqwest::Method::POST, "/api/rooms", &headers, "").await;
        assert_eq!(
            (status, api_error(&body)),
            (403, ErrorCode::CrossSite),
            "{from:?}"
        );
        let (status, _, body) = send(
            endpoint,
            reqwest::Method::DELETE,
            "/api/session",
            &headers,
            "",
        )
        .await;
        assert_eq!(
            (status, api_error(&body)),
            (403, ErrorCode::CrossSite),
            "{from:?}"
        );
        // Nor may another site sign a visitor in to an account of its choosing.
        let (status, _, body) = present(endpoint, "/api/session", &from, "anna", PASSWORD).await;
        assert_eq!(
            (status, api_error(&body)),
            (403, ErrorCode::CrossSite),
            "{from:?}"
        );
    }
    assert_eq!(
        endpoint.get::<Lobby>("/api/rooms").await.rooms,
        [],
        "nothing was created"
    );
    // From the server's own page, the cookie acts for the player.
    for from in [("origin", own.as_str()), ("sec-fetch-site", "same-origin")] {
        let (status, _, body) = send(
            endpoint,
            reqwest::Method::POST,
            "/api/rooms",
            &[from, ("cookie", &anna)],
            "",
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let granted: punct_protocol::SeatGranted = serde_json::from_str(&body).unwrap();
        let summary = endpoint.summary(&granted.room).await;
        let seat = summary.players.get(granted.color);
        assert_eq!(seat.player.account.as_deref(), Some("anna"));
    }
    // A bearer token is never sent by a browser on its own: no origin check.
    let bearer = format!("Bearer {}", session.token);
    let (status, _, body) = send(
        endpoint,
        reqwest::Method::POST,
        "/api/rooms",
        &[("origin", evil), ("authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // A WebSocket opened by another site's page with the cookie is not signed in.
    let granted = endpoint.signed_in(&session.token).create_room("").await;
    let mut request = format!("ws://{}/ws", endpoint.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("origin", HeaderValue::from_static(evil));
    request
        .headers_mut()
        .insert("cookie", HeaderValue::from_str(&anna).unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    socket
        .send(Message::text(r#"{"type":"hello","id":1,"version":1}"#))
        .await
        .unwrap();
    let join = format!(r#"{{"type":"join","id":2,"room":"{}"}}"#, granted.room);
    socket.send(Message::text(join)).await.unwrap();
    let mut replies = Vec::new();
    while replies.len() < 2 {
        if let Some(Ok(Message::Text(text))) = socket.next().await {
            replies.push(serde_json::from_str::<ServerMessage>(&text).unwrap());
        }
    }
    assert!(
        matches!(
            replies[1],
            ServerMessage::Error {
                code: ErrorCode::SignInRequired,
                ..
            }
        ),
        "{replies:?}"
    );
}

/// Tries to sign in to `username` with a wrong password; answers the status.
async fn wrong_sign_in(server: &Endpoint, username: &str) -> u16 {
    present(server, "/api/session", &[], username, "not the password")
        .await
        .0
}

#[tokio::test]
async fn sign_ins_are_limited_per_account_and_per_address() {
    let server = TestServer::with(Config {
        sign_ins_per_account: 3,
        sign_ins_per_minute: 0,
        ..Config::default()
    })
    .await;
    let endpoint: &Endpoint = &server;
    endpoint.register("anna", PASSWORD).await;
    for _ in 0..3 {
        assert_eq!(wrong_sign_in(endpoint, "anna").await, 401);
    }
    // Even the right password waits now: the guesser must not learn it was right.
    let (status, _, body) = present(endpoint, "/api/session", &[], "Anna", PASSWORD).await;
    assert_eq!((status, api_error(&body)), (429, ErrorCode::RateLimited));
    assert_eq!(wrong_sign_in(endpoint, "bert").await, 401, "per account");

    let server = TestServer::with(Config {
        sign_ins_per_account: 0,
        sign_ins_per_minute: 3,
        ..Config::default()
    })
    .await;
    let endpoint: &Endpoint = &server;
    for username in ["u1", "u2", "u3"] {
        assert_eq!(wrong_sign_in(endpoint, username).await, 401);
    }
    assert_eq!(wrong_sign_in(endpoint, "u4").await, 429, "per address");
}

#[tokio::test]
async fn a_failed_sign_in_takes_as_long_whether_or_not_the_account_exists() {
    let server = TestServer::with(Config {
        sign_ins_per_account: 0,
        sign_ins_per_minute: 0,
        ..Config::default()
    })
    .await;
    let endpoint: &Endpoint = &server;
    endpoint.register("anna", PASSWORD).await;
    // Interleaved, so that whatever else the machine does weighs on both alike.
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        for (username, times) in [("anna", &mut known), ("nobody", &mut unknown)] {
            let started = Instant::now();
            assert_eq!(wrong_sign_in(endpoint, username).await, 401);
            times.push(started.elapsed());
        }
    }
    known.sort();
    unknown.sort();
    let (known, unknown) = (known[3].as_secs_f64(), unknown[3].as_secs_f64());
    // Without the dummy hash an unknown username fails a hundred times faster (a
    // lookup against an Argon2 verification). The bounds are wide: a busy machine (a
    // build beside the tests) has been seen to slow either side more than twice.
    assert!(
        unknown > known * 0.25 && unknown < known * 4.0,
        "median failure: {known:.4} s for an account, {unknown:.4} s for nobody"
    );
}

#[tokio::test]
async fn names_are_shown_and_checked() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    let bert = endpoint.signed_in(&endpoint.register("Bert", PASSWORD).await);
    let granted = endpoint
        .create_room(r#"{"color":"white","name":"  Anna <b>&amp;</b>  "}"#)
        .await;
    let black = bert.take_seat(&granted.room).await;
    let summary: RoomSummary = endpoint.summary(&granted.room).await;
    let (white, black_seat) = (&summary.players.white, &summary.players.black);
    assert_eq!(white.player.name.as_deref(), Some("Anna <b>&amp;</b>"));
    assert_eq!(white.player.account, None);
    assert_eq!(black_seat.player.name.as_deref(), Some("Bert"));
    assert_eq!(black_seat.player.account.as_deref(), Some("Bert"));
    let mut player = endpoint.client().await;
    let snapshot = player.join(&granted.room, &black.token).await;
    // (Listed once a player is there: the lobby leaves out games nobody is at.)
    let lobby: Lobby = endpoint.get("/api/rooms").await;
    let listed = &lobby.rooms[0].players;
    assert_eq!(listed.white.player, white.player);
    assert_eq!(listed.black.player, black_seat.player);
    assert_eq!(snapshot.players.white.player, white.player);
    assert_eq!(snapshot.players.black.player, black_seat.player);
    let record = endpoint.record(&granted.room).await;
    assert_eq!(record.white.name.as_deref(), Some("Anna <b>&amp;</b>"));
    assert_eq!(record.black.account.as_deref(), Some("Bert"));
    let (_, text) = endpoint
        .http(
            "GET",
            &format!("/api/rooms/{}/record.txt", granted.room),
            "",
        )
        .await;
    assert!(text.contains("# White: Anna <b>&amp;</b>\n"), "{text}");
    assert!(text.contains("# Black: Bert\n"), "{text}");

    let computer = endpoint.create_room(r#"{"computer":2}"#).await;
    let summary = endpoint.summary(&computer.room).await;
    let engine = summary.players.get(computer.color.opponent());
    assert_eq!(engine.player.name.as_deref(), Some("Computer (level 2)"));

    for bad in [
        "",
        "bert",
        "B E R T",
        "Computer (level 4)",
        "a\\u0000b",
        "zero\\u200bwidth",
        "abcdefghijklmnopqrstuvwxy",
    ] {
        let (status, body) = endpoint
            .http("POST", "/api/rooms", &format!(r#"{{"name":"{bad}"}}"#))
            .await;
        assert_eq!(
            (status, api_error(&body)),
            (400, ErrorCode::BadName),
            "{bad:?}"
        );
        let open = endpoint.create_room("").await;
        let (status, body) = endpoint
            .http(
                "POST",
                &format!("/api/rooms/{}/seat", open.room),
                &format!(r#"{{"name":"{bad}"}}"#),
            )
            .await;
        assert_eq!(
            (status, api_error(&body)),
            (400, ErrorCode::BadName),
            "{bad:?}"
        );
    }
}

#[tokio::test]
async fn a_signed_in_player_comes_back_from_another_device_without_the_token() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    let anna = endpoint.signed_in(&endpoint.register("anna", PASSWORD).await);
    let bert = endpoint.signed_in(&endpoint.register("bert", PASSWORD).await);
    let carl = endpoint.signed_in(&endpoint.register("carl", PASSWORD).await);
    let granted = anna.create_room(r#"{"color":"white"}"#).await;
    bert.take_seat(&granted.room).await;

    // Anna signs in on a second device: a new session, and no seat token there.
    let second = endpoint.signed_in(&endpoint.sign_in("anna", PASSWORD).await);
    let mut device = second.client().await;
    match device.join_as(&granted.room, None).await {
        ServerMessage::Snapshot { you, room, .. } => {
            assert_eq!(you, Role::White);
            assert_eq!(room.players.white.player.account.as_deref(), Some("anna"));
        }
        other => panic!("{other:?}"),
    }
    assert!(device.play("C4:C5,D5").await.is_ok(), "she plays on");
    let mut bert_here = bert.client().await;
    assert!(matches!(
        bert_here.join_as(&granted.room, None).await,
        ServerMessage::Snapshot {
            you: Role::Black,
            ..
        }
    ));
    for (endpoint, refused) in [
        (&carl, ErrorCode::NotAPlayer),
        (endpoint, ErrorCode::SignInRequired),
    ] {
        let mut other = endpoint.client().await;
        match other.join_as(&granted.room, None).await {
            ServerMessage::Error { code, .. } => assert_eq!(code, refused),
            other => panic!("{other:?}"),
        }
    }
}
