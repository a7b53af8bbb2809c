//! Drawing the room view with ratatui: the board where the rules crate's diagram puts
//! it, and a panel with the players, reserves, the inspected stack, turns and help.

use punct_protocol::{ChatLine, RatingView, RoomStatus, SeatChoice, SeatView};
use punct_rules::{BoardLayout, Cell, Color, Kind, Turn, cell_symbol};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color as Paint, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::app::{App, Mode};
use crate::lobby::{Field, Lobby};

/// The keys, shown on the last line.
const HELP: &str = "arrows/g: cursor  1-6: drop kind  Enter: piece/destination/confirm  r: rotate  \
                    t: type  p: pass  R: resign  D/A/X: offer/accept/decline draw  C: claim win  M: rematch  \
                    c: chat  m: mute  q: quit";

/// The lines of chat shown at most, in the pane under the panel.
const CHAT_SHOWN: u16 = 5;

/// The lobby's keys, shown on the last line.
const LOBBY_HELP: &str =
    "Up/Down: select  Enter/j: join  w: watch  c: create a room  r: refresh  q: quit";

/// The form's keys.
const FORM_HELP: &str =
    "Up/Down/Tab: field  Left/Right: change  type the clock  Enter: create  Esc: cancel";

/// Draws the lobby: the rooms, the one selected, and the creation form when open.
pub fn render_lobby(lobby: &Lobby, frame: &mut Frame<'_>) {
    let form_height = if lobby.form.is_some() { 5 } else { 0 };
    let [list, form, help] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(form_height),
        Constraint::Length(2),
    ])
    .areas(frame.area());
    let mut lines = vec![Line::from(format!(
        "  {:<22}{:<10}{:<26}{:>6}{:>12}  status",
        "room", "variant", "players", "turns", "spectators"
    ))];
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
                Some(name) => format!("{name} ({color}, {state})"),
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
            "{}{:<22}{:<10}{:<26}{:>6}{:>12}  {status}",
            if selected { "> " } else { "  " },
            room.room,
            room.variant.name(),
            players,
            room.turns,
            room.spectators
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
        let lines = vec![
            Line::from(format!(
                "{}variant: {}",
                mark(Field::Variant),
                f.variant.name()
            )),
            Line::from(format!("{}colour:  {color}", mark(Field::Color))),
            Line::from(format!(
                "{}clock:   {clock}   (BASE+INC, such as 5m+2s or 300+2; empty: none)",
                mark(Field::Clock)
            )),
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

/// Draws the whole view.
pub fn render(app: &App, frame: &mut Frame<'_>) {
    let layout = BoardLayout::new();
    let [main, help] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(3)]).areas(frame.area());
    let [board, panel] = Layout::horizontal([
        Constraint::Length(layout.width() as u16 + 1),
        Constraint::Min(0),
    ])
    .areas(main);
    draw_board(app, &layout, board, frame.buffer_mut());
    let chat = app.session().map_or(&[][..], |s| &s.chat[..]);
    // The chat pane shows once there is chat, or while a line is typed.
    let chat_height = if chat.is_empty() && !matches!(app.mode, Mode::Chat(_)) {
        0
    } else {
        CHAT_SHOWN + 2
    };
    let [panel, chat_pane] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(chat_height)]).areas(panel);
    frame.render_widget(
        Paragraph::new(panel_lines(app))
            .block(Block::bordered().title(" punct "))
            .wrap(Wrap { trim: false }),
        panel,
    );
    let rows = chat_rows(chat, usize::from(chat_pane.width.saturating_sub(2)));
    let shown = rows.len().saturating_sub(usize::from(CHAT_SHOWN));
    frame.render_widget(
        Paragraph::new(
            rows[shown..]
                .iter()
                .cloned()
                .map(Line::from)
                .collect::<Vec<_>>(),
        )
        .block(Block::bordered().title(" chat ")),
        chat_pane,
    );
    let input = match &app.mode {
        Mode::Typing(text) => format!("turn> {text}   {}", app.typing_hint(text)),
        Mode::Chat(text) => format!("say> {}   Enter sends, Esc cancels", plain(text)),
        Mode::Goto(text, _) => format!("go to cell> {text}"),
        Mode::Destination(turns) => format!(
            "{} legal turns: pick a highlighted cell, Enter",
            turns.len()
        ),
        Mode::Rotation(turns, i) => {
            format!(
                "{} ({}/{}): r rotates, Enter plays, Esc",
                turns[*i],
                i + 1,
                turns.len()
            )
        }
        Mode::Board => app.status.clone(),
    };
    frame.render_widget(
        Paragraph::new(vec![Line::from(input), Line::from(HELP)]).wrap(Wrap { trim: true }),
        help,
    );
}

