//! The landing rule (RULES.md 3.3) and the heights it is judged on. Generation and the
//! legality check of one turn both land pieces here, so they cannot disagree.

use super::Position;
use crate::{Cell, CellSet, Kind, PieceId};

/// What lies on the board as the side to move sees it, with at most one of their pieces
/// lifted: the height of every cell and which cells the mover's dots top.
///
/// Built once per generation and patched as each piece is lifted and put back, so that a
/// landing is judged on three table reads.
pub(super) struct Surface {
    /// Level of the topmost dot of each cell, by index; 0 if empty. 256 entries, so that a
    /// `u8` cell index needs no bounds check.
    height: [u8; 256],
    /// The cells whose topmost dot is the mover's.
    mine: CellSet,
}

impl Surface {
    /// The board with nothing lifted.
    pub(super) fn new(position: &Position) -> Surface {
        let mut height = [0; 256];
        height[..position.height.len()].copy_from_slice(&position.height);
        Surface {
            height,
            mine: position.visible(position.to_move),
        }
    }

    /// Takes `piece`, a free piece in play, off the board: its cells show the dots it
    /// covered.
    pub(super) fn lift(&mut self, position: &Position, piece: PieceId) {
        let cells = position.placement(piece).cells();
        for (cell, code) in cells.into_iter().zip(position.under(piece)) {
            self.height[cell.index()] = position.level_of(code);
            let mine = PieceId::from_code(code).is_some_and(|id| id.color() == position.to_move);
            self.set_mine(cell, mine);
        }
    }

    /// Puts back the piece [`Surface::lift`] took off.
    pub(super) fn restore(&mut self, position: &Position, piece: PieceId) {
        let mine = position.visible(position.to_move);
        for cell in position.placement(piece).cells() {
            self.height[cell.index()] = position.height[cell.index()];
            self.set_mine(cell, mine.contains(cell));
        }
    }

    fn set_mine(&mut self, cell: Cell, mine: bool) {
        if mine {
            self.mine.insert(cell);
        } else {
            self.mine.remove(cell);
        }
    }

    /// Height of the cell with index `index`.
    pub(super) fn height(&self, index: u8) -> u8 {
        self.height[usize::from(index)]
    }

    /// The level a piece of `kind` lands at with its PÜNCT on the cell with index `punct`
    /// and its minor dots on `minors` (for the end-PÜNCT kinds, the middle dot first).
    #[inline]
    pub(super) fn landing(&self, kind: Kind, punct: u8, minors: [u8; 2]) -> Result<u8, Refusal> {
        landing(
            kind,
            self.height(punct),
            self.mine.has_index(punct),
            minors.map(|m| self.height(m)),
        )
    }
}

/// Why a piece cannot land, before it is put in terms of cells as an
/// [`IllegalTurn`](crate::IllegalTurn): generation only needs to know that it cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The piece would hang over a lower cell, and its kind cannot bridge.
    CannotBridge,
    /// The PÜNCT's cell is empty, a minor dot's is not.
    Raised,
    /// The top dot under the PÜNCT is the opponent's.
    PunctOnOpponent,
    /// A minor dot's cell is not at the PÜNCT cell's height.
    Uneven {
        /// Which minor dot, in the order of the minor heights given.
        minor: usize,
        /// The height of the PÜNCT's cell.
        expected: u8,
        /// The height of the minor dot's cell.
        found: u8,
    },
}

/// The landing rule: the level a piece of `kind` lands at, given the height `k` of its
/// PÜNCT's cell, whether the top dot there is the mover's, and the heights of its minor
/// dots' cells (for the end-PÜNCT kinds, the middle dot first).
#[inline]
fn landing(kind: Kind, k: u8, own: bool, [h_middle, h_far]: [u8; 2]) -> Result<u8, Refusal> {
    if kind.punct_in_middle() && h_middle == h_far && h_middle > k {
        // Ends raised around a lower PÜNCT: the PÜNCT would not rest on a piece.
        return Err(Refusal::CannotBridge);
    }
    if k == 0 {
        return if h_middle == 0 && h_far == 0 {
            Ok(1)
        } else {
            Err(Refusal::Raised)
        };
    }
    if !own {
        return Err(Refusal::PunctOnOpponent);
    }
    for (minor, h) in [h_middle, h_far].into_iter().enumerate() {
        if h == k || (h < k && minor == 0 && kind.can_bridge()) {
            continue;
        }
        return Err(if h < k && kind == Kind::Triangle {
            Refusal::CannotBridge
        } else {
            Refusal::Uneven {
                minor,
                expected: k,
                found: h,
            }
        });
    }
    Ok(k + 1)
}
