//! The lobby's state and key handling, free of any terminal: the rooms listed by
//! `GET /api/rooms`, one selected, and the form that creates a room. Keys in, actions
//! out, so tests drive it like a user.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use punct_engine::Level;
use punct_protocol::{CreateRoom, RoomSummary, SeatChoice, TimeControl, Visibility};
use punct_rules::Variant;

/// What the user asked the lobby to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Fetch the list of rooms again.
    Refresh,
    /// Create a room and take a seat in it.
    Create(CreateRoom),
    /// Take a seat in this room (the saved one, or the free one).
    Join(String),
    /// Watch this room.
    Watch(String),
}

/// The fields of the form that creates a room, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Standard or basic.
    Variant,
    /// The seat to take.
    Color,
    /// The time control, typed as `BASE+INC`.
    Clock,
    /// A person or the computer.
    Opponent,
    /// Listed in the lobby or reached by its id only.
    Room,
}

/// The form that creates a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateForm {
    /// The field the keys change.
    pub field: Field,
    /// The game.
    pub variant: Variant,
    /// The seat asked for.
    pub color: SeatChoice,
    /// The time control as typed; empty for none.
    pub clock: String,
    /// The computer's level (1, easy, to [`Level::STRONGEST`]), or none for a person.
    pub computer: Option<u8>,
    /// Whether the lobby lists the room.
    pub visibility: Visibility,
}

impl Default for CreateForm {
    fn default() -> CreateForm {
        CreateForm {
            field: Field::Variant,
            variant: Variant::Standard,
            color: SeatChoice::Random,
            clock: String::new(),
            computer: None,
            visibility: Visibility::Public,
        }
    }
}

/// The lobby screen.
#[derive(Clone, Debug, Default)]
pub struct Lobby {
    /// The open and live public rooms, as last fetched.
    pub rooms: Vec<RoomSummary>,
    /// The index of the selected room.
    pub selected: usize,
    /// The room creation form, while it is open.
    pub form: Option<CreateForm>,
    /// The last thing to tell the user (an error, a refused request).
    pub status: String,
    /// Set when the user quits.
    pub quit: bool,
}

impl Lobby {
    /// Takes in a fresh list of rooms, keeping the selected room selected if it is
    /// still there.
    pub fn set_rooms(&mut self, rooms: Vec<RoomSummary>) {
        let selected = self.selected_room().map(str::to_owned);
        self.selected = selected
            .and_then(|id| rooms.iter().position(|r| r.room == id))
            .unwrap_or(0)
            .min(rooms.len().saturating_sub(1));
        self.rooms = rooms;
    }

    /// The selected room's id.
    pub fn selected_room(&self) -> Option<&str> {
        self.rooms.get(self.selected).map(|r| r.room.as_str())
    }

    /// Handles one key; returns what it asks for, if anything.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return None;
        }
        match self.form.take() {
            Some(form) => self.form_key(form, key.code),
            None => self.list_key(key.code),
        }
    }

    fn list_key(&mut self, key: KeyCode) -> Option<Action> {
        let selected = self.selected_room().map(str::to_owned);
        match key {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.rooms.len().saturating_sub(1));
            }
            KeyCode::Char('r') => return Some(Action::Refresh),
            KeyCode::Char('c' | 'n') => self.form = Some(CreateForm::default()),
            KeyCode::Enter | KeyCode::Char('j') => return selected.map(Action::Join),
            KeyCode::Char('w') => return selected.map(Action::Watch),
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            _ => {}
        }
        None
    }

    fn form_key(&mut self, mut form: CreateForm, key: KeyCode) -> Option<Action> {
        const FIELDS: [Field; 5] = [
            Field::Variant,
            Field::Color,
            Field::Clock,
            Field::Opponent,
            Field::Room,
        ];
        let at = FIELDS.iter().position(|&f| f == form.field).unwrap_or(0);
        match (form.field, key) {
            (_, KeyCode::Esc) => return None,
            (_, KeyCode::Up) => form.field = FIELDS[at.saturating_sub(1)],
            (_, KeyCode::Down | KeyCode::Tab) => form.field = FIELDS[(at + 1) % FIELDS.len()],
            (_, KeyCode::Enter) => match form.create() {
                Ok(create) => return Some(Action::Create(create)),
                Err(e) => self.status = e,
            },
            (Field::Variant, KeyCode::Left | KeyCode::Right | KeyCode::Char(' ')) => {
                form.variant = match form.variant {
                    Variant::Standard => Variant::Basic,
                    Variant::Basic => Variant::Standard,
                };
            }
            (Field::Color, KeyCode::Left | KeyCode::Right | KeyCode::Char(' ')) => {
                let order = [SeatChoice::Random, SeatChoice::White, SeatChoice::Black];
                let i = order.iter().position(|&c| c == form.color).unwrap_or(0);
                let step = if key == KeyCode::Left { 2 } else { 1 };
                form.color = order[(i + step) % order.len()];
            }
            (Field::Opponent, KeyCode::Left | KeyCode::Right | KeyCode::Char(' ')) => {
                // A person, then every level, round in either direction.
                let order: Vec<Option<u8>> = std::iter::once(None)
                    .chain((1..=Level::STRONGEST).map(Some))
                    .collect();
                let i = order.iter().position(|&c| c == form.computer).unwrap_or(0);
                let step = if key == KeyCode::Left {
                    order.len() - 1
                } else {
                    1
                };
                form.computer = order[(i + step) % order.len()];
            }
            (Field::Room, KeyCode::Left | KeyCode::Right | KeyCode::Char(' ')) => {
                form.visibility = match form.visibility {
                    Visibility::Public => Visibility::Private,
                    Visibility::Private => Visibility::Public,
                };
            }
            (Field::Clock, KeyCode::Backspace) => {
                form.clock.pop();
            }
            (Field::Clock, KeyCode::Char(c)) => form.clock.push(c),
            _ => {}
        }
        self.form = Some(form);
        None
    }
}

