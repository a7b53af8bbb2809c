//! One SMTP session at a time: opened when there is mail to send, kept open while more
//! follows, closed once the outbox is empty. It is lettre's `AsyncSmtpConnection` over a
//! TCP socket of ours with Nagle's algorithm off: lettre writes a message and its final
//! `.` apart, and with Nagle on the second write waits for the mail server's delayed
//! ACK, some 40 ms a message. (lettre's own transport sets no `TCP_NODELAY` and offers
//! no way to; its pool also hands a connection back on a task of its own, so that the
//! next mail now and then opened a second session.)
//!
//! The URL reads as lettre reads it: `smtp://host[:25]`, `smtp://…?tls=required` or
//! `?tls=opportunistic` (STARTTLS, port 587), `smtps://host[:465]` (TLS from the start),
//! with an optional `user:password@` and an optional `/hello-name`. `smtps` is the one
//! case that uses lettre's own socket, Nagle and all: it gives no way to start TLS on a
//! socket handed to it.

use std::time::Duration;

use lettre::Message;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{AsyncSmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use tokio::net::TcpStream;
use tokio::time::timeout;

/// Why a mail was not sent.
pub(super) struct Failure {
    /// What went wrong, as logged and stored.
    pub(super) error: String,
    /// Whether trying again cannot help (the mail server refused it for good).
    pub(super) permanent: bool,
}

/// How to secure a session.
#[derive(Clone)]
enum Security {
    /// Plain text.
    None,
    /// STARTTLS after the greeting; if the server offers it only, when not `required`.
    StartTls { tls: TlsParameters, required: bool },
    /// TLS from the first byte (`smtps`).
    Wrapped(TlsParameters),
}

/// A mail server, as its URL names it.
#[derive(Clone)]
pub(super) struct Server {
    host: String,
    port: u16,
    security: Security,
    credentials: Option<Credentials>,
    hello: ClientId,
}

impl Server {
    /// The mail server of `url`, or why it does not read.
    pub(super) fn parse(url: &str) -> Result<Server, String> {
        let url = url::Url::parse(url).map_err(|e| e.to_string())?;
        let host = url.host_str().ok_or("no host")?.to_owned();
        let tls = url
            .query_pairs()
            .find(|(key, _)| key == "tls")
            .map(|(_, value)| value.into_owned());
        let parameters = || TlsParameters::new(host.clone()).map_err(|e| e.to_string());
        let (port, security) = match (url.scheme(), tls.as_deref()) {
            ("smtp", None) => (25, Security::None),
            ("smtp", Some(mode @ ("required" | "opportunistic"))) => (
                587,
                Security::StartTls {
                    tls: parameters()?,
                    required: mode == "required",
                },
            ),
            ("smtps", _) => (465, Security::Wrapped(parameters()?)),
            (scheme, tls) => return Err(format!("scheme {scheme} with tls={tls:?}")),
        };
        let decode = |text: &str| {
            percent_encoding::percent_decode_str(text)
                .decode_utf8()
                .map(|text| text.into_owned())
                .map_err(|e| e.to_string())
        };
        let credentials = match url.password() {
            Some(password) => Some(Credentials::new(decode(url.username())?, decode(password)?)),
            None => None,
        };
        let hello = match url.path().trim_matches('/') {
            "" => ClientId::default(),
            name => ClientId::Domain(name.to_owned()),
        };
        Ok(Server {
            port: url.port().unwrap_or(port),
            host,
            security,
            credentials,
            hello,
        })
    }
}

/// The session with one mail server, open or not.
pub(super) struct Session {
    server: Server,
    /// The longest a connection, or a message, may take.
    patience: Duration,
    /// The connection, while open.
    open: Option<AsyncSmtpConnection>,
}

impl Session {
    /// No session yet with `server`, each step of which may take `patience`.
    pub(super) fn new(server: Server, patience: Duration) -> Session {
        Session {
            server,
            patience,
            open: None,
        }
    }

    /// Sends `message` over the open session, or a new one. A session kept open may have
    /// been closed by the mail server meanwhile (idle too long): a message it fails to
    /// carry for any reason but an SMTP answer goes once more over a new session.
    pub(super) async fn send(&mut self, message: &Message) -> Result<(), Failure> {
        let (envelope, bytes) = (message.envelope(), message.formatted());
        if let Some(mut open) = self.open.take() {
            match timeout(self.patience, open.send(envelope, &bytes)).await {
                Ok(Ok(_)) => {
                    self.open = Some(open);
                    return Ok(());
                }
                Ok(Err(e)) if e.is_transient() || e.is_permanent() => return Err(smtp(&e)),
                Ok(Err(_)) | Err(_) => open.abort().await,
            }
        }
        let mut open = self.connect().await?;
        match timeout(self.patience, open.send(envelope, &bytes)).await {
            Ok(Ok(_)) => {
                self.open = Some(open);
                Ok(())
            }
            Ok(Err(e)) => {
                open.abort().await;
                Err(smtp(&e))
            }
            Err(_) => Err(timed_out("sending")),
        }
    }

    /// Ends the session, if one is open.
    pub(super) async fn close(&mut self) {
        if let Some(mut open) = self.open.take() {
            // The messages are sent: a server that does not answer QUIT loses nothing.
            if !matches!(timeout(self.patience, open.quit()).await, Ok(Ok(_))) {
                open.abort().await;
            }
        }
    }

    /// Opens a session: connected, greeted, secured as the URL says, signed in.
    async fn connect(&self) -> Result<AsyncSmtpConnection, Failure> {
        match timeout(self.patience, self.handshake()).await {
            Ok(opened) => opened,
            Err(_) => Err(timed_out("connecting")),
        }
    }

    /// What [`Session::connect`] does, however long it takes.
    async fn handshake(&self) -> Result<AsyncSmtpConnection, Failure> {
        let server = &self.server;
        let address = (server.host.as_str(), server.port);
        let mut open = match &server.security {
            Security::Wrapped(tls) => AsyncSmtpConnection::connect_tokio1(
                address,
                Some(self.patience),
                &server.hello,
                Some(tls.clone()),
                None,
            )
            .await
            .map_err(|e| smtp(&e))?,
            Security::None | Security::StartTls { .. } => {
                let socket = TcpStream::connect(address).await.map_err(network)?;
                // Why this module exists: see its head.
                socket.set_nodelay(true).map_err(network)?;
                AsyncSmtpConnection::connect_with_transport(Box::new(socket), &server.hello)
                    .await
                    .map_err(|e| smtp(&e))?
            }
        };
        if let Security::StartTls { tls, required } = &server.security
            && (*required || open.can_starttls())
        {
            open.starttls(tls.clone(), &server.hello)
                .await
                .map_err(|e| smtp(&e))?;
        }
        if let Some(credentials) = &server.credentials {
            open.auth(&[Mechanism::Plain, Mechanism::Login], credentials)
                .await
                .map_err(|e| smtp(&e))?;
        }
        Ok(open)
    }
}

/// The network failed before the mail server said anything.
fn network(e: std::io::Error) -> Failure {
    Failure {
        error: format!("connecting to the mail server: {e}"),
        permanent: false,
    }
}

/// A failure the mail server answered, or the network caused.
fn smtp(e: &lettre::transport::smtp::Error) -> Failure {
    Failure {
        error: e.to_string(),
        permanent: e.is_permanent(),
    }
}

/// The mail server took longer than the session's patience at `step`.
fn timed_out(step: &str) -> Failure {
    Failure {
        error: format!("the mail server did not answer in time ({step})"),
        permanent: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_read_as_lettre_reads_them() {
        let plain = Server::parse("smtp://mail.example.org").unwrap();
        assert_eq!((plain.host.as_str(), plain.port), ("mail.example.org", 25));
        assert!(matches!(plain.security, Security::None));
        assert!(plain.credentials.is_none());

        let starttls =
            Server::parse("smtp://a%40b:p%2Fw@mail.example.org/punct.example.org?tls=required")
                .unwrap();
        assert_eq!(starttls.port, 587);
        assert!(matches!(
            starttls.security,
            Security::StartTls { required: true, .. }
        ));
        let expected = Credentials::new("a@b".into(), "p/w".into());
        assert_eq!(starttls.credentials, Some(expected));
        assert_eq!(starttls.hello, ClientId::Domain("punct.example.org".into()));

        let wrapped = Server::parse("smtps://mail.example.org:2465").unwrap();
        assert_eq!(wrapped.port, 2465);
        assert!(matches!(wrapped.security, Security::Wrapped(_)));

        assert!(Server::parse("http://mail.example.org").is_err());
        assert!(Server::parse("smtp://mail.example.org?tls=sometimes").is_err());
        assert!(Server::parse("not a url").is_err());
    }
}
