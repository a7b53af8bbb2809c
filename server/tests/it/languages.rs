//! The languages people read: the pages in the language the browser asks for or the
//! switch chose (a cookie), an account's language kept across sessions, refusals told
//! in it over HTTP and the WebSocket, and mail written in it.

use futures_util::{SinkExt, StreamExt};
use punct_protocol::{ErrorCode, ServerMessage};
use punct_server::Config;
use punct_testing::smtp::{Behaviour, Sink};
use punct_testing::{Database, Endpoint, TestServer, api_error};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::correspondence::exactly;

const PASSWORD: &str = "a fine password";

/// An answer: its status, headers and body.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Answer {
    /// The values of the `Set-Cookie` headers.
    fn cookies(&self) -> Vec<&str> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect()
    }
}

/// Sends `method path` with `headers` and `body`, as a browser without cookies would.
async fn send(
    server: &Endpoint,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .request(method, format!("http://{}{path}", server.addr))
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.text().await.unwrap(),
    }
}

/// `GET path` from a browser that sends `headers`: the status and the page.
async fn page(server: &Endpoint, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let answer = send(server, "GET", path, headers, "").await;
    (answer.status, answer.body)
}

#[tokio::test]
async fn a_page_is_written_in_the_language_the_browser_prefers() {
    let server = TestServer::start().await;
    let german = [("accept-language", "de-DE,de;q=0.9,en;q=0.8")];
    let answer = send(&server, "GET", "/", &german, "").await;
    assert_eq!(answer.status, 200);
    assert!(
        answer.body.contains(r#"<html lang="de">"#),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("<title>PÜNCT — Lobby</title>"));
    assert!(answer.body.contains(">Neue Partie</h2>"));
    assert!(answer.body.contains(">Raum eröffnen</button>"));
    assert!(!answer.body.contains("New game"));
    // The scripts get the language's words too, for what they write.
    assert!(
        answer
            .body
            .contains(r#""room.you-play.white":"Du spielst Weiß""#)
    );
    let vary = answer.headers.get("vary").unwrap().to_str().unwrap();
    assert!(
        vary.contains("accept-language") && vary.contains("cookie"),
        "{vary}"
    );

    // The weights decide among ours; a language we lack is passed over.
    let (_, french) = page(
        &server,
        "/leaderboard",
        &[("accept-language", "sv, fr;q=0.7, de;q=0.3")],
    )
    .await;
    assert!(french.contains(r#"<html lang="fr">"#));
    assert!(french.contains(">Parties classées</th>"));
    let (_, dutch) = page(&server, "/how-to-play", &[("accept-language", "nl-BE")]).await;
    assert!(dutch.contains(r#"<html lang="nl">"#));
    assert!(dutch.contains(">Het doel</h2>"));
    assert!(dutch.contains("<b>twee tegenover elkaar liggende zijden</b>"));
    let (_, english) = page(&server, "/", &[("accept-language", "sv, fi;q=0.5")]).await;
    assert!(english.contains(r#"<html lang="en">"#));
    assert!(english.contains(">New game</h2>"));

    // The game page of a room that does not exist says so in the language too.
    let (status, missing) = page(&server, "/room/nothing-here", &[("accept-language", "fr")]).await;
    assert_eq!(status, 404);
    assert!(
        missing.contains("<title>PÜNCT — salle inexistante</title>"),
        "{missing}"
    );
    assert!(missing.contains(">Salle inexistante</h2>"));
}

#[tokio::test]
async fn the_switch_keeps_its_choice_in_a_cookie_that_wins_over_the_browser() {
    let server = TestServer::start().await;
    let chosen = send(&server, "PUT", "/api/language", &[], r#"{"language":"fr"}"#).await;
    assert_eq!(chosen.status, 204);
    let cookie = chosen.cookies()[0].to_owned();
    assert!(cookie.starts_with("punct_lang=fr;"), "{cookie}");
    assert!(
        cookie.contains("Path=/") && cookie.contains("Max-Age="),
        "{cookie}"
    );

    let (_, french) = page(
        &server,
        "/games",
        &[("accept-language", "de"), ("cookie", "punct_lang=fr")],
    )
    .await;
    assert!(french.contains(r#"<html lang="fr">"#));
    assert!(french.contains(">Aucune partie terminée.</p>"));

    for refused in [r#"{"language":"sv"}"#, r#"{"language":"de-AT"}"#, "{}"] {
        let answer = send(&server, "PUT", "/api/language", &[], refused).await;
        assert_eq!(answer.status, 400, "{refused}");
        assert_eq!(api_error(&answer.body), ErrorCode::BadRequest);
    }
}

/// Each language of the rulebooks, with the lobby's heading for a new game in it.
const EVERY_LANGUAGE: [(&str, &str); 9] = [
    ("en", "New game"),
    ("de", "Neue Partie"),
    ("fr", "Nouvelle partie"),
    ("it", "Nuova partita"),
    ("nl", "Nieuwe partij"),
    ("es", "Nueva partida"),
    ("pl", "Nowa partia"),
    ("ru", "Новая партия"),
    ("cs", "Nová partie"),
];

#[tokio::test]
async fn every_language_of_the_rulebooks_is_served_and_can_be_chosen() {
    let server = TestServer::start().await;
    for (code, new_game) in EVERY_LANGUAGE {
        let accept = format!("{code}-XX,{code};q=0.9,en;q=0.5");
        let (status, lobby) = page(&server, "/", &[("accept-language", &accept)]).await;
        assert_eq!(status, 200);
        assert!(
            lobby.contains(&format!(r#"<html lang="{code}">"#)),
            "{code}"
        );
        assert!(
            lobby.contains(&format!(">{new_game}</h2>")),
            "{code}: {new_game}"
        );

        let body = format!(r#"{{"language":"{code}"}}"#);
        let chosen = send(&server, "PUT", "/api/language", &[], &body).await;
        assert_eq!(chosen.status, 204, "{code}");
        assert!(
            chosen.cookies()[0].starts_with(&format!("punct_lang={code};")),
            "{code}"
        );

        // A refusal over HTTP (a room nobody made) says the code's message in it.
        let cookie = format!("punct_lang={code}");
        let missing = send(
            &server,
            "GET",
            "/api/rooms/nothing-here",
            &[("cookie", &cookie)],
            "",
        )
        .await;
        assert_eq!(missing.status, 404, "{code}");
        let told: punct_protocol::ApiError = serde_json::from_str(&missing.body).unwrap();
        assert_eq!(told.code, ErrorCode::NoSuchRoom);
        assert_eq!(
            told.message,
            catalogue(code)["error.no-such-room"],
            "{code}"
        );
    }
}

#[tokio::test]
async fn an_illegal_drop_is_refused_in_each_languages_words_naming_the_cell() {
    let server = TestServer::start().await;
    for (code, _) in EVERY_LANGUAGE {
        // White's first drop, into the central hexagon of a standard game.
        let table = server.table("standard").await;
        let cookie = format!("punct_lang={code}");
        let mut socket = socket_reading(&server, &cookie).await;
        let join = format!(
            r#"{{"type":"join","id":2,"room":"{}","token":"{}"}}"#,
            table.room, table.white
        );
        socket.send(Message::text(join)).await.unwrap();
        let play = r#"{"type":"play","id":3,"turn":"I9:I10,J10"}"#;
        socket.send(Message::text(play)).await.unwrap();
        let ServerMessage::Error {
            id,
            code: error,
            rule,
            args,
            message,
        } = refusal(&mut socket).await
        else {
            unreachable!()
        };
        assert_eq!((id, error), (Some(3), ErrorCode::IllegalTurn), "{code}");
        assert_eq!(rule.as_deref(), Some("drop-in-centre"), "{code}");
        let cell = args.unwrap_or_default().get("cell").cloned();
        assert_eq!(cell.as_deref(), Some("I9"), "{code}");
        let words = match code {
            // English keeps the rules' own sentence.
            "en" => {
                "drop touches the central hexagon at I9: new pieces may not be placed there".into()
            }
            _ => catalogue(code)["illegal.drop-in-centre"]
                .as_str()
                .unwrap()
                .replace("{cell}", "I9"),
        };
        assert_eq!(message, words, "{code}");
    }
}

/// A WebSocket of a browser that sends `cookie`, past its hello.
async fn socket_reading(
    server: &Endpoint,
    cookie: &str,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("cookie", HeaderValue::from_str(cookie).unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    socket
        .send(Message::text(r#"{"type":"hello","id":1,"version":1}"#))
        .await
        .unwrap();
    socket
}

/// The next `error` message `socket` reads, passing over the others.
async fn refusal(
    socket: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> ServerMessage {
    loop {
        if let Some(Ok(Message::Text(text))) = socket.next().await {
            let message: ServerMessage = serde_json::from_str(&text).unwrap();
            if matches!(message, ServerMessage::Error { .. }) {
                return message;
            }
        }
    }
}

/// The catalogue of the language `code`, as the server has it.
fn catalogue(code: &str) -> serde_json::Value {
    let path = format!("{}/web/i18n/{code}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn an_account_keeps_its_language_for_every_session_to_come() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    // Registered from a Dutch browser: the account reads Dutch.
    let body = format!(r#"{{"username":"anna","password":"{PASSWORD}"}}"#);
    let registered = send(
        &server,
        "POST",
        "/api/accounts",
        &[("accept-language", "nl")],
        &body,
    )
    .await;
    assert_eq!(registered.status, 201, "{}", registered.body);
    assert!(
        registered
            .cookies()
            .iter()
            .any(|c| c.starts_with("punct_lang=nl;"))
    );
    let token: punct_protocol::Session = serde_json::from_str(&registered.body).unwrap();
    let bearer = format!("Bearer {}", token.token);

    // The switch, signed in, changes the account's language too.
    let chosen = send(
        &server,
        "PUT",
        "/api/language",
        &[("authorization", &bearer)],
        r#"{"language":"de"}"#,
    )
    .await;
    assert_eq!(chosen.status, 204);
    let stored = database.query("SELECT language FROM accounts").await;
    assert_eq!(stored[0][0].as_deref(), Some("de"));

    // Signing in later from a French browser with no cookie brings German back.
    let signed_in = send(
        &server,
        "POST",
        "/api/session",
        &[("accept-language", "fr")],
        &body,
    )
    .await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
    assert!(
        signed_in
            .cookies()
            .iter()
            .any(|c| c.starts_with("punct_lang=de;")),
        "{:?}",
        signed_in.cookies()
    );
}

#[tokio::test]
async fn refusals_are_told_in_the_readers_language_with_the_same_code() {
    let server = TestServer::start().await;
    let body = format!(r#"{{"username":"nobody","password":"{PASSWORD}"}}"#);
    let french = send(
        &server,
        "POST",
        "/api/session",
        &[("accept-language", "fr")],
        &body,
    )
    .await;
    assert_eq!(french.status, 401);
    let told: punct_protocol::ApiError = serde_json::from_str(&french.body).unwrap();
    assert_eq!(told.code, ErrorCode::BadCredentials);
    assert_eq!(
        told.message,
        "ce nom d’utilisateur et ce mot de passe ne correspondent à aucun compte"
    );
    // English keeps its more particular message.
    let english = send(
        &server,
        "POST",
        "/api/session",
        &[("accept-language", "en")],
        &body,
    )
    .await;
    let told: punct_protocol::ApiError = serde_json::from_str(&english.body).unwrap();
    assert_eq!(told.message, "no account has this username and password");

    // The WebSocket speaks the language of the request that opened it.
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("cookie", HeaderValue::from_static("punct_lang=fr"));
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    socket
        .send(Message::text(r#"{"type":"hello","id":1,"version":1}"#))
        .await
        .unwrap();
    socket
        .send(Message::text(
            r#"{"type":"watch","id":2,"room":"nothing-here"}"#,
        ))
        .await
        .unwrap();
    let refusal = loop {
        if let Some(Ok(Message::Text(text))) = socket.next().await {
            let message: ServerMessage = serde_json::from_str(&text).unwrap();
            if matches!(message, ServerMessage::Error { .. }) {
                break message;
            }
        }
    };
    let ServerMessage::Error { code, message, .. } = refusal else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::NoSuchRoom);
    assert_eq!(message, "aucune salle n’a cet identifiant");
}

#[tokio::test]
async fn mail_is_written_in_the_accounts_language() {
    let sink = Sink::start(Behaviour::Accept);
    let server = TestServer::with(Config {
        smtp_url: Some(sink.url()),
        public_url: Some("http://punct.test".into()),
        ..Config::default()
    })
    .await;
    let body = format!(r#"{{"username":"bert","password":"{PASSWORD}"}}"#);
    let registered = send(
        &server,
        "POST",
        "/api/accounts",
        &[("accept-language", "nl-NL")],
        &body,
    )
    .await;
    assert_eq!(registered.status, 201);
    let token: punct_protocol::Session = serde_json::from_str(&registered.body).unwrap();
    let bert = server.signed_in(&token.token);
    // Whatever the language of the request that asks for the mail.
    let (status, _) = bert
        .http("POST", "/api/me/email", r#"{"email":"bert@example.org"}"#)
        .await;
    assert_eq!(status, 202);
    let mail = exactly(&sink, 1).await;
    assert_eq!(mail[0].header("Subject"), Some("Bevestig je mailadres"));
    let text = mail[0].body();
    assert!(
        text.starts_with("bert, volg binnen een uur deze link om te bevestigen"),
        "{text}"
    );
    assert!(
        text.contains("http://punct.test/account?confirm="),
        "{text}"
    );
    assert!(
        text.contains("negeer deze mail dan: er verandert niets."),
        "{text}"
    );
}

#[tokio::test]
async fn the_pages_of_the_unsubscribe_link_speak_the_browsers_language() {
    let server = TestServer::start().await;
    let (status, page) = page(
        &server,
        "/unsubscribe?token=0123",
        &[("accept-language", "de")],
    )
    .await;
    assert_eq!(status, 404);
    assert!(page.contains("<html lang=de>"), "{page}");
    assert!(page.contains("<p>Dieser Link ist nicht bekannt."), "{page}");
    let answer = send(
        &server,
        "POST",
        "/unsubscribe?token=0123",
        &[("cookie", "punct_lang=nl")],
        "",
    )
    .await;
    assert_eq!(answer.status, 404);
    assert!(
        answer.body.contains("<p>Deze link is niet bekend."),
        "{}",
        answer.body
    );
}
