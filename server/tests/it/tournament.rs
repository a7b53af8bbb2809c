//! Tournaments through the real server: players sign up over HTTP, and play the games
//! their director pairs over WebSockets with random legal turns; the standings are
//! checked against a recomputation from the stored games. A restart in the middle pairs
//! nobody twice, and so does killing the node of a cluster that runs the director; a
//! withdrawal forfeits the game under way and is paired no more, and a round robin
//! passes over the rounds withdrawals left empty; bad requests are refused with their
//! codes.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use punct_protocol::{
    ClientMessage, ErrorCode, Record, ServerMessage, TournamentNode, TournamentState,
    TournamentView,
};
use punct_rules::{Color, DrawReason, Game, Outcome, Variant, WinReason};
use punct_server::{Config, Console, TournamentCreators};
use punct_testing::{Client, Database, Endpoint, Process, TestServer, api_error};

const PASSWORD: &str = "a fine password";

/// A server on `database` that lets the test register many accounts at once.
fn config(database: &Database) -> Config {
    Config {
        database: Some(database.url()),
        sign_ins_per_minute: 0,
        sign_ins_per_account: 0,
        message_rate_scale: 0.0,
        ..Config::default()
    }
}

fn now_ms() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Players registered on `server`: their usernames and session tokens.
async fn players(server: &Endpoint, prefix: &str, count: usize) -> Vec<(String, String)> {
    let mut players = Vec::new();
    for n in 1..=count {
        let name = format!("{prefix}{n}");
        let token = server.register(&name, PASSWORD).await;
        players.push((name, token));
    }
    players
}

/// Creates a tournament as `creator` from `body`: its id.
pub(crate) async fn create(creator: &Endpoint, body: &serde_json::Value) -> String {
    let (status, answer) = creator
        .http("POST", "/api/tournaments", &body.to_string())
        .await;
    assert_eq!(status, 201, "{answer}");
    let view: TournamentView = serde_json::from_str(&answer).unwrap();
    assert_eq!(view.summary.state, TournamentState::Upcoming);
    view.summary.id
}

/// How long after its creation a tournament that the test fills starts, in
/// milliseconds: every entrant's join must be in first, on a machine that runs the
/// other suites and the browsers beside this one.
pub(crate) const LEAD_MS: i64 = 3000;

/// A Swiss of `rounds` rounds starting in `starts_in` milliseconds.
pub(crate) fn swiss(rounds: u32, starts_in: i64, max_players: u32) -> serde_json::Value {
    serde_json::json!({
        "name": "Friday Swiss",
        "format": "swiss",
        "rounds": rounds,
        "starts_at": now_ms() + starts_in,
        "max_players": max_players,
    })
}

/// `count` players registered on `server` (named `prefix` and a number), the first of
/// whom creates the tournament `body` describes, and all of whom join it: the players
/// (usernames and session tokens), their tokens by username, and the tournament's id.
/// The body is made once everyone is registered, so that a start some seconds ahead is
/// not already past on a busy machine (registering hashes each password).
async fn entered(
    server: &Endpoint,
    prefix: &str,
    count: usize,
    body: impl FnOnce() -> serde_json::Value,
) -> (Vec<(String, String)>, HashMap<String, String>, String) {
    let entrants = players(server, prefix, count).await;
    let id = create(&server.signed_in(&entrants[0].1), &body()).await;
    for (_, token) in &entrants {
        assert_eq!(
            post(&server.signed_in(token), &id, "join").await,
            (200, None)
        );
    }
    let tokens = entrants.iter().cloned().collect();
    (entrants, tokens, id)
}

/// `POST /api/tournaments/{id}/{what}` as `who`: the status and the error code if refused.
pub(crate) async fn post(who: &Endpoint, id: &str, what: &str) -> (u16, Option<ErrorCode>) {
    let (status, body) = who
        .http("POST", &format!("/api/tournaments/{id}/{what}"), "")
        .await;
    (status, (status != 200).then(|| api_error(&body)))
}

async fn view(server: &Endpoint, id: &str) -> TournamentView {
    server.get(&format!("/api/tournaments/{id}")).await
}

/// Waits until tournament `id` is as `done` wants it; answers it then.
pub(crate) async fn until(
    server: &Endpoint,
    id: &str,
    done: impl Fn(&TournamentView) -> bool,
) -> TournamentView {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let view = view(server, id).await;
        if done(&view) {
            return view;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tournament never got there: {view:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A small random number generator (xorshift), so that games differ but every run
/// plays the same ones.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % below as u64).unwrap()
    }
}

/// Plays the game of `room` between the signed-in `white` and `black`: a few random
/// legal turns, then a resignation or an agreed draw, as the dice say. Answers its
/// outcome as the players heard it.
async fn play(white: &Endpoint, black: &Endpoint, room: &str, dice: &mut Dice) -> Outcome {
    let seats = seat(white, black, room).await;
    finish(seats, Game::new(Variant::Standard), dice).await
}

/// The signed-in `white` and `black` in their seats of `room`, a tournament's game.
async fn seat(white: &Endpoint, black: &Endpoint, room: &str) -> Vec<Client> {
    let mut seats = Vec::new();
    for player in [white, black] {
        let mut client = player.client().await;
        match client.join_as(room, None).await {
            ServerMessage::Snapshot { room: snapshot, .. } => {
                assert!(
                    snapshot.tournament.is_some(),
                    "the room says whose game it is"
                );
            }
            other => panic!("a player of the tournament's game is seated: {other:?}"),
        }
        seats.push(client);
    }
    seats
}

/// Plays `turns` random legal turns of `game` through `seats` (White's, then Black's);
/// answers the outcome if one of them ended it.
async fn turns(
    seats: &mut [Client],
    game: &mut Game,
    turns: usize,
    dice: &mut Dice,
) -> Option<Outcome> {
    for _ in 0..turns {
        let legal = game.legal_turns();
        let turn = legal[dice.roll(legal.len())];
        let mover = &mut seats[game.to_move() as usize];
        mover.play(&turn.to_string()).await.unwrap();
        if game.play(turn).unwrap().is_some() {
            return game.outcome();
        }
    }
    None
}

/// Plays `game`, as it stands in its room, to its end through `seats`: a few random
/// legal turns, then a resignation or an agreed draw, as the dice say. Answers its
/// outcome as the players heard it.
async fn finish(mut seats: Vec<Client>, mut game: Game, dice: &mut Dice) -> Outcome {
    let count = dice.roll(6) + 2;
    if let Some(outcome) = turns(&mut seats, &mut game, count, dice).await {
        return outcome;
    }
    let (first, second) = seats.split_at_mut(1);
    let (white, black) = (&mut first[0], &mut second[0]);
    let ack =
        |reply: ServerMessage| assert!(matches!(reply, ServerMessage::Ack { .. }), "{reply:?}");
    match dice.roll(3) {
        0 => {
            ack(white.request(|id| ClientMessage::Resign { id }).await);
            Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Resignation,
            }
        }
        1 => {
            ack(black.request(|id| ClientMessage::Resign { id }).await);
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::Resignation,
            }
        }
        _ => {
            ack(white.request(|id| ClientMessage::OfferDraw { id }).await);
            ack(black.request(|id| ClientMessage::AcceptDraw { id }).await);
            Outcome::Draw {
                reason: DrawReason::Agreement,
            }
        }
    }
}

