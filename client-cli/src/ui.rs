//! Drawing the lobby and the room view with ratatui. The room view is the board (see
//! [`crate::board`]) beside a panel with the players, the reserves, the inspected stack
//! and the turns; under them the legend, the status line and the keys that work now.
//! Where the rules crate's drawing of the board does not fit, the compact one is used;
//! where neither does, the view says how large the terminal must be.

use punct_engine::Level;
use punct_protocol::{ChatLine, RatingView, RoomStatus, SeatChoice, SeatView, Visibility};
use punct_rules::{Color, Kind, Position, Turn};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::{App, Mode};
use crate::board::{self, COMPACT, FULL, Geometry, Marks};
use crate::lobby::{Field, Lobby};
use crate::session::Session;

/// Columns the panel needs, its left border included: the stack's lines take 40, and a
/// seat's, with a name and a clock, about as many.
const PANEL_WIDTH: u16 = 44;

/// The lines of chat shown at most, in the pane under the panel.
const CHAT_SHOWN: u16 = 5;

/// The lobby's keys, shown on the last line.
const LOBBY_HELP: &str =
    "Up/Down: select  Enter/j: join  w: watch  c: create a room  r: refresh  q: quit";

/// The form's keys.
const FORM_HELP: &str = "Up/Down/Tab: field  Left/Right: change  Enter: create  Esc: cancel";

/// A room's id as a list shows it: its last eight characters, the random end of a
/// UUIDv7 (its start is the time, the same for rooms made together).
pub fn short_id(id: &str) -> &str {
    let start = id.char_indices().rev().nth(7).map_or(0, |(i, _)| i);
    &id[start..]
}

/// `text` cut to `width` characters, an ellipsis for what is cut.
pub fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// Draws the lobby: the rooms, the one selected, and the creation form when open. The
/// players come last on a room's line, so that on a narrow terminal only long names are
/// cut.
pub fn render_lobby(lobby: &Lobby, frame: &mut Frame<'_>) {
    let form_height = if lobby.form.is_some() { 7 } else { 0 };
    let [list, form, help] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(form_height),
        Constraint::Length(2),
    ])
    .areas(frame.area());
    let mut lines = vec![Line::from(format!(
        "  {:<9}{:<9}{:<5}{:>6}{:>9}  players",
        "room", "variant", "state", "turns", "watching"
    ))];
    // What the players' column may take: the list's width, less its border and the
    // columns before it.
    let players_width = usize::from(list.width.saturating_sub(2)).saturating_sub(42);
    if lobby.rooms.is_empty() {
        lines.push(Line::from("  no open or live rooms: c creates one"));
    }
    for (i, room) in lobby.rooms.iter().enumerate() {
        let seat = |color: Color, view: &SeatView| {
            let state = match (view.taken, view.connected) {
                (false, _) => "free",
                (true, true) => "online",
                (true, false) => "away",
            };
            match &view.player.name {
                Some(name) => format!("{} ({color}, {state})", plain(name)),
                None => format!("{color} {state}"),
            }
        };
        let players = format!(
            "{}, {}",
            seat(Color::White, &room.players.white),
            seat(Color::Black, &room.players.black)
        );
        let status = match room.status {
            RoomStatus::Open => "open",
            RoomStatus::Live => "live",
            RoomStatus::Over => "over",
        };
        let selected = i == lobby.selected;
        let text = format!(
            "{}{:<9}{:<9}{status:<5}{:>6}{:>9}  {}",
            if selected { "> " } else { "  " },
            short_id(&room.room),
            room.variant.name(),
            room.turns,
            room.spectators,
            cut(&players, players_width)
        );
        let style = if selected {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::styled(text, style));
    }
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" punct: rooms ")),
        list,
    );
    if let Some(f) = &lobby.form {
        let mark = |field: Field| if f.field == field { "> " } else { "  " };
        let color = match f.color {
            SeatChoice::White => "white",
            SeatChoice::Black => "black",
            SeatChoice::Random => "random",
        };
        let clock = if f.clock.is_empty() && f.field != Field::Clock {
            "none".to_owned()
        } else {
            f.clock.clone()
        };
        let opponent = match f.computer {
            None => "a person".to_owned(),
            Some(level) => format!(
                "the computer, level {level} (1 easy, {} strong)",
                Level::STRONGEST
            ),
        };
        let room = match f.visibility {
            Visibility::Public => "public, listed here",
            Visibility::Private => "private, reached by its id only",
        };
        let lines = vec![
            Line::from(format!(
                "{}variant:  {}",
                mark(Field::Variant),
                f.variant.name()
            )),
            Line::from(format!("{}colour:   {color}", mark(Field::Color))),
            Line::from(format!(
                "{}clock:    {clock}   (such as 5m+2s, 300+2, or 3d a move; empty: none)",
                mark(Field::Clock)
            )),
            Line::from(format!("{}opponent: {opponent}", mark(Field::Opponent))),
            Line::from(format!("{}room:     {room}", mark(Field::Room))),
        ];
        frame.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(" new room ")),
            form,
        );
    }
    let keys = if lobby.form.is_some() {
        FORM_HELP
    } else {
        LOBBY_HELP
    };
    frame.render_widget(
        Paragraph::new(vec![Line::from(lobby.status.clone()), Line::from(keys)]),
        help,
    );
}

