//! Benchmarks of pairing: a Swiss round of 64 to 1,000 players late in the event, the
//! standings, a double round robin, and an arena's pool of 500 waiting players; the
//! Swiss rounds and the pool also with as many pairs kept apart (blocks) as players.
//!
//! The histories are played by the crate itself from a fixed seed: random results, a
//! few draws, everyone staying to the end.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use punct_pairing::{Arena, Cycles, Game, Outcome, Round, berger, pair_round, standings};

/// About as many random pairs to keep apart as there are `players`: each in two blocks
/// on average, more than an event is likely to have.
fn blocks(players: u32) -> Vec<(u32, u32)> {
    let mut rng = fastrand::Rng::with_seed(32);
    (0..players)
        .map(|_| (rng.u32(..players), rng.u32(..players)))
        .filter(|(a, b)| a != b)
        .collect()
}

fn outcome(rng: &mut fastrand::Rng) -> Outcome {
    match rng.u8(..10) {
        0 | 1 => Outcome::Draw,
        2..=5 => Outcome::WhiteWins,
        _ => Outcome::BlackWins,
    }
}

/// `rounds` rounds of a Swiss of `players`, paired and played.
fn history(players: &[u32], rounds: usize) -> Vec<Round<u32>> {
    let mut rng = fastrand::Rng::with_seed(34);
    let mut history = Vec::new();
    for _ in 0..rounds {
        let pairing = pair_round(players, &history, &[]).expect("a Swiss this short always pairs");
        let games = pairing.pairs.iter().map(|&pair| Game {
            pair,
            outcome: outcome(&mut rng),
        });
        history.push(Round {
            games: games.collect(),
            bye: pairing.bye,
            unfinished: Vec::new(),
        });
    }
    history
}

fn swiss(c: &mut Criterion) {
    let mut group = c.benchmark_group("swiss_last_round");
    group.sample_size(10);
    // The last round of an event of each size: the most constrained one.
    for (players, rounds) in [(64, 7), (256, 9), (1000, 11)] {
        let ids: Vec<u32> = (0..players).collect();
        let played = history(&ids, rounds - 1);
        let avoid = blocks(players);
        pair_round(&ids, &played, &avoid).expect("the blocks leave a pairing");
        for (suffix, avoid) in [("", &[][..]), ("_blocks", &avoid)] {
            group.bench_function(format!("{players}_players_round_{rounds}{suffix}"), |b| {
                b.iter(|| pair_round(black_box(&ids), black_box(&played), black_box(avoid)))
            });
        }
    }
    group.finish();

    let ids: Vec<u32> = (0..1000).collect();
    let played = history(&ids, 11);
    c.bench_function("standings_1000_players_11_rounds", |b| {
        b.iter(|| standings(black_box(&ids), black_box(&played)))
    });
}

fn round_robin(c: &mut Criterion) {
    let ids: Vec<u32> = (0..100).collect();
    c.bench_function("berger_100_players_double", |b| {
        b.iter(|| berger(black_box(&ids), Cycles::Double))
    });
}

fn arena(c: &mut Criterion) {
    // 1,000 players who have played a few games each; then 500 of them wait at once.
    let mut rng = fastrand::Rng::with_seed(34);
    let mut arena = Arena::new(Duration::from_secs(10));
    let mut now = Duration::ZERO;
    for p in 0..1000u32 {
        arena.join(p, now);
    }
    for _ in 0..5 {
        now += Duration::from_secs(60);
        for pair in arena.pair(now, &[]) {
            arena
                .finish(pair, outcome(&mut rng), now)
                .expect("in progress");
        }
    }
    now += Duration::from_secs(60);
    for p in 0..500u32 {
        arena.pause(p).expect("joined");
    }
    let avoid = blocks(1000);
    for (name, avoid) in [
        ("arena_pool_of_500", &[][..]),
        ("arena_pool_of_500_blocks", &avoid),
    ] {
        c.bench_function(name, |b| {
            b.iter_batched(
                || arena.clone(),
                |mut a| a.pair(now, black_box(avoid)),
                BatchSize::LargeInput,
            )
        });
    }
}

criterion_group!(benches, swiss, round_robin, arena);
criterion_main!(benches);