/// Plays every game of round `round` whose result is not in yet.
async fn play_round(
    server: &Endpoint,
    id: &str,
    round: u32,
    tokens: &HashMap<String, String>,
    dice: &mut Dice,
) -> TournamentView {
    let view = until(server, id, |v| v.summary.round >= round).await;
    let games = &view.pairings[round as usize - 1].games;
    for game in games {
        let (Some(room), Some(black)) = (&game.room, &game.black) else {
            continue;
        };
        if game.outcome.is_some() {
            continue;
        }
        let white = server.signed_in(&tokens[&game.white]);
        let black = server.signed_in(&tokens[black]);
        play(&white, &black, room, dice).await;
    }
    view
}

/// Every game of `view`, as its stored record has it, round by round: White, Black, and
/// White's half-points (2 a win, 1 a draw, 0 a loss) once it is over.
async fn stored_games(
    server: &Endpoint,
    view: &TournamentView,
) -> Vec<(String, String, Option<u32>)> {
    let mut games = Vec::new();
    for game in view.pairings.iter().flat_map(|round| &round.games) {
        let (Some(room), Some(black)) = (&game.room, &game.black) else {
            continue;
        };
        let record: Record = server.get(&format!("/api/rooms/{room}/record")).await;
        let white_points = record.outcome.map(|outcome| match outcome {
            Outcome::Win {
                winner: Color::White,
                ..
            } => 2,
            Outcome::Win { .. } => 0,
            Outcome::Draw { .. } => 1,
        });
        games.push((game.white.clone(), black.clone(), white_points));
    }
    games
}

/// The standings recomputed from the stored games (their records): each player's
/// score, Buchholz and Sonneborn-Berger in half-points (SB in quarter-points), for a
/// tournament without byes or withdrawals.
async fn recomputed(server: &Endpoint, view: &TournamentView) -> HashMap<String, (u32, u32, u32)> {
    let results: Vec<(String, String, u32)> = stored_games(server, view)
        .await
        .into_iter()
        .map(|(white, black, points)| (white, black, points.expect("every game is over")))
        .collect();
    let mut score: HashMap<String, u32> = HashMap::new();
    for (white, black, points) in &results {
        *score.entry(white.clone()).or_default() += points;
        *score.entry(black.clone()).or_default() += 2 - points;
    }
    let mut table = HashMap::new();
    for player in score.keys() {
        let (mut buchholz, mut sb) = (0, 0);
        for (white, black, points) in &results {
            let (opponent, mine) = if white == player {
                (black, *points)
            } else if black == player {
                (white, 2 - points)
            } else {
                continue;
            };
            buchholz += score[opponent];
            sb += mine * score[opponent];
        }
        table.insert(player.clone(), (score[player], buchholz, sb));
    }
    table
}

#[tokio::test]
async fn a_swiss_of_eight_over_three_rounds_pairs_by_the_rules_and_stands_as_its_games() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let (_, tokens, id) = entered(&server, "swiss", 8, || swiss(3, LEAD_MS, 8)).await;
    let listed: punct_protocol::TournamentList = server.get("/api/tournaments").await;
    assert_eq!(listed.upcoming[0].players, 8);

    let mut dice = Dice(0x9e37_79b9_7f4a_7c15);
    for round in 1..=3 {
        play_round(&server, &id, round, &tokens, &mut dice).await;
    }
    let view = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    assert_eq!(view.pairings.len(), 3);

    // Every round complete, nobody twice against the same opponent, the colours kept.
    let mut met = HashSet::new();
    let mut colours: HashMap<&str, Vec<Color>> = HashMap::new();
    for round in &view.pairings {
        assert_eq!(round.games.len(), 4, "four games, no bye");
        let mut seen = HashSet::new();
        for game in &round.games {
            let black = game.black.as_deref().unwrap();
            assert!(seen.insert(game.white.as_str()) && seen.insert(black));
            let pair = if game.white.as_str() < black {
                (game.white.as_str(), black)
            } else {
                (black, game.white.as_str())
            };
            assert!(met.insert(pair), "{pair:?} met twice");
            colours.entry(&game.white).or_default().push(Color::White);
            colours.entry(black).or_default().push(Color::Black);
        }
        assert_eq!(seen.len(), 8);
    }
    for (player, had) in colours {
        let whites = had.iter().filter(|&&c| c == Color::White).count();
        assert!(
            whites.abs_diff(had.len() - whites) <= 2,
            "{player}: {had:?}"
        );
        assert!(
            !had.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
            "{player}: {had:?}"
        );
    }

    // The standings are the stored games', ordered by score, Buchholz, then
    // Sonneborn-Berger.
    let table = recomputed(&server, &view).await;
    assert_eq!(view.standings.len(), 8);
    let mut last: Option<(u32, u32, u32)> = None;
    for row in &view.standings {
        let (score, buchholz, sb) = table[&row.player];
        assert_eq!(row.score, f64::from(score) / 2.0, "{}", row.player);
        assert_eq!(
            row.buchholz,
            Some(f64::from(buchholz) / 2.0),
            "{}",
            row.player
        );
        assert_eq!(
            row.sonneborn_berger,
            Some(f64::from(sb) / 4.0),
            "{}",
            row.player
        );
        assert_eq!(row.games, 3);
        if let Some(before) = last {
            assert!(
                before >= (score, buchholz, sb),
                "{:?} after {before:?}",
                (score, buchholz, sb)
            );
        }
        last = Some((score, buchholz, sb));
    }
    let listed: punct_protocol::TournamentList = server.get("/api/tournaments").await;
    assert!(listed.finished.iter().any(|t| t.id == id));
    // Its games are marked as the tournament's in the archive and in their rooms.
    let archive: punct_protocol::Archive = server.get("/api/games?limit=100").await;
    assert_eq!(archive.games.len(), 12);
    assert!(
        archive
            .games
            .iter()
            .all(|g| g.tournament.as_ref() == Some(&id))
    );
    let room = view.pairings[0].games[0].room.as_ref().unwrap();
    assert_eq!(server.summary(room).await.tournament, Some(id.clone()));
}

