//! Engine against engine: the games behind `punct rules match`.
//!
//! Games come in pairs that share a random opening (a few random legal drops) and swap
//! colours, so neither side profits from a lucky opening or from moving first. With an
//! [`Sprt`], the match stops starting games once the test has decided.
//!
//! A side is this build's engine at some level, or another program ([`Player::Command`],
//! such as an earlier build's `punct rules think`), run once a turn: that is how two
//! builds are compared.

use std::fmt;
use std::io::Write;
use std::num::NonZeroUsize;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use punct_rules::{Color, Game, Outcome, Turn, Variant};

use crate::sprt::{Results, Sprt, Verdict};
use crate::{Engine, Level, Limits, Rng, random_index};

/// Who plays one side of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    /// This build's engine at a level, playing as it plays on the server.
    Engine(Level),
    /// Another program, run for each turn as `sh -c COMMAND` with the game's record on
    /// its standard input, `{ms}` in the command replaced by its time for the turn in
    /// milliseconds. The first word it prints is its turn; `depth N` and `nodes N`
    /// further on, as `punct rules think` prints them, are counted if present.
    Command(String),
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Engine(level) => write!(f, "{level}"),
            Player::Command(command) => write!(f, "`{command}`"),
        }
    }
}

/// Why a match stopped before its end: a program of [`Player::Command`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchError {
    /// The game, numbered from 1.
    pub game: u32,
    /// The player that failed.
    pub player: Player,
    /// What went wrong.
    pub why: String,
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {}: {} failed: {}",
            self.game, self.player, self.why
        )
    }
}

impl std::error::Error for MatchError {}

/// What to play.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The first player; White in the odd-numbered games.
    pub a: Player,
    /// The second player; White in the even-numbered games.
    pub b: Player,
    /// Number of games.
    pub games: u32,
    /// The game played.
    pub variant: Variant,
    /// Time each engine may take per turn: `a`'s, then `b`'s.
    pub per_turn: [Duration; 2],
    /// Seeds the openings and the engines' random choices.
    pub seed: u64,
    /// Random drops played before the engines take over (both sides together).
    pub opening: u32,
    /// A game still going after this many turns is stopped and counted as a draw.
    pub max_turns: usize,
    /// The test that ends the match early, if any: no game starts once it has decided
    /// (those under way are played out and counted).
    pub sprt: Option<Sprt>,
}

/// One finished (or stopped) game.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// Which colour `a` played.
    pub a_color: Color,
    /// The result; `None` if the game was stopped at the turn limit.
    pub outcome: Option<Outcome>,
    /// The whole game, opening included.
    pub game: Game,
}

impl GameReport {
    /// The winner's side: `Some(true)` when `a` won, `Some(false)` when `b` did.
    pub fn a_won(&self) -> Option<bool> {
        match self.outcome {
            Some(Outcome::Win { winner, .. }) => Some(winner == self.a_color),
            _ => None,
        }
    }
}

/// Results of one player of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn, stopped games included.
    pub draws: u32,
    /// Games won with White.
    pub wins_as_white: u32,
    /// Turns the engine chose (the random opening excluded).
    pub turns: u64,
    /// Time spent choosing them.
    pub thinking: Duration,
    /// The depths its searches reached, added up.
    pub depths: u64,
    /// Positions it looked at.
    pub nodes: u64,
}

impl Tally {
    /// Average time per chosen turn.
    pub fn average(&self) -> Duration {
        if self.turns == 0 {
            Duration::ZERO
        } else {
            self.thinking / self.turns as u32
        }
    }

    /// Average depth reached per chosen turn.
    pub fn average_depth(&self) -> f64 {
        self.depths as f64 / self.turns.max(1) as f64
    }

    /// Positions looked at per second of thinking.
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.thinking.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Adds the effort of another game (not its result).
    fn add_effort(&mut self, other: &Tally) {
        self.turns += other.turns;
        self.thinking += other.thinking;
        self.depths += other.depths;
        self.nodes += other.nodes;
    }
}

