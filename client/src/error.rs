//! What can go wrong between a client and the server.

use std::fmt;
use std::time::Duration;

use punct_protocol::ErrorCode;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

/// Why a request to the server failed.
#[derive(Debug)]
pub enum Error {
    /// The HTTP request could not be made or answered (unreachable, timed out, broken).
    Http(reqwest::Error),
    /// The server refused the request: its status, and its error code and message when
    /// it gave them (always, for the API's own errors).
    Refused {
        /// The HTTP status.
        status: u16,
        /// The error code of the body, if it had one.
        code: Option<ErrorCode>,
        /// What the server said, or the status's reason.
        message: String,
    },
    /// The server refused a request made on the WebSocket, with this error.
    Rejected {
        /// What went wrong, for programs.
        code: ErrorCode,
        /// What went wrong, for people.
        message: String,
    },
    /// The server's answer is not what the protocol says.
    Unexpected(String),
    /// The WebSocket connection could not be made, or failed.
    WebSocket(tungstenite::Error),
    /// The server closed the WebSocket connection, with its close frame if it sent one.
    Closed(Option<CloseFrame>),
    /// Nothing came from the server within this time.
    Timeout(Duration),
    /// The TLS settings could not be made (a certificate file that does not read).
    Tls(String),
}

impl Error {
    /// Whether the server could not be reached, or could not take the request now (503),
    /// so that nothing was done: another node of a cluster may be tried.
    pub(crate) fn is_unreachable(&self) -> bool {
        match self {
            Error::Http(e) => e.is_connect(),
            Error::Refused { status: 503, .. } => true,
            Error::WebSocket(tungstenite::Error::Io(_)) | Error::Timeout(_) => true,
            _ => false,
        }
    }

    /// Whether the server refused only for now: it could not hold or read the room or
    /// tournament asked for (`too-many-rooms`, `storage-failed`), as while a cluster
    /// moves it off a node that died. Asking again a little later may succeed.
    pub fn is_for_now(&self) -> bool {
        let code = match self {
            Error::Rejected { code, .. }
            | Error::Refused {
                code: Some(code), ..
            } => code,
            _ => return false,
        };
        matches!(code, ErrorCode::TooManyRooms | ErrorCode::StorageFailed)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Http(_) => f.write_str("the HTTP request failed"),
            Error::Refused {
                code: Some(code),
                message,
                ..
            } => write!(f, "{message} ({code})"),
            Error::Refused {
                status, message, ..
            } => write!(f, "HTTP {status}: {message}"),
            Error::Rejected { code, message } => write!(f, "{message} ({code})"),
            Error::Unexpected(what) => write!(f, "unexpected answer from the server: {what}"),
            Error::WebSocket(_) => f.write_str("the WebSocket connection failed"),
            Error::Closed(Some(frame)) if !frame.reason.is_empty() => write!(
                f,
                "the server closed the connection ({}: {})",
                u16::from(frame.code),
                frame.reason
            ),
            Error::Closed(Some(frame)) => write!(
                f,
                "the server closed the connection ({})",
                u16::from(frame.code)
            ),
            Error::Closed(None) => f.write_str("the connection was closed"),
            Error::Timeout(after) => write!(f, "no answer from the server within {after:?}"),
            Error::Tls(why) => write!(f, "TLS: {why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Http(e) => Some(e),
            Error::WebSocket(e) => Some(e),
            _ => None,
        }
    }
}

impl Error {
    /// The error and every cause under it, for people: `the HTTP request failed: error
    /// sending request …: invalid peer certificate: UnknownIssuer`.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            text.push_str(": ");
            text.push_str(&error.to_string());
            cause = error.source();
        }
        text
    }
}

impl From<reqwest::Error> for Error {
    fn from(e: reqwest::Error) -> Error {
        Error::Http(e)
    }
}

impl From<tungstenite::Error> for Error {
    fn from(e: tungstenite::Error) -> Error {
        Error::WebSocket(e)
    }
}