#[tokio::test]
async fn a_restart_before_the_start_and_mid_round_pairs_nobody_twice() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let (_, tokens, id) = entered(&server, "restart", 4, || swiss(3, 2500, 4)).await;
    // Down before the start: the server started again starts it on time.
    server.shutdown().await.unwrap();
    let server = TestServer::with(config(&database)).await;
    let first = until(&server, &id, |v| v.summary.round == 1).await;
    assert_eq!(first.summary.state, TournamentState::Running);

    // One game of the first round played, then a restart with the other under way.
    let mut dice = Dice(7);
    let games = first.pairings[0].games.clone();
    let (one, other) = (&games[0], &games[1]);
    let white = server.signed_in(&tokens[&one.white]);
    let black = server.signed_in(&tokens[one.black.as_ref().unwrap()]);
    play(&white, &black, one.room.as_ref().unwrap(), &mut dice).await;
    server.shutdown().await.unwrap();
    let server = TestServer::with(config(&database)).await;
    let again = view(&server, &id).await;
    assert_eq!(again.summary.round, 1, "the round is not paired again");
    assert_eq!(
        again.pairings[0]
            .games
            .iter()
            .map(|g| &g.room)
            .collect::<Vec<_>>(),
        games.iter().map(|g| &g.room).collect::<Vec<_>>()
    );
    assert!(
        again.pairings[0].games[0].outcome.is_some(),
        "the result is kept"
    );
    let white = server.signed_in(&tokens[&other.white]);
    let black = server.signed_in(&tokens[other.black.as_ref().unwrap()]);
    play(&white, &black, other.room.as_ref().unwrap(), &mut dice).await;
    play_round(&server, &id, 2, &tokens, &mut dice).await;
    // A restart between rounds: the rounds paired stay as they are.
    let before = until(&server, &id, |v| v.summary.round == 3).await;
    server.shutdown().await.unwrap();
    let server = TestServer::with(config(&database)).await;
    assert_eq!(view(&server, &id).await.pairings, before.pairings);
    play_round(&server, &id, 3, &tokens, &mut dice).await;
    let done = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    let mut met = HashSet::new();
    for round in &done.pairings {
        assert_eq!(round.games.len(), 2);
        for game in &round.games {
            let mut pair = [game.white.clone(), game.black.clone().unwrap()];
            pair.sort();
            assert!(met.insert(pair.clone()), "{pair:?} met twice");
        }
    }
    let rows = database
        .query(&format!(
            "SELECT COUNT(*) FROM tournament_pairings WHERE tournament = '{id}'"
        ))
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("6"));
}

#[tokio::test]
async fn a_withdrawn_player_forfeits_the_game_under_way_and_is_paired_no_more() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let (_, tokens, id) = entered(&server, "odd", 5, || swiss(3, LEAD_MS, 8)).await;
    let first = until(&server, &id, |v| v.summary.round == 1).await;
    let round = &first.pairings[0];
    assert_eq!(round.games.len(), 3, "two games and a bye");
    let bye = round.games.iter().find(|g| g.black.is_none()).unwrap();
    assert!(bye.room.is_none());
    // Too late to join; the bye counts as a win.
    let late = server.signed_in(&server.register("late", PASSWORD).await);
    assert_eq!(
        post(&late, &id, "join").await,
        (409, Some(ErrorCode::TournamentStarted))
    );
    assert_eq!(
        first
            .standings
            .iter()
            .find(|r| r.player == bye.white)
            .unwrap()
            .score,
        1.0
    );

    // A player of the first game withdraws during it: the opponent wins it.
    let games: Vec<_> = round.games.iter().filter(|g| g.black.is_some()).collect();
    let quitter = games[0].white.clone();
    let quitter_session = server.signed_in(&tokens[&quitter]);
    assert_eq!(post(&quitter_session, &id, "withdraw").await, (200, None));
    assert_eq!(
        post(&quitter_session, &id, "withdraw").await,
        (409, Some(ErrorCode::NotEntered))
    );
    let record: Record = server
        .get(&format!(
            "/api/rooms/{}/record",
            games[0].room.as_ref().unwrap()
        ))
        .await;
    assert_eq!(
        record.outcome,
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Abandonment
        })
    );
    let mut dice = Dice(11);
    let (white, black) = (&games[1].white, games[1].black.as_ref().unwrap());
    play(
        &server.signed_in(&tokens[white]),
        &server.signed_in(&tokens[black]),
        games[1].room.as_ref().unwrap(),
        &mut dice,
    )
    .await;
    // Four are left: two games, no bye, and not the one who withdrew.
    let second = until(&server, &id, |v| v.summary.round == 2).await;
    let round = &second.pairings[1];
    assert_eq!(round.games.len(), 2);
    assert!(
        round
            .games
            .iter()
            .all(|g| g.black.is_some() && g.white != quitter && g.black.as_ref() != Some(&quitter))
    );
    assert!(
        second
            .entries
            .iter()
            .any(|e| e.player == quitter && e.withdrawn)
    );
    assert_eq!(second.summary.players, 4);
    assert!(
        second.standings.iter().any(|r| r.player == quitter),
        "still in the standings"
    );
}

