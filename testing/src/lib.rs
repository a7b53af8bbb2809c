//! What the workspace's tests share: a `punct-server` in the test's process and clients
//! that speak to it, and real PostgreSQL and NATS servers started from the machine's
//! packages (Debian's `postgresql` and `nats-server`) in temporary directories, on free
//! ports, and stopped when dropped.
//!
//! PostgreSQL refuses to run as root: when the tests do (as in CI), the server runs as
//! the `postgres` user the package creates, through `runuser`. A test that asks for a
//! server on a machine without the package fails, saying which package to install; CI
//! installs them (`.ci/services-tests`).
//!
//! # Layout
//!
//! - [`TestServer`]: a server in this process on a free port, on the test's runtime or
//!   on one of its own ([`TestServer::in_background`], for tests that are not async);
//!   its [`Endpoint`] makes HTTP requests and opens connections. The server's tests and
//!   the `punct` command's tests both start theirs here.
//! - [`Process`]: a `punct-server` process, as operators run it, that a test may kill,
//!   stop or let exit (the cluster's tests run three).
//! - [`Client`]: a WebSocket connection that speaks the protocol and checks that a
//!   room's events come in sequence; [`Refused`] is what it is told when refused.
//! - [`Database`]: a test's database, SQLite or, with `PUNCT_TEST_DATABASE=postgres`,
//!   PostgreSQL ([`on_postgres`]).
//! - [`glicko2`]: Glicko-2 straight from its paper, to check ratings against.
//! - [`Postgres`]: one server per test process, or one for a whole run
//!   ([`Postgres::shared`]), a fresh database per test ([`Postgres::database`]).
//! - [`Nats`]: a NATS server with JetStream, one per test that needs one;
//!   [`NatsCluster`], three of them clustered (routes on loopback), one of which a test
//!   may kill.
//! - [`smtp`]: a mail server that keeps what it is sent, refuses it, or hangs.

mod client;
mod database;
pub mod glicko2;
mod link;
mod process;
mod server;
pub mod smtp;

pub use client::{Client, Refused, error_code, illegal, refused};
pub use database::{Database, on_postgres};
pub use link::Link;
pub use process::Process;
pub use server::{Endpoint, PATIENCE, Table, TestServer, api_error};

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a server may take to start.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A free TCP port on loopback, as the system hands one out now.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free port on loopback")
        .port()
}

/// Waits until something listens on `port`, or panics naming `what`.
fn await_port(port: u16, what: &str, child: &mut Child) {
    let deadline = Instant::now() + START_TIMEOUT;
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited at start ({status}); see its log in the test's output");
        }
        assert!(Instant::now() < deadline, "{what} did not start in time");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether this process runs as root.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// A PostgreSQL server for this test process: one it started, or the one that
/// `PUNCT_TEST_POSTGRES` names.
#[derive(Debug)]
pub struct Postgres {
    /// Where it listens.
    port: u16,
    /// The programs of the installed version.
    bin: PathBuf,
    /// Databases made so far, to name the next.
    databases: AtomicUsize,
    /// The server, when this process started it; `None` when it is shared with others.
    _own: Option<OwnPostgres>,
}

/// A PostgreSQL server a test process started, stopped when dropped.
#[derive(Debug)]
struct OwnPostgres {
    /// The data directory, with the server's socket and log.
    _dir: tempfile::TempDir,
    /// The shell that runs `postgres` and stops it when its standard input closes.
    child: Child,
}

