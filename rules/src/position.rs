//! The position: where every piece stands, whose turn it is, and which turns are legal.

use std::fmt;

use crate::{CELL_COUNT, Cell, CellSet, Color, IllegalTurn, Kind, Line, Placement, Side, Turn};

mod generate;
mod landing;

use landing::{Refusal, Surface};

/// The two games of the rulebook.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Variant {
    /// No drop may ever touch the central hexagon; dropping an 18th piece ends the game
    /// with a count of the centre.
    Standard,
    /// Only White's first drop avoids the centre; dropping an 18th piece ends the game in
    /// a draw.
    Basic,
}

impl Variant {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Basic => "basic",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A chain of one colour's visible dots linking a pair of opposite sides.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Chain {
    /// The two sides it links, the chain's first cell on the first, its last on the second.
    pub sides: [Side; 2],
    /// Its cells in order, each a neighbour of the one before.
    pub cells: Vec<Cell>,
}

impl std::str::FromStr for Variant {
    type Err = String;

    fn from_str(s: &str) -> Result<Variant, String> {
        match s.to_ascii_lowercase().as_str() {
            "standard" => Ok(Variant::Standard),
            "basic" => Ok(Variant::Basic),
            _ => Err(format!("unknown variant '{s}': expected standard or basic")),
        }
    }
}

/// Pieces per player.
pub const PIECES_PER_PLAYER: usize = 18;

/// The kind of each of a player's 18 pieces, by slot.
const SLOT_KINDS: [Kind; PIECES_PER_PLAYER] = [
    Kind::StraightMiddle,
    Kind::StraightMiddle,
    Kind::StraightEnd,
    Kind::StraightEnd,
    Kind::StraightEnd,
    Kind::StraightEnd,
    Kind::AngularCorner,
    Kind::AngularCorner,
    Kind::AngularLeft,
    Kind::AngularLeft,
    Kind::AngularRight,
    Kind::AngularRight,
    Kind::Triangle,
    Kind::Triangle,
    Kind::Triangle,
    Kind::Triangle,
    Kind::Triangle,
    Kind::Triangle,
];

/// One of the 36 pieces. Pieces of one player and kind are interchangeable; the slot only
/// tells them apart while they are on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct PieceId {
    /// Owner.
    color: Color,
    /// Index into the owner's pieces, `0..18`; fixes the kind.
    slot: u8,
}

impl PieceId {
    /// The owner.
    pub const fn color(self) -> Color {
        self.color
    }

    /// The kind.
    pub const fn kind(self) -> Kind {
        SLOT_KINDS[self.slot as usize]
    }

    /// Index among the owner's pieces, `0..18`.
    pub const fn slot(self) -> u8 {
        self.slot
    }

    /// All pieces of `color`.
    pub fn all(color: Color) -> impl Iterator<Item = PieceId> {
        (0..PIECES_PER_PLAYER as u8).map(move |slot| PieceId { color, slot })
    }

    /// Compact code stored in the `top` table: never zero.
    const fn code(self) -> u8 {
        1 + self.color as u8 * PIECES_PER_PLAYER as u8 + self.slot
    }

    const fn from_code(code: u8) -> Option<PieceId> {
        if code == 0 {
            return None;
        }
        let i = code - 1;
        let color = if i < PIECES_PER_PLAYER as u8 {
            Color::White
        } else {
            Color::Black
        };
        Some(PieceId {
            color,
            slot: i % PIECES_PER_PLAYER as u8,
        })
    }
}

/// A piece in play: where it stands and how high.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Placed {
    /// Its cells and PÜNCT.
    pub placement: Placement,
    /// Level of all three dots, 1 = on the board.
    pub level: u8,
}

/// One dot in a cell's stack.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Dot {
    /// The piece the dot belongs to.
    pub piece: PieceId,
    /// Level of the dot, 1 = on the board.
    pub level: u8,
    /// Whether it is the piece's PÜNCT rather than a minor dot.
    pub is_punct: bool,
}