/// Draws the room view with the larger drawing of the board that fits, or says how
/// large the terminal must be.
pub fn render(app: &App, frame: &mut Frame<'_>) {
    let area = frame.area();
    for geometry in [&*FULL, &*COMPACT] {
        let footer = footer(app, geometry, area.width);
        if area.width >= geometry.width + 1 + PANEL_WIDTH
            && usize::from(area.height) >= usize::from(geometry.height) + footer.len()
        {
            return room_view(app, geometry, footer, frame);
        }
    }
    // Drawn cut off, the board would mislead: say what is missing instead.
    let width = COMPACT.width + 1 + PANEL_WIDTH;
    let height = usize::from(COMPACT.height) + footer(app, &COMPACT, width).len();
    let text = format!(
        "This terminal is {}×{}: the room needs at least {width}×{height}. \
         Make it larger, or press q to quit.",
        area.width, area.height
    );
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
}

/// The lines under the board and panel at `width`: the legend of `geometry`, the status
/// or input line, and the keys that work now.
fn footer(app: &App, geometry: &Geometry, width: u16) -> Vec<Line<'static>> {
    let mut lines = flow(board::legend(geometry), width);
    lines.push(Line::from(input_line(app)));
    let keys = keys(app).into_iter().map(|k| vec![Span::raw(k)]).collect();
    lines.extend(flow(keys, width));
    lines
}

/// Entries laid out in lines of at most `width` columns, two spaces apart, never one
/// split across lines.
fn flow(entries: Vec<Vec<Span<'static>>>, width: u16) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = Vec::new();
    for entry in entries {
        let size: usize = entry.iter().map(Span::width).sum();
        match lines.last_mut() {
            Some(line) if line.width() + 2 + size <= usize::from(width) => {
                line.spans.push(Span::raw("  "));
                line.spans.extend(entry);
            }
            _ => lines.push(Line::from(entry)),
        }
    }
    lines
}

/// The keys that work now: a spectator's few, or a player's while the game goes on
/// (the draw keys that fit the offer standing, the claim while the opponent is away)
/// and after it.
fn keys(app: &App) -> Vec<&'static str> {
    let mut keys = vec!["arrows/g: cursor"];
    let seat = app.session().and_then(|s| Some((s, s.color()?)));
    if let Some((s, me)) = seat {
        if app.tracker.is_over() {
            keys.push("M: rematch");
        } else {
            keys.extend([
                "1-6: drop",
                "Enter: pick/play",
                "r: rotate",
                "t: type",
                "p: pass",
                "R: resign",
            ]);
            match (s.takeback_offer, s.draw_offer) {
                (Some(by), _) if by != me => keys.push("A/X: accept/decline takeback"),
                (_, None) => keys.push("D: offer draw"),
                (_, Some(by)) if by != me => keys.push("A/X: accept/decline draw"),
                _ => {}
            }
            if s.takeback_offer.is_none() && !s.game.turns().is_empty() {
                keys.push("U: take back");
            }
            let opponent = s.players.get(me.opponent());
            if opponent.taken && !opponent.connected {
                keys.push("C: claim win");
            }
        }
    }
    keys.push("c: chat");
    if seat.is_some() {
        keys.push("m: mute");
    }
    keys.push("q: quit");
    keys
}

