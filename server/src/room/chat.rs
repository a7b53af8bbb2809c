//! The room's chat: the players' channel, which spectators never see, and the
//! spectators', which the players see once the game is over. A player may mute the
//! opponent (stored: it outlasts the room's stay in memory). Lines are stored with the
//! game; the last ones are kept for members who enter, and sent to each as its channels
//! allow.

use std::collections::VecDeque;

use punct_protocol::{Channel, ChatLine, ErrorCode, Role, Seq, ServerMessage};

use super::actor::Room;
use super::{ConnId, Hearers, Refusal, Talk};
use crate::store::now;

/// Longest line, in characters.
const MAX_CHARS: usize = 300;

/// Lines kept for members who enter.
pub(super) const KEPT: usize = 100;

/// The chat's recent lines, and who muted whom.
#[derive(Debug, Default)]
pub(super) struct Chat {
    /// The last lines, oldest first.
    lines: VecDeque<ChatLine>,
    /// Whether White's and Black's players muted their opponent.
    muted: [bool; 2],
}

impl Chat {
    /// A chat with `lines` said before, oldest first, and who muted whom.
    pub(super) fn with(lines: Vec<ChatLine>, muted: [bool; 2]) -> Chat {
        Chat {
            lines: lines.into(),
            muted,
        }
    }
}

impl Room {
    /// What the member on `conn` says or asks of the chat: answers the room's sequence
    /// number now (the line's notice has none).
    pub(super) async fn talk(&mut self, conn: ConnId, talk: Talk) -> Result<Seq, Refusal> {
        let role = self.role_of(conn).ok_or_else(|| {
            Refusal::new(
                ErrorCode::SeatTakenOver,
                "another connection holds this seat now",
            )
        })?;
        match talk {
            Talk::Mute(muted) => {
                let color = role.color().ok_or_else(|| {
                    Refusal::new(ErrorCode::NotAPlayer, "only a player can mute the opponent")
                })?;
                let stored = self.context.store.mute(&self.id, color, muted).await;
                self.stored(stored)?;
                self.chat.muted[color as usize] = muted;
                Ok(self.history.seq())
            }
            Talk::Say { name, text } => {
                let text = text.trim();
                if text.is_empty()
                    || text.chars().count() > MAX_CHARS
                    || text.chars().any(char::is_control)
                {
                    return Err(Refusal::new(
                        ErrorCode::BadChat,
                        "a line of chat is 1 to 300 characters, without control characters",
                    ));
                }
                let line = match role.color() {
                    Some(color) => ChatLine {
                        channel: Channel::Players,
                        color: Some(color),
                        name: self.seats[color as usize].player.name.clone(),
                        text: text.to_owned(),
                        at: u64::try_from(now()).unwrap_or(0),
                    },
                    None => ChatLine {
                        channel: Channel::Spectators,
                        color: None,
                        name,
                        text: text.to_owned(),
                        at: u64::try_from(now()).unwrap_or(0),
                    },
                };
                let stored = self.context.store.chat(&self.id, &line).await;
                self.stored(stored)?;
                let hearers = self.hearers(&line);
                if self.chat.lines.len() == KEPT {
                    self.chat.lines.pop_front();
                }
                self.chat.lines.push_back(line.clone());
                self.history
                    .notify_to(&ServerMessage::Chat { line }, hearers);
                Ok(self.history.seq())
            }
        }
    }

    /// Who hears `line`: the players hear each other unless muted; the spectators hear
    /// each other, and the players do too once the game is over.
    fn hearers(&self, line: &ChatLine) -> Hearers {
        let over = self.outcome().is_some();
        let seat_hears = |seat: usize| match line.channel {
            Channel::Players => line
                .color
                .is_some_and(|by| by as usize == seat || !self.chat.muted[seat]),
            Channel::Spectators => over,
        };
        Hearers {
            seats: [seat_hears(0), seat_hears(1)],
            spectators: line.channel == Channel::Spectators,
        }
    }

    /// The recent lines a member who is `role` hears, oldest first.
    pub(super) fn chat_for(&self, role: Role) -> Vec<ChatLine> {
        self.chat
            .lines
            .iter()
            .filter(|line| self.hearers(line).hear(role))
            .cloned()
            .collect()
    }
}
