//! Puzzles: positions in which exactly one turn does what the puzzle asks, judged by
//! playing every legal turn with [`Game::play`], so that the answer is the rules' own.
//!
//! - [`Goal::Connect`]: win by connection now. The only winning turn of any kind.
//! - [`Goal::Centre`]: the mover has one piece left, so their next drop ends a standard
//!   game with the count of the centre, and the count is not yet theirs: only one turn
//!   (a move that changes the count) wins whatever the opponent answers. Dropping the
//!   last piece cannot decide it, since a drop never changes the count of the centre.
//! - [`Goal::Stop`]: the opponent threatens to win; the mover cannot win at once, and only
//!   one turn leaves the opponent no winning reply.
//!
//! [`find`] looks for a puzzle of each goal in a position; [`generate`] plays engine games
//! and keeps the puzzles found along them.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use punct_rules::{Game, Outcome, Turn, Variant, WinReason};

use crate::arena::play_opening;
use crate::{Engine, Level, Rng};

/// What a puzzle asks of the player to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Goal {
    /// Connect two opposite sides with this turn.
    Connect,
    /// Stop the opponent's connection.
    Stop,
    /// Make sure of winning the count of the centre, whatever the reply.
    Centre,
}

impl Goal {
    /// Every goal, in the order puzzles are shown.
    pub const ALL: [Goal; 3] = [Goal::Connect, Goal::Stop, Goal::Centre];

    /// Its name in puzzle files: `connect`, `stop`, `centre`.
    pub fn name(self) -> &'static str {
        match self {
            Goal::Connect => "connect",
            Goal::Stop => "stop",
            Goal::Centre => "centre",
        }
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Goal {
    type Err = String;

    fn from_str(text: &str) -> Result<Goal, String> {
        Goal::ALL
            .into_iter()
            .find(|goal| goal.name() == text)
            .ok_or_else(|| format!("no puzzle goal '{text}'"))
    }
}

/// The game after `turn`, with the outcome it ended in if it did.
fn after(game: &Game, turn: Turn) -> (Game, Option<Outcome>) {
    let mut next = game.clone();
    let outcome = next.play(turn).expect("turns from legal_turns are legal");
    (next, outcome)
}

/// The turns with which the player to move wins at once, and how.
pub fn winning_turns(game: &Game) -> Vec<(Turn, WinReason)> {
    let mover = game.to_move();
    game.legal_turns()
        .into_iter()
        .filter_map(|turn| match after(game, turn).1 {
            Some(Outcome::Win { winner, reason }) if winner == mover => Some((turn, reason)),
            _ => None,
        })
        .collect()
}

/// Whether the player to move has a winning turn. `likely` holds winning turns found in
/// similar positions: they are tried first, and a new one found is added.
fn can_win(game: &Game, likely: &mut Vec<Turn>) -> bool {
    let mover = game.to_move();
    let wins = |turn: Turn| {
        game.is_legal(turn).is_ok()
            && matches!(after(game, turn).1, Some(Outcome::Win { winner, .. }) if winner == mover)
    };
    if likely.iter().any(|&turn| wins(turn)) {
        return true;
    }
    match game.legal_turns().into_iter().find(|&turn| wins(turn)) {
        Some(turn) => {
            likely.push(turn);
            true
        }
        None => false,
    }
}

/// The turns of the player to move that achieve `goal` (see the module's description).
/// For [`Goal::Stop`] these are the turns that neither lose at once nor leave the
/// opponent a winning reply.
pub fn solutions(game: &Game, goal: Goal) -> Vec<Turn> {
    answers(game, goal).collect()
}

/// [`solutions`], found one by one: a caller that needs only to know whether there is
/// more than one stops early.
fn answers(game: &Game, goal: Goal) -> Box<dyn Iterator<Item = Turn> + '_> {
    let mover = game.to_move();
    let won = move |outcome: Option<Outcome>| matches!(outcome, Some(Outcome::Win { winner, .. }) if winner == mover);
    let turns = game.legal_turns().into_iter();
    match goal {
        Goal::Connect => Box::new(turns.filter(move |&turn| {
            after(game, turn).1
                == Some(Outcome::Win {
                    winner: mover,
                    reason: WinReason::Connection,
                })
        })),
        Goal::Stop => {
            let mut replies = Vec::new();
            Box::new(turns.filter(move |&turn| match after(game, turn) {
                (_, Some(Outcome::Win { winner, .. })) => winner == mover,
                (_, Some(Outcome::Draw { .. })) => true,
                (next, None) => !can_win(&next, &mut replies),
            }))
        }
        Goal::Centre => {
            // Replies that refuted an earlier turn are tried first.
            let mut refutations: Vec<Turn> = Vec::new();
            let mut wins = Vec::new();
            Box::new(turns.filter(move |&turn| {
                let (next, outcome) = after(game, turn);
                if outcome.is_some() {
                    return won(outcome);
                }
                let mut refuted = |reply: Turn| {
                    if next.is_legal(reply).is_err() {
                        return false;
                    }
                    let (then, outcome) = after(&next, reply);
                    match outcome {
                        Some(_) => !won(outcome),
                        None => !can_win(&then, &mut wins),
                    }
                };
                if refutations.iter().any(|&reply| refuted(reply)) {
                    return false;
                }
                match next.legal_turns().into_iter().find(|&reply| refuted(reply)) {
                    Some(reply) => {
                        refutations.push(reply);
                        false
                    }
                    None => true,
                }
            }))
        }
    }
}

