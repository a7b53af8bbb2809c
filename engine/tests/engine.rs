//! The engine's promises: it takes a win, stops a threat, weighs the centre count at the
//! end of the standard game, never plays an illegal turn, and keeps to its time budget.
//!
//! Positions are built by playing scripts from the start, where `_` is a filler drop by
//! the side to move, far from every cell the script names and off the sides.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use punct_engine::puzzle::{self, Goal};
use punct_engine::{Engine, Level, Limits, Rng};
use punct_rules::{Cell, CellSet, Color, Game, Outcome, Side, Turn, Variant, WinReason};

/// Numbered level `n`.
const fn level(n: u8) -> Level {
    Level::new(n).expect("a level number")
}

/// Every level that promises tactics.
const TACTICAL: [Level; 4] = [level(2), level(3), level(4), level(5)];

/// Every level that is not random.
const THINKING: [Level; 6] = [
    Level::Greedy,
    level(1),
    level(2),
    level(3),
    level(4),
    level(5),
];

fn cells_named(text: &str) -> Vec<Cell> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| w.parse::<Cell>().ok())
        .collect()
}

/// Cells at least two steps from every cell `text` names, and off the sides.
fn filler_zone(text: &str) -> CellSet {
    let named = cells_named(text);
    let sides = [
        Side::West,
        Side::East,
        Side::SouthWest,
        Side::NorthEast,
        Side::SouthEast,
        Side::NorthWest,
    ]
    .into_iter()
    .fold(CellSet::EMPTY, |set, side| set.union(side.cells()));
    Cell::all()
        .filter(|c| !sides.contains(*c) && named.iter().all(|n| n.distance(*c) >= 2))
        .collect()
}

/// A legal drop inside `zone`, of the kind the mover has most of.
fn filler(game: &Game, zone: CellSet) -> Turn {
    let reserve = game.position().reserve(game.to_move());
    game.legal_turns()
        .into_iter()
        .filter_map(|t| match t {
            Turn::Drop { punct, minors }
                if zone.contains(punct) && minors.iter().all(|m| zone.contains(*m)) =>
            {
                let kind = punct_rules::Placement::from_cells(punct, minors)?.kind();
                Some((std::cmp::Reverse(reserve.count(kind)), kind as u8, t))
            }
            _ => None,
        })
        .min_by_key(|&(count, kind, _)| (count, kind))
        .map(|(_, _, t)| t)
        .expect("room for a filler")
}

/// Plays `script` from the start; fillers also keep clear of the cells `scene` names.
fn setup(script: &str, scene: &str) -> Game {
    let zone = filler_zone(&format!("{script} {scene}"));
    let mut game = Game::new(Variant::Standard);
    for word in script.split_whitespace() {
        let turn = if word == "_" {
            filler(&game, zone)
        } else {
            word.parse().unwrap()
        };
        game.play(turn)
            .unwrap_or_else(|e| panic!("'{turn}' refused: {e}"));
    }
    assert_eq!(game.outcome(), None, "the script must not end the game");
    game
}

/// Whether the side to move in `game` can connect with one turn.
fn can_connect_now(game: &Game) -> bool {
    let mover = game.to_move();
    game.legal_turns().into_iter().any(|t| {
        let mut next = game.clone();
        next.play(t).unwrap();
        next.position().is_connected(mover)
    })
}

/// White's chain from A8 to O16 along the top rows: one more turn reaches Q10–Q16.
const WHITE_CHAIN: &str = "A8:B9,C10 _ D11:E12,F13 _ G14:H15,I16 _ J16:K16,L16 _ N16:M16,O16 _";

/// The cells around O16 the final turn may use.
const EAST_END: &str = "N15 O15 O17 P15 P16 P17 Q14 Q15 Q16";

#[test]
fn takes_an_immediate_win() {
    let game = setup(WHITE_CHAIN, EAST_END);
    assert_eq!(game.to_move(), Color::White);
    for level in THINKING {
        let turn = Engine::new(level)
            .choose(&game, Duration::from_millis(300))
            .unwrap();
        let mut next = game.clone();
        let outcome = next.play(turn).unwrap();
        assert_eq!(
            outcome,
            Some(Outcome::Win {
                winner: Color::White,
                reason: WinReason::Connection
            }),
            "level {level} played {turn}"
        );
    }
}

