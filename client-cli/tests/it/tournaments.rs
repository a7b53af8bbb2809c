//! Tournaments from the terminal against a real server: bots that fill a Swiss and play
//! it to the end (`punct bot --tournament`), a player who waits for their pairing and
//! plays it (`punct tournament play`), and `punct tournaments`, `tournament show`,
//! `join` and `withdraw` with what the server refuses. The same 64 bots finish their
//! Swiss on a cluster of three whose director's node is killed mid-round.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use punct_client::Client;
use punct_protocol::{
    CreateTournament, NodeView, TimeControl, TournamentFormat, TournamentNode, TournamentState,
    TournamentView,
};
use punct_rules::{Color, Outcome, Variant};
use punct_testing::{Database, Endpoint, Nats, Process, TestServer};
use tempfile::TempDir;

use crate::common::{Punct, register, run_punct, start_server};

const PASSWORD: &str = "a fine password";

/// A configuration directory in which `punct login --register` made `username`.
fn player(url: &str, username: &str) -> TempDir {
    let config = tempfile::tempdir().expect("temporary directory");
    register(url, username, PASSWORD, config.path());
    config
}

/// Runs `punct` as the player of `config`: its standard output, or its standard error
/// when it fails.
fn punct(config: &Path, args: &[&str]) -> Result<String, String> {
    let output = run_punct(args, "", Some(config));
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    match output.status.success() {
        true => Ok(text(&output.stdout)),
        false => Err(text(&output.stderr)),
    }
}

/// On a runtime of its own: these tests are not async, the `punct` processes are.
fn block_on<T>(work: impl Future<Output = T>) -> T {
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(work)
}

/// Milliseconds since the Unix epoch, now.
fn now() -> i64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH);
    i64::try_from(now.expect("after 1970").as_millis()).expect("a time")
}

/// A Swiss of `rounds` rounds without clocks, made by a new account, that starts
/// `in_ms` from now; answers its id.
fn swiss(url: &str, rounds: u32, in_ms: i64) -> String {
    create(
        url,
        CreateTournament {
            name: "Friday <b>Swiss</b>".into(),
            format: TournamentFormat::Swiss,
            variant: Variant::Standard,
            clock: None,
            rated: false,
            starts_at: now() + in_ms,
            ends_at: None,
            rounds: Some(rounds),
            min_players: 2,
            max_players: 8,
        },
    )
}

/// The tournament of `request`, made by a new account; answers its id. Registering may
/// wait behind other tests' password hashes (the server hashes one a core at a time):
/// the request's times move on by as long as it took, so that the players have the
/// lead the test gave them.
fn create(url: &str, mut request: CreateTournament) -> String {
    block_on(async {
        let asked = now();
        let anonymous = Client::new(url.parse().expect("URL")).expect("client");
        let session = anonymous
            .register("organiser", PASSWORD)
            .await
            .expect("registered");
        let waited = now() - asked;
        request.starts_at += waited;
        request.ends_at = request.ends_at.map(|end| end + waited);
        let organiser = anonymous.with_session(&session.token);
        let created = organiser.create_tournament(&request).await;
        created.expect("created").summary.id
    })
}

fn view(url: &str, id: &str) -> TournamentView {
    block_on(async {
        let client = Client::new(url.parse().expect("URL")).expect("client");
        client.tournament(id).await.expect("the tournament")
    })
}

/// A bot of level 1 for the account of `config` in tournament `id`.
fn bot(url: &str, id: &str, config: &Path) -> Punct {
    let args = [
        "bot",
        "--server",
        url,
        "--tournament",
        id,
        "--level",
        "1",
        "--ms-per-turn",
        "20",
    ];
    Punct::spawn_in(&args, Some(config))
}

