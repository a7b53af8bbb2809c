//! Players, not tokens: `punct login`, `whoami` and `logout` as processes against a real
//! server, a signed-in player coming back to a seat without its token, and two room
//! views that show each other's names and chat.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use punct_cli::app::App;
use punct_cli::seats::{SeatRequest, obtain};
use punct_client::{Client, Link, NetEvent};
use punct_protocol::{CreateRoom, SeatChoice, ServerMessage, TimeControl};
use punct_rules::Color;
use serde_json::Value;

use crate::common::{register, run_punct, run_punct_in, screen, start_server};

/// A password no file may hold.
const PASSWORD: &str = "correct horse battery";

/// Runs `punct ARGS` with `config` as its configuration directory and `input` on its
/// standard input.
fn punct(config: &Path, args: &[&str], input: &str) -> Output {
    run_punct(args, input, Some(config))
}

/// Standard output, once the process succeeded.
fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "punct failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8")
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn login_keeps_a_private_token_whoami_names_the_account_and_logout_ends_it() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let config = dir.path().join("config");
    let url = server.url.as_str();
    let whoami = |config: &Path| stdout(&punct(config, &["whoami", "--server", url], ""));
    assert_eq!(whoami(&config), "not signed in\n");

    let registered = punct(
        &config,
        &["login", "--server", url, "--register", "--username", "anna"],
        &format!("{PASSWORD}\n"),
    );
    assert_eq!(stdout(&registered), "signed in as anna\n");
    let file = config.join("sessions.json");
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600, "only its owner may read the token");
    let text = std::fs::read_to_string(&file).expect("the session file");
    assert!(!text.contains(PASSWORD), "no password is written: {text}");
    let saved: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(saved[url]["username"], "anna");
    assert!(saved[url]["token"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(whoami(&config), "anna\n");

    // Signing out forgets the token, and the server no longer takes it.
    assert_eq!(
        stdout(&punct(&config, &["logout", "--server", url], "")),
        format!("signed out of {url}\n")
    );
    assert_eq!(whoami(&config), "not signed in\n");
    let stale = dir.path().join("stale");
    std::fs::create_dir(&stale).expect("created");
    std::fs::write(stale.join("sessions.json"), &text).expect("written");
    assert_eq!(whoami(&stale), "not signed in\n");

    // Without --username it is asked for; a wrong password is refused and saves nothing.
    let wrong = punct(
        &config,
        &["login", "--server", url],
        "anna\nnot the password\n",
    );
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("bad-credentials"));
    assert_eq!(whoami(&config), "not signed in\n");
    let again = punct(
        &config,
        &["login", "--server", url],
        &format!("anna\n{PASSWORD}\n"),
    );
    assert_eq!(stdout(&again), "signed in as anna\n");
    assert_eq!(whoami(&config), "anna\n");
}

#[test]
fn the_servers_refusals_come_in_the_language_of_the_locale_or_of_lang() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = server.url.as_str();
    register(url, "anna", PASSWORD, &dir.path().join("anna"));
    let refused = |lang: &str, args: &[&str]| {
        let config = dir.path().join("nobody");
        let output = run_punct_in(lang, args, "anna\nnot the password\n", Some(&config));
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let login = ["login", "--server", url];
    let polish = refused("pl_PL.UTF-8", &login);
    assert!(
        polish.contains("ta nazwa użytkownika i hasło nie pasują do żadnego konta"),
        "{polish}"
    );
    let russian = refused("pl_PL.UTF-8", &["login", "--server", url, "--lang", "ru"]);
    assert!(
        russian.contains("такого имени пользователя и пароля нет ни у одной учётной записи"),
        "{russian}"
    );
    let english = refused("C.UTF-8", &login);
    assert!(
        english.contains("no account has this username and password"),
        "{english}"
    );
}

