//! Why a turn is illegal.

use std::fmt;

use crate::{Cell, Kind};

/// Why a turn was refused. The position or game it was tried on is left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IllegalTurn {
    /// The game has ended; no turn follows its end.
    GameOver,
    /// `pass` is only legal when there is no other legal turn.
    PassNotAllowed,
    /// The three cells do not form any piece with its PÜNCT on the named cell.
    NotAPiece,
    /// No piece of this kind is left in the reserve.
    ReserveEmpty(Kind),
    /// A drop must be on three completely empty cells; this one holds a dot.
    DropOnOccupiedCell(Cell),
    /// A drop may not go into the empty cell under a bridge.
    DropUnderBridge(Cell),
    /// A dropped piece may not touch the central hexagon here (standard game; in the basic
    /// game only White's first drop).
    DropInCentre(Cell),
    /// No piece of the mover has its PÜNCT on this cell.
    NoPieceAt(Cell),
    /// The piece whose PÜNCT is on this cell belongs to the opponent.
    NotYourPiece(Cell),
    /// The piece whose PÜNCT is on this cell has a dot covered or under a bridge.
    Frozen(Cell),
    /// The PÜNCT may only travel along a column, a row or a diagonal.
    NotOnLine {
        /// Where the PÜNCT started.
        from: Cell,
        /// Where it was asked to go.
        to: Cell,
    },
    /// The minor cells do not fit the shape of the moved piece.
    WrongShape(Kind),
    /// The piece would end exactly where it started.
    NullMove,
    /// The PÜNCT would land on an empty cell while another dot of the piece would be raised.
    PunctUnsupported(Cell),
    /// The PÜNCT would land on an opponent's dot.
    PunctOnOpponent(Cell),
    /// A dot would land in the empty cell under a bridge.
    UnderBridge(Cell),
    /// A minor dot's cell is not at the PÜNCT cell's height, and the piece would not be a
    /// bridge.
    UnevenLanding {
        /// The cell at the wrong height.
        cell: Cell,
        /// The height of the PÜNCT's cell.
        expected: u8,
        /// The height found.
        found: u8,
    },
    /// Only straight and angular pieces with an end PÜNCT can bridge.
    CannotBridge(Kind),
}

impl IllegalTurn {
    /// A stable, machine-readable name for the reason, for protocols and logs.
    pub const fn code(self) -> &'static str {
        match self {
            IllegalTurn::GameOver => "game-over",
            IllegalTurn::PassNotAllowed => "pass-not-allowed",
            IllegalTurn::NotAPiece => "not-a-piece",
            IllegalTurn::ReserveEmpty(_) => "reserve-empty",
            IllegalTurn::DropOnOccupiedCell(_) => "drop-on-occupied-cell",
            IllegalTurn::DropUnderBridge(_) => "drop-under-bridge",
            IllegalTurn::DropInCentre(_) => "drop-in-centre",
            IllegalTurn::NoPieceAt(_) => "no-piece",
            IllegalTurn::NotYourPiece(_) => "not-your-piece",
            IllegalTurn::Frozen(_) => "frozen",
            IllegalTurn::NotOnLine { .. } => "not-on-line",
            IllegalTurn::WrongShape(_) => "wrong-shape",
            IllegalTurn::NullMove => "null-move",
            IllegalTurn::PunctUnsupported(_) => "punct-unsupported",
            IllegalTurn::PunctOnOpponent(_) => "punct-on-opponent",
            IllegalTurn::UnderBridge(_) => "under-bridge",
            IllegalTurn::UnevenLanding { .. } => "uneven-landing",
            IllegalTurn::CannotBridge(_) => "cannot-bridge",
        }
    }

    /// The values the reason names, each with its name, as text: `cell`, `from` and `to`
    /// (cells, `C4`), `kind` (a kind of piece, [`Kind::code`]), `expected` and `found`
    /// (heights). With [`IllegalTurn::code`], what a client needs to tell the reason in
    /// its own words.
    ///
    /// ```
    /// use punct_rules::{Cell, IllegalTurn};
    ///
    /// let cell: Cell = "I9".parse()?;
    /// let args = IllegalTurn::DropInCentre(cell).args();
    /// assert_eq!(args, [("cell", "I9".to_owned())]);
    /// assert!(IllegalTurn::GameOver.args().is_empty());
    /// # Ok::<_, punct_rules::ParseCellError>(())
    /// ```
    pub fn args(self) -> Vec<(&'static str, String)> {
        match self {
            IllegalTurn::GameOver
            | IllegalTurn::PassNotAllowed
            | IllegalTurn::NotAPiece
            | IllegalTurn::NullMove => Vec::new(),
            IllegalTurn::ReserveEmpty(kind)
            | IllegalTurn::WrongShape(kind)
            | IllegalTurn::CannotBridge(kind) => vec![("kind", kind.code().to_owned())],
            IllegalTurn::DropOnOccupiedCell(cell)
            | IllegalTurn::DropUnderBridge(cell)
            | IllegalTurn::DropInCentre(cell)
            | IllegalTurn::NoPieceAt(cell)
            | IllegalTurn::NotYourPiece(cell)
            | IllegalTurn::Frozen(cell)
            | IllegalTurn::PunctUnsupported(cell)
            | IllegalTurn::PunctOnOpponent(cell)
            | IllegalTurn::UnderBridge(cell) => vec![("cell", cell.to_string())],
            IllegalTurn::NotOnLine { from, to } => {
                vec![("from", from.to_string()), ("to", to.to_string())]
            }
            IllegalTurn::UnevenLanding {
                cell,
                expected,
                found,
            } => vec![
                ("cell", cell.to_string()),
                ("expected", expected.to_string()),
                ("found", found.to_string()),
            ],
        }
    }
}

