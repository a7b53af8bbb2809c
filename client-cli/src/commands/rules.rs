//! `punct rules …`: a position's turns, perft, status and diagram, the engine's choice,
//! the puzzles' check, and matches of the computer against itself.

use std::io::{self, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use punct_engine::arena::{self, MatchConfig, Player, Tally};
use punct_engine::sprt::{self, Sprt, Verdict};
use punct_engine::{Engine, Level, Limits, puzzle};
use punct_rules::{Diagram, DiagramStyle, Game, Turn, Variant, perft};

use crate::{Failure, variant_parser};

/// `punct rules …`: questions about the position after a record.
#[derive(Subcommand, Debug)]
pub(crate) enum RulesCommand {
    /// Print every legal turn, one per line, in canonical notation (nothing once the game
    /// is over).
    Moves(PositionArgs),
    /// Count the sequences of exactly DEPTH legal turns.
    Perft {
        /// Which position.
        #[command(flatten)]
        position: PositionArgs,
        /// Number of turns in each sequence.
        #[arg(long)]
        depth: u32,
        /// Print the count after each first turn (`TURN COUNT`) before the total.
        #[arg(long)]
        divide: bool,
        /// Count on this many threads, each taking the next first turn not yet counted.
        #[arg(long, default_value_t = NonZeroUsize::MIN)]
        threads: NonZeroUsize,
    },
    /// Print `to-move white`, `to-move black` or the result of the game.
    Status(PositionArgs),
    /// Draw the board, the reserves and the side to move or the result.
    Show(PositionArgs),
    /// Play the engine against itself from the start: colours alternate, each pair of
    /// games shares a random opening. Prints each game, then wins, losses, draws and the
    /// average time per turn of each side.
    Match(MatchArgs),
    /// Let the computer think about the position for a while: prints the turn it
    /// chooses, its score, the depth it reached and the positions it looked at.
    Think {
        /// Which position.
        #[command(flatten)]
        position: PositionArgs,
        /// Which engine: random, greedy, or a level 1 to 5 (5 is the strongest).
        #[arg(long, default_value_t = Level::strongest())]
        level: Level,
        /// Thinking time, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        ms: u64,
        /// Search this many plies deep instead, however long it takes (the same turn on
        /// every machine, and in the web page's engine).
        #[arg(long, conflicts_with = "ms")]
        depth: Option<u32>,
    },
    /// Play engine games and print the puzzles found along them (positions where exactly
    /// one turn connects, stops the opponent's connection, or wins the centre count) as
    /// the JSON of the web page's puzzle file.
    Puzzles(PuzzleArgs),
}

/// `punct rules puzzles`: how many puzzles of each goal, from which games.
#[derive(Args, Debug)]
pub(crate) struct PuzzleArgs {
    /// Puzzles that ask to connect at once.
    #[arg(long, default_value_t = 8)]
    connect: usize,
    /// Puzzles that ask to stop the opponent's connection.
    #[arg(long, default_value_t = 8)]
    stop: usize,
    /// Puzzles that ask to win the count of the centre.
    #[arg(long, default_value_t = 8)]
    centre: usize,
    /// The engine that plays the games: random, greedy, or a level 1 to 5.
    #[arg(long, default_value_t = Level::new(3).expect("a level number"))]
    level: Level,
    /// Thinking time per turn, in milliseconds.
    #[arg(long, default_value_t = 50)]
    ms_per_turn: u64,
    /// Games to play at most.
    #[arg(long, default_value_t = 200)]
    games: u32,
    /// Seeds the games' openings and the engine.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `punct rules match`: who plays, how many games, how fast.
#[derive(Args, Debug)]
pub(crate) struct MatchArgs {
    /// The first player: random, greedy, or a level 1 to 5 (5 is the strongest).
    #[arg(long, required_unless_present = "a_command")]
    a: Option<Level>,
    /// The second player, as for --a.
    #[arg(long, required_unless_present = "b_command")]
    b: Option<Level>,
    /// The first player is another program instead (another build, say): run for each
    /// turn by `sh -c` with the game's record on standard input, `{ms}` replaced by its
    /// time for the turn; the first word it prints is its turn, as `punct rules think
    /// --variant V --record - --level L --ms {ms}` prints it.
    #[arg(long, value_name = "COMMAND", conflicts_with = "a")]
    a_command: Option<String>,
    /// The second player is another program, as for --a-command.
    #[arg(long, value_name = "COMMAND", conflicts_with = "b")]
    b_command: Option<String>,
    /// Number of games; A has White in the odd-numbered ones.
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// The game played.
    #[arg(long, ignore_case = true, value_parser = variant_parser())]
    variant: Variant,
    /// Thinking time per turn, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    ms_per_turn: u64,
    /// A's thinking time per turn, when it differs from --ms-per-turn (to measure what
    /// time buys).
    #[arg(long, value_name = "MS")]
    a_ms_per_turn: Option<u64>,
    /// Seeds the openings and the engines' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random drops played before the engines take over.
    #[arg(long, default_value_t = 4)]
    opening: u32,
    /// Stop a game after this many turns and count it as a draw.
    #[arg(long, default_value_t = 400)]
    max_turns: usize,
    /// Write each game's record to DIR/game-N.txt (the directory must exist).
    #[arg(long, value_name = "DIR")]
    records: Option<PathBuf>,
    /// Play this many games at once, one thread each (the games and their results are
    /// the same; only the order they are printed in changes). Each engine thinks on one
    /// thread, so more jobs than cores takes time from every engine.
    #[arg(long, default_value_t = NonZeroUsize::MIN)]
    jobs: NonZeroUsize,
    /// Stop early by a sequential probability ratio test of A's Elo over B's: ELO0 (the
    /// null hypothesis) against this, the alternative; --games is then the most played.
    #[arg(long, value_name = "ELO")]
    elo1: Option<f64>,
    /// The SPRT's null hypothesis, in Elo (with --elo1).
    #[arg(long, value_name = "ELO", default_value_t = 0.0, requires = "elo1")]
    elo0: f64,
    /// The SPRT's chance of accepting --elo1 when --elo0 holds.
    #[arg(long, default_value_t = 0.05, requires = "elo1")]
    alpha: f64,
    /// The SPRT's chance of accepting --elo0 when --elo1 holds.
    #[arg(long, default_value_t = 0.05, requires = "elo1")]
    beta: f64,
}

/// Which position a `rules` subcommand looks at.
#[derive(Args, Debug)]
pub(crate) struct PositionArgs {
    /// The game played.
    #[arg(long, ignore_case = true, value_parser = variant_parser())]
    variant: Variant,
    /// A game record, one turn per line; `-` reads standard input. Without it, the start.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// Runs one `punct rules` subcommand.
pub(crate) fn rules(command: RulesCommand) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match command {
        RulesCommand::Moves(args) => {
            let game = args.game()?;
            for turn in game.legal_turns() {
                writeln!(out, "{turn}")?;
            }
        }
        RulesCommand::Perft {
            position,
            depth,
            divide,
            threads,
        } => {
            let game = position.game()?;
            let counts = perft_on_threads(&game, depth, threads);
            if divide {
                for (turn, count) in &counts {
                    writeln!(out, "{turn} {count}")?;
                }
            }
            // With no first turn (depth 0, or the game over) the sum says nothing: perft
            // itself knows that the empty sequence counts at depth 0.
            let total = if counts.is_empty() {
                perft(&game, depth)
            } else {
                counts.iter().map(|(_, n)| n).sum()
            };
            writeln!(out, "{total}")?;
        }
        RulesCommand::Status(args) => {
            let game = args.game()?;
            match game.outcome() {
                Some(outcome) => writeln!(out, "{outcome}")?,
                None => writeln!(out, "to-move {}", game.to_move())?,
            }
        }
        RulesCommand::Show(args) => {
            let game = args.game()?;
            let style = if io::stdout().is_terminal() {
                DiagramStyle::Ansi
            } else {
                DiagramStyle::Plain
            };
            write!(out, "{}", Diagram::of_game(&game, style))?;
        }
        RulesCommand::Match(args) => play_match(&args, &mut out)?,
        RulesCommand::Puzzles(args) => {
            let found = puzzle::generate(
                Variant::Standard,
                args.level,
                Duration::from_millis(args.ms_per_turn),
                args.seed,
                args.games,
                [args.connect, args.stop, args.centre],
            );
            writeln!(out, "{}", puzzle_file(&found))?;
        }
        RulesCommand::Think {
            position,
            level,
            ms,
            depth,
        } => {
            let game = position.game()?;
            let limits = match depth {
                Some(depth) => Limits::depth(depth),
                None => Limits::within(Duration::from_millis(ms)),
            };
            let start = Instant::now();
            let choice = Engine::new(level).think(&game, &limits);
            let took = start.elapsed().as_secs_f64();
            match choice {
                Some(c) => writeln!(
                    out,
                    "{} score {} depth {} nodes {} in {:.3} s ({:.0} nodes/s)",
                    c.turn,
                    c.score,
                    c.depth,
                    c.nodes,
                    took,
                    c.nodes as f64 / took
                )?,
                None => writeln!(out, "the game is over")?,
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The puzzles as the web page's puzzle file (`server/web/puzzles.json`): each with an
/// id made of its goal and its number among that goal's puzzles.
fn puzzle_file(found: &[puzzle::Puzzle]) -> String {
    let puzzles: Vec<_> = puzzle::Goal::ALL
        .into_iter()
        .flat_map(|goal| {
            found
                .iter()
                .filter(move |p| p.goal == goal)
                .enumerate()
                .map(|(n, p)| {
                    serde_json::json!({
                        "id": format!("{}-{}", p.goal, n + 1),
                        "goal": p.goal.name(),
                        "variant": p.variant.name(),
                        "turns": p.turns.iter().map(Turn::to_string).collect::<Vec<_>>(),
                        "answer": p.answer.to_string(),
                    })
                })
        })
        .collect();
    let file = serde_json::json!({
        "about": "Puzzles found along engine games by `punct rules puzzles`: in each position exactly one turn of the player to move does what the goal asks (server/tests/it/puzzles.rs checks every one with the engine's puzzle module). `turns`: the game up to the puzzle; `answer`: its one solution.",
        "puzzles": puzzles,
    });
    serde_json::to_string_pretty(&file).expect("JSON values serialise")
}

/// [`perft_divide`](punct_rules::perft_divide) on `threads` threads: each plays the next
/// first turn not yet taken and counts the sequences after it, so that a first turn
/// with many moves after it does not leave the other threads idle.
fn perft_on_threads(game: &Game, depth: u32, threads: NonZeroUsize) -> Vec<(Turn, u64)> {
    if depth == 0 || game.is_over() {
        return Vec::new();
    }
    let turns = game.legal_turns();
    let next = AtomicUsize::new(0);
    let mut counts = vec![0; turns.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.get())
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&turn) = turns.get(index) else {
                            return done;
                        };
                        let mut after = game.clone();
                        after.play(turn).expect("generated turns are legal");
                        done.push((index, perft(&after, depth - 1)));
                    }
                })
            })
            .collect();
        for worker in workers {
            for (index, count) in worker.join().expect("a perft thread panicked") {
                counts[index] = count;
            }
        }
    });
    turns.into_iter().zip(counts).collect()
}