#[test]
fn a_signed_in_player_comes_back_to_the_seat_without_its_token() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let config = dir.path().join("config");
    let url = server.url.as_str();
    let login = ["login", "--server", url, "--register", "--username", "anna"];
    stdout(&punct(&config, &login, &format!("{PASSWORD}\n")));
    // A script that runs out at once: White's first turn is the player's.
    let script = dir.path().join("empty.txt");
    std::fs::write(&script, "# nothing\n").expect("written");
    let script = script.to_str().expect("UTF-8");
    let lines = |output: &Output| -> Vec<Value> {
        stdout(output)
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    };
    let seats = |name: &str| dir.path().join(name).display().to_string();

    let created = lines(&punct(
        &config,
        &[
            "play",
            "--server",
            url,
            "--create",
            "standard",
            "--color",
            "white",
            "--seats",
            &seats("first.json"),
            "--script",
            script,
        ],
        "",
    ));
    let room = created[0]["room"].as_str().expect("room id").to_owned();
    assert!(created[0]["token"].is_string());
    let snapshot = created
        .iter()
        .find(|l| l["type"] == "snapshot")
        .expect("in");
    assert_eq!(snapshot["room"]["players"]["white"]["account"], "anna");
    assert_eq!(snapshot["room"]["players"]["white"]["name"], "anna");

    // Elsewhere, with no seat file: the account's seat is entered without a token.
    let back = lines(&punct(
        &config,
        &[
            "play",
            "--server",
            url,
            "--room",
            &room,
            "--seats",
            &seats("second.json"),
            "--script",
            script,
        ],
        "",
    ));
    assert_eq!(back[0]["type"], "seat");
    assert_eq!(back[0]["color"], "white");
    assert!(back[0]["token"].is_null(), "{}", back[0]);
    let snapshot = back.iter().find(|l| l["type"] == "snapshot").expect("in");
    assert_eq!(snapshot["you"], "white");
    assert!(back.iter().all(|l| l["type"] != "error"));
    assert!(!dir.path().join("second.json").exists(), "no token to keep");

    // A rated game is for signed-in players only.
    let anonymous = dir.path().join("nobody");
    let refused = punct(
        &anonymous,
        &[
            "play", "--server", url, "--create", "standard", "--rated", "--script", script,
        ],
        "",
    );
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("punct login first"));
}

#[test]
fn games_lists_a_correspondence_game_as_your_move_for_the_one_to_move() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = server.url.as_str();
    let (anna, bert) = (dir.path().join("anna"), dir.path().join("bert"));
    let refused = punct(&anna, &["games", "--server", url], "");
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("punct login"));
    let session = |config: &Path, username: &str| {
        register(url, username, PASSWORD, config);
        let text = std::fs::read_to_string(config.join("sessions.json")).expect("saved");
        let saved: Value = serde_json::from_str(&text).expect("JSON");
        let token = saved[url]["token"].as_str().expect("a token").to_owned();
        Client::new(url.parse().expect("URL"))
            .expect("client")
            .with_session(&token)
    };
    let (anna_client, bert_client) = (session(&anna, "anna"), session(&bert, "bert"));
    // Anna plays White's first turn; Black's three days run.
    let room = tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async move {
            let create = CreateRoom {
                color: SeatChoice::White,
                clock: Some(TimeControl::days(3)),
                ..CreateRoom::default()
            };
            let white = anna_client.create_room(&create).await.expect("created");
            bert_client.take_seat(&white.room).await.expect("seated");
            let entry = punct_client::Entry::Seat {
                room: white.room.clone(),
                token: Some(white.token),
            };
            let mut link = punct_client::connect(anna_client, entry);
            let turn = "C4:C5,D5".parse().expect("a turn");
            while let Some(event) = link.events.recv().await {
                match event {
                    NetEvent::Message(ServerMessage::Snapshot { .. }) => link
                        .requests
                        .send(punct_protocol::Action::Play { turn, number: None }.into())
                        .expect("sent"),
                    NetEvent::Message(ServerMessage::TurnPlayed { .. }) => break,
                    _ => {}
                }
            }
            white.room
        });

    let listed = |config: &Path| stdout(&punct(config, &["games", "--server", url], ""));
    let bert_sees = listed(&bert);
    assert!(
        bert_sees.starts_with("your move   black vs anna "),
        "{bert_sees}"
    );
    assert!(bert_sees.contains("3d a move   2d 23h left"), "{bert_sees}");
    assert!(bert_sees.trim_end().ends_with(&room), "{bert_sees}");
    let anna_sees = listed(&anna);
    assert!(
        anna_sees.starts_with("their move  white vs bert "),
        "{anna_sees}"
    );
}

