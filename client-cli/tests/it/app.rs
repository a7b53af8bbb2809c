//! The interactive app without a terminal: snapshots in, keys in, requests and a
//! rendered screen out. Screens are compared with golden files under `tests/golden/`;
//! `PUNCT_BLESS=1 cargo test -p punct-cli --test it app::` rewrites them.

use std::collections::BTreeSet;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use punct_cli::app::{App, Mode};
use punct_cli::board::{COMPACT, FULL, Geometry};
use punct_cli::lobby::{Action as LobbyAction, Lobby};
use punct_client::{NetEvent, Request};
use punct_engine::{Engine, Level};
use punct_protocol::Action;
use punct_protocol::{
    CreateRoom, Reserves, RoomSummary, SeatChoice, ServerMessage, StackView, TimeControl,
    Visibility,
};
use punct_rules::{Cell, Color, Game, Kind, Turn, Variant, cell_symbol};
use ratatui::buffer::Buffer;
use ratatui::style::{Color as RatatuiColor, Modifier};
use serde_json::{Value, json};

use crate::common::{buffer_at, drawn, drawn_at, screen, screen_at};

/// The snapshot a server sends for `game`, as it would arrive on the wire.
fn snapshot(game: &Game, you: &str) -> NetEvent {
    snapshot_with(game, you, json!({}))
}

