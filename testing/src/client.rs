//! A WebSocket client that speaks the server's JSON, so that tests read like the
//! conversation they check, and the refusals it hears.

use std::collections::VecDeque;

use punct_client::{CloseFrame, Connection, Error, Message};
use punct_protocol::{ChatLine, ClientMessage, ErrorCode, RoomSnapshot, Seq, ServerMessage};
use punct_rules::Turn;

/// A refused request: its error code and, for an illegal turn, the rule.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    /// The error code.
    pub code: ErrorCode,
    /// The rules engine's reason.
    pub rule: Option<String>,
}

/// A WebSocket client speaking the protocol, that checks the room's events come in
/// sequence.
pub struct Client {
    /// The connection.
    connection: Connection,
    /// Messages read while waiting for the server to close the connection, in order.
    closing: VecDeque<ServerMessage>,
    /// The last room sequence number seen: every event must follow it without a gap.
    last_seq: Option<Seq>,
}

impl Client {
    /// A client on `connection`, which has said nothing yet.
    pub(crate) fn new(connection: Connection) -> Client {
        Client {
            connection,
            closing: VecDeque::new(),
            last_seq: None,
        }
    }

    /// Sends a text frame as it is.
    pub async fn send_text(&mut self, text: &str) {
        self.connection.send_text(text).await.unwrap();
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, bytes: &[u8]) {
        self.send_raw(Message::binary(bytes.to_vec())).await;
    }

    /// Sends any WebSocket message, raw frames included.
    pub async fn send_raw(&mut self, message: Message) {
        self.connection.send_frame(message).await.unwrap();
    }

    /// Sends a request.
    pub async fn send(&mut self, message: &ClientMessage) {
        self.send_text(&serde_json::to_string(message).unwrap())
            .await;
    }

    /// The next message from the server, whatever it is; checks that room events come
    /// in sequence.
    pub async fn recv(&mut self) -> ServerMessage {
        self.recv_within(std::time::Duration::ZERO).await
    }

    /// As [`Client::recv`], waiting up to `patience` if that is longer than a reply's
    /// wait: for a member of a room that may be moving off a node that died.
    pub async fn recv_within(&mut self, patience: std::time::Duration) -> ServerMessage {
        let deadline = std::time::Instant::now() + patience;
        let message = loop {
            if let Some(message) = self.closing.pop_front() {
                break message;
            }
            match self.connection.recv().await {
                Ok(message) => break message,
                Err(Error::Timeout(_)) if std::time::Instant::now() < deadline => {}
                Err(e) => panic!("a message in time, on an open connection: {e}"),
            }
        };
        self.track(&message);
        message
    }

    fn track(&mut self, message: &ServerMessage) {
        match message {
            ServerMessage::Snapshot { room, .. } => self.last_seq = Some(room.seq),
            ServerMessage::Resumed { since, .. } => self.last_seq = Some(*since),
            _ => {}
        }
        if let Some(seq) = message.seq() {
            if let Some(last) = self.last_seq {
                // A room loaded again (elsewhere in a cluster) counts from 1 in a new
                // high half.
                let reloaded = seq >> 32 > last >> 32 && seq & u64::from(u32::MAX) == 1;
                assert!(
                    seq == last + 1 || reloaded,
                    "events arrive in sequence, without gaps: {seq} after {last}"
                );
            }
            self.last_seq = Some(seq);
        }
    }

    /// Sends the request `make(id)` and answers the reply with that id; other messages
    /// are kept for [`Client::recv`].
    pub async fn request(&mut self, make: impl FnOnce(u64) -> ClientMessage) -> ServerMessage {
        let reply = self
            .connection
            .request(make)
            .await
            .expect("a reply in time");
        self.track(&reply);
        reply
    }

