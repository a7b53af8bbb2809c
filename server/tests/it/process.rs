//! A real `punct-server` process on a database, as operators run it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use punct_testing::{Database, Endpoint, PATIENCE};

/// A server process.
pub(crate) struct Process {
    /// The process.
    child: Child,
    /// Where it listens.
    endpoint: Endpoint,
}

impl Process {
    /// Starts the server on `database`, on a free port, and waits until it listens.
    pub(crate) fn start(database: &Database) -> Process {
        Process::with(database, &[])
    }

    /// As [`Process::start`], with more flags.
    pub(crate) fn with(database: &Database, flags: &[&str]) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_punct-server"))
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
    pub(crate) fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends SIGTERM, as `docker stop` does.
    pub(crate) fn terminate(&self) {
        self.signal(Signal::SIGTERM);
    }

    /// Sends `signal` (SIGSTOP and SIGCONT cut a node off and let it back, as a network
    /// partition or a long pause would).
    pub(crate) fn signal(&self, signal: Signal) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        kill(pid, signal).unwrap();
    }

    /// Whether the process still runs.
    pub(crate) fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits for the process to exit by itself; answers how it did.
    pub(crate) fn wait(mut self) -> ExitStatus {
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
