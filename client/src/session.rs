//! A connection to one room that comes back by itself: [`connect`] keeps a player or
//! spectator in their room, reconnecting after a drop (with back-off) and resuming from
//! the last event seen, while its owner sends requests and reads events over channels.

use std::time::Duration;

use punct_protocol::{Action, ClientMessage, ErrorCode, RequestId, Seq, ServerMessage};
use tokio::sync::mpsc;

use crate::socket::decode;
use crate::{Client, Connection, Error};

/// The first wait before reconnecting; it doubles up to [`LAST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(200);
/// The longest wait before reconnecting.
const LAST_BACKOFF: Duration = Duration::from_secs(5);

/// How a connection enters its room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// As a player, with the seat token, or without one on a signed-in client whose
    /// account holds a seat of the room.
    Seat {
        /// The room's id.
        room: String,
        /// The seat token; `None` to take the seat the account holds.
        token: Option<String>,
    },
    /// As a spectator.
    Watch {
        /// The room's id.
        room: String,
    },
}

impl Entry {
    /// The request that enters the room, coming back after `since` if given.
    fn message(&self, id: RequestId, since: Option<Seq>) -> ClientMessage {
        match self {
            Entry::Seat { room, token } => ClientMessage::Join {
                id,
                room: room.clone(),
                token: token.clone(),
                since,
            },
            Entry::Watch { room } => ClientMessage::Watch {
                id,
                room: room.clone(),
                since,
            },
        }
    }
}

/// What the owner of a connection asks of its room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Something of the game: a turn, a draw, a rematch…
    Action(Action),
    /// A line of chat.
    Chat(String),
    /// Stop (true) or start again (false) hearing the opponent's chat.
    Mute(bool),
}

impl From<Action> for Request {
    fn from(action: Action) -> Request {
        Request::Action(action)
    }
}

impl Request {
    /// The request's message, numbered `id`.
    fn message(&self, id: RequestId) -> ClientMessage {
        match self {
            Request::Action(action) => action.request(id),
            Request::Chat(text) => ClientMessage::Chat {
                id,
                text: text.clone(),
            },
            Request::Mute(muted) => ClientMessage::Mute { id, muted: *muted },
        }
    }
}

/// What the connection tells its owner.
#[derive(Clone, Debug, PartialEq)]
// Events go through one channel, each moved once: boxing the big variant saves nothing.
#[allow(clippy::large_enum_variant)]
pub enum NetEvent {
    /// In the room (the snapshot or `resumed` follows as a message).
    Connected,
    /// A message from the server, in order.
    Message(ServerMessage),
    /// The connection dropped; it is being re-established.
    Disconnected(String),
    /// The connection ended for good (a bad token, no such room, the seat taken over).
    Failed(String),
}

/// The handles of a connection task: requests in, events out. Dropping the sender
/// closes the connection.
#[derive(Debug)]
pub struct Link {
    /// What to ask the room (the connection numbers the requests).
    pub requests: mpsc::UnboundedSender<Request>,
    /// Events, in order.
    pub events: mpsc::UnboundedReceiver<NetEvent>,
}

