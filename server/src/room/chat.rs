//! The room's chat as data: the players' channel, which spectators never see, and the
//! spectators', which the players see once the game is over; the recent lines kept for
//! members who enter, who muted whom, and whom each member blocks. (What a member says
//! is taken in `talk`.)

use std::collections::{HashMap, VecDeque};

use punct_protocol::{Channel, ChatLine, Role};

use super::protocol::Hearers;
use crate::cluster::ConnId;
use crate::store::AccountId;

/// Lines kept for members who enter.
const KEPT: usize = 100;

/// The chat's recent lines, who muted whom, and who blocks whom.
#[derive(Debug, Default)]
pub(super) struct Chat {
    /// The last lines, oldest first, each with its speaker's account if signed in.
    lines: VecDeque<(ChatLine, Option<AccountId>)>,
    /// Whether White's and Black's players muted their opponent.
    pub(super) muted: [bool; 2],
    /// The accounts each signed-in member blocks (as it said on entering), while it is
    /// in the room: their lines do not reach it. Members who block nobody are absent.
    blocks: HashMap<ConnId, Vec<AccountId>>,
}

impl Chat {
    /// A chat with `lines` said before, oldest first, and who muted whom.
    pub(super) fn with(lines: Vec<(ChatLine, Option<AccountId>)>, muted: [bool; 2]) -> Chat {
        Chat {
            lines: lines.into(),
            muted,
            blocks: HashMap::new(),
        }
    }

    /// Keeps `line`, said by `account`, for members who enter later.
    pub(super) fn keep(&mut self, line: ChatLine, account: Option<AccountId>) {
        if self.lines.len() == KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back((line, account));
    }

    /// Forgets the lines `account` said (it was deleted).
    pub(super) fn forget(&mut self, account: &str) {
        self.lines
            .retain(|(_, speaker)| speaker.as_deref() != Some(account));
    }

    /// Shows line `id` as removed to whoever enters from now on.
    pub(super) fn remove(&mut self, id: u64) {
        for (line, _) in &mut self.lines {
            if line.line == Some(id) {
                line.text.clear();
                line.removed = true;
            }
        }
    }

    /// The member on `conn` blocks `blocks` while it is in the room.
    pub(super) fn entered(&mut self, conn: ConnId, blocks: Vec<AccountId>) {
        if blocks.is_empty() {
            self.blocks.remove(&conn);
        } else {
            self.blocks.insert(conn, blocks);
        }
    }

    /// The member on `conn` has gone.
    pub(super) fn left(&mut self, conn: ConnId) {
        self.blocks.remove(&conn);
    }

    /// Who hears `line`, said by `account`, `over` once the game is over: the players
    /// hear each other unless muted; the spectators hear each other, and the players do
    /// too once the game is over; nobody hears an account they block.
    pub(super) fn hearers(
        &self,
        line: &ChatLine,
        account: Option<&AccountId>,
        over: bool,
    ) -> Hearers {
        let seat_hears = |seat: usize| match line.channel {
            Channel::Players => line
                .color
                .is_some_and(|by| by as usize == seat || !self.muted[seat]),
            Channel::Spectators => over,
        };
        let deaf = match account {
            Some(account) => self
                .blocks
                .iter()
                .filter(|(_, blocked)| blocked.contains(account))
                .map(|(&conn, _)| conn)
                .collect(),
            None => Vec::new(),
        };
        Hearers {
            seats: [seat_hears(0), seat_hears(1)],
            spectators: line.channel == Channel::Spectators,
            deaf,
        }
    }

    /// The recent lines the member on `conn`, who is `role`, hears, oldest first.
    pub(super) fn lines_for(&self, conn: ConnId, role: Role, over: bool) -> Vec<ChatLine> {
        self.lines
            .iter()
            .filter(|(line, account)| self.hearers(line, account.as_ref(), over).hear(conn, role))
            .map(|(line, _)| line.clone())
            .collect()
    }
}