fn key(c: char) -> KeyEvent {
    let code = match c {
        '\n' => KeyCode::Enter,
        c => KeyCode::Char(c),
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Feeds `app` its connection's events until `done` says so.
async fn until(app: &mut App, link: &mut Link, done: impl Fn(&App) -> bool) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !done(app) {
            let event = link.events.recv().await.expect("the link lives");
            app.on_net(&event);
        }
    })
    .await
    .unwrap_or_else(|_| panic!("never came; the screen:\n{}", screen(app)));
}

/// Types `text` into `app`, sending the requests it makes.
fn type_keys(app: &mut App, link: &Link, text: &str) {
    for c in text.chars() {
        if let Some(request) = app.on_key(key(c)) {
            link.requests.send(request).expect("sent");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_see_each_other_s_names_and_chat() {
    let server = start_server();
    let anonymous = Client::new(server.url.parse().expect("URL")).expect("client");
    let session = anonymous.register("anna", PASSWORD).await.expect("anna");
    let anna = anonymous.with_session(&session.token);
    let create = CreateRoom {
        color: SeatChoice::White,
        ..CreateRoom::default()
    };
    let created = obtain(
        &anna,
        &SeatRequest {
            create: Some(create),
            account: Some("anna".into()),
            ..SeatRequest::default()
        },
        None,
    )
    .await
    .expect("created");
    let bert = obtain(
        &anonymous,
        &SeatRequest {
            room: Some(created.room.clone()),
            name: Some("Bert".into()),
            ..SeatRequest::default()
        },
        None,
    )
    .await
    .expect("seated");
    assert_eq!(bert.color, Color::Black);
    // Anna comes in by her account, without the token.
    let anna_seat = obtain(
        &anna,
        &SeatRequest {
            room: Some(created.room.clone()),
            account: Some("anna".into()),
            ..SeatRequest::default()
        },
        None,
    )
    .await
    .expect("her seat");
    assert_eq!(anna_seat.token, None);

    let mut anna_link = punct_client::connect(anna, anna_seat.entry());
    let mut bert_link = punct_client::connect(anonymous, bert.entry());
    let (mut anna_app, mut bert_app) = (App::new(), App::new());
    let both_in = |app: &App| {
        app.session()
            .is_some_and(|s| s.players.white.connected && s.players.black.connected)
    };
    until(&mut anna_app, &mut anna_link, both_in).await;
    until(&mut bert_app, &mut bert_link, |app| app.session().is_some()).await;
    let text = screen(&anna_app);
    assert!(text.contains("you play white"), "{text}");
    assert!(text.contains("white: anna (signed in)  online"), "{text}");
    assert!(text.contains("black: Bert"), "{text}");

    type_keys(&mut anna_app, &anna_link, "cgood luck!\n");
    let heard = |app: &App| {
        app.session()
            .is_some_and(|s| s.chat.iter().any(|l| l.text == "good luck!"))
    };
    until(&mut anna_app, &mut anna_link, heard).await;
    until(&mut bert_app, &mut bert_link, heard).await;
    for app in [&anna_app, &bert_app] {
        let text = screen(app);
        assert!(text.contains("anna (white): good luck!"), "{text}");
    }

    // Bert mutes Anna: her next line reaches only herself.
    type_keys(&mut bert_app, &bert_link, "m");
    type_keys(&mut bert_app, &bert_link, "cthanks\n");
    until(&mut anna_app, &mut anna_link, |app| {
        app.session().is_some_and(|s| s.chat.len() == 2)
    })
    .await;
    assert!(screen(&anna_app).contains("Bert (black): thanks"));
    type_keys(&mut anna_app, &anna_link, "chello?\n");
    until(&mut anna_app, &mut anna_link, |app| {
        app.session().is_some_and(|s| s.chat.len() == 3)
    })
    .await;
    until(&mut bert_app, &mut bert_link, |app| {
        app.session().is_some_and(|s| s.chat.len() == 2)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Ok(event) = bert_link.events.try_recv() {
        bert_app.on_net(&event);
    }
    assert!(!screen(&bert_app).contains("hello?"));
}