#[test]
fn blocks_an_immediate_win() {
    // The same chain for Black, White to move: Black threatens P16 Q16, O15 P15 Q15 and
    // more; a White triangle on O15 P15 P16 stops them all.
    let script = format!("_ {}", WHITE_CHAIN.trim_end_matches(" _"));
    let game = setup(&script, EAST_END);
    assert_eq!(game.to_move(), Color::White);
    let mut threatened = game.clone();
    threatened
        .play(filler(&game, filler_zone(&format!("{script} {EAST_END}"))))
        .unwrap();
    assert!(can_connect_now(&threatened), "Black threatens to connect");
    for level in TACTICAL {
        let turn = Engine::new(level)
            .choose(&game, Duration::from_millis(500))
            .unwrap();
        let mut next = game.clone();
        assert_eq!(
            next.play(turn).unwrap(),
            None,
            "level {level} played {turn}"
        );
        assert!(
            !can_connect_now(&next),
            "level {level} played {turn}, after which Black connects"
        );
    }
}

#[test]
fn stops_a_threat_no_drop_can_stop() {
    // Black's column H runs from H1 (south-west side) to J17 (north-east side) but for
    // H10, in the centre, where no drop may go; Black's triangle D10 E10 E11 can slide
    // along row 10 onto it. White must move: a jump of the triangle C7 B6 C6 along
    // its diagonal onto White's triangle at G11 covers Black's H11 and H12, for one.
    let script = "G11:F10,G10 H1:H2,H3 C7:B6,C6 H4:H5,H6 _ D7:D8,D9 _ D7-H7:H8,H9 _ \
                  H11:H12,H13 _ H15:H14,H16 _ I16:I15,J17 _ D10:E10,E11";
    let game = setup(script, "H10 I10 I11 I12 I13 J10 J11 G9");
    assert_eq!(game.to_move(), Color::White);
    let mut threatened = game.clone();
    threatened.play("C7-G11:H11,H12".parse().unwrap()).unwrap();
    assert!(
        !can_connect_now(&threatened),
        "the jump cuts Black's column"
    );
    let mut idle = game.clone();
    idle.play(filler(&game, filler_zone(script))).unwrap();
    assert!(can_connect_now(&idle), "Black threatens to connect");
    for level in TACTICAL {
        let turn = Engine::new(level)
            .choose(&game, Duration::from_millis(500))
            .unwrap();
        let mut next = game.clone();
        assert_eq!(
            next.play(turn).unwrap(),
            None,
            "level {level} played {turn}"
        );
        assert!(!turn.is_drop(), "level {level} dropped {turn}");
        assert!(
            !can_connect_now(&next),
            "level {level} played {turn}, after which Black connects"
        );
    }
}

/// Fillers until White is to move with a single piece left to drop.
fn to_last_white_drop(mut game: Game, script: &str) -> Game {
    let zone = filler_zone(script);
    while !(game.to_move() == Color::White && game.position().reserve(Color::White).total() == 1) {
        let turn = filler(&game, zone);
        game.play(turn).unwrap();
        assert_eq!(game.outcome(), None);
    }
    game
}

#[test]
fn ends_the_standard_game_when_ahead_in_the_centre() {
    // White moved a triangle into the centre: three dots to none. Black spent a turn
    // moving too, so White drops the last piece of the game.
    let script = "I4:I5,J5 C4:C5,D5 I4-I9:I10,J10 C4-C6:C7,D7";
    let game = to_last_white_drop(setup(script, ""), script);
    assert!(
        game.position().centre_count(Color::White) > game.position().centre_count(Color::Black)
    );
    for level in TACTICAL {
        let turn = Engine::new(level)
            .choose(&game, Duration::from_millis(300))
            .unwrap();
        let mut next = game.clone();
        assert_eq!(
            next.play(turn).unwrap(),
            Some(Outcome::Win {
                winner: Color::White,
                reason: WinReason::Centre
            }),
            "level {level} played {turn}"
        );
    }
}

#[test]
fn does_not_end_the_standard_game_when_behind_in_the_centre() {
    // Black moved a triangle into the centre; White's last drop would lose the count.
    let script = "_ I4:I5,J5 _ I4-I9:I10,J10";
    let game = to_last_white_drop(setup(script, ""), script);
    assert!(
        game.position().centre_count(Color::White) < game.position().centre_count(Color::Black)
    );
    for level in TACTICAL {
        let turn = Engine::new(level)
            .choose(&game, Duration::from_millis(300))
            .unwrap();
        assert!(
            !turn.is_drop(),
            "level {level} dropped its last piece: {turn}"
        );
    }
}

