//! What each error code means: its HTTP status and the message a person reads when
//! nothing more particular is said, in their language (the catalogues of `i18n`). One table, for the HTTP edge and the WebSocket
//! connections alike (`protocol/PROTOCOL.md` lists the codes, `server/API.md` the
//! statuses).
//!
//! Must not import: anything of the server but `i18n`; it is a leaf.

use axum::http::StatusCode;
use punct_protocol::ErrorCode;

use crate::i18n::Lang;

/// The HTTP status that answers `code`. (`too-many-connections` is also `429` when one
/// address, not the server, is full: that answer says so itself.)
pub(crate) fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NoSuchRoom
        | ErrorCode::NoSuchPlayer
        | ErrorCode::NotFound
        | ErrorCode::NoSuchTournament => StatusCode::NOT_FOUND,
        ErrorCode::RoomFull
        | ErrorCode::NotCancellable
        | ErrorCode::UsernameTaken
        | ErrorCode::AlreadyEntered
        | ErrorCode::TournamentFull
        | ErrorCode::TournamentStarted
        | ErrorCode::NotEntered => StatusCode::CONFLICT,
        ErrorCode::SignInRequired | ErrorCode::BadCredentials | ErrorCode::SessionEnded => {
            StatusCode::UNAUTHORIZED
        }
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

/// What `code` says to a person reading `lang`, when the refusal has nothing more
/// particular to say. (The catalogues hold it as `error.{code}`.)
pub(crate) fn message(code: ErrorCode, lang: Lang) -> &'static str {
    lang.get(&format!("error.{code}")).unwrap_or(UNKNOWN)
}

/// What a refusal of `code` says to a person reading `lang`: `particular`, written in
/// English, to one who reads English; the code's message in their language to anyone
/// else.
pub(crate) fn told(code: ErrorCode, particular: String, lang: Lang) -> String {
    match lang {
        Lang::En => particular,
        _ => message(code, lang).to_owned(),
    }
}

/// The message of a code no catalogue knows.
const UNKNOWN: &str = "refused";

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;
    use crate::i18n::LANGS;

    #[test]
    fn every_code_has_its_own_message_in_every_language() {
        for &code in ErrorCode::VARIANTS {
            for lang in LANGS {
                assert_ne!(message(code, lang), UNKNOWN, "{code} in {}", lang.code());
            }
        }
    }
}
