//! A game: a position with its history, and the end of the game (RULES.md section 4).

use std::fmt;

use crate::position::Action;
use crate::{Color, IllegalTurn, PIECES_PER_PLAYER, Position, Turn, Variant};

/// How a game was won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum WinReason {
    /// The winner's visible dots link two opposite sides.
    Connection,
    /// Standard game: more visible dots in the central hexagon when the game ended.
    Centre,
    /// The opponent resigned. Decided off the board (by a server): [`Game`] never
    /// produces it.
    Resignation,
    /// The opponent's time ran out. Decided off the board.
    Time,
    /// The opponent left and did not come back in time. Decided off the board.
    Abandonment,
}

/// Why a game was drawn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum DrawReason {
    /// Standard game: equal counts in the central hexagon when the game ended.
    CentreTie,
    /// Basic game: the game ended without a connection.
    BasicEnd,
    /// The same position stood for the third time.
    Repetition,
    /// The players agreed to a draw. Decided off the board (by a server): [`Game`] never
    /// produces it.
    Agreement,
    /// A moderator closed the room before the game ended. Decided off the board (by a
    /// server), and never rated.
    Closed,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "result", rename_all = "kebab-case"))]
pub enum Outcome {
    /// One player won.
    Win {
        /// Who won.
        winner: Color,
        /// How.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

impl fmt::Display for Outcome {
    /// As printed by `punct rules status`: `winner black (connection)`, `draw (repetition)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => {
                let reason = match reason {
                    WinReason::Connection => "connection",
                    WinReason::Centre => "centre",
                    WinReason::Resignation => "resignation",
                    WinReason::Time => "time",
                    WinReason::Abandonment => "abandonment",
                };
                write!(f, "winner {winner} ({reason})")
            }
            Outcome::Draw { reason } => {
                let reason = match reason {
                    DrawReason::CentreTie => "centre-tie",
                    DrawReason::BasicEnd => "basic-end",
                    DrawReason::Repetition => "repetition",
                    DrawReason::Agreement => "agreement",
                    DrawReason::Closed => "closed",
                };
                write!(f, "draw ({reason})")
            }
        }
    }
}