#[test]
fn four_bots_fill_a_two_round_swiss_and_play_every_game_to_the_end() {
    let server = start_server();
    let url = server.url.as_str();
    // Registered first, then made: the start is not passed while they register.
    let names = ["bot1", "bot2", "bot3", "bot4"];
    let configs: Vec<TempDir> = names.iter().map(|name| player(url, name)).collect();
    let id = swiss(url, 2, 10_000);
    let bots: Vec<Punct> = configs.iter().map(|c| bot(url, &id, c.path())).collect();

    let mut rooms = HashSet::new();
    for lines in bots.into_iter().map(Punct::finish) {
        let seats: Vec<_> = lines.iter().filter(|l| l["type"] == "seat").collect();
        assert_eq!(seats.len(), 2, "one game a round: {seats:?}");
        rooms.extend(
            seats
                .iter()
                .map(|s| s["room"].as_str().expect("room").to_owned()),
        );
        assert_eq!(
            lines.iter().filter(|l| l["type"] == "game_over").count(),
            2,
            "both games played to their end"
        );
        let last = lines.last().expect("lines");
        assert_eq!(last["type"], "tournament_over");
        assert_eq!(last["state"], "finished");
    }
    assert_eq!(rooms.len(), 4, "two rounds of two games");

    let view = view(url, &id);
    assert_eq!(view.summary.state, TournamentState::Finished);
    assert_eq!(view.pairings.len(), 2);
    let mut pairs = HashSet::new();
    for game in view.pairings.iter().flat_map(|r| &r.games) {
        assert!(game.outcome.is_some(), "every game has ended: {game:?}");
        let mut pair = [game.white.clone(), game.black.clone().expect("no bye")];
        pair.sort();
        assert!(pairs.insert(pair), "nobody meets twice");
    }
    let points: f64 = view.standings.iter().map(|row| row.score).sum();
    assert_eq!(points, 4.0, "a point a game");

    // The terminal shows the same: the list, and the tournament with its results.
    let config = configs[0].path();
    let list = punct(config, &["tournaments", "--server", url]).expect("listed");
    assert!(list.starts_with("finished:\n"), "{list}");
    assert!(
        list.contains(&id) && list.contains("Friday <b>Swiss</b>"),
        "{list}"
    );
    let shown = punct(config, &["tournament", "show", "--server", url, &id]).expect("shown");
    assert!(shown.contains("finished"), "{shown}");
    assert!(shown.contains("round 2:"), "{shown}");
    let leader = &view.standings[0];
    assert!(
        shown.contains(&format!("  1  {:<24}  {:>5}", leader.player, leader.score)),
        "{shown}"
    );
}

#[test]
fn bots_play_an_arena_game_after_game_until_its_end() {
    let server = start_server();
    let url = server.url.as_str();
    // Three, so that a player back in the pool finds someone other than the opponent
    // just played waiting.
    let configs = [player(url, "ada"), player(url, "bob"), player(url, "cyd")];
    let id = create(
        url,
        CreateTournament {
            name: "Lunch arena".into(),
            format: TournamentFormat::Arena,
            variant: Variant::Basic,
            clock: Some(TimeControl::clock(60, 0)),
            rated: false,
            starts_at: now() + 10_000,
            ends_at: Some(now() + 19_000),
            rounds: None,
            min_players: 2,
            max_players: 8,
        },
    );
    let bots: Vec<Punct> = configs.iter().map(|c| bot(url, &id, c.path())).collect();
    let mut rooms = HashSet::new();
    let mut games = Vec::new();
    for lines in bots.into_iter().map(Punct::finish) {
        assert_eq!(lines.last().expect("lines")["state"], "finished");
        let seats = lines.iter().filter(|l| l["type"] == "seat");
        rooms.extend(seats.map(|s| s["room"].as_str().expect("room").to_owned()));
        games.push(lines.iter().filter(|l| l["type"] == "game_over").count());
    }
    let played: usize = games.iter().sum();
    assert!(played >= 4, "paired again after their games: {games:?}");

    // Every game paired was played to its end by both its players, those paired just
    // before the time was up too.
    let view = view(url, &id);
    let paired: HashSet<&str> = view
        .pairings
        .iter()
        .flat_map(|p| &p.games)
        .filter_map(|g| g.room.as_deref())
        .collect();
    assert_eq!(2 * paired.len(), played);
    assert_eq!(paired, rooms.iter().map(String::as_str).collect());
    assert!(view.standings.iter().all(|row| row.buchholz.is_none()));
    let shown = punct(
        configs[0].path(),
        &["tournament", "show", "--server", url, &id],
    );
    let shown = shown.expect("shown");
    assert!(
        shown.contains("arena, basic 60+0") && shown.contains("\npairing 2:\n"),
        "{shown}"
    );
}

