//! The seek pool's whole interface: what it is asked, what it answers, and what it tells
//! every seeker. Each crosses between nodes as it is.

use punct_protocol::{ErrorCode, SeekGame};
use serde::{Deserialize, Serialize};

use crate::cluster::{ConnId, NodeTag};
use crate::secret::TokenHash;
use crate::store::{AccountId, Player};

/// The id of the one pool of a cluster.
pub(crate) const POOL: &str = "pool";

/// One seek, as the seeker's connection sends it to the pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct NewSeek {
    /// Its id (a UUIDv7, made by the seeker's connection; the same when it seeks again
    /// after the pool moved).
    pub(crate) seek: String,
    /// The connection seeking: one seek a connection, ended when it closes.
    pub(crate) conn: ConnId,
    /// The game wanted.
    pub(crate) game: SeekGame,
    /// Who seeks, as their seat will show them.
    pub(crate) player: Player,
    /// For a seeker not signed in: the key their client keeps in all its tabs.
    pub(crate) guest: Option<String>,
    /// The seeker's rating in the variant, when signed in.
    pub(crate) rating: Option<f64>,
    /// For a rated seek: how far the opponent's rating may be from the seeker's.
    pub(crate) range: Option<u32>,
    /// The accounts the seeker blocks: never met.
    pub(crate) blocks: Vec<AccountId>,
    /// The hash of the seat token the seeker's connection keeps for the room made: the
    /// token itself never leaves that connection.
    pub(crate) seat: TokenHash,
}

/// What the pool is asked.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Request {
    /// Seek (in place of the connection's earlier seek); answered at once.
    Seek(Box<NewSeek>),
    /// The connection's seek ends (it closed, cancelled or entered a room).
    Cancel {
        /// The connection.
        conn: ConnId,
    },
    /// A node of the cluster died: its connections' seeks end.
    NodeDied {
        /// The node.
        node: NodeTag,
    },
}

/// What the pool answers.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Answer {
    /// The seek waits, until this time (ms since the Unix epoch).
    Waiting {
        /// When it ends if nobody meets it.
        expires_at: i64,
    },
    /// It met a waiting seek at once (or had met one, for a seek asked again).
    Paired(Pairing),
    /// It was not taken: the room could not be made, or nothing was asked.
    Refused(ErrorCode),
}

/// What the pool tells every seeker.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Event {
    /// Seeks met: their rooms are made (the pairings the pool made together).
    Paired(Vec<Pairing>),
    /// A seek ran out.
    Expired {
        /// Its id.
        seek: String,
    },
}

/// Two seeks that met, and the room of their game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pairing {
    /// The room.
    pub(crate) room: String,
    /// The seek that plays White, and who its player is.
    pub(crate) white: (String, punct_protocol::Player),
    /// The seek that plays Black, and who its player is.
    pub(crate) black: (String, punct_protocol::Player),
}

impl Pairing {
    /// The colour of seek `seek` in this pairing and its opponent, if it is one of the two.
    pub(crate) fn side_of(
        &self,
        seek: &str,
    ) -> Option<(punct_rules::Color, &punct_protocol::Player)> {
        if self.white.0 == seek {
            Some((punct_rules::Color::White, &self.black.1))
        } else if self.black.0 == seek {
            Some((punct_rules::Color::Black, &self.white.1))
        } else {
            None
        }
    }
}
