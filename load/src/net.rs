//! The load's connections: `punct-client` WebSockets from chosen loopback source
//! addresses, counted while they live, and a quick look at what the server sends.
//!
//! Messages are only peeked at: the fields the load needs are read and the rest (the
//! legal turn lists above all) skipped, so the tool spends its share of the machine's
//! CPU on sockets, not on building values it would throw away.

use std::sync::Arc;

use punct_client::{Client, Connection};
use punct_protocol::{ClientMessage, RequestId, ServerMessage};
use serde::Deserialize;

use crate::stats::Stats;

/// What the load needs to know of a server message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// A reply (`ack`, `snapshot`, …) to request `id`.
    Reply {
        /// The request answered.
        id: RequestId,
    },
    /// An `error`, answering request `id` if it names one.
    Error {
        /// The request refused.
        id: Option<RequestId>,
        /// The error code.
        code: String,
    },
    /// A `turn_played` event: turn `number` of the game.
    Turn {
        /// How many turns the game has had, this one included.
        number: usize,
        /// The turn, in notation.
        turn: String,
    },
    /// The legal turns for the player to move.
    YourTurn,
    /// A `snapshot` the client did not ask for (its room moved to another node): the
    /// room as it stands after `turns` turns.
    Snapshot {
        /// How many turns the game has had.
        turns: usize,
    },
    /// The game is over.
    GameOver,
    /// A `tournament_game`: the receiver's next game of the followed tournament.
    Pairing {
        /// The game's room.
        room: String,
        /// The receiver's colour.
        color: punct_rules::Color,
    },
    /// Anything else (presence, spectator counts).
    Other,
}

/// The fields of a server message the load looks at.
#[derive(Deserialize)]
struct Peek<'a> {
    /// The message's type tag.
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    /// The request id of a reply.
    id: Option<RequestId>,
    /// The turn number of a `turn_played`.
    number: Option<usize>,
    /// The code of an `error`.
    code: Option<String>,
    /// The turn of a `turn_played`.
    turn: Option<&'a str>,
    /// The room of a `snapshot`.
    #[serde(borrow)]
    room: Option<PeekRoom<'a>>,
}

/// The field of a snapshot's room the load looks at.
#[derive(Deserialize)]
struct PeekRoom<'a> {
    /// Every turn played.
    #[serde(borrow)]
    turns: Vec<&'a str>,
}

/// The fields of a `tournament_game` the load looks at.
#[derive(Deserialize)]
struct PeekPairing {
    /// The game's room.
    room: String,
    /// The receiver's colour.
    color: punct_rules::Color,
}