#[test]
fn a_player_waits_for_their_pairing_and_plays_it_with_a_script() {
    let server = start_server();
    let url = server.url.as_str();
    let anna = player(url, "anna");
    let computer = player(url, "computer");
    let id = swiss(url, 1, 10_000);
    let joined = punct(anna.path(), &["tournament", "join", "--server", url, &id]);
    assert!(joined.expect("joined").starts_with("anna joined"));
    let opponent = bot(url, &id, computer.path());

    let dir = tempfile::tempdir().expect("temporary directory");
    let script = dir.path().join("resign.txt");
    std::fs::write(&script, "resign\n").expect("written");
    let args = [
        "tournament",
        "play",
        "--server",
        url,
        &id,
        "--script",
        script.to_str().expect("UTF-8"),
    ];
    let mut anna_plays = Punct::spawn_in(&args, Some(anna.path()));
    let seat = anna_plays.next();
    assert_eq!(seat["type"], "seat");
    assert!(seat["token"].is_null(), "the account holds the seat");
    assert_eq!(anna_plays.next()["type"], "connected");
    anna_plays.finish();

    let lines = opponent.finish();
    assert_eq!(lines.last().expect("lines")["state"], "finished");
    let view = view(url, &id);
    let game = &view.pairings[0].games[0];
    assert_eq!(game.room.as_deref(), seat["room"].as_str());
    let reason = serde_json::to_value(game.outcome).expect("JSON")["reason"].clone();
    assert_eq!(reason, "resignation", "{game:?}");
    let winner = &view.standings[0];
    assert_eq!((winner.player.as_str(), winner.score), ("computer", 1.0));
}

#[test]
fn joining_and_withdrawing_say_what_the_server_refuses() {
    let server = start_server();
    let url = server.url.as_str();
    let id = swiss(url, 3, 600_000);
    let anna = player(url, "anna");
    let nobody = tempfile::tempdir().expect("temporary directory");
    let join = ["tournament", "join", "--server", url, &id];
    let withdraw = ["tournament", "withdraw", "--server", url, &id];

    let refused = punct(nobody.path(), &join).expect_err("not signed in");
    assert!(refused.contains("punct login first"), "{refused}");
    assert!(punct(anna.path(), &join).is_ok());
    let again = punct(anna.path(), &join).expect_err("entered once");
    assert!(again.contains("already-entered"), "{again}");
    let shown = punct(anna.path(), &["tournament", "show", "--server", url, &id]);
    let shown = shown.expect("shown");
    assert!(
        shown.contains("starts 20") && shown.contains("\n  1  anna "),
        "{shown}"
    );

    let left = punct(anna.path(), &withdraw).expect("withdrawn");
    assert_eq!(left, "anna withdrew from Friday <b>Swiss</b>\n");
    let twice = punct(anna.path(), &withdraw).expect_err("not entered");
    assert!(twice.contains("not-entered"), "{twice}");
    assert_eq!(view(url, &id).summary.players, 0, "the place is free again");

    let unknown = ["tournament", "show", "--server", url, "no-such-id"];
    let missing = punct(anna.path(), &unknown).expect_err("no such tournament");
    assert!(missing.contains("no-such-tournament"), "{missing}");
    let unknown = [
        "tournament",
        "play",
        "--server",
        url,
        "no-such-id",
        "--script",
        "-",
    ];
    let missing = punct(anna.path(), &unknown).expect_err("nothing to follow");
    assert!(missing.contains("no-such-tournament"), "{missing}");
    let list = punct(anna.path(), &["tournaments", "--server", url]).expect("listed");
    assert!(list.starts_with("upcoming:\n  "), "{list}");
}

