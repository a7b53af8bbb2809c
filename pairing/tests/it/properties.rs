//! Property tests over many random tournaments.
//!
//! proptest draws the shape of a tournament (players, rounds, how often players withdraw
//! or games are drawn) and a seed; the results themselves come from a small generator
//! seeded by it, so a failure shrinks to a smaller tournament that fails the same way.
//! The rules are checked here by code of the tests' own, not the crate's.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use punct_pairing::{
    Arena, Color, Cycles, Game, Outcome, Pair, Pairing, Round, Status, SwissError, berger,
    pair_round, robin_standings, standings,
};

/// A random outcome: draws `draw_percent` of the time, else either side wins.
fn outcome(rng: &mut fastrand::Rng, draw_percent: u8) -> Outcome {
    if rng.u8(..100) < draw_percent {
        Outcome::Draw
    } else if rng.bool() {
        Outcome::WhiteWins
    } else {
        Outcome::BlackWins
    }
}

/// A player's colours, in the order of the rounds.
fn colors(history: &[Round<u32>], player: u32) -> Vec<Color> {
    history
        .iter()
        .flat_map(|round| round.games.iter().filter_map(|g| g.pair.color_of(player)))
        .collect()
}

/// Whether a player with these colours may take `color` next: not a third time in a
/// row, and whites and blacks at most 2 apart.
fn may_take(past: &[Color], color: Color) -> bool {
    let balance: i32 = past
        .iter()
        .map(|&c| if c == Color::White { 1 } else { -1 })
        .sum();
    let next = balance + if color == Color::White { 1 } else { -1 };
    let thrice = past.len() >= 2 && past[past.len() - 2..].iter().all(|&c| c == color);
    !thrice && next.abs() <= 2
}

fn have_met(history: &[Round<u32>], a: u32, b: u32) -> bool {
    history
        .iter()
        .any(|r| r.games.iter().any(|g| g.pair.has(a) && g.pair.has(b)))
}

fn had_bye(history: &[Round<u32>], player: u32) -> bool {
    history.iter().any(|r| r.bye == Some(player))
}

/// Whether `a` and `b` are a pair the caller keeps apart, in either order.
fn kept_apart(avoid: &[(u32, u32)], a: u32, b: u32) -> bool {
    avoid.contains(&(a, b)) || avoid.contains(&(b, a))
}

/// Random pairs to keep apart among players `0..players`: each pair with a chance of
/// `percent`, written either way round.
fn blocks(rng: &mut fastrand::Rng, players: u32, percent: u8) -> Vec<(u32, u32)> {
    let mut avoid = Vec::new();
    for a in 0..players {
        for b in a + 1..players {
            if rng.u8(..100) < percent {
                avoid.push(if rng.bool() { (a, b) } else { (b, a) });
            }
        }
    }
    avoid
}

/// Whether `a` and `b` may meet next round, with some colours.
fn may_meet(history: &[Round<u32>], avoid: &[(u32, u32)], a: u32, b: u32) -> bool {
    let (ca, cb) = (colors(history, a), colors(history, b));
    !have_met(history, a, b)
        && !kept_apart(avoid, a, b)
        && [Color::White, Color::Black]
            .into_iter()
            .any(|c| may_take(&ca, c) && may_take(&cb, c.opponent()))
}

/// Whether any pairing of `players` keeps every rule, by trying them all.
fn some_pairing_exists(history: &[Round<u32>], avoid: &[(u32, u32)], players: &[u32]) -> bool {
    fn search(history: &[Round<u32>], avoid: &[(u32, u32)], left: &[u32], bye_due: bool) -> bool {
        let Some((&p, rest)) = left.split_first() else {
            return !bye_due;
        };
        if bye_due && !had_bye(history, p) && search(history, avoid, rest, false) {
            return true;
        }
        rest.iter().enumerate().any(|(i, &q)| {
            may_meet(history, avoid, p, q) && search(history, avoid, &all_but(rest, i), bye_due)
        })
    }
    search(history, avoid, players, players.len() % 2 == 1)
}

