//! A computer opponent for PÜNCT: chooses a turn for any position within a time budget,
//! at levels from a uniform random player to an alpha-beta search.
//!
//! # Layout
//!
//! - [`Engine`]: a level and a seed; [`Engine::choose`] answers a [`Game`] with a
//!   [`Turn`] within a budget, [`Engine::think`] takes [`Limits`] (a deadline on the
//!   system's clock or on one the host gives, or a depth alone; and an optional stop
//!   flag, for a server that cancels a search) and reports a [`Choice`] with its line.
//!   An engine keeps no state between calls: its random choices come from its seed, the
//!   position and the turns played, so one engine may serve many games at once, and a
//!   game played again from the same seed plays the same. [`Engine::for_play`] makes one
//!   that chooses among the turns that score nearly the best, so that games differ.
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
//! - [`sprt`]: the score of a match with its error bar, the Elo difference, and the
//!   sequential test that stops a match once it has decided.
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
pub mod sprt;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// The seed of the room `room`'s games: its id hashed (64-bit FNV-1a), the same on every
/// machine and every build, unlike the standard library's hasher.
fn game_seed(room: &str) -> u64 {
    room.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// A computer player of some [`Level`].
#[derive(Debug)]
pub struct Engine {
    /// How strongly it plays.
    level: Level,
    /// Where its random choices start.
    seed: u64,
    /// How far below the best score a turn may be and still be chosen (0: the best only).
    margin: i32,
}

impl Engine {
    /// An engine of `level` with a fixed seed, which plays the best turn it finds: the
    /// same position gives the same turn (at a fixed depth, on every machine).
    pub fn new(level: Level) -> Engine {
        Engine::with_seed(level, 0x0050_DC7E)
    }

    /// An engine of `level` whose random choices start from `seed`, and which plays the
    /// best turn it finds.
    pub fn with_seed(level: Level, seed: u64) -> Engine {
        Engine {
            level,
            seed,
            margin: 0,
        }
    }

    /// An engine of `level` for a game, seeded by `seed` (one for each game): it chooses
    /// at random among the turns that score within its level's margin of the best, the
    /// better more often, so that two games against it differ. The margin shrinks as the
    /// level rises; the same seed in the same position gives the same turn.
    pub fn for_play(level: Level, seed: u64) -> Engine {
        Engine {
            margin: margin(level),
            ..Engine::with_seed(level, seed)
        }
    }

    /// An engine of `level` for the game of the room `room` ([`Engine::for_play`]),
    /// seeded by the room's id: each game varies, and a game played on after a restart,
    /// on another node or by a bot that reconnects chooses as it would have.
    pub fn for_game(level: Level, room: &str) -> Engine {
        Engine::for_play(level, game_seed(room))
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
        // The turns played tell apart a position that stands again.
        let played = game.turns().len() as u64;
        let mut rng = Rng::with_seed(self.seed ^ game.position().hash() ^ played.rotate_left(32));
        Some(search::choose(
            game,
            plan(self.level),
            self.margin,
            limits,
            &mut rng,
        ))
    }
}

/// An index below `len` drawn from `rng` with a 32-bit draw on every platform
/// (`Rng::choice` draws a `usize`, 32 bits in WebAssembly but 64 natively, so the page
/// and the server would pick differently).
pub(crate) fn random_index(rng: &mut Rng, len: usize) -> usize {
    let len = u32::try_from(len).expect("fewer than 2^32 choices");
    rng.u32(..len) as usize
}

/// How far below the best a turn may score and still be played in a game at `level`, in
/// the evaluation's units (100 is a cell of path length): wide for the easy levels, so
/// that they vary and err, narrow for the strong ones, so that they vary among turns
/// about as good.
fn margin(level: Level) -> i32 {
    match level.number() {
        Some(1) => 150,
        Some(2) => 100,
        Some(3) => 60,
        Some(4) => 40,
        Some(_) => 30,
        None => 0,
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use punct_rules::{Game, Variant};

    use super::{Engine, Level, Limits, game_seed, margin};

    /// The first turns of an engine for play from each of six seeds, two plies deep.
    fn openings(level: Level) -> Vec<(punct_rules::Turn, i32)> {
        openings_to(level, 2)
    }

    /// The first turns of an engine for play from each of six seeds, `depth` plies deep.
    fn openings_to(level: Level, depth: u32) -> Vec<(punct_rules::Turn, i32)> {
        let game = Game::new(Variant::Standard);
        (0..6)
            .map(|seed| {
                let choice = Engine::for_play(level, seed)
                    .think(&game, &Limits::depth(depth))
                    .expect("the game goes on");
                (choice.turn, choice.score)
            })
            .collect()
    }

    #[test]
    fn a_rooms_seed_is_its_id_hashed_alike_everywhere() {
        // FNV-1a's published value for "a", and the empty string's offset basis.
        assert_eq!(game_seed("a"), 0xAF63_DC4C_8601_EC8C);
        assert_eq!(game_seed(""), 0xCBF2_9CE4_8422_2325);
        assert_ne!(game_seed("room-1"), game_seed("room-2"));
    }

    #[test]
    fn games_in_different_rooms_open_differently_and_one_room_plays_alike() {
        let game = Game::new(Variant::Standard);
        let level = Level::new(2).unwrap();
        let first = |room: &str| {
            Engine::for_game(level, room)
                .think(&game, &Limits::depth(2))
                .expect("the game goes on")
                .turn
        };
        let rooms = [
            "0197a1b2", "0197a1b3", "0197a1b4", "0197a1b5", "0197a1b6", "0197a1b7",
        ];
        let opened: HashSet<_> = rooms.iter().map(|room| first(room)).collect();
        assert!(opened.len() >= 3, "{opened:?}");
        assert_eq!(first(rooms[0]), first(rooms[0]));
    }

    #[test]
    fn games_against_each_level_open_differently_among_turns_nearly_the_best() {
        let game = Game::new(Variant::Standard);
        for level in (1..=Level::STRONGEST).filter_map(Level::new) {
            let played = openings(level);
            let distinct: HashSet<_> = played.iter().map(|(turn, _)| turn).collect();
            assert!(distinct.len() >= 3, "level {level}: {played:?}");
            let best = Engine::new(level)
                .think(&game, &Limits::depth(2))
                .expect("the game goes on");
            for (turn, score) in played {
                assert!(game.is_legal(turn).is_ok());
                if level.number() > Some(2) {
                    // The greedy levels' noise moves their scores; the searches' do not.
                    assert!(score > best.score - margin(level), "level {level}: {turn}");
                }
            }
        }
    }

    /// Searched deeper, one opening turn outscores all others by more than the margin,
    /// and its mirror images are among the searched turns only if the root looks at
    /// them: it must, or every game opens alike once the machine is fast enough.
    #[test]
    fn deep_searches_open_differently_too() {
        for level in [4, 5].into_iter().filter_map(Level::new) {
            let played = openings_to(level, 4);
            let distinct: HashSet<_> = played.iter().map(|(turn, _)| turn).collect();
            assert!(distinct.len() >= 3, "level {level}: {played:?}");
        }
    }

    #[test]
    fn the_same_seed_plays_the_same_game_and_analysis_does_not_vary() {
        let level = Level::new(3).expect("a level");
        assert_eq!(openings(level), openings(level));
        let game = Game::new(Variant::Standard);
        let best = |seed| {
            Engine::with_seed(level, seed)
                .think(&game, &Limits::depth(2))
                .map(|c| c.turn)
        };
        assert_eq!(best(1), best(2), "without a margin, the best turn alone");
    }

    #[test]
    fn the_margin_shrinks_as_the_level_rises() {
        let margins: Vec<i32> = (1..=Level::STRONGEST)
            .filter_map(Level::new)
            .map(margin)
            .collect();
        assert!(margins.windows(2).all(|m| m[0] > m[1]), "{margins:?}");
        assert_eq!(margin(Level::Random), 0);
        assert_eq!(margin(Level::Greedy), 0);
    }
}
