//! The room's chat as data: the players' channel, which spectators never see, and the
//! spectators', which the players see once the game is over; the recent lines kept for
//! members who enter, and who muted whom. (What a member says is taken in `talk`.)

use std::collections::VecDeque;

use punct_protocol::{Channel, ChatLine, Role};

use super::protocol::Hearers;

/// Lines kept for members who enter.
const KEPT: usize = 100;

/// The chat's recent lines, and who muted whom.
#[derive(Debug, Default)]
pub(super) struct Chat {
    /// The last lines, oldest first.
    lines: VecDeque<ChatLine>,
    /// Whether White's and Black's players muted their opponent.
    pub(super) muted: [bool; 2],
}

impl Chat {
    /// A chat with `lines` said before, oldest first, and who muted whom.
    pub(super) fn with(lines: Vec<ChatLine>, muted: [bool; 2]) -> Chat {
        Chat {
            lines: lines.into(),
            muted,
        }
    }

    /// Keeps `line` for members who enter later.
    pub(super) fn keep(&mut self, line: ChatLine) {
        if self.lines.len() == KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    /// Who hears `line`, `over` once the game is over: the players hear each other
    /// unless muted; the spectators hear each other, and the players do too once the
    /// game is over.
    pub(super) fn hearers(&self, line: &ChatLine, over: bool) -> Hearers {
        let seat_hears = |seat: usize| match line.channel {
            Channel::Players => line
                .color
                .is_some_and(|by| by as usize == seat || !self.muted[seat]),
            Channel::Spectators => over,
        };
        Hearers {
            seats: [seat_hears(0), seat_hears(1)],
            spectators: line.channel == Channel::Spectators,
        }
    }

    /// The recent lines a member who is `role` hears, oldest first.
    pub(super) fn lines_for(&self, role: Role, over: bool) -> Vec<ChatLine> {
        self.lines
            .iter()
            .filter(|line| self.hearers(line, over).hear(role))
            .cloned()
            .collect()
    }
}
