//! The engine's levels, from a uniform random player to the full search.

use std::fmt;
use std::str::FromStr;

/// How strongly the engine plays.
///
/// `Random` and `Greedy` are the yardsticks the strength targets are measured against;
/// the numbered levels are what players choose from, 1 the easiest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Level {
    /// A uniformly random legal turn.
    Random,
    /// One ply: the turn whose resulting position evaluates best, nothing deeper.
    Greedy,
    /// Level 1 to [`Level::STRONGEST`], made by [`Level::new`].
    Numbered(Rank),
}

/// The number of a numbered level, always within `1..=Level::STRONGEST`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// The number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl Level {
    /// The strongest numbered level.
    pub const STRONGEST: u8 = 5;

    /// Numbered level `n`, if it exists (`1..=STRONGEST`).
    pub const fn new(n: u8) -> Option<Level> {
        if n >= 1 && n <= Level::STRONGEST {
            Some(Level::Numbered(Rank(n)))
        } else {
            None
        }
    }

    /// The strongest level.
    pub const fn strongest() -> Level {
        Level::Numbered(Rank(Level::STRONGEST))
    }

    /// The number of a numbered level.
    pub const fn number(self) -> Option<u8> {
        match self {
            Level::Numbered(rank) => Some(rank.get()),
            Level::Random | Level::Greedy => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Random => f.write_str("random"),
            Level::Greedy => f.write_str("greedy"),
            Level::Numbered(rank) => write!(f, "{}", rank.get()),
        }
    }
}

/// A level name that is neither `random`, `greedy` nor a level number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLevelError(String);

impl fmt::Display for ParseLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown level '{}': expected random, greedy or 1 to {}",
            self.0,
            Level::STRONGEST
        )
    }
}

impl std::error::Error for ParseLevelError {}

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "random" => Ok(Level::Random),
            "greedy" => Ok(Level::Greedy),
            n => n
                .parse::<u8>()
                .ok()
                .and_then(Level::new)
                .ok_or_else(|| ParseLevelError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Level;

    #[test]
    fn levels_read_and_print_alike() {
        for text in ["random", "greedy", "1", "2", "3", "4", "5"] {
            assert_eq!(text.parse::<Level>().unwrap().to_string(), text);
        }
        assert_eq!("GREEDY".parse::<Level>(), Ok(Level::Greedy));
        assert!("0".parse::<Level>().is_err());
        assert!("6".parse::<Level>().is_err());
        assert!("strong".parse::<Level>().is_err());
    }
}
