//! A real `punct-server` process on a database, as operators run it: the program the
//! workspace built beside the running test (`target/debug/punct-server`), so that the
//! server's tests and the `punct` command's tests start the same one.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::{Database, Endpoint, PATIENCE};

/// A server process.
pub struct Process {
    /// The process.
    child: Child,
    /// Where it listens.
    endpoint: Endpoint,
}

impl Process {
    /// Starts the server on `database`, on a free port, and waits until it listens.
    pub fn start(database: &Database) -> Process {
        Process::with(database, &[])
    }

    /// As [`Process::start`], with more flags.
    pub fn with(database: &Database, flags: &[&str]) -> Process {
        let mut child = Command::new(program())
            .args(["--listen", "127.0.0.1:0", "--database"])
            .arg(database.url())
            .args(flags)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        // The server says where it listens once it has loaded the rooms it times.
        let addr = loop {
            let line = lines.next().expect("the server logs its address").unwrap();
            if let Some(addr) = line.split("address=").nth(1) {
                break addr.trim().parse().unwrap();
            }
        };
        // Keep reading, so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Process {
            child,
            endpoint: Endpoint::new(addr),
        }
    }

    /// Kills the process without warning, as `kill -9` does.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends SIGTERM, as `docker stop` does.
    pub fn terminate(&self) {
        self.signal(Signal::SIGTERM);
    }

    /// Sends `signal` (SIGSTOP and SIGCONT cut a node off and let it back, as a network
    /// partition or a long pause would).
    pub fn signal(&self, signal: Signal) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        kill(pid, signal).unwrap();
    }

    /// Whether the process still runs.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits for the process to exit by itself; answers how it did.
    pub fn wait(mut self) -> ExitStatus {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server exits in time"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The `punct-server` program beside the test's: tests run from `target/<profile>/deps`,
/// programs sit in `target/<profile>`. Cargo builds it for the server's own tests; a
/// test of another crate needs the workspace built (`cargo test --workspace`).
fn program() -> PathBuf {
    let test = std::env::current_exe().expect("the test's path");
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    let program = profile.join("punct-server");
    assert!(
        program.exists(),
        "{} is missing: build the workspace (cargo test --workspace)",
        program.display()
    );
    program
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl std::ops::Deref for Process {
    type Target = Endpoint;

    fn deref(&self) -> &Endpoint {
        &self.endpoint
    }
}
