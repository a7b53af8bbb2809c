//! The director's protocol: the one request type its actor takes, the answers it gives
//! and the events it tells its followers. A request is the same value whether it comes
//! from this node or, forwarded unchanged, from another.

use axum::extract::ws::Utf8Bytes;
use punct_protocol::{ErrorCode, TournamentRound, TournamentView};
use serde::{Deserialize, Serialize};

use crate::store::{Account, AccountId};

/// What a tournament's director can be asked.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Request {
    /// Enter `account` before the start. Answered [`Answer::Done`].
    Join {
        /// Who enters.
        account: Account,
    },
    /// `account` leaves: before the start its entry goes; after it, the player is paired
    /// no more and their game in progress is forfeited. Answered [`Answer::Done`].
    Withdraw {
        /// Who leaves.
        account: AccountId,
    },
    /// The tournament as it stands. Answered [`Answer::View`]; whoever asked hears its
    /// events from then on.
    View,
    /// A game of the tournament ended in room `room` (its result is stored). Not
    /// answered (told).
    GameEnded {
        /// The game's room.
        room: String,
    },
}

/// What a director answers; each request's doc says which.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Answer {
    /// Done, or why not.
    Done(Result<(), ErrorCode>),
    /// The tournament as it stands.
    View(Box<TournamentView>),
}

impl Answer {
    /// The answer to `Join` or `Withdraw`; a director that answered otherwise is a bug,
    /// which the caller sees as a failure to try again.
    pub(crate) fn done(self) -> Result<(), ErrorCode> {
        match self {
            Answer::Done(done) => done,
            Answer::View(_) => Err(mismatch()),
        }
    }

    /// The answer to `View`.
    pub(crate) fn view(self) -> Result<TournamentView, ErrorCode> {
        match self {
            Answer::View(view) => Ok(*view),
            Answer::Done(_) => Err(mismatch()),
        }
    }
}

/// Logs an answer to another request; answers the code the caller sees.
fn mismatch() -> ErrorCode {
    tracing::error!("a director answered another request's answer");
    ErrorCode::StorageFailed
}

/// What a director tells its followers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Event {
    /// The tournament changed: a player joined or withdrew, a game ended, it started or
    /// ended. The whole of it, standings included, as the unasked `tournament` message,
    /// serialised once for every follower: an arena's view holds every game paired, and
    /// a thousand followers each serialising their own copy took the server's time.
    Changed {
        /// Whether it is over (finished or cancelled): its followers stop then.
        over: bool,
        /// The `tournament` message, its bytes shared by every follower's queue.
        #[serde(with = "shared")]
        json: Utf8Bytes,
    },
    /// A round was paired (stored first): its games, each a player's next game.
    Paired(TournamentRound),
}

/// Shared text ([`Utf8Bytes`]), a plain string between nodes.
mod shared {
    use axum::extract::ws::Utf8Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(text: &Utf8Bytes, to: S) -> Result<S::Ok, S::Error> {
        to.serialize_str(text.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Utf8Bytes, D::Error> {
        String::deserialize(from).map(Utf8Bytes::from)
    }
}
