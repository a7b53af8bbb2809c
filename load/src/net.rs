//! A WebSocket connection from a chosen loopback source address, and the few HTTP/1.1
//! requests the load needs.
//!
//! Replies are only peeked at: the fields the load needs are read and the rest (the
//! legal turn lists above all) skipped, so the tool spends its share of the machine's
//! CPU on sockets, not on building values it would throw away.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use punct_protocol::{ClientMessage, PROTOCOL_VERSION, RequestId};
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::stats::Stats;

/// What the load needs to know of a server message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// A `welcome`, `ack` or `snapshot` answering request `id`.
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
    },
    /// The game is over.
    GameOver,
    /// Anything else (presence, spectator counts, the legal turns).
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
}

impl Incoming {
    fn peek(text: &str) -> Result<Incoming, String> {
        let peek: Peek<'_> =
            serde_json::from_str(text).map_err(|e| format!("unreadable message: {e}"))?;
        Ok(match (peek.kind, peek.id, peek.number) {
            ("welcome" | "ack" | "snapshot", Some(id), _) => Incoming::Reply { id },
            ("error", id, _) => Incoming::Error {
                id,
                code: peek.code.unwrap_or_default(),
            },
            ("turn_played", _, Some(number)) => Incoming::Turn { number },
            ("game_over", _, _) => Incoming::GameOver,
            _ => Incoming::Other,
        })
    }
}

/// An open connection that has said hello. Counted in the connections held while it
/// lives.
pub(crate) struct Conn {
    /// The socket.
    ws: WebSocketStream<TcpStream>,
    /// The next request id.
    next_id: RequestId,
    /// Where the connection is counted.
    stats: Arc<Stats>,
}

impl Conn {
    /// Connects from `source` to the server's WebSocket endpoint and says hello, asking
    /// for the legal turns or not.
    pub(crate) async fn open(
        server: SocketAddr,
        source: Ipv4Addr,
        legal_turns: bool,
        stats: &Arc<Stats>,
    ) -> Result<Conn, String> {
        let stream = connect(server, source).await?;
        // Small buffers, so tens of thousands of connections fit in memory.
        let config = WebSocketConfig::default()
            .read_buffer_size(8 * 1024)
            .write_buffer_size(0);
        let url = format!("ws://{server}/ws");
        let (ws, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(config))
            .await
            .map_err(|e| format!("WebSocket handshake from {source}: {e}"))?;
        stats.opened();
        let mut conn = Conn {
            ws,
            next_id: 1,
            stats: Arc::clone(stats),
        };
        conn.request(|id| ClientMessage::Hello {
            id,
            version: PROTOCOL_VERSION,
            legal_turns,
        })
        .await?;
        Ok(conn)
    }

    /// Sends the request `make(id)`; answers its id.
    pub(crate) async fn send(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<RequestId, String> {
        let id = self.next_id;
        self.next_id += 1;
        let text = serde_json::to_string(&make(id)).expect("client messages serialise");
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|e| format!("send: {e}"))?;
        Ok(id)
    }

    /// Sends a request and waits for its reply, passing over everything else; a refusal
    /// is an error.
    pub(crate) async fn request(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<(), String> {
        let id = self.send(make).await?;
        loop {
            match self.recv().await? {
                Incoming::Reply { id: reply } if reply == id => return Ok(()),
                Incoming::Error {
                    id: Some(reply),
                    code,
                } if reply == id => {
                    return Err(format!("request refused: {code}"));
                }
                _ => continue,
            }
        }
    }

    /// The next message from the server.
    pub(crate) async fn recv(&mut self) -> Result<Incoming, String> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(text))) => return Incoming::peek(text.as_str()),
                Some(Ok(Message::Close(frame))) => {
                    return Err(format!("closed by the server: {frame:?}"));
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(format!("socket error: {e}")),
                None => return Err("the connection ended".into()),
            }
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.stats.closed();
    }
}

/// A TCP connection to `server` from `source`.
async fn connect(server: SocketAddr, source: Ipv4Addr) -> Result<TcpStream, String> {
    let socket = TcpSocket::new_v4().map_err(|e| format!("socket: {e}"))?;
    socket
        .bind(SocketAddr::from((source, 0)))
        .map_err(|e| format!("bind {source}: {e}"))?;
    let stream = socket
        .connect(server)
        .await
        .map_err(|e| format!("connect from {source}: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("nodelay: {e}"))?;
    Ok(stream)
}

/// One HTTP/1.1 request from `source`; answers the status and the body.
pub(crate) async fn http(
    server: SocketAddr,
    source: Ipv4Addr,
    method: &str,
    path: &str,
    body: &str,
) -> Result<(u16, String), String> {
    let mut stream = connect(server, source).await?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {server}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{method} {path}: not an HTTP response"))?;
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return Err(format!("{method} {path}: chunked answers are not read"));
    }
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{method} {path}: no status in {head:?}"))?;
    Ok((status, body.to_owned()))
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
            Incoming::Turn { number: 1 }
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
            Incoming::Other
        );
        assert!(Incoming::peek("{").is_err());
    }
}
