//! What each error code means: its HTTP status and the message a person reads when
//! nothing more particular is said, in their language (the catalogues of `i18n`). One
//! table, for the HTTP edge and the WebSocket connections alike (`protocol/PROTOCOL.md`
//! lists the codes, `server/API.md` the statuses). And [`Refused`], the one type of a
//! request refused, whoever refused it: a room, the accounts, the moderators, the
//! tournaments or the seek pool.
//!
//! Must not import: anything of the server but `i18n`; it is a leaf.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use punct_protocol::ErrorCode;
use punct_rules::IllegalTurn;

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

/// What the rules' refusal of a turn says to a person reading `lang`: `particular`, the
/// rules' own words, to one who reads English; to anyone else the catalogue's message
/// for `rule` (`illegal.{rule}`, an `IllegalTurn::code`) with its `args`
/// (`IllegalTurn::args`), the kind of piece named in their language; the code's message
/// for a rule the catalogues do not know (a newer rules crate).
pub(crate) fn illegal(
    rule: &str,
    args: &BTreeMap<String, String>,
    particular: String,
    lang: Lang,
) -> String {
    let key = format!("illegal.{rule}");
    if lang == Lang::En {
        return particular;
    }
    if lang.get(&key).is_none() {
        return message(ErrorCode::IllegalTurn, lang).to_owned();
    }
    let kind = args
        .get("kind")
        .map(|kind| lang.get(&format!("kind.{kind}")).unwrap_or(kind));
    let values: Vec<(&str, &str)> = args
        .iter()
        .map(|(name, value)| match (name.as_str(), kind) {
            ("kind", Some(kind)) => (name.as_str(), kind),
            _ => (name.as_str(), value.as_str()),
        })
        .collect();
    lang.format(&key, &values)
}

/// The message of a code no catalogue knows.
const UNKNOWN: &str = "refused";

/// Why a request was refused: by a room, over the protocol, or by the accounts, the
/// moderators, the tournaments and the seek pool, over HTTP.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Refused {
    /// What went wrong, for programs.
    pub(crate) code: ErrorCode,
    /// The rules engine's reason, for an illegal turn.
    pub(crate) rule: Option<String>,
    /// With `rule`: the values its reason names (`IllegalTurn::args`), for the words of
    /// each reader's language. Absent from a node of a release before it, during a
    /// rolling upgrade of a cluster.
    #[serde(default)]
    pub(crate) args: Option<BTreeMap<String, String>>,
    /// What went wrong, for people.
    pub(crate) message: String,
}

impl Refused {
    /// A refusal with `code`, told as `message`.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Refused {
        Refused {
            code,
            rule: None,
            args: None,
            message: message.into(),
        }
    }

    /// The refusal of a turn the rules do not allow.
    pub(crate) fn illegal(illegal: IllegalTurn) -> Refused {
        Refused {
            code: ErrorCode::IllegalTurn,
            rule: Some(illegal.code().to_owned()),
            args: Some(
                illegal
                    .args()
                    .into_iter()
                    .map(|(name, value)| (name.to_owned(), value))
                    .collect(),
            ),
            message: illegal.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use punct_rules::{IllegalTurn, Kind};
    use strum::VariantArray;

    use super::*;
    use crate::i18n::LANGS;

    /// The refusal of `reason` in `lang`, as a connection tells it.
    fn told_in(reason: IllegalTurn, lang: Lang) -> String {
        let args = reason
            .args()
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect();
        illegal(reason.code(), &args, reason.to_string(), lang)
    }

    #[test]
    fn every_reason_of_the_rules_is_a_message_with_its_values_in_every_language() {
        for reason in IllegalTurn::one_of_each() {
            let key = format!("illegal.{}", reason.code());
            let english = Lang::En.get(&key).unwrap_or_else(|| panic!("no {key}"));
            for (name, _) in reason.args() {
                assert!(
                    english.contains(&format!("{{{name}}}")),
                    "{key} names {name}"
                );
            }
            for lang in LANGS {
                let told = told_in(reason, lang);
                assert!(!told.contains('{'), "{}: {told}", lang.code());
                for (name, value) in reason.args() {
                    if name != "kind" {
                        assert!(
                            told.contains(&value),
                            "{}: {told} lacks {value}",
                            lang.code()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_english_catalogue_says_each_reason_in_the_rules_own_words() {
        // The page says a refusal from the catalogue, the server from the rules: in
        // English they agree (the kind of piece by the rules' name for it).
        for reason in IllegalTurn::one_of_each() {
            let values: Vec<(&str, String)> = reason
                .args()
                .into_iter()
                .map(|(name, value)| match name {
                    "kind" => {
                        let kind = Kind::ALL.into_iter().find(|k| k.code() == value);
                        (name, kind.expect("a kind's code").name().to_owned())
                    }
                    _ => (name, value),
                })
                .collect();
            let values: Vec<(&str, &str)> = values.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let key = format!("illegal.{}", reason.code());
            assert_eq!(Lang::En.format(&key, &values), reason.to_string());
        }
    }

    #[test]
    fn an_illegal_drop_is_told_in_the_readers_words_naming_its_cell() {
        let drop = IllegalTurn::DropInCentre("I9".parse().expect("a cell"));
        assert_eq!(
            told_in(drop, Lang::En),
            "drop touches the central hexagon at I9: new pieces may not be placed there"
        );
        assert_eq!(
            told_in(drop, Lang::De),
            "I9 liegt im mittleren Sechseck: dort darf jetzt kein Stein eingesetzt werden"
        );
        assert_eq!(
            told_in(drop, Lang::Pl),
            "I9 leży w obszarze centralnym: nie można teraz położyć tam piona"
        );
        let empty = IllegalTurn::ReserveEmpty(Kind::Triangle);
        assert_eq!(
            told_in(empty, Lang::Ru),
            "в вашем запасе не осталось фигур этого вида: треугольная"
        );
    }

    #[test]
    fn every_kind_of_piece_has_a_name_under_its_code() {
        for kind in Kind::ALL {
            let spelt = serde_json::to_value(kind).expect("a kind serialises");
            assert_eq!(spelt, kind.code(), "the wire and the code agree");
            let key = format!("kind.{}", kind.code());
            assert!(Lang::En.get(&key).is_some(), "{key}");
        }
    }

    #[test]
    fn every_code_has_its_own_message_in_every_language() {
        for &code in ErrorCode::VARIANTS {
            for lang in LANGS {
                assert_ne!(message(code, lang), UNKNOWN, "{code} in {}", lang.code());
            }
        }
    }
}
