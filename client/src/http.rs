//! [`Client`]: the server's HTTP API (`server/API.md`), and where its WebSocket
//! connections start.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use punct_protocol::{
    ApiError, CreateRoom, CreateTournament, Credentials, Leaderboard, Lobby, MyGames,
    PlayerProfile, Record, RoomSummary, SeatGranted, Session, SignedIn, TakeSeat, TournamentList,
    TournamentView,
};
use punct_rules::Variant;
use reqwest::Method;
use serde::de::DeserializeOwned;
use tokio::net::{TcpSocket, TcpStream, lookup_host};
#[cfg(feature = "tls")]
use tokio_tungstenite::Connector;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::http::header::{ACCEPT_LANGUAGE, AUTHORIZATION, ORIGIN};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::socket::Connection;
use crate::{Error, Server};

/// How long a request may take, and a reply on a WebSocket, unless set otherwise.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a WebSocket may stay silent (the server pings every 20 s by default).
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// A WebSocket's read buffer: replies are small, and many connections share a machine.
const READ_BUFFER_BYTES: usize = 8 * 1024;

/// A client of one server, or of any node of a cluster: its HTTP API, and WebSocket
/// connections to it. Cheap to clone (clones share their connection pool, and which node
/// they use).
///
/// Given several servers ([`ClientBuilder::also`]), the client uses one at a time; when
/// it cannot connect to it, it moves on to the next, and a session that drops moves on
/// too ([`Client::move_on`]), so that players come back on a node that is up.
///
/// ```no_run
/// # async fn example() -> Result<(), punct_client::Error> {
/// use punct_client::Client;
/// use punct_protocol::CreateRoom;
/// let server = "https://games.example.org".parse().expect("a server URL");
/// let client = Client::new(server)?;
/// let seat = client.create_room(&CreateRoom::default()).await?;
/// let mut connection = client.connect().await?;
/// connection.hello(false).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    /// The servers: one, or the nodes of a cluster.
    servers: Arc<[Server]>,
    /// Which of them is in use now (modulo their number).
    current: Arc<AtomicUsize>,
    /// The session it is signed in with, sent as `Authorization: Bearer`.
    session: Option<Arc<str>>,
    /// The HTTP client.
    http: reqwest::Client,
    /// How WebSockets are opened.
    sockets: Arc<SocketSettings>,
}

/// How a client opens its WebSockets.
#[derive(Debug)]
struct SocketSettings {
    /// Longest wait to connect.
    connect_timeout: Duration,
    /// Longest wait for a reply.
    reply_timeout: Duration,
    /// Longest silence before the connection counts as dead.
    idle_timeout: Duration,
    /// The local address to connect from, if chosen.
    local_address: Option<IpAddr>,
    /// The `Accept-Language` of the upgrade request, if chosen: the language the
    /// server's messages on the socket are in.
    language: Option<HeaderValue>,
    /// TLS, for an `https://` server.
    #[cfg(feature = "tls")]
    tls: Option<Arc<rustls::ClientConfig>>,
}

/// Settings of a [`Client`] before it is made.
#[derive(Debug)]
pub struct ClientBuilder {
    /// The servers.
    servers: Vec<Server>,
    /// Longest wait for an HTTP answer or a WebSocket reply.
    timeout: Duration,
    /// Longest wait to connect.
    connect_timeout: Duration,
    /// Longest silence on a WebSocket.
    idle_timeout: Duration,
    /// The local address to connect from.
    local_address: Option<IpAddr>,
    /// The languages asked for, as an `Accept-Language` value.
    language: Option<String>,
    /// Certificates trusted besides the system's.
    #[cfg(feature = "tls")]
    roots: Vec<rustls_pki_types::CertificateDer<'static>>,
}

