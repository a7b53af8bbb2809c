//! An SMTP server for tests: it takes mail as a mail server would and keeps each message
//! for the test to read, or refuses every message, or accepts connections and never
//! answers. Plain SMTP on loopback, one thread per connection.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How the sink treats mail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// Takes every message.
    Accept,
    /// Refuses every sender (`550`).
    Refuse,
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
}

impl Sink {
    /// Starts a sink that treats mail as `behaviour` says.
    pub fn start(behaviour: Behaviour) -> Sink {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback port");
        let addr = listener.local_addr().expect("bound");
        let received = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || match behaviour {
                    // Held open, unanswered, until the client gives up.
                    Behaviour::Hang => drop(std::io::copy(&mut &stream, &mut std::io::sink())),
                    _ => {
                        let _ = serve(&stream, behaviour, &kept);
                    }
                });
            }
        });
        Sink { addr, received }
    }

    /// The URL a server is given to send through it.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// The messages received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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

/// Speaks enough SMTP for one client: greeting, EHLO/HELO, MAIL, RCPT, DATA, RSET,
/// NOOP, QUIT.
fn serve(
    stream: &TcpStream,
    behaviour: Behaviour,
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
            if behaviour == Behaviour::Refuse {
                b"550 no mail is taken here\r\n"
            } else {
                b"250 OK\r\n"
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
            kept.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Received {
                    to: std::mem::take(&mut to),
                    data,
                });
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