/// The pieces a player has not yet dropped, counted by kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Reserve([u8; 6]);

impl Reserve {
    /// Pieces of `kind` left.
    pub const fn count(self, kind: Kind) -> u8 {
        self.0[kind as usize]
    }

    /// Pieces left in all.
    pub fn total(self) -> u8 {
        self.0.iter().sum()
    }
}

/// A turn checked against a position, ready to apply.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Action {
    /// Put a reserve piece on the ground.
    Drop(Placement),
    /// Lift `piece` and land it at `level`.
    Move {
        /// The moved piece.
        piece: PieceId,
        /// Where it starts, for the notation.
        from: Cell,
        /// Where it lands.
        to: Placement,
        /// Level it lands at.
        level: u8,
    },
    /// Nothing to do.
    Pass,
}

impl Action {
    /// The turn in notation.
    pub(crate) fn turn(self) -> Turn {
        match self {
            Action::Drop(p) => Turn::Drop {
                punct: p.punct(),
                minors: p.minors(),
            },
            Action::Move { from, to, .. } => Turn::Move {
                from,
                to: to.punct(),
                minors: to.minors(),
            },
            Action::Pass => Turn::Pass,
        }
    }
}

/// A position: every piece in play with its level, both reserves, and the side to move.
///
/// Cheap to clone (no heap data). Legality questions are answered here; the end of the
/// game, which needs the history, is the business of [`Game`](crate::Game).
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    /// Which game is played: decides where drops may go.
    variant: Variant,
    /// Whose turn it is.
    to_move: Color,
    /// Where each piece stands, `None` while in reserve; indexed `[color][slot]`.
    placed: [[Option<Placed>; PIECES_PER_PLAYER]; 2],
    /// Code of the piece owning the topmost dot of each cell (`PieceId::code`), 0 if empty.
    top: [u8; CELL_COUNT],
    /// Level of the topmost dot of each cell, 0 if empty, kept in step with `top`: the
    /// heights every landing is judged on, without a look at the pieces.
    height: [u8; CELL_COUNT],
    /// For each piece in play, the code of the dot right under each of its dots (in the
    /// order of `Placement::cells`), 0 for none. What lies under a dot cannot move or be
    /// covered by anything else while the dot is there, so this stays true until the
    /// piece is lifted, and lifting it uncovers its cells without a search. Indexed
    /// `[color][slot]`.
    under: [[[u8; 3]; PIECES_PER_PLAYER]; 2],
    /// Cells whose topmost dot belongs to each player, kept in step with `top` so the
    /// connection check needs no scan.
    visible: [CellSet; 2],
    /// Zobrist hash of what makes positions equal for repetition: the keys of the
    /// pieces in play and of the side to move, combined by exclusive or. `put`, `lift`
    /// and `apply` keep it, a key in or out at a time.
    hash: u64,
}

impl Position {
    /// The empty board with full reserves, White to move.
    pub fn new(variant: Variant) -> Position {
        Position {
            variant,
            to_move: Color::White,
            placed: [[None; PIECES_PER_PLAYER]; 2],
            top: [0; CELL_COUNT],
            height: [0; CELL_COUNT],
            under: [[[0; 3]; PIECES_PER_PLAYER]; 2],
            visible: [CellSet::EMPTY; 2],
            hash: 0,
        }
    }

    /// Which game is played.
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// Whose turn it is.
    pub const fn to_move(&self) -> Color {
        self.to_move
    }