#[test]
fn a_player_creates_each_format_from_the_terminal_and_is_told_what_is_refused() {
    let server = start_server();
    let url = server.url.as_str();
    let anna = player(url, "anna");
    let create = |flags: &[&str]| {
        let args = ["tournament", "create", "--server", url, "--name", "Anna's"];
        punct(anna.path(), &[&args[..], flags].concat())
    };
    // The id first, then the tournament as `show` prints it.
    let id_of = |printed: &str| printed.lines().next().expect("an id").to_owned();

    let before = now();
    let swiss = create(&[
        "--format",
        "swiss",
        "--rounds",
        "5",
        "--clock",
        "5m+3s",
        "--rated",
        "--starts-in",
        "10m",
        "--max-players",
        "8",
    ])
    .expect("a Swiss");
    let after = now();
    let settings = "\nswiss, 5 rounds, standard 300+3, rated, by anna\n";
    assert!(swiss.contains(settings), "{swiss}");
    let made = view(url, &id_of(&swiss)).summary;
    assert_eq!(made.format, TournamentFormat::Swiss);
    assert_eq!(made.rounds, Some(5));
    assert_eq!(made.clock, Some(TimeControl::clock(300, 3)));
    assert!(made.rated);
    assert!((before + 600_000..=after + 600_000).contains(&made.starts_at));
    assert_eq!((made.min_players, made.max_players), (2, 8));

    let arena = create(&[
        "--format",
        "arena",
        "--variant",
        "basic",
        "--clock",
        "3m+2s",
        "--lasts",
        "1h",
    ])
    .expect("an arena");
    let made = view(url, &id_of(&arena)).summary;
    assert_eq!(
        (made.format, made.variant),
        (TournamentFormat::Arena, Variant::Basic)
    );
    assert_eq!(
        made.ends_at,
        Some(made.starts_at + 3_600_000),
        "an hour long"
    );
    assert!(!made.rated);

    let robin = create(&[
        "--format",
        "double-round-robin",
        "--clock",
        "3d",
        "--min-players",
        "3",
    ])
    .expect("a round robin by correspondence");
    let made = view(url, &id_of(&robin)).summary;
    assert_eq!(made.format, TournamentFormat::DoubleRoundRobin);
    assert_eq!(made.clock.and_then(|c| c.days), Some(3));
    assert_eq!(made.min_players, 3);

    // What the server refuses, it says; what the terminal cannot parse, it says first.
    let roundless = create(&["--format", "swiss"]).expect_err("a Swiss has rounds");
    assert!(roundless.contains("bad-request"), "{roundless}");
    let unknown = create(&["--format", "knockout"]).expect_err("no such format");
    assert!(unknown.contains("round-robin"), "{unknown}");
    let nobody = tempfile::tempdir().expect("temporary directory");
    let args = [
        "tournament",
        "create",
        "--server",
        url,
        "--name",
        "x",
        "--format",
        "arena",
    ];
    let anonymous = punct(nobody.path(), &args).expect_err("not signed in");
    assert!(anonymous.contains("punct login first"), "{anonymous}");
    let listed = punct(anna.path(), &["tournaments", "--server", url]).expect("listed");
    assert_eq!(listed.matches("Anna's").count(), 3, "{listed}");
}

/// Each player's score, Buchholz and Sonneborn-Berger worked out from the stored games
/// of `view` (a Swiss without byes or withdrawals), to compare with its standings.
fn standings_of_records(url: &str, view: &TournamentView) -> Vec<(String, f64, f64, f64)> {
    let records = block_on(async {
        let client = Client::new(url.parse().expect("URL")).expect("client");
        let mut records = Vec::new();
        for game in view.pairings.iter().flat_map(|r| &r.games) {
            let room = game.room.as_deref().expect("no bye among 64");
            let record = client.record(room).await.expect("its record");
            let white = record.outcome.map(|outcome| match outcome {
                Outcome::Win {
                    winner: Color::White,
                    ..
                } => 1.0,
                Outcome::Win { .. } => 0.0,
                Outcome::Draw { .. } => 0.5,
            });
            let black = game.black.clone().expect("no bye");
            records.push((game.white.clone(), black, white.expect("every game over")));
        }
        records
    });
    let mut score: HashMap<String, f64> = HashMap::new();
    for (white, black, points) in &records {
        *score.entry(white.clone()).or_default() += points;
        *score.entry(black.clone()).or_default() += 1.0 - points;
    }
    let mut tie_breaks: HashMap<String, (f64, f64)> = HashMap::new();
    for (white, black, points) in &records {
        for (me, them, mine) in [(white, black, *points), (black, white, 1.0 - points)] {
            let (buchholz, sonneborn) = tie_breaks.entry(me.clone()).or_default();
            *buchholz += score[them];
            *sonneborn += mine * score[them];
        }
    }
    score
        .iter()
        .map(|(player, &points)| {
            let (buchholz, sonneborn) = tie_breaks[player];
            (player.clone(), points, buchholz, sonneborn)
        })
        .collect()
}