/// A game from its first turn: the current position, every turn played, and the result
/// once it is over.
///
/// ```
/// use punct_rules::{Game, Variant};
/// let mut game = Game::new(Variant::Standard);
/// assert_eq!(game.legal_turns().len(), 4986);
/// game.play("C4:C5,D5".parse()?)?;
/// assert!(game.play("C4:C5,D5".parse()?).is_err()); // those cells are taken now
/// assert_eq!(game.turns().len(), 1);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    /// The position before the first turn, from which repetitions are confirmed.
    start: Position,
    /// The position now.
    position: Position,
    /// Every turn played, in order.
    turns: Vec<Turn>,
    /// Hash of the position before the first turn and after each turn, to spot
    /// repetitions cheaply; equal hashes are confirmed by replaying.
    hashes: Vec<u64>,
    /// The result, once the game is over.
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game: empty board, full reserves, White to move.
    pub fn new(variant: Variant) -> Game {
        let position = Position::new(variant);
        Game {
            hashes: vec![position.hash()],
            start: position.clone(),
            position,
            turns: Vec::new(),
            outcome: None,
        }
    }

    /// The game after `turns`, played one by one from the start: how a stored or
    /// reported game, or the first turns of one, is rebuilt.
    ///
    /// ```
    /// use punct_rules::{Game, Variant};
    /// let turns = ["C4:C5,D5".parse()?, "J14:J15,K15".parse()?];
    /// assert_eq!(Game::replay(Variant::Basic, &turns)?.turns(), turns);
    /// let refused = Game::replay(Variant::Basic, &[turns[0], turns[0]]).unwrap_err();
    /// assert_eq!(refused.number, 2);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn replay(variant: Variant, turns: &[Turn]) -> Result<Game, ReplayError> {
        let mut game = Game::new(variant);
        for (index, &turn) in turns.iter().enumerate() {
            game.play(turn).map_err(|source| ReplayError {
                number: index + 1,
                turn,
                source,
            })?;
        }
        Ok(game)
    }

    /// Which game is played.
    pub fn variant(&self) -> Variant {
        self.position.variant()
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Every turn played so far.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The result, `None` while the game goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Whose turn it is (meaningless once the game is over).
    pub fn to_move(&self) -> Color {
        self.position.to_move()
    }

    /// Every legal turn; none once the game is over.
    pub fn legal_turns(&self) -> Vec<Turn> {
        if self.is_over() {
            Vec::new()
        } else {
            self.position.legal_turns()
        }
    }

    /// Whether `turn` may be played now.
    pub fn is_legal(&self, turn: Turn) -> Result<(), IllegalTurn> {
        self.check(turn).map(drop)
    }

    fn check(&self, turn: Turn) -> Result<Action, IllegalTurn> {
        if self.is_over() {
            return Err(IllegalTurn::GameOver);
        }
        self.position.check(turn)
    }

    /// Plays `turn` and decides whether it ended the game, or says why it is illegal and
    /// leaves the game unchanged.
    pub fn play(&mut self, turn: Turn) -> Result<Option<Outcome>, IllegalTurn> {
        let action = self.check(turn)?;
        self.apply(action);
        Ok(self.outcome)
    }

    /// Applies a checked action and judges the end of the game in the order of RULES.md 4.
    pub(crate) fn apply(&mut self, action: Action) {
        let mover = self.position.to_move();
        self.position.apply(action);
        self.turns.push(action.turn());
        self.hashes.push(self.position.hash());
        let p = &self.position;
        self.outcome = if p.is_connected(mover) {
            Some(Outcome::Win {
                winner: mover,
                reason: WinReason::Connection,
            })
        } else if p.is_connected(mover.opponent()) {
            Some(Outcome::Win {
                winner: mover.opponent(),
                reason: WinReason::Connection,
            })
        } else if matches!(action, Action::Drop(_)) && p.pieces_in_play(mover) == PIECES_PER_PLAYER
        {
            Some(self.final_count())
        } else if self.repetitions() >= 3 {
            Some(Outcome::Draw {
                reason: DrawReason::Repetition,
            })
        } else if action == Action::Pass && !p.has_legal_turn() {
            // Neither player can move: the game ends as when the last piece is dropped.
            Some(self.final_count())
        } else {
            None
        };
    }

    /// Undoes turns back to `position` after `len` turns, for search. `position` must be
    /// the one that stood then.
    pub(crate) fn retract(&mut self, position: Position, len: usize) {
        self.position = position;
        self.turns.truncate(len);
        self.hashes.truncate(len + 1);
        self.outcome = None;
    }

    /// The result when the game ends without a connection (RULES.md 4.3).
    fn final_count(&self) -> Outcome {
        match self.variant() {
            Variant::Basic => Outcome::Draw {
                reason: DrawReason::BasicEnd,
            },
            Variant::Standard => {
                let white = self.position.centre_count(Color::White);
                let black = self.position.centre_count(Color::Black);
                match white.cmp(&black) {
                    std::cmp::Ordering::Greater => Outcome::Win {
                        winner: Color::White,
                        reason: WinReason::Centre,
                    },
                    std::cmp::Ordering::Less => Outcome::Win {
                        winner: Color::Black,
                        reason: WinReason::Centre,
                    },
                    std::cmp::Ordering::Equal => Outcome::Draw {
                        reason: DrawReason::CentreTie,
                    },
                }
            }
        }
    }

    /// How many times the current position has stood, this time included. Hashes find
    /// the candidates; a replay confirms them, so a hash collision can never end a game.
    fn repetitions(&self) -> usize {
        let now = self.position.hash();
        let earlier = |i: usize| self.hashes[i] == now;
        let candidates = (0..self.turns.len()).filter(|&i| earlier(i)).count();
        if candidates < 2 {
            return candidates + 1;
        }
        let key = self.position.repetition_key();
        let mut replay = self.start.clone();
        let mut count = 1;
        for (i, &turn) in self.turns.iter().enumerate() {
            if earlier(i) && replay.repetition_key() == key {
                count += 1;
            }
            replay
                .play(turn)
                .expect("turns in the history were legal when played");
        }
        count
    }

    /// Replays a record given as text (RULES.md 5: one turn per line, blank lines and
    /// lines starting with `#` ignored), stopping at the first bad line.
    ///
    /// ```
    /// use punct_rules::{Game, Variant};
    /// let game = Game::from_record(Variant::Basic, "# opening\nC4:C5,D5\n\nj14:j15,k15\n")?;
    /// assert_eq!(game.turns().len(), 2);
    /// let bad = Game::from_record(Variant::Basic, "C4:C5,D5\nC4:C5,D5\n").unwrap_err();
    /// assert_eq!(bad.line, 2);
    /// # Ok::<_, punct_rules::RecordError>(())
    /// ```
    pub fn from_record(variant: Variant, text: &str) -> Result<Game, RecordError> {
        let mut game = Game::new(variant);
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let error = |kind| RecordError {
                line: index + 1,
                text: trimmed.to_owned(),
                kind,
            };
            let turn: Turn = trimmed
                .parse()
                .map_err(|e| error(RecordErrorKind::Parse(e)))?;
            game.play(turn)
                .map_err(|e| error(RecordErrorKind::Illegal(e)))?;
        }
        Ok(game)
    }

    /// The record as text: a comment naming the variant, then one turn per line in
    /// canonical notation. [`Game::from_record`] reads it back.
    pub fn record(&self) -> String {
        record_text(self.variant(), &self.turns)
    }
}

/// The text of the record of `turns` played in a game of `variant`, as
/// [`Game::record`] writes it, for turns already known legal (a stored game, say)
/// without replaying them.
pub fn record_text(variant: Variant, turns: &[Turn]) -> String {
    let mut text = format!("# PÜNCT, {variant} game\n");
    for turn in turns {
        text.push_str(&turn.to_string());
        text.push('\n');
    }
    text
}

