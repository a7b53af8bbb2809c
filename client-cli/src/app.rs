//! The interactive room view's state and key handling, free of any terminal: keys in,
//! requests to send out, so tests drive it like a player.
//!
//! Every turn offered comes from the rules crate's list of legal turns for the position
//! the server reported; nothing else can be sent.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use punct_protocol::{ClockView, ServerMessage};
use punct_rules::{Cell, Color, Kind, Placement, Turn};

use crate::session::{Session, Tracker};
use punct_client::{NetEvent, Request};
use punct_protocol::Action;

/// What the keys do right now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Moving the cursor; picking a reserve kind or a piece.
    Board,
    /// Typing a cell name to jump the cursor to, then returning to `then`.
    Goto(String, Box<Mode>),
    /// Typing a turn in notation.
    Typing(String),
    /// Typing a line of chat.
    Chat(String),
    /// A reserve kind or a piece is chosen: these are its legal turns; the cursor picks a
    /// destination among theirs.
    Destination(Vec<Turn>),
    /// A destination is chosen: its legal turns, one shown at a time.
    Rotation(Vec<Turn>, usize),
    /// `R` was pressed: `y` or Enter resigns, any other key does not, so that a slip
    /// from `r` (rotate) does not lose the game.
    ConfirmResign,
}

/// The room view.
#[derive(Clone, Debug)]
pub struct App {
    /// The room and the connection state.
    pub tracker: Tracker,
    /// The selected cell: inspected, and where picking happens.
    pub cursor: Cell,
    /// What the keys do.
    pub mode: Mode,
    /// The last thing to tell the user (an error, a refused turn, a reconnect).
    pub status: String,
    /// Set when the user quits.
    pub quit: bool,
    /// The time the view is drawn at: the event loop sets it, tests move it by hand, so
    /// the running clock counts down the same way in both.
    pub now: Instant,
    /// Whether we asked not to hear the opponent's chat.
    pub muted: bool,
    /// The last clocks the server sent and when they arrived.
    clock: Option<(ClockView, Instant)>,
}

impl Default for App {
    fn default() -> App {
        App::new()
    }
}

impl App {
    /// A view waiting for its room, the cursor in the centre.
    pub fn new() -> App {
        App {
            tracker: Tracker::default(),
            cursor: Cell::from_coords(9, 9).expect("I9 is on the board"),
            mode: Mode::Board,
            status: String::new(),
            quit: false,
            now: Instant::now(),
            muted: false,
            clock: None,
        }
    }

    /// The room, once known.
    pub fn session(&self) -> Option<&Session> {
        self.tracker.session.as_ref()
    }

    /// Takes in an event from the connection (at [`App::now`]).
    pub fn on_net(&mut self, event: &NetEvent) {
        let before = self.session().map(|s| s.game.turns().len());
        if let Err(e) = self.tracker.absorb(event) {
            self.status = format!("{e:#}");
        }
        match event {
            NetEvent::Disconnected(reason) => self.status = format!("reconnecting: {reason}"),
            NetEvent::Failed(reason) => self.status = format!("disconnected: {reason}"),
            NetEvent::Message(ServerMessage::Error { message, code, .. }) => {
                self.status = format!("{message} ({code})");
            }
            NetEvent::Message(ServerMessage::Snapshot { room, .. }) => {
                self.clock = room.clock.map(|c| (c, self.now));
            }
            NetEvent::Message(ServerMessage::TurnPlayed { clock, .. }) => {
                self.clock = clock.map(|c| (c, self.now));
            }
            // `game_over` carries no clocks: they stop where they stand.
            NetEvent::Message(ServerMessage::GameOver { .. }) => {
                let left = Color::ALL.map(|c| self.clock_left(c));
                if let Some((clock, _)) = &mut self.clock {
                    for (color, left) in Color::ALL.into_iter().zip(left) {
                        *clock_field(clock, color) = left.unwrap_or(0);
                    }
                    clock.running = None;
                }
            }
            _ => {}
        }
        // A half-picked turn and the notices about it belong to the position they were
        // made in; a line of chat being typed and a resignation being confirmed do not.
        if self.session().map(|s| s.game.turns().len()) != before {
            self.status.clear();
            if !matches!(self.mode, Mode::Chat(_) | Mode::ConfirmResign) {
                self.mode = Mode::Board;
            }
        }
    }