#[test]
fn never_plays_an_illegal_turn() {
    // Random games, with an engine asked for a turn in every position on the way.
    let levels: Vec<Level> = std::iter::once(Level::Random).chain(THINKING).collect();
    let mut rng = Rng::with_seed(2024);
    let mut asked = 0;
    let mut game_number = 0u64;
    while asked < 2000 {
        let variant = if game_number.is_multiple_of(2) {
            Variant::Standard
        } else {
            Variant::Basic
        };
        game_number += 1;
        let mut game = Game::new(variant);
        while !game.is_over() {
            let level = levels[asked % levels.len()];
            let engine = Engine::with_seed(level, asked as u64);
            let turn = engine.choose(&game, Duration::from_millis(2)).unwrap();
            assert_eq!(
                game.is_legal(turn),
                Ok(()),
                "level {level} chose {turn} in\n{}",
                game.record()
            );
            asked += 1;
            // Mostly random turns, so that moves and jumps come up too; now and then the
            // engine's, so that positions look like real play.
            let turns = game.legal_turns();
            let moves: Vec<Turn> = turns.iter().copied().filter(|t| !t.is_drop()).collect();
            let next = match rng.usize(..4) {
                0 => turn,
                1 if !moves.is_empty() => *rng.choice(&moves).unwrap(),
                _ => *rng.choice(&turns).unwrap(),
            };
            game.play(next).unwrap();
        }
    }
}

#[test]
fn keeps_to_its_time_budget() {
    let mut game = Game::new(Variant::Standard);
    punct_engine::arena::play_opening(&mut game, 10, &mut Rng::with_seed(5));
    let budget = Duration::from_millis(200);
    for level in THINKING {
        let start = Instant::now();
        let turn = Engine::new(level).choose(&game, budget).unwrap();
        let spent = start.elapsed();
        assert_eq!(game.is_legal(turn), Ok(()));
        // A behavioural bound on a shared machine, not a benchmark.
        assert!(
            spent < budget + Duration::from_millis(150),
            "level {level} took {spent:?} for a {budget:?} budget"
        );
    }
}

#[test]
fn a_search_to_a_depth_answers_the_same_with_its_line() {
    let mut game = Game::new(Variant::Standard);
    punct_engine::arena::play_opening(&mut game, 10, &mut Rng::with_seed(7));
    let think = || {
        Engine::new(Level::strongest())
            .think(&game, &Limits::depth(3))
            .unwrap()
    };
    let choice = think();
    assert_eq!(choice.depth, 3, "no deadline cuts the search short");
    assert_eq!(choice, think(), "without a clock the search is the same");
    assert_eq!(choice.line[0], choice.turn);
    assert!(
        (2..=3).contains(&choice.line.len()),
        "the line has the replies: {:?}",
        choice.line
    );
    let mut after = game.clone();
    for &turn in &choice.line {
        after.play(turn).expect("the line plays");
    }
}

#[test]
fn keeps_to_a_budget_on_the_hosts_clock() {
    fn now() -> f64 {
        static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
    }
    let mut game = Game::new(Variant::Standard);
    punct_engine::arena::play_opening(&mut game, 10, &mut Rng::with_seed(5));
    let budget = Duration::from_millis(200);
    let start = Instant::now();
    let choice = Engine::new(Level::strongest())
        .think(&game, &Limits::within_on(now, budget))
        .unwrap();
    let spent = start.elapsed();
    assert_eq!(game.is_legal(choice.turn), Ok(()));
    assert!(
        spent < budget + Duration::from_millis(150),
        "took {spent:?} for a {budget:?} budget"
    );
}

