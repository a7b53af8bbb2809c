//! Tournament pairing and scoring for PÜNCT: who meets whom, with which colour, and who
//! leads. The tournament director (a server actor) asks it; it keeps no state of its
//! own but the arena's pool, and does no I/O.
//!
//! # Layout
//!
//! - [`game`](Game): colours, outcomes, games, rounds and pairings, and points kept as
//!   integers ([`HalfPoints`]: a win 2, a draw 1).
//! - [`pair_round`]: the Swiss system. Its absolute rules (no opponent twice, nor one
//!   the caller keeps apart, no colour three times in a row, whites and blacks at most 2
//!   apart, one bye at most) are never broken: when no pairing keeps them, it says so
//!   ([`SwissError`]).
//! - [`standings`]: scores, Buchholz and Sonneborn-Berger, with byes and missed rounds
//!   counted as FIDE counts unplayed rounds.
//! - [`berger`]: round robins on Berger tables, single or double.
//! - [`Arena`]: the arena's scoring (streaks double a win) and its pool, which never
//!   pairs two players the caller keeps apart.
//! - `matching` (private): the maximum matching, fixed pair by pair in order of
//!   priority, that the Swiss and the arena pair with. It finds a pairing whenever one
//!   exists, however far players must float, without backtracking's exponential worst
//!   case.
//!
//! Players are any `Copy + Ord` ids (account ids, seat numbers); the order of a list of
//! players is meaningful where documented (the initial ranking, the draw).
//!
//! ```
//! use punct_pairing::{Game, Outcome, Round, pair_round, standings};
//! let players = [10, 20, 30, 40, 50];
//! let mut rounds: Vec<Round<u32>> = Vec::new();
//! for _ in 0..3 {
//!     let pairing = pair_round(&players, &rounds, &[])?;
//!     // Five players: one has the bye each round, never the same one.
//!     assert!(pairing.bye.is_some());
//!     let games = pairing.pairs.iter().map(|&pair| Game { pair, outcome: Outcome::Draw });
//!     rounds.push(Round { games: games.collect(), bye: pairing.bye });
//! }
//! let table = standings(&players, &rounds);
//! assert_eq!(table.len(), 5);
//! # Ok::<_, punct_pairing::SwissError<u32>>(())
//! ```

mod arena;
mod game;
mod matching;
mod round_robin;
mod standings;
mod swiss;

pub use arena::{Arena, ArenaError, ArenaPlayer, Status, arena_points};
pub use game::{Color, Game, HalfPoints, Outcome, Pair, Pairing, QuarterPoints, Round};
pub use round_robin::{Cycles, RobinRound, berger};
pub use standings::{Standing, standings};
pub use swiss::{SwissError, pair_round};
