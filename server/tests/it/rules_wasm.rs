//! The page's rules engine, as the browser gets it: the WebAssembly module the server
//! serves, run here by an interpreter, answers exactly what the server's rules do on
//! every position of the rules' test records.

use std::path::Path;
use std::time::Instant;

use punct_protocol::PositionView;
use punct_rules::{Game, Turn, Variant};
use punct_testing::TestServer;
use serde_json::{Value, json};
use wasmi::{Engine, Instance, Linker, Memory, Module, Store, TypedFunc};

/// A module spoken to in text (the page's rules or engine), instantiated, and its three
/// exports.
pub(crate) struct TextModule {
    store: Store<()>,
    memory: Memory,
    input: TypedFunc<i32, i32>,
    answer: TypedFunc<(), i32>,
    output: TypedFunc<(), i32>,
}

impl TextModule {
    pub(crate) fn new(bytes: &[u8]) -> TextModule {
        let engine = Engine::default();
        let module = Module::new(&engine, bytes).expect("the module reads");
        let mut store = Store::new(&engine, ());
        // The rules import nothing; the engine imports the page's clock, which it asks
        // only for a search limited by time.
        let mut linker = Linker::<()>::new(&engine);
        let origin = Instant::now();
        linker
            .func_wrap("host", "now", move || {
                origin.elapsed().as_secs_f64() * 1000.0
            })
            .expect("the clock links");
        let instance: Instance = linker
            .instantiate_and_start(&mut store, &module)
            .expect("the module starts with the page's imports");
        TextModule {
            memory: instance.get_memory(&store, "memory").expect("memory"),
            input: instance.get_typed_func(&store, "input").expect("input"),
            answer: instance.get_typed_func(&store, "answer").expect("answer"),
            output: instance.get_typed_func(&store, "output").expect("output"),
            store,
        }
    }

    /// Asks as the page does (rules-wasm/src/lib.rs): the request written at `input`,
    /// the answer read at `output`.
    pub(crate) fn ask(
        &mut self,
        command: &str,
        variant: Variant,
        turns: &[Turn],
        argument: &str,
    ) -> Value {
        let turns: Vec<String> = turns.iter().map(ToString::to_string).collect();
        let request = format!("{command}\n{variant}\n{}\n{argument}", turns.join(" "));
        let at = self
            .input
            .call(&mut self.store, request.len() as i32)
            .unwrap();
        self.memory
            .write(&mut self.store, at as usize, request.as_bytes())
            .unwrap();
        let len = self.answer.call(&mut self.store, ()).unwrap() as usize;
        let at = self.output.call(&mut self.store, ()).unwrap() as usize;
        let mut answer = vec![0; len];
        self.memory.read(&self.store, at, &mut answer).unwrap();
        serde_json::from_slice(&answer).expect("the answer is JSON")
    }
}

/// Module `name`'s bytes as the server sends them to a browser.
pub(crate) async fn served_bytes(name: &str) -> Vec<u8> {
    let server = TestServer::start().await;
    let response = reqwest::get(format!("http://{}/assets/{name}", server.addr))
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        200,
        "the server was built with the module"
    );
    assert_eq!(response.headers()["content-type"], "application/wasm");
    response.bytes().await.unwrap().to_vec()
}

/// The module as the server sends it to a browser, started.
async fn served_module() -> TextModule {
    TextModule::new(&served_bytes("rules.wasm").await)
}

/// Every record of the rules' tests, with its variant.
pub(crate) fn records() -> Vec<(String, Variant, Vec<Turn>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/records");
    let mut records: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let variant = if text.contains("basic game") {
                Variant::Basic
            } else {
                Variant::Standard
            };
            let game = Game::from_record(variant, &text).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, variant, game.turns().to_vec())
        })
        .collect();
    records.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(records.len() >= 7, "the records are there");
    records
}

/// The legal turns are compared at every `LEGAL_EVERY`th position of a record, and at its
/// last: the interpreted module lists them slowly (each question replays the record from
/// its start), and every kind of position is met in a record many times over.
const LEGAL_EVERY: usize = 3;

#[tokio::test]
async fn the_module_finds_the_servers_legal_turns_and_positions_on_every_record() {
    let bytes = served_bytes("rules.wasm").await;
    // A module per record, each on a thread of its own: the interpreter is slow.
    let positions: usize = std::thread::scope(|scope| {
        let checks: Vec<_> = records()
            .into_iter()
            .map(|(name, variant, turns)| {
                let bytes = &bytes;
                scope.spawn(move || {
                    check_record(&mut TextModule::new(bytes), &name, variant, &turns)
                })
            })
            .collect();
        checks.into_iter().map(|check| check.join().unwrap()).sum()
    });
    assert!(positions > 300, "{positions} positions");
}

