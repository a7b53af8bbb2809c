//! What a tournament is made of: colours, results, games, rounds and pairings, and
//! points kept as integers.

use std::fmt;

/// The side a player takes in a game. White moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Moves first.
    White,
    /// Moves second.
    Black,
}

impl Color {
    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// How a game ended, from the board's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// White won (over the board, on time, or by forfeit).
    WhiteWins,
    /// Neither won.
    Draw,
    /// Black won (over the board, on time, or by forfeit).
    BlackWins,
}

impl Outcome {
    /// What `color` scored: 2 half-points for a win, 1 for a draw, 0 for a loss.
    pub fn half_points(self, color: Color) -> u32 {
        match (self, color) {
            (Outcome::Draw, _) => 1,
            (Outcome::WhiteWins, Color::White) | (Outcome::BlackWins, Color::Black) => 2,
            _ => 0,
        }
    }
}

/// Two players brought together, with their colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pair<P> {
    /// Moves first.
    pub white: P,
    /// Moves second.
    pub black: P,
}

impl<P: Copy + Eq> Pair<P> {
    /// Whether `player` is one of the two.
    pub fn has(&self, player: P) -> bool {
        self.white == player || self.black == player
    }

    /// The other player of the pair, if `player` is one of them.
    pub fn opponent_of(&self, player: P) -> Option<P> {
        if self.white == player {
            Some(self.black)
        } else if self.black == player {
            Some(self.white)
        } else {
            None
        }
    }

    /// The colour `player` has in the pair, if they are one of them.
    pub fn color_of(&self, player: P) -> Option<Color> {
        if self.white == player {
            Some(Color::White)
        } else if self.black == player {
            Some(Color::Black)
        } else {
            None
        }
    }
}

/// A game that has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Game<P> {
    /// Who played whom, with which colour.
    pub pair: Pair<P>,
    /// How it ended.
    pub outcome: Outcome,
}

/// A round of a Swiss or a round robin: its games that have ended, those still being
/// played, and who, if anyone, had the bye.
///
/// A player who appears in none (withdrawn, or resting in a round robin of an odd
/// number of players) did not play that round and scored nothing in it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Round<P> {
    /// Every game of the round that has ended.
    pub games: Vec<Game<P>>,
    /// The player given the Swiss bye, worth a win. A round robin's rest is not a bye:
    /// it scores nothing, and goes here as `None`.
    pub bye: Option<P>,
    /// The games of the round not yet over: they score nothing yet, and their players
    /// count as playing the round, not as missing it. A Swiss pairs the next round only
    /// from rounds whose games have all ended, so [`pair_round`](crate::pair_round)
    /// counts these as met and as colours had, no more.
    pub unfinished: Vec<Pair<P>>,
}

/// The pairings of one Swiss round, before it is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing<P> {
    /// The games, board 1 first.
    pub pairs: Vec<Pair<P>>,
    /// The player given the bye, worth a win, when the number of players is odd.
    pub bye: Option<P>,
}

/// Points in half-points, so that a draw is an integer: a win is 2, a draw 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HalfPoints(pub u32);

impl fmt::Display for HalfPoints {
    /// `3½`, `½`, `4`: the way a crosstable shows points.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0 / 2, self.0 % 2) {
            (0, 1) => f.write_str("½"),
            (whole, 1) => write!(f, "{whole}½"),
            (whole, _) => write!(f, "{whole}"),
        }
    }
}

/// Quarter-points: a Sonneborn-Berger sum, where half of an opponent's score (a draw
/// against them) may itself be a half.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QuarterPoints(pub u32);

impl fmt::Display for QuarterPoints {
    /// `6.25`, `3.5`, `4`: decimal, as tie-break columns are usually printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / 4;
        match self.0 % 4 {
            0 => write!(f, "{whole}"),
            1 => write!(f, "{whole}.25"),
            2 => write!(f, "{whole}.5"),
            _ => write!(f, "{whole}.75"),
        }
    }
}