/// The whole match so far.
#[derive(Clone, Debug, Default)]
pub struct MatchReport {
    /// Player `a`'s results.
    pub a: Tally,
    /// Player `b`'s results.
    pub b: Tally,
    /// Games stopped at the turn limit (counted as draws).
    pub stopped: u32,
    /// What the SPRT decided, when the match has one: `Continue` if it played all its
    /// games undecided.
    pub verdict: Option<Verdict>,
}

impl MatchReport {
    /// Player `a`'s wins, draws and losses.
    pub fn results(&self) -> Results {
        Results {
            wins: self.a.wins,
            draws: self.a.draws,
            losses: self.a.losses,
        }
    }
}

impl MatchReport {
    /// Counts a finished game and the effort each side spent on it.
    fn add(&mut self, result: &GameReport, effort: &[Tally; 2]) {
        self.a.add_effort(&effort[0]);
        self.b.add_effort(&effort[1]);
        match result.a_won() {
            Some(true) => {
                self.a.wins += 1;
                self.b.losses += 1;
                self.a.wins_as_white += u32::from(result.a_color == Color::White);
            }
            Some(false) => {
                self.b.wins += 1;
                self.a.losses += 1;
                self.b.wins_as_white += u32::from(result.a_color == Color::Black);
            }
            None => {
                self.a.draws += 1;
                self.b.draws += 1;
                self.stopped += u32::from(result.outcome.is_none());
            }
        }
    }
}

/// Plays the match on `jobs` threads, each taking the next game not yet started, and
/// calls `each` with every game's number (from 1) and report as the game ends. A game
/// between engines of this build depends only on the configuration and its number, so
/// the results do not depend on `jobs`, only the order in which games are reported.
/// A failing [`Player::Command`] stops the match: no game starts after it.
pub fn play_match(
    config: &MatchConfig,
    jobs: NonZeroUsize,
    mut each: impl FnMut(u32, &GameReport),
) -> Result<MatchReport, MatchError> {
    let mut report = MatchReport::default();
    let next = AtomicU32::new(0);
    let decided = AtomicBool::new(false);
    let (done, finished) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.get().min(config.games.max(1) as usize) {
            let (next, decided, done) = (&next, &decided, done.clone());
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games || decided.load(Ordering::Relaxed) {
                        break;
                    }
                    if done.send((index, play_game(config, index))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        let mut failed = None;
        for (index, played) in finished {
            let (result, effort) = match played {
                Ok(played) => played,
                Err(error) => {
                    decided.store(true, Ordering::Relaxed);
                    failed.get_or_insert(error);
                    continue;
                }
            };
            report.add(&result, &effort);
            // The first decision stands: the games under way then are counted, not
            // tested again.
            if let Some(sprt) = config.sprt
                && report.verdict.is_none_or(|v| v == Verdict::Continue)
            {
                let verdict = sprt.verdict(&report.results());
                report.verdict = Some(verdict);
                if verdict != Verdict::Continue {
                    decided.store(true, Ordering::Relaxed);
                }
            }
            each(index + 1, &result);
        }
        failed.map_or(Ok(()), Err)
    })?;
    Ok(report)
}

/// One side of a game.
enum Side<'a> {
    /// This build's engine.
    Engine(Engine),
    /// Another program: the command.
    Command(&'a str),
}