/// Checks the module against the rules on every position of one record (the legal
/// turns on every `LEGAL_EVERY`th and the last); answers how many positions there were.
fn check_record(module: &mut TextModule, name: &str, variant: Variant, turns: &[Turn]) -> usize {
    let mut game = Game::new(variant);
    for n in 0..=turns.len() {
        if n % LEGAL_EVERY == 0 || n == turns.len() {
            let legal: Vec<String> = game.legal_turns().iter().map(ToString::to_string).collect();
            assert_eq!(
                module.ask("legal", variant, &turns[..n], ""),
                json!(legal),
                "{name} after {n} turns"
            );
        }
        let position = module.ask("position", variant, &turns[..n], "");
        let expected = serde_json::to_value(PositionView::of(&game)).unwrap();
        for field in ["after", "to_move", "board", "reserves"] {
            assert_eq!(
                position[field], expected[field],
                "{name} after {n}: {field}"
            );
        }
        assert_eq!(
            position["outcome"],
            json!(game.outcome()),
            "{name} after {n}"
        );
        if let Some(&turn) = turns.get(n) {
            game.play(turn).unwrap();
        }
    }
    turns.len() + 1
}

#[tokio::test]
async fn the_module_says_why_a_turn_is_refused_in_the_servers_words() {
    let mut module = served_module().await;
    let mut game = Game::new(Variant::Standard);
    let opening: Turn = "C4:C5,D5".parse().unwrap();
    // Lower case and minors in any order are the same turn, answered canonical.
    assert_eq!(
        module.ask("check", Variant::Standard, &[], "c4:d5,c5"),
        json!({ "turn": "C4:C5,D5" })
    );
    game.play(opening).unwrap();
    for typed in ["C4:C5,D5", "I9:I10,J10", "C4-C6:C7,D7", "Z1:Z2,Z3", "drop"] {
        let expected = match typed.parse::<Turn>() {
            // A turn the rules refuse comes with the rule and its values, as the
            // server's `error` has them.
            Ok(turn) => {
                let illegal = game.is_legal(turn).unwrap_err();
                let args: serde_json::Map<_, _> = illegal
                    .args()
                    .into_iter()
                    .map(|(name, value)| (name.to_owned(), value.into()))
                    .collect();
                json!({ "why": illegal.to_string(), "rule": illegal.code(), "args": args })
            }
            Err(e) => json!({ "why": e.to_string() }),
        };
        assert_eq!(
            module.ask("check", Variant::Standard, &[opening], typed),
            expected,
            "{typed}"
        );
    }
    // The drop into the centre names its cell.
    assert_eq!(
        module.ask("check", Variant::Standard, &[opening], "I9:I10,J10")["args"],
        json!({ "cell": "I9" })
    );
}

#[tokio::test]
async fn the_module_reads_records_shows_the_winning_chain_and_refuses_bad_requests() {
    let mut module = served_module().await;
    let record = "# PÜNCT, standard game\nc4:c5,d5\n\nJ14:J15,K15\n";
    assert_eq!(
        module.ask("record", Variant::Standard, &[], record),
        json!({ "turns": ["C4:C5,D5", "J14:J15,K15"] })
    );
    let opening = Game::from_record(Variant::Standard, record).unwrap();
    assert_eq!(
        module.ask("export", Variant::Standard, opening.turns(), ""),
        json!({ "record": opening.record() })
    );
    let bad = module.ask("record", Variant::Standard, &[], "C4:C5,D5\nC4:C5,D5\n");
    assert!(bad["error"].as_str().unwrap().contains("line 2"), "{bad}");

    let turns = crate::games::white_connects(Variant::Standard);
    let end = module.ask("position", Variant::Standard, &turns, "");
    assert_eq!(
        end["outcome"],
        json!({"result": "win", "winner": "white", "reason": "connection"})
    );
    let chain = &end["chain"];
    assert_eq!(chain["color"], "white");
    let cells = chain["cells"].as_array().unwrap();
    let sides = chain["sides"].as_array().unwrap();
    assert!(sides[0].as_array().unwrap().contains(&cells[0]), "{chain}");
    assert!(
        sides[1].as_array().unwrap().contains(cells.last().unwrap()),
        "{chain}"
    );
    let before = module.ask("position", Variant::Standard, &turns[..turns.len() - 1], "");
    assert!(before.get("chain").is_none() && before.get("outcome").is_none());

    let illegal = module.ask("legal", Variant::Standard, &[turns[0], turns[0]], "");
    assert!(
        illegal["error"].as_str().unwrap().starts_with("turn 2"),
        "{illegal}"
    );
    let unknown = module.ask("perft", Variant::Standard, &[], "");
    assert_eq!(unknown, json!({ "error": "unknown command 'perft'" }));
    // Only the standard game keeps Black's first drop out of the centre too.
    let first = [turns[0]];
    let basic = module.ask("legal", Variant::Basic, &first, "");
    let standard = module.ask("legal", Variant::Standard, &first, "");
    let count = |v: &Value| v.as_array().unwrap().len();
    assert!(
        count(&standard) < count(&basic),
        "{} {}",
        count(&standard),
        count(&basic)
    );
}
