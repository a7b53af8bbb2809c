//! Players, the six kinds of piece, and where a piece can stand.

use std::fmt;

use crate::{CELL_COUNT, Cell, Direction};

/// A player.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Color {
    /// Moves first.
    White,
    /// Moves second.
    Black,
}

impl Color {
    /// Both players, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other player.
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Lower-case name, as in `punct rules status` output.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The six kinds of piece, told apart by shape and by which dot is the PÜNCT.
///
/// Pieces are never flipped, so the two end-PÜNCT angular kinds are mirror images.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Kind {
    /// Three in a line, PÜNCT in the middle (2 per player).
    StraightMiddle,
    /// Three in a line, PÜNCT at an end (4 per player).
    StraightEnd,
    /// Bent by 60°, PÜNCT at the corner (2 per player).
    AngularCorner,
    /// Bent by 60°, PÜNCT at an end; walking from the PÜNCT the piece turns left (2 per
    /// player). Left is counter-clockwise with columns drawn left to right and rows rising.
    AngularLeft,
    /// Bent by 60°, PÜNCT at an end, turning right (2 per player).
    AngularRight,
    /// Three mutually adjacent dots (6 per player).
    Triangle,
}

impl Kind {
    /// All kinds, in the order used for reserves.
    pub const ALL: [Kind; 6] = [
        Kind::StraightMiddle,
        Kind::StraightEnd,
        Kind::AngularCorner,
        Kind::AngularLeft,
        Kind::AngularRight,
        Kind::Triangle,
    ];

    /// How many pieces of this kind each player has.
    pub const fn count(self) -> u8 {
        match self {
            Kind::StraightMiddle | Kind::AngularCorner => 2,
            Kind::AngularLeft | Kind::AngularRight => 2,
            Kind::StraightEnd => 4,
            Kind::Triangle => 6,
        }
    }

    /// Number of distinct orientations: six turns of 60°, except that a middle-PÜNCT
    /// straight piece looks the same after half a turn.
    pub const fn orientations(self) -> u8 {
        match self {
            Kind::StraightMiddle => 3,
            _ => 6,
        }
    }

    /// Whether the PÜNCT is an end dot of a straight or angular piece: only such pieces
    /// may bridge.
    pub const fn can_bridge(self) -> bool {
        matches!(
            self,
            Kind::StraightEnd | Kind::AngularLeft | Kind::AngularRight
        )
    }

    /// Whether the PÜNCT is the middle dot of the piece.
    pub const fn punct_in_middle(self) -> bool {
        matches!(self, Kind::StraightMiddle | Kind::AngularCorner)
    }

    /// A stable, machine-readable name for the kind (`straight-middle`), as the serde
    /// feature spells it: for protocols and the keys of translated names.
    pub const fn code(self) -> &'static str {
        match self {
            Kind::StraightMiddle => "straight-middle",
            Kind::StraightEnd => "straight-end",
            Kind::AngularCorner => "angular-corner",
            Kind::AngularLeft => "angular-left",
            Kind::AngularRight => "angular-right",
            Kind::Triangle => "triangle",
        }
    }

    /// Short name used in drawings and reserves.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::StraightMiddle => "straight, middle PÜNCT",
            Kind::StraightEnd => "straight, end PÜNCT",
            Kind::AngularCorner => "angular, corner PÜNCT",
            Kind::AngularLeft => "angular, end PÜNCT turning left",
            Kind::AngularRight => "angular, end PÜNCT turning right",
            Kind::Triangle => "triangle",
        }
    }

    /// The shape of the piece around its PÜNCT: in orientation `o`, the first minor dot
    /// is one step from the PÜNCT in direction `o` (`Direction::ALL[o]`), the second one
    /// step in direction `o` turned by `turn` × 60° from the PÜNCT or, for the end-PÜNCT
    /// kinds, from the first minor dot, which is the middle of the piece.
    pub(crate) const fn shape(self) -> Shape {
        let (from_first, turn) = match self {
            Kind::StraightMiddle => (false, 3),
            Kind::StraightEnd => (true, 0),
            Kind::AngularCorner => (false, 2),
            Kind::AngularLeft => (true, 1),
            Kind::AngularRight => (true, 5),
            Kind::Triangle => (false, 1),
        };
        Shape { from_first, turn }
    }

    /// The path from the PÜNCT to each minor dot in orientation `orient`, as steps.
    const fn paths(self, orient: u8) -> [[Option<Direction>; 2]; 2] {
        let d = Direction::ALL[orient as usize];
        let shape = self.shape();
        let second = d.rotate(shape.turn);
        if shape.from_first {
            [[Some(d), None], [Some(d), Some(second)]]
        } else {
            [[Some(d), None], [Some(second), None]]
        }
    }
}

/// Where a kind's second minor dot lies: see [`Kind::shape`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Whether the second minor dot is a step from the first rather than from the PÜNCT.
    pub(crate) from_first: bool,
    /// How many sixths of a turn, counter-clockwise, from the first minor dot's direction
    /// to the second's.
    pub(crate) turn: u8,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Marks "no cell" in the tables: a dot off the board.
pub(crate) const NONE: u8 = u8::MAX;

/// The minor cells of one kind, as cell indices by PÜNCT cell index and orientation, in
/// the order of [`Placement::minor_dots`]; `[NONE, NONE]` where a dot would be off the
/// board or the orientation is not one of the kind's. A cell's six orientations are
/// side by side: generation reads them together.
pub(crate) type MinorTable = [[[u8; 2]; 6]; CELL_COUNT];