/// The snapshot of `game` with further fields of the room (clocks, rematch).
fn snapshot_with(game: &Game, you: &str, room: Value) -> NetEvent {
    let position = game.position();
    let mut value = json!({
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
    for (field, v) in room.as_object().expect("fields") {
        value["room"][field] = v.clone();
    }
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

/// The lobby's screen as text.
fn lobby_screen(lobby: &Lobby) -> String {
    drawn(|frame| punct_cli::ui::render_lobby(lobby, frame))
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

/// The first game, of a fixed stride through the legal turns, that has a stack and a
/// bridge: the same on every run.
fn stacked_game() -> Game {
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
    game
}

#[test]
fn a_stacked_mid_game_with_a_bridge() {
    let game = stacked_game();
    let mut app = app_for(&game, "spectator");
    // Inspect a stack: the panel lists every dot of the cursor's cell, top first, with
    // the cells of its piece, so that a covered piece can be found on the board.
    let p = game.position();
    let deepest = Cell::all()
        .max_by_key(|&c| p.stack(c).len())
        .expect("cells");
    press(&mut app, &goto(deepest));
    let text = screen(&app);
    assert!(text.contains(&format!("stack at {deepest}, by level, top first:")));
    let stack = p.stack(deepest);
    assert!(stack.len() >= 2, "a covered dot");
    for dot in stack {
        let placement = p.placed(dot.piece).expect("in play").placement;
        let piece = Turn::Drop {
            punct: placement.punct(),
            minors: placement.minors(),
        };
        let what = if dot.is_punct { "PÜNCT" } else { "minor" };
        let line = format!(
            "{:>3} {:<5} {what} {piece:<11} ",
            dot.level,
            dot.piece.color()
        );
        assert!(text.contains(&line), "{line:?} in\n{text}");
    }
    // The words of a line are not the kinds' names run together with the dot's.
    assert!(
        !text.contains("PÜNCT PÜNCT") && !text.contains("PÜNCT dot"),
        "{text}"
    );
    assert_golden("mid-game", &text);
}

#[test]
fn the_stack_view_shows_the_gap_under_a_bridge() {
    let game = stacked_game();
    let p = game.position();
    // A bridge whose middle dot is on top.
    let (bridge, gap) = p
        .pieces()
        .find_map(|(id, _)| {
            let gap = p.bridge_gap(id)?;
            (p.top(gap)?.piece == id).then_some((id, gap))
        })
        .expect("a bridge");
    let mut app = app_for(&game, "white");
    press(&mut app, &goto(gap));
    let text = screen(&app);
    let middle = p.stack(gap)[0];
    assert!(
        text.contains(&format!("{:>3} {:<5} minor", middle.level, bridge.color())),
        "{text}"
    );
    assert!(text.contains("(a gap: under a bridge)"), "{text}");
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
    // Numbered, so that it is safe to send again: the first turn of the game.
    let first = Some(1);
    assert_eq!(
        sent,
        [Request::from(Action::Play {
            turn,
            number: first
        })]
    );
    assert_eq!(app.mode, Mode::Board);

    // Typed: Tab completes as far as the legal turns agree; an illegal turn is refused.
    press(&mut app, &[KeyCode::Char('t')]);
    press(
        &mut app,
        &"i9:i10,j10".chars().map(KeyCode::Char).collect::<Vec<_>>(),
    );
    assert!(press(&mut app, &[KeyCode::Enter]).is_empty());
    // Refused, the line is cleared: the reason stays, and `t` starts a turn afresh.
    assert_eq!(app.mode, Mode::Board);
    assert!(
        app.status.starts_with("I9:I10,J10: illegal:"),
        "{}",
        app.status
    );
    assert!(screen(&app).contains("I9:I10,J10: illegal: drop touches the central hexagon"));
    press(
        &mut app,
        &[
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
        [Request::from(Action::Play {
            turn: "C4:C5,D5".parse().expect("notation"),
            number: first,
        })]
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
    let number = u32::try_from(game.turns().len() + 1).ok();
    assert_eq!(
        sent,
        [Request::from(Action::Play {
            turn: rotated,
            number
        })]
    );

    let mut app = app_for(&game, &you);
    let (_, sent) = pick(&mut app, jump, Vec::new());
    assert_eq!(sent, [Request::from(Action::Play { turn: jump, number })]);

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

/// A room event as it arrives on the wire.
fn event(value: Value) -> NetEvent {
    NetEvent::Message(serde_json::from_value(value).expect("an event"))
}

#[test]
fn the_lobby_lists_rooms_and_joins_watches_or_creates_one() {
    let rooms = json!([
        {"room": "a1a1a1a1a1a1a1a1a1a1", "variant": "standard", "visibility": "public",
         "status": "open", "turns": 0, "spectators": 0, "to_move": "white",
         "players": {"white": {"taken": true, "connected": true},
                     "black": {"taken": false, "connected": false}}},
        {"room": "b2b2b2b2b2b2b2b2b2b2", "variant": "basic", "visibility": "public",
         "status": "live", "turns": 17, "spectators": 3, "to_move": "black",
         "players": {"white": {"taken": true, "connected": true},
                     "black": {"taken": true, "connected": false}}},
    ]);
    let mut lobby = Lobby::default();
    lobby.set_rooms(serde_json::from_value(rooms).expect("summaries"));
    let text = lobby_screen(&lobby);
    assert!(
        text.contains("> a1a1a1a1 standard open      0        0  white online, black free"),
        "{text}"
    );
    assert!(
        text.contains("  b2b2b2b2 basic    live     17        3  white online, black away"),
        "{text}"
    );

    // Down selects the live room: Enter joins it, w watches it, r fetches the list again.
    assert_eq!(lobby.on_key(key(KeyCode::Down)), None);
    assert!(lobby_screen(&lobby).contains("> b2b2b2b2 basic"));
    let id = "b2b2b2b2b2b2b2b2b2b2".to_owned();
    assert_eq!(
        lobby.on_key(key(KeyCode::Enter)),
        Some(LobbyAction::Join(id.clone()))
    );
    assert_eq!(
        lobby.on_key(key(KeyCode::Char('w'))),
        Some(LobbyAction::Watch(id))
    );
    assert_eq!(
        lobby.on_key(key(KeyCode::Char('r'))),
        Some(LobbyAction::Refresh)
    );
    // A fresh list keeps the selected room selected, wherever it went.
    let mut reordered = lobby.rooms.clone();
    reordered.reverse();
    lobby.set_rooms(reordered);
    assert_eq!(lobby.selected_room(), Some("b2b2b2b2b2b2b2b2b2b2"));

    // The form: basic, Black, a clock of 5 minutes plus 2 seconds.
    assert_eq!(lobby.on_key(key(KeyCode::Char('c'))), None);
    let mut keys = vec![KeyCode::Right, KeyCode::Down, KeyCode::Left, KeyCode::Down];
    keys.extend("5m+2x".chars().map(KeyCode::Char));
    for k in keys {
        assert_eq!(lobby.on_key(key(k)), None);
    }
    let text = lobby_screen(&lobby);
    assert!(text.contains("  variant:  basic"), "{text}");
    assert!(text.contains("  colour:   black"), "{text}");
    assert!(text.contains("> clock:    5m+2x"), "{text}");
    // A clock that does not read is refused on the status line, the form kept.
    assert_eq!(lobby.on_key(key(KeyCode::Enter)), None);
    assert!(lobby_screen(&lobby).contains("'5m+2x': not a time"));
    lobby.on_key(key(KeyCode::Backspace));
    lobby.on_key(key(KeyCode::Char('s')));
    assert_eq!(
        lobby.on_key(key(KeyCode::Enter)),
        Some(LobbyAction::Create(CreateRoom {
            variant: Variant::Basic,
            color: SeatChoice::Black,
            visibility: Visibility::Public,
            clock: Some(TimeControl::clock(300, 2)),
            computer: None,
            ..CreateRoom::default()
        }))
    );

    // Esc closes the form; q leaves the lobby.
    lobby.on_key(key(KeyCode::Char('c')));
    lobby.on_key(key(KeyCode::Esc));
    assert_eq!(lobby.form, None);
    assert!(!lobby.quit);
    lobby.on_key(key(KeyCode::Char('q')));
    assert!(lobby.quit);
}

/// The panel's line for `color`'s seat.
#[test]
fn the_lobby_fits_eighty_columns_with_short_ids_and_names_cut() {
    let rooms = json!([
        {"room": "01a23441-72df-7043-a7ad-e5129882ecb7", "variant": "standard",
         "visibility": "public", "status": "live", "turns": 12, "spectators": 4,
         "to_move": "white",
         "players": {"white": {"taken": true, "connected": true, "name": "Maximiliane_Longname"},
                     "black": {"taken": true, "connected": false, "name": "Bartholomew_Extra"}}},
    ]);
    let mut lobby = Lobby::default();
    lobby.set_rooms(serde_json::from_value(rooms).expect("summaries"));
    let text = drawn_at(80, 24, |frame| punct_cli::ui::render_lobby(&lobby, frame));
    assert!(
        text.lines().all(|line| line.chars().count() <= 80),
        "{text}"
    );
    assert!(
        text.contains(
            "> 9882ecb7 standard live     12        4  Maximiliane_Longname (white, online…"
        ),
        "the room by its id's end, the names cut with an ellipsis: {text}"
    );
    assert!(!text.contains("01a23441"), "{text}");
}

fn seat_line(text: &str, color: Color) -> String {
    let start = format!("{color:<5}: ");
    text.lines()
        .find_map(|l| {
            l.find(&start)
                .map(|i| l[i..].trim_end_matches('│').trim_end().to_owned())
        })
        .expect("a seat line")
}

#[test]
fn clocks_show_and_the_running_one_counts_down_between_updates() {
    let mut game = Game::new(Variant::Standard);
    let clock = json!({"white_ms": 300_000, "black_ms": 65_400, "running": "black",
                       "increment_ms": 2000});
    let turn = game.legal_turns()[0];
    game.play(turn).expect("legal");
    let mut app = App::new();
    app.on_net(&NetEvent::Connected);
    app.on_net(&snapshot_with(&game, "white", json!({ "clock": clock })));
    let text = screen(&app);
    assert_eq!(seat_line(&text, Color::White), "white: online     5:00");
    assert_eq!(seat_line(&text, Color::Black), "black: away       1:05 ◀");
    assert!(text.contains("clocks: +2s a turn"));

    // Only the running clock counts down, by the time since the server's word.
    app.now += Duration::from_millis(56_000);
    let text = screen(&app);
    assert_eq!(seat_line(&text, Color::White), "white: online     5:00");
    assert_eq!(seat_line(&text, Color::Black), "black: away       0:09.4 ◀");

    // A turn brings fresh clocks, counted from their arrival.
    let reply = game.legal_turns()[0];
    game.play(reply).expect("legal");
    app.on_net(&event(json!({
        "type": "turn_played", "seq": 9, "turn": reply, "by": "black", "number": 2,
        "to_move": "white",
        "clock": {"white_ms": 300_000, "black_ms": 11_400, "running": "white",
                  "increment_ms": 2000}})));
    app.now += Duration::from_millis(1_000);
    assert_eq!(app.clock_left(Color::White), Some(299_000));
    assert_eq!(app.clock_left(Color::Black), Some(11_400));
    assert_eq!(
        seat_line(&screen(&app), Color::White),
        "white: online     4:59 ◀"
    );

    // At the end of the game both stop where they stood.
    app.now += Duration::from_millis(500);
    app.on_net(&event(json!({"type": "game_over", "seq": 10,
        "outcome": {"result": "draw", "reason": "agreement"}})));
    app.now += Duration::from_secs(60);
    assert_eq!(app.clock_left(Color::White), Some(298_500));
    assert_eq!(app.running(), None);
    assert_eq!(
        seat_line(&screen(&app), Color::White),
        "white: online     4:58"
    );

    // No clocks, no clock lines.
    let plain = app_for(&Game::new(Variant::Standard), "white");
    assert_eq!(plain.clock_left(Color::White), None);
    assert!(!screen(&plain).contains("clocks:"));
}

#[test]
fn a_rematch_is_asked_for_after_the_game_and_its_room_is_followed() {
    let mut app = app_for(&Game::new(Variant::Standard), "white");
    // Not while the game goes on.
    assert!(press(&mut app, &[KeyCode::Char('M')]).is_empty());
    app.on_net(&event(json!({"type": "game_over", "seq": 5,
        "outcome": {"result": "win", "winner": "black", "reason": "resignation"}})));
    assert_eq!(
        press(&mut app, &[KeyCode::Char('M')]),
        [Request::from(Action::Rematch)]
    );
    app.on_net(&event(
        json!({"type": "rematch_offered", "seq": 6, "by": "white"}),
    ));
    assert!(screen(&app).contains("white asks for a rematch (M)"));
    assert_eq!(app.rematch_room(), None);
    app.on_net(&event(
        json!({"type": "rematch", "seq": 7, "room": "9e9e9e9e9e9e9e9e9e9e"}),
    ));
    assert_eq!(app.rematch_room(), Some("9e9e9e9e9e9e9e9e9e9e"));
    assert!(screen(&app).contains("rematch in room 9e9e9e9e9e9e9e9e9e9e"));

    // A snapshot after the rematch was made shows it too; spectators do not follow it.
    let mut over = Game::new(Variant::Standard);
    while !over.is_over() {
        let legal = over.legal_turns();
        over.play(legal[(over.turns().len() * 7919) % legal.len()])
            .expect("legal");
    }
    let made = json!({"rematch": "9e9e9e9e9e9e9e9e9e9e"});
    let mut player = App::new();
    player.on_net(&snapshot_with(&over, "black", made.clone()));
    assert_eq!(player.rematch_room(), Some("9e9e9e9e9e9e9e9e9e9e"));
    let mut spectator = App::new();
    spectator.on_net(&snapshot_with(&over, "spectator", made));
    assert_eq!(spectator.rematch_room(), None);
    assert!(press(&mut spectator, &[KeyCode::Char('M')]).is_empty());
}

#[test]
fn names_the_rated_mark_and_the_ratings_at_the_end_show() {
    let mut over = Game::new(Variant::Standard);
    while !over.is_over() {
        let legal = over.legal_turns();
        over.play(legal[(over.turns().len() * 7919) % legal.len()])
            .expect("legal");
    }
    let rating = |rating: f64, provisional: bool| {
        json!({"rating": rating, "deviation": 290.3, "volatility": 0.06,
               "provisional": provisional})
    };
    let room = json!({
        "players": {"white": {"taken": true, "name": "anna", "account": "anna", "connected": true},
                    "black": {"taken": true, "name": "Guest", "connected": false}},
        "rated": true,
        "ratings": {"white": {"username": "anna", "before": rating(1500.0, true),
                              "after": rating(1662.31, true)},
                    "black": {"username": "bert", "before": rating(1720.0, false),
                              "after": rating(1690.49, false)}},
        "chat": [{"channel": "players", "color": "white", "name": "anna", "text": "good game",
                  "at": 1},
                 {"channel": "spectators", "text": "well played, both of you", "at": 2}],
    });
    let mut app = App::new();
    app.on_net(&NetEvent::Connected);
    app.on_net(&snapshot_with(&over, "black", room));
    let text = screen(&app);
    assert_eq!(
        seat_line(&text, Color::White),
        "white: anna (signed in)  online"
    );
    assert_eq!(
        seat_line(&text, Color::Black),
        "black: Guest             away"
    );
    assert!(
        text.contains("you play black  rated  spectators: 2"),
        "{text}"
    );
    assert!(text.contains("anna 1500? -> 1662?"), "{text}");
    assert!(text.contains("bert 1720 -> 1690"), "{text}");
    assert!(text.contains("spectator: well played"), "{text}");
    assert_golden("rated-with-chat", &text);
}

#[test]
fn chat_is_typed_sent_shown_and_the_opponent_muted() {
    let chat = json!([
        {"channel": "players", "color": "white", "name": "anna", "text": "good luck!", "at": 1},
    ]);
    let mut app = App::new();
    app.on_net(&NetEvent::Connected);
    app.on_net(&snapshot_with(
        &Game::new(Variant::Standard),
        "black",
        json!({ "chat": chat }),
    ));
    assert!(screen(&app).contains("anna (white): good luck!"));

    // c opens the line; keys that mean something on the board are text there; Esc
    // cancels, Enter sends.
    press(&mut app, &[KeyCode::Char('c')]);
    let typed: Vec<KeyCode> = "you too, R".chars().map(KeyCode::Char).collect();
    assert!(press(&mut app, &typed).is_empty());
    assert!(screen(&app).contains("say> you too, R   Enter sends, Esc cancels"));
    press(&mut app, &[KeyCode::Backspace, KeyCode::Backspace]);
    assert_eq!(
        press(&mut app, &[KeyCode::Enter]),
        [Request::Chat("you too,".into())]
    );
    assert_eq!(app.mode, Mode::Board);
    press(
        &mut app,
        &[KeyCode::Char('c'), KeyCode::Char('x'), KeyCode::Esc],
    );
    assert_eq!(app.mode, Mode::Board);
    assert!(press(&mut app, &[KeyCode::Char('c'), KeyCode::Enter]).is_empty());

    // A line typed while the opponent plays is kept.
    press(&mut app, &[KeyCode::Char('c'), KeyCode::Char('g')]);
    let turn = Game::new(Variant::Standard).legal_turns()[0];
    app.on_net(&event(
        json!({"type": "turn_played", "seq": 9, "turn": turn,
        "by": "white", "number": 1, "to_move": "black"}),
    ));
    assert_eq!(app.mode, Mode::Chat("g".into()));
    press(&mut app, &[KeyCode::Esc]);

    // The notice of a line, and the server's refusal of one, show.
    app.on_net(&event(
        json!({"type": "chat", "channel": "players", "color": "black",
        "text": "you too", "at": 2}),
    ));
    app.on_net(&event(
        json!({"type": "error", "id": 7, "code": "rate-limited",
        "message": "too many chat lines"}),
    ));
    let text = screen(&app);
    assert!(text.contains("black: you too"), "{text}");
    assert!(
        text.contains("too many chat lines (rate-limited)"),
        "{text}"
    );

    // m mutes the opponent, and m again hears them; a spectator cannot.
    assert_eq!(
        press(&mut app, &[KeyCode::Char('m')]),
        [Request::Mute(true)]
    );
    assert!(seat_line(&screen(&app), Color::White).ends_with("muted"));
    assert_eq!(
        press(&mut app, &[KeyCode::Char('m')]),
        [Request::Mute(false)]
    );
    let mut spectator = app_for(&Game::new(Variant::Standard), "spectator");
    assert!(press(&mut spectator, &[KeyCode::Char('m')]).is_empty());
    assert!(!spectator.muted);
}

/// The sizes every view is checked at: the smallest common terminal, where the compact
/// board is drawn, and a larger one, where the rules crate's full drawing fits.
fn sizes() -> [(u16, u16, &'static Geometry); 2] {
    [(80, 24, &*COMPACT), (120, 40, &*FULL)]
}

/// `width` characters of `buffer` from (`x`, `y`).
fn read(buffer: &Buffer, x: u16, y: u16, width: usize) -> String {
    (x..x + width as u16)
        .map(|x| buffer[(x, y)].symbol())
        .collect()
}

/// Checks that `buffer` shows the whole board drawn with `geometry` at its top left:
/// every coordinate label, and every cell of `game`'s position as the rules draw it.
fn assert_whole_board(buffer: &Buffer, geometry: &Geometry, game: &Game) {
    let mut labels = BTreeSet::new();
    for (x, y, label) in geometry.labels() {
        assert_eq!(read(buffer, x, y, label.chars().count()), label);
        labels.insert(label.trim().to_owned());
    }
    let all: BTreeSet<String> = (1..=17)
        .map(|row| row.to_string())
        .chain(('A'..='Q').map(String::from))
        .collect();
    assert_eq!(labels, all, "every row and column is labelled");
    for cell in Cell::all() {
        let (x, y) = geometry.origin(cell);
        let symbol: String = cell_symbol(game.position(), cell).iter().collect();
        assert_eq!(read(buffer, x, y, 2), symbol, "{cell}");
    }
}

/// The reserve table's lines as they must stand, each on one line.
fn reserve_lines(game: &Game) -> Vec<String> {
    let names = [
        "straight mid",
        "straight end",
        "angle corner",
        "angle left",
        "angle right",
        "triangle",
    ];
    let [white, black] = Color::ALL.map(|c| game.position().reserve(c));
    let mut lines = vec!["  reserve      white black".to_owned()];
    for (i, (kind, name)) in Kind::ALL.into_iter().zip(names).enumerate() {
        lines.push(format!(
            "{} {name:<12} {:>5} {:>5}",
            i + 1,
            white.count(kind),
            black.count(kind)
        ));
    }
    lines
}

#[test]
fn the_play_and_watch_views_fit_80x24_and_120x40() {
    let game = stacked_game();
    for you in ["black", "spectator"] {
        let mut app = app_for(&game, you);
        app.on_net(&event(json!({"type": "chat", "channel": "players",
            "color": "white", "name": "anna", "text": "nice bridge", "at": 3})));
        for (width, height, geometry) in sizes() {
            let buffer = buffer_at(width, height, |frame| punct_cli::ui::render(&app, frame));
            let text = crate::common::text(&buffer);
            let context = format!("{you} at {width}×{height}:\n{text}");
            assert_whole_board(&buffer, geometry, &game);
            for line in reserve_lines(&game) {
                assert!(
                    text.lines().any(|l| l.contains(&format!("│{line}"))),
                    "{line:?} whole, {context}"
                );
            }
            for entry in ["W B PÜNCT", "w b minor dot", "2-9 level", "+ centre"] {
                assert!(text.contains(entry), "legend {entry:?}, {context}");
            }
            for entry in ["last turn", "from", "w2 bridge"] {
                assert!(text.contains(entry), "legend {entry:?}, {context}");
            }
            assert_eq!(
                text.contains("│╱╲ one piece"),
                geometry.links,
                "links only where drawn, {context}"
            );
            assert!(
                text.contains("stack at I9, by level, top first:"),
                "{context}"
            );
            assert!(text.contains("anna (white): nice bridge"), "{context}");
        }
    }
}

#[test]
fn a_terminal_too_small_is_told_the_size_needed_rather_than_shown_a_cut_board() {
    let app = app_for(&stacked_game(), "white");
    for (width, height) in [(79, 24), (100, 22), (40, 12)] {
        let text = screen_at(&app, width, height);
        // As one line: a narrow terminal wraps the words.
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(&format!("This terminal is {width}×{height}")),
            "{text}"
        );
        assert!(words.contains("needs at least 80×23"), "{text}");
        assert!(
            !text.contains("reserve") && !text.contains("I J K"),
            "{text}"
        );
    }
    // The first size that fits gets the compact board.
    assert!(screen_at(&app, 80, 23).starts_with("         I J K L M N O P Q"));
}

#[test]
fn the_last_turn_is_marked_in_the_play_and_watch_views() {
    // The stride game until its last turn moves a piece off the cell it came from, and
    // the game after its first drop.
    let mut game = Game::new(Variant::Standard);
    let moved_off = |g: &Game| {
        matches!(g.turns().last(), Some(&Turn::Move { from, to, minors })
            if from != to && !minors.contains(&from))
    };
    while !moved_off(&game) {
        assert!(!game.is_over(), "no such move");
        let legal = game.legal_turns();
        game.play(legal[(game.turns().len() * 7919) % legal.len()])
            .expect("legal");
    }
    let mut dropped = Game::new(Variant::Standard);
    dropped
        .play("C4:C5,D5".parse().expect("notation"))
        .expect("legal");
    for game in [game, dropped] {
        let last = *game.turns().last().expect("a turn");
        let (piece, origin) = match last {
            Turn::Move {
                from, to, minors, ..
            } => (vec![to, minors[0], minors[1]], Some(from)),
            Turn::Drop { punct, minors } => (vec![punct, minors[0], minors[1]], None),
            Turn::Pass => unreachable!(),
        };
        let by = if game.turns().len() % 2 == 1 {
            "white"
        } else {
            "black"
        };
        for you in ["white", "spectator"] {
            let app = app_for(&game, you);
            for (width, height, geometry) in sizes() {
                let buffer = buffer_at(width, height, |frame| punct_cli::ui::render(&app, frame));
                let text = crate::common::text(&buffer);
                assert!(
                    text.contains(&format!(
                        "last turn: {}. {last} by {by}",
                        game.turns().len()
                    )),
                    "{text}"
                );
                for cell in Cell::all() {
                    let (x, y) = geometry.origin(cell);
                    let background = buffer[(x, y)].bg;
                    let expected = if piece.contains(&cell) {
                        RatatuiColor::Yellow
                    } else if origin == Some(cell) {
                        RatatuiColor::Blue
                    } else {
                        assert!(
                            ![RatatuiColor::Yellow, RatatuiColor::Blue].contains(&background),
                            "{cell} is not marked, {you} at {width}×{height}"
                        );
                        continue;
                    };
                    assert_eq!(background, expected, "{cell}, {you} at {width}×{height}");
                }
            }
        }
    }
}

#[test]
fn a_bridge_is_underlined_on_either_board() {
    let game = stacked_game();
    let p = game.position();
    let app = app_for(&game, "white");
    for (width, height, geometry) in sizes() {
        let buffer = buffer_at(width, height, |frame| punct_cli::ui::render(&app, frame));
        for cell in Cell::all() {
            let (x, y) = geometry.origin(cell);
            let middle = p
                .top(cell)
                .is_some_and(|dot| p.bridge_gap(dot.piece) == Some(cell));
            assert_eq!(
                buffer[(x, y)].modifier.contains(Modifier::UNDERLINED),
                middle,
                "{cell} at {width}×{height}"
            );
        }
    }
}

#[test]
fn resigning_asks_for_a_confirmation() {
    let mut app = app_for(&Game::new(Variant::Standard), "white");
    // R alone sends nothing, and asks.
    assert!(press(&mut app, &[KeyCode::Char('R')]).is_empty());
    assert_eq!(app.mode, Mode::ConfirmResign);
    for (width, height, _) in sizes() {
        assert!(screen_at(&app, width, height).contains("Resign the game? y or Enter resigns"));
    }
    // Any other key, r (rotate) and R again included, keeps playing.
    for other in [
        KeyCode::Char('r'),
        KeyCode::Char('R'),
        KeyCode::Esc,
        KeyCode::Char('n'),
    ] {
        app.mode = Mode::ConfirmResign;
        assert!(press(&mut app, &[other]).is_empty(), "{other:?}");
        assert_eq!(app.mode, Mode::Board);
        assert_eq!(app.status, "not resigned: the game goes on");
    }
    // y or Enter resigns.
    for yes in [KeyCode::Char('y'), KeyCode::Enter] {
        assert_eq!(
            press(&mut app, &[KeyCode::Char('R'), yes]),
            [Request::from(Action::Resign)]
        );
        assert_eq!(app.mode, Mode::Board);
    }
}

#[test]
fn a_spectator_is_shown_and_given_only_a_spectator_s_keys() {
    let game = stacked_game();
    let mut spectator = app_for(&game, "spectator");
    let mut player = app_for(&game, "white");
    for (width, height, _) in sizes() {
        let watching = screen_at(&spectator, width, height);
        assert!(
            watching
                .lines()
                .any(|l| l == "arrows/g: cursor  c: chat  q: quit"),
            "{watching}"
        );
        let playing = screen_at(&player, width, height);
        for key in ["1-6: drop", "R: resign", "D: offer draw", "m: mute"] {
            assert!(!watching.contains(key), "{key}: {watching}");
            assert!(playing.contains(key), "{key}: {playing}");
        }
    }
    // The players' keys do nothing for a spectator but say which keys work.
    let players_keys = ["1", "6", "R", "D", "A", "X", "C", "M", "p", "t", "m", "\n"];
    for key in players_keys {
        let code = match key {
            "\n" => KeyCode::Enter,
            key => KeyCode::Char(key.chars().next().expect("a key")),
        };
        assert!(press(&mut spectator, &[code]).is_empty(), "{key}");
        assert_eq!(spectator.mode, Mode::Board, "{key}");
        assert_eq!(
            spectator.status,
            "spectators move the cursor (arrows, g), chat (c) and quit (q)"
        );
    }
    // Theirs work.
    let at = spectator.cursor;
    press(&mut spectator, &[KeyCode::Up]);
    assert_ne!(spectator.cursor, at);
    press(&mut spectator, &[KeyCode::Char('c')]);
    assert_eq!(spectator.mode, Mode::Chat(String::new()));
    press(&mut spectator, &[KeyCode::Esc, KeyCode::Char('q')]);
    assert!(spectator.quit);
    // After the game, a player is shown the rematch, not the game's keys.
    player.on_net(&event(json!({"type": "game_over", "seq": 99,
        "outcome": {"result": "win", "winner": "black", "reason": "resignation"}})));
    let over = screen_at(&player, 80, 24);
    assert!(
        over.lines()
            .any(|l| l == "arrows/g: cursor  M: rematch  c: chat  m: mute  q: quit"),
        "{over}"
    );
}

#[test]
fn a_notice_goes_once_a_turn_is_played() {
    let game = Game::new(Variant::Standard);
    let mut app = app_for(&game, "white");
    // A turn typed wrong leaves its notice, the typing given up.
    press(
        &mut app,
        &[KeyCode::Char('t'), KeyCode::Char('z'), KeyCode::Enter],
    );
    assert_eq!(app.status, "Z: no legal turn starts so");
    assert!(screen(&app).contains("Z: no legal turn starts so"));
    // A good turn is picked and played; the server reports it.
    let turn: Turn = "C4:C5,D5".parse().expect("notation");
    let (_, sent) = pick(&mut app, turn, vec![KeyCode::Char('6')]);
    assert_eq!(
        sent,
        [Request::from(Action::Play {
            turn,
            number: Some(1)
        })]
    );
    app.on_net(&event(
        json!({"type": "turn_played", "seq": 3, "turn": turn,
        "by": "white", "number": 1, "to_move": "black"}),
    ));
    assert_eq!(app.status, "");
    assert!(!screen(&app).contains("no legal turn starts so"));
    // A notice of the server's about something else stays until the position changes.
    app.on_net(&event(
        json!({"type": "error", "id": 4, "code": "rate-limited",
        "message": "too many chat lines"}),
    ));
    assert!(screen(&app).contains("too many chat lines (rate-limited)"));
    let mut after = game.clone();
    after.play(turn).expect("legal");
    let reply = after.legal_turns()[0];
    app.on_net(&event(
        json!({"type": "turn_played", "seq": 5, "turn": reply,
        "by": "black", "number": 2, "to_move": "white"}),
    ));
    assert!(!screen(&app).contains("too many chat lines"));
}

#[test]
fn a_takeback_is_asked_for_answered_and_followed() {
    let mut game = Game::new(Variant::Standard);
    for turn in ["C4:C5,D5", "J14:J15,K15"] {
        game.play(turn.parse().expect("notation")).expect("legal");
    }
    let mut white = app_for(&game, "white");
    let mut black = app_for(&game, "black");
    // U asks, once a turn has been played.
    assert!(screen(&black).contains("U: take back"));
    assert_eq!(
        press(&mut black, &[KeyCode::Char('U')]),
        [Request::from(Action::Takeback)]
    );
    let offered = event(json!({"type": "takeback_offered", "seq": 5, "by": "black"}));
    white.on_net(&offered);
    black.on_net(&offered);
    // The opponent is asked, and A and X answer the takeback, not a draw.
    let asked = screen_at(&white, 80, 24);
    assert!(asked.contains("black asks to take back"), "{asked}");
    assert!(asked.contains("A/X: accept/decline takeback"), "{asked}");
    assert!(!screen(&black).contains("A/X"));
    assert_eq!(
        press(&mut white, &[KeyCode::Char('X')]),
        [Request::from(Action::DeclineTakeback)]
    );
    assert_eq!(
        press(&mut white, &[KeyCode::Char('A')]),
        [Request::from(Action::AcceptTakeback)]
    );
    // Black's turn is undone on both boards; the request is gone.
    let taken = event(json!({"type": "taken_back", "seq": 6, "by": "black",
        "number": 1, "to_move": "black"}));
    white.on_net(&taken);
    black.on_net(&taken);
    for app in [&white, &black] {
        let session = app.session().expect("in the room");
        assert_eq!(session.game.turns().len(), 1);
        assert_eq!(session.game.to_move(), Color::Black);
        assert_eq!(session.takeback_offer, None);
        assert!(!screen(app).contains("asks to take back"));
    }
    assert!(black.tracker.my_turn() && !white.tracker.my_turn());
    // With no takeback asked, A answers a draw offer as before.
    assert_eq!(
        press(&mut white, &[KeyCode::Char('A')]),
        [Request::from(Action::AcceptDraw)]
    );
    // A declined request goes too.
    black.on_net(&offered);
    black.on_net(&event(
        json!({"type": "takeback_declined", "seq": 8, "by": "white"}),
    ));
    assert_eq!(black.session().expect("room").takeback_offer, None);
}

/// Rooms for the lobby: one waiting, one live with named players.
fn lobby_rooms() -> Vec<RoomSummary> {
    serde_json::from_value(json!([
        {"room": "a1a1a1a1a1a1a1a1a1a1", "variant": "standard", "visibility": "public",
         "status": "open", "turns": 0, "spectators": 0, "to_move": "white",
         "players": {"white": {"taken": true, "connected": true},
                     "black": {"taken": false, "connected": false}}},
        {"room": "b2b2b2b2b2b2b2b2b2b2", "variant": "basic", "visibility": "public",
         "status": "live", "turns": 17, "spectators": 3, "to_move": "black",
         "players": {"white": {"taken": true, "connected": true, "name": "anna"},
                     "black": {"taken": true, "connected": false, "name": "Bert"}}},
    ]))
    .expect("summaries")
}

#[test]
fn the_lobby_and_its_form_fit_80x24_and_120x40() {
    let mut lobby = Lobby::default();
    lobby.set_rooms(lobby_rooms());
    lobby.on_key(key(KeyCode::Char('c')));
    for (width, height, _) in sizes() {
        let text = drawn_at(width, height, |frame| {
            punct_cli::ui::render_lobby(&lobby, frame)
        });
        let lines = [
            "  room     variant  state turns watching  players",
            "> a1a1a1a1 standard open      0        0  white online, black free",
            "> variant:  standard",
            "  colour:   random",
            "  clock:    none   (such as 5m+2s, 300+2, or 3d a move; empty: none)",
            "  opponent: a person",
            "  room:     public, listed here",
            "Up/Down/Tab: field  Left/Right: change  Enter: create  Esc: cancel",
        ];
        for line in lines {
            assert!(text.contains(line), "{line:?} at {width}×{height}:\n{text}");
        }
        // Only the players, last on the line, are cut on a narrow terminal, with an
        // ellipsis.
        let live =
            "  b2b2b2b2 basic    live     17        3  anna (white, online), Bert (black, away)";
        let fits = live.chars().count() <= usize::from(width) - 2;
        let cut = if fits {
            live.to_owned()
        } else {
            let kept: String = live.chars().take(usize::from(width) - 3).collect();
            format!("{kept}…")
        };
        assert!(text.contains(&cut), "{text}");
    }
}

#[test]
fn the_lobby_form_creates_a_private_room_against_the_computer() {
    let mut lobby = Lobby::default();
    lobby.on_key(key(KeyCode::Char('c')));
    // Down to the opponent: a person, then the computer's levels, round both ways.
    press_lobby(&mut lobby, &[KeyCode::Down, KeyCode::Down, KeyCode::Down]);
    press_lobby(&mut lobby, &[KeyCode::Left]);
    assert!(lobby_screen(&lobby).contains("> opponent: the computer, level 5 (1 easy, 5 strong)"));
    press_lobby(
        &mut lobby,
        &[KeyCode::Right, KeyCode::Right, KeyCode::Right],
    );
    assert!(lobby_screen(&lobby).contains("> opponent: the computer, level 2"));
    press_lobby(&mut lobby, &[KeyCode::Down, KeyCode::Right]);
    assert!(lobby_screen(&lobby).contains("> room:     private, reached by its id only"));
    assert_eq!(
        lobby.on_key(key(KeyCode::Enter)),
        Some(LobbyAction::Create(CreateRoom {
            variant: Variant::Standard,
            color: SeatChoice::Random,
            visibility: Visibility::Private,
            computer: Some(2),
            ..CreateRoom::default()
        }))
    );
}

/// Presses keys in the lobby, none of which may ask for anything.
fn press_lobby(lobby: &mut Lobby, keys: &[KeyCode]) {
    for &k in keys {
        assert_eq!(lobby.on_key(key(k)), None, "{k:?}");
    }
}
