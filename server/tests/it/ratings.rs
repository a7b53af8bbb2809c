//! Rated games through the real server: who may play them, the Glicko-2 ratings they
//! give (checked against Glickman's paper, computed apart), aborted games, player pages,
//! the leaderboard, the archive by player, and rebuilding every rating from the games.

use punct_protocol::{
    Archive, ClientMessage, ErrorCode, Leaderboard, PlayerProfile, RatingChange, RatingChanges,
    ServerMessage,
};
use punct_rules::{Outcome, WinReason};
use punct_server::Config;
use punct_testing::glicko2::{self, Glicko};
use punct_testing::{Database, Endpoint, TestServer, api_error};

const PASSWORD: &str = "a fine password";

/// The first two turns of a game, White's and Black's.
const OPENING: [&str; 2] = ["B2:B1,B3", "A3:A2,A4"];

/// How a test game ends.
#[derive(Clone, Copy, Debug)]
pub(crate) enum End {
    /// Both play a turn, then Black resigns.
    BlackResigns,
    /// Both play a turn, then White resigns.
    WhiteResigns,
    /// Both play a turn, then agree a draw.
    Drawn,
    /// White plays a turn, then Black resigns without having played one.
    Aborted,
}

/// A rated game between the accounts `white` and `black` are signed in to, ended as
/// `end` says; answers its room and the ratings event White's connection got, if any.
pub(crate) async fn play(
    white: &Endpoint,
    black: &Endpoint,
    end: End,
) -> (String, Option<RatingChanges>) {
    let granted = white.create_room(r#"{"color":"white","rated":true}"#).await;
    let room = granted.room;
    black.take_seat(&room).await;
    let mut w = white.client().await;
    assert!(matches!(
        w.join_as(&room, None).await,
        ServerMessage::Snapshot { .. }
    ));
    let mut b = black.client().await;
    assert!(matches!(
        b.join_as(&room, None).await,
        ServerMessage::Snapshot { .. }
    ));
    w.play(OPENING[0]).await.unwrap();
    if !matches!(end, End::Aborted) {
        b.play(OPENING[1]).await.unwrap();
    }
    let ack =
        |reply: ServerMessage| assert!(matches!(reply, ServerMessage::Ack { .. }), "{reply:?}");
    match end {
        End::BlackResigns | End::Aborted => ack(b.request(|id| ClientMessage::Resign { id }).await),
        End::WhiteResigns => ack(w.request(|id| ClientMessage::Resign { id }).await),
        End::Drawn => {
            ack(w.request(|id| ClientMessage::OfferDraw { id }).await);
            ack(b.request(|id| ClientMessage::AcceptDraw { id }).await);
        }
    }
    // The game is rated before the request that ended it is acknowledged: its event is
    // on its way, right after `game_over`.
    loop {
        match w.next_news().await {
            ServerMessage::GameOver { .. } => break,
            ServerMessage::TurnPlayed { .. }
            | ServerMessage::YourTurn { .. }
            | ServerMessage::DrawOffered { .. } => {}
            other => panic!("{other:?}"),
        }
    }
    if matches!(end, End::Aborted) {
        let (_, snapshot) = white.spectator(&room).await;
        assert_eq!(snapshot.ratings, None, "an aborted game is not rated");
        return (room, None);
    }
    match w.next_news().await {
        ServerMessage::Ratings { changes, .. } => {
            let (_, snapshot) = white.spectator(&room).await;
            assert_eq!(snapshot.ratings.as_ref(), Some(&changes));
            (room, Some(changes))
        }
        other => panic!("{other:?}"),
    }
}

/// The players' ratings, as the paper computes them game after game.
struct Paper(Vec<(String, Glicko)>);

impl Paper {
    fn get(&self, username: &str) -> Glicko {
        self.0.iter().find(|(name, _)| name == username).map_or(
            Glicko {
                rating: 1500.0,
                deviation: 350.0,
                volatility: 0.06,
            },
            |(_, rating)| *rating,
        )
    }

    fn set(&mut self, username: &str, rating: Glicko) {
        self.0.retain(|(name, _)| name != username);
        self.0.push((username.to_owned(), rating));
    }

    /// Rates a game that White scored `score` in (1, 0.5 or 0); answers both sides'
    /// before and after.
    fn rate(&mut self, white: &str, black: &str, score: f64) -> [(Glicko, Glicko); 2] {
        let (w, b) = (self.get(white), self.get(black));
        let w_after = glicko2::period(w, &[(b, score)]).rating();
        let b_after = glicko2::period(b, &[(w, 1.0 - score)]).rating();
        self.set(white, w_after);
        self.set(black, b_after);
        [(w, w_after), (b, b_after)]
    }
}

/// Whether the server's change agrees with the paper's, to a part in 10^9 (the crate
/// and the paper differ in the last bits of their arithmetic only).
fn agrees(change: &RatingChange, (before, after): (Glicko, Glicko)) {
    let close = |ours: f64, theirs: f64| (ours - theirs).abs() <= 1e-9 * theirs.abs();
    for (view, paper) in [(change.before, before), (change.after, after)] {
        assert!(
            close(view.rating, paper.rating)
                && close(view.deviation, paper.deviation)
                && close(view.volatility, paper.volatility),
            "{}: server {view:?}, paper {paper:?}",
            change.username
        );
    }
}

pub(crate) async fn register(server: &Endpoint, username: &str) -> Endpoint {
    server.signed_in(&server.register(username, PASSWORD).await)
}

#[tokio::test]
async fn only_two_accounts_play_a_rated_game_and_never_against_the_computer() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    let anna = register(endpoint, "anna").await;
    let (status, body) = endpoint
        .http("POST", "/api/rooms", r#"{"rated":true}"#)
        .await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));
    let (status, body) = anna
        .http("POST", "/api/rooms", r#"{"rated":true,"computer":2}"#)
        .await;
    assert_eq!((status, api_error(&body)), (400, ErrorCode::BadRequest));
    let granted = anna.create_room(r#"{"rated":true}"#).await;
    let seat = format!("/api/rooms/{}/seat", granted.room);
    let (status, body) = endpoint.http("POST", &seat, r#"{"name":"Guest"}"#).await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));
    let (status, body) = anna.http("POST", &seat, "").await;
    assert_eq!((status, api_error(&body)), (400, ErrorCode::BadRequest));
    let summary = endpoint.summary(&granted.room).await;
    assert!(summary.rated);
    assert!(!summary.players.get(granted.color.opponent()).taken);
}

#[tokio::test]
async fn the_lobby_shows_each_account_s_rating_in_the_room_s_variant() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    let anna = register(endpoint, "anna").await;
    let bert = register(endpoint, "bert").await;
    let (_, changes) = play(&anna, &bert, End::BlackResigns).await;
    let after = changes.expect("rated").white.after.rating;
    // Anna's next room lists her rating, and none for its free seat.
    let granted = anna.create_room(r#"{"color":"white"}"#).await;
    let lobby: punct_protocol::Lobby = endpoint.get("/api/rooms").await;
    let listed = lobby.rooms.iter().find(|r| r.room == granted.room).unwrap();
    assert_eq!(listed.players.white.rating, Some(after.round() as u32));
    assert_eq!(listed.players.black.rating, None);
    // In a variant she has no rated game of, she has a newcomer's rating.
    let basic = bert
        .create_room(r#"{"color":"black","variant":"basic"}"#)
        .await;
    let lobby: punct_protocol::Lobby = endpoint.get("/api/rooms").await;
    let listed = lobby.rooms.iter().find(|r| r.room == basic.room).unwrap();
    assert_eq!(listed.players.black.rating, Some(1500));
    // A room's own summary is the same for everyone, with no ratings.
    assert_eq!(
        endpoint.summary(&granted.room).await.players.white.rating,
        None
    );
}

#[tokio::test]
async fn ratings_follow_the_glicko2_paper_game_after_game() {
    let server = TestServer::start().await;
    let endpoint: &Endpoint = &server;
    let anna = register(endpoint, "anna").await;
    let bert = register(endpoint, "bert").await;
    let carl = register(endpoint, "carl").await;
    let mut paper = Paper(Vec::new());
    let games = [
        (&anna, "anna", &bert, "bert", End::BlackResigns, 1.0),
        (&bert, "bert", &carl, "carl", End::Drawn, 0.5),
        (&carl, "carl", &anna, "anna", End::BlackResigns, 1.0),
        (&anna, "anna", &carl, "carl", End::WhiteResigns, 0.0),
        (&bert, "bert", &anna, "anna", End::Drawn, 0.5),
    ];
    for (white, w, black, b, end, score) in games {
        let (_, changes) = play(white, black, end).await;
        let changes = changes.expect("a rated game with a turn by each side is rated");
        let [white_expected, black_expected] = paper.rate(w, b, score);
        assert_eq!(
            (
                changes.white.username.as_str(),
                changes.black.username.as_str()
            ),
            (w, b)
        );
        agrees(&changes.white, white_expected);
        agrees(&changes.black, black_expected);
    }
    // An aborted game changes nobody's rating.
    let (aborted, changes) = play(&anna, &bert, End::Aborted).await;
    assert!(changes.is_none());

    let profile: PlayerProfile = endpoint.get("/api/players/ANNA").await;
    assert_eq!(profile.username, "anna");
    assert_eq!(
        (
            profile.results.wins,
            profile.results.losses,
            profile.results.draws
        ),
        (2, 2, 1),
        "the aborted game is a loss on the record, just not rated"
    );
    let [standard] = profile.ratings.as_slice() else {
        panic!("{:?}", profile.ratings);
    };
    assert_eq!(standard.games, 4);
    assert_eq!(standard.history.len(), 4);
    let expected = paper.get("anna");
    assert!((standard.rating.rating - expected.rating).abs() < 1e-9 * expected.rating);
    assert!(
        standard.rating.provisional,
        "four games leave the deviation high"
    );
    assert_eq!(profile.recent.len(), 5);
    assert!(profile.recent.iter().all(|game| game.rated));
    assert_eq!(profile.recent[0].room, aborted);

    // The archive, by player.
    let archive: Archive = endpoint.get("/api/games?player=carl").await;
    assert_eq!(archive.games.len(), 3);
    assert!(archive.games.iter().all(|game| {
        [&game.white.account, &game.black.account]
            .iter()
            .any(|a| a.as_deref() == Some("carl"))
    }));
    let (status, body) = endpoint.http("GET", "/api/games?player=nobody", "").await;
    assert_eq!((status, api_error(&body)), (404, ErrorCode::NoSuchPlayer));
    let (status, body) = endpoint.http("GET", "/api/players/nobody", "").await;
    assert_eq!((status, api_error(&body)), (404, ErrorCode::NoSuchPlayer));
}

#[tokio::test]
async fn the_leaderboard_lists_established_players_best_first() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    let endpoint: &Endpoint = &server;
    let anna = register(endpoint, "anna").await;
    let bert = register(endpoint, "bert").await;
    let carl = register(endpoint, "carl").await;
    play(&anna, &bert, End::BlackResigns).await;
    play(&carl, &bert, End::BlackResigns).await;
    let board: Leaderboard = endpoint.get("/api/leaderboard").await;
    assert_eq!(board.players, [], "provisional ratings are not listed");
    // As if they had played many games: their deviations are low.
    database
        .query(
            "UPDATE ratings SET deviation = 80
             WHERE account IN (SELECT id FROM accounts WHERE username IN ('anna', 'bert'))",
        )
        .await;
    let board: Leaderboard = endpoint.get("/api/leaderboard?variant=standard").await;
    let names: Vec<&str> = board.players.iter().map(|p| p.username.as_str()).collect();
    assert_eq!(names, ["anna", "bert"]);
    assert!(board.players[0].rating.rating > board.players[1].rating.rating);
    let basic: Leaderboard = endpoint.get("/api/leaderboard?variant=basic").await;
    assert_eq!(basic.players, []);
    let (status, _) = endpoint
        .http("GET", "/api/leaderboard?variant=chess", "")
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn rebuilding_the_ratings_from_the_games_gives_the_same_numbers() {
    let database = Database::new();
    let config = Config {
        database: Some(database.url()),
        ..Config::default()
    };
    let server = TestServer::with(config.clone()).await;
    let anna = register(&server, "anna").await;
    let bert = register(&server, "bert").await;
    let carl = register(&server, "carl").await;
    play(&anna, &bert, End::BlackResigns).await;
    play(&bert, &carl, End::Drawn).await;
    play(&carl, &anna, End::WhiteResigns).await;
    play(&bert, &anna, End::Aborted).await;
    let profiles = async |server: &Endpoint| -> Vec<serde_json::Value> {
        let mut profiles = Vec::new();
        for name in ["anna", "bert", "carl"] {
            profiles.push(server.get(&format!("/api/players/{name}")).await);
        }
        profiles
    };
    let before = profiles(&server).await;
    server.shutdown().await.unwrap();

    // Ratings damaged by hand, and one player's row lost.
    database
        .query("UPDATE ratings SET rating = 0, deviation = 1, games = 99")
        .await;
    database
        .query("UPDATE rating_changes SET rating = 0, deviation_before = 7")
        .await;
    database
        .query(
            "DELETE FROM ratings
             WHERE account IN (SELECT id FROM accounts WHERE username = 'carl')",
        )
        .await;
    assert_eq!(
        rebuild_ratings(&database),
        "rebuilt the ratings of 3 rated games\n",
        "the aborted game was never rated"
    );

    let server = TestServer::with(config).await;
    assert_eq!(
        profiles(&server).await,
        before,
        "the same numbers, to the last bit"
    );
}

/// Rebuilds the ratings of `database` (its server stopped) as an operator does
/// (server/API.md), the settings after the subcommand; answers what it said.
pub(crate) fn rebuild_ratings(database: &Database) -> String {
    let url = database.url();
    let rebuilt = std::process::Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args(["rebuild-ratings", "--database", &url])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&rebuilt.stderr);
    assert!(rebuilt.status.success(), "{said}");
    String::from_utf8_lossy(&rebuilt.stdout).into_owned()
}

/// Plays the opening of a rated room made with `request` by `white` against `black`;
/// answers both players' connections.
async fn opened(
    white: &Endpoint,
    black: &Endpoint,
    request: &str,
) -> (punct_testing::Client, punct_testing::Client) {
    let granted = white.create_room(request).await;
    black.take_seat(&granted.room).await;
    let mut w = white.client().await;
    let mut b = black.client().await;
    for client in [&mut w, &mut b] {
        let joined = client.join_as(&granted.room, None).await;
        assert!(
            matches!(joined, ServerMessage::Snapshot { .. }),
            "{joined:?}"
        );
    }
    w.play(OPENING[0]).await.unwrap();
    b.play(OPENING[1]).await.unwrap();
    (w, b)
}

/// The `ratings` event `client` gets after the game's end by `reason`.
async fn rated_after(client: &mut punct_testing::Client, reason: WinReason) -> RatingChanges {
    loop {
        match client.next_news().await {
            ServerMessage::GameOver { outcome, .. } => {
                assert!(
                    matches!(outcome, Outcome::Win { reason: r, .. } if r == reason),
                    "{outcome:?}"
                );
            }
            ServerMessage::Ratings { changes, .. } => return changes,
            _ => {}
        }
    }
}

#[tokio::test]
async fn losses_on_time_and_by_abandonment_count() {
    let server = TestServer::with(Config {
        grace_period: std::time::Duration::from_millis(500),
        ..Config::default()
    })
    .await;
    let endpoint: &Endpoint = &server;
    let anna = register(endpoint, "anna").await;
    let bert = register(endpoint, "bert").await;
    let mut paper = Paper(Vec::new());

    // Anna's clock (one second) runs from Bert's first turn: she loses on time.
    let (mut w, _b) = opened(
        &anna,
        &bert,
        r#"{"color":"white","rated":true,"clock":{"base":1}}"#,
    )
    .await;
    let changes = rated_after(&mut w, WinReason::Time).await;
    let [white, black] = paper.rate("anna", "bert", 0.0);
    agrees(&changes.white, white);
    agrees(&changes.black, black);

    // Bert goes away; past the grace period Anna claims the win.
    let (mut w, b) = opened(&anna, &bert, r#"{"color":"white","rated":true}"#).await;
    drop(b);
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let claimed = w.request(|id| ClientMessage::ClaimWin { id }).await;
    assert!(matches!(claimed, ServerMessage::Ack { .. }), "{claimed:?}");
    let changes = rated_after(&mut w, WinReason::Abandonment).await;
    let [white, black] = paper.rate("anna", "bert", 1.0);
    agrees(&changes.white, white);
    agrees(&changes.black, black);
}
