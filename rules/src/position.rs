//! The position: where every piece stands, whose turn it is, and which turns are legal.

use std::fmt;

use crate::{CELL_COUNT, Cell, CellSet, Color, IllegalTurn, Kind, Line, Placement, Side, Turn};

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
    /// Cells whose topmost dot belongs to each player, kept in step with `top` so the
    /// connection check needs no scan.
    visible: [CellSet; 2],
    /// Zobrist-style hash of what makes positions equal for repetition.
    hash: u64,
}

/// What lies on the board once one piece is lifted: the heights a landing is judged on.
struct Surface<'a> {
    /// The position with the piece still on it.
    position: &'a Position,
    /// The lifted piece's cells, and the topmost remaining dot of each (code, level).
    lifted: [(Cell, u8, u8); 3],
}

impl Surface<'_> {
    /// Height of the topmost dot at `cell` and its owner.
    fn top(&self, cell: Cell) -> (u8, Option<Color>) {
        for &(c, code, level) in &self.lifted {
            if c == cell {
                return (level, PieceId::from_code(code).map(PieceId::color));
            }
        }
        self.position.height_and_owner(cell)
    }
}

impl Position {
    /// The empty board with full reserves, White to move.
    pub fn new(variant: Variant) -> Position {
        Position {
            variant,
            to_move: Color::White,
            placed: [[None; PIECES_PER_PLAYER]; 2],
            top: [0; CELL_COUNT],
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
    /// pieces on the board.)
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
        self.height_and_owner(cell).0
    }

    fn height_and_owner(&self, cell: Cell) -> (u8, Option<Color>) {
        match PieceId::from_code(self.top[cell.index()]) {
            None => (0, None),
            Some(id) => (
                self.placed[id.color as usize][id.slot as usize].map_or(0, |p| p.level),
                Some(id.color),
            ),
        }
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

    /// The topmost dot of `cell` other than `lifted`'s, as (code, level).
    fn top_without(&self, cell: Cell, lifted: PieceId) -> (u8, u8) {
        self.pieces()
            .filter(|&(id, p)| id != lifted && p.placement.cells().contains(&cell))
            .max_by_key(|(_, p)| p.level)
            .map_or((0, 0), |(id, p)| (id.code(), p.level))
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
        let below = self
            .stack(middle)
            .into_iter()
            .filter(|d| d.level < placed.level)
            .map(|d| d.level)
            .max()
            .unwrap_or(0);
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

    fn surface(&self, lifted: PieceId) -> Surface<'_> {
        let cells = self
            .placed(lifted)
            .expect("only pieces in play are lifted")
            .placement
            .cells();
        Surface {
            position: self,
            lifted: cells.map(|c| {
                let (code, level) = self.top_without(c, lifted);
                (c, code, level)
            }),
        }
    }

    /// The level `placement` lands at for the side to move once `lifted` is off the
    /// board (RULES.md 3.3), or why it cannot land.
    fn landing(
        &self,
        surface: &Surface<'_>,
        lifted: PieceId,
        to: Placement,
    ) -> Result<u8, IllegalTurn> {
        let [p, middle, far] = to.cells();
        let (k, owner) = surface.top(p);
        let (h_middle, _) = surface.top(middle);
        let (h_far, _) = surface.top(far);
        let kind = to.kind();
        if kind.punct_in_middle() && h_middle == h_far && h_middle > k {
            // Ends raised around a lower PÜNCT: the PÜNCT would not rest on a piece.
            return Err(IllegalTurn::CannotBridge(kind));
        }
        if k == 0 {
            if h_middle == 0 && h_far == 0 {
                return Ok(1);
            }
            return Err([middle, far]
                .into_iter()
                .find(|&c| surface.top(c).0 > 0 && !self.ground_taken(c, Some(lifted)))
                .map_or(IllegalTurn::PunctUnsupported(p), IllegalTurn::UnderBridge));
        }
        if owner != Some(self.to_move) {
            return Err(IllegalTurn::PunctOnOpponent(p));
        }
        for (cell, h, is_middle) in [(middle, h_middle, true), (far, h_far, false)] {
            if h == k || (h < k && is_middle && kind.can_bridge()) {
                continue;
            }
            return Err(if h < k && kind == Kind::Triangle {
                IllegalTurn::CannotBridge(kind)
            } else {
                IllegalTurn::UnevenLanding {
                    cell,
                    expected: k,
                    found: h,
                }
            });
        }
        Ok(k + 1)
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
                let level = self.landing(&self.surface(piece), piece, placement)?;
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

    fn lift(&mut self, piece: PieceId) {
        let placed = self.placed(piece).expect("lifted pieces are in play");
        self.hash ^= piece_key(piece, placed);
        for cell in placed.placement.cells() {
            let (code, _) = self.top_without(cell, piece);
            self.set_top(cell, code);
        }
        self.placed[piece.color as usize][piece.slot as usize] = None;
    }

    fn put(&mut self, piece: PieceId, placement: Placement, level: u8) {
        let placed = Placed { placement, level };
        self.placed[piece.color as usize][piece.slot as usize] = Some(placed);
        self.hash ^= piece_key(piece, placed);
        for cell in placement.cells() {
            self.set_top(cell, piece.code());
        }
    }

    fn set_top(&mut self, cell: Cell, code: u8) {
        self.top[cell.index()] = code;
        for color in Color::ALL {
            self.visible[color as usize].remove(cell);
        }
        if let Some(id) = PieceId::from_code(code) {
            self.visible[id.color as usize].insert(cell);
        }
    }

    /// Calls `f` with every legal turn of the side to move other than `pass`, and stops
    /// early when it returns `false`.
    pub(crate) fn for_each_action(&self, mut f: impl FnMut(Action) -> bool) {
        let mover = self.to_move;
        let reserve = self.reserve(mover);
        let barred = self.centre_barred();
        for kind in Kind::ALL {
            if reserve.count(kind) == 0 {
                continue;
            }
            for placement in Placement::all(kind) {
                let cells = placement.cells();
                if cells.iter().all(|c| self.top[c.index()] == 0)
                    && !(barred && cells.iter().any(|c| c.is_central()))
                    && !f(Action::Drop(placement))
                {
                    return;
                }
            }
        }
        for piece in PieceId::all(mover).filter(|&id| self.is_free(id)) {
            let start = self
                .placed(piece)
                .expect("free pieces are in play")
                .placement;
            let surface = self.surface(piece);
            let from = start.punct();
            let destinations = std::iter::once(from)
                .chain(crate::Direction::ALL.into_iter().flat_map(|d| from.ray(d)));
            for to in destinations {
                for orient in 0..piece.kind().orientations() {
                    let Some(placement) = Placement::new(piece.kind(), to, orient) else {
                        continue;
                    };
                    if placement == start {
                        continue;
                    }
                    if let Ok(level) = self.landing(&surface, piece, placement) {
                        let action = Action::Move {
                            piece,
                            from,
                            to: placement,
                            level,
                        };
                        if !f(action) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Every legal turn of the side to move: `[pass]` when there is no other.
    pub fn legal_turns(&self) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.for_each_action(|a| {
            turns.push(a.turn());
            true
        });
        if turns.is_empty() {
            turns.push(Turn::Pass);
        }
        turns
    }

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
        self.for_each_action(|_| {
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

const SIDE_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// Hash key of a piece standing somewhere (splitmix64 of its packed description).
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
}
