//! A `punct-server` in the test's process, on `127.0.0.1:0`, and the requests a test
//! makes of it.

use std::net::SocketAddr;
use std::time::Duration;

use punct_client::Error;
use punct_protocol::{ErrorCode, Record, RoomSnapshot, RoomSummary, SeatGranted};
use punct_server::Config;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::client::Client;
use crate::database::{self, Database};

/// How long a test waits for any one message before it fails.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A server in this process. Dropping it stops the server.
pub struct TestServer {
    /// Where it listens, and the requests it answers.
    endpoint: Endpoint,
    /// Completes the shutdown future given to `run`.
    stop: Option<oneshot::Sender<()>>,
    /// The server itself.
    task: JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    /// A server with the default configuration.
    pub async fn start() -> TestServer {
        TestServer::with(Config::default()).await
    }

    /// A server with the default configuration, on `database`.
    pub async fn on(database: &Database) -> TestServer {
        TestServer::with(Config {
            database: Some(database.url()),
            ..Config::default()
        })
        .await
    }

    /// A server with `config`, on the test's runtime. Without a database of its own, it
    /// keeps its rooms in memory, or in a new PostgreSQL database if this run tests that.
    pub async fn with(config: Config) -> TestServer {
        TestServer::serve(config, None).await
    }

    /// A server with `config` on a runtime of its own (two worker threads, on a thread
    /// that ends once the server has stopped), for a test that runs `punct` processes and
    /// waits for them: it may block, and need not be async.
    pub fn in_background(config: Config) -> TestServer {
        let (hand_over, handed) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            let (ended, end) = oneshot::channel();
            let server = runtime.block_on(TestServer::serve(config, Some(ended)));
            hand_over
                .send(server)
                .expect("the test waits for its server");
            // Dropping the runtime would cancel the server's tasks: keep it until `run`
            // has returned.
            let _ = runtime.block_on(end);
        });
        handed.recv().expect("the server starts")
    }

    /// Starts `run` on the current runtime; `ended` is dropped once it has returned.
    async fn serve(mut config: Config, ended: Option<oneshot::Sender<()>>) -> TestServer {
        if config.database.is_none() && database::on_postgres() {
            config.database = Some(Database::new().url());
        }
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            let result = punct_server::run(listener, config, shutdown).await;
            drop(ended);
            result
        });
        TestServer {
            endpoint: Endpoint::new(addr),
            stop: Some(stop),
            task,
        }
    }

    /// Shuts the server down and waits until `run` has returned.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
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

/// A server's address, and the requests a test makes of it: of a [`TestServer`], or of a
/// server in a process of its own.
pub struct Endpoint {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its URL, for a `punct` process to be given (`http://` and the address).
    pub url: String,
    /// The client the test speaks through.
    client: punct_client::Client,
}

impl Endpoint {
    /// The server listening on `addr`.
    pub fn new(addr: SocketAddr) -> Endpoint {
        let url = format!("http://{addr}");
        let client = punct_client::Client::builder(url.parse().unwrap())
            .timeout(PATIENCE)
            .idle_timeout(PATIENCE)
            .build()
            .unwrap();
        Endpoint { addr, url, client }
    }

    /// The same server, its requests and connections signed in with session `token`
    /// (sent as `Authorization: Bearer`).
    pub fn signed_in(&self, token: &str) -> Endpoint {
        Endpoint {
            addr: self.addr,
            url: self.url.clone(),
            client: self.client.with_session(token),
        }
    }

    /// Registers `username` with `password`; answers the session's token.
    pub async fn register(&self, username: &str, password: &str) -> String {
        self.client
            .register(username, password)
            .await
            .unwrap()
            .token
    }

    /// Signs in to `username` with `password`; answers the session's token.
    pub async fn sign_in(&self, username: &str, password: &str) -> String {
        self.client.sign_in(username, password).await.unwrap().token
    }

    /// Sends one HTTP request; answers the status and the body.
    pub async fn http(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        self.client.send(method, path, body).await.unwrap()
    }

    /// `GET path`, expecting 200 and JSON.
    pub async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let (status, body) = self.http("GET", path, "").await;
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Creates a room with `body` as the request (JSON, or empty for the defaults).
    pub async fn create_room(&self, body: &str) -> SeatGranted {
        let (status, answer) = self.http("POST", "/api/rooms", body).await;
        assert_eq!(status, 201, "create room: {answer}");
        serde_json::from_str(&answer).unwrap()
    }

    /// Takes the free seat of `room`.
    pub async fn take_seat(&self, room: &str) -> SeatGranted {
        self.client.take_seat(room).await.unwrap()
    }

    /// A room of `variant` with White's and Black's seats taken.
    pub async fn table(&self, variant: &str) -> Table {
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
    pub async fn record(&self, room: &str) -> Record {
        self.client.record(room).await.unwrap()
    }

    /// The room's summary over HTTP.
    pub async fn summary(&self, room: &str) -> RoomSummary {
        self.client.room(room).await.unwrap()
    }

    /// The HTTP status of a WebSocket upgrade, sent with `origin` as its `Origin`:
    /// 101 when it is accepted.
    pub async fn upgrade_status(&self, origin: Option<&str>) -> u16 {
        match self.client.connect_from(origin).await {
            Ok(_) => 101,
            Err(Error::Refused { status, .. }) => status,
            Err(e) => panic!("{e}"),
        }
    }

    /// Waits until a WebSocket upgrade is accepted again, after a slot was given back.
    pub async fn await_free_slot(&self) {
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
    pub async fn connect(&self) -> Client {
        Client::new(self.client.connect().await.unwrap())
    }

    /// A WebSocket connection that has said hello.
    pub async fn client(&self) -> Client {
        let mut client = self.connect().await;
        client.hello().await;
        client
    }

    /// A player seated with `token`.
    pub async fn player(&self, room: &str, token: &str) -> Client {
        let mut client = self.client().await;
        client.join(room, token).await;
        client
    }

    /// A spectator of `room`, with the snapshot it got.
    pub async fn spectator(&self, room: &str) -> (Client, RoomSnapshot) {
        let mut client = self.client().await;
        let snapshot = client.watch(room).await;
        (client, snapshot)
    }
}

/// A room with both seats taken.
pub struct Table {
    /// The room's id.
    pub room: String,
    /// White's seat token.
    pub white: String,
    /// Black's seat token.
    pub black: String,
}

/// The error code of an HTTP error body; panics on anything else.
pub fn api_error(body: &str) -> ErrorCode {
    serde_json::from_str::<punct_protocol::ApiError>(body)
        .unwrap_or_else(|e| panic!("{e}: {body}"))
        .code
}
