//! A server on `127.0.0.1:0` and clients that speak its JSON, so that tests read like the
//! conversation they check.

#![allow(dead_code, reason = "each test file uses the helpers it needs")]

pub(crate) mod games;
pub(crate) mod process;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use punct_protocol::{
    ClientMessage, ErrorCode, PROTOCOL_VERSION, Record, RoomSnapshot, RoomSummary, SeatGranted,
    Seq, ServerMessage,
};
use punct_rules::Turn;
use punct_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for any one message before it fails.
pub(crate) const PATIENCE: Duration = Duration::from_secs(10);

/// A server in this process.
pub(crate) struct TestServer {
    /// Where it listens, and the requests it answers.
    endpoint: Endpoint,
    /// Completes the shutdown future given to `run`.
    stop: Option<oneshot::Sender<()>>,
    /// The server itself.
    task: JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    /// A server with the default configuration.
    pub(crate) async fn start() -> TestServer {
        TestServer::with(Config::default()).await
    }

    /// A server with `config`.
    pub(crate) async fn with(config: Config) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(punct_server::run(listener, config, async {
            let _ = stopped.await;
        }));
        TestServer {
            endpoint: Endpoint { addr },
            stop: Some(stop),
            task,
        }
    }

    /// Shuts the server down and waits until `run` has returned.
    pub(crate) async fn shutdown(mut self) -> std::io::Result<()> {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(PATIENCE, &mut self.task)
            .await
            .expect("the server stops in time")
            .unwrap()
    }
}

impl std::ops::Deref for TestServer {
    type Target = Endpoint;

    fn deref(&self) -> &Endpoint {
        &self.endpoint
    }
}

/// A server's address, and the requests a test makes of it.
pub(crate) struct Endpoint {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
}