/// Checks a Swiss round against the rules, given the rounds before it.
fn check_swiss_round(
    history: &[Round<u32>],
    avoid: &[(u32, u32)],
    players: &[u32],
    pairing: &Pairing<u32>,
) -> Result<(), TestCaseError> {
    let mut seen = BTreeSet::new();
    for pair in &pairing.pairs {
        for p in [pair.white, pair.black] {
            prop_assert!(seen.insert(p), "{p} paired twice in {pairing:?}");
        }
        prop_assert!(
            !have_met(history, pair.white, pair.black),
            "a rematch: {pair:?}"
        );
        prop_assert!(
            !kept_apart(avoid, pair.white, pair.black),
            "a pair kept apart: {pair:?}"
        );
        prop_assert!(
            may_take(&colors(history, pair.white), Color::White),
            "{pair:?}"
        );
        prop_assert!(
            may_take(&colors(history, pair.black), Color::Black),
            "{pair:?}"
        );
    }
    prop_assert_eq!(pairing.bye.is_some(), players.len() % 2 == 1);
    if let Some(bye) = pairing.bye {
        prop_assert!(seen.insert(bye), "{bye} has the bye and a game");
        prop_assert!(!had_bye(history, bye), "{bye} has the bye twice");
    }
    prop_assert_eq!(seen, players.iter().copied().collect::<BTreeSet<u32>>());
    Ok(())
}

/// The shape of a random Swiss.
#[derive(Clone, Debug)]
struct SwissPlan {
    players: u32,
    rounds: usize,
    /// The chance, per player and round, of withdrawing before it.
    withdraw_percent: u8,
    draw_percent: u8,
    /// The chance, per pair of players, that they are kept apart.
    block_percent: u8,
    seed: u64,
}