/// A round robin by correspondence (`days` a move) of three players named `prefix` and a
/// number, started: their tokens, its id, and the tournament once its three rounds (one
/// game each, the third player resting) are paired, all at once.
async fn robin_by_mail(
    server: &Endpoint,
    prefix: &str,
    days: u8,
) -> (HashMap<String, String>, String, TournamentView) {
    let body = || {
        serde_json::json!({
            "name": "Winter by mail",
            "format": "round-robin",
            "clock": {"days": days},
            "starts_at": now_ms() + LEAD_MS,
            "max_players": 3,
            "min_players": 3,
        })
    };
    let (_, tokens, id) = entered(server, prefix, 3, body).await;
    let started = until(server, &id, |v| v.summary.round == 3).await;
    (tokens, id, started)
}

#[tokio::test]
async fn a_correspondence_round_robin_starts_every_game_at_once() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let (tokens, id, started) = robin_by_mail(&server, "mail", 3).await;
    let mut met = HashSet::new();
    for round in &started.pairings {
        assert_eq!(round.games.len(), 1);
        let game = &round.games[0];
        let mut pair = [game.white.clone(), game.black.clone().unwrap()];
        pair.sort();
        // The third player rests, and the round says so.
        let resting = round.resting.as_ref().expect("three players: one rests");
        assert!(!pair.contains(resting) && tokens.contains_key(resting));
        assert!(met.insert(pair));
        let summary = server.summary(game.room.as_ref().unwrap()).await;
        assert_eq!(summary.clock.unwrap().days, Some(3));
    }
    let mut dice = Dice(3);
    for round in &started.pairings {
        let game = &round.games[0];
        play(
            &server.signed_in(&tokens[&game.white]),
            &server.signed_in(&tokens[game.black.as_ref().unwrap()]),
            game.room.as_ref().unwrap(),
            &mut dice,
        )
        .await;
    }
    let finished = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    // A rest is no unplayed round: each Buchholz is the opponents' real scores, the
    // three points of the event less one's own.
    for row in &finished.standings {
        assert_eq!(row.buchholz, Some(3.0 - row.score), "{row:?}");
    }
}

#[tokio::test]
async fn a_correspondence_round_robin_whose_players_let_their_time_run_out_finishes_on_time() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let (tokens, id, started) = robin_by_mail(&server, "slow", 1).await;
    // White plays a first turn in every game; Black never answers.
    let mut dice = Dice(5);
    for round in &started.pairings {
        let game = &round.games[0];
        let (white, black) = (&tokens[&game.white], &tokens[game.black.as_ref().unwrap()]);
        let room = game.room.as_ref().unwrap();
        let mut seats = seat(&server.signed_in(white), &server.signed_in(black), room).await;
        let mut played = Game::new(Variant::Standard);
        assert_eq!(turns(&mut seats, &mut played, 1, &mut dice).await, None);
    }
    server.shutdown().await.unwrap();

    // Two days pass (the stored times move back): every Black has run out of its day,
    // and the sweep of the server started again ends each game on time.
    database
        .query("UPDATE turns SET played_at = played_at - 172800000")
        .await;
    let server = TestServer::with(config(&database)).await;
    let over = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    let mut whites: HashMap<&str, f64> = HashMap::new();
    for game in over.pairings.iter().flat_map(|r| &r.games) {
        let time = Outcome::Win {
            winner: Color::White,
            reason: WinReason::Time,
        };
        assert_eq!(game.outcome, Some(time), "{game:?}");
        *whites.entry(game.white.as_str()).or_default() += 1.0;
    }
    for row in &over.standings {
        assert_eq!(row.games, 2, "{}", row.player);
        let won = whites.get(row.player.as_str()).copied().unwrap_or(0.0);
        assert_eq!(
            row.score, won,
            "{}: a win for each game as White",
            row.player
        );
    }
}

/// A live round robin of four starting in a second, entered by players named `prefix`
/// and a number: the players (in the order they joined, which is their place on the
/// Berger table), their tokens, and its id.
async fn robin_of_four(
    server: &Endpoint,
    prefix: &str,
) -> (Vec<(String, String)>, HashMap<String, String>, String) {
    let body = || {
        serde_json::json!({
            "name": "Club round robin",
            "format": "round-robin",
            "starts_at": now_ms() + LEAD_MS,
            "max_players": 4,
            "min_players": 4,
        })
    };
    entered(server, prefix, 4, body).await
}

#[tokio::test]
async fn a_round_robin_passes_over_rounds_withdrawals_emptied_and_finishes() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    // The two who meet in the last round stay; the two others withdraw during the
    // first, which leaves the second round with no game at all.
    let (entrants, tokens, id) = robin_of_four(&server, "club").await;
    let table = punct_pairing::berger(&[0, 1, 2, 3], punct_pairing::Cycles::Single);
    assert_eq!(table.len(), 3);
    let last = table[2].pairs[0];
    let stay = [last.white, last.black];
    let first = until(&server, &id, |v| v.summary.round == 1).await;
    assert_eq!(first.pairings[0].games.len(), 2);
    for (n, (_, token)) in entrants.iter().enumerate() {
        if !stay.contains(&n) {
            assert_eq!(
                post(&server.signed_in(token), &id, "withdraw").await,
                (200, None)
            );
        }
    }
    // Round 2 is passed over, and round 3's one game is paired.
    let third = until(&server, &id, |v| v.summary.round == 3).await;
    assert_eq!(third.summary.state, TournamentState::Running);
    assert!(
        third.pairings[0].games.iter().all(|g| g.outcome.is_some()),
        "forfeited"
    );
    assert!(
        third.pairings[1].games.is_empty(),
        "{:?}",
        third.pairings[1]
    );
    let games = &third.pairings[2].games;
    assert_eq!(games.len(), 1);
    let mut pair = [games[0].white.clone(), games[0].black.clone().unwrap()];
    pair.sort();
    let mut staying = stay.map(|n| entrants[n].0.clone());
    staying.sort();
    assert_eq!(pair, staying);
    let mut dice = Dice(5);
    play(
        &server.signed_in(&tokens[&games[0].white]),
        &server.signed_in(&tokens[games[0].black.as_ref().unwrap()]),
        games[0].room.as_ref().unwrap(),
        &mut dice,
    )
    .await;
    let done = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    assert_eq!(done.pairings.len(), 3);

    // When every game left vanishes, it finishes at once.
    let (entrants, _, id) = robin_of_four(&server, "few").await;
    until(&server, &id, |v| v.summary.round == 1).await;
    for (_, token) in &entrants[1..] {
        assert_eq!(
            post(&server.signed_in(token), &id, "withdraw").await,
            (200, None)
        );
    }
    let done = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    assert_eq!(
        done.pairings.len(),
        1,
        "nothing paired after the first round"
    );
    assert!(done.pairings[0].games.iter().all(|g| g.outcome.is_some()));
}