/// The status line: what is being typed or picked, else the last notice.
fn input_line(app: &App) -> String {
    match &app.mode {
        Mode::Typing(text) => format!("turn> {text}   {}", app.typing_hint(text)),
        Mode::Chat(text) => format!("say> {}   Enter sends, Esc cancels", plain(text)),
        Mode::Goto(text, _) => format!("go to cell> {text}"),
        Mode::Destination(turns) => format!(
            "{} legal turns: pick a highlighted cell, Enter",
            turns.len()
        ),
        Mode::Rotation(turns, i) => format!(
            "{} ({}/{}): r rotates, Enter plays, Esc",
            turns[*i],
            i + 1,
            turns.len()
        ),
        Mode::ConfirmResign => "Resign the game? y or Enter resigns; any other key plays on".into(),
        Mode::Board => app.status.clone(),
    }
}

/// The board, the panel and the chat above `footer`.
fn room_view(app: &App, geometry: &Geometry, footer: Vec<Line<'static>>, frame: &mut Frame<'_>) {
    let [main, foot] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(footer.len() as u16)])
            .areas(frame.area());
    let [board, panel] =
        Layout::horizontal([Constraint::Length(geometry.width + 1), Constraint::Min(0)])
            .areas(main);
    let marks = Marks {
        cursor: Some(app.cursor),
        targets: app.destinations(),
        preview: app.preview(),
        last: app.session().and_then(|s| s.game.turns().last().copied()),
    };
    let position = app.session().map(|s| s.game.position());
    board::draw(geometry, position, &marks, board, frame.buffer_mut());
    let chat = app.session().map_or(&[][..], |s| &s.chat[..]);
    // The chat pane shows once there is chat, or while a line is typed; on a small
    // terminal with fewer lines, so that the panel keeps the stack.
    let chat_lines = if chat.is_empty() && !matches!(app.mode, Mode::Chat(_)) {
        0
    } else {
        CHAT_SHOWN.min(panel.height / 6).max(1)
    };
    let [panel, chat_pane] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(if chat_lines == 0 { 0 } else { chat_lines + 1 }),
    ])
    .areas(panel);
    frame.render_widget(
        Paragraph::new(panel_lines(app, usize::from(panel.height)))
            .block(Block::new().borders(Borders::LEFT)),
        panel,
    );
    let rows = chat_rows(chat, usize::from(chat_pane.width.saturating_sub(1)));
    let shown = rows.len().saturating_sub(usize::from(chat_lines));
    frame.render_widget(
        Paragraph::new(
            rows[shown..]
                .iter()
                .cloned()
                .map(Line::from)
                .collect::<Vec<_>>(),
        )
        .block(
            Block::new()
                .borders(Borders::LEFT | Borders::TOP)
                .title(" chat "),
        ),
        chat_pane,
    );
    frame.render_widget(Paragraph::new(footer), foot);
}

/// A short name of `kind`: the rules' names are too long for a small terminal.
fn kind_label(kind: Kind) -> &'static str {
    match kind {
        Kind::StraightMiddle => "straight mid",
        Kind::StraightEnd => "straight end",
        Kind::AngularCorner => "angle corner",
        Kind::AngularLeft => "angle left",
        Kind::AngularRight => "angle right",
        Kind::Triangle => "triangle",
    }
}

