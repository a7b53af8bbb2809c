//! Turns and their notation (RULES.md section 5).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::{Cell, ParseCellError};

/// One turn, named by cells as in the notation. Whether it is legal is a question for a
/// [`Position`](crate::Position).
///
/// Minor cells may be given in either order; turns compare equal, hash alike and print
/// the same whatever the order.
///
/// ```
/// use punct_rules::Turn;
/// let turn: Turn = "f5-f8:g9,e8".parse()?;
/// assert_eq!(turn.to_string(), "F5-F8:E8,G9");
/// assert_eq!("pass".parse::<Turn>()?, Turn::Pass);
/// # Ok::<_, punct_rules::ParseTurnError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Turn {
    /// Bring a piece from the reserve into play: `P:M1,M2`.
    Drop {
        /// Cell of the PÜNCT.
        punct: Cell,
        /// Cells of the minor dots.
        minors: [Cell; 2],
    },
    /// Move a piece in play: `F-T:M1,M2`.
    Move {
        /// Cell of the piece's PÜNCT before the move; it names the piece.
        from: Cell,
        /// Cell of the PÜNCT after the move (equal to `from` for a rotation in place).
        to: Cell,
        /// Cells of the minor dots after the move.
        minors: [Cell; 2],
    },
    /// No legal turn: `pass`.
    Pass,
}

impl Turn {
    /// A drop, minors in canonical order.
    pub fn drop(punct: Cell, minors: [Cell; 2]) -> Turn {
        Turn::Drop {
            punct,
            minors: sorted(minors),
        }
    }

    /// A move, minors in canonical order.
    pub fn moving(from: Cell, to: Cell, minors: [Cell; 2]) -> Turn {
        Turn::Move {
            from,
            to,
            minors: sorted(minors),
        }
    }

    /// The same turn with its minor cells in canonical order.
    pub fn canonical(self) -> Turn {
        match self {
            Turn::Drop { punct, minors } => Turn::drop(punct, minors),
            Turn::Move { from, to, minors } => Turn::moving(from, to, minors),
            Turn::Pass => Turn::Pass,
        }
    }

    /// Whether this is a drop.
    pub fn is_drop(self) -> bool {
        matches!(self, Turn::Drop { .. })
    }
}

fn sorted([a, b]: [Cell; 2]) -> [Cell; 2] {
    if a <= b { [a, b] } else { [b, a] }
}

impl PartialEq for Turn {
    fn eq(&self, other: &Turn) -> bool {
        match (self.canonical(), other.canonical()) {
            (
                Turn::Drop {
                    punct: p,
                    minors: m,
                },
                Turn::Drop {
                    punct: q,
                    minors: n,
                },
            ) => p == q && m == n,
            (
                Turn::Move { from, to, minors },
                Turn::Move {
                    from: f,
                    to: t,
                    minors: n,
                },
            ) => from == f && to == t && minors == n,
            (Turn::Pass, Turn::Pass) => true,
            _ => false,
        }
    }
}

impl Eq for Turn {}

impl Hash for Turn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.canonical() {
            Turn::Drop { punct, minors } => (0u8, punct, minors).hash(state),
            Turn::Move { from, to, minors } => (1u8, from, to, minors).hash(state),
            Turn::Pass => 2u8.hash(state),
        }
    }
}

impl Turn {
    /// The canonical notation, written without allocating: a server sends thousands of
    /// turns in one list of legal turns, and the formatting machinery was most of the
    /// cost of sending it.
    ///
    /// ```
    /// use punct_rules::Turn;
    /// let turn: Turn = "F5-F8:G9,E8".parse()?;
    /// assert_eq!(&*turn.notation(), "F5-F8:E8,G9");
    /// # Ok::<_, punct_rules::ParseTurnError>(())
    /// ```
    pub fn notation(&self) -> Notation {
        let mut text = Notation::default();
        let [a, b] = match self.canonical() {
            Turn::Drop { punct, minors } => {
                text.cell(punct);
                minors
            }
            Turn::Move { from, to, minors } => {
                text.cell(from);
                text.push(b'-');
                text.cell(to);
                minors
            }
            Turn::Pass => {
                b"pass".iter().for_each(|&byte| text.push(byte));
                return text;
            }
        };
        text.push(b':');
        text.cell(a);
        text.push(b',');
        text.cell(b);
        text
    }
}

/// A turn's notation in a buffer of its own: at most 15 ASCII bytes (`A10-B10:C10,D10`).
/// Derefs to `str`.
#[derive(Clone, Copy, Default)]
pub struct Notation {
    /// The bytes written so far.
    bytes: [u8; 16],
    /// How many.
    len: u8,
}

impl Notation {
    fn push(&mut self, byte: u8) {
        self.bytes[usize::from(self.len)] = byte;
        self.len += 1;
    }

    /// A cell's name: its column letter, then its row in one or two digits.
    fn cell(&mut self, cell: Cell) {
        self.push(b'A' + cell.col() - 1);
        let row = cell.row();
        if row >= 10 {
            self.push(b'0' + row / 10);
        }
        self.push(b'0' + row % 10);
    }
}

impl std::ops::Deref for Notation {
    type Target = str;

    fn deref(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("notation is ASCII")
    }
}

impl fmt::Debug for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

/// Why a turn's notation could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseTurnError {
    /// Nothing to read.
    Empty,
    /// Not of the form `P:M1,M2`, `F-T:M1,M2` or `pass`.
    Syntax(String),
    /// A cell name is malformed or off the board.
    Cell(ParseCellError),
    /// The PÜNCT and minor cells of a piece must be three different cells.
    RepeatedCell(Cell),
}

impl fmt::Display for ParseTurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseTurnError::Empty => f.write_str("empty turn"),
            ParseTurnError::Syntax(s) => write!(
                f,
                "'{s}' is not a turn: expected a drop like C4:C5,D5, a move like F5-F8:E8,G9, or pass"
            ),
            ParseTurnError::Cell(e) => e.fmt(f),
            ParseTurnError::RepeatedCell(c) => {
                write!(
                    f,
                    "cell {c} is named twice: a piece covers three different cells"
                )
            }
        }
    }
}

impl std::error::Error for ParseTurnError {}

impl From<ParseCellError> for ParseTurnError {
    fn from(e: ParseCellError) -> ParseTurnError {
        ParseTurnError::Cell(e)
    }
}

impl FromStr for Turn {
    type Err = ParseTurnError;

    fn from_str(s: &str) -> Result<Turn, ParseTurnError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(ParseTurnError::Empty);
        }
        if s.eq_ignore_ascii_case("pass") {
            return Ok(Turn::Pass);
        }
        let syntax = || ParseTurnError::Syntax(s.to_owned());
        let (head, tail) = s.split_once(':').ok_or_else(syntax)?;
        let (m1, m2) = tail.split_once(',').ok_or_else(syntax)?;
        let minors = [m1.trim().parse::<Cell>()?, m2.trim().parse::<Cell>()?];
        let (from, punct) = match head.split_once('-') {
            Some((from, to)) => (
                Some(from.trim().parse::<Cell>()?),
                to.trim().parse::<Cell>()?,
            ),
            None => (None, head.trim().parse::<Cell>()?),
        };
        if minors[0] == minors[1] {
            return Err(ParseTurnError::RepeatedCell(minors[0]));
        }
        if let Some(&m) = minors.iter().find(|&&m| m == punct) {
            return Err(ParseTurnError::RepeatedCell(m));
        }
        Ok(match from {
            Some(from) => Turn::moving(from, punct, minors),
            None => Turn::drop(punct, minors),
        })
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Turn {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.notation())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Turn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Turn, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
