//! Cells of the board, the six directions between neighbours, and the board's regions.

use std::fmt;
use std::str::FromStr;

use crate::CellSet;

/// Number of cells on the board.
pub const CELL_COUNT: usize = 211;

/// One of the 211 cells, named by a column letter `A`–`Q` and a row number `1`–`17`.
///
/// Cells are ordered by column, then row: the canonical order of minor cells in notation.
///
/// ```
/// use punct_rules::Cell;
/// let centre: Cell = "i9".parse()?;
/// assert_eq!(centre.to_string(), "I9");
/// assert_eq!((centre.col(), centre.row()), (9, 9));
/// assert!(Cell::from_coords(1, 1).is_none()); // a removed corner
/// # Ok::<_, punct_rules::ParseCellError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(u8);

/// The six directions from a cell to its neighbours, counter-clockwise from north, as the
/// board is drawn: columns `A`–`Q` from left to right, rows rising upwards, so that a
/// column is a vertical line and rows and diagonals slant at 30°.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Direction {
    /// Up the column: (c, r + 1).
    North,
    /// (c − 1, r).
    NorthWest,
    /// (c − 1, r − 1).
    SouthWest,
    /// Down the column: (c, r − 1).
    South,
    /// (c + 1, r).
    SouthEast,
    /// (c + 1, r + 1).
    NorthEast,
}

impl Direction {
    /// All six, counter-clockwise from north: each is the previous one turned 60° left.
    pub const ALL: [Direction; 6] = [
        Direction::North,
        Direction::NorthWest,
        Direction::SouthWest,
        Direction::South,
        Direction::SouthEast,
        Direction::NorthEast,
    ];

    /// The change of (column, row) one step in this direction.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::NorthWest => (-1, 0),
            Direction::SouthWest => (-1, -1),
            Direction::South => (0, -1),
            Direction::SouthEast => (1, 0),
            Direction::NorthEast => (1, 1),
        }
    }

    /// The direction turned counter-clockwise by `steps` × 60°.
    pub const fn rotate(self, steps: u8) -> Direction {
        Direction::ALL[(self as usize + steps as usize) % 6]
    }

    /// The opposite direction.
    pub const fn opposite(self) -> Direction {
        self.rotate(3)
    }

    /// The line a step in this direction travels along.
    pub const fn line(self) -> Line {
        match self {
            Direction::North | Direction::South => Line::Column,
            Direction::NorthWest | Direction::SouthEast => Line::Row,
            Direction::SouthWest | Direction::NorthEast => Line::Diagonal,
        }
    }
}

/// The three straight lines through a cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Line {
    /// Same column letter.
    Column,
    /// Same row number.
    Row,
    /// Same r − c.
    Diagonal,
}

impl Line {
    /// The line through `a` and `b` if they share one (and are different cells).
    pub fn through(a: Cell, b: Cell) -> Option<Line> {
        if a == b {
            None
        } else if a.col() == b.col() {
            Some(Line::Column)
        } else if a.row() == b.row() {
            Some(Line::Row)
        } else if a.diagonal() == b.diagonal() {
            Some(Line::Diagonal)
        } else {
            None
        }
    }
}

/// A side of the board: seven rim cells facing another side across the board.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Side {
    /// `A2`–`A8`, facing [`Side::East`].
    West,
    /// `Q10`–`Q16`, facing [`Side::West`].
    East,
    /// `B1`–`H1`, facing [`Side::NorthEast`].
    SouthWest,
    /// `J17`–`P17`, facing [`Side::SouthWest`].
    NorthEast,
    /// `J2 K3 L4 M5 N6 O7 P8`, facing [`Side::NorthWest`].
    SouthEast,
    /// `B10 C11 D12 E13 F14 G15 H16`, facing [`Side::SouthEast`].
    NorthWest,
}

impl Side {
    /// The three pairs of opposite sides; connecting either side of one pair to the other
    /// wins.
    pub const PAIRS: [(Side, Side); 3] = [
        (Side::West, Side::East),
        (Side::SouthWest, Side::NorthEast),
        (Side::SouthEast, Side::NorthWest),
    ];

    /// The cells of this side.
    pub fn cells(self) -> CellSet {
        GEOMETRY.sides[self as usize]
    }