impl ClientBuilder {
    /// The longest wait for an HTTP answer, or for the reply to a WebSocket request (10 s
    /// by default): a stalled server never holds a caller longer.
    pub fn timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.timeout = timeout;
        self
    }

    /// The longest wait to connect (5 s by default).
    pub fn connect_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.connect_timeout = timeout;
        self
    }

    /// How long a WebSocket may stay silent before it counts as dead (60 s by default;
    /// the server pings every 20 s).
    pub fn idle_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.idle_timeout = timeout;
        self
    }

    /// Other nodes of the same cluster, used when the first cannot be reached. They must
    /// all be `http://`, or all `https://`, as the first is.
    pub fn also(mut self, servers: impl IntoIterator<Item = Server>) -> ClientBuilder {
        self.servers.extend(servers);
        self
    }

    /// Connects from this local address (a load generator spreads its sockets over
    /// several).
    pub fn local_address(mut self, address: IpAddr) -> ClientBuilder {
        self.local_address = Some(address);
        self
    }

    /// Asks the server to speak `language` (an `Accept-Language` value, such as `pl` or
    /// `de-AT, en;q=0.5`) in the messages of its refusals, over HTTP and on WebSockets;
    /// a server that does not speak it answers in English.
    pub fn language(mut self, language: impl Into<String>) -> ClientBuilder {
        self.language = Some(language.into());
        self
    }

    /// Trusts the certificates of `pem` (a PEM file's bytes) besides the system's: for a
    /// server whose certificate a private authority signed.
    #[cfg(feature = "tls")]
    pub fn add_root_certificates(mut self, pem: &[u8]) -> Result<ClientBuilder, Error> {
        self.roots.extend(crate::tls::certificates(pem)?);
        Ok(self)
    }

    /// The client.
    pub fn build(self) -> Result<Client, Error> {
        let language = self
            .language
            .as_deref()
            .map(HeaderValue::from_str)
            .transpose()
            .map_err(|e| Error::Unexpected(format!("language {:?}: {e}", self.language)))?;
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(language) = &language {
            headers.insert(ACCEPT_LANGUAGE, language.clone());
        }
        let http = reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .local_address(self.local_address)
            .default_headers(headers)
            .no_proxy();
        // reqwest wants a process-wide crypto provider even for plain HTTP; *ring* it is,
        // unless the program chose one already.
        #[cfg(feature = "tls")]
        let _ = rustls::crypto::ring::default_provider().install_default();
        let tls_used = self.servers[0].is_tls();
        if self
            .servers
            .iter()
            .any(|server| server.is_tls() != tls_used)
        {
            return Err(Error::Unexpected(
                "the servers must all be http:// or all https://".into(),
            ));
        }
        #[cfg(feature = "tls")]
        let (http, tls) = if tls_used {
            let config = crate::tls::config(&self.roots)?;
            let http = http.tls_backend_preconfigured(rustls::ClientConfig::clone(&config));
            (http, Some(config))
        } else {
            (http, None)
        };
        Ok(Client {
            servers: self.servers.into(),
            current: Arc::new(AtomicUsize::new(0)),
            session: None,
            http: http.build()?,
            sockets: Arc::new(SocketSettings {
                connect_timeout: self.connect_timeout,
                reply_timeout: self.timeout,
                idle_timeout: self.idle_timeout,
                local_address: self.local_address,
                language,
                #[cfg(feature = "tls")]
                tls,
            }),
        })
    }
}

impl Client {
    /// A client of `server` with the default settings.
    pub fn new(server: Server) -> Result<Client, Error> {
        Client::builder(server).build()
    }

    /// Settings for a client of `server`.
    pub fn builder(server: Server) -> ClientBuilder {
        ClientBuilder {
            servers: vec![server],
            timeout: TIMEOUT,
            connect_timeout: CONNECT_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            local_address: None,
            language: None,
            #[cfg(feature = "tls")]
            roots: Vec::new(),
        }
    }

    /// The same client, signed in with the session whose secret is `token` (from
    /// [`Client::sign_in`] or [`Client::register`]): its requests and connections act
    /// for that account.
    pub fn with_session(&self, token: &str) -> Client {
        Client {
            session: Some(token.into()),
            ..self.clone()
        }
    }

