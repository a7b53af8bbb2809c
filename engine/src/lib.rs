//! A computer opponent for PÜNCT: chooses a turn for any position within a time budget,
//! at levels from a uniform random player to an alpha-beta search.
//!
//! # Layout
//!
//! - [`Engine`]: a level and a seed; [`Engine::choose`] answers a [`Game`] with a
//!   [`Turn`] within a budget, [`Engine::think`] takes [`Limits`] (a deadline on the
//!   system's clock or on one the host gives, or a depth alone; and an optional stop
//!   flag, for a server that cancels a search) and reports a [`Choice`] with its line.
//!   An engine is `Send + Sync` and keeps no state between calls but a counter that varies
//!   its random choices, so one engine may serve many games at once.
//! - [`Level`]: `random` and `greedy`, the yardsticks, and the levels 1 to
//!   [`Level::STRONGEST`] offered to players.
//! - `eval`: shortest connection paths over the cells (own dots free, empty cells 1,
//!   the opponent's dots 3), compared between the players, plus the centre count near
//!   the end of the standard game (and, for the strongest level, the dots each player
//!   shows); and the cells through which either player could connect at once.
//! - `search`: the greedy players, and the alpha-beta search with iterative deepening,
//!   a transposition table keyed by [`Position::hash`](punct_rules::Position::hash),
//!   candidate pruning and exact immediate wins at every node.
//! - `connect`: the drops that connect at once, found from labelled groups of dots
//!   without playing them.
//! - `node`: a turn played on a bare position with the end of the game judged as
//!   [`Game::play`] judges it.
//! - [`lines`]: the engine's choice and the best other turns, each with its line, for
//!   the analysis board.
//! - [`arena`]: engine against engine, for `punct rules match`.
//! - [`puzzle`]: positions with exactly one answer (connect, stop a connection, win the
//!   centre count), checked by playing every turn, and found along engine games.
//! - [`Rng`]: `fastrand`'s seedable generator, for noise, tie-breaks and random
//!   openings.
//!
//! ```
//! use std::time::Duration;
//! use punct_engine::{Engine, Level};
//! use punct_rules::{Game, Variant};
//! let game = Game::new(Variant::Standard);
//! let turn = Engine::new(Level::Greedy).choose(&game, Duration::from_millis(200)).unwrap();
//! assert!(game.is_legal(turn).is_ok());
//! ```

pub mod arena;
mod bits;
mod connect;
mod eval;
mod level;
pub mod lines;
mod node;
pub mod puzzle;
mod search;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use punct_rules::{Game, Turn};

pub use fastrand::Rng;
pub use level::{Level, ParseLevelError, Rank};
pub use search::Choice;

use eval::Judge;
use search::Plan;

/// When a search must stop: a deadline on some clock, a depth, and optionally a flag
/// another thread may raise.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The search returns its best turn so far once this has passed; none for a search
    /// bounded by depth alone.
    deadline: Option<Deadline>,
    /// The deepest iteration searched, in plies, if fewer than the level's.
    depth: Option<u32>,
    /// Raised by someone else to stop the search early (a resignation, a closed room).
    stop: Option<Arc<AtomicBool>>,
}

/// A moment on the clock a search is timed by.
#[derive(Clone, Copy, Debug)]
enum Deadline {
    /// The system's clock.
    System(Instant),
    /// A clock the host gives, in milliseconds from any origin: WebAssembly in a
    /// browser has no clock of its own (`Instant::now` panics there).
    Host {
        /// The host's time now.
        now: fn() -> f64,
        /// The moment, on that clock.
        at: f64,
    },
}

impl Deadline {
    /// Whether it has passed.
    fn passed(self) -> bool {
        match self {
            Deadline::System(at) => Instant::now() >= at,
            Deadline::Host { now, at } => now() >= at,
        }
    }

    /// The moment `1/parts` of the time left from now.
    fn part(self, parts: u32) -> Deadline {
        match self {
            Deadline::System(at) => {
                let now = Instant::now();
                Deadline::System(now + at.saturating_duration_since(now) / parts)
            }
            Deadline::Host { now, at } => {
                let t = now();
                Deadline::Host {
                    now,
                    at: t + (at - t).max(0.0) / f64::from(parts),
                }
            }
        }
    }
}

impl Limits {
    /// Stop at `deadline`.
    pub fn until(deadline: Instant) -> Limits {
        Limits {
            deadline: Some(Deadline::System(deadline)),
            depth: None,
            stop: None,
        }
    }

