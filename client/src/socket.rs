//! [`Connection`]: one WebSocket to the server, speaking the protocol's JSON: requests
//! numbered, and their replies told apart from everything else that arrives meanwhile.

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use punct_protocol::{ClientMessage, PROTOCOL_VERSION, RequestId, ServerMessage};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::Error;

/// A WebSocket connection to the server.
///
/// Messages that arrive while [`Connection::reply`] waits for a reply are kept, in
/// order, and come first from [`Connection::recv`]. Pings are answered while reading.
#[derive(Debug)]
pub struct Connection {
    /// The socket.
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The next request id.
    next_id: RequestId,
    /// Messages read while waiting for a reply, as they came.
    kept: VecDeque<String>,
    /// Longest wait for a reply.
    reply_timeout: Duration,
    /// Longest silence before the connection counts as dead.
    idle_timeout: Duration,
}

/// The one field of a server message that tells a reply from the rest: only replies
/// carry their request's `id`.
#[derive(Deserialize)]
struct Reply {
    /// The request answered.
    id: Option<RequestId>,
}

impl Connection {
    pub(crate) fn new(
        ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
        reply_timeout: Duration,
        idle_timeout: Duration,
    ) -> Connection {
        Connection {
            ws,
            next_id: 1,
            kept: VecDeque::new(),
            reply_timeout,
            idle_timeout,
        }
    }

    /// Sends the request `make(id)` with the next id; answers the id.
    pub async fn send(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<RequestId, Error> {
        let id = self.next_id;
        self.next_id += 1;
        let text = serde_json::to_string(&make(id)).expect("client messages serialise");
        self.send_frame(Message::text(text)).await?;
        Ok(id)
    }

    /// Sends a text frame as it is, whatever it holds.
    pub async fn send_text(&mut self, text: &str) -> Result<(), Error> {
        self.send_frame(Message::text(text)).await
    }

    /// Sends any WebSocket frame, within the reply timeout: a server that stopped
    /// reading does not hold the sender.
    pub async fn send_frame(&mut self, frame: Message) -> Result<(), Error> {
        let limit = self.reply_timeout;
        tokio::time::timeout(limit, self.ws.send(frame))
            .await
            .map_err(|_| Error::Timeout(limit))??;
        Ok(())
    }

    /// The next text message from the server (those kept first). Fails when the server
    /// closes the connection, or says nothing (not even a ping) for the idle timeout.
    pub async fn recv_text(&mut self) -> Result<String, Error> {
        match self.kept.pop_front() {
            Some(text) => Ok(text),
            None => self.read(None).await,
        }
    }

    /// The next message from the server.
    pub async fn recv(&mut self) -> Result<ServerMessage, Error> {
        let text = self.recv_text().await?;
        decode(&text)
    }

    /// The reply to request `id`, as text, within the reply timeout; everything else
    /// that comes first is kept.
    pub async fn reply_text(&mut self, id: RequestId) -> Result<String, Error> {
        let deadline = Instant::now() + self.reply_timeout;
        if let Some(at) = self.kept.iter().position(|text| reply_to(text) == Some(id)) {
            return Ok(self.kept.remove(at).expect("found"));
        }
        loop {
            let text = self.read(Some(deadline)).await?;
            if reply_to(&text) == Some(id) {
                return Ok(text);
            }
            self.kept.push_back(text);
        }
    }

    /// The reply to request `id`.
    pub async fn reply(&mut self, id: RequestId) -> Result<ServerMessage, Error> {
        let text = self.reply_text(id).await?;
        decode(&text)
    }

    /// Sends the request `make(id)` and answers its reply.
    pub async fn request(
        &mut self,
        make: impl FnOnce(RequestId) -> ClientMessage,
    ) -> Result<ServerMessage, Error> {
        let id = self.send(make).await?;
        self.reply(id).await
    }

    /// Says hello in this protocol's version, declining the legal-turn lists or not;
    /// fails unless the server welcomes it.
    pub async fn hello(&mut self, legal_turns: bool) -> Result<(), Error> {
        let reply = self
            .request(|id| ClientMessage::Hello {
                id,
                version: PROTOCOL_VERSION,
                legal_turns,
            })
            .await?;
        match reply {
            ServerMessage::Welcome { .. } => Ok(()),
            ServerMessage::Error { code, message, .. } => Err(Error::Rejected { code, message }),
            other => Err(Error::Unexpected(format!("{other:?} in answer to hello"))),
        }
    }

    /// The messages kept so far, taken out.
    pub fn take_kept(&mut self) -> Vec<String> {
        self.kept.drain(..).collect()
    }

    /// Closes the connection and waits for the server's close (or the idle timeout).
    pub async fn close(mut self) -> Result<(), Error> {
        self.ws.close(None).await?;
        let limit = self.idle_timeout;
        let _ = tokio::time::timeout(limit, async {
            while let Some(Ok(_)) = self.ws.next().await {}
        })
        .await;
        Ok(())
    }

    /// The next text frame from the socket, before `deadline` if given, else before the
    /// idle timeout since the last frame.
    async fn read(&mut self, deadline: Option<Instant>) -> Result<String, Error> {
        loop {
            let limit = deadline.unwrap_or_else(|| Instant::now() + self.idle_timeout);
            let frame = tokio::time::timeout_at(limit, self.ws.next())
                .await
                .map_err(|_| Error::Timeout(self.reply_or_idle(deadline)))?;
            match frame {
                Some(Ok(Message::Text(text))) => return Ok(text.as_str().to_owned()),
                Some(Ok(Message::Close(frame))) => return Err(Error::Closed(frame)),
                // Pings are answered by the socket as it reads.
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
                Some(Ok(Message::Binary(_))) => {
                    return Err(Error::Unexpected("a binary frame".into()));
                }
                Some(Err(e)) => return Err(e.into()),
                None => return Err(Error::Closed(None)),
            }
        }
    }

    /// The timeout that ran out.
    fn reply_or_idle(&self, deadline: Option<Instant>) -> Duration {
        match deadline {
            Some(_) => self.reply_timeout,
            None => self.idle_timeout,
        }
    }
}

/// The request a message answers, if it is a reply.
fn reply_to(text: &str) -> Option<RequestId> {
    serde_json::from_str::<Reply>(text).ok()?.id
}

/// A server message from its text.
pub(crate) fn decode(text: &str) -> Result<ServerMessage, Error> {
    serde_json::from_str(text).map_err(|e| Error::Unexpected(format!("{e}: {text}")))
}