    /// A hash of what makes two positions the same for repetition: every piece's owner,
    /// kind, cells, PÜNCT and level, and the side to move. (Reserves follow from the
    /// pieces on the board.) It is a Zobrist hash, kept up to date by every turn played
    /// rather than computed when asked, so asking costs nothing: [`Game`](crate::Game)
    /// finds repetitions with it, and a search can key a transposition table by it.
    ///
    /// ```
    /// use punct_rules::{Position, Variant};
    /// let (mut a, mut b) = (Position::new(Variant::Basic), Position::new(Variant::Basic));
    /// for turn in ["C4:C5,D5", "J14:J15,K15", "E4:E5,F5"] {
    ///     a.play(turn.parse()?)?;
    /// }
    /// for turn in ["E4:E5,F5", "J14:J15,K15", "C4:C5,D5"] {
    ///     b.play(turn.parse()?)?;
    /// }
    /// assert_eq!(a.hash(), b.hash()); // the same triangles, whichever came first
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// Where `piece` stands, `None` if it is in reserve.
    pub fn placed(&self, piece: PieceId) -> Option<Placed> {
        self.placed[piece.color as usize][piece.slot as usize]
    }

    /// Every piece in play with where it stands.
    pub fn pieces(&self) -> impl Iterator<Item = (PieceId, Placed)> + '_ {
        Color::ALL
            .into_iter()
            .flat_map(PieceId::all)
            .filter_map(|id| self.placed(id).map(|p| (id, p)))
    }

    /// The pieces `color` has not dropped yet.
    pub fn reserve(&self, color: Color) -> Reserve {
        let mut counts = [0; 6];
        for id in PieceId::all(color) {
            if self.placed(id).is_none() {
                counts[id.kind() as usize] += 1;
            }
        }
        Reserve(counts)
    }

    /// How many pieces `color` has in play.
    pub fn pieces_in_play(&self, color: Color) -> usize {
        self.placed[color as usize].iter().flatten().count()
    }

    /// The topmost dot of `cell`, if any.
    pub fn top(&self, cell: Cell) -> Option<Dot> {
        let piece = PieceId::from_code(self.top[cell.index()])?;
        let placed = self.placed(piece).expect("a piece on top is in play");
        Some(Dot {
            piece,
            level: placed.level,
            is_punct: placed.placement.punct() == cell,
        })
    }

    /// Level of the topmost dot of `cell`, 0 if it has none.
    pub fn height(&self, cell: Cell) -> u8 {
        self.height[cell.index()]
    }

    /// Where `piece`, which is in play, stands.
    fn placement(&self, piece: PieceId) -> Placement {
        self.placed(piece)
            .expect("only pieces in play stand somewhere")
            .placement
    }

    /// The codes of the dots right under `piece`'s, in the order of its cells.
    fn under(&self, piece: PieceId) -> [u8; 3] {
        self.under[piece.color as usize][piece.slot as usize]
    }

    /// Level of the piece with code `code`, 0 for none.
    fn level_of(&self, code: u8) -> u8 {
        PieceId::from_code(code)
            .and_then(|id| self.placed(id))
            .map_or(0, |p| p.level)
    }

    /// Every dot in `cell`, topmost first. A stack may have gaps under a bridge.
    pub fn stack(&self, cell: Cell) -> Vec<Dot> {
        let mut dots: Vec<Dot> = self
            .pieces()
            .filter(|(_, p)| p.placement.cells().contains(&cell))
            .map(|(piece, p)| Dot {
                piece,
                level: p.level,
                is_punct: p.placement.punct() == cell,
            })
            .collect();
        dots.sort_by_key(|d| std::cmp::Reverse(d.level));
        dots
    }

    /// Whether some piece other than `lifted` has a dot on the ground in `cell`.
    fn ground_taken(&self, cell: Cell, lifted: Option<PieceId>) -> bool {
        self.pieces().any(|(id, p)| {
            Some(id) != lifted && p.level == 1 && p.placement.cells().contains(&cell)
        })
    }

    /// Whether `piece` is in play and free: each of its dots is the topmost of its cell.
    pub fn is_free(&self, piece: PieceId) -> bool {
        self.placed(piece).is_some_and(|p| {
            p.placement
                .cells()
                .iter()
                .all(|c| self.top[c.index()] == piece.code())
        })
    }

    /// Whether `piece` is a bridge: its middle dot is higher than anything under it.
    pub fn is_bridge(&self, piece: PieceId) -> bool {
        self.bridge_gap(piece).is_some()
    }

    /// The middle cell of a bridge, if `piece` is one.
    pub fn bridge_gap(&self, piece: PieceId) -> Option<Cell> {
        let placed = self.placed(piece)?;
        let middle = placed.placement.bridge_middle()?;
        // The middle dot is the second of the piece's cells.
        let below = self.level_of(self.under(piece)[1]);
        (below + 1 < placed.level).then_some(middle)
    }

    /// The cells whose topmost dot belongs to `color`: what counts for connections.
    pub fn visible(&self, color: Color) -> CellSet {
        self.visible[color as usize]
    }

    /// Whether `color`'s visible dots link both sides of one pair of opposite sides.
    pub fn is_connected(&self, color: Color) -> bool {
        let visible = self.visible(color);
        Side::PAIRS.into_iter().any(|(a, b)| {
            visible.intersects(a.cells())
                && visible.intersects(b.cells())
                && CellSet::flood(a.cells(), visible).intersects(b.cells())
        })
    }

    /// A shortest chain of `color`'s visible dots between the two sides of a pair, if
    /// the colour is connected: what a page highlights at the end of a game.
    pub fn winning_chain(&self, color: Color) -> Option<Chain> {
        let visible = self.visible(color);
        Side::PAIRS.into_iter().find_map(|(from, to)| {
            // Breadth-first layers from one side; the first layer that reaches the other
            // side is as far as the shortest chain goes, and walking back through the
            // layers finds one.
            let mut layers = vec![from.cells().intersection(visible)];
            let mut reached = layers[0];
            loop {
                let last = *layers.last().expect("starts with one layer");
                if last.is_empty() {
                    return None;
                }
                if last.intersects(to.cells()) {
                    break;
                }
                let around = last
                    .iter()
                    .fold(CellSet::EMPTY, |set, cell| set.union(cell.neighbour_set()));
                let next = around.intersection(visible).difference(reached);
                reached = reached.union(next);
                layers.push(next);
            }
            let mut cell = layers
                .pop()
                .and_then(|last| last.intersection(to.cells()).iter().next())
                .expect("the last layer reaches the far side");
            let mut cells = vec![cell];
            while let Some(layer) = layers.pop() {
                cell = layer
                    .intersection(cell.neighbour_set())
                    .iter()
                    .next()
                    .expect("each layer's cells touch the layer before");
                cells.push(cell);
            }
            cells.reverse();
            Some(Chain {
                sides: [from, to],
                cells,
            })
        })
    }

    /// How many cells of the central hexagon show a dot of `color` on top.
    pub fn centre_count(&self, color: Color) -> usize {
        self.visible(color).intersection(Cell::centre()).len()
    }

    /// Whether a drop by the side to move must stay out of the central hexagon.
    fn centre_barred(&self) -> bool {
        match self.variant {
            Variant::Standard => true,
            Variant::Basic => {
                self.to_move == Color::White && self.pieces_in_play(Color::White) == 0
            }
        }
    }

    /// The mover's free piece with its PÜNCT on `cell`, or why there is none.
    fn piece_to_move(&self, cell: Cell) -> Result<PieceId, IllegalTurn> {
        let mover = self.to_move;
        let own = PieceId::all(mover)
            .filter_map(|id| self.placed(id).map(|p| (id, p)))
            .filter(|(_, p)| p.placement.punct() == cell)
            .max_by_key(|(_, p)| p.level);
        match own {
            Some((id, _)) if self.is_free(id) => Ok(id),
            Some(_) => Err(IllegalTurn::Frozen(cell)),
            None => match self.top(cell) {
                Some(dot) if dot.piece.color != mover && dot.is_punct => {
                    Err(IllegalTurn::NotYourPiece(cell))
                }
                _ => Err(IllegalTurn::NoPieceAt(cell)),
            },
        }
    }

    /// Why `to` cannot land on `surface`, from which `lifted` was taken, in terms of
    /// cells.
    fn refusal(
        &self,
        surface: &Surface,
        lifted: PieceId,
        to: Placement,
        refusal: Refusal,
    ) -> IllegalTurn {
        let [p, middle, far] = to.cells();
        match refusal {
            Refusal::CannotBridge => IllegalTurn::CannotBridge(to.kind()),
            Refusal::Raised => [middle, far]
                .into_iter()
                .find(|&c| {
                    surface.height(c.index() as u8) > 0 && !self.ground_taken(c, Some(lifted))
                })
                .map_or(IllegalTurn::PunctUnsupported(p), IllegalTurn::UnderBridge),
            Refusal::PunctOnOpponent => IllegalTurn::PunctOnOpponent(p),
            Refusal::Uneven {
                minor,
                expected,
                found,
            } => IllegalTurn::UnevenLanding {
                cell: [middle, far][minor],
                expected,
                found,
            },
        }
    }

    /// Checks `turn` for the side to move and says what it does, without applying it.
    pub(crate) fn check(&self, turn: Turn) -> Result<Action, IllegalTurn> {
        match turn {
            Turn::Pass => {
                if self.has_legal_turn() {
                    Err(IllegalTurn::PassNotAllowed)
                } else {
                    Ok(Action::Pass)
                }
            }
            Turn::Drop { punct, minors } => {
                let placement =
                    Placement::from_cells(punct, minors).ok_or(IllegalTurn::NotAPiece)?;
                if self.reserve(self.to_move).count(placement.kind()) == 0 {
                    return Err(IllegalTurn::ReserveEmpty(placement.kind()));
                }
                let cells = placement.cells();
                if self.centre_barred()
                    && let Some(&c) = cells.iter().find(|c| c.is_central())
                {
                    return Err(IllegalTurn::DropInCentre(c));
                }
                if let Some(&c) = cells.iter().find(|c| self.top[c.index()] != 0) {
                    return Err(if self.ground_taken(c, None) {
                        IllegalTurn::DropOnOccupiedCell(c)
                    } else {
                        IllegalTurn::DropUnderBridge(c)
                    });
                }
                Ok(Action::Drop(placement))
            }
            Turn::Move { from, to, minors } => {
                let piece = self.piece_to_move(from)?;
                if from != to && Line::through(from, to).is_none() {
                    return Err(IllegalTurn::NotOnLine { from, to });
                }
                let kind = piece.kind();
                let placement =
                    Placement::of_kind(kind, to, minors).ok_or_else(
                        || match Placement::from_cells(to, minors) {
                            Some(_) => IllegalTurn::WrongShape(kind),
                            None => IllegalTurn::NotAPiece,
                        },
                    )?;
                let start = self.placed(piece).expect("movable pieces are in play");
                if placement == start.placement {
                    return Err(IllegalTurn::NullMove);
                }
                let mut surface = Surface::new(self);
                surface.lift(self, piece);
                let [punct, a, b] = placement.cells().map(|c| c.index() as u8);
                let level = surface
                    .landing(kind, punct, [a, b])
                    .map_err(|r| self.refusal(&surface, piece, placement, r))?;
                Ok(Action::Move {
                    piece,
                    from,
                    to: placement,
                    level,
                })
            }
        }
    }

    /// Whether `turn` is legal for the side to move.
    pub fn is_legal(&self, turn: Turn) -> Result<(), IllegalTurn> {
        self.check(turn).map(drop)
    }

    /// Plays `turn` for the side to move, or says why it is illegal and leaves the
    /// position as it was. This knows nothing of the game's end: see [`Game::play`].
    ///
    /// [`Game::play`]: crate::Game::play
    pub fn play(&mut self, turn: Turn) -> Result<(), IllegalTurn> {
        let action = self.check(turn)?;
        self.apply(action);
        Ok(())
    }

    /// Applies a checked action and passes the turn.
    pub(crate) fn apply(&mut self, action: Action) {
        match action {
            Action::Drop(placement) => {
                let piece = PieceId::all(self.to_move)
                    .find(|&id| id.kind() == placement.kind() && self.placed(id).is_none())
                    .expect("checked drops have a piece in reserve");
                self.put(piece, placement, 1);
            }
            Action::Move {
                piece, to, level, ..
            } => {
                self.lift(piece);
                self.put(piece, to, level);
            }
            Action::Pass => {}
        }
        self.to_move = self.to_move.opponent();
        self.hash ^= SIDE_KEY;
    }

    /// Takes `piece`, which is free, off the board: its cells show what it covered.
    fn lift(&mut self, piece: PieceId) {
        let placed = self.placed(piece).expect("lifted pieces are in play");
        self.hash ^= piece_key(piece, placed);
        for (cell, code) in placed.placement.cells().into_iter().zip(self.under(piece)) {
            self.set_top(cell, code, self.level_of(code));
        }
        self.placed[piece.color as usize][piece.slot as usize] = None;
    }

    /// Puts `piece` on top of `placement`'s cells at `level`.
    fn put(&mut self, piece: PieceId, placement: Placement, level: u8) {
        let placed = Placed { placement, level };
        self.placed[piece.color as usize][piece.slot as usize] = Some(placed);
        self.hash ^= piece_key(piece, placed);
        let cells = placement.cells();
        self.under[piece.color as usize][piece.slot as usize] = cells.map(|c| self.top[c.index()]);
        for cell in cells {
            self.set_top(cell, piece.code(), level);
        }
    }

    fn set_top(&mut self, cell: Cell, code: u8, level: u8) {
        self.top[cell.index()] = code;
        self.height[cell.index()] = level;
        for color in Color::ALL {
            self.visible[color as usize].remove(cell);
        }
        if let Some(id) = PieceId::from_code(code) {
            self.visible[id.color as usize].insert(cell);
        }
    }

    /// What makes positions equal for repetition, exactly: side to move and every piece's
    /// owner, kind, placement and level, in a canonical order.
    pub(crate) fn repetition_key(&self) -> (Color, Vec<u32>) {
        let mut key: Vec<u32> = self.pieces().map(|(id, p)| pack(id, p)).collect();
        key.sort_unstable();
        (self.to_move, key)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("variant", &self.variant)
            .field("to_move", &self.to_move)
            .field("pieces", &self.pieces().collect::<Vec<_>>())
            .finish()
    }
}