    /// `POST /api/accounts`: registers an account; answers its first session (use it
    /// with [`Client::with_session`]).
    pub async fn register(&self, username: &str, password: &str) -> Result<Session, Error> {
        self.credentials("api/accounts", username, password).await
    }

    /// `POST /api/session`: signs in; answers the session (use it with
    /// [`Client::with_session`]).
    pub async fn sign_in(&self, username: &str, password: &str) -> Result<Session, Error> {
        self.credentials("api/session", username, password).await
    }

    async fn credentials(
        &self,
        path: &str,
        username: &str,
        password: &str,
    ) -> Result<Session, Error> {
        let credentials = Credentials {
            username: username.to_owned(),
            password: password.to_owned(),
        };
        let body = serde_json::to_string(&credentials).expect("requests serialise");
        self.json(Method::POST, path, body).await
    }

    /// `DELETE /api/session`: signs this client's session out; it can no longer be used.
    pub async fn sign_out(&self) -> Result<(), Error> {
        let (status, body) = self.send("DELETE", "api/session", "").await?;
        if status == 204 {
            Ok(())
        } else {
            Err(refused(status, &body))
        }
    }

    /// `GET /api/session`: who this client is signed in as.
    pub async fn signed_in(&self) -> Result<SignedIn, Error> {
        self.json(Method::GET, "api/session", String::new()).await
    }

    /// `GET /api/players/{username}`: a player's page.
    pub async fn player(&self, username: &str) -> Result<PlayerProfile, Error> {
        self.json(
            Method::GET,
            &format!("api/players/{username}"),
            String::new(),
        )
        .await
    }

    /// `GET /api/me/games`: the signed-in player's unfinished games, those waiting for
    /// their move first.
    pub async fn my_games(&self) -> Result<MyGames, Error> {
        self.json(Method::GET, "api/me/games", String::new()).await
    }

    /// `GET /api/leaderboard?variant=V`: the best-rated players of `variant`.
    pub async fn leaderboard(&self, variant: Variant) -> Result<Leaderboard, Error> {
        let path = format!("api/leaderboard?variant={}", variant.name());
        self.json(Method::GET, &path, String::new()).await
    }

    /// The server, as first given: the one that names a cluster.
    pub fn server(&self) -> &Server {
        &self.servers[0]
    }

    /// The server in use now.
    fn current(&self) -> &Server {
        &self.servers[self.current.load(Ordering::Relaxed) % self.servers.len()]
    }

