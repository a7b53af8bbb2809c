//! perft regression: the counts of legal turn sequences recorded in `tests/perft.data`
//! from the opening and from game records in `tests/records/`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use punct_rules::{Game, Variant, perft, perft_divide};

/// One block of `perft.data`: a position and its expected counts.
struct Case {
    /// Line of the `game` line, for messages.
    line: usize,
    /// The game's variant.
    variant: Variant,
    /// Record file under `tests/records/`, `None` for the empty board.
    record: Option<String>,
    /// Whether the position must have a stack and a bridge.
    covers_stacks_bridges: bool,
    /// `(depth, count)` pairs.
    depths: Vec<(u32, u64)>,
}

impl Case {
    fn name(&self) -> String {
        format!(
            "{} {} (perft.data line {})",
            self.variant,
            self.record.as_deref().unwrap_or("start"),
            self.line
        )
    }

    fn game(&self) -> Game {
        match &self.record {
            None => Game::new(self.variant),
            Some(name) => {
                let path = records_dir().join(name);
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                Game::from_record(self.variant, &text)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            }
        }
    }
}

fn records_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/records")
}

fn parse(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["game", variant, record] => cases.push(Case {
                line: line_no,
                variant: variant
                    .parse()
                    .unwrap_or_else(|e| panic!("perft.data line {line_no}: {e}")),
                record: (*record != "start").then(|| record.to_string()),
                covers_stacks_bridges: false,
                depths: Vec::new(),
            }),
            ["covers", "stacks", "bridges"] => {
                current(&mut cases, line_no).covers_stacks_bridges = true;
            }
            ["depth", depth, "=", count] => {
                let number = |s: &str| {
                    s.parse::<u64>()
                        .unwrap_or_else(|e| panic!("perft.data line {line_no}: {s}: {e}"))
                };
                let depth = u32::try_from(number(depth)).expect("a small depth");
                current(&mut cases, line_no)
                    .depths
                    .push((depth, number(count)));
            }
            _ => panic!("perft.data line {line_no}: cannot read '{line}'"),
        }
    }
    cases
}

fn current(cases: &mut [Case], line_no: usize) -> &mut Case {
    cases
        .last_mut()
        .unwrap_or_else(|| panic!("perft.data line {line_no}: before any `game` line"))
}

/// Checks one case; returns its mismatches as messages.
fn check(case: &Case) -> Vec<String> {
    let game = case.game();
    let mut failures = Vec::new();
    if case.covers_stacks_bridges {
        let position = game.position();
        let stacked = position.pieces().any(|(_, p)| p.level >= 2);
        let bridged = position.pieces().any(|(id, _)| position.is_bridge(id));
        if !(stacked && bridged) {
            failures.push(format!(
                "{}: expected a stack ({stacked}) and a bridge ({bridged})",
                case.name()
            ));
        }
    }
    for &(depth, expected) in &case.depths {
        let start = Instant::now();
        let found = perft(&game, depth);
        // Shown with --nocapture: keeps an eye on the suite's cost.
        eprintln!(
            "{}: depth {depth} = {found} in {:.2?}",
            case.name(),
            start.elapsed()
        );
        if found != expected {
            failures.push(format!(
                "{}: depth {depth}: expected {expected}, found {found}",
                case.name()
            ));
        }
    }
    failures
}

#[test]
fn perft_counts_match_the_data_file() {
    let cases = parse(include_str!("../perft.data"));
    assert!(cases.len() >= 8, "perft.data lost cases");
    // The cases are independent and a few take a second or more: run them side by side,
    // then report every mismatch at once.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|case| scope.spawn(move || check(case)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a perft case panicked"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// perft the slow way, through the public API only: every turn played on a copy.
fn naive_perft(game: &Game, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    game.legal_turns()
        .into_iter()
        .map(|turn| {
            let mut next = game.clone();
            next.play(turn).expect("a generated turn is legal");
            naive_perft(&next, depth - 1)
        })
        .sum()
}

/// `perft` takes shortcuts (bulk counting, undoing turns in place) that must not change
/// the count; `perft_divide` splits it by first turn. Both agree with playing every
/// sequence out, in positions where many sequences end the game early.
#[test]
fn perft_agrees_with_playing_every_sequence() {
    let cases = parse(include_str!("../perft.data"));
    for name in ["smothered-1.txt", "smothered-2.txt"] {
        let case = cases
            .iter()
            .find(|c| c.record.as_deref() == Some(name))
            .expect("perft.data has the smothered records");
        let game = case.game();
        let naive = naive_perft(&game, 2);
        assert_eq!(perft(&game, 2), naive, "{name}");
        let divided = perft_divide(&game, 2);
        let mut turns: Vec<_> = divided.iter().map(|&(t, _)| t.to_string()).collect();
        let mut legal: Vec<_> = game.legal_turns().iter().map(|t| t.to_string()).collect();
        turns.sort();
        legal.sort();
        assert_eq!(turns, legal, "{name}");
        assert_eq!(
            divided.iter().map(|&(_, n)| n).sum::<u64>(),
            naive,
            "{name}"
        );
    }
}