#[tokio::test]
async fn too_few_players_cancel_the_tournament_at_its_start() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let entrants = players(&server, "few", 1).await;
    let session = server.signed_in(&entrants[0].1);
    // Its start far enough off for the creation and the join to be in first on a
    // loaded machine: at 500 ms, CI once answered the creation with `cancelled`.
    let id = create(&session, &swiss(3, LEAD_MS, 8)).await;
    assert_eq!(post(&session, &id, "join").await, (200, None));
    let view = until(&server, &id, |v| {
        v.summary.state != TournamentState::Upcoming
    })
    .await;
    assert_eq!(view.summary.state, TournamentState::Cancelled);
    assert!(view.pairings.is_empty());
}

#[tokio::test]
async fn bad_requests_are_refused_with_their_codes_and_change_nothing() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let entrants = players(&server, "bad", 3).await;
    let sessions: Vec<Endpoint> = entrants.iter().map(|(_, t)| server.signed_in(t)).collect();
    let refused = |body: serde_json::Value| {
        let creator = &sessions[0];
        async move {
            let (status, answer) = creator
                .http("POST", "/api/tournaments", &body.to_string())
                .await;
            (status, api_error(&answer))
        }
    };
    let bad = (400, ErrorCode::BadRequest);
    let mut no_rounds = swiss(3, 60_000, 8);
    no_rounds.as_object_mut().unwrap().remove("rounds");
    assert_eq!(refused(no_rounds).await, bad);
    assert_eq!(refused(swiss(0, 60_000, 8)).await, bad);
    assert_eq!(refused(swiss(3, -60_000, 8)).await, bad, "in the past");
    assert_eq!(refused(swiss(3, 60_000, 1)).await, bad, "max below min");
    let mut robin = swiss(3, 60_000, 8);
    robin["format"] = "round-robin".into();
    assert_eq!(refused(robin).await, bad, "a round robin has no rounds");
    let mut unnamed = swiss(3, 60_000, 8);
    unnamed["name"] = " ".into();
    assert_eq!(refused(unnamed).await, bad);
    let mut odd = swiss(3, 60_000, 8);
    odd["format"] = "knockout".into();
    assert_eq!(refused(odd).await, bad);
    let mut endless = swiss(3, 60_000, 8);
    endless["format"] = "arena".into();
    endless.as_object_mut().unwrap().remove("rounds");
    endless["clock"] = serde_json::json!({"base": 60});
    assert_eq!(
        refused(endless.clone()).await,
        bad,
        "an arena without its end"
    );
    endless["ends_at"] = (now_ms() + 120_000).into();
    endless["clock"] = serde_json::json!({"days": 3});
    assert_eq!(refused(endless).await, bad, "an arena by correspondence");
    let (status, answer) = server
        .http("POST", "/api/tournaments", &swiss(3, 60_000, 8).to_string())
        .await;
    assert_eq!(
        (status, api_error(&answer)),
        (401, ErrorCode::SignInRequired)
    );
    let listed: punct_protocol::TournamentList = server.get("/api/tournaments").await;
    assert!(listed.upcoming.is_empty(), "nothing was made");

    let id = create(&sessions[0], &swiss(3, 60_000, 2)).await;
    assert_eq!(post(&sessions[0], &id, "join").await, (200, None));
    assert_eq!(
        post(&sessions[0], &id, "join").await,
        (409, Some(ErrorCode::AlreadyEntered))
    );
    assert_eq!(post(&sessions[1], &id, "join").await, (200, None));
    assert_eq!(
        post(&sessions[2], &id, "join").await,
        (409, Some(ErrorCode::TournamentFull))
    );
    assert_eq!(
        post(&sessions[2], &id, "withdraw").await,
        (409, Some(ErrorCode::NotEntered))
    );
    assert_eq!(
        post(&sessions[0], "no-such-id", "join").await,
        (404, Some(ErrorCode::NoSuchTournament))
    );
    let (status, _) = server.http("GET", "/api/tournaments/no-such-id", "").await;
    assert_eq!(status, 404);
    // Leaving before the start frees the place.
    assert_eq!(post(&sessions[1], &id, "withdraw").await, (200, None));
    assert_eq!(post(&sessions[2], &id, "join").await, (200, None));
    let entries: Vec<String> = view(&server, &id)
        .await
        .entries
        .into_iter()
        .map(|e| e.player)
        .collect();
    assert_eq!(entries, ["bad1", "bad3"]);
}

#[tokio::test]
async fn only_moderators_create_tournaments_when_the_server_says_so() {
    let database = Database::new();
    let server = TestServer::with(Config {
        tournament_creators: TournamentCreators::Moderators,
        ..config(&database)
    })
    .await;
    let entrants = players(&server, "who", 2).await;
    let player = server.signed_in(&entrants[0].1);
    let (status, answer) = player
        .http("POST", "/api/tournaments", &swiss(3, 60_000, 8).to_string())
        .await;
    assert_eq!(
        (status, api_error(&answer)),
        (403, ErrorCode::NotAModerator)
    );
    punct_server::admin(
        &config(&database),
        "who2",
        Console::Grant("moderator".into()),
        "runs tournaments",
    )
    .await
    .unwrap();
    create(&server.signed_in(&entrants[1].1), &swiss(3, 60_000, 8)).await;
}

/// Follows tournament `id` on `client`: the answer.
async fn follow(client: &mut punct_testing::Client, id: &str) -> ServerMessage {
    let tournament = id.to_owned();
    client
        .request(|rid| ClientMessage::Follow {
            id: rid,
            tournament,
        })
        .await
}

