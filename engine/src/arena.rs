//! Engine against engine: the games behind `punct rules match`.
//!
//! Games come in pairs that share a random opening (a few random legal drops) and swap
//! colours, so neither side profits from a lucky opening or from moving first.

use std::time::{Duration, Instant};

use punct_rules::{Color, Game, Outcome, Turn, Variant};

use crate::{Engine, Level, Rng};

/// What to play.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The first player; White in the odd-numbered games.
    pub a: Level,
    /// The second player; White in the even-numbered games.
    pub b: Level,
    /// Number of games.
    pub games: u32,
    /// The game played.
    pub variant: Variant,
    /// Time each engine may take per turn.
    pub per_turn: Duration,
    /// Seeds the openings and the engines' random choices.
    pub seed: u64,
    /// Random drops played before the engines take over (both sides together).
    pub opening: u32,
    /// A game still going after this many turns is stopped and counted as a draw.
    pub max_turns: usize,
}

/// One finished (or stopped) game.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// Which colour `a` played.
    pub a_color: Color,
    /// The result; `None` if the game was stopped at the turn limit.
    pub outcome: Option<Outcome>,
    /// The whole game, opening included.
    pub game: Game,
}

impl GameReport {
    /// The winner's side: `Some(true)` when `a` won, `Some(false)` when `b` did.
    pub fn a_won(&self) -> Option<bool> {
        match self.outcome {
            Some(Outcome::Win { winner, .. }) => Some(winner == self.a_color),
            _ => None,
        }
    }
}

/// Results of one player of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn, stopped games included.
    pub draws: u32,
    /// Games won with White.
    pub wins_as_white: u32,
    /// Turns the engine chose (the random opening excluded).
    pub turns: u64,
    /// Time spent choosing them.
    pub thinking: Duration,
}

impl Tally {
    /// Average time per chosen turn.
    pub fn average(&self) -> Duration {
        if self.turns == 0 {
            Duration::ZERO
        } else {
            self.thinking / self.turns as u32
        }
    }
}

/// The whole match so far.
#[derive(Clone, Debug, Default)]
pub struct MatchReport {
    /// Player `a`'s results.
    pub a: Tally,
    /// Player `b`'s results.
    pub b: Tally,
    /// Games stopped at the turn limit (counted as draws).
    pub stopped: u32,
}

/// Plays the match, calling `each` after every game with its number (from 1) and report.
pub fn play_match(config: &MatchConfig, mut each: impl FnMut(u32, &GameReport)) -> MatchReport {
    let mut report = MatchReport::default();
    for index in 0..config.games {
        let a_color = if index % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let seed = config
            .seed
            .wrapping_mul(0x9E37_79B9)
            .wrapping_add(index as u64);
        let engine_a = Engine::with_seed(config.a, seed ^ 0xA);
        let engine_b = Engine::with_seed(config.b, seed ^ 0xB);
        let mut opening =
            Rng::with_seed(config.seed ^ u64::from(index / 2).wrapping_mul(0x51_7CC1));
        let mut game = Game::new(config.variant);
        play_opening(&mut game, config.opening, &mut opening);
        while !game.is_over() && game.turns().len() < config.max_turns {
            let a_moves = game.to_move() == a_color;
            let (engine, tally) = if a_moves {
                (&engine_a, &mut report.a)
            } else {
                (&engine_b, &mut report.b)
            };
            let start = Instant::now();
            let turn = engine
                .choose(&game, config.per_turn)
                .expect("the game goes on");
            tally.thinking += start.elapsed();
            tally.turns += 1;
            game.play(turn)
                .unwrap_or_else(|e| panic!("engine {} chose {turn}: {e}", engine.level()));
        }
        let result = GameReport {
            a_color,
            outcome: game.outcome(),
            game,
        };
        match result.a_won() {
            Some(true) => {
                report.a.wins += 1;
                report.b.losses += 1;
                report.a.wins_as_white += u32::from(a_color == Color::White);
            }
            Some(false) => {
                report.b.wins += 1;
                report.a.losses += 1;
                report.b.wins_as_white += u32::from(a_color == Color::Black);
            }
            None => {
                report.a.draws += 1;
                report.b.draws += 1;
                report.stopped += u32::from(result.outcome.is_none());
            }
        }
        each(index + 1, &result);
    }
    report
}

/// Plays `plies` random legal drops (fewer if the game ends first).
pub fn play_opening(game: &mut Game, plies: u32, rng: &mut Rng) {
    for _ in 0..plies {
        if game.is_over() {
            return;
        }
        let drops: Vec<Turn> = game
            .legal_turns()
            .into_iter()
            .filter(|t| t.is_drop())
            .collect();
        let Some(&turn) = rng.choice(&drops) else {
            return;
        };
        game.play(turn).expect("generated drops are legal");
    }
}
