//! The PÜNCT engine for the web page: [`punct_engine`] compiled to WebAssembly, run by
//! the page in a Web Worker, so that the analysis board shows the engine's evaluation
//! and line and the page plays against the computer without a server.
//!
//! As with `punct-rules-wasm`, the page speaks to the module in text: it asks [`input`]
//! for a buffer of the request's length, writes the request there as UTF-8, calls
//! [`answer`], and reads that many bytes of JSON at [`output`].
//!
//! A request is four lines: the command, the variant (`standard` or `basic`), the turns
//! played so far in the notation separated by spaces (the line may be empty), and the
//! command's argument. There are two commands:
//!
//! - `think`: the argument is a level (`1` to `5`, `greedy`, `random`) and a limit,
//!   `depth N` (plies; the same answer on every machine) or `ms N` (time, on the host's
//!   clock). The answer is the engine's choice for the side to move:
//!   `{"turn": "C4:C5,D5", "score": 120, "depth": 4, "nodes": 5210,
//!   "line": ["C4:C5,D5", "…"]}`, the score for the side to move, and `"end_in": N`
//!   added when the search found the result forced: the plies to the end, positive
//!   when the side to move wins.
//! - `lines`: the argument is a number of lines (`1` to `5`) and then `think`'s
//!   argument, `3 5 depth 4`. The answer is `{"lines": [choice, …]}`, each choice as
//!   `think` answers it: the engine's own first, then the best other turns
//!   ([`punct_engine::lines`]).
//!
//! Any request that cannot be answered gets `{"error": "…"}`.
//!
//! WebAssembly has no clock: the module imports one, `host.now`, the host's time in
//! milliseconds from any origin (`performance.now()` in a browser), and asks it only
//! for a search limited by time.

use std::fmt::Write;
use std::time::Duration;

use punct_engine::{Choice, Engine, Level, Limits};
use punct_rules::{Game, Variant};

/// The longest search by time a request may ask for.
const LONGEST: Duration = Duration::from_secs(60);

/// The deepest search by depth a request may ask for.
const DEEPEST: u32 = 12;

/// The most lines a `lines` request may ask for.
const MOST_LINES: usize = 5;

/// The answer to one request, as JSON text.
pub fn respond(request: &str) -> String {
    answered(request).unwrap_or_else(|error| format!("{{\"error\":{}}}", quoted(&error)))
}

/// The answer to `request`, or why there is none.
fn answered(request: &str) -> Result<String, String> {
    let mut lines = request.splitn(4, '\n');
    let command = lines.next().unwrap_or_default().trim();
    let variant: Variant = lines.next().unwrap_or_default().trim().parse()?;
    let turns = lines.next().unwrap_or_default();
    let argument = lines.next().unwrap_or_default();
    // A record is one turn a line: the turns line, so split, is one.
    let record = turns.split_whitespace().collect::<Vec<_>>().join("\n");
    let game = Game::from_record(variant, &record).map_err(|e| e.to_string())?;
    match command {
        "think" => {
            let (level, limits) = parse_limits(argument)?;
            let choice = Engine::new(level)
                .think(&game, &limits)
                .ok_or("the game is over")?;
            Ok(choice_json(&choice))
        }
        "lines" => {
            let (count, argument) = argument.trim().split_once(' ').unwrap_or((argument, ""));
            let count: usize = count
                .parse()
                .ok()
                .filter(|n| (1..=MOST_LINES).contains(n))
                .ok_or(format!("a number of lines is 1 to {MOST_LINES}"))?;
            let (level, limits) = parse_limits(argument)?;
            let lines = punct_engine::lines::lines(&Engine::new(level), &game, &limits, count);
            if lines.is_empty() {
                return Err("the game is over".into());
            }
            let lines: Vec<String> = lines.iter().map(choice_json).collect();
            Ok(format!("{{\"lines\":[{}]}}", lines.join(",")))
        }
        _ => Err(format!("unknown command '{command}'")),
    }
}

