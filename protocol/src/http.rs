//! Bodies of the HTTP API (see `server/API.md`).

use punct_rules::{Color, Outcome, Turn, Variant};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ClockView, ErrorCode, Player, Seats};

/// `POST /api/rooms`: every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateRoom {
    /// Which game; standard if left out.
    #[serde(default = "standard")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// The creator's seat; random if left out.
    #[serde(default)]
    pub color: SeatChoice,
    /// Whether the room is listed in the lobby; public if left out.
    #[serde(default)]
    pub visibility: Visibility,
    /// The time control; none (no clocks) if left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TimeControl>,
    /// Play the computer at this level (1, the easiest, to 4): the server takes the
    /// other seat at once. Left out, the other seat waits for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<u8>,
    /// The name the creator plays under, shown to everyone (1 to 24 characters, not an
    /// account's username). A signed-in creator plays under their username instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whether the game changes both players' ratings: the creator must be signed in, and
    /// only a signed-in player may take the other seat. Not against the computer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// `POST /api/rooms/{id}/seat`: the body may be left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TakeSeat {
    /// The name to play under, as for [`CreateRoom::name`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `POST /api/rooms/{id}/cancel`: the creator's seat token; left out (or the body with
/// it) by a signed-in creator, whose account holds the seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CancelRoom {
    /// The seat token `POST /api/rooms` gave the creator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A time control. A clock: each player has `base` seconds for the game and gains
/// `increment` seconds with each turn they play. Or correspondence: `days` for each move,
/// the mover's time set back to them after every turn. A player whose time runs out
/// loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// Seconds each player has for the game (at least 1); 0 or left out with `days`.
    #[serde(default)]
    pub base: u32,
    /// Seconds added to a player's clock with each turn they play; 0 with `days`.
    #[serde(default)]
    pub increment: u32,
    /// Correspondence: the days each move may take, one of
    /// [`TimeControl::CORRESPONDENCE_DAYS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u8>,
}

impl TimeControl {
    /// The days per move a correspondence game may have.
    pub const CORRESPONDENCE_DAYS: [u8; 6] = [1, 2, 3, 5, 7, 14];

    /// A clock of `base` seconds a game, `increment` more per turn.
    pub fn clock(base: u32, increment: u32) -> TimeControl {
        TimeControl {
            base,
            increment,
            days: None,
        }
    }

    /// Correspondence, `days` for each move.
    pub fn days(days: u8) -> TimeControl {
        TimeControl {
            base: 0,
            increment: 0,
            days: Some(days),
        }
    }

    /// Why the server refuses this time control, if it does.
    pub fn refusal(&self) -> Option<String> {
        match self.days {
            Some(days) if !Self::CORRESPONDENCE_DAYS.contains(&days) => Some(format!(
                "days per move are one of {:?}, not {days}",
                Self::CORRESPONDENCE_DAYS
            )),
            Some(_) if self.base != 0 || self.increment != 0 => {
                Some("days per move take no base or increment".to_owned())
            }
            None if self.base == 0 => {
                Some("a time control needs a base of at least 1 second".to_owned())
            }
            _ => None,
        }
    }
}

pub(crate) fn standard() -> Variant {
    Variant::Standard
}

impl Default for CreateRoom {
    /// A public standard game, the creator's colour drawn at random.
    fn default() -> CreateRoom {
        CreateRoom {
            variant: Variant::Standard,
            color: SeatChoice::Random,
            visibility: Visibility::Public,
            clock: None,
            computer: None,
            name: None,
            rated: false,
        }
    }
}

/// The seat a room's creator asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum SeatChoice {
    /// White, who moves first.
    White,
    /// Black.
    Black,
    /// Either, drawn by the server.
    #[default]
    Random,
}

/// Whether a room shows in the lobby. A private room is reached only by its id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Listed in the lobby.
    #[default]
    Public,
    /// Not listed.
    Private,
}

/// The answer to creating a room or taking its free seat: the seat and its secret token,
/// to be presented in the WebSocket `join`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SeatGranted {
    /// The room's id.
    pub room: String,
    /// The seat given.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
    pub color: Color,
    /// The seat token: whoever presents it plays this seat. Keep it secret.
    pub token: String,
}

