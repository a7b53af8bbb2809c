//! Engine against engine: the games behind `punct rules match`.
//!
//! Games come in pairs that share a random opening (a few random legal drops) and swap
//! colours, so neither side profits from a lucky opening or from moving first.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use punct_rules::{Color, Game, Outcome, Turn, Variant};

use crate::{Engine, Level, Limits, Rng};

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
    /// Time each engine may take per turn: `a`'s, then `b`'s.
    pub per_turn: [Duration; 2],
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
    /// The depths its searches reached, added up.
    pub depths: u64,
    /// Positions it looked at.
    pub nodes: u64,
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

    /// Average depth reached per chosen turn.
    pub fn average_depth(&self) -> f64 {
        self.depths as f64 / self.turns.max(1) as f64
    }

    /// Positions looked at per second of thinking.
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.thinking.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Adds the effort of another game (not its result).
    fn add_effort(&mut self, other: &Tally) {
        self.turns += other.turns;
        self.thinking += other.thinking;
        self.depths += other.depths;
        self.nodes += other.nodes;
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

impl MatchReport {
    /// Counts a finished game and the effort each side spent on it.
    fn add(&mut self, result: &GameReport, effort: &[Tally; 2]) {
        self.a.add_effort(&effort[0]);
        self.b.add_effort(&effort[1]);
        match result.a_won() {
            Some(true) => {
                self.a.wins += 1;
                self.b.losses += 1;
                self.a.wins_as_white += u32::from(result.a_color == Color::White);
            }
            Some(false) => {
                self.b.wins += 1;
                self.a.losses += 1;
                self.b.wins_as_white += u32::from(result.a_color == Color::Black);
            }
            None => {
                self.a.draws += 1;
                self.b.draws += 1;
                self.stopped += u32::from(result.outcome.is_none());
            }
        }
    }
}

/// Plays the match on `jobs` threads, each taking the next game not yet started, and
/// calls `each` with every game's number (from 1) and report as the game ends. A game
/// depends only on the configuration and its number, so the results do not depend on
/// `jobs`, only the order in which games are reported.
pub fn play_match(
    config: &MatchConfig,
    jobs: NonZeroUsize,
    mut each: impl FnMut(u32, &GameReport),
) -> MatchReport {
    let mut report = MatchReport::default();
    let next = AtomicU32::new(0);
    let (done, finished) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.get().min(config.games.max(1) as usize) {
            let (next, done) = (&next, done.clone());
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        break;
                    }
                    if done.send((index, play_game(config, index))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        for (index, (result, effort)) in finished {
            report.add(&result, &effort);
            each(index + 1, &result);
        }
    });
    report
}

/// Plays game `index` of the match, answering it with the effort of `a` and `b`.
fn play_game(config: &MatchConfig, index: u32) -> (GameReport, [Tally; 2]) {
    let a_color = if index.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let seed = config
        .seed
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(index as u64);
    let engines = [
        Engine::with_seed(config.a, seed ^ 0xA),
        Engine::with_seed(config.b, seed ^ 0xB),
    ];
    let mut effort = [Tally::default(); 2];
    let mut opening = Rng::with_seed(config.seed ^ u64::from(index / 2).wrapping_mul(0x51_7CC1));
    let mut game = Game::new(config.variant);
    play_opening(&mut game, config.opening, &mut opening);
    while !game.is_over() && game.turns().len() < config.max_turns {
        let side = usize::from(game.to_move() != a_color);
        let (engine, tally) = (&engines[side], &mut effort[side]);
        let start = Instant::now();
        let choice = engine
            .think(&game, &Limits::within(config.per_turn[side]))
            .expect("the game goes on");
        tally.thinking += start.elapsed();
        tally.turns += 1;
        tally.depths += u64::from(choice.depth);
        tally.nodes += choice.nodes;
        let turn = choice.turn;
        game.play(turn)
            .unwrap_or_else(|e| panic!("engine {} chose {turn}: {e}", engine.level()));
    }
    let result = GameReport {
        a_color,
        outcome: game.outcome(),
        game,
    };
    (result, effort)
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
