//! `punct rules …` run as a real process: output, exit status and error messages.

use std::process::Output;

use punct_rules::{Game, Variant};

use crate::common::run_punct;

/// Runs `punct` with `args`, feeding `stdin` to it.
fn punct(args: &[&str], stdin: &str) -> Output {
    run_punct(args, stdin, None)
}

/// Runs `punct` and returns its standard output, checking that it succeeded.
fn stdout(args: &[&str], stdin: &str) -> String {
    let output = punct(args, stdin);
    assert!(
        output.status.success(),
        "punct {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("output is UTF-8")
}

/// A temporary record file, removed when dropped.
struct RecordFile(std::path::PathBuf);

impl RecordFile {
    fn new(name: &str, text: &str) -> RecordFile {
        let path = std::env::temp_dir().join(format!("punct-cli-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("temporary file is writable");
        RecordFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("temporary paths are UTF-8")
    }
}

impl Drop for RecordFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Plays pseudo-random legal turns from a fixed seed until the game ends.
fn random_finished_game(variant: Variant, mut seed: u64) -> Game {
    let mut game = Game::new(variant);
    while !game.is_over() {
        // A 64-bit linear congruential generator (Knuth's MMIX constants): reproducible
        // without a dependency.
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let turns = game.legal_turns();
        let turn = turns[(seed >> 33) as usize % turns.len()];
        game.play(turn).expect("generated turns are legal");
    }
    game
}

#[test]
fn moves_lists_the_4986_opening_drops_in_canonical_notation() {
    let text = stdout(&["rules", "moves", "--variant", "standard"], "");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4986);
    assert!(lines.contains(&"C4:C5,D5"));
    // Canonical: upper case, minors in (column, row) order, so printing is a fixed point.
    for line in &lines {
        let turn: punct_rules::Turn = line.parse().expect("moves prints notation");
        assert_eq!(&turn.to_string(), line);
    }
}

#[test]
fn moves_after_a_record_are_the_legal_turns_of_that_position() {
    let record = "C4:C5,D5\n";
    let text = stdout(
        &["rules", "moves", "--variant", "basic", "--record", "-"],
        record,
    );
    let expected: Vec<String> = Game::from_record(Variant::Basic, record)
        .expect("legal record")
        .legal_turns()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn perft_counts_sequences_of_turns() {
    assert_eq!(
        stdout(
            &["rules", "perft", "--variant", "standard", "--depth", "1"],
            ""
        ),
        "4986\n"
    );
    assert_eq!(
        stdout(
            &["rules", "perft", "--variant", "basic", "--depth", "0"],
            ""
        ),
        "1\n"
    );
    assert_eq!(
        stdout(
            &[
                "rules",
                "perft",
                "--variant",
                "basic",
                "--depth",
                "0",
                "--divide"
            ],
            ""
        ),
        "1\n"
    );
}

/// `punct rules perft` two turns deep from the standard game of `record`.
fn perft_two(record: &RecordFile) -> [&str; 8] {
    [
        "rules",
        "perft",
        "--variant",
        "standard",
        "--depth",
        "2",
        "--record",
        record.path(),
    ]
}

#[test]
fn perft_divide_gives_each_first_turn_then_the_total() {
    let record = RecordFile::new("divide", "C4:C5,D5\nJ14:J15,K15\n");
    let args = perft_two(&record);
    let total = stdout(&args, "");
    let divided = stdout(&[&args[..], &["--divide"]].concat(), "");
    let lines: Vec<&str> = divided.lines().collect();
    let (last, per_turn) = lines.split_last().expect("at least the total");
    assert_eq!(format!("{last}\n"), total);
    let sum: u64 = per_turn
        .iter()
        .map(|line| {
            let (turn, count) = line.split_once(' ').expect("TURN COUNT");
            turn.parse::<punct_rules::Turn>().expect("a turn");
            count.parse::<u64>().expect("a count")
        })
        .sum();
    assert_eq!(sum.to_string(), *last);
    let game = Game::from_record(Variant::Standard, "C4:C5,D5\nJ14:J15,K15\n").expect("legal");
    assert_eq!(per_turn.len(), game.legal_turns().len());
}

#[test]
fn perft_on_threads_gives_the_same_counts() {
    let record = RecordFile::new("threads", "C4:C5,D5\nJ14:J15,K15\n");
    let args = [&perft_two(&record)[..], &["--divide"]].concat();
    let one = stdout(&args, "");
    for threads in ["2", "3"] {
        assert_eq!(
            stdout(&[&args[..], &["--threads", threads]].concat(), ""),
            one,
            "{threads} threads"
        );
    }
    assert_eq!(
        stdout(
            &[
                "rules",
                "perft",
                "--variant",
                "basic",
                "--depth",
                "0",
                "--threads",
                "2"
            ],
            ""
        ),
        "1\n"
    );
}

#[test]
fn status_says_who_is_to_move() {
    assert_eq!(
        stdout(&["rules", "status", "--variant", "standard"], ""),
        "to-move white\n"
    );
    assert_eq!(
        stdout(
            &["rules", "status", "--variant", "basic", "--record", "-"],
            "# a comment\n\nc4:d5,c5\n"
        ),
        "to-move black\n"
    );
}

#[test]
fn status_of_a_finished_game_is_its_outcome() {
    for (variant, seed) in [(Variant::Standard, 1), (Variant::Basic, 7)] {
        let game = random_finished_game(variant, seed);
        let outcome = game.outcome().expect("the game is over");
        let args = [
            "rules",
            "status",
            "--variant",
            variant.name(),
            "--record",
            "-",
        ];
        assert_eq!(stdout(&args, &game.record()), format!("{outcome}\n"));
        // No turn follows the end of a game.
        let moves = [
            "rules",
            "moves",
            "--variant",
            variant.name(),
            "--record",
            "-",
        ];
        assert_eq!(stdout(&moves, &game.record()), "");
    }
}

#[test]
fn an_illegal_record_line_is_reported_with_its_number() {
    let record = RecordFile::new("illegal", "# opening\nC4:C5,D5\n\nC4:C5,D5\n");
    let output = punct(
        &[
            "rules",
            "status",
            "--variant",
            "standard",
            "--record",
            record.path(),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 4: illegal turn C4:C5,D5"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn an_unreadable_record_line_is_reported_with_its_number() {
    let output = punct(
        &["rules", "moves", "--variant", "standard", "--record", "-"],
        "C4:C5,D5\nnonsense\n",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("stdin: line 2: 'nonsense' is not a turn"),
        "{stderr}"
    );
}

#[test]
fn a_missing_record_file_is_an_error() {
    let output = punct(
        &[
            "rules",
            "status",
            "--variant",
            "standard",
            "--record",
            "/nonexistent/record",
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/record"));
}

#[test]
fn an_unknown_variant_is_a_usage_error() {
    let output = punct(&["rules", "status", "--variant", "hexagonal"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid value 'hexagonal'"));
}

#[test]
fn show_draws_the_board_with_coordinates_and_the_dropped_piece() {
    let text = stdout(
        &["rules", "show", "--variant", "standard", "--record", "-"],
        "C4:C5,D5\n",
    );
    // Not a terminal: no colour escapes.
    assert!(!text.contains('\x1b'));
    let lines: Vec<&str> = text.lines().collect();
    // Column letters at the top and bottom, row numbers at both ends of each row.
    assert_eq!(lines[0], "                        H     J");
    assert_eq!(lines[34], "                        H     J");
    // White's PÜNCT on C4 (on the line of A3), a minor dot on C5 (on the line of A4).
    assert_eq!(
        lines[19],
        " 4 .     w     .     +     +     +     .     .     .  12"
    );
    assert_eq!(
        lines[21],
        " 3 .     W     .     .     +     .     .     .     .  11"
    );
    assert!(text.contains("\ntriangle                              5      6\n"));
    assert!(text.ends_with("\nstandard game: black to move\n"));
}

#[test]
fn show_gives_the_result_of_a_finished_game() {
    let game = random_finished_game(Variant::Standard, 1);
    let text = stdout(
        &["rules", "show", "--variant", "standard", "--record", "-"],
        &game.record(),
    );
    let outcome = game.outcome().expect("the game is over");
    assert!(text.ends_with(&format!("\nstandard game: {outcome}\n")));
}