/// A choice as JSON: `{"turn", "score", "depth", "nodes", "line", "end_in"?}`.
fn choice_json(choice: &Choice) -> String {
    let line: Vec<String> = choice.line.iter().map(|t| quoted(&t.to_string())).collect();
    let mut json = format!(
        "{{\"turn\":\"{}\",\"score\":{},\"depth\":{},\"nodes\":{},\"line\":[{}]",
        choice.turn,
        choice.score,
        choice.depth,
        choice.nodes,
        line.join(",")
    );
    if let Some(plies) = choice.forced_end() {
        write!(json, ",\"end_in\":{plies}").expect("writing to a string");
    }
    json.push('}');
    json
}

/// The level and the limits of a `think` request's argument: `5 depth 4`, `3 ms 500`.
fn parse_limits(argument: &str) -> Result<(Level, Limits), String> {
    let words: Vec<&str> = argument.split_whitespace().collect();
    let [level, kind, amount] = words[..] else {
        return Err(format!(
            "expected a level and a limit ('5 depth 4', '5 ms 500'), not '{}'",
            argument.trim()
        ));
    };
    let level: Level = level.parse().map_err(|e| format!("{e}"))?;
    let amount: u32 = amount
        .parse()
        .map_err(|_| format!("'{amount}' is not a number"))?;
    let limits = match kind {
        "depth" if (1..=DEEPEST).contains(&amount) => Limits::depth(amount),
        "depth" => return Err(format!("a depth is 1 to {DEEPEST} plies")),
        "ms" if amount > 0 => timed(Duration::from_millis(amount.into()).min(LONGEST)),
        _ => return Err(format!("'{kind} {amount}' is not a limit")),
    };
    Ok((level, limits))
}

/// Limits of `budget` from now, on the host's clock.
#[cfg(target_arch = "wasm32")]
fn timed(budget: Duration) -> Limits {
    #[allow(
        unsafe_code,
        reason = "the host's clock is an import, declared `extern`"
    )]
    #[link(wasm_import_module = "host")]
    unsafe extern "C" {
        /// The host's time in milliseconds, from any origin.
        safe fn now() -> f64;
    }
    Limits::within_on(|| now(), budget)
}

/// Limits of `budget` from now: natively, on the system's clock.
#[cfg(not(target_arch = "wasm32"))]
fn timed(budget: Duration) -> Limits {
    Limits::within(budget)
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    let mut json = String::with_capacity(text.len() + 2);
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                write!(json, "\\u{:04x}", u32::from(c)).expect("writing to a string");
            }
            c => json.push(c),
        }
    }
    json.push('"');
    json
}

punct_wasm_text::text_module!(respond);

#[cfg(test)]
mod tests {
    use super::{quoted, respond};

    #[test]
    fn errors_are_json_strings() {
        assert_eq!(quoted("a \"b\" \\ \n"), r#""a \"b\" \\ \u000a""#);
        assert_eq!(
            respond("think\nstandard\n\n5 depth 0"),
            r#"{"error":"a depth is 1 to 12 plies"}"#
        );
        assert!(respond("think\nstandard\nZZ\n5 depth 2").starts_with(r#"{"error":"#));
        assert!(respond("guess\nstandard\n\n5 depth 2").contains("unknown command"));
    }

    #[test]
    fn lines_start_with_the_engines_choice() {
        let think = respond("think\nbasic\nC4:C5,D5\n5 depth 2");
        let lines = respond("lines\nbasic\nC4:C5,D5\n3 5 depth 2");
        assert!(
            lines.starts_with(&format!("{{\"lines\":[{think},{{")),
            "{lines}"
        );
        assert_eq!(lines.matches("\"turn\"").count(), 3, "{lines}");
        assert!(respond("lines\nbasic\n\n9 5 depth 2").contains("a number of lines is 1 to 5"));
    }

    #[test]
    fn a_search_answers_its_turn_first_in_its_line() {
        let answer = respond("think\nbasic\nC4:C5,D5\n5 depth 2");
        let turn = answer.split('"').nth(3).unwrap();
        assert!(
            answer.contains(&format!("\"line\":[\"{turn}\"")),
            "{answer}"
        );
        assert!(answer.contains("\"depth\":2"), "{answer}");
    }
}