/// The players of the 64-bot Swiss and its rounds.
const BOTS: usize = 64;
const ROUNDS: u32 = 7;

/// `BOTS` players, registered at the same time, player `n` through `servers(n)` (a
/// server, or a cluster's nodes in the order that bot is to try them), where its bot
/// finds its session again.
fn sixty_four_players(servers: impl Fn(usize) -> String + Sync) -> Vec<TempDir> {
    std::thread::scope(|scope| {
        let registering: Vec<_> = (0..BOTS)
            .map(|n| {
                let servers = &servers;
                scope.spawn(move || player(&servers(n), &format!("swiss{}", n + 1)))
            })
            .collect();
        registering
            .into_iter()
            .map(|h| h.join().expect("registered"))
            .collect()
    })
}

/// The Swiss of `ROUNDS` rounds for `BOTS` players with short clocks, made on `url`.
fn sixty_four_swiss(url: &str) -> String {
    create(
        url,
        CreateTournament {
            name: "Sixty-four".into(),
            format: TournamentFormat::Swiss,
            variant: Variant::Standard,
            clock: Some(TimeControl {
                base: 60,
                increment: 1,
                days: None,
            }),
            rated: true,
            // Time for 64 processes to start and join on a busy machine.
            starts_at: now() + 20_000,
            ends_at: None,
            rounds: Some(ROUNDS),
            min_players: 2,
            max_players: 64,
        },
    )
}

/// Waits for every bot of the 64-bot Swiss `id` to end, then checks the tournament as
/// `url` tells it: each bot played a game a round to its end; every round complete,
/// nobody met twice, the colour rules kept; and the standings are those of the stored
/// games, ranked by score, Buchholz and Sonneborn-Berger. Answers what each bot printed.
fn sixty_four_finish(url: &str, id: &str, bots: Vec<Punct>) -> Vec<Vec<serde_json::Value>> {
    let printed: Vec<_> = bots.into_iter().map(Punct::finish).collect();
    for lines in &printed {
        let rooms: HashSet<_> = lines
            .iter()
            .filter(|l| l["type"] == "seat")
            .map(|l| l["room"].clone())
            .collect();
        assert_eq!(rooms.len(), ROUNDS as usize, "a game a round");
        // Each seen to its end: its `game_over`, or, for a bot that came back to a game
        // moved to another node after it ended, the ended game's snapshot.
        let ends = lines.iter().filter(|l| {
            l["type"] == "game_over" || (l["type"] == "snapshot" && !l["room"]["outcome"].is_null())
        });
        assert_eq!(ends.count(), ROUNDS as usize, "each game to its end");
        let last = lines.last().expect("lines");
        assert_eq!(last["type"], "tournament_over", "{last}");
    }

    let view = view(url, id);
    assert_eq!(view.summary.state, TournamentState::Finished);
    assert_eq!(view.pairings.len(), ROUNDS as usize);
    let mut met = HashSet::new();
    let mut colours: HashMap<String, String> = HashMap::new();
    for round in &view.pairings {
        assert_eq!(
            round.games.len(),
            BOTS / 2,
            "round {}: everyone plays",
            round.round
        );
        for game in &round.games {
            let black = game.black.clone().expect("no bye among 64");
            let mut pair = [game.white.clone(), black.clone()];
            pair.sort();
            assert!(met.insert(pair), "nobody meets twice: {game:?}");
            colours.entry(game.white.clone()).or_default().push('W');
            colours.entry(black).or_default().push('B');
        }
    }
    for (player, seq) in &colours {
        assert!(
            !seq.contains("WWW") && !seq.contains("BBB"),
            "{player}: {seq}"
        );
        let whites = seq.matches('W').count();
        assert!(whites.abs_diff(seq.len() - whites) <= 2, "{player}: {seq}");
    }
    let recomputed = standings_of_records(url, &view);
    assert_eq!(recomputed.len(), BOTS);
    for (player, score, buchholz, sonneborn) in recomputed {
        let row = view.standings.iter().find(|r| r.player == player);
        let row = row.unwrap_or_else(|| panic!("{player} stands"));
        assert_eq!(row.score, score, "{player}'s score");
        assert_eq!(row.buchholz, Some(buchholz), "{player}'s Buchholz");
        assert_eq!(
            row.sonneborn_berger,
            Some(sonneborn),
            "{player}'s Sonneborn-Berger"
        );
        assert_eq!(row.games, ROUNDS, "{player}");
    }
    let keys: Vec<_> = view
        .standings
        .iter()
        .map(|r| (r.score, r.buchholz, r.sonneborn_berger))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{keys:?}");
    printed
}

