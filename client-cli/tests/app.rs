//! The interactive app without a terminal: snapshots in, keys in, requests and a
//! rendered screen out. Screens are compared with golden files under `tests/golden/`;
//! `PUNCT_BLESS=1 cargo test -p punct-cli --test app` rewrites them.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use punct_cli::app::{App, Mode};
use punct_cli::lobby::{Action as LobbyAction, Lobby};
use punct_client::{NetEvent, Request};
use punct_engine::{Engine, Level};
use punct_protocol::Action;
use punct_protocol::{
    CreateRoom, Reserves, SeatChoice, ServerMessage, StackView, TimeControl, Visibility,
};
use punct_rules::{Cell, Color, Game, Turn, Variant};
use serde_json::{Value, json};

mod common;

use common::{drawn, screen};

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
    assert_eq!(sent, [Request::from(Action::Play(turn))]);
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
        [Request::from(Action::Play(
            "C4:C5,D5".parse().expect("notation")
        ))]
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
    assert_eq!(sent, [Request::from(Action::Play(rotated))]);

    let mut app = app_for(&game, &you);
    let (_, sent) = pick(&mut app, jump, Vec::new());
    assert_eq!(sent, [Request::from(Action::Play(jump))]);

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
        text.contains(
            "> a1a1a1a1a1a1a1a1a1a1  standard  white online, black free       0           0  open"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  b2b2b2b2b2b2b2b2b2b2  basic     white online, black away      17           3  live"
        ),
        "{text}"
    );

    // Down selects the live room: Enter joins it, w watches it, r fetches the list again.
    assert_eq!(lobby.on_key(key(KeyCode::Down)), None);
    assert!(lobby_screen(&lobby).contains("> b2b2b2b2b2b2b2b2b2b2"));
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
    assert!(text.contains("  variant: basic"), "{text}");
    assert!(text.contains("  colour:  black"), "{text}");
    assert!(text.contains("> clock:   5m+2x"), "{text}");
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
    assert_eq!(spectator.status, "muting is for the players");
}
