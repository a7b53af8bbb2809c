//! The rules of PÜNCT, Kris Burm's connection game: the single authority on what is legal.
//!
//! The specification is `RULES.md` of the project; section numbers below refer to it.
//!
//! # Layout
//!
//! - [`cell`](Cell): the 211 cells, their names (`I9`), the six [`Direction`]s, the three
//!   [`Line`]s through a cell, the central hexagon and the six [`Side`]s (section 1).
//! - [`CellSet`]: a set of cells as a bit mask, with the flood fill that finds connections.
//! - [`piece`](Kind): the two players, the six [`Kind`]s of piece and a [`Placement`]:
//!   which cells a piece covers and where its PÜNCT is (section 2).
//! - [`Position`]: every piece in play with its level, the stacks they form, reserves,
//!   free and frozen pieces, bridges; legal turn generation, the legality check of one
//!   turn and applying it (section 3), and the Zobrist hash that turns keep. Generation
//!   (`position/generate.rs`) and the check share one landing rule
//!   (`position/landing.rs`); generating into a kept buffer, counting, checking and
//!   playing a turn allocate nothing (`tests/allocation.rs`).
//! - [`Game`]: a position with its history; decides the end of the game in the order of
//!   section 4, including repetition; reads and writes game records.
//! - [`Turn`]: a turn and its notation (section 5); [`IllegalTurn`] says why a turn was
//!   refused.
//! - [`perft`]: counts of turn sequences (section 6).
//! - [`Diagram`]: a text drawing of a position, plain or coloured, for every client.
//!
//! The crate is pure: no I/O, no threads. With the `serde` feature, cells and turns
//! serialise as their notation and the small enums as lower-case names.
//!
//! # Interpretations
//!
//! Where RULES.md leaves a choice to the implementation:
//! - *Left and right* for the end-PÜNCT angular pieces are as the board is drawn with
//!   columns `A`–`Q` left to right and rows rising upwards; see [`Direction`].
//! - *Neither player can move* (4.5) is judged right after a `pass`: if the player who
//!   is then to move has no legal turn either, the game ends as in 4.3, with the `pass`
//!   recorded.
//! - A record's text carries its variant only in a comment; readers are told the variant.
//!
//! ```
//! use punct_rules::{Game, Turn, Variant, IllegalTurn};
//! let mut game = Game::new(Variant::Standard);
//! // Standard game: no drop may touch the central hexagon.
//! let turn: Turn = "i9:i10,j10".parse()?;
//! assert!(matches!(game.play(turn), Err(IllegalTurn::DropInCentre(_))));
//! game.play("c4:d5,c5".parse()?)?;
//! assert_eq!(game.turns()[0].to_string(), "C4:C5,D5");
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod cell;
mod cellset;
mod diagram;
mod error;
mod game;
mod perft;
mod piece;
mod position;
mod turn;

pub use cell::{CELL_COUNT, Cell, Direction, Line, ParseCellError, Side};
pub use cellset::{CellSet, Iter as CellSetIter};
pub use diagram::{BoardLayout, Diagram, DiagramStyle, cell_symbol};
pub use error::IllegalTurn;
pub use game::{
    DrawReason, Game, Outcome, RecordError, RecordErrorKind, ReplayError, WinReason, record_text,
};
pub use perft::{perft, perft_divide};
pub use piece::{Color, Kind, Placement};
pub use position::{Chain, Dot, PIECES_PER_PLAYER, PieceId, Placed, Position, Reserve, Variant};
pub use turn::{Notation, ParseTurnError, Turn};
