//! The interactive app without a terminal: snapshots in, keys in, requests and a
//! rendered screen out. Screens are compared with golden files under `tests/golden/`;
//! `PUNCT_BLESS=1 cargo test -p punct-cli --test app` rewrites them.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use punct_cli::app::{App, Mode};
use punct_cli::net::{NetEvent, Request};
use punct_engine::{Engine, Level};
use punct_protocol::{Reserves, ServerMessage, StackView};
use punct_rules::{Cell, Game, Turn, Variant};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

/// The snapshot a server sends for `game`, as it would arrive on the wire.
fn snapshot(game: &Game, you: &str) -> NetEvent {
    let position = game.position();
    let value = json!({
        "type": "snapshot", "id": 2, "you": you,
        "room": {
            "room": "5f0c2a9d41b7e3c86a12", "seq": game.turns().len() + 2,
            "variant": game.variant(),
            "players": {"white": {"taken": true, "connected": true},
                        "black": {"taken": true, "connected": false}},
            "to_move": game.to_move(),
            "board": StackView::all(position),
            "reserves": Reserves::of(position),
            "turns": game.turns(),
            "outcome": game.outcome(),
            "spectators": 2,
        }
    });
    let message: ServerMessage = serde_json::from_value(value).expect("a snapshot");
    NetEvent::Message(message)
}

/// An app in the room of `game`.
fn app_for(game: &Game, you: &str) -> App {
    let mut app = App::new();
    app.on_net(&NetEvent::Connected);
    app.on_net(&snapshot(game, you));
    app
}

/// A game between greedy engines, played until `stop` says so. Not the same on every run:
/// not for golden screens.
fn greedy_game(variant: Variant, stop: impl Fn(&Game) -> bool) -> Game {
    let engine = Engine::with_seed(Level::Greedy, 11);
    let mut game = Game::new(variant);
    while !stop(&game) {
        assert!(
            !game.is_over() && game.turns().len() < 400,
            "no such position arose"
        );
        let turn = engine
            .choose(&game, Duration::from_millis(5))
            .expect("a turn");
        game.play(turn).expect("legal");
    }
    game
}

/// The screen as text, one line per row.
fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(110, 42)).expect("terminal");
    terminal
        .draw(|frame| punct_cli::ui::render(app, frame))
        .expect("drawn");
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect();
            line.trim_end().to_owned() + "\n"
        })
        .collect()
}