    /// A player's time left in milliseconds as of [`App::now`], in a game with clocks:
    /// the running clock counts down from the server's last word.
    pub fn clock_left(&self, color: Color) -> Option<u64> {
        let (mut clock, at) = self.clock?;
        let left = *clock_field(&mut clock, color);
        if clock.running != Some(color) {
            return Some(left);
        }
        let elapsed = self.now.saturating_duration_since(at);
        Some(left.saturating_sub(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)))
    }

    /// The clocks' increment, in a game with clocks.
    pub fn increment(&self) -> Option<Duration> {
        self.clock
            .map(|(clock, _)| Duration::from_millis(clock.increment_ms))
    }

    /// The days per move, in a correspondence game.
    pub fn days_per_move(&self) -> Option<u8> {
        self.clock.and_then(|(clock, _)| clock.days)
    }

    /// Whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.clock.and_then(|(clock, _)| clock.running)
    }

    /// The rematch's room, once made, if we play in this one: where our seat token
    /// goes next.
    pub fn rematch_room(&self) -> Option<&str> {
        let session = self.session()?;
        session.color()?;
        session.rematch.as_deref()
    }

    /// Whether the opponent's takeback request stands.
    fn takeback_asked(&self) -> bool {
        self.session()
            .is_some_and(|s| s.takeback_offer.is_some_and(|by| Some(by) != s.color()))
    }

    /// Whether we hold a seat here (not while the room is still unknown).
    fn plays(&self) -> bool {
        self.session().and_then(Session::color).is_some()
    }

    /// The request that plays `turn` now, numbered so that it is safe to send again.
    fn play(&self, turn: Turn) -> Action {
        let played = self.session().map_or(0, |s| s.game.turns().len());
        Action::Play {
            turn,
            number: u32::try_from(played + 1).ok(),
        }
    }

    /// The legal turns we may send now: none unless it is our turn.
    fn legal(&self) -> Vec<Turn> {
        match self.session() {
            Some(s) if self.tracker.my_turn() => s.game.legal_turns(),
            _ => Vec::new(),
        }
    }

    /// The cells highlighted as destinations.
    pub fn destinations(&self) -> Vec<Cell> {
        match &self.mode {
            Mode::Destination(turns) => turns.iter().filter_map(|&t| destination(t)).collect(),
            Mode::Goto(_, then) => App {
                mode: (**then).clone(),
                ..self.clone()
            }
            .destinations(),
            _ => Vec::new(),
        }
    }

    /// The turn shown while choosing a rotation, or typed legally.
    pub fn preview(&self) -> Option<Turn> {
        match &self.mode {
            Mode::Rotation(turns, i) => turns.get(*i).copied(),
            Mode::Typing(text) => self.typed_turn(text),
            _ => None,
        }
    }

    /// The typed turn, if it is one we may send.
    fn typed_turn(&self, text: &str) -> Option<Turn> {
        text.parse().ok().filter(|t| self.legal().contains(t))
    }

    /// What typing shows under the input: whether the text is a legal turn, or how many
    /// legal turns it begins.
    pub fn typing_hint(&self, text: &str) -> String {
        let Some(session) = self.session() else {
            return String::new();
        };
        if let Ok(turn) = text.parse::<Turn>() {
            return match session.game.is_legal(turn) {
                Ok(()) if self.tracker.my_turn() => "legal: Enter sends it".into(),
                Ok(()) => "legal, but not your turn".into(),
                Err(e) => format!("illegal: {e}"),
            };
        }
        let matches = completions(&self.legal(), text);
        match matches.as_slice() {
            [] => "no legal turn starts so".into(),
            [one] => format!("Tab: {one}"),
            many => format!("{} legal turns start so (Tab completes)", many.len()),
        }
    }

    /// Handles one key; returns the request to send, if the key makes one.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Request> {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return None;
        }
        let mode = std::mem::replace(&mut self.mode, Mode::Board);
        let (mode, request) = self.step(mode, key.code);
        self.mode = mode;
        request
    }

    fn step(&mut self, mode: Mode, key: KeyCode) -> (Mode, Option<Request>) {
        match (mode, key) {
            (Mode::ConfirmResign, KeyCode::Char('y') | KeyCode::Enter) => {
                (Mode::Board, Some(Action::Resign.into()))
            }
            (Mode::ConfirmResign, _) => {
                self.status = "not resigned: the game goes on".into();
                (Mode::Board, None)
            }
            (Mode::Chat(_), KeyCode::Esc) => (Mode::Board, None),
            (Mode::Chat(mut text), KeyCode::Backspace) => {
                text.pop();
                (Mode::Chat(text), None)
            }
            (Mode::Chat(text), KeyCode::Enter) if text.trim().is_empty() => (Mode::Board, None),
            (Mode::Chat(text), KeyCode::Enter) => (Mode::Board, Some(Request::Chat(text))),
            (Mode::Chat(mut text), KeyCode::Char(c)) => {
                text.push(c);
                (Mode::Chat(text), None)
            }
            (Mode::Goto(text, then), KeyCode::Enter) => {
                match text.parse::<Cell>() {
                    Ok(cell) => self.cursor = cell,
                    Err(e) => self.status = format!("{text}: {e}"),
                }
                (*then, None)
            }
            (Mode::Goto(_, then), KeyCode::Esc) => (*then, None),
            (Mode::Goto(mut text, then), KeyCode::Backspace) => {
                text.pop();
                (Mode::Goto(text, then), None)
            }
            (Mode::Goto(mut text, then), KeyCode::Char(c)) => {
                text.push(c);
                (Mode::Goto(text, then), None)
            }
            (Mode::Typing(_), KeyCode::Esc) => (Mode::Board, None),
            (Mode::Typing(mut text), KeyCode::Backspace) => {
                text.pop();
                (Mode::Typing(text), None)
            }
            (Mode::Typing(text), KeyCode::Tab) => {
                let matches = completions(&self.legal(), &text);
                (Mode::Typing(common_prefix(&matches).unwrap_or(text)), None)
            }
            (Mode::Typing(text), KeyCode::Enter) => match self.typed_turn(&text) {
                Some(turn) => (Mode::Board, Some(self.play(turn).into())),
                // Refused: the line is cleared, and the next key is the board's again
                // (`t` starts a new turn), the reason shown.
                None => {
                    self.status = format!("{text}: {}", self.typing_hint(&text));
                    (Mode::Board, None)
                }
            },
            (Mode::Typing(mut text), KeyCode::Char(c)) => {
                text.push(c.to_ascii_uppercase());
                (Mode::Typing(text), None)
            }
            (Mode::Rotation(turns, i), KeyCode::Char('r') | KeyCode::Tab) => {
                let next = (i + 1) % turns.len().max(1);
                (Mode::Rotation(turns, next), None)
            }
            (Mode::Rotation(turns, i), KeyCode::Enter) => {
                let request = turns.get(i).map(|&t| self.play(t).into());
                (Mode::Board, request)
            }
            (Mode::Rotation(..) | Mode::Destination(_), KeyCode::Esc) => (Mode::Board, None),
            (Mode::Destination(turns), KeyCode::Enter) => {
                let here: Vec<Turn> = turns
                    .iter()
                    .copied()
                    .filter(|&t| destination(t) == Some(self.cursor))
                    .collect();
                if here.is_empty() {
                    self.status = format!("{} is not a destination", self.cursor);
                    (Mode::Destination(turns), None)
                } else {
                    (Mode::Rotation(here, 0), None)
                }
            }
            (mode @ (Mode::Board | Mode::Destination(_)), key) => self.board_key(mode, key),
            (mode, _) => (mode, None),
        }
    }

    /// Keys of the board and destination modes: cursor, picking, game requests.
    fn board_key(&mut self, mode: Mode, key: KeyCode) -> (Mode, Option<Request>) {
        // A spectator's keys (as `ui` lists them).
        match key {
            KeyCode::Up | KeyCode::Down | KeyCode::Left | KeyCode::Right => {
                self.cursor = step_cursor(self.cursor, key);
                return (mode, None);
            }
            KeyCode::Char('g') => return (Mode::Goto(String::new(), Box::new(mode)), None),
            KeyCode::Char('c') => return (Mode::Chat(String::new()), None),
            KeyCode::Char('q') => {
                self.quit = true;
                return (mode, None);
            }
            KeyCode::Esc => return (Mode::Board, None),
            _ if !self.plays() => {
                self.status =
                    "spectators move the cursor (arrows, g), chat (c) and quit (q)".into();
                return (mode, None);
            }
            _ => {}
        }
        let action = match key {
            KeyCode::Char('t') => return (Mode::Typing(String::new()), None),
            KeyCode::Char('m') => return (mode, Some(self.mute())),
            KeyCode::Char(digit @ '1'..='6') => {
                let kind = Kind::ALL[usize::from(digit as u8 - b'1')];
                let drops: Vec<Turn> = self
                    .legal()
                    .into_iter()
                    .filter(|&t| drop_kind(t) == Some(kind))
                    .collect();
                if drops.is_empty() {
                    self.status = format!("no legal drop of a {}", kind.name());
                    return (mode, None);
                }
                return (Mode::Destination(drops), None);
            }
            KeyCode::Enter => {
                let moves: Vec<Turn> = self
                    .legal()
                    .into_iter()
                    .filter(|&t| matches!(t, Turn::Move { from, .. } if from == self.cursor))
                    .collect();
                if moves.is_empty() {
                    self.status = format!("no legal move of a piece from {}", self.cursor);
                    return (mode, None);
                }
                return (Mode::Destination(moves), None);
            }
            KeyCode::Char('p') if self.legal().contains(&Turn::Pass) => Some(self.play(Turn::Pass)),
            KeyCode::Char('R') => return (Mode::ConfirmResign, None),
            KeyCode::Char('D') => Some(Action::OfferDraw),
            // A and X answer the opponent's takeback request if one stands (it is about
            // this very turn), else the draw offer.
            KeyCode::Char('A') if self.takeback_asked() => Some(Action::AcceptTakeback),
            KeyCode::Char('X') if self.takeback_asked() => Some(Action::DeclineTakeback),
            KeyCode::Char('A') => Some(Action::AcceptDraw),
            KeyCode::Char('X') => Some(Action::DeclineDraw),
            KeyCode::Char('U') => Some(Action::Takeback),
            KeyCode::Char('C') => Some(Action::ClaimWin),
            KeyCode::Char('M') if self.tracker.is_over() => {
                self.status = "rematch asked for".into();
                Some(Action::Rematch)
            }
            KeyCode::Char('M') => {
                self.status = "a rematch is asked for after the game".into();
                None
            }
            _ => None,
        };
        (mode, action.map(Request::Action))
    }

    /// `m`: a player stops hearing the opponent's chat, or hears it again.
    fn mute(&mut self) -> Request {
        self.muted = !self.muted;
        self.status = if self.muted {
            "the opponent's chat is muted (m: hear it again)".into()
        } else {
            "the opponent's chat is heard again".into()
        };
        Request::Mute(self.muted)
    }
}