    /// Answer within `budget` from now: the search stops a little before, keeping an
    /// eighth of the budget (at most 50 ms) to finish the node it is in and return.
    pub fn within(budget: Duration) -> Limits {
        Limits::until(Instant::now() + budget - spare(budget))
    }

    /// Answer within `budget` from now on the host's clock `now` (milliseconds from any
    /// origin), keeping the same spare as [`Limits::within`]: for a platform without a
    /// clock of its own.
    pub fn within_on(now: fn() -> f64, budget: Duration) -> Limits {
        let ms = (budget - spare(budget)).as_secs_f64() * 1000.0;
        Limits {
            deadline: Some(Deadline::Host {
                now,
                at: now() + ms,
            }),
            depth: None,
            stop: None,
        }
    }

    /// No time limit: search `depth` plies deep (or the level's depth, if less), and the
    /// same turn comes out on every machine, however fast.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            deadline: None,
            depth: Some(depth),
            stop: None,
        }
    }

    /// Also stop as soon as `stop` is raised.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Limits {
        self.stop = Some(stop);
        self
    }

    /// Whether the search must stop now.
    pub fn expired(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(Deadline::passed)
    }

    /// The deepest iteration allowed, given the level's own `deepest`.
    fn max_depth(&self, deepest: u32) -> u32 {
        self.depth.map_or(deepest, |d| d.min(deepest))
    }

    /// These limits with `1/parts` of the time left from now (the same flag and depth).
    fn part(&self, parts: u32) -> Limits {
        Limits {
            deadline: self.deadline.map(|d| d.part(parts)),
            ..self.clone()
        }
    }
}

/// What [`Limits::within`] keeps of a budget to return in.
fn spare(budget: Duration) -> Duration {
    (budget / 8).min(Duration::from_millis(50))
}

/// A computer player of some [`Level`].
#[derive(Debug)]
pub struct Engine {
    /// How strongly it plays.
    level: Level,
    /// Where its random choices start.
    seed: u64,
    /// Calls so far, mixed into the seed so that successive choices differ.
    calls: AtomicU64,
}

impl Engine {
    /// An engine of `level` with a fixed seed: the same calls give the same turns.
    pub fn new(level: Level) -> Engine {
        Engine::with_seed(level, 0x0050_DC7E)
    }

    /// An engine of `level` whose random choices start from `seed`.
    pub fn with_seed(level: Level, seed: u64) -> Engine {
        Engine {
            level,
            seed,
            calls: AtomicU64::new(0),
        }
    }

    /// How strongly it plays.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The turn to play in `game` within about `budget` (`None` once the game is over).
    pub fn choose(&self, game: &Game, budget: Duration) -> Option<Turn> {
        self.think(game, &Limits::within(budget)).map(|c| c.turn)
    }

    /// The turn to play in `game`, searched until `limits` say stop, with its score and
    /// the effort spent (`None` once the game is over). Always returns a legal turn, even
    /// when the limits have already passed.
    pub fn think(&self, game: &Game, limits: &Limits) -> Option<Choice> {
        if game.is_over() {
            return None;
        }
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let mut rng = Rng::with_seed(self.seed ^ game.position().hash() ^ call.rotate_left(32));
        Some(search::choose(game, plan(self.level), limits, &mut rng))
    }
}

/// How each level plays.
fn plan(level: Level) -> Plan {
    let rank = match level {
        Level::Random => return Plan::Random,
        Level::Greedy => {
            return Plan::Greedy {
                noise: 0,
                tactics: false,
            };
        }
        Level::Numbered(rank) => rank.get(),
    };
    match rank {
        1 => Plan::Greedy {
            noise: 500,
            tactics: false,
        },
        2 => Plan::Greedy {
            noise: 0,
            tactics: true,
        },
        3 => Plan::Search {
            max_depth: 2,
            root_width: 10,
            width: 6,
            judge: Judge::PATHS,
            thorough: false,
        },
        _ => {
            // Level 5 is level 4's search with a judge that sees more, and a longer look
            // for a defence where every candidate loses.
            let five = rank == 5;
            Plan::Search {
                max_depth: 64,
                root_width: 24,
                width: 12,
                judge: if five { Judge::PRESENCE } else { Judge::PATHS },
                thorough: five,
            }
        }
    }
}
