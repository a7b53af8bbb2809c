//! The PÜNCT rules engine for the web page: [`punct_rules`] compiled to WebAssembly, so
//! that the page finds legal turns, positions and the reasons a turn is refused with the
//! very code the server runs, instead of asking the server after every turn.
//!
//! There are no bindings to generate: the page speaks to the module in text. It asks
//! [`input`] for a buffer of the request's length, writes the request there as UTF-8,
//! calls [`answer`], and reads that many bytes of JSON at [`output`].
//!
//! A request is lines: the command, the variant (`standard` or `basic`), the turns
//! played so far in the notation separated by spaces (the line may be empty), and then
//! the command's argument, which may span lines:
//!
//! - `legal`: the legal turns of the position, canonical, as an array of strings.
//! - `check`: whether the argument is a legal turn here: `{"turn": "C4:C5,D5"}` in
//!   canonical notation, or `{"why": "…"}` saying what is wrong with it, in English;
//!   for a turn the rules refuse also its `rule` and `args`, as the server's `error`
//!   gives them (protocol/PROTOCOL.md), for the page to say it in its reader's words.
//! - `position`: the position as the server's `GET /api/rooms/{id}/position/{after}`
//!   gives it, with the `outcome` once the game is over and, after a win by
//!   connection, the winner's `chain` (its cells in order and the cells of the two
//!   sides it joins).
//! - `record`: reads the argument as a record (one turn per line, `#` comments) and
//!   answers its `turns`, canonical; the turns line is ignored.
//! - `export`: the record of the turns, as `punct rules` and the server write it:
//!   `{"record": "…"}`.
//!
//! Any request that cannot be answered gets `{"error": "…"}`.

use punct_protocol::PositionView;
use punct_rules::{Chain, Color, Game, Outcome, Turn, Variant, WinReason};
use serde::Serialize;
use serde_json::json;

/// The answer to one request, as JSON text.
pub fn respond(request: &str) -> String {
    let answer = match answered(request) {
        Ok(answer) => answer,
        Err(error) => json!({ "error": error }),
    };
    answer.to_string()
}

/// The answer to `request`, or why there is none.
fn answered(request: &str) -> Result<serde_json::Value, String> {
    let mut lines = request.splitn(4, '\n');
    let command = lines.next().unwrap_or_default().trim();
    let variant: Variant = lines.next().unwrap_or_default().trim().parse()?;
    let turns = lines.next().unwrap_or_default();
    let argument = lines.next().unwrap_or_default();
    if command == "record" {
        let game = Game::from_record(variant, argument).map_err(|e| e.to_string())?;
        return Ok(json!({ "turns": game.turns() }));
    }
    let game = replay(variant, turns)?;
    Ok(match command {
        "legal" => json!(game.legal_turns()),
        "check" => match argument.trim().parse::<Turn>() {
            Err(e) => json!({ "why": e.to_string() }),
            Ok(turn) => match game.is_legal(turn) {
                Ok(()) => json!({ "turn": turn.canonical() }),
                Err(illegal) => {
                    let args: serde_json::Map<String, serde_json::Value> = illegal
                        .args()
                        .into_iter()
                        .map(|(name, value)| (name.to_owned(), value.into()))
                        .collect();
                    json!({ "why": illegal.to_string(), "rule": illegal.code(), "args": args })
                }
            },
        },
        "position" => serde_json::to_value(Analysis::of(&game)).map_err(|e| e.to_string())?,
        "export" => json!({ "record": game.record() }),
        other => return Err(format!("unknown command '{other}'")),
    })
}

/// The game after `turns` (notation, separated by white space).
fn replay(variant: Variant, turns: &str) -> Result<Game, String> {
    let turns = turns
        .split_whitespace()
        .enumerate()
        .map(|(index, text)| {
            text.parse::<Turn>()
                .map_err(|e| format!("turn {} ({text}): {e}", index + 1))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Game::replay(variant, &turns).map_err(|e| e.to_string())
}

/// A position with what the page draws at the end of a game.
#[derive(Serialize)]
struct Analysis {
    /// The board and reserves.
    #[serde(flatten)]
    position: PositionView,
    /// The result, once the game is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
    /// After a win by connection, the chain that won.
    #[serde(skip_serializing_if = "Option::is_none")]
    chain: Option<ChainView>,
}

impl Analysis {
    fn of(game: &Game) -> Analysis {
        let outcome = game.outcome();
        let chain = match outcome {
            Some(Outcome::Win {
                winner,
                reason: WinReason::Connection,
            }) => game
                .position()
                .winning_chain(winner)
                .map(|chain| ChainView::new(winner, chain)),
            _ => None,
        };
        Analysis {
            position: PositionView::of(game),
            outcome,
            chain,
        }
    }
}

/// A winning chain as the page highlights it.
#[derive(Serialize)]
struct ChainView {
    /// Whose chain.
    color: Color,
    /// Its cells, from one side to the other.
    cells: Vec<String>,
    /// The cells of the two sides it joins.
    sides: [Vec<String>; 2],
}

impl ChainView {
    fn new(color: Color, chain: Chain) -> ChainView {
        let names = |cells: &mut dyn Iterator<Item = punct_rules::Cell>| {
            cells.map(|c| c.to_string()).collect::<Vec<_>>()
        };
        ChainView {
            color,
            cells: names(&mut chain.cells.into_iter()),
            sides: chain.sides.map(|side| names(&mut side.cells().into_iter())),
        }
    }
}

punct_wasm_text::text_module!(respond);
