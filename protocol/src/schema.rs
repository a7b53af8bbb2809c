//! The JSON Schema of every message, and schema-only mirrors of the rules crate's types
//! (which do not implement `JsonSchema`; their serde form is described here).

use schemars::JsonSchema;

use crate::{
    ApiError, Archive, ClientMessage, CreateRoom, CreateTournament, Lobby, MyGames, NodeView,
    Record, RoomNode, RoomSummary, SeatGranted, ServerMessage, TournamentList, TournamentNode,
    TournamentView,
};

/// The title of the exported schema.
pub const SCHEMA_TITLE: &str = "PÜNCT protocol";

/// Every message of the protocol: the schema's root is one of these.
#[derive(JsonSchema)]
#[schemars(title = "PÜNCT protocol", untagged)]
#[expect(dead_code, reason = "exists only to be described by its schema")]
#[allow(
    clippy::large_enum_variant,
    reason = "never made: it only describes the messages to schemars"
)]
enum Protocol {
    /// A WebSocket message from a client.
    Client(ClientMessage),
    /// A WebSocket message from the server.
    Server(ServerMessage),
    /// `POST /api/rooms` body.
    CreateRoom(CreateRoom),
    /// `POST /api/rooms` and `POST /api/rooms/{id}/seat` answer.
    SeatGranted(SeatGranted),
    /// `GET /api/rooms/{id}` answer.
    RoomSummary(RoomSummary),
    /// `GET /api/rooms` answer.
    Lobby(Lobby),
    /// `GET /api/rooms/{id}/record` answer.
    Record(Record),
    /// `GET /api/games` answer.
    Archive(Archive),
    /// `GET /api/me/games` answer.
    MyGames(MyGames),
    /// `GET /api/rooms/{id}/node` answer.
    RoomNode(RoomNode),
    /// `GET /api/node` answer.
    NodeView(NodeView),
    /// `POST /api/tournaments` body.
    CreateTournament(CreateTournament),
    /// `GET /api/tournaments` answer.
    TournamentList(TournamentList),
    /// `GET /api/tournaments/{id}` answer (and `POST /api/tournaments`'s).
    TournamentView(TournamentView),
    /// `GET /api/tournaments/{id}/node` answer.
    TournamentNode(TournamentNode),
    /// Body of every HTTP error.
    ApiError(ApiError),
}

/// The JSON Schema of all messages, pretty-printed with a final newline: the content of
/// `protocol/schema.json`.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Protocol);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
    text.push('\n');
    text
}

/// A turn in canonical notation (RULES.md 5).
#[derive(JsonSchema)]
#[schemars(
    rename = "Turn",
    description = "A turn in notation (RULES.md 5): a drop `P:M1,M2`, a move `F-T:M1,M2`, or `pass`; the server writes minor cells in canonical order and upper case.",
    example = &"C4:C5,D5",
    example = &"F5-F8:E8,G9",
    example = &"pass"
)]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) struct TurnDef(String);

/// A cell name.
#[derive(JsonSchema)]
#[schemars(
    rename = "Cell",
    description = "A cell: column letter A–Q and row number 1–17, such as I9.",
    example = &"I9"
)]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) struct CellDef(String);

/// A player.
#[derive(JsonSchema)]
#[schemars(rename = "Color", rename_all = "lowercase")]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) enum ColorDef {
    /// Moves first.
    White,
    /// Moves second.
    Black,
}

/// The game played.
#[derive(JsonSchema)]
#[schemars(rename = "Variant", rename_all = "lowercase")]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) enum VariantDef {
    /// No drop ever touches the central hexagon; the last drop ends the game with a
    /// count of the centre.
    Standard,
    /// Only White's first drop avoids the centre; the last drop ends the game in a draw.
    Basic,
}

