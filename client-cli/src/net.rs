//! Talking to a `punct-server`: the HTTP API for rooms and seats, and one WebSocket
//! connection per room that reconnects by itself.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use futures_util::{SinkExt, StreamExt};
use punct_protocol::{
    ApiError, ClientMessage, CreateRoom, ErrorCode, Lobby, PROTOCOL_VERSION, RequestId,
    SeatGranted, Seq, ServerMessage,
};
use punct_rules::Turn;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// A server address: `host:port`, read from `http://host:port`, `ws://host:port` or
/// `host:port`. Only plain connections are spoken (no TLS): put a proxy in front for that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// `host:port`, as used for both HTTP and the WebSocket.
    authority: String,
}

impl FromStr for Server {
    type Err = String;

    fn from_str(text: &str) -> Result<Server, String> {
        let rest = if let Some(rest) = text.strip_prefix("http://") {
            rest
        } else if let Some(rest) = text.strip_prefix("ws://") {
            rest
        } else if text.starts_with("https://") || text.starts_with("wss://") {
            return Err(format!(
                "'{text}': TLS is not supported; use http:// (behind a proxy if need be)"
            ));
        } else if text.contains("://") {
            return Err(format!("'{text}': the server URL must start with http://"));
        } else {
            text
        };
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.is_empty() {
            return Err(format!("'{text}': no host in the server URL"));
        }
        let authority = if authority.contains(':') {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        Ok(Server { authority })
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}", self.authority)
    }
}

impl Server {
    /// The WebSocket endpoint.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.authority)
    }

    /// `POST /api/rooms`: a new room with a seat in it.
    pub async fn create_room(&self, request: &CreateRoom) -> anyhow::Result<SeatGranted> {
        let body = serde_json::to_string(request)?;
        self.request("POST", "/api/rooms", Some(&body)).await
    }

    /// `POST /api/rooms/{id}/seat`: the free seat of a room.
    pub async fn take_seat(&self, room: &str) -> anyhow::Result<SeatGranted> {
        self.request("POST", &format!("/api/rooms/{room}/seat"), None)
            .await
    }

    /// `GET /api/rooms`: the open and live public rooms.
    pub async fn lobby(&self) -> anyhow::Result<Lobby> {
        self.request("GET", "/api/rooms", None).await
    }

    /// One HTTP/1.1 request with a JSON answer. A dozen lines of HTTP spare the client a
    /// whole HTTP library: the API is a handful of small JSON bodies.
    async fn request<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> anyhow::Result<T> {
        let body = body.unwrap_or("");
        let mut stream = TcpStream::connect(&self.authority)
            .await
            .with_context(|| format!("cannot reach {self}"))?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.authority,
            body.len()
        );
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        let answer = String::from_utf8(answer).context("the server's answer is not UTF-8")?;
        let (head, body) = answer
            .split_once("\r\n\r\n")
            .ok_or_else(|| anyhow!("{self}{path}: not an HTTP answer"))?;
        let status: u16 = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| anyhow!("{self}{path}: no HTTP status"))?;
        if !(200..300).contains(&status) {
            return match serde_json::from_str::<ApiError>(body) {
                Ok(e) => Err(anyhow!("{method} {path}: {} ({})", e.message, e.code)),
                Err(_) => Err(anyhow!("{method} {path}: HTTP {status}")),
            };
        }
        serde_json::from_str(body)
            .with_context(|| format!("{method} {path}: unexpected answer {body}"))
    }
}

/// How a connection enters its room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// As a player, with the seat token.
    Seat {
        /// The room's id.
        room: String,
        /// The seat token.
        token: String,
    },
    /// As a spectator.
    Watch {
        /// The room's id.
        room: String,
    },
}

/// What a client asks of the server once in a room; the connection adds request ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Play a turn.
    Play(Turn),
    /// Give up.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline the opponent's draw offer.
    DeclineDraw,
    /// Claim the win after the opponent abandoned the game.
    ClaimWin,
    /// After the game: ask for a rematch with colours swapped.
    Rematch,
}

