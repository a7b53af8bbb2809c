//! `punct-load`: runs a load against a punct-server on this machine and prints what it
//! measured (and, with `--json FILE`, writes it as JSON).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use punct_load::{LoadConfig, run};

/// Put a running punct-server on this machine under the load of many real games.
#[derive(Parser, Debug)]
#[command(name = "punct-load", version, about)]
struct Cli {
    /// What to run.
    #[command(flatten)]
    config: LoadConfig,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let report = match run(cli.config).await {
        Ok(report) => report,
        Err(e) => {
            eprintln!("punct-load: {e}");
            return ExitCode::from(2);
        }
    };
    println!("{report}");
    if let Some(path) = cli.json {
        let json = serde_json::to_string_pretty(&report).expect("reports serialise");
        if let Err(e) = std::fs::write(&path, json + "\n") {
            eprintln!("punct-load: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.errors == 0 && report.turns_unpersisted == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