/// A kind of piece.
#[derive(JsonSchema)]
#[schemars(rename = "Kind", rename_all = "kebab-case")]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) enum KindDef {
    /// Straight, PÜNCT in the middle.
    StraightMiddle,
    /// Straight, PÜNCT at an end.
    StraightEnd,
    /// Angular, PÜNCT at the corner.
    AngularCorner,
    /// Angular, end PÜNCT, turning left.
    AngularLeft,
    /// Angular, end PÜNCT, turning right.
    AngularRight,
    /// Triangle.
    Triangle,
}

/// How a game was won.
#[derive(JsonSchema)]
#[schemars(rename = "WinReason", rename_all = "kebab-case")]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) enum WinReasonDef {
    /// The winner's visible dots link two opposite sides.
    Connection,
    /// Standard game: more visible dots in the central hexagon at the end.
    Centre,
    /// The opponent resigned.
    Resignation,
    /// The opponent's time ran out.
    Time,
    /// The opponent left and did not come back in time.
    Abandonment,
}

/// Why a game was drawn.
#[derive(JsonSchema)]
#[schemars(rename = "DrawReason", rename_all = "kebab-case")]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) enum DrawReasonDef {
    /// Standard game: equal counts in the central hexagon at the end.
    CentreTie,
    /// Basic game: the game ended without a connection.
    BasicEnd,
    /// The same position stood for the third time.
    Repetition,
    /// The players agreed to a draw.
    Agreement,
    /// A moderator closed the room before the game ended; never rated.
    Closed,
}

/// How a game ended.
#[derive(JsonSchema)]
#[schemars(rename = "Outcome", tag = "result", rename_all = "kebab-case")]
#[expect(dead_code, reason = "exists only to be described by its schema")]
pub(crate) enum OutcomeDef {
    /// One player won.
    Win {
        /// Who won.
        winner: ColorDef,
        /// How.
        reason: WinReasonDef,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: DrawReasonDef,
    },
}

#[cfg(test)]
mod tests {
    use punct_rules::{Color, DrawReason, Kind, Outcome, Variant, WinReason};
    use schemars::JsonSchema;
    use serde::Serialize;

    use super::*;

    /// The names a unit-variant mirror's schema allows.
    fn names<T: JsonSchema>() -> Vec<String> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
        let mut names: Vec<String> = schema["oneOf"]
            .as_array()
            .map(|alternatives| {
                alternatives
                    .iter()
                    .map(|a| a["const"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_else(|| {
                let values = schema["enum"].as_array().unwrap();
                values
                    .iter()
                    .map(|v| v.as_str().unwrap().to_owned())
                    .collect()
            });
        names.sort();
        names
    }

    fn serialised<T: Serialize>(values: impl IntoIterator<Item = T>) -> Vec<String> {
        let mut names: Vec<String> = values
            .into_iter()
            .map(|v| {
                serde_json::to_value(v)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn mirrors_describe_what_the_rules_crate_writes() {
        assert_eq!(names::<ColorDef>(), serialised(Color::ALL));
        assert_eq!(names::<KindDef>(), serialised(Kind::ALL));
        assert_eq!(
            names::<VariantDef>(),
            serialised([Variant::Standard, Variant::Basic])
        );
        assert_eq!(
            names::<WinReasonDef>(),
            serialised([
                WinReason::Connection,
                WinReason::Centre,
                WinReason::Resignation,
                WinReason::Time,
                WinReason::Abandonment
            ])
        );
        assert_eq!(
            names::<DrawReasonDef>(),
            serialised([
                DrawReason::CentreTie,
                DrawReason::BasicEnd,
                DrawReason::Repetition,
                DrawReason::Agreement,
                DrawReason::Closed
            ])
        );
        let win = Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Connection,
        };
        assert_eq!(
            serde_json::to_value(win).unwrap(),
            serde_json::json!({"result": "win", "winner": "black", "reason": "connection"})
        );
        let outcome = serde_json::to_value(schemars::schema_for!(OutcomeDef)).unwrap();
        let text = outcome.to_string();
        for word in [
            "\"result\"",
            "\"win\"",
            "\"draw\"",
            "\"winner\"",
            "\"reason\"",
        ] {
            assert!(text.contains(word), "{word} missing from {text}");
        }
    }
}