/// A piece's owner, kind, placement and level in one number; the slot is left out
/// because pieces of one kind are interchangeable.
fn pack(piece: PieceId, p: Placed) -> u32 {
    piece.color as u32
        | (p.placement.kind() as u32) << 1
        | (p.placement.orientation() as u32) << 4
        | (p.placement.punct().index() as u32) << 8
        | (p.level as u32) << 16
}

/// Zobrist key of Black to move.
const SIDE_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// Zobrist key of a piece standing somewhere: splitmix64 of its packed description, as
/// good as a table of random keys and without one (levels have no bound, so a table
/// would need a guess at the highest).
fn piece_key(piece: PieceId, p: Placed) -> u64 {
    let mut z = (pack(piece, p) as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
impl Position {
    /// Stands a piece of `color` from its reserve on `placement` at `level`, legal or not,
    /// for tests of positions no short script reaches.
    pub(crate) fn stand(&mut self, color: Color, placement: Placement, level: u8) {
        let piece = PieceId::all(color)
            .find(|&id| id.kind() == placement.kind() && self.placed(id).is_none())
            .expect("a piece of that kind in reserve");
        self.put(piece, placement, level);
    }

    /// [`Position::hash`] computed afresh from the pieces and the side to move: what the
    /// hash kept turn by turn must always equal.
    pub(crate) fn hash_from_scratch(&self) -> u64 {
        let side = match self.to_move {
            Color::White => 0,
            Color::Black => SIDE_KEY,
        };
        self.pieces()
            .fold(side, |hash, (id, p)| hash ^ piece_key(id, p))
    }
}

#[cfg(test)]
mod tests;