/// A turn [`Game::replay`] found illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// Its number, 1 for the first turn.
    pub number: usize,
    /// The turn.
    pub turn: Turn,
    /// Why the rules refuse it.
    pub source: IllegalTurn,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "turn {} ({}): {}", self.number, self.turn, self.source)
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A record line that could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// 1-based line number in the text.
    pub line: usize,
    /// The line, trimmed.
    pub text: String,
    /// What was wrong with it.
    pub kind: RecordErrorKind,
}

/// What was wrong with a record line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordErrorKind {
    /// It is not a turn in notation.
    Parse(crate::ParseTurnError),
    /// It is a turn, but not a legal one at that point.
    Illegal(IllegalTurn),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            RecordErrorKind::Parse(e) => write!(f, "line {}: {e}", self.line),
            RecordErrorKind::Illegal(e) => {
                write!(f, "line {}: illegal turn {}: {e}", self.line, self.text)
            }
        }
    }
}

impl std::error::Error for RecordError {}

#[cfg(test)]
mod tests {
    //! Rules that no game from the empty board reaches in a test-sized script: a player
    //! with no legal turn. The positions are stood up piece by piece instead.

    use super::*;
    use crate::{Cell, Kind, Placement};

    fn placement(kind: Kind, punct: &str, minors: [&str; 2]) -> Placement {
        let cell = |s: &str| s.parse::<Cell>().unwrap();
        Placement::of_kind(kind, cell(punct), minors.map(cell)).unwrap()
    }

    fn from_position(position: Position) -> Game {
        Game {
            hashes: vec![position.hash()],
            start: position.clone(),
            position,
            turns: Vec::new(),
            outcome: None,
        }
    }

    /// White has all 18 pieces on the board in three towers (straight, angular and
    /// triangular pieces, each tower on one set of three cells) and every tower is capped
    /// by a Black piece, so no White piece is free. Black also has a triangle on L10.
    fn white_frozen() -> Game {
        use Kind::*;
        let mut p = Position::new(Variant::Standard);
        let towers = [
            (
                vec![
                    StraightMiddle,
                    StraightMiddle,
                    StraightEnd,
                    StraightEnd,
                    StraightEnd,
                    StraightEnd,
                ],
                placement(StraightEnd, "C3", ["C4", "C5"]),
            ),
            (
                vec![AngularCorner, AngularCorner, AngularLeft, AngularLeft],
                placement(AngularLeft, "E3", ["E4", "D4"]),
            ),
            (
                vec![AngularRight, AngularRight],
                placement(AngularLeft, "E3", ["E4", "D4"]),
            ),
            (vec![Triangle; 6], placement(Triangle, "G3", ["G4", "H4"])),
        ];
        for (kinds, base) in towers {
            let [a, b, c] = base.cells();
            for kind in kinds {
                // Each piece on the tower's three cells, its PÜNCT on whichever fits.
                let on = [[a, b, c], [b, c, a], [c, a, b]]
                    .into_iter()
                    .find_map(|[p, m1, m2]| Placement::of_kind(kind, p, [m1, m2]))
                    .expect("every kind of the tower fits its cells");
                let level = p.height(a) + 1;
                p.stand(Color::White, on, level);
            }
        }
        // Black caps every tower.
        for base in [
            placement(StraightEnd, "C3", ["C4", "C5"]),
            placement(AngularLeft, "E3", ["E4", "D4"]),
            placement(Triangle, "G3", ["G4", "H4"]),
        ] {
            let level = p.height(base.punct()) + 1;
            p.stand(Color::Black, base, level);
        }
        p.stand(Color::Black, placement(Triangle, "L10", ["L11", "M11"]), 1);
        from_position(p)
    }

    #[test]
    fn player_without_a_legal_turn_passes() {
        let mut game = white_frozen();
        assert_eq!(game.position().reserve(Color::White).total(), 0);
        assert_eq!(game.legal_turns(), vec![Turn::Pass]);
        assert_eq!(crate::perft(&game, 1), 1);
        assert_eq!(
            game.is_legal("C3-C9:C10,C11".parse().unwrap()),
            Err(IllegalTurn::Frozen("C3".parse().unwrap()))
        );
        assert_eq!(game.play(Turn::Pass), Ok(None));
        assert_eq!(game.to_move(), Color::Black);
        assert_eq!(game.turns(), [Turn::Pass]);
        // Black can move, so the game goes on and Black may not pass.
        assert_eq!(game.is_legal(Turn::Pass), Err(IllegalTurn::PassNotAllowed));
        assert!(game.legal_turns().len() > 1);
    }

    #[test]
    fn passes_count_as_turns_for_repetition() {
        let mut game = white_frozen();
        let cycle = ["pass", "L10-L9:L10,M10", "pass", "L9-L10:L11,M11"];
        for round in 0..2 {
            for (i, turn) in cycle.iter().enumerate() {
                let outcome = game.play(turn.parse().unwrap()).unwrap();
                let last = round == 1 && i == cycle.len() - 1;
                let expected = last.then_some(Outcome::Draw {
                    reason: DrawReason::Repetition,
                });
                assert_eq!(outcome, expected, "round {round} turn {turn}");
            }
        }
    }
}