fn assert_golden(name: &str, actual: &str) {
    let path = format!("{}/tests/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("PUNCT_BLESS").is_some() {
        std::fs::write(&path, actual).expect("golden written");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (PUNCT_BLESS=1 writes it)"));
    assert_eq!(actual, expected, "{name} differs from {path}");
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Presses keys in order, returning the requests they made.
fn press(app: &mut App, keys: &[KeyCode]) -> Vec<Request> {
    keys.iter().filter_map(|&k| app.on_key(key(k))).collect()
}

/// The keys that jump the cursor to `cell`.
fn goto(cell: Cell) -> Vec<KeyCode> {
    let mut keys = vec![KeyCode::Char('g')];
    keys.extend(cell.to_string().chars().map(KeyCode::Char));
    keys.push(KeyCode::Enter);
    keys
}

/// Picks `turn` with the keyboard: its piece (a reserve kind key, or Enter on the piece),
/// its destination, then `r` until the shown turn is it. Returns the rotations needed.
fn pick(app: &mut App, turn: Turn, source: Vec<KeyCode>) -> (usize, Vec<Request>) {
    let (to, requests) = match turn {
        Turn::Drop { punct, .. } => (punct, press(app, &source)),
        Turn::Move { from, to, .. } => {
            let mut keys = goto(from);
            keys.push(KeyCode::Enter);
            (to, press(app, &keys))
        }
        Turn::Pass => panic!("not picked"),
    };
    assert!(requests.is_empty());
    assert!(app.destinations().contains(&to), "{to} is highlighted");
    let mut keys = goto(to);
    keys.push(KeyCode::Enter);
    assert!(press(app, &keys).is_empty());
    let mut rotations = 0;
    while app.preview() != Some(turn) {
        rotations += 1;
        assert!(rotations < 40, "{turn} never shown");
        assert!(press(app, &[KeyCode::Char('r')]).is_empty());
    }
    (rotations, press(app, &[KeyCode::Enter]))
}

#[test]
fn the_opening_screen() {
    let app = app_for(&Game::new(Variant::Standard), "white");
    assert_golden("opening", &screen(&app));
}

#[test]
fn a_stacked_mid_game_with_a_bridge() {
    let stacked = |g: &Game| {
        let p = g.position();
        p.pieces().any(|(id, _)| p.is_bridge(id)) && Cell::all().any(|c| p.height(c) >= 2)
    };
    // Play spread over the board by a fixed stride through the legal turns; any turn
    // that stacks and bridges, else one that builds higher, is taken at once.
    let mut game = Game::new(Variant::Standard);
    while !stacked(&game) {
        assert!(
            !game.is_over(),
            "no stacked position arose: {:?} after {}",
            game.outcome(),
            game.turns().len()
        );
        let legal = game.legal_turns();
        let after = |t: Turn| {
            let mut g = game.clone();
            g.play(t).expect("legal");
            g
        };
        let top = |g: &Game| {
            Cell::all()
                .map(|c| g.position().height(c))
                .max()
                .unwrap_or(0)
        };
        let jump = legal.iter().copied().find(|&t| top(&after(t)) > top(&game));
        let turn = legal
            .iter()
            .copied()
            .find(|&t| stacked(&after(t)))
            .or(jump)
            .unwrap_or(legal[(game.turns().len() * 7919) % legal.len()]);
        game.play(turn).expect("legal");
    }
    let mut app = app_for(&game, "spectator");
    // Inspect a stack: the panel lists every dot of the cursor's cell, top first.
    let p = game.position();
    let tallest = Cell::all().max_by_key(|&c| p.height(c)).expect("cells");
    press(&mut app, &goto(tallest));
    let text = screen(&app);
    assert!(text.contains(&format!("stack at {tallest}, top first:")));
    for dot in p.stack(tallest) {
        assert!(text.contains(&format!(
            "level {}: {} {}",
            dot.level,
            dot.piece.color(),
            dot.piece.kind().name()
        )));
    }
    assert_golden("mid-game", &text);
}

#[test]
fn a_finished_game() {
    // A fixed stride through the legal turns: the same game on every run, so the golden
    // file holds (the engine varies its choices between runs).
    let mut game = Game::new(Variant::Standard);
    while !game.is_over() {
        assert!(game.turns().len() < 1000, "the game did not end");
        let legal = game.legal_turns();
        game.play(legal[(game.turns().len() * 7919) % legal.len()])
            .expect("legal");
    }
    let app = app_for(&game, "black");
    let text = screen(&app);
    assert!(text.contains(&format!("game over: {}", game.outcome().expect("over"))));
    assert_golden("finished", &text);
}

#[test]
fn a_drop_picked_with_the_keyboard_and_one_typed() {
    let game = Game::new(Variant::Standard);
    let mut app = app_for(&game, "white");
    let turn: Turn = "C4:C5,D5".parse().expect("notation");
    // 6 is the triangle, the sixth kind of the reserve list.
    let (_, sent) = pick(&mut app, turn, vec![KeyCode::Char('6')]);
    assert_eq!(sent, [Request::Play(turn)]);
    assert_eq!(app.mode, Mode::Board);

    // Typed: Tab completes as far as the legal turns agree; an illegal turn is refused.
    press(&mut app, &[KeyCode::Char('t')]);
    press(
        &mut app,
        &"i9:i10,j10".chars().map(KeyCode::Char).collect::<Vec<_>>(),
    );
    assert!(press(&mut app, &[KeyCode::Enter]).is_empty());
    assert!(app.status.starts_with("illegal:"), "{}", app.status);
    assert!(screen(&app).contains("turn> I9:I10,J10   illegal:"));
    press(
        &mut app,
        &[
            KeyCode::Esc,
            KeyCode::Char('t'),
            KeyCode::Char('c'),
            KeyCode::Char('4'),
            KeyCode::Char(':'),
        ],
    );
    assert!(screen(&app).contains("legal turns start so"));
    let typed = "C5,D5".chars().map(KeyCode::Char).chain([KeyCode::Enter]);
    assert_eq!(
        press(&mut app, &typed.collect::<Vec<_>>()),
        [Request::Play("C4:C5,D5".parse().expect("notation"))]
    );
}

#[test]
fn a_move_with_rotation_and_a_jump_picked_with_the_keyboard() {
    // The first position where the side to move can both move a piece into a rotation
    // other than the first shown, and jump onto a stack.
    let options = |g: &Game| -> Option<(Turn, Turn)> {
        let legal = g.legal_turns();
        let moves: Vec<Turn> = legal
            .iter()
            .copied()
            .filter(|t| matches!(t, Turn::Move { .. }))
            .collect();
        let jump = moves
            .iter()
            .copied()
            .find(|t| matches!(t, Turn::Move { to, .. } if g.position().height(*to) > 0))?;
        let rotated = moves.iter().copied().find(|&t| {
            let Turn::Move { from, to, .. } = t else {
                return false;
            };
            moves
                .iter()
                .filter(
                    |m| matches!(m, Turn::Move { from: f, to: d, .. } if (*f, *d) == (from, to)),
                )
                .count()
                > 1
                && moves.iter().find(
                    |m| matches!(m, Turn::Move { from: f, to: d, .. } if (*f, *d) == (from, to)),
                ) != Some(&t)
                && g.position().height(to) == 0
        })?;
        Some((rotated, jump))
    };
    let game = greedy_game(Variant::Standard, |g| options(g).is_some());
    let (rotated, jump) = options(&game).expect("found");
    let you = game.to_move().to_string();

    let mut app = app_for(&game, &you);
    let (rotations, sent) = pick(&mut app, rotated, Vec::new());
    assert!(rotations >= 1, "the move needed a rotation");
    assert_eq!(sent, [Request::Play(rotated)]);

    let mut app = app_for(&game, &you);
    let (_, sent) = pick(&mut app, jump, Vec::new());
    assert_eq!(sent, [Request::Play(jump)]);

    // Once the turn comes back from the server the board shows it.
    let Turn::Move { to, .. } = jump else {
        unreachable!()
    };
    let mut after = game.clone();
    after.play(jump).expect("legal");
    let played = json!({"type": "turn_played", "seq": 99, "turn": jump, "by": game.to_move(),
                        "number": after.turns().len(), "to_move": after.to_move()});
    app.on_net(&NetEvent::Message(
        serde_json::from_value(played).expect("an event"),
    ));
    let session = app.session().expect("room");
    assert_eq!(
        session.game.position().height(to),
        after.position().height(to)
    );
    assert!(!session.my_turn());
    assert!(screen(&app).contains(&format!("{:>4}. {jump}", after.turns().len())));
}