    /// Waits for the reply to request `id` for up to `patience`, longer than
    /// [`Client::reply_to`] waits: for a request that may have to wait out a failure.
    pub async fn reply_within(&mut self, id: u64, patience: std::time::Duration) -> ServerMessage {
        let deadline = std::time::Instant::now() + patience;
        loop {
            match self.connection.reply(id).await {
                Ok(reply) => {
                    self.track(&reply);
                    return reply;
                }
                Err(Error::Timeout(_)) if std::time::Instant::now() < deadline => {}
                Err(e) => panic!("no reply to request {id} in {patience:?}: {e}"),
            }
        }
    }

    /// Waits for the reply to request `id`.
    pub async fn reply_to(&mut self, id: u64) -> ServerMessage {
        let reply = self.connection.reply(id).await.expect("a reply in time");
        self.track(&reply);
        reply
    }

    /// Says hello with the current protocol version.
    pub async fn hello(&mut self) {
        self.connection.hello(true).await.unwrap();
    }

    /// Asks for a seat with `token`; answers the reply, whatever it is.
    async fn ask_seat(&mut self, room: &str, token: &str) -> ServerMessage {
        self.join_as(room, Some(token)).await
    }

    /// Asks for a seat with `token`, or without one (a signed-in connection's account's
    /// seat); answers the reply, whatever it is.
    pub async fn join_as(&mut self, room: &str, token: Option<&str>) -> ServerMessage {
        self.request(|id| ClientMessage::Join {
            id,
            room: room.into(),
            token: token.map(str::to_owned),
            since: None,
        })
        .await
    }

    /// Tries to take a seat with `token` that the server must refuse; answers why.
    pub async fn join_refused(&mut self, room: &str, token: &str) -> ErrorCode {
        match self.ask_seat(room, token).await {
            ServerMessage::Error { code, .. } => code,
            other => panic!("join accepted: {other:?}"),
        }
    }

    /// Takes a seat with its token; answers the snapshot.
    pub async fn join(&mut self, room: &str, token: &str) -> RoomSnapshot {
        match self.ask_seat(room, token).await {
            ServerMessage::Snapshot { room, .. } => room,
            other => panic!("join refused: {other:?}"),
        }
    }

    /// Watches a room; answers the snapshot.
    pub async fn watch(&mut self, room: &str) -> RoomSnapshot {
        let reply = self
            .request(|id| ClientMessage::Watch {
                id,
                room: room.into(),
                since: None,
            })
            .await;
        match reply {
            ServerMessage::Snapshot { room, .. } => room,
            other => panic!("watch refused: {other:?}"),
        }
    }

    /// Says `text` in the room's chat; answers the error code if it was refused.
    pub async fn say(&mut self, text: &str) -> Option<ErrorCode> {
        let text = text.to_owned();
        match self.request(|id| ClientMessage::Chat { id, text }).await {
            ServerMessage::Ack { .. } => None,
            ServerMessage::Error { code, .. } => Some(code),
            other => panic!("{other:?}"),
        }
    }

    /// The next line of chat the client hears, skipping everything else.
    pub async fn heard(&mut self) -> ChatLine {
        loop {
            if let ServerMessage::Chat { line } = self.recv().await {
                return line;
            }
        }
    }

    /// Whether the client hears `text` next, of all lines of chat: it says a line of its
    /// own and reads lines until that one, which comes after anything said before it.
    pub async fn hears_next(&mut self, text: &str) -> bool {
        let mark = format!("mark {}", text.len());
        assert_eq!(self.say(&mark).await, None);
        let first = self.heard().await;
        if first.text == mark {
            return false;
        }
        assert_eq!(first.text, text);
        assert_eq!(self.heard().await.text, mark);
        true
    }

    /// Plays a turn given in notation: the sequence number of its event, or why not.
    pub async fn play(&mut self, turn: &str) -> Result<Seq, Refused> {
        let turn: Turn = turn.parse().unwrap();
        let reply = self
            .request(|id| ClientMessage::Play {
                id,
                turn,
                number: None,
            })
            .await;
        refused_or(reply, |reply| match reply {
            ServerMessage::Ack { seq, .. } => seq,
            other => panic!("expected an ack, got {other:?}"),
        })
    }