#[test]
fn sixty_four_bots_play_a_seven_round_swiss_whose_standings_are_its_stored_games() {
    // 64 players from one address: no cap on sign-ins, nor on connections (each bot
    // holds two: the tournament it follows and its game).
    let server = TestServer::in_background(punct_server::Config {
        sign_ins_per_minute: 0,
        max_connections_per_ip: 0,
        ..punct_server::Config::default()
    });
    let url = server.url.as_str();
    let configs = sixty_four_players(|_| url.to_owned());
    let id = sixty_four_swiss(url);
    let bots: Vec<Punct> = configs.iter().map(|c| bot(url, &id, c.path())).collect();
    sixty_four_finish(url, &id, bots);
}

/// Where tournament `id`'s director runs, as `node` says: the tag of the node that
/// holds it, while that node lives.
fn director_node(node: &Endpoint, id: &str) -> Option<u32> {
    let path = format!("/api/tournaments/{id}/node");
    let whereabouts: TournamentNode = block_on(node.get(&path));
    whereabouts.alive.then_some(whereabouts.node).flatten()
}

#[test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
fn sixty_four_bots_finish_their_swiss_on_a_cluster_whose_director_s_node_is_killed_mid_round() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let flags = [
        "--cluster",
        &nats.url(),
        "--cluster-lease",
        "2s",
        "--sign-ins-per-minute",
        "0",
        "--max-connections-per-ip",
        "0",
    ];
    let mut nodes: Vec<Process> = (0..3).map(|_| Process::with(&database, &flags)).collect();
    let urls: Vec<String> = nodes.iter().map(|node| node.url.clone()).collect();
    // Bot n tries node n mod 3 first, then the others: a third of the bots play and
    // follow through each node, and move on when theirs dies.
    let servers = |n: usize| {
        let order = (0..3).map(|k| urls[(n + k) % 3].as_str());
        order.collect::<Vec<_>>().join(",")
    };
    let configs = sixty_four_players(servers);
    let id = sixty_four_swiss(&urls[0]);
    let bots: Vec<Punct> = (configs.iter().enumerate())
        .map(|(n, c)| bot(&servers(n), &id, c.path()))
        .collect();

    let held = director_node(&nodes[0], &id).expect("a live node directs it");
    let tags: Vec<u32> = nodes
        .iter()
        .map(|node| block_on(node.get::<NodeView>("/api/node")).node)
        .collect();
    let doomed = tags
        .iter()
        .position(|&tag| tag == held)
        .expect("one of ours");
    let witness = Endpoint::new(nodes[(doomed + 1) % 3].addr);
    // Killed mid-round: from round 3 on, once a game of the round has ended and while
    // others are under way.
    let (round, ended) = loop {
        let view = view(&witness.url, &id);
        if let Some(latest) = view.pairings.last().filter(|r| r.round >= 3) {
            let ended = latest.games.iter().filter(|g| g.outcome.is_some()).count();
            if (1..latest.games.len()).contains(&ended) {
                break (latest.round, ended);
            }
        }
        assert_ne!(
            view.summary.state,
            TournamentState::Finished,
            "no round was caught"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    nodes.remove(doomed).kill();
    let killed = std::time::Instant::now();

    let taken_over = director_node(&witness, &id);
    let printed = sixty_four_finish(&witness.url, &id, bots);
    // The bots in a game through the killed node lost it, and came back on another.
    let moved = printed
        .iter()
        .filter(|lines| lines.iter().any(|l| l["type"] == "disconnected"))
        .count();
    eprintln!(
        "killed the director's node in round {round} of {ROUNDS}, {ended} of its {} games \
         over; the tournament finished {:?} later; {moved} bots moved to another node",
        BOTS / 2,
        killed.elapsed()
    );
    assert!(moved > 0, "no bot was playing through the killed node");
    let now_held = director_node(&witness, &id);
    assert!(
        now_held.is_some_and(|tag| tag != held),
        "a living node directs it: {now_held:?} (just after the kill: {taken_over:?})"
    );
}