#[test]
fn stops_when_told_to() {
    let mut game = Game::new(Variant::Standard);
    punct_engine::arena::play_opening(&mut game, 10, &mut Rng::with_seed(6));
    let stop = Arc::new(AtomicBool::new(false));
    let limits = Limits::within(Duration::from_secs(60)).with_stop(Arc::clone(&stop));
    let engine = Engine::new(Level::strongest());
    std::thread::scope(|s| {
        let search = s.spawn(|| {
            let start = Instant::now();
            (engine.think(&game, &limits).unwrap(), start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        let (choice, spent) = search.join().unwrap();
        assert_eq!(game.is_legal(choice.turn), Ok(()));
        assert!(spent < Duration::from_secs(2), "took {spent:?} to stop");
    });
}

#[test]
fn a_match_plays_the_same_games_on_any_number_of_threads() {
    use punct_engine::arena::{MatchConfig, Player, play_match};
    use std::num::NonZeroUsize;
    // Random players choose from the seed alone, so the games must not depend on how
    // many threads play them.
    let config = MatchConfig {
        a: Player::Engine(Level::Random),
        b: Player::Engine(Level::Random),
        games: 6,
        variant: Variant::Basic,
        per_turn: [Duration::from_millis(1); 2],
        seed: 9,
        opening: 4,
        max_turns: 400,
        sprt: None,
    };
    let records = |jobs: usize| {
        let mut games = vec![String::new(); 6];
        let report = play_match(&config, NonZeroUsize::new(jobs).unwrap(), |number, game| {
            games[number as usize - 1] = game.game.record();
        })
        .expect("random players do not fail");
        (games, report)
    };
    let (one, alone) = records(1);
    let (three, together) = records(3);
    assert_eq!(one, three);
    assert!(one.iter().all(|record| !record.is_empty()));
    for report in [&alone, &together] {
        assert_eq!(report.a.wins + report.a.losses + report.a.draws, 6);
        assert_eq!(report.a.wins, report.b.losses);
        assert!(report.a.turns > 0 && report.b.turns > 0);
    }
    assert_eq!(
        (alone.a.wins, alone.a.draws, alone.a.turns),
        (together.a.wins, together.a.draws, together.a.turns)
    );
}

/// The turns after which the player who moved has won, by brute force over the rules.
fn wins_for_mover(game: &Game) -> Vec<(Turn, WinReason)> {
    let mover = game.to_move();
    game.legal_turns()
        .into_iter()
        .filter_map(|turn| {
            let mut after = game.clone();
            match after.play(turn).unwrap() {
                Some(Outcome::Win { winner, reason }) if winner == mover => Some((turn, reason)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn puzzles_found_along_games_have_one_answer_that_does_what_they_ask() {
    // The random player does not think against the clock: the games, and so the
    // puzzles, are the same on any machine.
    let found = puzzle::generate(
        Variant::Standard,
        Level::Random,
        Duration::from_millis(1),
        1,
        40,
        [1, 1, 0],
    );
    let goals: Vec<Goal> = found.iter().map(|p| p.goal).collect();
    assert_eq!(goals.len(), 2, "{goals:?}");
    assert!(goals.contains(&Goal::Connect) && goals.contains(&Goal::Stop));
    for p in &found {
        let game = Game::replay(p.variant, &p.turns).unwrap();
        assert_eq!(puzzle::solutions(&game, p.goal), [p.answer]);
        let wins = wins_for_mover(&game);
        match p.goal {
            Goal::Connect => assert_eq!(wins, [(p.answer, WinReason::Connection)]),
            Goal::Stop => {
                assert!(wins.is_empty(), "a defence, not a win");
                // After the answer the opponent cannot win; after some other turn it can.
                let mut after = game.clone();
                assert_eq!(after.play(p.answer).unwrap(), None);
                assert!(wins_for_mover(&after).is_empty());
                let threatened = game.legal_turns().into_iter().any(|turn| {
                    let mut other = game.clone();
                    other.play(turn).unwrap().is_none() && !wins_for_mover(&other).is_empty()
                });
                assert!(threatened, "the opponent threatens to connect");
            }
            Goal::Centre => unreachable!("none asked for"),
        }
    }
}

#[test]
fn the_start_is_no_puzzle() {
    let game = Game::new(Variant::Standard);
    for goal in Goal::ALL {
        assert_eq!(puzzle::solution(&game, goal), None, "{goal}");
    }
}

#[test]
fn a_program_that_answers_no_turn_stops_the_match_with_its_error() {
    use punct_engine::arena::{MatchConfig, Player, play_match};
    use std::num::NonZeroUsize;
    let config = |command: &str| MatchConfig {
        a: Player::Engine(Level::Random),
        b: Player::Command(command.to_owned()),
        games: 4,
        variant: Variant::Basic,
        per_turn: [Duration::from_millis(1); 2],
        seed: 9,
        opening: 0,
        max_turns: 400,
        sprt: None,
    };
    for (command, why) in [
        ("echo nonsense {ms}", "'nonsense' is not a turn"),
        ("true", "it printed nothing"),
        ("exit 3", "it exited with"),
    ] {
        let mut reported = 0;
        let error = play_match(&config(command), NonZeroUsize::MIN, |_, _| reported += 1)
            .expect_err("the program fails");
        assert_eq!(error.game, 1, "{error}");
        assert_eq!(error.player, Player::Command(command.to_owned()));
        assert!(error.why.contains(why), "{error}");
        assert_eq!(reported, 0, "no game after the failure");
    }
}
