//! The server's limits and timings, from flags or environment variables.

use std::time::Duration;

/// Limits and timings of a server. Every field has a default that works out of the box;
/// the binary reads them from flags or `PUNCT_*` environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct Config {
    /// Where rooms and turns are kept: a SQLite database file, created on first start
    /// (`:memory:` keeps everything in memory: nothing survives a restart), or a
    /// PostgreSQL URL (`postgres://user:password@host/database`), which every node of a
    /// cluster shares. Without it (`Config::default()`, for tests), SQLite in memory.
    #[arg(
        long,
        global = true,
        env = "PUNCT_DATABASE",
        default_value = "punct.db"
    )]
    pub database: Option<String>,
    /// Run as one node of a cluster: the NATS server (with JetStream) the nodes share
    /// (`nats://host:4222`), or several servers of one NATS cluster, comma-separated
    /// (`nats://a:4222,nats://b:4222,nats://c:4222`), of which the node uses one at a time
    /// and moves to another when it goes away. Every node must use the same PostgreSQL
    /// database. Without it, the server runs alone.
    #[arg(long, global = true, env = "PUNCT_CLUSTER")]
    pub cluster: Option<String>,
    /// In a cluster, how long a node's lease lasts without being renewed (it is renewed
    /// four times as often): a node that died has its rooms taken over by the others
    /// this long after its last renewal. Every node must use the same value.
    #[arg(long, global = true, env = "PUNCT_CLUSTER_LEASE", value_parser = parse_duration, default_value = "5s")]
    pub cluster_lease: Duration,
    /// In a cluster, how many NATS servers keep a copy of the leases and the claims (the
    /// replicas of their JetStream buckets), from 1 to 5: 3 on a NATS cluster of three
    /// keeps the cluster running when one NATS server dies. It applies when the buckets
    /// are made, by the first node to start; every node must use the same value.
    #[arg(long, global = true, env = "PUNCT_CLUSTER_REPLICAS", value_parser = parse_replicas, default_value_t = Config::DEFAULT.cluster_replicas)]
    pub cluster_replicas: usize,
    /// Most WebSocket connections open at once; more are refused with 503.
    #[arg(long, global = true, env = "PUNCT_MAX_CONNECTIONS", default_value_t = Config::DEFAULT.max_connections)]
    pub max_connections: usize,
    /// Most rooms held at once; creating more is refused with 503.
    #[arg(long, global = true, env = "PUNCT_MAX_ROOMS", default_value_t = Config::DEFAULT.max_rooms)]
    pub max_rooms: usize,
    /// Largest WebSocket frame or message a client may send, in bytes; a larger one closes
    /// the connection.
    #[arg(long, global = true, env = "PUNCT_MAX_MESSAGE_BYTES", default_value_t = Config::DEFAULT.max_message_bytes)]
    pub max_message_bytes: usize,
    /// How often the server pings each connection (such as `20s` or `500ms`).
    #[arg(long, global = true, env = "PUNCT_PING_INTERVAL", value_parser = parse_duration, default_value = "20s")]
    pub ping_interval: Duration,
    /// How long the server waits for a request's head (its line and headers) on an HTTP
    /// connection: from the connection's opening, or from the previous response on a
    /// kept-alive one. Longer, the connection is closed.
    #[arg(long, global = true, env = "PUNCT_HEADER_TIMEOUT", value_parser = parse_duration, default_value = "30s")]
    pub header_timeout: Duration,
    /// How long a connection may stay silent (no pong, no message) before it is dropped.
    #[arg(long, global = true, env = "PUNCT_IDLE_TIMEOUT", value_parser = parse_duration, default_value = "60s")]
    pub idle_timeout: Duration,
    /// Messages queued for one connection before it counts as stalled and is dropped;
    /// bounds the memory a client that does not read can hold, and keeps it from
    /// delaying anyone else.
    #[arg(long, global = true, env = "PUNCT_OUTBOUND_QUEUE", default_value_t = Config::DEFAULT.outbound_queue)]
    pub outbound_queue: usize,
    /// Room events kept for connections that come back (`since`); one further behind
    /// gets a fresh snapshot. A connection gets one too when it falls more than 32 live
    /// events behind (or this many, if fewer).
    #[arg(long, global = true, env = "PUNCT_ROOM_EVENT_BUFFER", default_value_t = Config::DEFAULT.room_event_buffer)]
    pub room_event_buffer: usize,
    /// How long a room with nobody in it (and no clock or computer to time) stays in
    /// memory without any request (such as `30m`); it stays in the database and is
    /// loaded again when someone enters it.
    #[arg(long, global = true, env = "PUNCT_ROOM_IDLE_TIMEOUT", value_parser = parse_duration, default_value = "30m")]
    pub room_idle_timeout: Duration,
    /// How long a player may be away (disconnected, or never connected after taking a
    /// seat) before the opponent may claim the win (such as `2m`).
    #[arg(long, global = true, env = "PUNCT_GRACE_PERIOD", value_parser = parse_duration, default_value = "2m")]
    pub grace_period: Duration,
    /// Most WebSocket connections open at once from one IP address; more are refused with
    /// 429. 0 for no cap. (Behind a reverse proxy every client has the proxy's address.)
    #[arg(long, global = true, env = "PUNCT_MAX_CONNECTIONS_PER_IP", default_value_t = Config::DEFAULT.max_connections_per_ip)]
    pub max_connections_per_ip: usize,
    /// Rooms one IP address may create a minute (and at once); more are refused with 429.
    /// 0 for no cap.
    #[arg(long, global = true, env = "PUNCT_ROOMS_PER_MINUTE", default_value_t = Config::DEFAULT.rooms_per_minute)]
    pub rooms_per_minute: u32,
    /// Multiplies every per-connection message rate and burst (`protocol/PROTOCOL.md`
    /// lists them); 0 turns message rate limits off.
    #[arg(long, global = true, env = "PUNCT_MESSAGE_RATE_SCALE", default_value_t = Config::DEFAULT.message_rate_scale)]
    pub message_rate_scale: f64,
    /// Web page origins (such as `https://punct.example`) allowed to open WebSockets,
    /// comma-separated, besides the server's own. Empty: any origin. Clients that send no
    /// `Origin` (programs, not browsers) are always allowed.
    #[arg(
        long,
        global = true,
        env = "PUNCT_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,
    /// How long the computer thinks about each turn in rooms created against it (such as
    /// `1s`); in a timed game never more than a twentieth of its clock plus half the
    /// increment.
    #[arg(long, global = true, env = "PUNCT_COMPUTER_THINK_TIME", value_parser = parse_duration, default_value = "1s")]
    pub computer_think_time: Duration,
    /// Searches the computer runs at once, each on a thread of its own; more wait their
    /// turn, so that each keeps its strength. 0: one less than the machine's cores (at
    /// least one).
    #[arg(long, global = true, env = "PUNCT_COMPUTER_THREADS", default_value_t = Config::DEFAULT.computer_threads)]
    pub computer_threads: usize,
    /// How long a room may wait for someone to take its free seat (such as `24h`); it is
    /// then deleted, unless someone is in it.
    #[arg(long, global = true, env = "PUNCT_OPEN_ROOM_EXPIRY", value_parser = parse_duration, default_value = "24h")]
    pub open_room_expiry: Duration,
    /// How long a game with both seats taken may go without a turn while nobody is in its
    /// room (such as `7d`); it then ends, the player to move losing by abandonment, as if
    /// the opponent had claimed the win.
    #[arg(long, global = true, env = "PUNCT_ABANDONED_GAME_EXPIRY", value_parser = parse_duration, default_value = "7d")]
    pub abandoned_game_expiry: Duration,
    /// How long a signed-in session lasts (such as `30d`); signing out ends it sooner.
    #[arg(long, global = true, env = "PUNCT_SESSION_LIFETIME", value_parser = parse_duration, default_value = "30d")]
    pub session_lifetime: Duration,
    /// Sends the session cookie without `Secure`, for a server reached over plain HTTP
    /// other than on localhost (browsers keep `Secure` cookies only over HTTPS and from
    /// localhost). Behind an HTTPS proxy, leave it off.
    #[arg(long, global = true, env = "PUNCT_INSECURE_COOKIES")]
    pub insecure_cookies: bool,
    /// Times one IP address may try to sign in or register a minute (and at once); more
    /// are refused with 429. 0 for no cap.
    #[arg(long, global = true, env = "PUNCT_SIGN_INS_PER_MINUTE", default_value_t = Config::DEFAULT.sign_ins_per_minute)]
    pub sign_ins_per_minute: u32,
    /// Times anyone may try to sign in to one username a minute (and at once), from any
    /// address; more are refused with 429. 0 for no cap.
    #[arg(long, global = true, env = "PUNCT_SIGN_INS_PER_ACCOUNT", default_value_t = Config::DEFAULT.sign_ins_per_account)]
    pub sign_ins_per_account: u32,
    /// Proxies (load balancers) whose word is taken for the client's address, as
    /// address ranges (`10.0.0.0/8,2001:db8::/32`; a single address is `/32` or `/128`).
    /// A connection from one of them is counted, by every per-address limit and in the
    /// logs, as the client that HAProxy's PROXY protocol version 2 header names, or the
    /// right-most address of `X-Forwarded-For` (else `Forwarded: for=`) that is not
    /// itself a trusted proxy. Anyone else's headers are ignored. Empty: nobody is.
    #[arg(
        long,
        global = true,
        env = "PUNCT_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The SMTP server that mails correspondence players, as `smtp://host:25` (plain, for
    /// a relay beside the server), `smtp://user:password@host:587?tls=required`
    /// (STARTTLS) or `smtps://user:password@host:465` (TLS). Without it, no mail.
    #[arg(long, global = true, env = "PUNCT_SMTP_URL", value_parser = parse_smtp_url)]
    pub smtp_url: Option<String>,
    /// The sender of the mail, as `Name <address>` [default: PÜNCT <punct@localhost>].
    #[arg(long, global = true, env = "PUNCT_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// Where players reach the server, for the links in mail (such as
    /// `https://punct.example.org`) [default: http://localhost:8080].
    #[arg(long, global = true, env = "PUNCT_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// How often the server looks for daily digests to send.
    #[arg(long, global = true, env = "PUNCT_DIGEST_CHECK", value_parser = parse_duration, default_value = "10m")]
    pub digest_check: Duration,
    /// Who may create tournaments: `anyone` signed in, or `moderators` (and admins)
    /// only.
    #[arg(
        long,
        global = true,
        env = "PUNCT_TOURNAMENT_CREATORS",
        value_enum,
        default_value = "anyone"
    )]
    pub tournament_creators: TournamentCreators,
}