/// Where a room's game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RoomStatus {
    /// A seat is free.
    Open,
    /// Both seats are taken and the game goes on.
    Live,
    /// The game has ended.
    Over,
}

/// A room as the lobby and `GET /api/rooms/{id}` show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RoomSummary {
    /// The room's id.
    pub room: String,
    /// Which game.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// Whether it is listed in the lobby.
    pub visibility: Visibility,
    /// Open, live or over.
    pub status: RoomStatus,
    /// Both seats.
    pub players: Seats,
    /// Whether the game changes its players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// How many spectators watch.
    pub spectators: usize,
    /// How many turns have been played.
    pub turns: usize,
    /// Whose turn it is (meaningless once the game is over).
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
    pub to_move: Color,
    /// The result, once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::schema::OutcomeDef>")
    )]
    pub outcome: Option<Outcome>,
    /// The time control; none for a game without clocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TimeControl>,
    /// The tournament whose game this is, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// The last turn played, in notation, of a room a node holds in memory (a room read
    /// from the database has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::TurnDef>"))]
    pub last_turn: Option<Turn>,
    /// Both clocks as they stand, of a timed room a node holds in memory (a room read
    /// from the database has none: its clocks stand still until it is loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<ClockView>,
}

/// `GET /api/me/games`: the signed-in player's unfinished games, those waiting for
/// their move first (the least time left first), then the others (the same order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MyGames {
    /// The games.
    pub games: Vec<MyGame>,
}

/// One of a player's unfinished games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MyGame {
    /// The room, as the lobby shows it.
    pub summary: RoomSummary,
    /// The player's seat.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
    pub color: Color,
    /// Whether the game waits for the player's move (both seats taken).
    pub your_move: bool,
    /// The time the player to move has left, in milliseconds, once their clock runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_left_ms: Option<u64>,
}

/// `GET /api/rooms`: the public rooms that are open or live.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Lobby {
    /// The rooms, oldest first.
    pub rooms: Vec<RoomSummary>,
}

/// `GET /api/rooms/{id}/node`: where a room runs, for operators of a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RoomNode {
    /// The room's id.
    pub room: String,
    /// The tag of the node that holds the room's claim: the node running it, or, if that
    /// node died, the one that ran it until another takes it over. Absent when no node
    /// holds it (nobody has been in the room lately) and on a single server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<u32>,
    /// Whether that node is alive.
    pub alive: bool,
    /// Whether the node that answered holds the room in memory, running it or relaying
    /// it from its node.
    pub here: bool,
    /// The tag of the node that answered (0 on a single server).
    pub this_node: u32,
}

/// `GET /api/node`: which node of a cluster answered, and the nodes alive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct NodeView {
    /// The tag of the node that answered (0 on a single server); its log says
    /// `joined the cluster node=TAG` when it starts.
    pub node: u32,
    /// The tags of the nodes alive, this one among them, in increasing order.
    pub live: Vec<u32>,
}

/// `GET /api/rooms/{id}/record`: the game record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Record {
    /// The room's id.
    pub room: String,
    /// Which game.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// Who played White.
    pub white: Player,
    /// Who played Black.
    pub black: Player,
    /// Whether the game changes its players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// Every turn, in order, in canonical notation.
    #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::schema::TurnDef>"))]
    pub turns: Vec<Turn>,
    /// The result, once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::schema::OutcomeDef>")
    )]
    pub outcome: Option<Outcome>,
}

/// `GET /api/games`: one page of the archive of finished public games, the game that
/// ended last first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Archive {
    /// The games of this page.
    pub games: Vec<ArchivedGame>,
    /// Pass as `after` to get the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// A finished game as the archive lists it; its record is at
/// `GET /api/rooms/{room}/record` (or `record.txt`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ArchivedGame {
    /// The room's id.
    pub room: String,
    /// Which game.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// Who played White.
    pub white: Player,
    /// Who played Black.
    pub black: Player,
    /// Whether the game changed its players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// How many turns were played.
    pub turns: usize,
    /// The result.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::OutcomeDef"))]
    pub outcome: Outcome,
    /// When the game ended, in milliseconds since the Unix epoch.
    pub finished_at: u64,
    /// The tournament whose game it was, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
}

/// The body of every HTTP error response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ApiError {
    /// What went wrong, for programs.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
}
