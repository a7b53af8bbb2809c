//! `punct-server`: serves PÜNCT rooms until ctrl-c or SIGTERM; `punct-server schema`
//! prints the JSON Schema of the protocol instead.

use std::io::IsTerminal;
use std::net::SocketAddr;

use clap::{Parser, Subcommand};
use punct_server::Config;
use tracing_subscriber::EnvFilter;

/// The PÜNCT game server.
#[derive(Parser, Debug)]
#[command(name = "punct-server", version, about)]
struct Cli {
    /// Something else to do than serving.
    #[command(subcommand)]
    command: Option<Command>,
    /// Address to listen on.
    #[arg(long, env = "PUNCT_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Limits and timings.
    #[command(flatten)]
    config: Config,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the JSON Schema of every protocol message (the content of protocol/schema.json).
    Schema,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    if let Some(Command::Schema) = cli.command {
        print!("{}", punct_protocol::schema_json());
        return Ok(());
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let listener = tokio::net::TcpListener::bind(cli.listen).await?;
    punct_server::run(listener, cli.config, shutdown_signal()).await
}

/// Completes on ctrl-c or, on Unix, SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("cannot listen for ctrl-c: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
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