/// Who may create tournaments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TournamentCreators {
    /// Any signed-in account.
    Anyone,
    /// Moderators and admins only.
    Moderators,
}

impl Config {
    /// The defaults, as the binary uses them when no flag or variable is given.
    pub const DEFAULT: Config = Config {
        database: None,
        cluster: None,
        cluster_lease: Duration::from_secs(5),
        cluster_replicas: 1,
        max_connections: 1024,
        max_rooms: 1000,
        max_message_bytes: 4096,
        ping_interval: Duration::from_secs(20),
        header_timeout: Duration::from_secs(30),
        idle_timeout: Duration::from_secs(60),
        outbound_queue: 256,
        room_event_buffer: 256,
        room_idle_timeout: Duration::from_secs(30 * 60),
        grace_period: Duration::from_secs(120),
        max_connections_per_ip: 64,
        rooms_per_minute: 20,
        message_rate_scale: 1.0,
        allowed_origins: Vec::new(),
        computer_think_time: Duration::from_secs(1),
        computer_threads: 0,
        open_room_expiry: Duration::from_secs(24 * 3600),
        abandoned_game_expiry: Duration::from_secs(7 * 24 * 3600),
        session_lifetime: Duration::from_secs(30 * 24 * 3600),
        insecure_cookies: false,
        sign_ins_per_minute: 10,
        sign_ins_per_account: 5,
        trusted_proxies: Vec::new(),
        smtp_url: None,
        mail_from: None,
        public_url: None,
        digest_check: Duration::from_secs(600),
        tournament_creators: TournamentCreators::Anyone,
    };
}

