//! Fits the analysis board's win chance to the engine's own games: plays level 5 against
//! itself at a fixed depth from random openings, keeps the score of every position it
//! searched (turned to White's side) with the game's result, and finds the scale `k` of
//! the logistic curve `P(White wins) = 1 / (1 + exp(-score / k))` that makes those
//! results likeliest (a draw counts half). Prints the fit and a calibration table.
//!
//! ```sh
//! cargo run -p punct-engine --example win_curve -- GAMES DEPTH [SEED]
//! ```
//! docs/ENGINE.md ("The score as a win chance") gives the numbers behind the page's curve.

use punct_engine::arena::play_opening;
use punct_engine::{Engine, Level, Limits, Rng};
use punct_rules::{Color, Game, Outcome, Variant};

/// Random drops before the engine plays: two each, so that the games differ.
const OPENING: u32 = 4;

/// A game still going after this many turns is left out (no result to learn from).
const MAX_TURNS: usize = 300;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| {
        args.get(i)
            .map_or(default, |a| a.parse().expect("a number"))
    };
    let (games, depth, seed) = (number(0, 40), number(1, 3) as u32, number(2, 1));
    let engine = Engine::new(Level::strongest());
    // (White's score, White's result) at every position searched.
    let mut samples: Vec<(f64, f64)> = Vec::new();
    let mut results = [0u32; 3];
    for index in 0..games {
        let mut game = Game::new(Variant::Standard);
        play_opening(
            &mut game,
            OPENING,
            &mut Rng::with_seed(seed.wrapping_mul(7919) + index),
        );
        let mut scores = Vec::new();
        while !game.is_over() && game.turns().len() < MAX_TURNS {
            let choice = engine
                .think(&game, &Limits::depth(depth))
                .expect("the game goes on");
            if choice.forced_end().is_none() {
                let white = if game.to_move() == Color::White {
                    1.0
                } else {
                    -1.0
                };
                scores.push(white * f64::from(choice.score));
            }
            game.play(choice.turn)
                .expect("the engine plays legal turns");
        }
        let result = match game.outcome() {
            Some(Outcome::Win {
                winner: Color::White,
                ..
            }) => 1.0,
            Some(Outcome::Win { .. }) => 0.0,
            Some(_) => 0.5,
            None => continue,
        };
        results[(result * 2.0) as usize] += 1;
        samples.extend(scores.into_iter().map(|s| (s, result)));
        eprintln!(
            "game {}: {} turns, White scored {result}",
            index + 1,
            game.turns().len()
        );
    }
    let k = fit(&samples);
    println!(
        "{} games (White won {}, Black {}, drawn {}), {} positions, depth {depth}",
        results.iter().sum::<u32>(),
        results[2],
        results[0],
        results[1],
        samples.len()
    );
    println!("k = {k:.0}: P(White wins) = 1 / (1 + exp(-score / {k:.0}))");
    println!(
        "log loss {:.4} (a coin's: {:.4})",
        loss(&samples, k),
        std::f64::consts::LN_2
    );
    println!("| White's score | positions | White's result | the curve |");
    println!("|---|---|---|---|");
    for (low, high) in [
        (-1e9, -400.0),
        (-400.0, -200.0),
        (-200.0, -50.0),
        (-50.0, 50.0),
        (50.0, 200.0),
        (200.0, 400.0),
        (400.0, 1e9),
    ] {
        let bin: Vec<&(f64, f64)> = samples
            .iter()
            .filter(|(s, _)| *s >= low && *s < high)
            .collect();
        if bin.is_empty() {
            continue;
        }
        let n = bin.len() as f64;
        let result = bin.iter().map(|(_, y)| y).sum::<f64>() / n;
        let curve = bin.iter().map(|(s, _)| chance(*s, k)).sum::<f64>() / n;
        println!(
            "| {low:.0} to {high:.0} | {} | {:.0}% | {:.0}% |",
            bin.len(),
            result * 100.0,
            curve * 100.0
        );
    }
}

/// White's chance on the curve of scale `k`.
fn chance(score: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-score / k).exp())
}

/// The mean log loss of the curve of scale `k` over `samples`.
fn loss(samples: &[(f64, f64)], k: f64) -> f64 {
    let eps = 1e-9;
    samples
        .iter()
        .map(|&(s, y)| {
            let p = chance(s, k).clamp(eps, 1.0 - eps);
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / samples.len().max(1) as f64
}

/// The scale with the least log loss: a golden-section search over `ln k` (the loss is
/// unimodal in the scale), from 10 to 100,000.
fn fit(samples: &[(f64, f64)]) -> f64 {
    let (mut a, mut b) = (10f64.ln(), 100_000f64.ln());
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..100 {
        let c = b - golden * (b - a);
        let d = a + golden * (b - a);
        if loss(samples, c.exp()) < loss(samples, d.exp()) {
            b = d;
        } else {
            a = c;
        }
    }
    ((a + b) / 2.0).exp()
}
