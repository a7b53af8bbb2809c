//! Benchmarks of the rules engine: legal turn generation, applying a turn, the
//! connection check and perft.
//!
//! The positions are the game records of `tests/records/`, shared with the perft
//! regression test.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
use punct_rules::{Color, Game, Turn, Variant, perft};

/// Random game, 61 turns: 10 pieces each, level 3 stacks, three bridges.
const MIDGAME: &str = include_str!("../tests/records/midgame-standard.txt");
/// Random game, 100 turns: 16 pieces each, one kind left in each reserve.
const LATE: &str = include_str!("../tests/records/late-standard.txt");
/// Random game, 77 turns: Black's 46 visible dots touch all six sides, unconnected.
const RIMS: &str = include_str!("../tests/records/rims-standard.txt");

fn game(record: &str) -> Game {
    Game::from_record(Variant::Standard, record).expect("the bench records are legal")
}

/// The positions benchmarked, by name.
fn positions() -> [(&'static str, Game); 3] {
    [
        ("opening", Game::new(Variant::Standard)),
        ("midgame", game(MIDGAME)),
        ("late", game(LATE)),
    ]
}

fn legal_turns(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_turns");
    for (name, game) in positions() {
        let position = game.position().clone();
        group.bench_function(name, |b| b.iter(|| black_box(&position).legal_turns()));
    }
    group.finish();
    // What perft's last ply does: count without collecting.
    let mut group = c.benchmark_group("count_legal_turns");
    for (name, game) in positions() {
        let position = game.position().clone();
        group.bench_function(name, |b| {
            b.iter(|| black_box(&position).count_legal_turns())
        });
    }
    group.finish();
}

/// The first legal turn of the mid-game that is a jump (its PÜNCT lands on a dot), the
/// costliest kind of turn to check and apply.
fn midgame_jump(game: &Game) -> Turn {
    game.legal_turns()
        .into_iter()
        .find(|t| matches!(t, Turn::Move { to, .. } if game.position().height(*to) > 0))
        .expect("the mid-game record has a jump")
}

fn play(c: &mut Criterion) {
    let mut group = c.benchmark_group("play");
    let opening = Game::new(Variant::Standard);
    let drop: Turn = "C4:C5,D5".parse().expect("a drop in notation");
    let midgame = game(MIDGAME);
    let jump = midgame_jump(&midgame);
    // Game::play also judges the end: connection, last drop, repetition.
    for (name, game, turn) in [
        ("game/opening-drop", &opening, drop),
        ("game/midgame-jump", &midgame, jump),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || game.clone(),
                |mut g| g.play(black_box(turn)).expect("a legal turn"),
                BatchSize::SmallInput,
            )
        });
    }
    for (name, game, turn) in [
        ("position/opening-drop", &opening, drop),
        ("position/midgame-jump", &midgame, jump),
    ] {
        let position = game.position().clone();
        group.bench_function(name, |b| {
            b.iter_batched(
                || position.clone(),
                |mut p| p.play(black_box(turn)).expect("a legal turn"),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn connection(c: &mut Criterion) {
    // Black touches every side, so all three flood fills run, and none connects; White
    // touches both sides of one pair only.
    let rims = game(RIMS);
    let position = rims.position().clone();
    let mut group = c.benchmark_group("is_connected");
    for color in Color::ALL {
        group.bench_function(format!("rims/{color}"), |b| {
            b.iter(|| black_box(&position).is_connected(color))
        });
    }
    group.finish();
}

fn perft_opening(c: &mut Criterion) {
    let opening = Game::new(Variant::Standard);
    let mut group = c.benchmark_group("perft");
    // A third of a second per run: ten flat samples (one run each at least) are plenty.
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.bench_function("standard-start-depth-2", |b| {
        b.iter(|| perft(black_box(&opening), 2))
    });
    group.finish();
}

criterion_group!(benches, legal_turns, play, connection, perft_opening);
criterion_main!(benches);