/// The panel's text in `rows` lines: the room, the reserves, the stack under the cursor,
/// and as many of the last turns as fit, with blank lines between when there is room.
fn panel_lines(app: &App, rows: usize) -> Vec<Line<'static>> {
    let Some(s) = app.session() else {
        return vec![Line::from("connecting…"), Line::from(app.status.clone())];
    };
    let position = s.game.position();
    let sections = [
        header_lines(app, s),
        reserve_lines(position),
        stack_lines(app, position),
    ];
    let used: usize = sections.iter().map(Vec::len).sum();
    // Gaps before each section after the first and before the turns, and a few turns.
    let spacious = used + sections.len() + 5 <= rows;
    let mut lines = Vec::new();
    for section in sections {
        if spacious && !lines.is_empty() {
            lines.push(Line::from(""));
        }
        lines.extend(section);
    }
    if spacious {
        lines.push(Line::from(""));
    }
    let turns = s.game.turns();
    let shown = rows.saturating_sub(lines.len() + 1).min(turns.len());
    if shown > 0 {
        lines.push(Line::from("turns:"));
        for (i, turn) in turns.iter().enumerate().skip(turns.len() - shown) {
            lines.push(Line::from(format!("{:>4}. {turn}", i + 1)));
        }
    }
    lines
}

/// The room, the seats, the clocks, the state of the game and its last turn.
fn header_lines(app: &App, s: &Session) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let connection = if app.tracker.connected {
        "connected"
    } else {
        "reconnecting…"
    };
    lines.push(Line::from(format!("room {}  {}", s.room, connection)));
    let you = match s.color() {
        Some(color) => format!("you play {color}"),
        None => "you watch".to_owned(),
    };
    let rated = if s.rated { "  rated" } else { "" };
    lines.push(Line::from(format!(
        "{you}{rated}  spectators: {}",
        s.spectators
    )));
    // Names padded alike, so that the states and clocks line up.
    let who = Color::ALL.map(|color| match &s.players.get(color).player {
        punct_protocol::Player {
            name: Some(name),
            account,
        } => {
            let mark = if account.is_some() {
                " (signed in)"
            } else {
                ""
            };
            format!("{}{mark}  ", plain(name))
        }
        _ => String::new(),
    });
    let width = who.iter().map(|w| w.chars().count()).max().unwrap_or(0);
    for (color, who) in Color::ALL.into_iter().zip(who) {
        let seat = s.players.get(color);
        let state = match (seat.taken, seat.connected) {
            (false, _) => "seat free",
            (true, true) => "online",
            (true, false) => "away",
        };
        let clock = match app.clock_left(color) {
            Some(ms) if app.running() == Some(color) => format!("  {} ◀", clock_text(ms)),
            Some(ms) => format!("  {}", clock_text(ms)),
            None => String::new(),
        };
        let muted = if app.muted && s.color() == Some(color.opponent()) {
            "  muted"
        } else {
            ""
        };
        lines.push(Line::from(format!(
            "{color:<5}: {who:<width$}{state:<9}{clock}{muted}"
        )));
    }
    if let Some(days) = app.days_per_move() {
        lines.push(Line::from(format!("clocks: {days} days a move")));
    } else if let Some(increment) = app.increment() {
        lines.push(Line::from(format!(
            "clocks: +{}s a turn",
            increment.as_secs()
        )));
    }
    let state = match (s.outcome, s.game.outcome()) {
        (Some(outcome), _) | (None, Some(outcome)) => format!("game over: {outcome}"),
        _ if s.my_turn() => "your turn".to_owned(),
        _ => format!("{} to move", s.game.to_move()),
    };
    lines.push(Line::from(state));
    if let Some(ratings) = &s.ratings {
        for change in [&ratings.white, &ratings.black] {
            lines.push(Line::from(format!(
                "{} {} -> {}",
                plain(&change.username),
                rating_text(&change.before),
                rating_text(&change.after)
            )));
        }
    }
    if let Some(by) = s.draw_offer {
        lines.push(Line::from(format!("{by} offers a draw")));
    }
    if let Some(by) = s.takeback_offer {
        lines.push(Line::from(format!("{by} asks to take back")));
    }
    match (&s.rematch, s.rematch_offer) {
        (Some(room), _) => lines.push(Line::from(format!("rematch in room {room}"))),
        (None, Some(by)) => lines.push(Line::from(format!("{by} asks for a rematch (M)"))),
        (None, None) => {}
    }
    let turns = s.game.turns();
    if let Some(last) = turns.last() {
        // White plays the odd turns: passes are turns too.
        let by = if turns.len() % 2 == 1 {
            Color::White
        } else {
            Color::Black
        };
        lines.push(Line::from(format!(
            "last turn: {}. {last} by {by}",
            turns.len()
        )));
    }
    lines
}