impl Incoming {
    fn peek(text: &str) -> Result<Incoming, String> {
        // The lists of legal turns are tens of KiB, and a tournament's view as much as
        // its pairings take: their type, which the server writes first, is all the load
        // needs of them. A reply (a `tournament` with an `id`) is read in full.
        if text.starts_with(r#"{"type":"your_turn","#) {
            return Ok(Incoming::YourTurn);
        }
        if text.starts_with(r#"{"type":"tournament","tournament""#)
            || text.starts_with(r#"{"type":"tournament_round","#)
        {
            return Ok(Incoming::Other);
        }
        if text.starts_with(r#"{"type":"tournament_game","#) {
            let pairing: PeekPairing =
                serde_json::from_str(text).map_err(|e| format!("unreadable pairing: {e}"))?;
            return Ok(Incoming::Pairing {
                room: pairing.room,
                color: pairing.color,
            });
        }
        let peek: Peek<'_> =
            serde_json::from_str(text).map_err(|e| format!("unreadable message: {e}"))?;
        Ok(match (peek.kind, peek.id, peek.number) {
            ("error", id, _) => Incoming::Error {
                id,
                code: peek.code.unwrap_or_default(),
            },
            (_, Some(id), _) => Incoming::Reply { id },
            ("turn_played", _, Some(number)) => Incoming::Turn {
                number,
                turn: peek.turn.unwrap_or_default().to_owned(),
            },
            ("your_turn", _, _) => Incoming::YourTurn,
            ("game_over", _, _) => Incoming::GameOver,
            ("snapshot", _, _) => Incoming::Snapshot {
                turns: peek.room.map_or(0, |room| room.turns.len()),
            },
            _ => Incoming::Other,
        })
    }
}

/// An open connection that has said hello. Counted in the connections held while it
/// lives.
pub(crate) struct Conn {
    /// The connection.
    connection: Connection,
    /// Whether sending or receiving failed: the connection is gone.
    broken: bool,
    /// Where the connection is counted.
    stats: Arc<Stats>,
}

impl Conn {
    /// Connects with `client` (bound to its source address) and says hello, asking for
    /// the legal turns or not.
    pub(crate) async fn open(
        client: &Client,
        legal_turns: bool,
        stats: &Arc<Stats>,
    ) -> Result<Conn, String> {
        let connection = client.connect().await.map_err(|e| e.chain())?;
        stats.opened();
        let mut conn = Conn {
            connection,
            broken: false,
            stats: Arc::clone(stats),
        };
        conn.connection
            .hello(legal_turns)
            .await
            .map_err(|e| e.chain())?;
        Ok(conn)
    }

    /// Sends the request `make(id)`; answers its id.
    pub(crate) async fn send(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<RequestId, String> {
        let sent = self.connection.send(make).await;
        self.broken |= sent.is_err();
        sent.map_err(|e| e.chain())
    }

    /// Whether the connection is gone (sending or receiving failed).
    pub(crate) fn is_broken(&self) -> bool {
        self.broken
    }

    /// Sends a request and waits for its reply (messages before it are kept for
    /// [`Conn::recv`]); a refusal is an error.
    pub(crate) async fn request(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<(), String> {
        match self.connection.request(make).await {
            Ok(ServerMessage::Error { code, .. }) => Err(format!("request refused: {code}")),
            Ok(_) => Ok(()),
            Err(e) => Err(e.chain()),
        }
    }

    /// Enters `room` with a request `make(id)` (`join` or `watch`); answers the turns its
    /// snapshot says were played.
    pub(crate) async fn enter(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<Vec<punct_rules::Turn>, String> {
        match self.connection.request(make).await {
            Ok(ServerMessage::Snapshot { room, .. }) => Ok(room.turns),
            Ok(ServerMessage::Error { code, .. }) => Err(format!("request refused: {code}")),
            Ok(other) => Err(format!("entering got {other:?}")),
            Err(e) => Err(e.chain()),
        }
    }

    /// The next message from the server, peeked at.
    pub(crate) async fn recv(&mut self) -> Result<Incoming, String> {
        let text = self.connection.recv_text().await;
        self.broken |= text.is_err();
        Incoming::peek(&text.map_err(|e| e.chain())?)
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.stats.closed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_events_and_errors_are_told_apart() {
        let peek = |text| Incoming::peek(text).unwrap();
        assert_eq!(
            peek(r#"{"type":"ack","id":4,"seq":9}"#),
            Incoming::Reply { id: 4 }
        );
        assert_eq!(
            peek(
                r#"{"type":"turn_played","seq":9,"turn":"C4:C5,D5","by":"white","number":1,"to_move":"black"}"#
            ),
            Incoming::Turn {
                number: 1,
                turn: "C4:C5,D5".into()
            }
        );
        assert_eq!(
            peek(r#"{"type":"error","id":5,"code":"not-your-turn","message":"no"}"#),
            Incoming::Error {
                id: Some(5),
                code: "not-your-turn".into()
            }
        );
        assert_eq!(
            peek(r#"{"type":"your_turn","seq":9,"legal_turns":["C4:C5,D5"]}"#),
            Incoming::YourTurn
        );
        assert_eq!(peek(r#"{"type":"spectators","count":2}"#), Incoming::Other);
        assert_eq!(
            peek(
                r#"{"type":"snapshot","you":"white","room":{"seq":9,"turns":["C4:C5,D5","pass"]}}"#
            ),
            Incoming::Snapshot { turns: 2 }
        );
        assert_eq!(
            peek(
                r#"{"type":"tournament_game","tournament":"0196","round":2,"room":"019a","color":"black","opponent":"cleo"}"#
            ),
            Incoming::Pairing {
                room: "019a".into(),
                color: punct_rules::Color::Black
            }
        );
        // A view told unasked is skipped unread; the answer to `follow` is a reply.
        assert_eq!(
            peek(r#"{"type":"tournament","tournament":{"id":"0196"}}"#),
            Incoming::Other
        );
        assert_eq!(
            peek(r#"{"type":"tournament","id":3,"tournament":{"id":"0196"}}"#),
            Incoming::Reply { id: 3 }
        );
        assert!(Incoming::peek("{").is_err());
    }
}