    /// Plays `turn` if the connection holds: `Some(true)` when acknowledged, `Some(false)`
    /// when refused, `None` when the connection broke first.
    pub async fn try_play(&mut self, turn: Turn) -> Option<bool> {
        match self
            .connection
            .request(|id| ClientMessage::Play {
                id,
                turn,
                number: None,
            })
            .await
        {
            Ok(ServerMessage::Ack { .. }) => Some(true),
            Ok(_) => Some(false),
            Err(_) => None,
        }
    }

    /// The next turn played in the room, skipping news about who is there and the
    /// private list of legal turns.
    pub async fn next_turn(&mut self) -> (Seq, Turn) {
        loop {
            match self.recv().await {
                ServerMessage::TurnPlayed { seq, turn, .. } => return (seq, turn),
                ServerMessage::PlayerJoined { .. }
                | ServerMessage::PlayerLeft { .. }
                | ServerMessage::PlayerReconnected { .. }
                | ServerMessage::Spectators { .. }
                | ServerMessage::YourTurn { .. } => continue,
                other => panic!("expected a turn, got {other:?}"),
            }
        }
    }

    /// The next message that is not a spectator count (a spectator is told the count its
    /// own arrival made, and counts come whenever the number changed).
    pub async fn next_uncounted(&mut self) -> ServerMessage {
        loop {
            match self.recv().await {
                ServerMessage::Spectators { .. } => continue,
                other => return other,
            }
        }
    }

    /// The next message that is not about who is in the room.
    pub async fn next_news(&mut self) -> ServerMessage {
        loop {
            match self.recv().await {
                ServerMessage::PlayerJoined { .. }
                | ServerMessage::PlayerLeft { .. }
                | ServerMessage::PlayerReconnected { .. }
                | ServerMessage::Spectators { .. } => continue,
                other => return other,
            }
        }
    }

    /// Reads until the server closes the connection; answers its close frame, if any.
    /// Messages read on the way are kept for [`Client::recv`].
    pub async fn closed(&mut self) -> Option<CloseFrame> {
        loop {
            match self.connection.recv().await {
                Ok(message) => self.closing.push_back(message),
                Err(Error::Closed(frame)) => return frame,
                Err(Error::Timeout(_)) => panic!("the server closes the connection in time"),
                // A client that has not read for a while may fail to answer the pings
                // it finds before the close: the connection is gone all the same.
                Err(_) => return None,
            }
        }
    }

    /// The last room sequence number this client has seen.
    pub fn last_seq(&self) -> Option<Seq> {
        self.last_seq
    }

    /// Messages kept while waiting for the close.
    pub fn kept(&mut self) -> Vec<ServerMessage> {
        self.closing.drain(..).collect()
    }
}

/// `Err` with the code of an error reply, or `Ok(read(reply))`.
fn refused_or<T>(
    reply: ServerMessage,
    read: impl FnOnce(ServerMessage) -> T,
) -> Result<T, Refused> {
    match reply {
        ServerMessage::Error { code, rule, .. } => Err(Refused { code, rule }),
        other => Ok(read(other)),
    }
}

/// A refusal without a rule.
pub fn refused(code: ErrorCode) -> Refused {
    Refused { code, rule: None }
}

/// A refusal of an illegal turn for `rule`.
pub fn illegal(rule: &str) -> Refused {
    Refused {
        code: ErrorCode::IllegalTurn,
        rule: Some(rule.into()),
    }
}

/// The code of an error reply; panics on anything else.
pub fn error_code(reply: ServerMessage) -> ErrorCode {
    match reply {
        ServerMessage::Error { code, .. } => code,
        other => panic!("expected an error, got {other:?}"),
    }
}
