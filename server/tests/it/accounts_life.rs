//! An account's life through the real server: changing the password, the list of
//! sessions and signing out everywhere, deleting the account, downloading its data, a
//! mail address confirmed by a link, and a forgotten password reset by another.

use punct_protocol::ErrorCode;
use punct_server::Config;
use punct_testing::smtp::{Behaviour, Received, Sink};
use punct_testing::{Database, Endpoint, TestServer, api_error};

use crate::correspondence::exactly;
use crate::ratings::{self, End};

const PASSWORD: &str = "a fine password";
const NEW_PASSWORD: &str = "another fine one";

/// The status of `GET /api/session` signed in with `token`.
async fn signed_in(server: &Endpoint, token: &str) -> u16 {
    server
        .signed_in(token)
        .http("GET", "/api/session", "")
        .await
        .0
}

#[tokio::test]
async fn changing_the_password_signs_out_every_other_session() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    let first = server.register("anna", PASSWORD).await;
    let second = server.sign_in("anna", PASSWORD).await;
    let anna = server.signed_in(&first);

    // The password now is asked for, and the new one checked as at registering.
    let wrong = format!(r#"{{"password":"not hers at all","new_password":"{NEW_PASSWORD}"}}"#);
    let (status, body) = anna.http("POST", "/api/me/password", &wrong).await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::BadCredentials));
    let short = format!(r#"{{"password":"{PASSWORD}","new_password":"short"}}"#);
    let (status, body) = anna.http("POST", "/api/me/password", &short).await;
    assert_eq!((status, api_error(&body)), (400, ErrorCode::BadPassword));
    assert_eq!(
        signed_in(&server, &second).await,
        200,
        "nothing changed yet"
    );
    let anonymous = server.http("POST", "/api/me/password", &short).await;
    assert_eq!(anonymous.0, 401);

    let change = format!(r#"{{"password":"{PASSWORD}","new_password":"{NEW_PASSWORD}"}}"#);
    let (status, body) = anna.http("POST", "/api/me/password", &change).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(signed_in(&server, &first).await, 200, "this session stays");
    assert_eq!(signed_in(&server, &second).await, 401, "the other is out");
    let stored = database.query("SELECT password FROM accounts").await;
    let hash = stored[0][0].clone().unwrap();
    assert!(hash.starts_with("$argon2id$") && !hash.contains(NEW_PASSWORD));

    let (status, _) = server
        .http(
            "POST",
            "/api/session",
            &format!(r#"{{"username":"anna","password":"{PASSWORD}"}}"#),
        )
        .await;
    assert_eq!(status, 401, "the old password no longer signs in");
    server.sign_in("anna", NEW_PASSWORD).await;
}

#[tokio::test]
async fn changing_the_password_is_refused_from_another_site_and_rate_limited() {
    let server = TestServer::start().await;
    let token = server.register("anna", PASSWORD).await;
    let cookie = format!("punct_session={token}");
    let change = format!(r#"{{"password":"{PASSWORD}","new_password":"{NEW_PASSWORD}"}}"#);
    let (status, body) = send(
        &server,
        "POST",
        "/api/me/password",
        &[("cookie", &cookie), ("origin", "https://evil.example")],
        &change,
    )
    .await;
    assert_eq!((status, api_error(&body)), (403, ErrorCode::CrossSite));

    // Guessing the password through a session counts as signing in does.
    let anna = server.signed_in(&token);
    let wrong = format!(r#"{{"password":"a wrong guess","new_password":"{NEW_PASSWORD}"}}"#);
    let mut statuses = Vec::new();
    for _ in 0..8 {
        statuses.push(anna.http("POST", "/api/me/password", &wrong).await.0);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
}

/// Sends `method path` with `headers` and `body`; answers the status and the body.
async fn send(
    server: &Endpoint,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
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
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// Signs in to `username` with `user_agent`; answers the session's token.
async fn sign_in_from(server: &Endpoint, username: &str, user_agent: &str) -> String {
    let body = format!(r#"{{"username":"{username}","password":"{PASSWORD}"}}"#);
    let (status, body) = send(
        server,
        "POST",
        "/api/session",
        &[("user-agent", user_agent)],
        &body,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<punct_protocol::Session>(&body)
        .unwrap()
        .token
}

#[tokio::test]
async fn a_player_sees_their_sessions_and_signs_out_everywhere() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    server.register("anna", PASSWORD).await;
    let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    let laptop = sign_in_from(&server, "anna", firefox).await;
    let phone = sign_in_from(
        &server,
        "anna",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    )
    .await;
    let bob = server.register("bob", PASSWORD).await;

    let listed: serde_json::Value = server.signed_in(&laptop).get("/api/me/sessions").await;
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{listed}: bob's is not among them");
    let devices: Vec<_> = sessions
        .iter()
        .map(|s| s["device"].as_str().unwrap())
        .collect();
    assert_eq!(
        devices[1..],
        ["Firefox on Linux", "Safari on iOS"],
        "{listed}"
    );
    let current: Vec<_> = sessions.iter().map(|s| s["current"] == true).collect();
    assert_eq!(current, [false, true, false]);
    assert_eq!(sessions[1]["user_agent"], firefox);
    for session in sessions {
        let created = session["created_at"].as_i64().unwrap();
        assert!(session["last_seen_at"].as_i64().unwrap() >= created);
        assert!(session["expires_at"].as_i64().unwrap() > created);
        assert!(session.get("token").is_none(), "no secret, nor its hash");
    }

    // Another site cannot sign the player out.
    let cookie = format!("punct_session={laptop}");
    let (status, body) = send(
        &server,
        "DELETE",
        "/api/me/sessions",
        &[("cookie", &cookie), ("sec-fetch-site", "cross-site")],
        "",
    )
    .await;
    assert_eq!((status, api_error(&body)), (403, ErrorCode::CrossSite));
    assert_eq!(signed_in(&server, &phone).await, 200);

    let (status, _) = server
        .signed_in(&phone)
        .http("DELETE", "/api/me/sessions", "")
        .await;
    assert_eq!(status, 204);
    for token in [&laptop, &phone] {
        assert_eq!(
            signed_in(&server, token).await,
            401,
            "every session, this one too"
        );
    }
    assert_eq!(
        signed_in(&server, &bob).await,
        200,
        "another account's stays"
    );
}

#[tokio::test]
async fn a_session_is_seen_at_most_once_a_minute() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    let token = server.register("anna", PASSWORD).await;
    let seen = || async {
        let rows = database.query("SELECT last_seen_at FROM sessions").await;
        rows[0][0].clone().unwrap().parse::<i64>().unwrap()
    };
    let first = seen().await;
    assert_eq!(signed_in(&server, &token).await, 200);
    assert_eq!(seen().await, first, "not written again within the minute");

    // A minute later, the next request is recorded.
    let old = first - 61_000;
    database
        .query(&format!(
            "UPDATE sessions SET last_seen_at = {old} RETURNING account"
        ))
        .await;
    assert_eq!(signed_in(&server, &token).await, 200);
    let now = seen().await;
    assert!(now >= first, "{now} after {first}");
    assert_eq!(signed_in(&server, &token).await, 200);
    assert_eq!(seen().await, now);
}

#[tokio::test]
async fn deleting_an_account_keeps_its_games_and_its_opponents_ratings() {
    let database = Database::new();
    let config = Config {
        database: Some(database.url()),
        // Every request of the test comes from one address.
        sign_ins_per_minute: 0,
        ..Config::default()
    };
    let server = TestServer::with(config.clone()).await;
    let anna = ratings::register(&server, "anna").await;
    let bert = ratings::register(&server, "bert").await;
    let carl = ratings::register(&server, "carl").await;
    let dora = ratings::register(&server, "dora").await;
    let (room, _) = ratings::play(&anna, &bert, End::BlackResigns).await;
    ratings::play(&carl, &anna, End::WhiteResigns).await;
    ratings::play(&bert, &carl, End::Drawn).await;
    let mail = r#"{"email":"anna@example.org","mode":"each"}"#;
    assert_eq!(anna.http("PUT", "/api/me/notifications", mail).await.0, 200);
    // Both players talk after the game, and Anna as a spectator of another room.
    for (player, text) in [(&anna, "good game"), (&bert, "thanks")] {
        let mut client = player.client().await;
        client.join_as(&room, None).await;
        assert_eq!(client.say(text).await, None);
    }
    let other = bert.create_room("").await;
    let (mut watching, _) = anna.spectator(&other.room).await;
    assert_eq!(watching.say("hello from the stands").await, None);
    drop(watching);

    // The opponents' ratings, their history and results (their recent games show the
    // new name).
    let profiles = async |server: &Endpoint| -> Vec<serde_json::Value> {
        let mut profiles = Vec::new();
        for name in ["bert", "carl"] {
            let profile: serde_json::Value = server.get(&format!("/api/players/{name}")).await;
            profiles.push(serde_json::json!([profile["ratings"], profile["results"]]));
        }
        profiles
    };
    let ratings = async || {
        database.query("SELECT account, variant, rating, deviation, volatility, games FROM ratings ORDER BY account, variant").await
    };
    let before = (profiles(&server).await, ratings().await);

    let wrong = anna
        .http("DELETE", "/api/me", r#"{"password":"not hers"}"#)
        .await;
    assert_eq!(
        (wrong.0, api_error(&wrong.1)),
        (401, ErrorCode::BadCredentials)
    );
    let password = format!(r#"{{"password":"{PASSWORD}"}}"#);
    let (status, answer) = anna.http("DELETE", "/api/me", &password).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer, r#"{"name":"deleted player 1"}"#);
    assert_eq!(
        anna.http("GET", "/api/session", "").await.0,
        401,
        "signed out"
    );

    // Her games and results stay, under her new name; her opponents' ratings too.
    let archive = server.http("GET", "/api/games", "").await.1;
    let shown = r#"{"name":"deleted player 1","account":"deleted player 1"}"#;
    assert_eq!(archive.matches(shown).count(), 2, "{archive}");
    assert!(!archive.contains("anna"), "{archive}");
    assert_eq!((profiles(&server).await, ratings().await), before);
    assert_eq!(server.http("GET", "/api/players/anna", "").await.0, 404);
    let board = server
        .http("GET", "/api/leaderboard?variant=basic", "")
        .await
        .1;
    assert!(!board.contains("deleted player"), "{board}");

    // What she held is gone: sessions, mail settings, password, chat lines.
    let id = database
        .query("SELECT id FROM accounts WHERE username = 'deleted player 1'")
        .await;
    let id = id[0][0].clone().unwrap();
    let of = |table: &str| format!("SELECT COUNT(*) FROM {table} WHERE account = '{id}'");
    for table in ["sessions", "chat", "mail_outbox"] {
        assert_eq!(
            database.query(&of(table)).await[0][0].as_deref(),
            Some("0"),
            "{table}"
        );
    }
    let held = database
        .query(&format!(
            "SELECT email, notify, unsubscribe, password, language FROM accounts WHERE id = '{id}'"
        ))
        .await;
    assert_eq!(
        held[0],
        [None, Some("off".into()), None, Some(String::new()), None]
    );
    let lines = database.query("SELECT text FROM chat").await;
    assert_eq!(lines, [[Some("thanks".to_owned())]]);

    // Her name is never anyone's again, nor can a guest play as a deleted player.
    for taken in ["anna", "Anna", "an-na"] {
        let (status, body) = server
            .http(
                "POST",
                "/api/accounts",
                &format!(r#"{{"username":"{taken}","password":"{PASSWORD}"}}"#),
            )
            .await;
        assert_eq!(
            (status, api_error(&body)),
            (409, ErrorCode::UsernameTaken),
            "{taken}"
        );
    }
    let signing_in = format!(r#"{{"username":"anna","password":"{PASSWORD}"}}"#);
    let (status, body) = server.http("POST", "/api/session", &signing_in).await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::BadCredentials));
    let (status, body) = server
        .http("POST", "/api/rooms", r#"{"name":"Deleted Player 1"}"#)
        .await;
    assert_eq!((status, api_error(&body)), (400, ErrorCode::BadName));

    // The next deleted account takes the next number.
    let (status, answer) = dora.http("DELETE", "/api/me", &password).await;
    assert_eq!(
        (status, answer.as_str()),
        (200, r#"{"name":"deleted player 2"}"#)
    );

    // A rebuild of the ratings gives the same numbers.
    server.shutdown().await.unwrap();
    assert_eq!(
        ratings::rebuild_ratings(&database),
        "rebuilt the ratings of 3 rated games\n"
    );
    let server = TestServer::with(config).await;
    assert_eq!((profiles(&server).await, ratings().await), before);
    // A room loaded after the deletion shows the new name.
    let record = server.record(&room).await;
    assert_eq!(record.white.name.as_deref(), Some("deleted player 1"));
}

#[tokio::test]
async fn a_player_downloads_everything_stored_about_them() {
    let server = TestServer::start().await;
    let anna = ratings::register(&server, "anna").await;
    let bert = ratings::register(&server, "bert").await;
    let (room, _) = ratings::play(&anna, &bert, End::BlackResigns).await;
    let mut client = anna.client().await;
    client.join_as(&room, None).await;
    assert_eq!(client.say("good game").await, None);
    let mail = r#"{"email":"anna@example.org","mode":"digest"}"#;
    assert_eq!(anna.http("PUT", "/api/me/notifications", mail).await.0, 200);

    let (status, body) = anna.http("GET", "/api/me/export", "").await;
    assert_eq!(status, 200, "{body}");
    let export: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(export["account"]["username"], "anna");
    assert!(export["account"]["created_at"].as_u64().unwrap() > 0);
    assert_eq!(
        export["account"]["language"], "en",
        "the language it registered in"
    );
    assert_eq!(export["mail"]["email"], "anna@example.org");
    assert_eq!(export["mail"]["mode"], "digest");
    assert_eq!(export["mail"]["confirmed"], false);
    let sessions = export["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["current"], true);
    let ratings = export["profile"]["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 1, "{export}");
    assert_eq!(ratings[0]["games"], 1);
    assert_eq!(ratings[0]["history"][0]["room"], room.as_str());
    assert_eq!(export["profile"]["results"]["wins"], 1);
    let games = export["games"].as_array().unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["room"], room.as_str());
    assert_eq!(games[0]["white"]["account"], "anna");
    assert_eq!(games[0]["turns"].as_array().unwrap().len(), 2);
    let chat = export["chat"].as_array().unwrap();
    assert_eq!(chat.len(), 1);
    assert_eq!(
        (&chat[0]["room"], &chat[0]["text"]),
        (&room.clone().into(), &"good game".into())
    );
    assert!(!body.contains("$argon2"), "never the password's hash");

    // Bert's data is his own.
    let (_, his) = bert.http("GET", "/api/me/export", "").await;
    assert!(!his.contains("anna@example.org") && !his.contains("good game"));
    assert_eq!(server.http("GET", "/api/me/export", "").await.0, 401);
    // Each download reads every game: a few a minute.
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(anna.http("GET", "/api/me/export", "").await.0);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
}

/// The secret of the link after `mark` (`confirm=`, `reset=`) in `mail`.
fn link_secret(mail: &Received, mark: &str) -> String {
    let body = mail.body();
    let at = body
        .find(mark)
        .unwrap_or_else(|| panic!("{mark} in {body}"))
        + mark.len();
    body[at..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

#[tokio::test]
async fn an_address_is_confirmed_by_a_link_and_a_forgotten_password_reset_by_another() {
    let database = Database::new();
    let sink = Sink::start(Behaviour::Accept);
    let server = TestServer::with(Config {
        database: Some(database.url()),
        smtp_url: Some(sink.url()),
        public_url: Some("http://punct.test".into()),
        ..Config::default()
    })
    .await;
    let token = server.register("anna", PASSWORD).await;
    let anna = server.signed_in(&token);
    let (status, _) = anna
        .http("POST", "/api/me/email", r#"{"email":"not an address"}"#)
        .await;
    assert_eq!(status, 400);

    // A forgotten password is mailed only to a confirmed address.
    let endpoint: &Endpoint = &server;
    let forgot = |email: &'static str| async move {
        let body = format!(r#"{{"email":"{email}"}}"#);
        endpoint.http("POST", "/api/password/forgot", &body).await
    };
    assert_eq!(forgot("anna@example.org").await, (202, String::new()));
    let (status, _) = anna
        .http("POST", "/api/me/email", r#"{"email":"anna@example.org"}"#)
        .await;
    assert_eq!(status, 202);
    let mail = exactly(&sink, 1).await;
    assert_eq!(mail.len(), 1, "no reset link to an address not confirmed");
    assert_eq!(mail[0].to, ["anna@example.org"]);
    assert!(mail[0].header("List-Unsubscribe").is_none());
    assert!(
        mail[0]
            .body()
            .contains("http://punct.test/account?confirm=")
    );
    let confirm = format!(r#"{{"token":"{}"}}"#, link_secret(&mail[0], "confirm="));
    assert_eq!(
        server.http("POST", "/api/email/confirm", &confirm).await.0,
        204
    );
    let again = server.http("POST", "/api/email/confirm", &confirm).await;
    assert_eq!(
        (again.0, api_error(&again.1)),
        (400, ErrorCode::BadRequest),
        "once"
    );
    let confirmed = database
        .query("SELECT email, email_confirmed FROM accounts")
        .await;
    assert_eq!(confirmed[0][0].as_deref(), Some("anna@example.org"));
    assert!(matches!(
        confirmed[0][1].as_deref(),
        Some("1" | "t" | "true")
    ));

    // The same answer for an address nobody has; one mail, to Anna.
    assert_eq!(forgot("ANNA@example.org").await, (202, String::new()));
    assert_eq!(forgot("nobody@example.org").await, (202, String::new()));
    let mail = exactly(&sink, 2).await;
    assert_eq!(mail.len(), 2, "one reset link, to the address known");
    assert_eq!(mail[1].to, ["anna@example.org"]);
    let secret = link_secret(&mail[1], "reset=");
    // Only its hash is kept, made as the mail was written: not in the outbox either.
    let links = database.query("SELECT token FROM mail_links").await;
    assert_eq!(links.len(), 1);
    assert_ne!(links[0][0].as_deref(), Some(secret.as_str()));
    let outbox = database.query("SELECT notice FROM mail_outbox").await;
    assert!(
        outbox
            .iter()
            .all(|row| !row[0].as_ref().unwrap().contains(&secret))
    );

    let reset = |password: &str| format!(r#"{{"token":"{secret}","new_password":"{password}"}}"#);
    let short = server
        .http("POST", "/api/password/reset", &reset("short"))
        .await;
    assert_eq!(
        (short.0, api_error(&short.1)),
        (400, ErrorCode::BadPassword)
    );
    let mut socket = anna.client().await;
    let done = server
        .http("POST", "/api/password/reset", &reset(NEW_PASSWORD))
        .await;
    assert_eq!(done.0, 204, "{}", done.1);
    crate::endings::session_ended(&mut socket).await;
    assert_eq!(signed_in(&server, &token).await, 401, "every session ends");
    server.sign_in("anna", NEW_PASSWORD).await;
    let used = server
        .http("POST", "/api/password/reset", &reset(PASSWORD))
        .await;
    assert_eq!(
        (used.0, api_error(&used.1)),
        (400, ErrorCode::BadRequest),
        "once"
    );

    // A link works for an hour.
    assert_eq!(forgot("anna@example.org").await.0, 202);
    let mail = exactly(&sink, 3).await;
    let secret = link_secret(&mail[2], "reset=");
    database
        .query("UPDATE mail_links SET expires_at = 0 RETURNING account")
        .await;
    let body = format!(r#"{{"token":"{secret}","new_password":"{PASSWORD}"}}"#);
    let late = server.http("POST", "/api/password/reset", &body).await;
    assert_eq!(
        (late.0, api_error(&late.1)),
        (400, ErrorCode::BadRequest),
        "expired"
    );
}

#[tokio::test]
async fn forgotten_passwords_are_asked_three_a_minute_per_address_and_ten_from_one() {
    let sink = Sink::start(Behaviour::Accept);
    let server = crate::correspondence::mailing(&sink, Config::default().digest_check).await;
    let endpoint: &Endpoint = &server;
    let forgot = |email: String| {
        let body = format!(r#"{{"email":"{email}"}}"#);
        async move { endpoint.http("POST", "/api/password/forgot", &body).await.0 }
    };
    // In a burst: the buckets refill a token every 20 s (an address) and every 6 s (one
    // asking), and the requests take milliseconds.
    let mut asked = Vec::new();
    for _ in 0..4 {
        asked.push(forgot("nobody@example.org".into()).await);
    }
    assert_eq!(asked, [202, 202, 202, 429], "the fourth to one address");
    let mut elsewhere = Vec::new();
    for n in 0..7 {
        elsewhere.push(forgot(format!("someone{n}@example.org")).await);
    }
    assert_eq!(
        elsewhere,
        [202, 202, 202, 202, 202, 202, 429],
        "the eleventh from one"
    );
}