/// Both reserves, a line per kind with its key.
fn reserve_lines(position: &Position) -> Vec<Line<'static>> {
    let [white, black] = Color::ALL.map(|c| position.reserve(c));
    let mut lines = vec![Line::from(format!("  {:<12} white black", "reserve"))];
    for (i, kind) in Kind::ALL.into_iter().enumerate() {
        lines.push(Line::from(format!(
            "{} {:<12} {:>5} {:>5}",
            i + 1,
            kind_label(kind),
            white.count(kind),
            black.count(kind)
        )));
    }
    lines
}

/// Every dot in the cursor's cell, top first, with the piece it belongs to (its PÜNCT
/// and minor cells), so that covered pieces can be found; and the levels left empty
/// under a bridge.
fn stack_lines(app: &App, position: &Position) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(format!(
        "stack at {}, by level, top first:",
        app.cursor
    ))];
    let stack = position.stack(app.cursor);
    if stack.is_empty() {
        lines.push(Line::from("  empty"));
    }
    for (i, dot) in stack.iter().enumerate() {
        let Some(placed) = position.placed(dot.piece) else {
            continue;
        };
        let placement = placed.placement;
        let piece = Turn::Drop {
            punct: placement.punct(),
            minors: placement.minors(),
        };
        let what = if dot.is_punct { "PÜNCT" } else { "minor" };
        lines.push(Line::from(format!(
            "{:>3} {:<5} {what} {:<11} {}",
            dot.level,
            dot.piece.color(),
            piece.to_string(),
            kind_label(dot.piece.kind())
        )));
        let below = stack.get(i + 1).map_or(0, |d| d.level);
        if below + 1 < dot.level {
            lines.push(Line::from("    (a gap: under a bridge)"));
        }
    }
    lines
}

/// A rating as players see it: whole points, `?` while provisional.
fn rating_text(rating: &RatingView) -> String {
    let mark = if rating.provisional { "?" } else { "" };
    format!("{:.0}{mark}", rating.rating)
}

/// Text from others (names, chat) without control characters, which a terminal would
/// obey rather than show.
pub fn plain(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// The chat as rows of at most `width` characters, oldest first: each line as
/// `name (white): text`, wrapped.
fn chat_rows(chat: &[ChatLine], width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in chat {
        let seat = line.color.map_or("spectator".to_owned(), |c| c.to_string());
        let who = match &line.name {
            Some(name) => format!("{} ({seat})", plain(name)),
            None => seat,
        };
        let text: Vec<char> = format!("{who}: {}", plain(&line.text)).chars().collect();
        rows.extend(text.chunks(width).map(|row| row.iter().collect::<String>()));
    }
    rows
}

/// Time left as minutes and seconds, with tenths under ten seconds, when they count;
/// days and hours, or hours and minutes, for a correspondence game's days.
pub fn clock_text(ms: u64) -> String {
    const HOUR: u64 = 3_600_000;
    if ms < 10_000 {
        format!("0:{:02}.{}", ms / 1000, ms % 1000 / 100)
    } else if ms >= 24 * HOUR {
        format!("{}d {:02}h", ms / (24 * HOUR), ms % (24 * HOUR) / HOUR)
    } else if ms >= HOUR {
        format!("{}h {:02}m", ms / HOUR, ms % HOUR / 60_000)
    } else {
        let seconds = ms / 1000;
        format!("{}:{:02}", seconds / 60, seconds % 60)
    }
}