/// Minor cells of every kind, orientation and PÜNCT cell, `NONE` where a dot would be off
/// the board. Computed at compile time.
static MINORS: [MinorTable; 6] = build_minors();

/// The minor cells of every placement of `kind`: what turn generation walks.
pub(crate) fn minor_table(kind: Kind) -> &'static MinorTable {
    &MINORS[kind as usize]
}

const fn walk(from: Cell, path: [Option<Direction>; 2]) -> u8 {
    let mut cell = from;
    let mut i = 0;
    while i < 2 {
        if let Some(d) = path[i] {
            match cell.step(d) {
                Some(next) => cell = next,
                None => return NONE,
            }
        }
        i += 1;
    }
    cell.index() as u8
}

const fn build_minors() -> [MinorTable; 6] {
    let mut table = [[[[NONE; 2]; 6]; CELL_COUNT]; 6];
    let mut k = 0;
    while k < 6 {
        let kind = Kind::ALL[k];
        let mut o = 0;
        while o < kind.orientations() {
            let paths = kind.paths(o);
            let mut c = 0;
            while c < CELL_COUNT {
                let punct = match Cell::from_index(c) {
                    Some(cell) => cell,
                    None => panic!("cell index out of range"),
                };
                let (a, b) = (walk(punct, paths[0]), walk(punct, paths[1]));
                if a != NONE && b != NONE {
                    table[k][c][o as usize] = [a, b];
                }
                c += 1;
            }
            o += 1;
        }
        k += 1;
    }
    table
}

/// A piece's kind and where it stands: its PÜNCT cell and orientation, all three dots on
/// the board. Two placements are equal exactly when they cover the same cells with the
/// PÜNCT on the same cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Placement {
    /// What the piece is.
    kind: Kind,
    /// Where its PÜNCT is.
    punct: Cell,
    /// Which way it points, `0..kind.orientations()`.
    orient: u8,
}

impl Placement {
    /// The placement of `kind` with its PÜNCT on `punct` in orientation `orient`, if all
    /// its dots are on the board.
    pub fn new(kind: Kind, punct: Cell, orient: u8) -> Option<Placement> {
        let minors = *MINORS[kind as usize][punct.index()].get(orient as usize)?;
        (orient < kind.orientations() && minors[0] != NONE).then_some(Placement {
            kind,
            punct,
            orient,
        })
    }

    /// The placement of `kind` with its PÜNCT on `punct` in orientation `orient`, which
    /// the caller has found on the board in [`minor_table`].
    pub(crate) const fn on_board(kind: Kind, punct: Cell, orient: u8) -> Placement {
        Placement {
            kind,
            punct,
            orient,
        }
    }

    /// The placement whose PÜNCT is `punct` and whose minor dots are `minors` (in either
    /// order), if the three cells form a piece. The cells determine the kind.
    pub fn from_cells(punct: Cell, minors: [Cell; 2]) -> Option<Placement> {
        Kind::ALL
            .into_iter()
            .find_map(|kind| Placement::of_kind(kind, punct, minors))
    }

    /// Like [`Placement::from_cells`], for a piece known to be of `kind`.
    pub fn of_kind(kind: Kind, punct: Cell, minors: [Cell; 2]) -> Option<Placement> {
        let want = [minors[0].index() as u8, minors[1].index() as u8];
        (0..kind.orientations()).find_map(|orient| {
            let [a, b] = MINORS[kind as usize][punct.index()][orient as usize];
            (a != NONE && (want == [a, b] || want == [b, a])).then_some(Placement {
                kind,
                punct,
                orient,
            })
        })
    }

    /// Every placement of `kind` on the board.
    pub fn all(kind: Kind) -> impl Iterator<Item = Placement> {
        Cell::all().flat_map(move |punct| {
            (0..kind.orientations()).filter_map(move |orient| Placement::new(kind, punct, orient))
        })
    }

    /// The piece's kind.
    pub const fn kind(self) -> Kind {
        self.kind
    }

    /// The PÜNCT's cell.
    pub const fn punct(self) -> Cell {
        self.punct
    }

    /// The orientation, `0..kind.orientations()`.
    pub const fn orientation(self) -> u8 {
        self.orient
    }

    /// The minor dots' cells; for the end-PÜNCT kinds the middle dot comes first.
    pub fn minor_dots(self) -> [Cell; 2] {
        let [a, b] = MINORS[self.kind as usize][self.punct.index()][self.orient as usize];
        [Cell::from_table(a), Cell::from_table(b)]
    }

    /// The minor dots' cells in canonical (column, row) order.
    pub fn minors(self) -> [Cell; 2] {
        let [a, b] = self.minor_dots();
        if a < b { [a, b] } else { [b, a] }
    }

    /// All three cells, PÜNCT first.
    pub fn cells(self) -> [Cell; 3] {
        let [a, b] = self.minor_dots();
        [self.punct, a, b]
    }

    /// The middle dot of a piece that can bridge (its PÜNCT is an end).
    pub fn bridge_middle(self) -> Option<Cell> {
        self.kind.can_bridge().then(|| self.minor_dots()[0])
    }

    /// The same piece turned about its PÜNCT to each of its orientations, itself included.
    pub fn rotations(self) -> impl Iterator<Item = Placement> {
        (0..self.kind.orientations())
            .filter_map(move |orient| Placement::new(self.kind, self.punct, orient))
    }

    /// Whether any dot lies in the central hexagon.
    pub fn touches_centre(self) -> bool {
        self.cells().into_iter().any(Cell::is_central)
    }
}
