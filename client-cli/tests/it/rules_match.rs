//! `punct rules match` run as a real process: a short match between fast players.

use std::process::Command;

use punct_rules::{Game, Variant};

/// `punct rules match` with `args`, which must succeed: its output.
fn run_match(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["rules", "match"])
        .args(args)
        .output()
        .expect("punct runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("output is UTF-8")
}

#[test]
fn match_prints_each_game_and_the_totals_and_writes_the_records() {
    let dir = std::env::temp_dir().join(format!("punct-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let records = dir.to_str().expect("a UTF-8 path");
    let text = run_match(&[
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "2",
        "--variant",
        "basic",
        "--ms-per-turn",
        "20",
        "--jobs",
        "2",
        "--records",
        records,
    ]);
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        5,
        "two games, two totals and the score:\n{text}"
    );
    // Two games at once: they are printed as they end, in either order.
    lines[..2].sort();
    assert!(
        lines[0].starts_with("game 1: A greedy plays white: "),
        "{text}"
    );
    assert!(
        lines[1].starts_with("game 2: A greedy plays black: "),
        "{text}"
    );
    assert!(lines[2].starts_with("A greedy: "), "{text}");
    assert!(lines[3].starts_with("B random: "), "{text}");
    assert!(lines[4].starts_with("A's score "), "{text}");
    assert!(lines[4].contains(" over 2 games: Elo "), "{text}");
    // Every game counts once for each side.
    let counts = |line: &str| -> u32 {
        ["wins", "losses", "draws"]
            .iter()
            .map(|word| {
                let before = line.split(&format!(" {word}")).next().unwrap();
                before.rsplit(' ').next().unwrap().parse::<u32>().unwrap()
            })
            .sum()
    };
    assert_eq!(counts(lines[2]), 2, "{text}");
    assert_eq!(counts(lines[3]), 2, "{text}");
    assert!(lines[2].contains("ms per turn, depth "), "{text}");
    assert!(lines[2].ends_with(" positions/s"), "{text}");
    // Each record replays to a finished game.
    for number in 1..=2 {
        let record = std::fs::read_to_string(dir.join(format!("game-{number}.txt")))
            .expect("the record was written");
        let game = Game::from_record(Variant::Basic, &record).expect("the record replays");
        assert!(game.is_over(), "game {number} ended:\n{record}");
    }
    std::fs::remove_dir_all(&dir).expect("the temporary directory is removed");
}

#[test]
fn a_ms_per_turn_gives_a_alone_more_time() {
    let text = run_match(&[
        "--a",
        "4",
        "--b",
        "4",
        "--games",
        "1",
        "--variant",
        "standard",
        "--opening",
        "0",
        "--max-turns",
        "6",
        "--ms-per-turn",
        "2",
        "--a-ms-per-turn",
        "1500",
    ]);
    // The same level: in 2 ms it gets no further than the static look at the root
    // (depth 1), in 1.5 s it searches replies too, even on a machine busy with other
    // builds (300 ms was not always enough there).
    let depth = |side: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(side)).unwrap();
        let after = line.split(", depth ").nth(1).unwrap();
        after.split(',').next().unwrap().parse().unwrap()
    };
    assert!(depth("A 4: ") >= 2.0, "{text}");
    assert!(depth("B 4: ") < 2.0, "{text}");
}

#[test]
fn match_refuses_an_unknown_level() {
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args([
            "rules",
            "match",
            "--a",
            "9",
            "--b",
            "random",
            "--variant",
            "basic",
        ])
        .output()
        .expect("punct runs");
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("unknown level '9'"), "{error}");
}

#[test]
fn think_answers_a_legal_turn_with_its_effort() {
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["rules", "think", "--variant", "standard", "--level", "3"])
        .args(["--ms", "200", "--record", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"D6:D7,E8\nI13:J13,K14\n")?;
            child.wait_with_output()
        })
        .expect("punct runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("output is UTF-8");
    let words: Vec<&str> = text.split_whitespace().collect();
    let game = Game::from_record(Variant::Standard, "D6:D7,E8\nI13:J13,K14\n").unwrap();
    let turn = words[0].parse().expect("a turn first");
    assert_eq!(game.is_legal(turn), Ok(()), "{text}");
    assert_eq!(words[3], "depth", "{text}");
    assert!(words[4].parse::<u32>().unwrap() >= 1, "{text}");
    assert!(words[6].parse::<u64>().unwrap() > 1, "{text}");
    assert!(text.trim_end().ends_with("nodes/s)"), "{text}");
}

#[test]
fn think_to_a_depth_answers_the_engines_turn_at_that_depth() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.txt");
    std::fs::write(&path, "D6:D7,E8\nI13:J13,K14\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["rules", "think", "--variant", "standard", "--depth", "2"])
        .arg("--record")
        .arg(&path)
        .output()
        .expect("punct runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("output is UTF-8");
    let game = Game::from_record(Variant::Standard, "D6:D7,E8\nI13:J13,K14\n").unwrap();
    let choice = punct_engine::Engine::new(punct_engine::Level::strongest())
        .think(&game, &punct_engine::Limits::depth(2))
        .unwrap();
    assert!(
        text.starts_with(&format!("{} score {} depth 2 ", choice.turn, choice.score)),
        "{text}"
    );
}

#[test]
fn match_plays_another_program_and_stops_once_the_sprt_decides() {
    // Another build of the engine stands in for this one: `punct rules think`, as an
    // earlier build has it, asked for each of B's turns.
    let command = format!(
        "{} rules think --variant basic --record - --level random --ms {{ms}}",
        env!("CARGO_BIN_EXE_punct")
    );
    let text = run_match(&[
        "--a",
        "2",
        "--b-command",
        &command,
        "--games",
        "100",
        "--variant",
        "basic",
        "--ms-per-turn",
        "5",
        "--jobs",
        "2",
        "--elo1",
        "200",
    ]);
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("SPRT elo0 0 elo1 200 alpha 0.05 beta 0.05: LLR "),
        "{text}"
    );
    assert!(last.ends_with("elo1 (200) accepted"), "{text}");
    let games = text.lines().filter(|l| l.starts_with("game ")).count();
    assert!(games < 40, "it stopped early:\n{text}");
    assert!(text.contains(&format!("B `{command}`: ")), "{text}");
}
