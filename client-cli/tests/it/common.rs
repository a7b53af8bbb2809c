//! A server for `punct` processes to talk to, in the test's process, and the screen of
//! the room view as text.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use punct_cli::app::App;
use punct_server::Config;
use punct_testing::TestServer;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use serde_json::Value;

/// Runs `work` on a runtime of its own, on a thread of its own, for the rest of the test.
pub(crate) fn in_background(work: impl Future<Output = ()> + Send + 'static) {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(work);
    });
}

/// A server whose computer thinks briefly, so that games against it are quick; on a
/// runtime of its own, since these tests are not async.
pub(crate) fn start_server() -> TestServer {
    TestServer::in_background(Config {
        computer_think_time: std::time::Duration::from_millis(20),
        ..Config::default()
    })
}

/// The room view's screen as text, one line per row.
pub(crate) fn screen(app: &App) -> String {
    drawn(|frame| punct_cli::ui::render(app, frame))
}

/// The room view's screen on a `width`×`height` terminal.
pub(crate) fn screen_at(app: &App, width: u16, height: u16) -> String {
    drawn_at(width, height, |frame| punct_cli::ui::render(app, frame))
}

/// What `draw` draws on a 110×42 terminal, one line per row.
pub(crate) fn drawn(draw: impl FnOnce(&mut ratatui::Frame<'_>)) -> String {
    drawn_at(110, 42, draw)
}

/// What `draw` draws on a `width`×`height` terminal, one line per row.
pub(crate) fn drawn_at(
    width: u16,
    height: u16,
    draw: impl FnOnce(&mut ratatui::Frame<'_>),
) -> String {
    text(&buffer_at(width, height, draw))
}

/// What `draw` draws on a `width`×`height` terminal, styles included.
pub(crate) fn buffer_at(
    width: u16,
    height: u16,
    draw: impl FnOnce(&mut ratatui::Frame<'_>),
) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal.draw(draw).expect("drawn");
    terminal.backend().buffer().clone()
}

/// A buffer's text, one line per row, without trailing blanks.
pub(crate) fn text(buffer: &Buffer) -> String {
    (0..buffer.area.height)
        .map(|y| {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect();
            line.trim_end().to_owned() + "\n"
        })
        .collect()
}

/// Runs the `punct` binary with `args`, `input` on its standard input and, if given,
/// `config` as its configuration directory; answers how it ended.
pub(crate) fn run_punct(args: &[&str], input: &str, config: Option<&Path>) -> Output {
    run_punct_in("C", args, input, config)
}

/// [`run_punct`] in the locale `lang` (a `LANG` value such as `pl_PL.UTF-8`): the
/// language the server is asked to speak. The others run in the C locale, English,
/// whatever the machine's.
pub(crate) fn run_punct_in(
    lang: &str,
    args: &[&str],
    input: &str,
    config: Option<&Path>,
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_punct"));
    command
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", lang)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(config) = config {
        command.env("PUNCT_CONFIG_DIR", config);
    }
    let mut child = command.spawn().expect("punct starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("punct reads its stdin");
    child.wait_with_output().expect("punct runs")
}

/// Registers `username` with `punct login --register` (password `password`), saving its
/// session in the configuration directory `config`.
pub(crate) fn register(url: &str, username: &str, password: &str, config: &Path) {
    let login = [
        "login",
        "--server",
        url,
        "--register",
        "--username",
        username,
    ];
    let output = run_punct(&login, &format!("{password}\n"), Some(config));
    assert!(
        output.status.success(),
        "punct login failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A `punct` process with its output read line by line. A thread drains the output as it
/// comes: a process whose pipe fills up would stall, and with it the game.
pub(crate) struct Punct {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Punct {
    pub(crate) fn spawn(args: &[&str]) -> Punct {
        Punct::spawn_in(args, None)
    }

    /// `punct` with `args` and, if given, `config` as its configuration directory (the
    /// account `punct login` signed in to there).
    pub(crate) fn spawn_in(args: &[&str], config: Option<&Path>) -> Punct {
        let mut command = Command::new(env!("CARGO_BIN_EXE_punct"));
        if let Some(config) = config {
            command.env("PUNCT_CONFIG_DIR", config);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("punct starts");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                if tx.send(line.expect("readable")).is_err() {
                    return;
                }
            }
        });
        Punct { child, lines }
    }

    /// The next JSON line.
    pub(crate) fn next(&mut self) -> Value {
        let line = self.lines.recv().expect("another line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Reads until a line of this type, returning it.
    pub(crate) fn until(&mut self, kind: &str) -> Value {
        loop {
            let line = self.next();
            if line["type"] == kind {
                return line;
            }
        }
    }

    /// Every remaining line, once the process has exited successfully.
    pub(crate) fn finish(mut self) -> Vec<Value> {
        let rest: Vec<Value> = self
            .lines
            .iter()
            .map(|l| serde_json::from_str(&l).expect("JSON"))
            .collect();
        let status = self.child.wait().expect("exits");
        assert!(status.success(), "punct failed: {status}");
        rest
    }
}

/// A test that ends early, or has seen what it wanted of a bot still waiting for a game,
/// leaves no process behind.
impl Drop for Punct {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