impl Postgres {
    /// The server shared by every test of this process, started at first use; or, when
    /// `PUNCT_TEST_POSTGRES` gives the port of one already running on 127.0.0.1 (trust
    /// authentication for `postgres`), that one. Under nextest every test is a process
    /// of its own, and a server each would cost more than the tests: `.ci/services-tests`
    /// starts one for the whole run. The databases' names hold the process id, so the
    /// processes sharing it never meet.
    pub fn shared() -> &'static Postgres {
        static SHARED: OnceLock<Postgres> = OnceLock::new();
        SHARED.get_or_init(|| match std::env::var("PUNCT_TEST_POSTGRES") {
            Ok(port) => Postgres {
                port: port.parse().expect("PUNCT_TEST_POSTGRES is a port"),
                bin: Postgres::programs(),
                databases: AtomicUsize::new(0),
                _own: None,
            },
            Err(_) => Postgres::start(),
        })
    }

    /// Starts a server in a new temporary data directory.
    pub fn start() -> Postgres {
        let bin = Postgres::programs();
        let dir = tempfile::Builder::new()
            .prefix("punct-postgres-")
            .tempdir()
            .expect("a temporary directory");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("the data directory");
        let root = is_root();
        if root {
            // The server's own user must own its files.
            for path in [dir.path(), &data] {
                let status = Command::new("chown")
                    .arg("postgres:postgres")
                    .arg(path)
                    .status()
                    .expect("chown runs");
                assert!(
                    status.success(),
                    "cannot give {} to postgres",
                    path.display()
                );
            }
        }
        let as_postgres = |program: &Path| {
            let mut command = if root {
                let mut command = Command::new("runuser");
                command.args(["-u", "postgres", "--"]).arg(program);
                command
            } else {
                Command::new(program)
            };
            command.stdout(Stdio::null());
            command
        };
        let status = as_postgres(&bin.join("initdb"))
            .args(["-U", "postgres", "--auth=trust", "--no-sync", "-D"])
            .arg(&data)
            .stderr(Stdio::null())
            .status()
            .expect("initdb runs");
        assert!(status.success(), "initdb failed");
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("postgres.log")).expect("a log file");
        if root {
            let status = Command::new("chown")
                .arg("postgres:postgres")
                .arg(dir.path().join("postgres.log"))
                .status()
                .expect("chown runs");
            assert!(status.success());
        }
        // The server outlives no test process: a shell beside it waits for the test's end
        // of its standard input (closed however the test process ends, even from a
        // static that is never dropped), then stops it and removes its directory.
        let watchdog = r#"dir=$1; shift; "$@" & pid=$!; read -r _; kill -INT "$pid"; wait "$pid"; rm -rf "$dir""#;
        let mut child = as_postgres(Path::new("sh"))
            .arg("-c")
            .arg(watchdog)
            .arg("sh")
            .arg(dir.path())
            .arg(bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-k"])
            .arg(dir.path())
            .args([
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "max_connections=300",
            ])
            .stdin(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("postgres starts");
        await_port(port, "postgres", &mut child);
        // It listens before it accepts connections: wait until it says it is ready.
        let deadline = Instant::now() + START_TIMEOUT;
        while !Command::new(bin.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .status()
            .expect("pg_isready runs")
            .success()
        {
            assert!(Instant::now() < deadline, "postgres was not ready in time");
            std::thread::sleep(Duration::from_millis(50));
        }
        Postgres {
            port,
            bin,
            databases: AtomicUsize::new(0),
            _own: Some(OwnPostgres { _dir: dir, child }),
        }
    }

    /// The `bin` directory of the newest PostgreSQL installed.
    fn programs() -> PathBuf {
        let root = Path::new("/usr/lib/postgresql");
        let newest = std::fs::read_dir(root)
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
            .max()
            .unwrap_or_else(|| {
                panic!("PostgreSQL is not installed (apt-get install postgresql): no {root:?}")
            });
        root.join(newest.to_string()).join("bin")
    }

    /// A new, empty database on this server; answers its URL.
    pub fn database(&self) -> String {
        let n = self.databases.fetch_add(1, Ordering::Relaxed);
        let name = format!("punct_{}_{n}", std::process::id());
        let status = Command::new(self.bin.join("createdb"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
            ])
            .arg(&name)
            .status()
            .expect("createdb runs");
        assert!(status.success(), "createdb {name} failed");
        self.url(&name)
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// The path of PostgreSQL's program `name` (`pg_dump`, `pg_restore`), of the
    /// server's version.
    pub fn program(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        // Closing its standard input stops the server (see `Postgres::start`).
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// A NATS server with JetStream.
#[derive(Debug)]
pub struct Nats {
    /// JetStream's storage.
    _dir: tempfile::TempDir,
    /// Where it listens.
    port: u16,
    /// The `nats-server` process.
    child: Child,
}

impl Nats {
    /// Starts a server with JetStream on, its storage in a new temporary directory.
    pub fn start() -> Nats {
        let dir = tempfile::Builder::new()
            .prefix("punct-nats-")
            .tempdir()
            .expect("a temporary directory");
        let port = free_port();
        let mut child = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start nats-server ({e}): apt-get install nats-server")
            });
        await_port(port, "nats-server", &mut child);
        Nats {
            _dir: dir,
            port,
            child,
        }
    }

    /// The server's URL.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// NATS servers clustered with JetStream (routes between them on loopback): the bus of a
/// cluster that survives the death of one of them.
#[derive(Debug)]
pub struct NatsCluster {
    /// Each server, `None` once killed.
    servers: Vec<Option<ClusteredNats>>,
    /// What each server was started with, to start it again.
    plans: Vec<Plan>,
    /// Every server's route URL, comma-separated.
    routes: String,
}

/// How one server of a [`NatsCluster`] starts: its ports and its storage, kept between
/// its runs.
#[derive(Debug)]
struct Plan {
    /// Where clients connect.
    port: u16,
    /// Where its monitoring endpoints answer.
    monitor: u16,
    /// Where the other servers reach it.
    route: u16,
    /// JetStream's storage and the server's log, removed with the cluster.
    dir: std::path::PathBuf,
}

/// One server of a [`NatsCluster`], running.
#[derive(Debug)]
struct ClusteredNats {
    /// Where clients connect.
    port: u16,
    /// Where its monitoring endpoints answer.
    monitor: u16,
    /// The `nats-server` process.
    child: Child,
}

impl NatsCluster {
    /// Starts `size` servers, clustered, with JetStream on, and waits until their
    /// JetStream cluster has elected its leader.
    pub fn start(size: usize) -> NatsCluster {
        let routes: Vec<u16> = (0..size).map(|_| free_port()).collect();
        let route_urls = routes
            .iter()
            .map(|port| format!("nats://127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut cluster = NatsCluster {
            servers: Vec::new(),
            plans: Vec::new(),
            routes: route_urls,
        };
        for (n, &route) in routes.iter().enumerate() {
            // Each server's ports are found free just before it takes them, as few
            // moments as can be for another test to take them first.
            cluster.plans.push(Plan {
                port: free_port(),
                monitor: free_port(),
                route,
                dir: tempfile::Builder::new()
                    .prefix("punct-nats-")
                    .tempdir()
                    .expect("a temporary directory")
                    .keep(),
            });
            cluster.servers.push(None);
            cluster.restart(n);
        }
        let deadline = Instant::now() + START_TIMEOUT;
        for server in cluster.servers.iter().flatten() {
            // `/jsz` names the JetStream cluster's leader once it has one.
            while !http_get(server.monitor, "/jsz").contains("\"leader\"") {
                assert!(
                    Instant::now() < deadline,
                    "the NATS cluster elected no leader in time"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        cluster
    }

    /// Starts server `n` (again, after [`NatsCluster::kill`]) on its ports and storage,
    /// without waiting for JetStream.
    pub fn restart(&mut self, n: usize) {
        assert!(self.servers[n].is_none(), "server {n} runs already");
        let Plan {
            port,
            monitor,
            route,
            ref dir,
        } = self.plans[n];
        let log = std::fs::File::options()
            .create(true)
            .append(true)
            .open(dir.join("nats.log"))
            .expect("a log file");
        let mut child = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string()])
            .args([
                "-m",
                &monitor.to_string(),
                "--server_name",
                &format!("n{n}"),
            ])
            .args(["--cluster_name", "punct", "--cluster"])
            .arg(format!("nats://127.0.0.1:{route}"))
            .args(["--routes", &self.routes, "-sd"])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start nats-server ({e}): apt-get install nats-server")
            });
        await_port(port, "nats-server", &mut child);
        self.servers[n] = Some(ClusteredNats {
            port,
            monitor,
            child,
        });
    }

    /// Every live server's URL, comma-separated, as `--cluster` takes them.
    pub fn urls(&self) -> String {
        self.servers
            .iter()
            .flatten()
            .map(|server| format!("nats://127.0.0.1:{}", server.port))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The server that leads JetStream stream `stream` (a key-value bucket `b` is the
    /// stream `KV_b`), as a live server's `/jsz` says.
    pub fn leader(&self, stream: &str) -> Option<usize> {
        let server = self.servers.iter().flatten().next()?;
        let answer = http_get(server.monitor, "/jsz?accounts=true&streams=true");
        let body = answer.split("\r\n\r\n").nth(1)?;
        let jsz: serde_json::Value = serde_json::from_str(body).ok()?;
        let leader = jsz["account_details"]
            .as_array()?
            .iter()
            .flat_map(|account| account["stream_detail"].as_array().into_iter().flatten())
            .find(|detail| detail["name"] == stream)?["cluster"]["leader"]
            .as_str()?
            .strip_prefix('n')?
            .parse()
            .ok()?;
        Some(leader)
    }

    /// Kills server `n` without warning, as `kill -9` does.
    pub fn kill(&mut self, n: usize) {
        let mut server = self.servers[n].take().expect("a server not killed yet");
        server.child.kill().expect("nats-server is killed");
        let _ = server.child.wait();
    }

    /// The logs of every server, for a test's failure message.
    pub fn logs(&self) -> String {
        self.plans
            .iter()
            .map(|plan| std::fs::read_to_string(plan.dir.join("nats.log")).unwrap_or_default())
            .collect()
    }
}

impl Drop for NatsCluster {
    fn drop(&mut self) {
        for server in self.servers.iter_mut().flatten() {
            let _ = server.child.kill();
            let _ = server.child.wait();
        }
        for plan in &self.plans {
            let _ = std::fs::remove_dir_all(&plan.dir);
        }
    }
}

/// The body of `GET path` on loopback's `port` (empty if it does not answer).
fn http_get(port: u16, path: &str) -> String {
    let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else {
        return String::new();
    };
    let request = format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    let mut answer = String::new();
    if stream.write_all(request.as_bytes()).is_ok() {
        let _ = stream.read_to_string(&mut answer);
    }
    answer
}