/// Plays a match, printing a line per game as it ends, then the totals.
fn play_match(args: &MatchArgs, out: &mut impl Write) -> Result<(), Failure> {
    let player = |level: Option<Level>, command: &Option<String>| match (level, command) {
        (_, Some(command)) => Player::Command(command.clone()),
        (Some(level), None) => Player::Engine(level),
        (None, None) => unreachable!("clap requires a level or a command"),
    };
    let config = MatchConfig {
        a: player(args.a, &args.a_command),
        b: player(args.b, &args.b_command),
        games: args.games,
        variant: args.variant,
        per_turn: [
            args.a_ms_per_turn.unwrap_or(args.ms_per_turn),
            args.ms_per_turn,
        ]
        .map(Duration::from_millis),
        seed: args.seed,
        opening: args.opening,
        max_turns: args.max_turns,
        sprt: args.elo1.map(|elo1| Sprt {
            elo0: args.elo0,
            elo1,
            alpha: args.alpha,
            beta: args.beta,
        }),
    };
    let mut written = Ok(());
    let report = arena::play_match(&config, args.jobs, |number, game| {
        let result = match game.outcome {
            Some(outcome) => outcome.to_string(),
            None => format!("stopped after {} turns", game.game.turns().len()),
        };
        let winner = match game.a_won() {
            Some(true) => "A wins",
            Some(false) => "B wins",
            None => "no winner",
        };
        if let (Ok(()), Some(dir)) = (&written, &args.records) {
            let text = format!("# game {number}: {result}\n{}", game.game.record());
            written = std::fs::write(dir.join(format!("game-{number}.txt")), text);
        }
        if written.is_ok() {
            written = writeln!(
                out,
                "game {number}: A {} plays {}: {result} after {} turns: {winner}",
                config.a,
                game.a_color,
                game.game.turns().len()
            )
            .and_then(|()| out.flush());
        }
    });
    let report = report.map_err(Failure::Match)?;
    written?;
    let line = |name: &str, player: &Player, t: &Tally| {
        format!(
            "{name} {player}: {} wins ({} as white), {} losses, {} draws, {:.1} ms per turn, \
             depth {:.2}, {:.0} positions/s",
            t.wins,
            t.wins_as_white,
            t.losses,
            t.draws,
            t.average().as_secs_f64() * 1000.0,
            t.average_depth(),
            t.nodes_per_second()
        )
    };
    writeln!(out, "{}", line("A", &config.a, &report.a))?;
    writeln!(out, "{}", line("B", &config.b, &report.b))?;
    if report.stopped > 0 {
        writeln!(
            out,
            "{} games stopped at {} turns, counted as draws",
            report.stopped, args.max_turns
        )?;
    }
    let results = report.results();
    if let Some((score, low, high)) = results.score() {
        writeln!(
            out,
            "A's score {score:.3} (95%: {low:.3} to {high:.3}) over {} games: Elo {:+.0} ({:+.0} to {:+.0})",
            results.games(),
            sprt::elo(score),
            sprt::elo(low),
            sprt::elo(high)
        )?;
    }
    if let (Some(test), Some(verdict)) = (config.sprt, report.verdict) {
        let (lower, upper) = test.bounds();
        let said = match verdict {
            Verdict::AcceptElo0 => format!("elo0 ({}) accepted", test.elo0),
            Verdict::AcceptElo1 => format!("elo1 ({}) accepted", test.elo1),
            Verdict::Continue => "undecided".to_owned(),
        };
        writeln!(
            out,
            "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR {:.2} (bounds {lower:.2}, {upper:.2}): {said}",
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            results.llr(test.elo0, test.elo1)
        )?;
    }
    Ok(())
}

impl PositionArgs {
    /// Replays the record, or starts a new game without one.
    fn game(&self) -> Result<Game, Failure> {
        let Some(path) = &self.record else {
            return Ok(Game::new(self.variant));
        };
        let text = if path.as_os_str() == "-" {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Record(format!("cannot read the record from stdin: {e}")))?;
            text
        } else {
            std::fs::read_to_string(path).map_err(|e| {
                Failure::Record(format!("cannot read the record {}: {e}", path.display()))
            })?
        };
        Game::from_record(self.variant, &text).map_err(|e| {
            let source = if path.as_os_str() == "-" {
                "stdin".to_owned()
            } else {
                path.display().to_string()
            };
            Failure::Record(format!("{source}: {e}"))
        })
    }
}
