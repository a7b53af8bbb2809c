//! Who is in the room: the two seats (whose token holds each, which connection plays it,
//! since when its player is away), the spectators, and the presence notices that tell
//! everyone so. Presence is not the game's history: its notices carry no sequence number
//! and are not kept for members coming back.

use std::time::Duration;

use punct_protocol::{ErrorCode, Role, SeatGranted, Seq, ServerMessage};
use punct_rules::Color;
use tokio::time::Instant;

use super::protocol::{Entered, Key, Start};
use super::seat::{Holder, Seat};
use super::state::Room;
use crate::clock::{Clock, millis};
use crate::cluster::{ConnId, NodeTag, node_of};
use crate::errors::Refused;
use crate::secret;
use crate::secret::hash_token;
use crate::store::{AccountId, Player};

/// The least time between two spectator counts: a busy room's comings and goings are
/// told as one count, at most about once a second.
const AUDIENCE_INTERVAL: Duration = Duration::from_secs(1);

impl Room {
    /// Gives out the free seat to `player`, whom `blockers` block: a new token, whose
    /// hash is stored. A rated game's seat goes only to a signed-in player, and never to
    /// the opponent's account; no seat goes to a player the room's creator (who holds
    /// the other seat) blocks.
    pub(super) async fn take_seat(
        &mut self,
        player: Player,
        blockers: &[AccountId],
    ) -> Result<SeatGranted, ErrorCode> {
        let color = Color::ALL
            .into_iter()
            .find(|&c| self.seats[c as usize].token.is_none())
            .ok_or(ErrorCode::RoomFull)?;
        let creator = self.seats[color.opponent() as usize].player.account_id();
        if creator.is_some_and(|creator| blockers.iter().any(|b| b == creator)) {
            return Err(ErrorCode::Blocked);
        }
        if self.rated {
            let opponent = &self.seats[color.opponent() as usize].player;
            match player.account_id() {
                None => return Err(ErrorCode::SignInRequired),
                Some(id) if opponent.account_id() == Some(id) => {
                    return Err(ErrorCode::BadRequest);
                }
                Some(_) => {}
            }
        }
        let token = secret::token();
        let hash = hash_token(&token);
        let stored = self
            .context
            .services
            .store
            .take_seat(&self.id, self.incarnation, color, hash, player.clone())
            .await;
        if !self.stored(stored).map_err(|refusal| refusal.code)? {
            return Err(ErrorCode::RoomFull);
        }
        let seat = &mut self.seats[color as usize];
        seat.token = Some(hash);
        seat.player = player;
        // The player is away until they join, and may be claimed against after the
        // grace period like anyone away.
        seat.away = Some(Instant::now());
        tracing::info!(%color, "seat taken");
        Ok(SeatGranted {
            room: self.id.clone(),
            color,
            token,
        })
    }

    /// Seats `conn`, whose account blocks `blocks`, on the seat whose token it presents,
    /// or that its account holds, telling a connection already there that it has been
    /// replaced.
    pub(super) fn join(
        &mut self,
        conn: ConnId,
        key: &Key,
        since: Option<Seq>,
        lists: bool,
        blocks: Vec<AccountId>,
    ) -> Result<Entered, ErrorCode> {
        let color = self.seat_held_by(key)?;
        let seat = &mut self.seats[color as usize];
        seat.away = None;
        // The same connection joining again (its node relays the room, and the relay was
        // made again) replaces nothing.
        if let Some(old) = seat.holder.replace(Holder { conn, lists })
            && old.conn != conn
        {
            tracing::info!(%color, old = old.conn, new = conn, "seat taken over");
            self.history.notify_takeover(old.conn);
            self.chat.left(old.conn);
        }
        self.chat.entered(conn, blocks);
        let seat = &mut self.seats[color as usize];
        let again = std::mem::replace(&mut seat.joined_before, true);
        self.history.notify(&match again {
            true => ServerMessage::PlayerReconnected { color },
            false => ServerMessage::PlayerJoined { color },
        });
        Ok(self.entered(conn, Role::player(color), since))
    }

    /// The seat whose token `key` presents, or that its account holds; `BadToken` or
    /// `NotAPlayer` when none is.
    fn seat_held_by(&self, key: &Key) -> Result<Color, ErrorCode> {
        let holds = |seat: &Seat| match key {
            Key::Token(token) => {
                let presented = hash_token(token);
                seat.token.is_some_and(|t| secret::same(&t, &presented))
            }
            Key::Account(account) => seat.player.account_id() == Some(account),
        };
        Color::ALL
            .into_iter()
            .find(|&c| holds(&self.seats[c as usize]))
            .ok_or(match key {
                Key::Token(_) => ErrorCode::BadToken,
                Key::Account(_) => ErrorCode::NotAPlayer,
            })
    }

    /// Account `account` was deleted and is `name` now: its seats show that name, and
    /// the lines it said are no longer kept for members who enter.
    pub(super) fn forget(&mut self, account: &str, name: &str) {
        for seat in &mut self.seats {
            if let Some(held) = seat
                .player
                .account
                .as_mut()
                .filter(|held| held.id == account)
            {
                held.username = name.to_owned();
                seat.player.name = Some(name.to_owned());
            }
        }
        self.chat.forget(account);
    }

