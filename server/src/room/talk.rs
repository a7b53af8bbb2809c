//! `Talk`: a line of the room's chat, or a player muting the opponent. Lines are stored
//! with the game, and muting too: it outlasts the room's stay in memory.

use punct_protocol::{Channel, ChatLine, ErrorCode, Role, Seq, ServerMessage};

use super::protocol::Talk;
use super::state::Room;
use crate::clock::now;
use crate::cluster::ConnId;
use crate::errors::Refused;

/// Longest line, in characters.
const MAX_CHARS: usize = 300;

impl Room {
    /// What the member on `conn` says or asks of the chat: answers the room's sequence
    /// number now (the line's notice has none).
    pub(super) async fn talk(&mut self, conn: ConnId, talk: Talk) -> Result<Seq, Refused> {
        let role = self.role_of(conn).ok_or_else(|| {
            Refused::new(
                ErrorCode::SeatTakenOver,
                "another connection holds this seat now",
            )
        })?;
        match talk {
            Talk::Mute(muted) => {
                let color = role.color().ok_or_else(|| {
                    Refused::new(ErrorCode::NotAPlayer, "only a player can mute the opponent")
                })?;
                let stored = self
                    .context
                    .services
                    .store
                    .mute(&self.id, color, muted)
                    .await;
                self.stored(stored)?;
                self.chat.muted[color as usize] = muted;
                Ok(self.history.seq())
            }
            Talk::Say {
                name,
                account,
                text,
            } => {
                let text = text.trim();
                if text.is_empty()
                    || text.chars().count() > MAX_CHARS
                    || text.chars().any(char::is_control)
                {
                    return Err(Refused::new(
                        ErrorCode::BadChat,
                        "a line of chat is 1 to 300 characters, without control characters",
                    ));
                }
                let (channel, name, account) = match role.color() {
                    Some(color) => {
                        let player = &self.seats[color as usize].player;
                        let account = player.account_id().map(str::to_owned);
                        (Channel::Players, player.name.clone(), account)
                    }
                    None => (Channel::Spectators, name, account),
                };
                let mut line = ChatLine {
                    channel,
                    color: role.color(),
                    name,
                    text: text.to_owned(),
                    at: u64::try_from(now()).unwrap_or(0),
                    line: None,
                    removed: false,
                };
                let stored = self
                    .context
                    .services
                    .store
                    .chat(&self.id, &line, account.clone())
                    .await;
                line.line = Some(self.stored(stored)?);
                let over = self.outcome().is_some();
                let hearers = self.chat.hearers(&line, account.as_ref(), over);
                self.chat.keep(line.clone(), account);
                self.history
                    .notify_to(&ServerMessage::Chat { line }, hearers);
                Ok(self.history.seq())
            }
        }
    }

    /// The recent lines the member on `conn`, who is `role`, hears, oldest first.
    pub(super) fn chat_for(&self, conn: ConnId, role: Role) -> Vec<ChatLine> {
        self.chat.lines_for(conn, role, self.outcome().is_some())
    }
}