    /// Moves on to the next server, if there are several: after the one in use dropped
    /// a connection (its node may be going away).
    pub fn move_on(&self) {
        if self.servers.len() > 1 {
            self.current.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Runs `attempt` on the server in use, moving on to the next ones while it cannot
    /// connect; at most once on each.
    async fn on_any<T, F>(&self, attempt: impl Fn(Server) -> F) -> Result<T, Error>
    where
        F: Future<Output = Result<T, Error>>,
    {
        let mut tried = 1;
        loop {
            match attempt(self.current().clone()).await {
                Err(e) if e.is_unreachable() && tried < self.servers.len() => {
                    tried += 1;
                    self.move_on();
                }
                answer => return answer,
            }
        }
    }

    /// `POST /api/rooms`: a new room, with a seat in it.
    pub async fn create_room(&self, request: &CreateRoom) -> Result<SeatGranted, Error> {
        let body = serde_json::to_string(request).expect("requests serialise");
        self.json(Method::POST, "api/rooms", body).await
    }

    /// `POST /api/rooms/{id}/seat`: the free seat of a room.
    pub async fn take_seat(&self, room: &str) -> Result<SeatGranted, Error> {
        self.take_seat_as(room, &TakeSeat::default()).await
    }

    /// `POST /api/rooms/{id}/seat` with a body: the free seat of a room, under a name.
    pub async fn take_seat_as(&self, room: &str, request: &TakeSeat) -> Result<SeatGranted, Error> {
        let body = serde_json::to_string(request).expect("requests serialise");
        self.json(Method::POST, &format!("api/rooms/{room}/seat"), body)
            .await
    }

    /// `GET /api/rooms`: the public rooms that are open or live.
    pub async fn lobby(&self) -> Result<Lobby, Error> {
        self.json(Method::GET, "api/rooms", String::new()).await
    }

    /// `GET /api/rooms/{id}`: one room.
    pub async fn room(&self, room: &str) -> Result<RoomSummary, Error> {
        self.json(Method::GET, &format!("api/rooms/{room}"), String::new())
            .await
    }

    /// `GET /api/tournaments`: the tournaments upcoming, running and lately finished.
    pub async fn tournaments(&self) -> Result<TournamentList, Error> {
        self.json(Method::GET, "api/tournaments", String::new())
            .await
    }

    /// `GET /api/tournaments/{id}`: one tournament, its standings and rounds.
    pub async fn tournament(&self, id: &str) -> Result<TournamentView, Error> {
        self.json(Method::GET, &format!("api/tournaments/{id}"), String::new())
            .await
    }

    /// `POST /api/tournaments`: a new tournament (signed in).
    pub async fn create_tournament(
        &self,
        request: &CreateTournament,
    ) -> Result<TournamentView, Error> {
        let body = serde_json::to_string(request).expect("requests serialise");
        self.json(Method::POST, "api/tournaments", body).await
    }

    /// `POST /api/tournaments/{id}/join`: enters the signed-in account.
    pub async fn join_tournament(&self, id: &str) -> Result<TournamentView, Error> {
        self.json(
            Method::POST,
            &format!("api/tournaments/{id}/join"),
            String::new(),
        )
        .await
    }

    /// `POST /api/tournaments/{id}/withdraw`: withdraws the signed-in account.
    pub async fn withdraw_from_tournament(&self, id: &str) -> Result<TournamentView, Error> {
        self.json(
            Method::POST,
            &format!("api/tournaments/{id}/withdraw"),
            String::new(),
        )
        .await
    }

    /// `GET /api/rooms/{id}/record`: a room's game record.
    pub async fn record(&self, room: &str) -> Result<Record, Error> {
        self.json(
            Method::GET,
            &format!("api/rooms/{room}/record"),
            String::new(),
        )
        .await
    }

    /// `GET /readyz`: succeeds when the server is ready to take games.
    pub async fn ready(&self) -> Result<(), Error> {
        let (status, body) = self.send("GET", "readyz", "").await?;
        if status == 200 {
            Ok(())
        } else {
            Err(Error::Refused {
                status,
                code: None,
                message: body.trim().to_owned(),
            })
        }
    }

    /// Any request, as it is: answers the status and the body, whatever they are.
    pub async fn send(&self, method: &str, path: &str, body: &str) -> Result<(u16, String), Error> {
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|e| Error::Unexpected(format!("method {method}: {e}")))?;
        self.on_any(|server| {
            let request = self
                .signed(self.http.request(method.clone(), server.url(path)))
                .body(body.to_owned());
            async move {
                let response = request.send().await?;
                let status = response.status().as_u16();
                Ok((status, response.text().await?))
            }
        })
        .await
    }

    /// A request to the API whose answer is JSON; an error status is read as the API's
    /// error body.
    async fn json<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: String,
    ) -> Result<T, Error> {
        let what = format!("{method} /{path}");
        let response = self
            .on_any(|server| {
                let mut request = self.signed(self.http.request(method.clone(), server.url(path)));
                if !body.is_empty() {
                    request = request
                        .header(reqwest::header::CONTENT_TYPE, "application/json")
                        .body(body.clone());
                }
                async move { Ok(request.send().await?) }
            })
            .await?;
        let status = response.status();
        let text = response.text().await?;
        if !status.is_success() {
            return Err(refused(status.as_u16(), &text));
        }
        serde_json::from_str(&text).map_err(|e| Error::Unexpected(format!("{what}: {e}: {text}")))
    }