/// The next message of `client` that `wanted` picks, skipping the others.
async fn next_of<T>(
    client: &mut punct_testing::Client,
    wanted: impl Fn(ServerMessage) -> Option<T>,
) -> T {
    loop {
        if let Some(found) = wanted(client.recv().await) {
            return found;
        }
    }
}

#[tokio::test]
async fn a_follower_hears_the_players_the_rounds_and_their_next_game() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let entrants = players(&server, "fan", 4).await;
    let tokens: HashMap<String, String> = entrants.iter().cloned().collect();
    let id = create(&server.signed_in(&entrants[0].1), &swiss(2, 2000, 4)).await;

    // A player and a guest follow it before anyone has joined.
    let mut player = server.signed_in(&entrants[0].1).client().await;
    let mut guest = server.client().await;
    for follower in [&mut player, &mut guest] {
        match follow(follower, &id).await {
            ServerMessage::Tournament {
                id: Some(_),
                tournament,
            } => {
                assert_eq!(tournament.summary.players, 0);
            }
            other => panic!("{other:?}"),
        }
    }
    for (_, token) in &entrants {
        assert_eq!(
            post(&server.signed_in(token), &id, "join").await,
            (200, None)
        );
    }
    // Each entry is news.
    let four = |message| match message {
        ServerMessage::Tournament {
            id: None,
            tournament,
        } if tournament.summary.players == 4 => Some(()),
        _ => None,
    };
    next_of(&mut player, four).await;
    next_of(&mut guest, four).await;

    // At the start: the round, and to the player their game.
    let round = next_of(&mut player, |m| match m {
        ServerMessage::TournamentRound { tournament, round } if tournament == id => Some(round),
        _ => None,
    })
    .await;
    assert_eq!((round.round, round.games.len()), (1, 2));
    let (room, color, opponent) = next_of(&mut player, |m| match m {
        ServerMessage::TournamentGame {
            round: 1,
            room,
            color,
            opponent,
            ..
        } => Some((room, color, opponent)),
        ServerMessage::TournamentRound { .. } => panic!("one game each round"),
        _ => None,
    })
    .await;
    let game = round
        .games
        .iter()
        .find(|g| g.room.as_ref() == Some(&room))
        .unwrap();
    let me = entrants[0].0.clone();
    match color {
        Color::White => assert_eq!((&game.white, game.black.as_ref()), (&me, Some(&opponent))),
        Color::Black => assert_eq!((&game.white, game.black.as_ref()), (&opponent, Some(&me))),
    }
    let guest_round = next_of(&mut guest, |m| match m {
        ServerMessage::TournamentRound { round, .. } => Some(round),
        ServerMessage::TournamentGame { .. } => panic!("a guest plays no game"),
        _ => None,
    })
    .await;
    assert_eq!(guest_round, round);

    // A follower that comes later is told the game it has not finished.
    let mut again = server.signed_in(&entrants[0].1).client().await;
    follow(&mut again, &id).await;
    let told = next_of(&mut again, |m| match m {
        ServerMessage::TournamentGame { room, .. } => Some(room),
        _ => None,
    })
    .await;
    assert_eq!(told, room);

    // Once the round is played, the next is announced.
    let mut dice = Dice(5);
    play_round(&server, &id, 1, &tokens, &mut dice).await;
    let next = next_of(&mut player, |m| match m {
        ServerMessage::TournamentGame { round: 2, room, .. } => Some(room),
        _ => None,
    })
    .await;
    assert_ne!(next, room);
    // Unfollowed, then a tournament that is not there.
    match guest
        .request(|rid| ClientMessage::Unfollow { id: rid })
        .await
    {
        ServerMessage::Ack { seq: 0, .. } => {}
        other => panic!("{other:?}"),
    }
    let reply = guest
        .request(|rid| ClientMessage::Follow {
            id: rid,
            tournament: "no-such-id".into(),
        })
        .await;
    assert_eq!(
        punct_testing::error_code(reply),
        ErrorCode::NoSuchTournament
    );
}

#[tokio::test]
async fn a_burst_of_changes_reaches_a_follower_as_one_view_a_second() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let entrants = players(&server, "rush", 6).await;
    let id = create(&server.signed_in(&entrants[0].1), &swiss(2, 60_000, 8)).await;
    let mut guest = server.client().await;
    let answer = follow(&mut guest, &id).await;
    assert!(matches!(
        answer,
        ServerMessage::Tournament { id: Some(_), .. }
    ));

    // Six entries in a row: the first is told at once, those after it together.
    let started = tokio::time::Instant::now();
    for (_, token) in &entrants {
        assert_eq!(
            post(&server.signed_in(token), &id, "join").await,
            (200, None)
        );
    }
    let joining = started.elapsed();
    let mut views = 0;
    loop {
        let players = next_of(&mut guest, |m| match m {
            ServerMessage::Tournament {
                id: None,
                tournament,
            } => Some(tournament.summary.players),
            _ => None,
        })
        .await;
        views += 1;
        if players == 6 {
            break;
        }
    }
    // One view a second at most, the last as it stands: none of the six is lost.
    let allowed = 2 + joining.as_secs();
    assert!(views <= allowed, "{views} views in {joining:?}");
    assert!(views < 6, "{views} views for six entries in {joining:?}");
}