    /// The side across the board.
    pub const fn opposite(self) -> Side {
        match self {
            Side::West => Side::East,
            Side::East => Side::West,
            Side::SouthWest => Side::NorthEast,
            Side::NorthEast => Side::SouthWest,
            Side::SouthEast => Side::NorthWest,
            Side::NorthWest => Side::SouthEast,
        }
    }
}

const NONE: u8 = u8::MAX;

/// Board tables, computed at compile time.
struct Geometry {
    /// (column, row) of each cell index.
    coords: [(u8, u8); CELL_COUNT],
    /// Cell index of each (column, row), `NONE` off the board; indices 0 and 18 are padding.
    index: [[u8; 19]; 19],
    /// Neighbour of each cell in each direction, `NONE` off the board.
    neighbours: [[u8; 6]; CELL_COUNT],
    /// The neighbours of each cell as a set, for flood fills.
    neighbour_sets: [CellSet; CELL_COUNT],
    /// The central hexagon.
    centre: CellSet,
    /// Each side's cells, indexed by `Side as usize`.
    sides: [CellSet; 6],
}

const fn on_board(c: i32, r: i32) -> bool {
    if c < 1 || c > 17 || r < 1 || r > 17 || r - c < -8 || r - c > 8 {
        return false;
    }
    !matches!(
        (c, r),
        (1, 1) | (1, 9) | (9, 1) | (9, 17) | (17, 9) | (17, 17)
    )
}

const fn hex_distance(dc: i32, dr: i32) -> i32 {
    let (ac, ar) = (dc.abs(), dr.abs());
    if (dc >= 0) == (dr >= 0) {
        if ac > ar { ac } else { ar }
    } else {
        ac + ar
    }
}

const fn side_of(c: i32, r: i32) -> Option<Side> {
    if c == 1 {
        Some(Side::West)
    } else if c == 17 {
        Some(Side::East)
    } else if r == 1 {
        Some(Side::SouthWest)
    } else if r == 17 {
        Some(Side::NorthEast)
    } else if r - c == -8 {
        Some(Side::SouthEast)
    } else if r - c == 8 {
        Some(Side::NorthWest)
    } else {
        None
    }
}

const fn build_geometry() -> Geometry {
    let mut g = Geometry {
        coords: [(0, 0); CELL_COUNT],
        index: [[NONE; 19]; 19],
        neighbours: [[NONE; 6]; CELL_COUNT],
        neighbour_sets: [CellSet::EMPTY; CELL_COUNT],
        centre: CellSet::EMPTY,
        sides: [CellSet::EMPTY; 6],
    };
    let mut n = 0;
    let mut c = 1;
    while c <= 17 {
        let mut r = 1;
        while r <= 17 {
            if on_board(c, r) {
                g.coords[n] = (c as u8, r as u8);
                g.index[c as usize][r as usize] = n as u8;
                if hex_distance(c - 9, r - 9) <= 2 {
                    g.centre = g.centre.with(Cell(n as u8));
                }
                if let Some(side) = side_of(c, r) {
                    g.sides[side as usize] = g.sides[side as usize].with(Cell(n as u8));
                }
                n += 1;
            }
            r += 1;
        }
        c += 1;
    }
    assert!(n == CELL_COUNT);
    let mut i = 0;
    while i < CELL_COUNT {
        let (c, r) = g.coords[i];
        let mut d = 0;
        while d < 6 {
            let (dc, dr) = Direction::ALL[d].delta();
            let (nc, nr) = (c as i32 + dc as i32, r as i32 + dr as i32);
            if on_board(nc, nr) {
                let n = g.index[nc as usize][nr as usize];
                g.neighbours[i][d] = n;
                g.neighbour_sets[i] = g.neighbour_sets[i].with(Cell(n));
            }
            d += 1;
        }
        i += 1;
    }
    g
}

static GEOMETRY: Geometry = build_geometry();

impl Cell {
    /// The cell at column `col` (A = 1 … Q = 17) and row `row`, if it is on the board.
    pub const fn from_coords(col: u8, row: u8) -> Option<Cell> {
        if !on_board(col as i32, row as i32) {
            return None;
        }
        Some(Cell(GEOMETRY.index[col as usize][row as usize]))
    }

    /// The cell with index `index` (0 … 210, in canonical order).
    pub const fn from_index(index: usize) -> Option<Cell> {
        if index < CELL_COUNT {
            Some(Cell(index as u8))
        } else {
            None
        }
    }