/// A player's field of the clocks.
fn clock_field(clock: &mut ClockView, color: Color) -> &mut u64 {
    match color {
        Color::White => &mut clock.white_ms,
        Color::Black => &mut clock.black_ms,
    }
}

/// Where a turn puts its PÜNCT.
fn destination(turn: Turn) -> Option<Cell> {
    match turn {
        Turn::Drop { punct, .. } => Some(punct),
        Turn::Move { to, .. } => Some(to),
        Turn::Pass => None,
    }
}

/// The kind of piece a drop brings in.
fn drop_kind(turn: Turn) -> Option<Kind> {
    match turn {
        Turn::Drop { punct, minors } => Placement::from_cells(punct, minors).map(Placement::kind),
        _ => None,
    }
}

/// The legal turns whose notation starts with `text`.
fn completions(legal: &[Turn], text: &str) -> Vec<String> {
    let text = text.to_ascii_uppercase();
    legal
        .iter()
        .map(Turn::to_string)
        .filter(|t| t.starts_with(&text))
        .collect()
}

/// The longest common start of `words`.
fn common_prefix(words: &[String]) -> Option<String> {
    let first = words.first()?;
    let len = words.iter().fold(first.len(), |len, w| {
        first
            .bytes()
            .zip(w.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count()
    });
    Some(first[..len].to_owned())
}

/// The cell next to `cell` on screen in the direction of an arrow key: up and down the
/// column, left and right to the neighbouring column's cell on the nearest line.
fn step_cursor(cell: Cell, key: KeyCode) -> Cell {
    let (dc, drs): (i8, &[i8]) = match key {
        KeyCode::Up => (0, &[1]),
        KeyCode::Down => (0, &[-1]),
        // Columns are offset by half a row: one step right is (c+1, r) or (c+1, r+1).
        KeyCode::Right => (1, &[0, 1]),
        KeyCode::Left => (-1, &[0, -1]),
        _ => (0, &[]),
    };
    drs.iter()
        .find_map(|&dr| cell.offset(dc, dr))
        .unwrap_or(cell)
}
