//! `punct-server`: serves PÜNCT rooms until ctrl-c or SIGTERM; `punct-server schema`
//! prints the JSON Schema of the protocol instead, and `punct-server healthcheck` asks a
//! running server on the listen address whether it is ready (for container health
//! checks, where no shell or curl exists); `rebuild-ratings` and `migrate` work on a
//! database.

use std::io::{IsTerminal, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use punct_server::{Config, Console};
use tracing_subscriber::EnvFilter;

/// The PÜNCT game server.
#[derive(Parser, Debug)]
#[command(name = "punct-server", version, about)]
struct Cli {
    /// Something else to do than serving.
    #[command(subcommand)]
    command: Option<Command>,
    /// Address to listen on.
    #[arg(
        long,
        env = "PUNCT_LISTEN",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    listen: SocketAddr,
    /// How log lines are written to stderr: `text` for people, `json` (one object a line,
    /// with the connection and room ids of its spans) for log collectors. `RUST_LOG`
    /// chooses what is logged (`info` by default).
    #[arg(long, env = "PUNCT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
    /// Limits and timings (every one global: `punct-server rebuild-ratings --database DB`
    /// reads as `punct-server --database DB rebuild-ratings`).
    #[command(flatten)]
    config: Config,
}

/// The shape of log lines.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// JSON lines.
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the JSON Schema of every protocol message (the content of protocol/schema.json).
    Schema,
    /// Exit 0 if the server on the listen address answers `GET /readyz` with 200, 1
    /// otherwise.
    Healthcheck,
    /// Recompute every rating, and what each rated game did to them, from the stored
    /// games (in the order they were rated), in the database `--database` names. The
    /// same games give the same numbers: this repairs ratings edited by hand.
    RebuildRatings,
    /// The operator's actions on an account, in the database `--database` names: grant
    /// or revoke a role, ban or unban, mail a link to set a new password. Each is written
    /// in the audit log. Running servers may stay up.
    Admin {
        /// What to do.
        #[command(subcommand)]
        action: AdminAction,
    },
    /// Copy everything in a SQLite database into an empty PostgreSQL database (to move a
    /// server to a cluster), in one transaction, then check that both read the same. Stop
    /// the server first: a file a server has open is refused, as is one that cannot be
    /// read whole (its data in a `-wal` file not copied with it).
    Migrate {
        /// The SQLite database file (a `-wal` file beside it is folded in first).
        #[arg(long)]
        from: String,
        /// The PostgreSQL database (`postgres://user:password@host/database`); it must
        /// hold no data.
        #[arg(long)]
        to: String,
    },
}

