//! A server on `127.0.0.1:0` and clients that speak its JSON, so that tests read like the
//! conversation they check.

#![allow(dead_code, reason = "each test file uses the helpers it needs")]

pub(crate) mod database;
pub(crate) mod games;
pub(crate) mod process;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use punct_client::{CloseFrame, Connection, Error, Message};
use punct_protocol::{
    ChatLine, ClientMessage, ErrorCode, Record, RoomSnapshot, RoomSummary, SeatGranted, Seq,
    ServerMessage,
};
use punct_rules::Turn;
use punct_server::Config;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

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

    /// A server with the default configuration, on `database`.
    pub(crate) async fn on(database: &database::Database) -> TestServer {
        TestServer::with(Config {
            database: Some(database.url()),
            ..Config::default()
        })
        .await
    }

    /// A server with `config`. Without a database of its own, it keeps its rooms in
    /// memory, or in a new PostgreSQL database if this run tests that.
    pub(crate) async fn with(mut config: Config) -> TestServer {
        if config.database.is_none() && database::on_postgres() {
            config.database = Some(database::Database::new().url());
        }
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(punct_server::run(listener, config, async {
            let _ = stopped.await;
        }));
        TestServer {
            endpoint: Endpoint::new(addr),
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
    /// The client the test speaks through.
    client: punct_client::Client,
}

impl Endpoint {
    /// The server listening on `addr`.
    pub(crate) fn new(addr: SocketAddr) -> Endpoint {
        let server = format!("http://{addr}").parse().unwrap();
        let client = punct_client::Client::builder(server)
            .timeout(PATIENCE)
            .idle_timeout(PATIENCE)
            .build()
            .unwrap();
        Endpoint { addr, client }
    }

    /// The same server, its requests and connections signed in with session `token`
    /// (sent as `Authorization: Bearer`).
    pub(crate) fn signed_in(&self, token: &str) -> Endpoint {
        Endpoint {
            addr: self.addr,
            client: self.client.with_session(token),
        }
    }

    /// Registers `username` with `password`; answers the session's token.
    pub(crate) async fn register(&self, username: &str, password: &str) -> String {
        self.client
            .register(username, password)
            .await
            .unwrap()
            .token
    }

    /// Signs in to `username` with `password`; answers the session's token.
    pub(crate) async fn sign_in(&self, username: &str, password: &str) -> String {
        self.client.sign_in(username, password).await.unwrap().token
    }

    /// Sends one HTTP request; answers the status and the body.
    pub(crate) async fn http(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        self.client.send(method, path, body).await.unwrap()
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
        self.client.take_seat(room).await.unwrap()
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
        self.client.record(room).await.unwrap()
    }

    /// The room's summary over HTTP.
    pub(crate) async fn summary(&self, room: &str) -> RoomSummary {
        self.client.room(room).await.unwrap()
    }

    /// The HTTP status of a WebSocket upgrade, sent with `origin` as its `Origin`:
    /// 101 when it is accepted.
    pub(crate) async fn upgrade_status(&self, origin: Option<&str>) -> u16 {
        match self.client.connect_from(origin).await {
            Ok(_) => 101,
            Err(Error::Refused { status, .. }) => status,
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
        Client {
            connection: self.client.connect().await.unwrap(),
            closing: VecDeque::new(),
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

/// A WebSocket client speaking the protocol, that checks the room's events come in
/// sequence.
pub(crate) struct Client {
    /// The connection.
    connection: Connection,
    /// Messages read while waiting for the server to close the connection, in order.
    closing: VecDeque<ServerMessage>,
    /// The last room sequence number seen: every event must follow it without a gap.
    last_seq: Option<Seq>,
}

impl Client {
    /// Sends a text frame as it is.
    pub(crate) async fn send_text(&mut self, text: &str) {
        self.connection.send_text(text).await.unwrap();
    }

    /// Sends a binary frame.
    pub(crate) async fn send_binary(&mut self, bytes: &[u8]) {
        self.send_raw(Message::binary(bytes.to_vec())).await;
    }

    /// Sends any WebSocket message, raw frames included.
    pub(crate) async fn send_raw(&mut self, message: Message) {
        self.connection.send_frame(message).await.unwrap();
    }

    /// Sends a request.
    pub(crate) async fn send(&mut self, message: &ClientMessage) {
        self.send_text(&serde_json::to_string(message).unwrap())
            .await;
    }

    /// The next message from the server, whatever it is; checks that room events come
    /// in sequence.
    pub(crate) async fn recv(&mut self) -> ServerMessage {
        let message = match self.closing.pop_front() {
            Some(message) => message,
            None => self
                .connection
                .recv()
                .await
                .expect("a message in time, on an open connection"),
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
    pub(crate) async fn request(
        &mut self,
        make: impl FnOnce(u64) -> ClientMessage,
    ) -> ServerMessage {
        let reply = self
            .connection
            .request(make)
            .await
            .expect("a reply in time");
        self.track(&reply);
        reply
    }

    /// Waits for the reply to request `id`.
    pub(crate) async fn reply_to(&mut self, id: u64) -> ServerMessage {
        let reply = self.connection.reply(id).await.expect("a reply in time");
        self.track(&reply);
        reply
    }

    /// Says hello with the current protocol version.
    pub(crate) async fn hello(&mut self) {
        self.connection.hello(true).await.unwrap();
    }

    /// Asks for a seat with `token`; answers the reply, whatever it is.
    async fn ask_seat(&mut self, room: &str, token: &str) -> ServerMessage {
        self.join_as(room, Some(token)).await
    }

    /// Asks for a seat with `token`, or without one (a signed-in connection's account's
    /// seat); answers the reply, whatever it is.
    pub(crate) async fn join_as(&mut self, room: &str, token: Option<&str>) -> ServerMessage {
        self.request(|id| ClientMessage::Join {
            id,
            room: room.into(),
            token: token.map(str::to_owned),
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

    /// Says `text` in the room's chat; answers the error code if it was refused.
    pub(crate) async fn say(&mut self, text: &str) -> Option<ErrorCode> {
        let text = text.to_owned();
        match self.request(|id| ClientMessage::Chat { id, text }).await {
            ServerMessage::Ack { .. } => None,
            ServerMessage::Error { code, .. } => Some(code),
            other => panic!("{other:?}"),
        }
    }

    /// The next line of chat the client hears, skipping everything else.
    pub(crate) async fn heard(&mut self) -> ChatLine {
        loop {
            if let ServerMessage::Chat { line } = self.recv().await {
                return line;
            }
        }
    }

    /// Whether the client hears `text` next, of all lines of chat: it says a line of its
    /// own and reads lines until that one, which comes after anything said before it.
    pub(crate) async fn hears_next(&mut self, text: &str) -> bool {
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
        match self
            .connection
            .request(|id| ClientMessage::Play { id, turn })
            .await
        {
            Ok(ServerMessage::Ack { .. }) => Some(true),
            Ok(_) => Some(false),
            Err(_) => None,
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
    pub(crate) fn last_seq(&self) -> Option<Seq> {
        self.last_seq
    }

    /// Messages kept while waiting for the close.
    pub(crate) fn kept(&mut self) -> Vec<ServerMessage> {
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

/// The error code of an HTTP error body; panics on anything else.
pub(crate) fn api_error(body: &str) -> ErrorCode {
    serde_json::from_str::<punct_protocol::ApiError>(body)
        .unwrap_or_else(|e| panic!("{e}: {body}"))
        .code
}

/// The code of an error reply; panics on anything else.
pub(crate) fn error_code(reply: ServerMessage) -> ErrorCode {
    match reply {
        ServerMessage::Error { code, .. } => code,
        other => panic!("expected an error, got {other:?}"),
    }
}
