//! Bodies of the HTTP API for accounts, sessions, ratings and player pages (see
//! `server/API.md`).

use punct_rules::Variant;
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ArchivedGame;

/// `POST /api/accounts` (register) and `POST /api/session` (sign in).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 3 to 20 characters: ASCII letters, digits, `-` and `_`, starting with a letter.
    pub username: String,
    /// 8 to 128 characters.
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    /// Never shows the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// The answer to registering or signing in. The page gets the same session as a cookie;
/// a program presents `token` as `Authorization: Bearer TOKEN`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Session {
    /// The account signed in to.
    pub username: String,
    /// The session's secret. Keep it secret.
    pub token: String,
    /// When the session ends, in milliseconds since the Unix epoch.
    pub expires_at: u64,
}

/// `GET /api/session`: who the request is signed in as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SignedIn {
    /// The account's username.
    pub username: String,
}

/// A Glicko-2 rating, on the Glicko scale (a newcomer has 1500, deviation 350).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RatingView {
    /// The rating.
    pub rating: f64,
    /// How uncertain it is: about 95% sure the player's strength is within twice this.
    pub deviation: f64,
    /// How erratic the player's results are.
    pub volatility: f64,
    /// Whether the deviation is still too high to trust the rating (above 110); shown as
    /// a `?` beside it.
    pub provisional: bool,
}

/// What one rated game did to a player's rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RatingChange {
    /// The player's username.
    pub username: String,
    /// Before the game, after the deviation grew for the time since the player's last
    /// rated game.
    pub before: RatingView,
    /// After the game.
    pub after: RatingView,
}

/// A player's rating in one variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct VariantRating {
    /// Which game.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// The rating now, its deviation grown for the time since the last rated game.
    pub rating: RatingView,
    /// Rated games played.
    pub games: u32,
    /// The rating after each rated game, oldest first.
    pub history: Vec<RatingPoint>,
}

/// A player's rating after one rated game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RatingPoint {
    /// The game's room.
    pub room: String,
    /// When the game ended, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The rating after it.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
}

/// Games won, lost and drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Results {
    /// Won.
    pub wins: u32,
    /// Lost.
    pub losses: u32,
    /// Drawn.
    pub draws: u32,
}

/// `GET /api/players/{username}`: a player's page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PlayerProfile {
    /// The username.
    pub username: String,
    /// When the account was made, in milliseconds since the Unix epoch.
    pub created_at: u64,
    /// The player's rating in each variant they played rated.
    pub ratings: Vec<VariantRating>,
    /// Every finished game the account played, rated or not.
    pub results: Results,
    /// The last finished games, the one that ended last first (at most 20; the archive
    /// filtered by player has them all).
    pub recent: Vec<ArchivedGame>,
}

/// `GET /api/leaderboard?variant=V`: the best-rated players of a variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Leaderboard {
    /// Which game.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// Highest rating first; provisional ratings are not listed.
    pub players: Vec<LeaderboardEntry>,
}

/// One line of a leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LeaderboardEntry {
    /// The username.
    pub username: String,
    /// The rating now, its deviation grown for the time since the last rated game.
    pub rating: RatingView,
    /// Rated games played.
    pub games: u32,
}

/// What a rated game did to both players' ratings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RatingChanges {
    /// White's.
    pub white: RatingChange,
    /// Black's.
    pub black: RatingChange,
}

/// `GET` and `PUT /api/me/notifications`: whether and how a player hears by email that a
/// correspondence game waits for their move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Notifications {
    /// The address mail goes to; none for no mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// How often.
    pub mode: NotifyMode,
}

/// How often a player is mailed about their correspondence games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum NotifyMode {
    /// Never (the default, and what the unsubscribe link sets).
    #[default]
    Off,
    /// One message for each move that waits for the player, unless they have the game
    /// open when it is played.
    Each,
    /// At most one message a day, listing the games that wait for the player's move.
    Digest,
}
