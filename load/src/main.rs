//! `punct-load`: runs a load against a punct-server on this machine and prints what it
//! measured (and, with `--json FILE`, writes it as JSON). `punct-load arena …` runs an
//! arena tournament instead of rooms, and `punct-load seek …` players seeking at once.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use punct_load::{ArenaConfig, LoadConfig, SeekConfig, run, run_arena, run_seek};
use serde::Serialize;

/// Put a running punct-server on this machine under the load of many real games.
#[derive(Parser, Debug)]
#[command(
    name = "punct-load",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// What to run.
    #[command(flatten)]
    config: LoadConfig,
    /// Also write the report as JSON to this file.
    #[arg(long, global = true)]
    json: Option<PathBuf>,
    /// Another load than rooms.
    #[command(subcommand)]
    mode: Option<Mode>,
}

/// The loads other than rooms.
#[derive(clap::Subcommand, Debug)]
enum Mode {
    /// An arena tournament of many players: how soon a player whose game ended is
    /// paired again, and the server's memory.
    Arena(ArenaConfig),
    /// Quick pairing: many players seeking at once, each timed from its seek to its
    /// room's first snapshot.
    Seek(SeekConfig),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.mode {
        Some(Mode::Arena(config)) => match run_arena(config).await {
            Ok(report) => {
                let ok = report.errors == 0;
                finish(&report, cli.json, ok)
            }
            Err(e) => failed(&e),
        },
        Some(Mode::Seek(config)) => match run_seek(config).await {
            Ok(report) => {
                let ok = report.errors == 0 && report.paired == report.players;
                finish(&report, cli.json, ok)
            }
            Err(e) => failed(&e),
        },
        None => match run(cli.config).await {
            Ok(report) => {
                let ok = report.errors == 0 && report.turns_unpersisted == 0;
                finish(&report, cli.json, ok)
            }
            Err(e) => failed(&e),
        },
    }
}

/// Prints `report` (and writes it as JSON to `json`); exits with success if `ok`.
fn finish(
    report: &(impl std::fmt::Display + Serialize),
    json: Option<PathBuf>,
    ok: bool,
) -> ExitCode {
    println!("{report}");
    if let Some(path) = json {
        let json = serde_json::to_string_pretty(report).expect("reports serialise");
        if let Err(e) = std::fs::write(&path, json + "\n") {
            eprintln!("punct-load: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Says why the run could not be made.
fn failed(e: &punct_load::LoadError) -> ExitCode {
    eprintln!("punct-load: {e}");
    ExitCode::from(2)
}