/// The board: cells with their top dot and level, labels, cursor and highlights.
fn draw_board(app: &App, layout: &BoardLayout, area: Rect, buf: &mut Buffer) {
    let put = |buf: &mut Buffer, x: usize, y: usize, text: [char; 2], style: Style| {
        let (x, y) = (area.x + x as u16, area.y + y as u16);
        if x + 1 < area.right() && y < area.bottom() {
            buf.set_string(x, y, text.iter().collect::<String>(), style);
        }
    };
    for (x, y, text) in layout.labels() {
        put(buf, x, y, text, Style::new().fg(Paint::DarkGray));
    }
    let Some(session) = app.session() else { return };
    let position = session.game.position();
    let targets = app.destinations();
    let preview = app.preview().map(preview_cells).unwrap_or_default();
    for cell in Cell::all() {
        let (x, y) = layout.cell_origin(cell);
        let mut style = match position.top(cell) {
            None if cell.is_central() => Style::new().fg(Paint::Yellow),
            None => Style::new().fg(Paint::DarkGray),
            Some(dot) => {
                let style = match dot.piece.color() {
                    Color::White => Style::new().fg(Paint::Black).bg(Paint::White),
                    Color::Black => Style::new().fg(Paint::White).bg(Paint::Black),
                };
                if dot.is_punct {
                    style.add_modifier(Modifier::BOLD)
                } else {
                    style
                }
            }
        };
        if targets.contains(&cell) {
            style = style.bg(Paint::Green);
        }
        if preview.contains(&cell) {
            style = style.bg(Paint::Magenta);
        }
        if cell == app.cursor {
            style = style.add_modifier(Modifier::REVERSED);
        }
        put(buf, x, y, cell_symbol(position, cell), style);
    }
}

/// The cells a turn covers, for its preview.
fn preview_cells(turn: Turn) -> Vec<Cell> {
    match turn {
        Turn::Drop { punct, minors }
        | Turn::Move {
            to: punct, minors, ..
        } => {
            vec![punct, minors[0], minors[1]]
        }
        Turn::Pass => Vec::new(),
    }
}

/// The side panel's text.
fn panel_lines(app: &App) -> Vec<Line<'static>> {
    let Some(s) = app.session() else {
        return vec![Line::from("connecting…"), Line::from(app.status.clone())];
    };
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
    match (&s.rematch, s.rematch_offer) {
        (Some(room), _) => lines.push(Line::from(format!("rematch in room {room}"))),
        (None, Some(by)) => lines.push(Line::from(format!("{by} asks for a rematch (M)"))),
        (None, None) => {}
    }
    lines.push(Line::from(""));
    let width = Kind::ALL
        .iter()
        .map(|k| k.name().chars().count())
        .max()
        .unwrap_or(0);
    lines.push(Line::from(format!("  {:<width$} white black", "reserve")));
    let position = s.game.position();
    let [white, black] = Color::ALL.map(|c| position.reserve(c));
    for (i, kind) in Kind::ALL.into_iter().enumerate() {
        lines.push(Line::from(format!(
            "{} {:<width$} {:>5} {:>5}",
            i + 1,
            kind.name(),
            white.count(kind),
            black.count(kind)
        )));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!("stack at {}, top first:", app.cursor)));
    let stack = position.stack(app.cursor);
    if stack.is_empty() {
        lines.push(Line::from("  empty"));
    }
    for dot in stack {
        let what = if dot.is_punct { "PÜNCT" } else { "dot" };
        lines.push(Line::from(format!(
            "  level {}: {} {} {what}",
            dot.level,
            dot.piece.color(),
            dot.piece.kind().name()
        )));
    }
    lines.push(Line::from(""));
    lines.push(Line::from("turns:"));
    let turns = s.game.turns();
    let shown = 8;
    let start = turns.len().saturating_sub(shown);
    for (i, turn) in turns.iter().enumerate().skip(start) {
        lines.push(Line::from(format!("{:>4}. {turn}", i + 1)));
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