    /// The cell with index `index`, read from one of the crate's tables of board cells:
    /// no check, as turn generation reads thousands of them (an index off the board would
    /// make the next table look-up panic).
    pub(crate) const fn from_table(index: u8) -> Cell {
        Cell(index)
    }

    /// Every cell, in canonical order.
    pub fn all() -> impl DoubleEndedIterator<Item = Cell> + ExactSizeIterator + Clone {
        (0..CELL_COUNT as u8).map(Cell)
    }

    /// Index of this cell, 0 … 210, in canonical (column, row) order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column number, A = 1 … Q = 17.
    pub const fn col(self) -> u8 {
        GEOMETRY.coords[self.0 as usize].0
    }

    /// Row number, 1 … 17.
    pub const fn row(self) -> u8 {
        GEOMETRY.coords[self.0 as usize].1
    }

    /// r − c, the coordinate shared by the cells of a diagonal.
    pub const fn diagonal(self) -> i8 {
        self.row() as i8 - self.col() as i8
    }

    /// The neighbour in direction `d`, if on the board.
    pub const fn step(self, d: Direction) -> Option<Cell> {
        match GEOMETRY.neighbours[self.0 as usize][d as usize] {
            NONE => None,
            n => Some(Cell(n)),
        }
    }

    /// The indices of the neighbours in each direction of [`Direction::ALL`], `u8::MAX`
    /// off the board.
    pub(crate) const fn neighbour_indices(self) -> [u8; 6] {
        GEOMETRY.neighbours[self.0 as usize]
    }

    /// The cell `dc` columns and `dr` rows away, if on the board.
    pub const fn offset(self, dc: i8, dr: i8) -> Option<Cell> {
        let (c, r) = (self.col() as i32 + dc as i32, self.row() as i32 + dr as i32);
        if on_board(c, r) {
            Some(Cell(GEOMETRY.index[c as usize][r as usize]))
        } else {
            None
        }
    }

    /// The up to six neighbours as a set.
    pub(crate) const fn neighbour_set(self) -> CellSet {
        GEOMETRY.neighbour_sets[self.0 as usize]
    }

    /// The up to six neighbours.
    pub fn neighbours(self) -> impl Iterator<Item = Cell> {
        Direction::ALL.into_iter().filter_map(move |d| self.step(d))
    }

    /// The cells reached by going any number of steps in direction `d`, nearest first.
    pub fn ray(self, d: Direction) -> impl Iterator<Item = Cell> {
        std::iter::successors(self.step(d), move |c| c.step(d))
    }

    /// Distance in steps between two cells.
    pub const fn distance(self, other: Cell) -> u8 {
        hex_distance(
            other.col() as i32 - self.col() as i32,
            other.row() as i32 - self.row() as i32,
        ) as u8
    }

    /// Whether the cell is in the central hexagon (within two steps of `I9`).
    pub fn is_central(self) -> bool {
        GEOMETRY.centre.contains(self)
    }

    /// The 19 cells of the central hexagon.
    pub fn centre() -> CellSet {
        GEOMETRY.centre
    }

    /// Column letter.
    pub const fn col_letter(self) -> char {
        (b'A' + self.col() - 1) as char
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.col_letter(), self.row())
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a cell name could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseCellError {
    /// Not a column letter followed by a row number.
    Syntax(String),
    /// A well-formed name of a cell that is not on the board (such as a removed corner).
    OffBoard(String),
}

impl fmt::Display for ParseCellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseCellError::Syntax(s) => write!(f, "'{s}' is not a cell name like I9"),
            ParseCellError::OffBoard(s) => write!(f, "{s} is not on the board"),
        }
    }
}

impl std::error::Error for ParseCellError {}

impl FromStr for Cell {
    type Err = ParseCellError;

    fn from_str(s: &str) -> Result<Cell, ParseCellError> {
        let syntax = || ParseCellError::Syntax(s.to_owned());
        let mut chars = s.chars();
        let letter = chars.next().ok_or_else(syntax)?.to_ascii_uppercase();
        let digits = chars.as_str();
        if !letter.is_ascii_uppercase()
            || digits.is_empty()
            || digits.len() > 2
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(syntax());
        }
        let col = letter as u8 - b'A' + 1;
        let row: u8 = digits.parse().map_err(|_| syntax())?;
        Cell::from_coords(col, row).ok_or_else(|| ParseCellError::OffBoard(s.to_ascii_uppercase()))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Cell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cell, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