/// Plays game `index` of the match, answering it with the effort of `a` and `b`.
fn play_game(config: &MatchConfig, index: u32) -> Result<(GameReport, [Tally; 2]), MatchError> {
    let a_color = if index.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let seed = config
        .seed
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(index as u64);
    // The engines play as they play a game on the server, each game from its own seed.
    let sides = [(&config.a, 0xA), (&config.b, 0xB)].map(|(player, salt)| match player {
        Player::Engine(level) => Side::Engine(Engine::for_play(*level, seed ^ salt)),
        Player::Command(command) => Side::Command(command),
    });
    let mut effort = [Tally::default(); 2];
    let mut opening = Rng::with_seed(config.seed ^ u64::from(index / 2).wrapping_mul(0x51_7CC1));
    let mut game = Game::new(config.variant);
    play_opening(&mut game, config.opening, &mut opening);
    while !game.is_over() && game.turns().len() < config.max_turns {
        let side = usize::from(game.to_move() != a_color);
        let tally = &mut effort[side];
        let budget = config.per_turn[side];
        let failed = |why: String| MatchError {
            game: index + 1,
            player: [&config.a, &config.b][side].clone(),
            why,
        };
        let start = Instant::now();
        let (turn, depth, nodes) = match &sides[side] {
            Side::Engine(engine) => {
                let choice = engine
                    .think(&game, &Limits::within(budget))
                    .expect("the game goes on");
                (choice.turn, choice.depth, choice.nodes)
            }
            Side::Command(command) => ask(command, &game, budget).map_err(failed)?,
        };
        tally.thinking += start.elapsed();
        tally.turns += 1;
        tally.depths += u64::from(depth);
        tally.nodes += nodes;
        game.play(turn)
            .map_err(|e| failed(format!("it chose {turn}: {e}")))?;
    }
    let result = GameReport {
        a_color,
        outcome: game.outcome(),
        game,
    };
    Ok((result, effort))
}

/// The turn `command` (see [`Player::Command`]) chooses in `game` within `budget`, with
/// the depth and positions it reports (0 when it does not).
fn ask(command: &str, game: &Game, budget: Duration) -> Result<(Turn, u32, u64), String> {
    let command = command.replace("{ms}", &budget.as_millis().to_string());
    let mut child = Command::new("sh")
        .args(["-c", &command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let mut stdin = child.stdin.take().expect("its standard input is piped");
    match stdin.write_all(game.record().as_bytes()) {
        // A program need not read the record: its answer tells.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(format!("cannot write the record: {e}"));
        }
        _ => drop(stdin),
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("cannot read its answer: {e}"))?;
    if !output.status.success() {
        return Err(format!("it exited with {}", output.status));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let words: Vec<&str> = text.split_whitespace().collect();
    let first = words.first().ok_or("it printed nothing")?;
    let turn: Turn = first
        .parse()
        .map_err(|e| format!("'{first}' is not a turn: {e}"))?;
    let after = |name: &str| {
        words
            .windows(2)
            .find(|w| w[0] == name)
            .and_then(|w| w[1].parse::<u64>().ok())
            .unwrap_or(0)
    };
    let depth = u32::try_from(after("depth")).unwrap_or(0);
    Ok((turn, depth, after("nodes")))
}

/// Plays `plies` random legal drops (fewer if the game ends first).
pub fn play_opening(game: &mut Game, plies: u32, rng: &mut Rng) {
    for _ in 0..plies {
        if game.is_over() {
            return;
        }
        let drops: Vec<Turn> = game
            .legal_turns()
            .into_iter()
            .filter(|t| t.is_drop())
            .collect();
        if drops.is_empty() {
            return;
        }
        let turn = drops[random_index(rng, drops.len())];
        game.play(turn).expect("generated drops are legal");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_stops_once_the_sprt_has_decided() {
        let config = MatchConfig {
            a: Player::Engine(Level::new(2).expect("a level")),
            b: Player::Engine(Level::Random),
            games: 200,
            variant: Variant::Standard,
            per_turn: [Duration::from_millis(5); 2],
            seed: 1,
            opening: 4,
            max_turns: 400,
            sprt: Some(Sprt {
                elo0: 0.0,
                elo1: 200.0,
                alpha: 0.05,
                beta: 0.05,
            }),
        };
        let report = play_match(&config, NonZeroUsize::new(2).expect("two"), |_, _| {})
            .expect("engines of this build do not fail");
        assert_eq!(report.verdict, Some(Verdict::AcceptElo1));
        // Against random turns level 2 wins nearly all: about eight straight wins
        // decide (each adds ln(0.76/0.5)), far fewer than the 200 games allowed.
        let played = report.results().games();
        assert!(played < 40, "{played} games: {:?}", report.results());
    }
}