fn swiss_plans() -> impl Strategy<Value = SwissPlan> {
    (
        0u32..=40,
        1usize..=12,
        prop_oneof![Just(0u8), 1u8..=10],
        0u8..=60,
        prop_oneof![Just(0u8), 1u8..=25],
        any::<u64>(),
    )
        .prop_map(
            |(players, rounds, withdraw_percent, draw_percent, block_percent, seed)| SwissPlan {
                players,
                rounds,
                withdraw_percent,
                draw_percent,
                block_percent,
                seed,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Every round: no rematch, no pair kept apart, the colour rules, one bye at most
    /// per player, everyone still in paired or given the bye. A round is refused only
    /// when no pairing exists (tried exhaustively up to 10 players), and, when nobody is
    /// kept apart, never while the round is at most half the players still in (from 8
    /// players).
    #[test]
    fn swiss_rounds_keep_every_rule_and_fail_only_when_they_must(plan in swiss_plans()) {
        let mut rng = fastrand::Rng::with_seed(plan.seed);
        // Blocks among withdrawn players stay in the list, as the director would keep them.
        let avoid = blocks(&mut rng, plan.players, plan.block_percent);
        let mut players: Vec<u32> = (0..plan.players).collect();
        let mut history: Vec<Round<u32>> = Vec::new();
        for number in 1..=plan.rounds {
            players.retain(|_| rng.u8(..100) >= plan.withdraw_percent);
            match pair_round(&players, &history, &avoid) {
                Ok(pairing) => {
                    check_swiss_round(&history, &avoid, &players, &pairing)?;
                    let games = pairing.pairs.iter().map(|&pair| Game {
                        pair,
                        outcome: outcome(&mut rng, plan.draw_percent),
                    });
                    history.push(Round { games: games.collect(), bye: pairing.bye, unfinished: Vec::new() });
                }
                Err(SwissError::NoPairing) => {
                    let left = players.len();
                    prop_assert!(
                        left < 8 || number > left / 2 || !avoid.is_empty(),
                        "round {number} of {left} players refused"
                    );
                    if left <= 10 {
                        prop_assert!(
                            !some_pairing_exists(&history, &avoid, &players),
                            "round {number} refused"
                        );
                    }
                    break;
                }
                Err(error) => prop_assert!(false, "{error}"),
            }
        }
    }

    /// Berger tables: every round complete, every pair once per cycle, a single cycle's
    /// colours balanced within one, the second cycle the first with colours swapped.
    #[test]
    fn berger_tables_are_complete(players in 0u32..=30, double in any::<bool>()) {
        let ids: Vec<u32> = (0..players).collect();
        let cycles = if double { Cycles::Double } else { Cycles::Single };
        let rounds = berger(&ids, cycles);
        let n = players as usize;
        let per_cycle = if n < 2 { 0 } else { n + n % 2 - 1 };
        prop_assert_eq!(rounds.len(), per_cycle * if double { 2 } else { 1 });
        for round in &rounds {
            let mut seen: Vec<u32> = round.pairs.iter().flat_map(|p| [p.white, p.black]).collect();
            seen.extend(round.resting);
            seen.sort();
            prop_assert_eq!(&seen, &ids);
            prop_assert_eq!(round.resting.is_some(), n % 2 == 1);
        }
        for cycle in rounds.chunks(per_cycle.max(1)) {
            let mut met = BTreeMap::new();
            for pair in cycle.iter().flat_map(|r| &r.pairs) {
                *met.entry((pair.white.min(pair.black), pair.white.max(pair.black))).or_insert(0) += 1;
            }
            prop_assert_eq!(met.len(), n * n.saturating_sub(1) / 2);
            prop_assert!(met.values().all(|&count| count == 1));
        }
        let first = &rounds[..per_cycle.min(rounds.len())];
        for &p in &ids {
            let balance: i32 = first
                .iter()
                .filter_map(|r| r.pairs.iter().find_map(|pair| pair.color_of(p)))
                .map(|c| if c == Color::White { 1 } else { -1 })
                .sum();
            prop_assert!(balance.abs() <= 1, "{p}: {balance}");
        }
        if double {
            for (a, b) in rounds[..per_cycle].iter().zip(&rounds[per_cycle..]) {
                let swapped: Vec<Pair<u32>> =
                    a.pairs.iter().map(|p| Pair { white: p.black, black: p.white }).collect();
                prop_assert_eq!(&b.pairs, &swapped);
                prop_assert_eq!(a.resting, b.resting);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// On events of up to 8 players with random results, every round is as cheap as
    /// the cheapest pairing found by trying them all: the bye lowest, then the fewest
    /// floaters, then the smallest score differences, then the fewest colour
    /// preferences denied.
    #[test]
    fn a_swiss_round_costs_no_more_than_the_cheapest_pairing_of_all(
        players in 2u32..=8,
        rounds in 1usize..=6,
        draw_percent in 0u8..=50,
        seed in any::<u64>(),
    ) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let ids: Vec<u32> = (0..players).collect();
        let mut history: Vec<Round<u32>> = Vec::new();
        for _ in 0..rounds {
            let Ok(pairing) = pair_round(&ids, &history, &[]) else {
                prop_assert!(!some_pairing_exists(&history, &[], &ids));
                break;
            };
            check_swiss_round(&history, &[], &ids, &pairing)?;
            let pairs: Vec<(u32, u32)> = pairing.pairs.iter().map(|p| (p.white, p.black)).collect();
            let cost = swiss_cost(&history, &ids, &pairs, pairing.bye);
            let mut all = Vec::new();
            every_pairing(&history, &ids, ids.len() % 2 == 1, &mut Vec::new(), None, &mut all);
            let cheapest = all
                .iter()
                .map(|(pairs, bye)| swiss_cost(&history, &ids, pairs, *bye))
                .min()
                .expect("this round paired, so some pairing exists");
            prop_assert_eq!(cost, cheapest, "{:?} after {:?}", pairing, history);
            let games = pairing.pairs.iter().map(|&pair| Game {
                pair,
                outcome: outcome(&mut rng, draw_percent),
            });
            history.push(Round { games: games.collect(), bye: pairing.bye, unfinished: Vec::new() });
        }
    }

    /// Buchholz in a round robin has a closed form: each player's opponents are everyone
    /// else, so it is the total of the points less their own, whether the number of
    /// players is even or odd (a rest is no unplayed round: C.07 Art. 15.2).
    #[test]
    fn round_robin_buchholz_is_everyone_elses_points(
        players in 2u32..=16,
        draw_percent in 0u8..=60,
        seed in any::<u64>(),
    ) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let ids: Vec<u32> = (0..players).collect();
        let rounds: Vec<Round<u32>> = berger(&ids, Cycles::Single)
            .into_iter()
            .map(|r| Round {
                games: r
                    .pairs
                    .iter()
                    .map(|&pair| Game { pair, outcome: outcome(&mut rng, draw_percent) })
                    .collect(),
                bye: None,
                unfinished: Vec::new(),
            })
            .collect();
        let table = robin_standings(&ids, &rounds);
        let total: u32 = table.iter().map(|s| s.score.0).sum();
        prop_assert_eq!(total, players * (players - 1));
        for line in &table {
            prop_assert_eq!(line.buchholz.0, total - line.score.0, "{:?}", line);
        }
    }
}

/// The arena's score of a list of results (half-points), computed afresh.
fn arena_score(results: &[u32]) -> u32 {
    let mut score = 0;
    for (i, &r) in results.iter().enumerate() {
        let on_streak = i >= 2 && results[i - 2..i].iter().all(|&x| x == 2);
        score += if r == 2 && on_streak { 4 } else { r };
    }
    score
}

/// The shape of a random arena.
#[derive(Clone, Debug)]
struct ArenaPlan {
    players: u32,
    steps: usize,
    rematch_after: u64,
    /// The chance, per pair of players, that they are kept apart.
    block_percent: u8,
    seed: u64,
}

fn arena_plans() -> impl Strategy<Value = ArenaPlan> {
    (
        2u32..=24,
        1usize..=300,
        0u64..=20,
        prop_oneof![Just(0u8), 1u8..=40],
        any::<u64>(),
    )
        .prop_map(
            |(players, steps, rematch_after, block_percent, seed)| ArenaPlan {
                players,
                steps,
                rematch_after,
                block_percent,
                seed,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Players join, pause, come back and finish games at random, some pairs kept
    /// apart. After every pairing: nobody in two games, no paused player paired, no
    /// pair kept apart paired, nobody paired with the opponent they just played unless
    /// those two were alone in the pool (but for players kept apart from both) and had
    /// both waited long enough, and no two players left waiting who could have been
    /// paired. Scores always match a
    /// recomputation from the results.
    #[test]
    fn the_arena_pairs_nobody_twice_at_once_nor_with_the_last_opponent_while_others_wait(
        plan in arena_plans()
    ) {
        let mut rng = fastrand::Rng::with_seed(plan.seed);
        let avoid = blocks(&mut rng, plan.players, plan.block_percent);
        let rematch_after = Duration::from_secs(plan.rematch_after);
        let mut arena = Arena::new(rematch_after);
        let mut games: Vec<Pair<u32>> = Vec::new();
        let mut results: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut last: BTreeMap<u32, u32> = BTreeMap::new();
        let mut now = Duration::ZERO;
        for _ in 0..plan.steps {
            now += Duration::from_secs(rng.u64(0..=5));
            let p = rng.u32(..plan.players);
            match rng.u8(..10) {
                0..=2 => arena.join(p, now),
                3 => {
                    let _ = arena.pause(p);
                }
                4..=6 if !games.is_empty() => {
                    let pair = games.swap_remove(rng.usize(..games.len()));
                    let outcome = outcome(&mut rng, 30);
                    arena.finish(pair, outcome, now).expect("a game in progress");
                    for (me, them, color) in [
                        (pair.white, pair.black, Color::White),
                        (pair.black, pair.white, Color::Black),
                    ] {
                        results.entry(me).or_default().push(outcome.half_points(color));
                        last.insert(me, them);
                        let score = arena.player(me).expect("joined").score;
                        prop_assert_eq!(score, arena_score(&results[&me]));
                    }
                }
                _ => {
                    let waiting = |arena: &Arena<u32>| -> BTreeMap<u32, Duration> {
                        (0..plan.players)
                            .filter_map(|p| match arena.player(p).map(|r| r.status) {
                                Some(Status::Waiting(since)) => Some((p, since)),
                                _ => None,
                            })
                            .collect()
                    };
                    let pool = waiting(&arena);
                    let just_met = |a: u32, b: u32| last.get(&a) == Some(&b) || last.get(&b) == Some(&a);
                    // Two who just met may meet again once both have waited, when
                    // everyone else waiting is kept apart from both.
                    let rematch = |a: u32, b: u32| {
                        [a, b].iter().all(|p| now - pool[p] >= rematch_after)
                            && pool.keys().all(|&c| {
                                c == a || c == b || (kept_apart(&avoid, a, c) && kept_apart(&avoid, b, c))
                            })
                    };
                    let paired = arena.pair(now, &avoid);
                    let mut busy: BTreeSet<u32> = games.iter().flat_map(|g| [g.white, g.black]).collect();
                    for pair in &paired {
                        for q in [pair.white, pair.black] {
                            prop_assert!(pool.contains_key(&q), "{q} paired while not waiting");
                            prop_assert!(busy.insert(q), "{q} in two games at once");
                        }
                        prop_assert!(
                            !just_met(pair.white, pair.black) || rematch(pair.white, pair.black),
                            "{pair:?} again, pool {pool:?}"
                        );
                        prop_assert!(!kept_apart(&avoid, pair.white, pair.black), "{pair:?} kept apart");
                    }
                    let left: Vec<u32> = waiting(&arena).into_keys().collect();
                    for (i, &a) in left.iter().enumerate() {
                        for &b in &left[i + 1..] {
                            prop_assert!(
                                kept_apart(&avoid, a, b) || (just_met(a, b) && !rematch(a, b)),
                                "{a} and {b} left waiting"
                            );
                        }
                    }
                    games.extend(paired);
                }
            }
        }
    }
}

/// A player's colour preference before the next round (C.04.3 A.6), and whether it is
/// strong or absolute: from the colours of their games.
fn preference(past: &[Color]) -> Option<(Color, bool)> {
    let balance: i32 = past
        .iter()
        .map(|&c| if c == Color::White { 1 } else { -1 })
        .sum();
    let last_two = past.len() >= 2 && past[past.len() - 2] == past[past.len() - 1];
    let other = |c: Color| c.opponent();
    if balance > 1 || (last_two && past.last() == Some(&Color::White)) {
        Some((Color::Black, true))
    } else if balance < -1 || (last_two && past.last() == Some(&Color::Black)) {
        Some((Color::White, true))
    } else if balance == 1 {
        Some((Color::Black, true))
    } else if balance == -1 {
        Some((Color::White, true))
    } else {
        past.last().map(|&c| (other(c), false))
    }
}

/// What the Swiss minimizes, most important first: the bye's score above the lowest and
/// its place from the bottom; pairs across score groups; their score differences
/// (half-points); colour preferences denied (one per pair wanting the same colour, two
/// when both want it strongly).
fn swiss_cost(
    history: &[Round<u32>],
    players: &[u32],
    pairs: &[(u32, u32)],
    bye: Option<u32>,
) -> (u32, usize, u32, u32, u32) {
    let table = standings(players, history);
    let score = |p: u32| {
        table
            .iter()
            .find(|s| s.player == p)
            .expect("listed")
            .score
            .0
    };
    let lowest = players.iter().map(|&p| score(p)).min().unwrap_or(0);
    let mut ranked = players.to_vec();
    ranked.sort_by_key(|&p| {
        let at = players.iter().position(|&q| q == p);
        (std::cmp::Reverse(score(p)), at)
    });
    let bye_cost = bye.map_or((0, 0), |p| {
        let from_bottom = ranked.len() - 1 - ranked.iter().position(|&q| q == p).expect("in");
        (score(p) - lowest, from_bottom)
    });
    let mut floats = 0;
    let mut difference = 0;
    let mut denied = 0;
    for &(a, b) in pairs {
        let (sa, sb) = (score(a), score(b));
        floats += u32::from(sa != sb);
        difference += sa.abs_diff(sb);
        if let (Some((ca, strong_a)), Some((cb, strong_b))) = (
            preference(&colors(history, a)),
            preference(&colors(history, b)),
        ) && ca == cb
        {
            denied += 1 + u32::from(strong_a && strong_b);
        }
    }
    (bye_cost.0, bye_cost.1, floats, difference, denied)
}

/// A whole round: its pairs, and who has the bye.
type Candidate = (Vec<(u32, u32)>, Option<u32>);

/// Every pairing of `left` that keeps the absolute rules (with the bye if their number
/// is odd), as its pairs and bye.
fn every_pairing(
    history: &[Round<u32>],
    left: &[u32],
    bye_due: bool,
    pairs: &mut Vec<(u32, u32)>,
    bye: Option<u32>,
    out: &mut Vec<Candidate>,
) {
    let Some((&p, rest)) = left.split_first() else {
        if !bye_due {
            out.push((pairs.clone(), bye));
        }
        return;
    };
    if bye_due && !had_bye(history, p) {
        every_pairing(history, rest, false, pairs, Some(p), out);
    }
    for (i, &q) in rest.iter().enumerate() {
        if may_meet(history, &[], p, q) {
            pairs.push((p, q));
            every_pairing(history, &all_but(rest, i), bye_due, pairs, bye, out);
            pairs.pop();
        }
    }
}

/// The sixteen-player Swiss of issue 42 (players 1 to 16 are sw01 to sw16): after
/// four rounds, round 5 as first paired had four games across score groups, though a
/// pairing with three keeps every rule (sw14-sw09, sw10-sw05, sw01-sw03, sw04-sw08,
/// sw06-sw02, sw07-sw13, sw16-sw11, sw12-sw15). Round 5 now has at most three, and
/// costs no more than that pairing.
#[test]
fn the_sixteen_player_swiss_pairs_round_five_with_the_fewest_games_across_score_groups() {
    use Outcome::{BlackWins, Draw, WhiteWins};
    let game = |white: u32, black: u32, outcome: Outcome| Game {
        pair: Pair { white, black },
        outcome,
    };
    let rounds = [
        [
            (1, 9, WhiteWins),
            (10, 2, WhiteWins),
            (3, 11, WhiteWins),
            (12, 4, WhiteWins),
            (5, 13, WhiteWins),
            (14, 6, WhiteWins),
            (7, 15, WhiteWins),
            (16, 8, BlackWins),
        ],
        [
            (8, 1, BlackWins),
            (10, 3, BlackWins),
            (12, 5, BlackWins),
            (14, 7, WhiteWins),
            (2, 16, Draw),
            (4, 11, WhiteWins),
            (6, 13, Draw),
            (9, 15, WhiteWins),
        ],
        [
            (1, 14, BlackWins),
            (3, 5, BlackWins),
            (7, 4, BlackWins),
            (8, 10, BlackWins),
            (9, 12, WhiteWins),
            (13, 2, WhiteWins),
            (11, 6, WhiteWins),
            (15, 16, WhiteWins),
        ],
        [
            (5, 14, BlackWins),
            (4, 1, Draw),
            (3, 9, Draw),
            (13, 10, BlackWins),
            (11, 7, Draw),
            (15, 8, BlackWins),
            (2, 12, WhiteWins),
            (16, 6, BlackWins),
        ],
    ];
    let history: Vec<Round<u32>> = rounds
        .iter()
        .map(|games| Round {
            games: games.iter().map(|&(w, b, o)| game(w, b, o)).collect(),
            bye: None,
            unfinished: Vec::new(),
        })
        .collect();
    let ids: Vec<u32> = (1..=16).collect();
    let pairing = pair_round(&ids, &history, &[]).expect("a fifth round");
    check_swiss_round(&history, &[], &ids, &pairing).expect("every rule kept");
    let table = standings(&ids, &history);
    let score = |p: u32| table.iter().find(|s| s.player == p).expect("listed").score;
    let across = pairing
        .pairs
        .iter()
        .filter(|p| score(p.white) != score(p.black))
        .count();
    assert!(
        across <= 3,
        "{across} games across score groups: {pairing:?}"
    );
    let alternative = [
        (14, 9),
        (10, 5),
        (1, 3),
        (4, 8),
        (6, 2),
        (7, 13),
        (16, 11),
        (12, 15),
    ];
    let pairs: Vec<(u32, u32)> = pairing.pairs.iter().map(|p| (p.white, p.black)).collect();
    assert!(
        swiss_cost(&history, &ids, &pairs, None) <= swiss_cost(&history, &ids, &alternative, None),
        "{pairing:?}"
    );
}

/// The players of `rest` but the one at `index`.
fn all_but(rest: &[u32], index: usize) -> Vec<u32> {
    let mut others = rest.to_vec();
    others.remove(index);
    others
}