#[tokio::test]
async fn an_arena_pairs_players_as_their_games_end_and_a_pause_plays_its_game_out() {
    let database = Database::new();
    let server = TestServer::with(config(&database)).await;
    let entrants = players(&server, "arena", 4).await;
    let tokens: HashMap<String, String> = entrants.iter().cloned().collect();
    let start = now_ms() + LEAD_MS;
    let body = serde_json::json!({
        "name": "Blitz arena",
        "format": "arena",
        "clock": {"base": 60, "increment": 1},
        "starts_at": start,
        "ends_at": start + 10_000,
        "max_players": 8,
    });
    let id = create(&server.signed_in(&entrants[0].1), &body).await;
    for (_, token) in &entrants[..3] {
        assert_eq!(
            post(&server.signed_in(token), &id, "join").await,
            (200, None)
        );
    }
    let first = until(&server, &id, |v| v.summary.round == 1).await;
    assert_eq!(first.pairings[0].games.len(), 1, "two of three paired");
    // A late player comes into the pool and meets the one waiting at once.
    let late = server.signed_in(&entrants[3].1);
    assert_eq!(post(&late, &id, "join").await, (200, None));
    let second = until(&server, &id, |v| v.summary.round == 2).await;
    let mut dice = Dice(17);
    let opponent_of = |view: &TournamentView, round: usize, player: &str| {
        view.pairings[round].games.iter().find_map(|g| {
            let black = g.black.clone().unwrap();
            (g.white == player)
                .then(|| black.clone())
                .or((black == player).then(|| g.white.clone()))
        })
    };
    for round in [1, 2] {
        play_round(&server, &id, round, &tokens, &mut dice).await;
    }
    // All four back in the pool: nobody meets the opponent just played.
    let third = until(&server, &id, |v| v.summary.round == 3).await;
    assert_eq!(third.pairings[2].games.len(), 2);
    for (name, _) in &entrants {
        let before = opponent_of(&second, 0, name).or(opponent_of(&second, 1, name));
        assert_ne!(opponent_of(&third, 2, name), before, "{name}");
    }
    // A player pauses during a game: it is played out, not forfeited, and they are
    // paired no more until they come back.
    let pausing = third.pairings[2].games[0].white.clone();
    let session = server.signed_in(&tokens[&pausing]);
    assert_eq!(post(&session, &id, "withdraw").await, (200, None));
    play_round(&server, &id, 3, &tokens, &mut dice).await;
    let fourth = until(&server, &id, |v| v.summary.round == 4).await;
    assert!(
        fourth.pairings[3]
            .games
            .iter()
            .all(|g| g.white != pausing && g.black.as_ref() != Some(&pausing))
    );
    assert_eq!(post(&session, &id, "join").await, (200, None));
    assert_eq!(
        post(&session, &id, "join").await,
        (409, Some(ErrorCode::AlreadyEntered))
    );

    // Time up: over, its standings in arena points (2 a win, 4 on a streak, 1 a draw) as
    // the stored games have them.
    let over = until(&server, &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    // The games paired before the end are played out after it, and count.
    let open = |view: &TournamentView| {
        let games = view.pairings.iter().flat_map(|r| &r.games);
        games
            .filter(|g| g.black.is_some() && g.outcome.is_none())
            .count()
    };
    assert!(open(&over) > 0, "a game under way at the end");
    for round in 1..=over.summary.round {
        play_round(&server, &id, round, &tokens, &mut dice).await;
    }
    let over = until(&server, &id, |v| open(v) == 0).await;
    assert_eq!(over.summary.state, TournamentState::Finished);
    let mut points: HashMap<String, (u32, u32)> = HashMap::new();
    for (white, black, white_points) in stored_games(&server, &over).await {
        let Some(white_points) = white_points else {
            continue;
        };
        for (player, half) in [(white, white_points), (black, 2 - white_points)] {
            let (score, streak) = points.entry(player).or_default();
            *score += if half == 2 && *streak >= 2 { 4 } else { half };
            *streak = if half == 2 { *streak + 1 } else { 0 };
        }
    }
    for row in &over.standings {
        let score = points.get(&row.player).map_or(0, |p| p.0);
        assert_eq!(row.score, f64::from(score), "{}", row.player);
        assert_eq!(row.buchholz, None);
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_swiss_on_a_cluster_is_paired_on_one_node_and_played_on_the_others() {
    let (database, nats) = (Database::postgres(), punct_testing::Nats::start());
    let nodes = crate::cluster::cluster(&database, &nats);
    let mut entrants = Vec::new();
    for n in 0..4 {
        let name = format!("node{n}");
        let token = nodes[n % 3].register(&name, PASSWORD).await;
        entrants.push((name, token));
    }
    let tokens: HashMap<String, String> = entrants.iter().cloned().collect();
    // Made on node 0 (its director runs there); joined and followed through the others.
    let id = create(&nodes[0].signed_in(&entrants[0].1), &swiss(2, 2000, 4)).await;
    for (n, (_, token)) in entrants.iter().enumerate() {
        let node = &nodes[1 + n % 2];
        assert_eq!(post(&node.signed_in(token), &id, "join").await, (200, None));
    }
    let mut follower = nodes[2].signed_in(&entrants[1].1).client().await;
    follow(&mut follower, &id).await;
    let mut dice = Dice(23);
    for round in 1..=2u32 {
        let view = until(&nodes[1], &id, |v| v.summary.round >= round).await;
        for game in &view.pairings[round as usize - 1].games {
            // White plays through node 1, Black through node 2; the room runs where it
            // was first entered, and its end reaches the director on node 0.
            let white = nodes[1].signed_in(&tokens[&game.white]);
            let black = nodes[2].signed_in(&tokens[game.black.as_ref().unwrap()]);
            play(&white, &black, game.room.as_ref().unwrap(), &mut dice).await;
        }
        let told = next_of(&mut follower, |m| match m {
            ServerMessage::TournamentRound { round: r, .. } if r.round == round => Some(r),
            _ => None,
        })
        .await;
        assert_eq!(told, view.pairings[round as usize - 1]);
    }
    let done = until(&nodes[2], &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;
    assert!(done.standings.iter().all(|row| row.games == 2));
}

/// Where tournament `id`'s director runs, as `node` says: the holder's tag, if a live
/// node holds it.
async fn director_node(node: &Endpoint, id: &str) -> Option<u32> {
    let whereabouts: TournamentNode = node.get(&format!("/api/tournaments/{id}/node")).await;
    whereabouts.alive.then_some(whereabouts.node).flatten()
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_swiss_whose_director_s_node_is_killed_mid_round_finishes_pairing_nobody_twice() {
    let (database, nats) = (Database::postgres(), punct_testing::Nats::start());
    let mut nodes = crate::cluster::cluster(&database, &nats);
    let mut tags = Vec::new();
    for node in &nodes {
        let view: punct_protocol::NodeView = node.get("/api/node").await;
        tags.push(view.node);
    }
    let entrants = players(&nodes[1], "dir", 8).await;
    let tokens: HashMap<String, String> = entrants.iter().cloned().collect();
    let id = create(&nodes[0].signed_in(&entrants[0].1), &swiss(3, 2000, 8)).await;
    for (n, (_, token)) in entrants.iter().enumerate() {
        let node = &nodes[n % 3];
        assert_eq!(post(&node.signed_in(token), &id, "join").await, (200, None));
    }
    // Every node names the same director's node; nobody asks an unknown tournament.
    let held = director_node(&nodes[2], &id)
        .await
        .expect("a live node runs it");
    for node in &nodes {
        assert_eq!(director_node(node, &id).await, Some(held));
    }
    let (status, body) = nodes[1]
        .http("GET", "/api/tournaments/nothing-here/node", "")
        .await;
    assert_eq!(
        (status, api_error(&body)),
        (404, ErrorCode::NoSuchTournament)
    );
    let doomed = tags.iter().position(|&tag| tag == held).unwrap();

    // The first round is played through every node.
    let mut dice = Dice(0x5eed);
    let view = until(&nodes[0], &id, |v| v.summary.round >= 1).await;
    for (n, game) in view.pairings[0].games.iter().enumerate() {
        let white = nodes[n % 3].signed_in(&tokens[&game.white]);
        let black = nodes[(n + 1) % 3].signed_in(&tokens[game.black.as_ref().unwrap()]);
        play(&white, &black, game.room.as_ref().unwrap(), &mut dice).await;
    }
    // The second: two games played, one under way on the director's node, one not begun,
    // when that node is killed.
    let view = until(&nodes[0], &id, |v| v.summary.round >= 2).await;
    let games = view.pairings[1].games.clone();
    assert_eq!(games.len(), 4);
    let on = |node: &Process, player: &str| node.signed_in(&tokens[player]);
    let black = |n: usize| games[n].black.clone().unwrap();
    for played in &games[..2] {
        let (white, black) = (
            on(&nodes[doomed], &played.white),
            on(&nodes[(doomed + 1) % 3], played.black.as_ref().unwrap()),
        );
        play(&white, &black, played.room.as_ref().unwrap(), &mut dice).await;
    }
    let room = games[2].room.clone().unwrap();
    let mut game = Game::new(Variant::Standard);
    {
        let white = on(&nodes[doomed], &games[2].white);
        let black = on(&nodes[doomed], &black(2));
        let mut seats = seat(&white, &black, &room).await;
        assert!(turns(&mut seats, &mut game, 2, &mut dice).await.is_none());
    }
    // A follower on a node that lives on, whose director's events came from the doomed
    // node: it follows the director to its new node by itself.
    let mut follower = on(&nodes[(doomed + 1) % 3], &games[0].white).client().await;
    follow(&mut follower, &id).await;
    let dead = nodes.remove(doomed);
    let killed = tokio::time::Instant::now();
    dead.kill();
    let living = &nodes;

    // A living node takes the director over though nothing asks for it: only the
    // route that reads its claim, which loads nothing, is asked.
    let taken_over = loop {
        if let Some(tag) = director_node(&living[0], &id).await
            && tag != held
        {
            break killed.elapsed();
        }
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "the director was not taken over before the sweep would"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Its players come back on the living nodes and finish the round.
    let seats = seat(
        &on(&living[0], &games[2].white),
        &on(&living[1], &black(2)),
        &room,
    )
    .await;
    finish(seats, game, &mut dice).await;
    play(
        &on(&living[1], &games[3].white),
        &on(&living[0], &black(3)),
        games[3].room.as_ref().unwrap(),
        &mut dice,
    )
    .await;
    let ended = killed.elapsed();
    let view = until(&living[1], &id, |v| v.summary.round >= 3).await;
    let paired = killed.elapsed();
    let told = next_of(&mut follower, |m| match m {
        ServerMessage::TournamentRound { round: r, .. } if r.round == 3 => Some(r),
        _ => None,
    })
    .await;
    assert_eq!(told, view.pairings[2], "the follower hears round 3");
    eprintln!(
        "kill to takeover {taken_over:?}; kill to round 3 paired {paired:?} \
         (the round's last game ended {ended:?} after the kill)"
    );
    for (n, game) in view.pairings[2].games.iter().enumerate() {
        let white = living[n % 2].signed_in(&tokens[&game.white]);
        let black = living[(n + 1) % 2].signed_in(&tokens[game.black.as_ref().unwrap()]);
        play(&white, &black, game.room.as_ref().unwrap(), &mut dice).await;
    }
    let done = until(&living[0], &id, |v| {
        v.summary.state == TournamentState::Finished
    })
    .await;

    // As stored: each (round, board) once, nobody twice in a round, nobody met twice.
    let rows = database
        .query(&format!(
            "SELECT round, board, white, black FROM tournament_pairings \
             WHERE tournament = '{id}' ORDER BY round, board"
        ))
        .await;
    assert_eq!(rows.len(), 12, "three rounds of four games: {rows:?}");
    let (mut boards, mut seated, mut met) = (HashSet::new(), HashSet::new(), HashSet::new());
    for row in &rows {
        let [round, board, white, black] = [0, 1, 2, 3].map(|i| row[i].clone().unwrap());
        assert!(boards.insert((round.clone(), board)), "{row:?}");
        assert!(seated.insert((round.clone(), white.clone())), "{row:?}");
        assert!(seated.insert((round, black.clone())), "{row:?}");
        let mut pair = [white, black];
        pair.sort();
        assert!(met.insert(pair), "{row:?}");
    }
    // Every stored game's result is in the standings, which are the records'.
    assert_eq!(done.pairings.len(), 3);
    let table = recomputed(&living[0], &done).await;
    assert_eq!(done.standings.len(), 8);
    for row in &done.standings {
        let (score, buchholz, sb) = table[&row.player];
        assert_eq!(row.games, 3, "{}", row.player);
        assert_eq!(row.score, f64::from(score) / 2.0, "{}", row.player);
        assert_eq!(row.buchholz, Some(f64::from(buchholz) / 2.0));
        assert_eq!(row.sonneborn_berger, Some(f64::from(sb) / 4.0));
    }
}