impl fmt::Display for IllegalTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IllegalTurn::GameOver => f.write_str("the game is over"),
            IllegalTurn::PassNotAllowed => {
                f.write_str("pass is only allowed when there is no legal turn")
            }
            IllegalTurn::NotAPiece => f.write_str("these three cells do not form a piece"),
            IllegalTurn::ReserveEmpty(kind) => write!(f, "no {kind} piece is left in reserve"),
            IllegalTurn::DropOnOccupiedCell(c) => {
                write!(
                    f,
                    "a piece can only be dropped on empty cells, and {c} is not empty"
                )
            }
            IllegalTurn::DropUnderBridge(c) => write!(f, "cell {c} is under a bridge"),
            IllegalTurn::DropInCentre(c) => write!(
                f,
                "drop touches the central hexagon at {c}: new pieces may not be placed there"
            ),
            IllegalTurn::NoPieceAt(c) => write!(f, "none of your pieces has its PÜNCT on {c}"),
            IllegalTurn::NotYourPiece(c) => write!(f, "the piece on {c} is your opponent's"),
            IllegalTurn::Frozen(c) => {
                write!(
                    f,
                    "piece is frozen: the piece on {c} has a dot covered or bridged"
                )
            }
            IllegalTurn::NotOnLine { from, to } => write!(
                f,
                "the PÜNCT moves in a straight line, and {to} is not on a line through {from}"
            ),
            IllegalTurn::WrongShape(kind) => {
                write!(f, "those minor cells do not fit the moved {kind} piece")
            }
            IllegalTurn::NullMove => f.write_str("the piece would end where it started"),
            IllegalTurn::PunctUnsupported(c) => write!(
                f,
                "PÜNCT would land on the empty cell {c} while another dot is raised: \
                 a jump needs the PÜNCT on one of your pieces"
            ),
            IllegalTurn::PunctOnOpponent(c) => {
                write!(f, "PÜNCT would land on an opponent's piece at {c}")
            }
            IllegalTurn::UnderBridge(c) => {
                write!(f, "cell {c} is under a bridge: nothing may slide under it")
            }
            IllegalTurn::UnevenLanding {
                cell,
                expected,
                found,
            } => write!(
                f,
                "unequal levels: {cell} has height {found} but the PÜNCT's cell has {expected}"
            ),
            IllegalTurn::CannotBridge(kind) => write!(
                f,
                "a {kind} piece cannot bridge: only straight and angular pieces with an end PÜNCT can"
            ),
        }
    }
}

impl IllegalTurn {
    /// One reason of each kind, with sample values (cells C4 and I9, a triangle): what
    /// a client checks its translations of the reasons against, so that none is missed.
    pub fn one_of_each() -> Vec<IllegalTurn> {
        let cell = |name: &str| name.parse::<Cell>().expect("a cell of the board");
        let (c4, i9) = (cell("C4"), cell("I9"));
        vec![
            IllegalTurn::GameOver,
            IllegalTurn::PassNotAllowed,
            IllegalTurn::NotAPiece,
            IllegalTurn::ReserveEmpty(Kind::Triangle),
            IllegalTurn::DropOnOccupiedCell(c4),
            IllegalTurn::DropUnderBridge(c4),
            IllegalTurn::DropInCentre(i9),
            IllegalTurn::NoPieceAt(c4),
            IllegalTurn::NotYourPiece(c4),
            IllegalTurn::Frozen(c4),
            IllegalTurn::NotOnLine { from: c4, to: i9 },
            IllegalTurn::WrongShape(Kind::AngularLeft),
            IllegalTurn::NullMove,
            IllegalTurn::PunctUnsupported(c4),
            IllegalTurn::PunctOnOpponent(c4),
            IllegalTurn::UnderBridge(c4),
            IllegalTurn::UnevenLanding {
                cell: c4,
                expected: 2,
                found: 1,
            },
            IllegalTurn::CannotBridge(Kind::Triangle),
        ]
    }
}

impl std::error::Error for IllegalTurn {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reasons_arguments_are_the_values_its_message_names() {
        for reason in IllegalTurn::one_of_each() {
            let message = reason.to_string();
            for (name, value) in reason.args() {
                let shown = match name {
                    "kind" => Kind::ALL
                        .into_iter()
                        .find(|kind| kind.code() == value)
                        .expect("a kind's code")
                        .name()
                        .to_owned(),
                    _ => value.clone(),
                };
                assert!(
                    message.contains(&shown),
                    "{}: {message} does not name {name} = {value}",
                    reason.code()
                );
            }
        }
    }
}