/// Starts a connection to `entry`'s room. It says in its `hello` that it wants no lists
/// of legal turns: its owner finds them with `punct-rules`, as the terminal client and
/// the bots do. It reconnects after a drop (resuming from the last sequence number
/// seen) until the owner drops [`Link::requests`] or the server refuses it for good. The
/// very first connection failing is final, a wrong address should not be retried
/// forever, unless the server refused it only for now ([`Error::is_for_now`]).
pub fn connect(client: Client, entry: Entry) -> Link {
    let (requests, mut request_rx) = mpsc::unbounded_channel();
    let (event_tx, events) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut since: Option<Seq> = None;
        let mut ever_connected = false;
        let mut backoff = FIRST_BACKOFF;
        loop {
            let ended = session(&client, &entry, &mut since, &event_tx, &mut request_rx).await;
            let end = match ended {
                Ok(End::OwnerGone) => return,
                Ok(End::Final(reason)) => Err(reason),
                Ok(End::Dropped(reason)) => {
                    ever_connected = true;
                    backoff = FIRST_BACKOFF;
                    Ok(reason)
                }
                // Once in, or refused only for now, it tries again: only a first
                // connection that cannot be made or is refused for good is final.
                Err(e) if ever_connected || e.is_for_now() => Ok(e.chain()),
                Err(e) => Err(e.chain()),
            };
            // The node may be going away: come back on the next, if there are several.
            client.move_on();
            let event = match end {
                Ok(reason) => NetEvent::Disconnected(reason),
                Err(reason) => NetEvent::Failed(reason),
            };
            let last = matches!(event, NetEvent::Failed(_));
            if event_tx.send(event).is_err() || last {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = event_tx.closed() => return,
            }
            backoff = (backoff * 2).min(LAST_BACKOFF);
        }
    });
    Link { requests, events }
}

/// How one connection ended.
enum End {
    /// The owner dropped its handles.
    OwnerGone,
    /// The server refused us for good.
    Final(String),
    /// The connection dropped after it was in the room.
    Dropped(String),
}

/// One connection: hello, enter the room, then pass messages both ways until it ends.
/// An error before entering the room is returned as `Err`.
async fn session(
    client: &Client,
    entry: &Entry,
    since: &mut Option<Seq>,
    events: &mpsc::UnboundedSender<NetEvent>,
    requests: &mut mpsc::UnboundedReceiver<Request>,
) -> Result<End, Error> {
    let mut connection: Connection = client.connect().await?;
    match connection.hello(false).await {
        Err(Error::Rejected {
            code: ErrorCode::UnsupportedVersion,
            message,
        }) => return Ok(End::Final(format!("{message} (unsupported-version)"))),
        other => other?,
    }
    let entering = *since;
    let enter_id = connection.send(|id| entry.message(id, entering)).await?;
    let mut entered = false;
    loop {
        tokio::select! {
            text = connection.recv_text() => {
                let message = match text.and_then(|text| decode(&text)) {
                    Ok(message) => message,
                    Err(e) if entered => return Ok(End::Dropped(e.chain())),
                    Err(e) => return Err(e),
                };
                match &message {
                    ServerMessage::Snapshot { room, .. } => *since = Some(room.seq),
                    ServerMessage::Bye { code: ErrorCode::SeatTakenOver, message } => {
                        return Ok(End::Final(format!("seat-taken-over: {message}")));
                    }
                    // A room the server cannot hold or read now: try again later.
                    ServerMessage::Error { id: Some(id), code: code @ (ErrorCode::TooManyRooms | ErrorCode::StorageFailed), message, .. }
                        if *id == enter_id =>
                    {
                        return Err(Error::Rejected { code: *code, message: message.clone() });
                    }
                    ServerMessage::Error { id: Some(id), code, message, .. } if *id == enter_id => {
                        return Ok(End::Final(format!("{message} ({code})")));
                    }
                    other => {
                        if let Some(seq) = other.seq() {
                            *since = Some(seq);
                        }
                    }
                }
                if !entered && matches!(message, ServerMessage::Snapshot { .. } | ServerMessage::Resumed { .. }) {
                    entered = true;
                    if events.send(NetEvent::Connected).is_err() {
                        return Ok(End::OwnerGone);
                    }
                }
                if events.send(NetEvent::Message(message)).is_err() {
                    return Ok(End::OwnerGone);
                }
            }
            // Requests wait in the channel until the room is entered.
            request = requests.recv(), if entered => {
                let Some(request) = request else {
                    let _ = connection.close().await;
                    return Ok(End::OwnerGone);
                };
                if let Err(e) = connection.send(|id| request.message(id)).await {
                    return Ok(End::Dropped(e.chain()));
                }
            }
        }
    }
}