#[derive(Subcommand, Debug)]
enum AdminAction {
    /// Give an account a role: `moderator` or `admin` (the first admin is made so).
    Grant {
        /// The account's username.
        username: String,
        /// `moderator` or `admin`.
        role: String,
        /// Why (kept in the audit log).
        #[arg(long, default_value = "granted by the operator")]
        reason: String,
    },
    /// Take an account's role away.
    Revoke {
        /// The account's username.
        username: String,
        /// Why (kept in the audit log).
        #[arg(long, default_value = "revoked by the operator")]
        reason: String,
    },
    /// Ban an account: it cannot sign in, and its sessions end.
    Ban {
        /// The account's username.
        username: String,
        /// Why (kept in the audit log).
        #[arg(long)]
        reason: String,
    },
    /// Lift an account's ban.
    Unban {
        /// The account's username.
        username: String,
        /// Why (kept in the audit log).
        #[arg(long)]
        reason: String,
    },
    /// Mail an account's confirmed address a link to set a new password (sent by a
    /// running server's outbox).
    ResetLink {
        /// The account's username.
        username: String,
        /// Why (kept in the audit log).
        #[arg(long, default_value = "a password reset the operator sent")]
        reason: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Schema) => {
            // A reader that stops early (`| head`) is not an error of ours.
            let _ = std::io::stdout().write_all(punct_protocol::schema_json().as_bytes());
            ExitCode::SUCCESS
        }
        Some(Command::Healthcheck) => match ready(cli.listen) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("punct-server healthcheck: {why}");
                ExitCode::FAILURE
            }
        },
        Some(Command::RebuildRatings) => match rebuild_ratings(&cli.config) {
            Ok(games) => {
                println!("rebuilt the ratings of {games} rated games");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("punct-server rebuild-ratings: {e}");
                ExitCode::FAILURE
            }
        },
        Some(Command::Admin { action }) => match admin(&cli.config, action) {
            Ok(done) => {
                println!("{done}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("punct-server admin: {e}");
                ExitCode::FAILURE
            }
        },
        Some(Command::Migrate { from, to }) => {
            let started = Instant::now();
            match migrate(&from, &to) {
                Ok(copied) => {
                    println!(
                        "copied {} rows of {} tables ({} games) in {:.1} s; every table has as many rows, and every game's record and the archive read the same",
                        copied.rows,
                        copied.tables,
                        copied.games,
                        started.elapsed().as_secs_f64()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("punct-server migrate: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => match serve(cli) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("punct-server: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Asks the server on `listen` (on loopback, if it listens on every address) whether it
/// is ready (`GET /readyz`), within 2 s a step, as a container's health check wants.
/// Plain HTTP/1.1 on a socket of the standard library: for the one request the server
/// itself makes, it links no HTTP client.
fn ready(listen: SocketAddr) -> Result<(), String> {
    let mut addr = listen;
    if addr.ip().is_unspecified() {
        addr.set_ip(Ipv4Addr::LOCALHOST.into());
    }
    let limit = Duration::from_secs(2);
    let failed = |e: std::io::Error| format!("{addr}: {e}");
    let mut stream = TcpStream::connect_timeout(&addr, limit).map_err(failed)?;
    stream.set_read_timeout(Some(limit)).map_err(failed)?;
    stream.set_write_timeout(Some(limit)).map_err(failed)?;
    write!(
        stream,
        "GET /readyz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(failed)?;
    // The answer is a status line and a word or two: a server that sends more is not ours.
    let mut answer = String::new();
    stream
        .take(64 * 1024)
        .read_to_string(&mut answer)
        .map_err(failed)?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.lines().next().unwrap_or_default();
    match status.split(' ').nth(1) {
        Some("200") => Ok(()),
        _ => Err(format!("{addr}: {status}: {}", body.trim())),
    }
}

#[tokio::main]
async fn rebuild_ratings(config: &Config) -> Result<usize, Box<dyn std::error::Error>> {
    punct_server::rebuild_ratings(config).await
}

#[tokio::main]
async fn admin(config: &Config, action: AdminAction) -> Result<String, Box<dyn std::error::Error>> {
    let (username, action, reason) = match action {
        AdminAction::Grant {
            username,
            role,
            reason,
        } => (username, Console::Grant(role), reason),
        AdminAction::Revoke { username, reason } => (username, Console::Revoke, reason),
        AdminAction::Ban { username, reason } => (username, Console::Ban, reason),
        AdminAction::Unban { username, reason } => (username, Console::Unban, reason),
        AdminAction::ResetLink { username, reason } => (username, Console::ResetLink, reason),
    };
    punct_server::admin(config, &username, action, &reason).await
}

#[tokio::main]
async fn migrate(from: &str, to: &str) -> Result<punct_server::Copied, Box<dyn std::error::Error>> {
    punct_server::migrate(from, to).await
}

#[tokio::main]
async fn serve(cli: Cli) -> std::io::Result<()> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    match cli.log_format {
        LogFormat::Text => logs.with_ansi(std::io::stderr().is_terminal()).init(),
        // Every line carries the fields of every span it is in (`conn`, `peer`, `room`).
        LogFormat::Json => logs.json().flatten_event(true).with_span_list(true).init(),
    }
    let stop = shutdown_signal();
    let listener = tokio::net::TcpListener::bind(cli.listen).await?;
    punct_server::run(listener, cli.config, stop).await
}

/// Completes on ctrl-c or, on Unix, SIGTERM. SIGTERM is caught from this call on, not
/// from the first poll: a server told to stop as soon as it listens (before `run` polls
/// this) still stops cleanly, its database closed, instead of dying of the signal.
fn shutdown_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    async move {
        let ctrl_c = async {
            if let Err(e) = tokio::signal::ctrl_c().await {
                tracing::error!("cannot listen for ctrl-c: {e}");
                std::future::pending::<()>().await;
            }
        };
        #[cfg(unix)]
        let terminate = async {
            match terminate {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(e) => {
                    tracing::error!("cannot listen for SIGTERM: {e}");
                    std::future::pending::<()>().await;
                }
            }
        };
        #[cfg(not(unix))]
        let terminate = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {}
            () = terminate => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    use super::*;

    /// A server on loopback that reads one request and answers `answer`.
    fn answering(answer: &'static str) -> SocketAddr {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 0 && !line.ends_with("\r\n\r\n") {}
            assert!(line.starts_with("GET /readyz HTTP/1.1\r\n"), "{line:?}");
            reader.get_mut().write_all(answer.as_bytes()).unwrap();
        });
        addr
    }

    #[test]
    fn the_check_passes_on_200_and_fails_on_anything_else_saying_why() {
        let ok = answering("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nready");
        assert_eq!(ready(ok), Ok(()));
        let stopping =
            answering("HTTP/1.1 503 Service Unavailable\r\ncontent-length: 8\r\n\r\nstopping");
        let why = ready(stopping).unwrap_err();
        assert!(
            why.ends_with("HTTP/1.1 503 Service Unavailable: stopping"),
            "{why}"
        );
    }
}
