//! Legal turn generation: every drop and every move of the side to move, in a fixed order
//! (drops by kind, PÜNCT cell and orientation; then moves by piece, destination along
//! the lines, orientation), without allocating.

use super::Position;
use super::landing::Surface;
use crate::piece::{NONE, Shape, minor_table};
use crate::position::Action;
use crate::{CELL_COUNT, Cell, CellSet, Direction, Kind, PieceId, Placement, Turn};

impl Position {
    /// Calls `f` with every legal turn of the side to move other than `pass`, and stops
    /// early when it returns `false`.
    pub(crate) fn for_each_action(&self, mut f: impl FnMut(Action) -> bool) {
        let drops_done = self.for_each_drop_cell(|kind, punct, mut fits| {
            while fits != 0 {
                let orient = fits.trailing_zeros() as u8;
                fits &= fits - 1;
                if !f(Action::Drop(Placement::on_board(kind, punct, orient))) {
                    return false;
                }
            }
            true
        });
        if drops_done {
            self.for_each_move(&mut f);
        }
    }

    /// The drops (RULES.md 3.1): the placements of a kind in reserve on three cells that
    /// hold no dot, bridge or (where barred) central cell. Calls `f` with each kind in
    /// reserve, each cell where its PÜNCT may go, and the orientations it may take there
    /// as bits (bit `o` for orientation `o`; never none), so that they can be counted
    /// without being listed. Returns `false` once `f` has.
    fn for_each_drop_cell(&self, mut f: impl FnMut(Kind, Cell, u8) -> bool) -> bool {
        let reserve = self.reserve(self.to_move);
        let mut blocked = self.visible[0].union(self.visible[1]);
        if self.centre_barred() {
            blocked = blocked.union(Cell::centre());
        }
        let free = FreeCells::new(CellSet::full().difference(blocked));
        for kind in Kind::ALL {
            if reserve.count(kind) == 0 {
                continue;
            }
            let Shape { from_first, turn } = kind.shape();
            let orientations = (1 << kind.orientations()) - 1;
            for &punct in free.cells() {
                // Bit o of `around`: the first minor dot's cell in orientation o is free.
                let around = free.open[punct.index()];
                if around & orientations == 0 {
                    continue;
                }
                // Bit o: the second minor dot's cell in orientation o is free.
                let second = if from_first {
                    let beyond = punct.neighbour_indices();
                    (0..6).fold(0, |bits, o| {
                        bits | rotate(free.open[usize::from(beyond[o])], turn) & 1 << o
                    })
                } else {
                    rotate(around, turn)
                };
                let fits = around & second & orientations;
                if fits != 0 && !f(kind, punct, fits) {
                    return false;
                }
            }
        }
        true
    }

    /// The moves (RULES.md 3.2): each free piece of the mover, lifted, its PÜNCT sent
    /// along the three lines through its cell and turned every way, wherever it can land.
    fn for_each_move(&self, f: &mut impl FnMut(Action) -> bool) {
        let mut surface = Surface::new(self);
        for piece in PieceId::all(self.to_move) {
            if !self.is_free(piece) {
                continue;
            }
            surface.lift(self, piece);
            let going_on = self.moves_of(&surface, piece, f);
            surface.restore(self, piece);
            if !going_on {
                return;
            }
        }
    }

    /// The moves of `piece`, lifted off `surface`. Returns `false` once `f` has.
    fn moves_of(
        &self,
        surface: &Surface,
        piece: PieceId,
        f: &mut impl FnMut(Action) -> bool,
    ) -> bool {
        let kind = piece.kind();
        let table = minor_table(kind);
        let start = self.placement(piece);
        let from = start.punct();
        let destinations =
            std::iter::once(from).chain(Direction::ALL.into_iter().flat_map(|d| from.ray(d)));
        for to in destinations {
            let punct = to.index() as u8;
            for (orient, &minors) in (0..).zip(&table[to.index()]) {
                if minors[0] == NONE || (to == from && orient == start.orientation()) {
                    continue;
                }
                if let Ok(level) = surface.landing(kind, punct, minors) {
                    let action = Action::Move {
                        piece,
                        from,
                        to: Placement::on_board(kind, to, orient),
                        level,
                    };
                    if !f(action) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Every legal turn of the side to move: `[pass]` when there is no other.
    pub fn legal_turns(&self) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.legal_turns_into(&mut turns);
        turns
    }

    /// [`Position::legal_turns`] into `turns`, which is cleared first: a caller that keeps
    /// one buffer generates without allocating once it is large enough.
    ///
    /// ```
    /// use punct_rules::{Position, Variant};
    /// let mut turns = Vec::new();
    /// Position::new(Variant::Standard).legal_turns_into(&mut turns);
    /// assert_eq!(turns.len(), 4986);
    /// ```
    pub fn legal_turns_into(&self, turns: &mut Vec<Turn>) {
        turns.clear();
        self.for_each_action(|a| {
            turns.push(a.turn());
            true
        });
        if turns.is_empty() {
            turns.push(Turn::Pass);
        }
    }

    /// The legal turns as checked actions, ready to apply: `[Pass]` when there is no
    /// other.
    pub(crate) fn legal_actions(&self) -> Vec<Action> {
        let mut actions = Vec::new();
        self.for_each_action(|a| {
            actions.push(a);
            true
        });
        if actions.is_empty() {
            actions.push(Action::Pass);
        }
        actions
    }

    /// Number of legal turns of the side to move (a forced `pass` counts as one).
    pub fn count_legal_turns(&self) -> usize {
        let mut n = 0;
        self.for_each_drop_cell(|_, _, fits| {
            n += fits.count_ones() as usize;
            true
        });
        self.for_each_move(&mut |_| {
            n += 1;
            true
        });
        n.max(1)
    }

    /// Whether the side to move has a legal turn other than `pass`.
    pub fn has_legal_turn(&self) -> bool {
        let mut any = false;
        self.for_each_action(|_| {
            any = true;
            false
        });
        any
    }
}

/// The cells a drop may cover, and which of their neighbours a drop may cover too: what
/// every kind's drops are read from, each cell and neighbour looked at once for the six
/// kinds and their six orientations ([`Kind::shape`](crate::Kind) says where the minor
/// dots lie).
struct FreeCells {
    /// The free cells in canonical order: the first `len` entries.
    cells: [Cell; CELL_COUNT],
    /// How many cells are free.
    len: usize,
    /// For each free cell, which of its neighbours are free: bit `i` for the neighbour in
    /// direction `Direction::ALL[i]`; 0 for the other cells. 256 entries, so that the
    /// `u8::MAX` of a missing neighbour reads 0.
    open: [u8; 256],
}

impl FreeCells {
    fn new(free: CellSet) -> FreeCells {
        let mut cells = FreeCells {
            cells: [Cell::from_index(0).expect("a board cell"); CELL_COUNT],
            len: 0,
            open: [0; 256],
        };
        for cell in free {
            cells.cells[cells.len] = cell;
            cells.len += 1;
            cells.open[cell.index()] = (0..)
                .zip(cell.neighbour_indices())
                .fold(0, |bits, (i, n)| bits | u8::from(free.has_index(n)) << i);
        }
        cells
    }

    fn cells(&self) -> &[Cell] {
        &self.cells[..self.len]
    }
}

/// Six bits, one per direction, turned back by `turn` sixths: bit `o` of the result is
/// bit `(o + turn) % 6` of `bits`.
const fn rotate(bits: u8, turn: u8) -> u8 {
    (bits >> turn | bits << (6 - turn)) & 0b11_1111
}