impl Request {
    fn message(self, id: RequestId) -> ClientMessage {
        match self {
            Request::Play(turn) => ClientMessage::Play { id, turn },
            Request::Resign => ClientMessage::Resign { id },
            Request::OfferDraw => ClientMessage::OfferDraw { id },
            Request::AcceptDraw => ClientMessage::AcceptDraw { id },
            Request::DeclineDraw => ClientMessage::DeclineDraw { id },
            Request::ClaimWin => ClientMessage::ClaimWin { id },
            Request::Rematch => ClientMessage::Rematch { id },
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
pub struct Link {
    /// Requests to send.
    pub requests: mpsc::UnboundedSender<Request>,
    /// Events, in order.
    pub events: mpsc::UnboundedReceiver<NetEvent>,
}

/// Starts a connection to `entry`'s room. It reconnects after a drop (resuming from the
/// last sequence number seen) until the owner drops [`Link::requests`] or the server
/// refuses it for good. The very first connection failing is final: a wrong address
/// should not be retried forever.
pub fn connect(server: Server, entry: Entry) -> Link {
    let (requests, mut request_rx) = mpsc::unbounded_channel();
    let (event_tx, events) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut since: Option<Seq> = None;
        let mut next_id: RequestId = 1;
        let mut ever_connected = false;
        let mut backoff = Duration::from_millis(200);
        loop {
            let end = match session(
                &server,
                &entry,
                &mut since,
                &mut next_id,
                &event_tx,
                &mut request_rx,
            )
            .await
            {
                Ok(End::OwnerGone) => return,
                Ok(End::Final(reason)) => Err(reason),
                Ok(End::Dropped(reason)) => {
                    ever_connected = true;
                    backoff = Duration::from_millis(200);
                    Ok(reason)
                }
                Err(e) if ever_connected => Ok(format!("{e:#}")),
                Err(e) => Err(format!("{e:#}")),
            };
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
            backoff = (backoff * 2).min(Duration::from_secs(5));
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
    server: &Server,
    entry: &Entry,
    since: &mut Option<Seq>,
    next_id: &mut RequestId,
    events: &mpsc::UnboundedSender<NetEvent>,
    requests: &mut mpsc::UnboundedReceiver<Request>,
) -> anyhow::Result<End> {
    let (mut ws, _) = tokio_tungstenite::connect_async(server.ws_url())
        .await
        .with_context(|| format!("cannot connect to {}", server.ws_url()))?;
    let mut id = || {
        *next_id += 1;
        *next_id
    };
    let send =
        |message: &ClientMessage| Message::text(serde_json::to_string(message).unwrap_or_default());
    // The client finds the legal turns with the rules crate: the server need not.
    ws.send(send(&ClientMessage::Hello {
        id: id(),
        version: PROTOCOL_VERSION,
        legal_turns: false,
    }))
    .await?;
    let enter = match entry {
        Entry::Seat { room, token } => ClientMessage::Join {
            id: id(),
            room: room.clone(),
            token: token.clone(),
            since: *since,
        },
        Entry::Watch { room } => ClientMessage::Watch {
            id: id(),
            room: room.clone(),
            since: *since,
        },
    };
    let enter_id = enter.id();
    ws.send(send(&enter)).await?;
    let mut entered = false;
    loop {
        tokio::select! {
            frame = ws.next() => {
                let text = match frame {
                    None => return Ok(End::Dropped("the server closed the connection".into())),
                    Some(Err(e)) if entered => return Ok(End::Dropped(e.to_string())),
                    Some(Err(e)) => bail!(e),
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(frame))) if entered => {
                        let reason = frame.map_or_else(|| "closed".to_owned(), |f| f.reason.to_string());
                        return Ok(End::Dropped(format!("the server closed the connection: {reason}")));
                    }
                    Some(Ok(_)) => continue,
                };
                let message: ServerMessage = serde_json::from_str(&text)
                    .with_context(|| format!("unreadable message from the server: {text}"))?;
                match &message {
                    ServerMessage::Snapshot { room, .. } => *since = Some(room.seq),
                    ServerMessage::Bye { code: ErrorCode::SeatTakenOver, message } => {
                        return Ok(End::Final(format!("seat-taken-over: {message}")));
                    }
                    ServerMessage::Error { id: Some(id), code, message, .. } if *id == enter_id => {
                        return Ok(End::Final(format!("{message} ({code})")));
                    }
                    ServerMessage::Error { code: ErrorCode::UnsupportedVersion, message, .. } => {
                        return Ok(End::Final(format!("{message} (unsupported-version)")));
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
                    let _ = ws.close(None).await;
                    return Ok(End::OwnerGone);
                };
                if let Err(e) = ws.send(send(&request.message(id()))).await {
                    return Ok(End::Dropped(e.to_string()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_urls_read_as_host_and_port() {
        let server: Server = "http://127.0.0.1:8080/".parse().unwrap();
        assert_eq!(server.ws_url(), "ws://127.0.0.1:8080/ws");
        assert_eq!(server.to_string(), "http://127.0.0.1:8080");
        assert_eq!(
            "ws://example.org".parse::<Server>().unwrap().ws_url(),
            "ws://example.org:80/ws"
        );
        assert_eq!(
            "localhost:9".parse::<Server>(),
            Ok(Server {
                authority: "localhost:9".into()
            })
        );
        assert!(
            "https://example.org"
                .parse::<Server>()
                .unwrap_err()
                .contains("TLS")
        );
        assert!("ftp://example.org".parse::<Server>().is_err());
        assert!("http://".parse::<Server>().is_err());
    }
}
