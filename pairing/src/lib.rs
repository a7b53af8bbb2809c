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
//!   ([`SwissError`]). Among the pairings that keep them, it takes the cheapest by the
//!   FIDE Dutch system's quality criteria: the fewest floaters, then the smallest score
//!   differences, then the fewest colour preferences denied.
//! - [`standings`] and [`robin_standings`]: scores, Buchholz and Sonneborn-Berger,
//!   with rounds without a game counted as FIDE's tie-break regulations (C.07) say: in a
//!   Swiss by its article 16, in a round robin not at all.
//! - [`berger`]: round robins on Berger tables, single or double.
//! - [`Arena`]: the arena's scoring (streaks double a win) and its pool, which never
//!   pairs two players the caller keeps apart.
//! - `weighted` (private): the perfect matching of greatest weight (Edmonds' weighted
//!   blossom algorithm) that the Swiss pairs with.
//! - `matching` (private): the maximum matching, fixed pair by pair in order of
//!   priority, that the arena pairs its pool with.
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
//!     rounds.push(Round { games: games.collect(), bye: pairing.bye, ..Round::default() });
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
mod weighted;

pub use arena::{Arena, ArenaError, ArenaPlayer, Status, arena_points};
pub use game::{Color, Game, HalfPoints, Outcome, Pair, Pairing, QuarterPoints, Round};
pub use round_robin::{Cycles, RobinRound, berger};
pub use standings::{Standing, robin_standings, standings};
pub use swiss::{SwissError, pair_round};
