//! What each error code means: its HTTP status and the message a person reads when
//! nothing more particular is said. One table, for the HTTP edge and the WebSocket
//! connections alike (`protocol/PROTOCOL.md` lists the codes, `server/API.md` the
//! statuses).
//!
//! Must not import: anything of the server; it is a leaf.

use axum::http::StatusCode;
use punct_protocol::ErrorCode;

/// The HTTP status that answers `code`. (`too-many-connections` is also `429` when one
/// address, not the server, is full: that answer says so itself.)
pub(crate) fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NoSuchRoom | ErrorCode::NoSuchPlayer | ErrorCode::NotFound => {
            StatusCode::NOT_FOUND
        }
        ErrorCode::RoomFull | ErrorCode::NotCancellable | ErrorCode::UsernameTaken => {
            StatusCode::CONFLICT
        }
        ErrorCode::SignInRequired | ErrorCode::BadCredentials => StatusCode::UNAUTHORIZED,
        ErrorCode::BadToken
        | ErrorCode::NotAPlayer
        | ErrorCode::CrossSite
        | ErrorCode::OriginNotAllowed
        | ErrorCode::Blocked
        | ErrorCode::Muted
        | ErrorCode::BarredFromRated
        | ErrorCode::Banned
        | ErrorCode::NotAModerator => StatusCode::FORBIDDEN,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::MessageTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooManyRooms
        | ErrorCode::TooManyConnections
        | ErrorCode::StorageFailed
        | ErrorCode::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Malformed
        | ErrorCode::BadNotation
        | ErrorCode::HelloRequired
        | ErrorCode::DuplicateHello
        | ErrorCode::UnsupportedVersion
        | ErrorCode::AlreadyJoined
        | ErrorCode::NotJoined
        | ErrorCode::NotYourTurn
        | ErrorCode::IllegalTurn
        | ErrorCode::BadRequest
        | ErrorCode::SeatTakenOver
        | ErrorCode::GameOver
        | ErrorCode::NoDrawOffer
        | ErrorCode::NotClaimable
        | ErrorCode::RematchUnavailable
        | ErrorCode::BadUsername
        | ErrorCode::BadPassword
        | ErrorCode::BadName
        | ErrorCode::BadChat
        | ErrorCode::TakebackUnavailable
        | ErrorCode::NoTakebackOffer => StatusCode::BAD_REQUEST,
        // A code this server does not know yet (the protocol crate is newer).
        _ => StatusCode::BAD_REQUEST,
    }
}

/// What `code` says to a person when the refusal has nothing more particular to say.
pub(crate) fn message(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::Malformed => "the message is not one this server reads",
        ErrorCode::BadNotation => "the turn is not written in the notation of the rules",
        ErrorCode::MessageTooLarge => "the message is larger than the server accepts",
        ErrorCode::HelloRequired => "say hello first",
        ErrorCode::DuplicateHello => "this connection has said hello already",
        ErrorCode::UnsupportedVersion => "this server speaks another protocol version",
        ErrorCode::AlreadyJoined => {
            "this connection is in a room already; open another connection for another room"
        }
        ErrorCode::NotJoined => "join a room with a seat token before playing",
        ErrorCode::NoSuchRoom => "no room has this id",
        ErrorCode::BadToken => "this is not a seat token of this room",
        ErrorCode::NotAPlayer => "your account holds no seat in this room",
        ErrorCode::NotYourTurn => "it is the opponent's turn",
        ErrorCode::IllegalTurn => "the rules do not allow this turn",
        ErrorCode::RoomFull => "both seats are taken",
        ErrorCode::TooManyRooms => {
            "the server holds as many rooms as it may; try again when one has closed"
        }
        ErrorCode::TooManyConnections => "the server has as many connections as it may",
        ErrorCode::BadRequest => "the request is not valid",
        ErrorCode::SeatTakenOver => "another connection took over this seat with its token",
        ErrorCode::ShuttingDown => {
            "the server is restarting or shutting down: reconnect in a moment"
        }
        ErrorCode::GameOver => "the game is over",
        ErrorCode::NoDrawOffer => "no draw offer from the opponent stands",
        ErrorCode::StorageFailed => "the server could not answer; nothing changed, try again",
        ErrorCode::NotClaimable => "the win cannot be claimed now",
        ErrorCode::RematchUnavailable => "no rematch can be asked for now",
        ErrorCode::RateLimited => "too many requests: slow down",
        ErrorCode::OriginNotAllowed => "pages from this origin may not connect to this server",
        ErrorCode::UsernameTaken => "an account has this username already",
        ErrorCode::BadUsername => {
            "a username is 3 to 20 letters, digits, - and _, starting with a letter"
        }
        ErrorCode::BadPassword => "a password is 8 to 128 characters",
        ErrorCode::BadCredentials => "the username and password do not match an account",
        ErrorCode::BadName => "this name cannot be used",
        ErrorCode::SignInRequired => "sign in first",
        ErrorCode::CrossSite => "a page of another site may not act for a signed-in player",
        ErrorCode::NoSuchPlayer => "no account has this username",
        ErrorCode::BadChat => "a line of chat is 1 to 300 characters, without control characters",
        ErrorCode::TakebackUnavailable => "no takeback can be asked for now",
        ErrorCode::NoTakebackOffer => "no takeback request from the opponent stands",
        ErrorCode::NotCancellable => {
            "only a room whose other seat is free and whose game is not over can be cancelled"
        }
        ErrorCode::Blocked => "the room's creator blocks your account",
        ErrorCode::Muted => "a moderator muted your account for now",
        ErrorCode::BarredFromRated => "a moderator barred your account from rated games",
        ErrorCode::Banned => "a moderator banned this account",
        ErrorCode::NotAModerator => "only a moderator may do this",
        ErrorCode::NotFound => "there is no such thing here",
        // A code this server does not know yet (the protocol crate is newer).
        _ => UNKNOWN,
    }
}

/// The message of a code the table does not know.
const UNKNOWN: &str = "refused";

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    #[test]
    fn every_code_has_its_own_message() {
        for &code in ErrorCode::VARIANTS {
            assert_ne!(message(code), UNKNOWN, "{code}");
        }
    }
}