impl CreateForm {
    /// The request the form makes, or why it cannot.
    pub fn create(&self) -> Result<CreateRoom, String> {
        let clock = match self.clock.trim() {
            "" => None,
            text => Some(parse_time_control(text)?),
        };
        Ok(CreateRoom {
            variant: self.variant,
            color: self.color,
            visibility: self.visibility,
            clock,
            computer: self.computer,
            name: None,
            rated: false,
        })
    }
}

/// Reads a time control as `BASE+INC` or `BASE`: each a number of seconds, or with a
/// unit `s`, `m` or `h` (`5m+2s`, `300+2`, `10m`); or days per move for correspondence
/// play, as `Nd` (`3d`).
pub fn parse_time_control(text: &str) -> Result<TimeControl, String> {
    let bad = |why: &str| {
        format!("'{text}': {why} (as BASE+INC, such as 5m+2s or 300+2, or days per move: 3d)")
    };
    if let Some(days) = text.trim().strip_suffix('d') {
        let days: u8 = days
            .trim()
            .parse()
            .map_err(|_| bad("not a number of days"))?;
        let control = TimeControl::days(days);
        return match control.refusal() {
            Some(why) => Err(bad(&why)),
            None => Ok(control),
        };
    }
    let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |part: &str| -> Result<u32, String> {
        let part = part.trim();
        let (number, unit) = match part.char_indices().last() {
            Some((i, unit @ ('s' | 'm' | 'h'))) => (&part[..i], unit),
            _ => (part, 's'),
        };
        let number: u32 = number.parse().map_err(|_| bad("not a time"))?;
        let scale = match unit {
            'h' => 3600,
            'm' => 60,
            _ => 1,
        };
        number.checked_mul(scale).ok_or_else(|| bad("too long"))
    };
    let base = seconds(base)?;
    if base == 0 {
        return Err(bad("the base time must be at least one second"));
    }
    Ok(TimeControl::clock(base, seconds(increment)?))
}

/// Reads the clock of a seek as players say it: `MINUTES+INC` in the manner of quick
/// pairing (`5+3` is five minutes and three seconds a turn), or any form
/// [`parse_time_control`] reads once a unit is given (`90s+1s`, `3d`).
pub fn parse_seek_clock(text: &str) -> Result<TimeControl, String> {
    let bare = |part: &str| !part.is_empty() && part.trim().bytes().all(|b| b.is_ascii_digit());
    match text.split_once('+') {
        Some((base, increment)) if bare(base) && bare(increment) => {
            parse_time_control(&format!("{}m+{}s", base.trim(), increment.trim()))
        }
        None if bare(text) => parse_time_control(&format!("{}m", text.trim())),
        _ => parse_time_control(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seek_s_clock_reads_minutes_first_as_quick_pairing_does() {
        assert_eq!(parse_seek_clock("5+3"), Ok(TimeControl::clock(300, 3)));
        assert_eq!(parse_seek_clock("10"), Ok(TimeControl::clock(600, 0)));
        assert_eq!(parse_seek_clock("90s+1s"), Ok(TimeControl::clock(90, 1)));
        assert_eq!(parse_seek_clock("3d"), Ok(TimeControl::days(3)));
        assert!(parse_seek_clock("4d").is_err());
        assert!(parse_seek_clock("five").is_err());
    }

    #[test]
    fn time_controls_read_with_and_without_units() {
        let tc = |base, increment| Ok(TimeControl::clock(base, increment));
        assert_eq!(parse_time_control("5m+2s"), tc(300, 2));
        assert_eq!(parse_time_control("300+2"), tc(300, 2));
        assert_eq!(parse_time_control("1h"), tc(3600, 0));
        assert_eq!(parse_time_control("90 + 1m"), tc(90, 60));
        assert!(parse_time_control("0+5").is_err());
        assert!(parse_time_control("5x+2").is_err());
        assert!(parse_time_control("+2").is_err());
        assert_eq!(parse_time_control("3d"), Ok(TimeControl::days(3)));
        assert_eq!(parse_time_control(" 14 d"), Ok(TimeControl::days(14)));
        assert!(parse_time_control("4d").unwrap_err().contains("one of"));
        assert!(parse_time_control("xd").is_err());
    }
}