/// The one answer to a puzzle of `goal` in `game`, if `game` is such a puzzle: exactly one
/// turn achieves the goal, and no other turn wins at once. For [`Goal::Stop`] and
/// [`Goal::Centre`] no turn wins at once at all; for [`Goal::Centre`] the game is the
/// standard one and the mover has exactly one piece left.
pub fn solution(game: &Game, goal: Goal) -> Option<Turn> {
    if game.is_over() {
        return None;
    }
    let wins = winning_turns(game).len();
    let posed = match goal {
        Goal::Connect => wins == 1,
        Goal::Stop => wins == 0,
        Goal::Centre => {
            wins == 0
                && game.variant() == Variant::Standard
                && game.position().reserve(game.to_move()).total() == 1
        }
    };
    if !posed {
        return None;
    }
    match answers(game, goal).take(2).collect::<Vec<_>>()[..] {
        [answer] => Some(answer),
        _ => None,
    }
}

/// A puzzle: a position reached by `turns`, the goal, and its one answer.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Puzzle {
    /// The game played.
    pub variant: Variant,
    /// The turns from the start to the position.
    pub turns: Vec<Turn>,
    /// What the player to move must do.
    pub goal: Goal,
    /// The one turn that does it.
    pub answer: Turn,
}

/// Plays `games` engine games of `variant` (a few random drops, then `level` with
/// `per_turn` each, seeded by `seed`) and keeps, from each game, the first puzzle of each
/// goal it passes through. `wanted` says, by [`Goal::ALL`]'s order, how many of each goal
/// to collect at most; it stops early once all are found.
pub fn generate(
    variant: Variant,
    level: Level,
    per_turn: Duration,
    seed: u64,
    games: u32,
    wanted: [usize; 3],
) -> Vec<Puzzle> {
    let mut found: Vec<Puzzle> = Vec::new();
    for index in 0..games {
        let mut rng = Rng::with_seed(seed.wrapping_add(u64::from(index)));
        let engine = Engine::with_seed(level, rng.u64(..));
        let mut game = Game::new(variant);
        play_opening(&mut game, 6, &mut rng);
        let mut taken = [false; 3];
        while !game.is_over() {
            for (i, goal) in Goal::ALL.into_iter().enumerate() {
                let room = found.iter().filter(|p| p.goal == goal).count() < wanted[i];
                if taken[i] || !room {
                    continue;
                }
                if let Some(answer) = solution(&game, goal) {
                    taken[i] = true;
                    found.push(Puzzle {
                        variant,
                        turns: game.turns().to_vec(),
                        goal,
                        answer,
                    });
                }
            }
            let turn = engine.choose(&game, per_turn).expect("the game goes on");
            game.play(turn).expect("the engine plays legal turns");
        }
        if Goal::ALL
            .iter()
            .enumerate()
            .all(|(i, &goal)| found.iter().filter(|p| p.goal == goal).count() >= wanted[i])
        {
            break;
        }
    }
    found
}