    /// Deletes the room for its creator (who presents `key`) while nobody has taken the
    /// other seat and the game is not over. The room then closes: its members are
    /// disconnected, and find it gone when they come back.
    pub(super) async fn cancel(&mut self, key: &Key) -> Result<(), ErrorCode> {
        let color = self.seat_held_by(key)?;
        if self.seats[color.opponent() as usize].token.is_some() || self.outcome().is_some() {
            return Err(ErrorCode::NotCancellable);
        }
        let stored = self
            .context
            .services
            .store
            .cancel(&self.id, self.incarnation)
            .await;
        if !self.stored(stored).map_err(|refusal| refusal.code)? {
            return Err(ErrorCode::NotCancellable);
        }
        tracing::info!(%color, "room cancelled by its creator");
        self.cancelled = true;
        Ok(())
    }

    /// Adds `conn`, whose account blocks `blocks`, to the spectators.
    pub(super) fn watch(
        &mut self,
        conn: ConnId,
        since: Option<Seq>,
        blocks: Vec<AccountId>,
    ) -> Entered {
        self.audience.spectators.insert(conn);
        self.chat.entered(conn, blocks);
        self.audience_changed();
        self.entered(conn, Role::Spectator, since)
    }

    /// A fresh snapshot for `conn`, which fell behind, or `SeatTakenOver` if it no longer
    /// holds its seat.
    pub(super) fn resync(&self, conn: ConnId) -> Result<Entered, ErrorCode> {
        let role = self.role_of(conn).ok_or(ErrorCode::SeatTakenOver)?;
        Ok(Entered {
            role,
            start: Start::Snapshot(Box::new(self.snapshot(conn, role))),
        })
    }

    /// `conn` has gone: a spectator is counted out, a player is away from now.
    pub(super) fn leave(&mut self, conn: ConnId) {
        self.chat.left(conn);
        if self.audience.spectators.remove(&conn) {
            self.audience_changed();
        } else if let Some(color) = self.seat_of(conn) {
            let seat = &mut self.seats[color as usize];
            seat.holder = None;
            seat.away = Some(Instant::now());
            let claim_in_ms = self.claim_in(color).map(millis);
            self.history
                .notify(&ServerMessage::PlayerLeft { color, claim_in_ms });
        }
    }

    /// Node `node` died: each of its members has gone.
    pub(super) fn node_died(&mut self, node: NodeTag) {
        let spectators = self.audience.spectators.iter();
        let holders = self.seats.iter().filter_map(|seat| seat.holder.as_ref());
        let gone: Vec<ConnId> = spectators
            .copied()
            .chain(holders.map(|holder| holder.conn))
            .filter(|&conn| node_of(conn) == node)
            .collect();
        for conn in gone {
            self.leave(conn);
        }
    }

    /// The seat of the player on `conn`, or why `conn` may not act.
    pub(super) fn player(&self, conn: ConnId) -> Result<Color, Refused> {
        self.seat_of(conn).ok_or_else(|| {
            if self.audience.spectators.contains(&conn) {
                Refused::new(ErrorCode::NotAPlayer, "spectators cannot act in the game")
            } else {
                Refused::new(
                    ErrorCode::SeatTakenOver,
                    "another connection holds this seat now",
                )
            }
        })
    }

    /// Who `conn` is in the room, if it is in it.
    pub(super) fn role_of(&self, conn: ConnId) -> Option<Role> {
        if self.audience.spectators.contains(&conn) {
            Some(Role::Spectator)
        } else {
            self.seat_of(conn).map(Role::player)
        }
    }

    /// The seat `conn` plays, if it holds one.
    pub(super) fn seat_of(&self, conn: ConnId) -> Option<Color> {
        Color::ALL.into_iter().find(|&c| {
            self.seats[c as usize]
                .holder
                .as_ref()
                .is_some_and(|h| h.conn == conn)
        })
    }

    /// While the game goes on and `color`'s player is away: the time until the opponent
    /// may claim the win. Never in a correspondence game, where players come and go
    /// between moves and only the days per move decide.
    pub(super) fn claim_in(&self, color: Color) -> Option<Duration> {
        if self.clock.as_ref().is_some_and(Clock::is_correspondence) {
            return None;
        }
        let away = self.seats[color as usize].away?;
        let grace = self.context.timings.grace_period;
        self.outcome()
            .is_none()
            .then(|| grace.saturating_sub(away.elapsed()))
    }

    /// Whether nobody is connected to the room.
    pub(super) fn is_empty(&self) -> bool {
        self.audience.spectators.is_empty() && self.seats.iter().all(|seat| seat.holder.is_none())
    }

    /// How many watch.
    pub(super) fn audience_size(&self) -> usize {
        self.audience.spectators.len()
    }

    /// When the spectator count is next to be told, if it has changed.
    pub(super) fn audience_due(&self) -> Option<Instant> {
        self.audience.due
    }

    /// Tells everyone how many watch, if that changed since they were last told.
    pub(super) fn tell_audience(&mut self) {
        let audience = &mut self.audience;
        audience.due = None;
        let count = audience.spectators.len();
        if count != audience.told {
            audience.told = count;
            audience.told_at = Some(Instant::now());
            self.history.notify(&ServerMessage::Spectators { count });
        }
    }

    /// The number of spectators changed: a count is due at once after a quiet second,
    /// otherwise a second after the last.
    fn audience_changed(&mut self) {
        let audience = &mut self.audience;
        if audience.due.is_none() {
            let now = Instant::now();
            let next = audience
                .told_at
                .map_or(now, |told| (told + AUDIENCE_INTERVAL).max(now));
            audience.due = Some(next);
        }
    }
}
