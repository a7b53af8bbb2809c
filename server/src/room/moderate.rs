//! `Moderate`: what a moderator does to a room. The database has the sanction and its
//! entry in the audit log already (`moderation`); the room carries it out for the
//! members in it.

use punct_protocol::{ErrorCode, Seq, ServerMessage};
use punct_rules::{DrawReason, Outcome, WinReason};

use super::protocol::{Hearers, Moderate};
use super::state::Room;
use crate::errors::Refused;

impl Room {
    /// Carries out `moderate`: answers the room's sequence number after it.
    pub(super) async fn moderate(&mut self, moderate: Moderate) -> Result<Seq, Refused> {
        match moderate {
            Moderate::RemoveLine { line } => {
                self.chat.remove(line);
                let removed = ServerMessage::ChatRemoved { line };
                self.history.notify_to(&removed, Hearers::ALL);
                Ok(self.history.seq())
            }
            Moderate::Forfeit { account } => {
                self.still_running()?;
                let color = self
                    .seats
                    .iter()
                    .position(|seat| seat.player.account_id() == Some(account.as_str()))
                    .and_then(|seat| punct_rules::Color::ALL.get(seat).copied())
                    .ok_or_else(|| {
                        Refused::new(ErrorCode::NotAPlayer, "the account holds no seat here")
                    })?;
                if self.waiting_for_opponent() {
                    return self.delete_unplayed().await;
                }
                let outcome = Outcome::Win {
                    winner: color.opponent(),
                    reason: WinReason::Abandonment,
                };
                self.end(outcome).await
            }
            Moderate::Close => {
                self.still_running()?;
                if self.waiting_for_opponent() {
                    return self.delete_unplayed().await;
                }
                let unrated = self.context.services.store.unrate(&self.id).await;
                self.stored(unrated)?;
                self.rated = false;
                let outcome = Outcome::Draw {
                    reason: DrawReason::Closed,
                };
                self.end(outcome).await
            }
        }
    }

    /// Refuses once the game is over: nothing is left to end.
    fn still_running(&self) -> Result<(), Refused> {
        match self.outcome() {
            Some(_) => Err(Refused::new(
                ErrorCode::GameOver,
                "the game is over already",
            )),
            None => Ok(()),
        }
    }

    /// Whether a seat is still free: no game has started.
    fn waiting_for_opponent(&self) -> bool {
        self.seats.iter().any(|seat| seat.token.is_none())
    }

    /// Deletes a room whose game never started, as its creator's cancelling does.
    async fn delete_unplayed(&mut self) -> Result<Seq, Refused> {
        let stored = self
            .context
            .services
            .store
            .cancel(&self.id, self.incarnation)
            .await;
        if !self.stored(stored)? {
            return Err(Refused::new(
                ErrorCode::NotCancellable,
                "the room changed meanwhile; try again",
            ));
        }
        tracing::info!("room closed by a moderator before its game began");
        self.cancelled = true;
        Ok(self.history.seq())
    }
}
