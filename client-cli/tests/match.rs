//! `punct rules match` run as a real process: a short match between fast players.

use std::process::Command;

use punct_rules::{Game, Variant};

#[test]
fn match_prints_each_game_and_the_totals_and_writes_the_records() {
    let dir = std::env::temp_dir().join(format!("punct-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["rules", "match", "--a", "greedy", "--b", "random"])
        .args(["--games", "2", "--variant", "basic", "--ms-per-turn", "20"])
        .arg("--records")
        .arg(&dir)
        .output()
        .expect("punct runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("output is UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "two games and two totals:\n{text}");
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
    assert!(lines[2].ends_with("ms per turn"), "{text}");
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
