//! Why a connection ends: the close frame the client gets, and what the log says.

use std::fmt;

use axum::extract::ws::{CloseFrame, close_code};
use punct_protocol::{ErrorCode, ServerMessage};

use crate::errors;
use crate::i18n::Lang;

/// Why a connection ended; its kebab-case name labels `/metrics`.
#[derive(Debug, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub(super) enum End {
    /// The client closed it or went away.
    ClientClosed,
    /// The socket failed.
    Broken(String),
    /// The client sent a frame over the size limit.
    TooLarge,
    /// The client sent a text frame that is not UTF-8.
    #[strum(serialize = "not-utf8")]
    NotUtf8,
    /// The client speaks another protocol version.
    WrongVersion,
    /// Another connection took over this one's seat.
    Replaced,
    /// Nothing was heard from the client for too long.
    Idle,
    /// The client did not read what was sent to it quickly enough.
    TooSlow,
    /// The client went on sending faster than its rate limits after being told.
    Flood,
    /// The room closed: its creator cancelled it.
    RoomClosed,
    /// The room could not be reached, though it may live on: it closed under the
    /// connection and could not be entered again, or it never answered a request.
    RoomUnreachable,
    /// The server is shutting down.
    Shutdown,
    /// Its session ended, or the account of its seat was banned or deleted.
    SessionEnded,
}

impl End {
    /// The close frame to send, if the socket can still take one.
    pub(super) fn close_frame(&self) -> Option<CloseFrame> {
        let (code, reason) = match self {
            End::ClientClosed | End::Broken(_) | End::TooSlow => return None,
            End::TooLarge => (close_code::SIZE, "message too large"),
            End::Flood => (close_code::POLICY, "too many messages"),
            End::NotUtf8 => (close_code::INVALID, "text frame not UTF-8"),
            End::WrongVersion => (close_code::PROTOCOL, "unsupported protocol version"),
            End::Replaced => (close_code::NORMAL, "seat taken over"),
            End::Idle => (close_code::AWAY, "idle"),
            End::RoomClosed => (close_code::NORMAL, "room closed"),
            // Not 1000, which says the room is gone for good: the client comes back.
            End::RoomUnreachable => (close_code::AGAIN, "room unreachable"),
            End::Shutdown => (close_code::AWAY, "server shutting down"),
            End::SessionEnded => (close_code::NORMAL, "session ended"),
        };
        Some(CloseFrame {
            code,
            reason: reason.into(),
        })
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            End::ClientClosed => f.write_str("closed by the client"),
            End::Broken(e) => write!(f, "socket error: {e}"),
            End::TooLarge => f.write_str("message too large"),
            End::NotUtf8 => f.write_str("text frame not UTF-8"),
            End::WrongVersion => f.write_str("unsupported protocol version"),
            End::Replaced => f.write_str("seat taken over by another connection"),
            End::Idle => f.write_str("idle for too long"),
            End::TooSlow => f.write_str("outbound queue full: the client does not read"),
            End::Flood => f.write_str("went on sending over the rate limits"),
            End::RoomClosed => f.write_str("room closed"),
            End::RoomUnreachable => f.write_str("room unreachable: try again"),
            End::Shutdown => f.write_str("server shutting down"),
            End::SessionEnded => f.write_str("its session or its seat's account ended"),
        }
    }
}

/// The goodbye of a server that is stopping, to a reader of `lang`.
pub(super) fn shutting_down(lang: Lang) -> ServerMessage {
    ServerMessage::Bye {
        code: ErrorCode::ShuttingDown,
        message: errors::message(ErrorCode::ShuttingDown, lang).into(),
    }
}