impl Default for Config {
    fn default() -> Config {
        Config::DEFAULT
    }
}

/// Reads how many NATS servers keep the cluster's buckets: JetStream allows 1 to 5.
fn parse_replicas(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n @ 1..=5) => Ok(n),
        _ => Err(format!(
            "'{text}' is not a number of NATS servers from 1 to 5"
        )),
    }
}

/// Reads a duration such as `250ms`, `20s`, `2m`, `1h`, `7d` or `1h 30m` (humantime's
/// format), or a bare number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    match text.parse::<u64>() {
        Ok(seconds) => Ok(Duration::from_secs(seconds)),
        Err(_) => humantime::parse_duration(text).map_err(|e| {
            format!("'{text}' is not a duration such as 500ms, 20s, 2m, 1h or 7d: {e}")
        }),
    }
}

/// Checks an SMTP server's URL as the mailer will read it (lettre's reading).
fn parse_smtp_url(text: &str) -> Result<String, String> {
    lettre::AsyncSmtpTransport::<lettre::Tokio1Executor>::from_url(text)
        .map(|_| text.to_owned())
        .map_err(|e| format!("'{text}' is not an SMTP URL such as smtp://host:25: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_units() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("20s"), Ok(Duration::from_secs(20)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("7d"), Ok(Duration::from_secs(7 * 86_400)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5 parsecs").is_err());
    }

    #[test]
    fn a_bucket_is_kept_by_one_to_five_nats_servers() {
        assert_eq!(parse_replicas("1"), Ok(1));
        assert_eq!(parse_replicas("3"), Ok(3));
        assert_eq!(parse_replicas("5"), Ok(5));
        for wrong in ["0", "6", "three", "-1", ""] {
            assert!(parse_replicas(wrong).is_err(), "{wrong:?}");
        }
    }
}