    /// `request`, with this client's session if it has one.
    fn signed(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.session {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// A new WebSocket connection to the server, not yet greeted.
    pub async fn connect(&self) -> Result<Connection, Error> {
        self.connect_from(None).await
    }

    /// A new WebSocket connection that says it comes from a web page of `origin` (as a
    /// browser's would), not yet greeted.
    pub async fn connect_from(&self, origin: Option<&str>) -> Result<Connection, Error> {
        self.on_any(|server| async move { self.open(&server, origin).await })
            .await
    }

    /// A new WebSocket connection to `server`.
    async fn open(&self, server: &Server, origin: Option<&str>) -> Result<Connection, Error> {
        let settings = &self.sockets;
        let mut request = server.websocket().as_str().into_client_request()?;
        if let Some(origin) = origin {
            let origin = HeaderValue::from_str(origin)
                .map_err(|e| Error::Unexpected(format!("origin {origin:?}: {e}")))?;
            request.headers_mut().insert(ORIGIN, origin);
        }
        if let Some(token) = &self.session {
            let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|e| Error::Unexpected(format!("session: {e}")))?;
            request.headers_mut().insert(AUTHORIZATION, bearer);
        }
        if let Some(language) = &settings.language {
            request
                .headers_mut()
                .insert(ACCEPT_LANGUAGE, language.clone());
        }
        let (host, port) = server.authority();
        let limit = settings.connect_timeout;
        let stream = tokio::time::timeout(limit, tcp(host, port, settings.local_address))
            .await
            .map_err(|_| Error::Timeout(limit))?
            .map_err(tungstenite::Error::Io)?;
        let config = WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER_BYTES)
            .write_buffer_size(0);
        #[cfg(feature = "tls")]
        let handshake = tokio_tungstenite::client_async_tls_with_config(
            request,
            stream,
            Some(config),
            Some(
                settings
                    .tls
                    .clone()
                    .map_or(Connector::Plain, Connector::Rustls),
            ),
        );
        #[cfg(not(feature = "tls"))]
        let handshake = tokio_tungstenite::client_async_with_config(
            request,
            tokio_tungstenite::MaybeTlsStream::Plain(stream),
            Some(config),
        );
        let (ws, _) = match tokio::time::timeout(limit, handshake).await {
            Err(_) => return Err(Error::Timeout(limit)),
            Ok(Err(tungstenite::Error::Http(response))) => {
                let body = response.body().as_deref().unwrap_or_default();
                return Err(refused(
                    response.status().as_u16(),
                    &String::from_utf8_lossy(body),
                ));
            }
            Ok(result) => result?,
        };
        Ok(Connection::new(
            ws,
            settings.reply_timeout,
            settings.idle_timeout,
        ))
    }
}

/// The error of an HTTP answer with status `status` and body `body`.
fn refused(status: u16, body: &str) -> Error {
    match serde_json::from_str::<ApiError>(body) {
        Ok(error) => Error::Refused {
            status,
            code: Some(error.code),
            message: error.message,
        },
        Err(_) => Error::Refused {
            status,
            code: None,
            message: body.trim().to_owned(),
        },
    }
}

/// A TCP connection to `host:port`, from `local` if given: each address the name has is
/// tried in turn.
async fn tcp(host: &str, port: u16, local: Option<IpAddr>) -> std::io::Result<TcpStream> {
    let mut failed = None;
    for address in lookup_host((host, port)).await? {
        let socket = if address.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        if let Some(local) = local {
            socket.bind(SocketAddr::new(local, 0))?;
        }
        match socket.connect(address).await {
            Ok(stream) => return Ok(stream),
            Err(e) => failed = Some(e),
        }
    }
    Err(failed.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{host} has no address"),
        )
    }))
}
