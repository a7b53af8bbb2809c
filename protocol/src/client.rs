//! Messages from a client to the server.

use std::fmt;

use punct_rules::{Turn, Variant};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ErrorCode, RequestId, Seq, TimeControl};

/// A request from a client. Every request has an `id`, chosen by the client, that the
/// server echoes in its reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Must be the first message of a connection: states the protocol version spoken.
    Hello {
        /// Echoed in the reply.
        id: RequestId,
        /// The client's [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION).
        version: u32,
        /// Whether a player on this connection is sent the legal turns (`your_turn`, and
        /// `legal_turns` in snapshots); true if left out. A client with the rules engine
        /// can say false: generating the list is most of the server's work per turn.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        legal_turns: bool,
    },
    /// Take one's seat in a room with the seat token got over HTTP, or, on a signed-in
    /// connection, the seat one's account holds. A connection that already holds the
    /// seat is replaced (reconnect). Answered with a snapshot.
    Join {
        /// Echoed in the reply.
        id: RequestId,
        /// The room's id.
        room: String,
        /// The secret seat token; may be left out on a connection signed in to the
        /// account that holds a seat of the room.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// When coming back: the last room sequence number this client saw. The server
        /// answers `resumed` and sends the events missed since, or a fresh snapshot when
        /// it no longer has them all.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<Seq>,
    },
    /// Watch a room as a spectator. Answered with a snapshot.
    Watch {
        /// Echoed in the reply.
        id: RequestId,
        /// The room's id.
        room: String,
        /// When coming back: the last room sequence number seen, as for `join`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<Seq>,
    },
    /// Play a turn in the room joined as a player. Answered with an `ack` (then the
    /// `turn_played` event that everyone gets) or an `error`.
    Play {
        /// Echoed in the reply.
        id: RequestId,
        /// The turn in notation.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::TurnDef"))]
        turn: Turn,
        /// The number the turn is to have (the turns played so far, plus one): with it,
        /// the same play sent again after its answer was lost is acknowledged, not
        /// refused, if the room played it already.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        number: Option<u32>,
    },
    /// Give up the game: the opponent wins. Answered with an `ack`; `game_over` follows.
    Resign {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Offer the opponent a draw. It stands until the opponent accepts or declines it, or
    /// the offerer plays a turn. Answered with an `ack`; `draw_offered` follows.
    OfferDraw {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Accept the opponent's standing draw offer. Answered with an `ack`; `game_over`
    /// follows.
    AcceptDraw {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Claim the win because the opponent has been away longer than the grace period.
    /// Answered with an `ack`; `game_over` follows.
    ClaimWin {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// After the game: ask for a rematch with colours swapped. Answered with an `ack`;
    /// `rematch_offered` follows, or `rematch` once both players have asked.
    Rematch {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Decline the opponent's standing draw offer. Answered with an `ack`;
    /// `draw_declined` follows.
    DeclineDraw {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Ask the opponent to take back one's last turn: only it when the opponent is to
    /// move, it and the opponent's reply when one is to move. Answered with an `ack`;
    /// `takeback_offered` follows.
    Takeback {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Accept the opponent's standing takeback request. Answered with an `ack`;
    /// `taken_back` follows.
    AcceptTakeback {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Decline the opponent's standing takeback request. Answered with an `ack`;
    /// `takeback_declined` follows.
    DeclineTakeback {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Say something in the room's chat: a player to the players' channel, a spectator
    /// to the spectators'. Answered with an `ack`; the `chat` notice follows.
    Chat {
        /// Echoed in the reply.
        id: RequestId,
        /// 1 to 300 characters, without control characters.
        text: String,
    },
    /// A player stops (or starts again) hearing the opponent's chat. Answered with an
    /// `ack`.
    Mute {
        /// Echoed in the reply.
        id: RequestId,
        /// True to stop hearing the opponent, false to hear them again.
        muted: bool,
    },
    /// Follow a tournament (one at a time: following another stops following the first;
    /// a connection may follow one and be in a room). Answered with `tournament`, the
    /// whole of it; then `tournament` again whenever it changes (at most once a second),
    /// `tournament_round` when a round is paired, and, to a signed-in player of that
    /// round, `tournament_game`.
    Follow {
        /// Echoed in the reply.
        id: RequestId,
        /// The tournament's id.
        tournament: String,
    },
    /// Stop following the tournament followed. Answered with an `ack` whose `seq` is 0.
    Unfollow {
        /// Echoed in the reply.
        id: RequestId,
    },
    /// Ask to be paired at once with someone who wants the same game (one seek a
    /// connection: a new one replaces the last). Answered with `seeking`, or with
    /// `paired` when a waiting seek meets it at once; `paired` comes unasked when
    /// someone meets it later, and `seek_ended` when it runs out.
    Seek {
        /// Echoed in the reply.
        id: RequestId,
        /// Which game; standard if left out.
        #[serde(default = "crate::http::standard")]
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
        variant: Variant,
        /// The time control: a live clock or correspondence days.
        clock: TimeControl,
        /// A rated game: only on a signed-in connection.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// For a rated seek: how far, either way, the opponent's rating may be from one's
        /// own; any if left out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        range: Option<u32>,
        /// The name to play under, as for a room's creator (not on a signed-in
        /// connection, which plays under its username).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// On a connection not signed in: a key the client keeps (1 to 64 characters),
        /// the same in all its tabs, so that its own seeks never meet each other.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        guest: Option<String>,
    },
    /// Withdraw this connection's seek. Answered with an `ack` whose `seq` is 0 (also
    /// when there was none).
    CancelSeek {
        /// Echoed in the reply.
        id: RequestId,
    },
}

/// What a player asks of the room it has joined: every request but `hello`, `join` and
/// `watch`, without its id.
/// (Serialisable so that a server can forward it between its nodes; on the wire a client
/// sends the request, never this.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Play a turn; with the number it is to have, safe to ask again (see
    /// [`ClientMessage::Play`]).
    Play {
        /// The turn.
        turn: Turn,
        /// The number it is to have, if the asker knows it.
        number: Option<u32>,
    },
    /// Give up.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline the opponent's draw offer.
    DeclineDraw,
    /// Claim the win from an opponent away longer than the grace period.
    ClaimWin,
    /// After the game: ask for a rematch with colours swapped.
    Rematch,
    /// Ask the opponent to take back one's last turn.
    Takeback,
    /// Accept the opponent's takeback request.
    AcceptTakeback,
    /// Decline the opponent's takeback request.
    DeclineTakeback,
}

impl Action {
    /// The request that asks for this, numbered `id`.
    pub fn request(self, id: RequestId) -> ClientMessage {
        match self {
            Action::Play { turn, number } => ClientMessage::Play { id, turn, number },
            Action::Resign => ClientMessage::Resign { id },
            Action::OfferDraw => ClientMessage::OfferDraw { id },
            Action::AcceptDraw => ClientMessage::AcceptDraw { id },
            Action::DeclineDraw => ClientMessage::DeclineDraw { id },
            Action::ClaimWin => ClientMessage::ClaimWin { id },
            Action::Rematch => ClientMessage::Rematch { id },
            Action::Takeback => ClientMessage::Takeback { id },
            Action::AcceptTakeback => ClientMessage::AcceptTakeback { id },
            Action::DeclineTakeback => ClientMessage::DeclineTakeback { id },
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

impl ClientMessage {
    /// The request's id.
    pub fn id(&self) -> RequestId {
        match *self {
            ClientMessage::Hello { id, .. }
            | ClientMessage::Join { id, .. }
            | ClientMessage::Watch { id, .. }
            | ClientMessage::Play { id, .. }
            | ClientMessage::Resign { id }
            | ClientMessage::OfferDraw { id }
            | ClientMessage::AcceptDraw { id }
            | ClientMessage::DeclineDraw { id }
            | ClientMessage::ClaimWin { id }
            | ClientMessage::Rematch { id }
            | ClientMessage::Takeback { id }
            | ClientMessage::AcceptTakeback { id }
            | ClientMessage::DeclineTakeback { id }
            | ClientMessage::Chat { id, .. }
            | ClientMessage::Mute { id, .. }
            | ClientMessage::Follow { id, .. }
            | ClientMessage::Unfollow { id }
            | ClientMessage::Seek { id, .. }
            | ClientMessage::CancelSeek { id } => id,
        }
    }

    /// What the request asks of the game, unless it is `hello`, `join`, `watch`, `chat`
    /// or `mute`.
    pub fn action(&self) -> Option<Action> {
        Some(match *self {
            ClientMessage::Hello { .. }
            | ClientMessage::Join { .. }
            | ClientMessage::Watch { .. }
            | ClientMessage::Chat { .. }
            | ClientMessage::Mute { .. }
            | ClientMessage::Follow { .. }
            | ClientMessage::Unfollow { .. }
            | ClientMessage::Seek { .. }
            | ClientMessage::CancelSeek { .. } => return None,
            ClientMessage::Play { turn, number, .. } => Action::Play { turn, number },
            ClientMessage::Resign { .. } => Action::Resign,
            ClientMessage::OfferDraw { .. } => Action::OfferDraw,
            ClientMessage::AcceptDraw { .. } => Action::AcceptDraw,
            ClientMessage::DeclineDraw { .. } => Action::DeclineDraw,
            ClientMessage::ClaimWin { .. } => Action::ClaimWin,
            ClientMessage::Rematch { .. } => Action::Rematch,
            ClientMessage::Takeback { .. } => Action::Takeback,
            ClientMessage::AcceptTakeback { .. } => Action::AcceptTakeback,
            ClientMessage::DeclineTakeback { .. } => Action::DeclineTakeback,
        })
    }

    /// The message's `type`, as written on the wire.
    pub const fn type_name(&self) -> &'static str {
        match self {
            ClientMessage::Hello { .. } => "hello",
            ClientMessage::Join { .. } => "join",
            ClientMessage::Watch { .. } => "watch",
            ClientMessage::Play { .. } => "play",
            ClientMessage::Resign { .. } => "resign",
            ClientMessage::OfferDraw { .. } => "offer_draw",
            ClientMessage::AcceptDraw { .. } => "accept_draw",
            ClientMessage::DeclineDraw { .. } => "decline_draw",
            ClientMessage::ClaimWin { .. } => "claim_win",
            ClientMessage::Rematch { .. } => "rematch",
            ClientMessage::Takeback { .. } => "takeback",
            ClientMessage::AcceptTakeback { .. } => "accept_takeback",
            ClientMessage::DeclineTakeback { .. } => "decline_takeback",
            ClientMessage::Chat { .. } => "chat",
            ClientMessage::Mute { .. } => "mute",
            ClientMessage::Follow { .. } => "follow",
            ClientMessage::Unfollow { .. } => "unfollow",
            ClientMessage::Seek { .. } => "seek",
            ClientMessage::CancelSeek { .. } => "cancel_seek",
        }
    }

    /// Reads one text frame. A message is one JSON object whose keys are all different;
    /// anything else (an array, a string, a repeated key) is malformed. When reading
    /// fails, the error still carries the request id if the frame had one, so the reply
    /// can name the request it refuses; a `play` whose turn is not notation is told apart
    /// from other malformed messages.
    pub fn decode(text: &str) -> Result<ClientMessage, DecodeError> {
        let Object(object) = serde_json::from_str(text).map_err(|e| DecodeError {
            id: None,
            code: ErrorCode::Malformed,
            message: match e.classify() {
                serde_json::error::Category::Data => e.to_string(),
                _ => format!("not JSON: {e}"),
            },
        })?;
        let id = object.get("id").and_then(serde_json::Value::as_u64);
        if object.get("type").and_then(|t| t.as_str()) == Some("play")
            && let Some(turn) = object.get("turn").and_then(|t| t.as_str())
            && let Err(e) = turn.parse::<Turn>()
        {
            return Err(DecodeError {
                id,
                code: ErrorCode::BadNotation,
                message: e.to_string(),
            });
        }
        serde_json::from_value(serde_json::Value::Object(object)).map_err(|e| DecodeError {
            id,
            code: ErrorCode::Malformed,
            message: e.to_string(),
        })
    }
}

/// A JSON object read strictly: serde would otherwise take an array as a message (its
/// first element the tag) and let the last of two equal keys win.
struct Object(serde_json::Map<String, serde_json::Value>);

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Object, D::Error> {
        deserializer.deserialize_map(ObjectVisitor)
    }
}

/// Reads a map into an [`Object`], refusing a key seen before.
struct ObjectVisitor;

impl<'de> serde::de::Visitor<'de> for ObjectVisitor {
    type Value = Object;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message: a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Object, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
            }
            let value = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Object(object))
    }
}

/// Why a frame is not a [`ClientMessage`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The request id, if the frame is JSON with a numeric `id`.
    pub id: Option<RequestId>,
    /// [`ErrorCode::Malformed`] or [`ErrorCode::BadNotation`].
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_documented() {
        let hello = ClientMessage::decode(r#"{"type":"hello","id":1,"version":1}"#);
        assert_eq!(
            hello,
            Ok(ClientMessage::Hello {
                id: 1,
                version: 1,
                legal_turns: true
            })
        );
        let quiet =
            ClientMessage::decode(r#"{"type":"hello","id":1,"version":1,"legal_turns":false}"#);
        assert!(matches!(
            quiet,
            Ok(ClientMessage::Hello {
                legal_turns: false,
                ..
            })
        ));
        // The default is left out when written.
        let written = serde_json::to_string(&hello.unwrap()).unwrap();
        assert_eq!(written, r#"{"type":"hello","id":1,"version":1}"#);
        let play = ClientMessage::decode(r#"{"type":"play","id":7,"turn":"c4:d5,c5"}"#);
        assert_eq!(
            play.map(|m| serde_json::to_string(&m).unwrap()),
            Ok(r#"{"type":"play","id":7,"turn":"C4:C5,D5"}"#.to_owned())
        );
    }

    #[test]
    fn errors_keep_the_request_id() {
        let bad = ClientMessage::decode(r#"{"type":"play","id":7,"turn":"Z99:A1,A2"}"#);
        assert_eq!(
            bad.as_ref().map_err(|e| (e.id, e.code)),
            Err((Some(7), ErrorCode::BadNotation))
        );
        let unknown = ClientMessage::decode(r#"{"type":"dance","id":8}"#);
        assert_eq!(
            unknown.map_err(|e| (e.id, e.code)),
            Err((Some(8), ErrorCode::Malformed))
        );
        let garbage = ClientMessage::decode("{oops");
        assert_eq!(
            garbage.map_err(|e| (e.id, e.code)),
            Err((None, ErrorCode::Malformed))
        );
    }

    #[test]
    fn only_an_object_with_distinct_keys_is_a_message() {
        // serde alone reads an array as an internally tagged enum: the first element is
        // the tag, the others the fields in order.
        let array = ClientMessage::decode(r#"["play",3,"C4:C5,D5"]"#).unwrap_err();
        assert_eq!((array.id, array.code), (None, ErrorCode::Malformed));
        assert!(array.message.contains("JSON object"), "{}", array.message);
        let twice =
            ClientMessage::decode(r#"{"type":"play","id":3,"turn":"C4:C5,D5","turn":"pass"}"#)
                .unwrap_err();
        assert_eq!((twice.id, twice.code), (None, ErrorCode::Malformed));
        assert!(
            twice.message.contains(r#"duplicate key "turn""#),
            "{}",
            twice.message
        );
        let id_twice = ClientMessage::decode(r#"{"type":"resign","id":3,"id":4}"#).unwrap_err();
        assert_eq!(id_twice.code, ErrorCode::Malformed);
    }

    #[test]
    fn an_action_is_its_request_without_the_id() {
        let turn = "C4:C5,D5".parse().unwrap();
        for action in [
            Action::Play { turn, number: None },
            Action::Play {
                turn,
                number: Some(1),
            },
            Action::Resign,
            Action::OfferDraw,
            Action::AcceptDraw,
            Action::DeclineDraw,
            Action::ClaimWin,
            Action::Rematch,
            Action::Takeback,
            Action::AcceptTakeback,
            Action::DeclineTakeback,
        ] {
            let request = action.request(9);
            assert_eq!(request.id(), 9);
            assert_eq!(request.action(), Some(action));
        }
        let hello = ClientMessage::Hello {
            id: 1,
            version: 1,
            legal_turns: true,
        };
        assert_eq!(hello.action(), None);
    }

    #[test]
    fn type_names_are_the_tags_on_the_wire() {
        let turn = "C4:C5,D5".parse().unwrap();
        let room = String::from("r");
        for message in [
            ClientMessage::Hello {
                id: 1,
                version: 1,
                legal_turns: false,
            },
            ClientMessage::Join {
                id: 1,
                room: room.clone(),
                token: Some("t".into()),
                since: None,
            },
            ClientMessage::Watch {
                id: 1,
                room,
                since: None,
            },
            ClientMessage::Play {
                id: 1,
                turn,
                number: None,
            },
            ClientMessage::Resign { id: 1 },
            ClientMessage::OfferDraw { id: 1 },
            ClientMessage::AcceptDraw { id: 1 },
            ClientMessage::DeclineDraw { id: 1 },
            ClientMessage::ClaimWin { id: 1 },
            ClientMessage::Rematch { id: 1 },
            ClientMessage::Takeback { id: 1 },
            ClientMessage::AcceptTakeback { id: 1 },
            ClientMessage::DeclineTakeback { id: 1 },
        ] {
            let json = serde_json::to_value(&message).unwrap();
            assert_eq!(json["type"], message.type_name());
        }
    }
}
