//! Quick pairing: what a player seeks, and how the open seeks are listed.

use punct_rules::Variant;
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Player, TimeControl};

/// The game a seek asks for. Two seeks meet when they ask for the same game (variant,
/// clock, rated or not) and, for a rated game, each player's rating is within the other's
/// range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SeekGame {
    /// Which game; standard if left out.
    #[serde(default = "crate::http::standard")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// The time control: a live clock (`base`, `increment`) or correspondence (`days`).
    pub clock: TimeControl,
    /// Whether the game is rated: only for a signed-in player.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// An open seek, as the lobby lists it (`GET /api/seeks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SeekView {
    /// The seek's id.
    pub seek: String,
    /// Who seeks: their username when signed in, else the name they gave, if any.
    pub player: Player,
    /// Their rating in the variant, rounded, when they are signed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// The game they want.
    pub game: SeekGame,
    /// When the seek ends if nobody meets it, in milliseconds since the Unix epoch.
    pub expires_at: i64,
}

/// `GET /api/seeks`: every open seek, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SeekList {
    /// The seeks.
    pub seeks: Vec<SeekView>,
}

/// `GET /api/seeks/node`: where the seek pool runs, for operators of a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SeekPoolNode {
    /// The tag of the node that holds the pool's claim: the node running it, or, if that
    /// node died, the one that ran it until another takes it over. Absent on a single
    /// server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<u32>,
    /// Whether that node is alive.
    pub alive: bool,
    /// Whether the node that answered holds the pool, running it or relaying it.
    pub here: bool,
    /// The tag of the node that answered (0 on a single server).
    pub this_node: u32,
}