impl Endpoint {
    /// Sends one HTTP/1.1 request; answers the status and the body.
    pub(crate) async fn http(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        tokio::time::timeout(PATIENCE, stream.read_to_string(&mut response))
            .await
            .expect("an HTTP answer in time")
            .unwrap();
        let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, body.to_owned())
    }

    /// `GET path`, expecting 200 and JSON.
    pub(crate) async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let (status, body) = self.http("GET", path, "").await;
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Creates a room with `body` as the request (JSON, or empty for the defaults).
    pub(crate) async fn create_room(&self, body: &str) -> SeatGranted {
        let (status, answer) = self.http("POST", "/api/rooms", body).await;
        assert_eq!(status, 201, "create room: {answer}");
        serde_json::from_str(&answer).unwrap()
    }

    /// Takes the free seat of `room`.
    pub(crate) async fn take_seat(&self, room: &str) -> SeatGranted {
        let (status, answer) = self
            .http("POST", &format!("/api/rooms/{room}/seat"), "")
            .await;
        assert_eq!(status, 200, "take seat: {answer}");
        serde_json::from_str(&answer).unwrap()
    }

    /// A room of `variant` with White's and Black's seats taken.
    pub(crate) async fn table(&self, variant: &str) -> Table {
        let white = self
            .create_room(&format!(r#"{{"variant":"{variant}","color":"white"}}"#))
            .await;
        let black = self.take_seat(&white.room).await;
        Table {
            room: white.room.clone(),
            white: white.token,
            black: black.token,
        }
    }

    /// The room's game record over HTTP.
    pub(crate) async fn record(&self, room: &str) -> Record {
        self.get(&format!("/api/rooms/{room}/record")).await
    }

    /// The room's summary over HTTP.
    pub(crate) async fn summary(&self, room: &str) -> RoomSummary {
        self.get(&format!("/api/rooms/{room}")).await
    }

    /// The HTTP status of a WebSocket upgrade, sent with `origin` as its `Origin`:
    /// 101 when it is accepted.
    pub(crate) async fn upgrade_status(&self, origin: Option<&str>) -> u16 {
        let mut request = format!("ws://{}/ws", self.addr)
            .into_client_request()
            .unwrap();
        if let Some(origin) = origin {
            request
                .headers_mut()
                .insert("Origin", origin.parse().unwrap());
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((_, response)) => response.status().as_u16(),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                response.status().as_u16()
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// Waits until a WebSocket upgrade is accepted again, after a slot was given back.
    pub(crate) async fn await_free_slot(&self) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while self.upgrade_status(None).await != 101 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the slot was never given back"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A WebSocket connection that has not said hello yet.
    pub(crate) async fn connect(&self) -> Client {
        let url = format!("ws://{}/ws", self.addr);
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Client {
            ws,
            next_id: 1,
            pending: VecDeque::new(),
            last_seq: None,
        }
    }

    /// A WebSocket connection that has said hello.
    pub(crate) async fn client(&self) -> Client {
        let mut client = self.connect().await;
        client.hello().await;
        client
    }

    /// A player seated with `token`.
    pub(crate) async fn player(&self, room: &str, token: &str) -> Client {
        let mut client = self.client().await;
        client.join(room, token).await;
        client
    }

    /// A spectator of `room`, with the snapshot it got.
    pub(crate) async fn spectator(&self, room: &str) -> (Client, RoomSnapshot) {
        let mut client = self.client().await;
        let snapshot = client.watch(room).await;
        (client, snapshot)
    }
}

/// A room with both seats taken.
pub(crate) struct Table {
    /// The room's id.
    pub(crate) room: String,
    /// White's seat token.
    pub(crate) white: String,
    /// Black's seat token.
    pub(crate) black: String,
}

/// A refused request: its error code and, for an illegal turn, the rule.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The error code.
    pub(crate) code: ErrorCode,
    /// The rules engine's reason.
    pub(crate) rule: Option<String>,
}

/// A WebSocket client speaking the protocol.
pub(crate) struct Client {
    /// The socket.
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The next request id.
    next_id: u64,
    /// Messages read while waiting for a reply, in order.
    pending: VecDeque<ServerMessage>,
    /// The last room sequence number seen: every event must follow it without a gap.
    last_seq: Option<Seq>,
}

impl Client {
    /// Sends a text frame as it is.
    pub(crate) async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    /// Sends a binary frame.
    pub(crate) async fn send_binary(&mut self, bytes: &[u8]) {
        self.ws.send(Message::binary(bytes.to_vec())).await.unwrap();
    }

    /// Sends any WebSocket message, raw frames included.
    pub(crate) async fn send_raw(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    /// Sends a request.
    pub(crate) async fn send(&mut self, message: &ClientMessage) {
        self.send_text(&serde_json::to_string(message).unwrap())
            .await;
    }

    /// The next message from the server, whatever it is; checks that room events come
    /// in sequence.
    pub(crate) async fn recv(&mut self) -> ServerMessage {
        let message = match self.pending.pop_front() {
            Some(message) => message,
            None => self.read().await,
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
                assert_eq!(seq, last + 1, "events arrive in sequence, without gaps");
            }
            self.last_seq = Some(seq);
        }
    }

    async fn read(&mut self) -> ServerMessage {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a message in time")
                .expect("the connection is open")
                .expect("a WebSocket frame");
            match frame {
                Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("expected a message, got {other:?}"),
            }
        }
    }

    /// Sends the request `make(id)` and answers the reply with that id; other messages
    /// are kept for [`Client::recv`].
    pub(crate) async fn request(
        &mut self,
        make: impl FnOnce(u64) -> ClientMessage,
    ) -> ServerMessage {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&make(id)).await;
        self.reply_to(id).await
    }

    /// Waits for the reply to request `id`.
    pub(crate) async fn reply_to(&mut self, id: u64) -> ServerMessage {
        loop {
            let message = self.read().await;
            let reply_id = match &message {
                ServerMessage::Welcome { id, .. }
                | ServerMessage::Ack { id, .. }
                | ServerMessage::Resumed { id, .. } => Some(*id),
                ServerMessage::Snapshot { id, .. } | ServerMessage::Error { id, .. } => *id,
                _ => None,
            };
            if reply_id == Some(id) {
                self.track(&message);
                return message;
            }
            self.pending.push_back(message);
        }
    }

    /// Says hello with the current protocol version.
    pub(crate) async fn hello(&mut self) {
        let reply = self
            .request(|id| ClientMessage::Hello {
                id,
                version: PROTOCOL_VERSION,
                legal_turns: true,
            })
            .await;
        assert!(matches!(reply, ServerMessage::Welcome { .. }), "{reply:?}");
    }

    /// Asks for a seat with `token`; answers the reply, whatever it is.
    async fn ask_seat(&mut self, room: &str, token: &str) -> ServerMessage {
        self.request(|id| ClientMessage::Join {
            id,
            room: room.into(),
            token: token.into(),
            since: None,
        })
        .await
    }

    /// Tries to take a seat with `token` that the server must refuse; answers why.
    pub(crate) async fn join_refused(&mut self, room: &str, token: &str) -> ErrorCode {
        match self.ask_seat(room, token).await {
            ServerMessage::Error { code, .. } => code,
            other => panic!("join accepted: {other:?}"),
        }
    }

    /// Takes a seat with its token; answers the snapshot.
    pub(crate) async fn join(&mut self, room: &str, token: &str) -> RoomSnapshot {
        match self.ask_seat(room, token).await {
            ServerMessage::Snapshot { room, .. } => room,
            other => panic!("join refused: {other:?}"),
        }
    }

    /// Watches a room; answers the snapshot.
    pub(crate) async fn watch(&mut self, room: &str) -> RoomSnapshot {
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

    /// Plays a turn given in notation: the sequence number of its event, or why not.
    pub(crate) async fn play(&mut self, turn: &str) -> Result<Seq, Refused> {
        let turn: Turn = turn.parse().unwrap();
        let reply = self.request(|id| ClientMessage::Play { id, turn }).await;
        refused_or(reply, |reply| match reply {
            ServerMessage::Ack { seq, .. } => seq,
            other => panic!("expected an ack, got {other:?}"),
        })
    }

    /// Plays `turn` if the connection holds: `Some(true)` when acknowledged, `Some(false)`
    /// when refused, `None` when the connection broke first.
    pub(crate) async fn try_play(&mut self, turn: Turn) -> Option<bool> {
        let id = self.next_id;
        self.next_id += 1;
        let text = serde_json::to_string(&ClientMessage::Play { id, turn }).unwrap();
        self.ws.send(Message::text(text)).await.ok()?;
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a message in time");
            let Some(Ok(Message::Text(text))) = frame else {
                match frame {
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    _ => return None,
                }
            };
            match serde_json::from_str(text.as_str()).unwrap() {
                ServerMessage::Ack { id: reply, .. } if reply == id => return Some(true),
                ServerMessage::Error {
                    id: Some(reply), ..
                } if reply == id => return Some(false),
                _ => continue,
            }
        }
    }

    /// The next turn played in the room, skipping news about who is there and the
    /// private list of legal turns.
    pub(crate) async fn next_turn(&mut self) -> (Seq, Turn) {
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
    pub(crate) async fn next_uncounted(&mut self) -> ServerMessage {
        loop {
            match self.recv().await {
                ServerMessage::Spectators { .. } => continue,
                other => return other,
            }
        }
    }

    /// The next message that is not about who is in the room.
    pub(crate) async fn next_news(&mut self) -> ServerMessage {
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
    pub(crate) async fn closed(&mut self) -> Option<CloseFrame> {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("the server closes the connection in time");
            match frame {
                // A client that has not read for a while may fail to answer the pings
                // it finds before the close: the connection is gone all the same.
                None | Some(Err(_)) => return None,
                Some(Ok(Message::Close(frame))) => return frame,
                Some(Ok(Message::Text(text))) => self
                    .pending
                    .push_back(serde_json::from_str(text.as_str()).unwrap()),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The last room sequence number this client has seen.
    pub(crate) fn last_seq(&self) -> Option<Seq> {
        self.last_seq
    }

    /// Messages kept while waiting for replies or the close.
    pub(crate) fn kept(&mut self) -> Vec<ServerMessage> {
        self.pending.drain(..).collect()
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
pub(crate) fn refused(code: ErrorCode) -> Refused {
    Refused { code, rule: None }
}

/// A refusal of an illegal turn for `rule`.
pub(crate) fn illegal(rule: &str) -> Refused {
    Refused {
        code: ErrorCode::IllegalTurn,
        rule: Some(rule.into()),
    }
}
