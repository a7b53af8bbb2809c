//! An SMTP server for tests: it takes mail as a mail server would and keeps each message
//! for the test to read, or refuses every message (for good or for now), or accepts
//! connections and never answers; a test may change its behaviour as it goes. Plain SMTP
//! on loopback, one thread per connection.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How the sink treats mail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// Takes every message.
    Accept,
    /// Takes one message a session, then hangs up without a word, as a mail server that
    /// closes sessions it thinks idle does: each message needs a session of its own.
    AcceptOnce,
    /// Refuses every sender (`550`).
    Refuse,
    /// Refuses every sender for now (`451`): try again later.
    Defer,
    /// Accepts the connection and says nothing, ever.
    Hang,
}

/// A message as the sink received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The recipients given with `RCPT TO`.
    pub to: Vec<String>,
    /// The message as sent after `DATA`, headers and body, with CRLF line ends.
    pub data: String,
}

impl Received {
    /// A header's value, as sent (`name` in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let (head, _) = self.data.split_once("\r\n\r\n")?;
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// The body as text: quoted-printable decoded when the message says it is so.
    pub fn body(&self) -> String {
        let body = self
            .data
            .split_once("\r\n\r\n")
            .map_or("", |(_, body)| body);
        if self.header("Content-Transfer-Encoding") != Some("quoted-printable") {
            return body.to_owned();
        }
        let joined = body.replace("=\r\n", "");
        let mut bytes = Vec::with_capacity(joined.len());
        let mut rest = joined.as_bytes();
        while let Some((&byte, after)) = rest.split_first() {
            let hex = after.get(..2).and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(decoded) if byte == b'=' => {
                    bytes.push(decoded);
                    rest = &after[2..];
                }
                _ => {
                    bytes.push(byte);
                    rest = after;
                }
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// An SMTP server on a free loopback port, serving until the process ends.
#[derive(Clone, Debug)]
pub struct Sink {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    /// How it treats mail now.
    behaviour: Arc<Mutex<Behaviour>>,
    /// SMTP sessions opened so far.
    sessions: Arc<AtomicUsize>,
}

impl Sink {
    /// Starts a sink that treats mail as `behaviour` says.
    pub fn start(behaviour: Behaviour) -> Sink {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback port");
        let addr = listener.local_addr().expect("bound");
        let received = Arc::new(Mutex::new(Vec::new()));
        let behaviour = Arc::new(Mutex::new(behaviour));
        let sessions = Arc::new(AtomicUsize::new(0));
        let (kept, now, opened) = (
            Arc::clone(&received),
            Arc::clone(&behaviour),
            Arc::clone(&sessions),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                opened.fetch_add(1, Ordering::Relaxed);
                let (kept, now) = (Arc::clone(&kept), Arc::clone(&now));
                let hang = *lock(&now) == Behaviour::Hang;
                std::thread::spawn(move || {
                    if hang {
                        // Held open, unanswered, until the client gives up.
                        drop(std::io::copy(&mut &stream, &mut std::io::sink()));
                    } else {
                        let _ = serve(&stream, &now, &kept);
                    }
                });
            }
        });
        Sink {
            addr,
            received,
            behaviour,
            sessions,
        }
    }

    /// Treats mail as `behaviour` says from now on (a hanging session stays hung).
    pub fn set(&self, behaviour: Behaviour) {
        *lock(&self.behaviour) = behaviour;
    }

    /// How many SMTP sessions clients opened so far.
    pub fn sessions(&self) -> usize {
        self.sessions.load(Ordering::Relaxed)
    }

    /// The URL a server is given to send through it.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// The messages received so far.
    pub fn received(&self) -> Vec<Received> {
        lock(&self.received).clone()
    }

    /// How many messages were received so far.
    pub fn count(&self) -> usize {
        lock(&self.received).len()
    }

    /// Waits up to `patience` for at least `count` messages; answers those received.
    pub fn await_messages(&self, count: usize, patience: Duration) -> Vec<Received> {
        let deadline = Instant::now() + patience;
        loop {
            let received = self.received();
            if received.len() >= count || Instant::now() >= deadline {
                return received;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `mutex`'s value, whoever panicked holding it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Speaks enough SMTP for one client: greeting, EHLO/HELO, MAIL, RCPT, DATA, RSET,
/// NOOP, QUIT; refuses senders as `behaviour` says at the time.
fn serve(
    stream: &TcpStream,
    behaviour: &Mutex<Behaviour>,
    kept: &Mutex<Vec<Received>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut out = stream;
    out.write_all(b"220 sink ESMTP ready\r\n")?;
    let mut to = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_ascii_uppercase();
        let reply: &[u8] = if command.starts_with("EHLO") || command.starts_with("HELO") {
            b"250 sink\r\n"
        } else if command.starts_with("MAIL FROM") {
            to.clear();
            match *lock(behaviour) {
                Behaviour::Refuse => b"550 no mail is taken here\r\n",
                Behaviour::Defer => b"451 not now, try again later\r\n",
                _ => b"250 OK\r\n",
            }
        } else if command.starts_with("RCPT TO:") {
            let recipient = line.trim_end()["RCPT TO:".len()..].trim();
            to.push(recipient.trim_matches(['<', '>']).to_owned());
            b"250 OK\r\n"
        } else if command == "DATA" {
            out.write_all(b"354 end with <CRLF>.<CRLF>\r\n")?;
            let mut data = String::new();
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 {
                    return Ok(());
                }
                if line == ".\r\n" {
                    break;
                }
                // Dot-stuffing undone.
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
            }
            lock(kept).push(Received {
                to: std::mem::take(&mut to),
                data,
            });
            if *lock(behaviour) == Behaviour::AcceptOnce {
                out.write_all(b"250 OK queued\r\n")?;
                return Ok(());
            }
            b"250 OK queued\r\n"
        } else if command == "QUIT" {
            out.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else {
            // RSET, NOOP and anything else.
            b"250 OK\r\n"
        };
        out.write_all(reply)?;
    }
}
