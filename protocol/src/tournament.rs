//! Tournaments over HTTP: what creating one takes, how a list and one tournament look
//! (standings with their tie-breaks, every round's games with their rooms and results).

use punct_rules::{Outcome, Variant};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::TimeControl;

/// How a tournament brings its players together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum TournamentFormat {
    /// A fixed number of rounds, each paired by score once the one before has ended.
    Swiss,
    /// A fixed time, players paired from a pool as their games end.
    Arena,
    /// Everyone meets everyone once (Berger tables).
    RoundRobin,
    /// Everyone meets everyone twice, colours swapped the second time.
    DoubleRoundRobin,
}

impl TournamentFormat {
    /// The format as written on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentFormat::Swiss => "swiss",
            TournamentFormat::Arena => "arena",
            TournamentFormat::RoundRobin => "round-robin",
            TournamentFormat::DoubleRoundRobin => "double-round-robin",
        }
    }

    /// The format written `text`.
    pub fn parse(text: &str) -> Option<TournamentFormat> {
        [
            TournamentFormat::Swiss,
            TournamentFormat::Arena,
            TournamentFormat::RoundRobin,
            TournamentFormat::DoubleRoundRobin,
        ]
        .into_iter()
        .find(|format| format.as_str() == text)
    }
}

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum TournamentState {
    /// Not started: players may join and withdraw.
    Upcoming,
    /// Started: its games are being played.
    Running,
    /// Every game has ended (or an arena's time is up).
    Finished,
    /// It did not start: fewer players than its minimum had joined at the start time.
    Cancelled,
}

impl TournamentState {
    /// The state as written on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentState::Upcoming => "upcoming",
            TournamentState::Running => "running",
            TournamentState::Finished => "finished",
            TournamentState::Cancelled => "cancelled",
        }
    }

    /// The state written `text`.
    pub fn parse(text: &str) -> Option<TournamentState> {
        [
            TournamentState::Upcoming,
            TournamentState::Running,
            TournamentState::Finished,
            TournamentState::Cancelled,
        ]
        .into_iter()
        .find(|state| state.as_str() == text)
    }
}

/// `POST /api/tournaments`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateTournament {
    /// Its name (1 to 60 characters).
    pub name: String,
    /// How players are paired.
    pub format: TournamentFormat,
    /// Which game; standard if left out.
    #[serde(default = "standard")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// The time control of every game: a clock, or days per move; none if left out
    /// (not for an arena, whose games must end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TimeControl>,
    /// Whether its games change the players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// When it starts, in milliseconds since the Unix epoch (not in the past).
    pub starts_at: i64,
    /// An arena's end, in milliseconds since the Unix epoch; arenas only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<i64>,
    /// A Swiss's number of rounds (1 to 20); Swiss only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// The fewest players it starts with (at least 2); 2 if left out.
    #[serde(default = "two")]
    pub min_players: u32,
    /// The most players who may join (at most 1,000; 64 for a round robin).
    pub max_players: u32,
}

/// The standard variant, the default of a field left out.
fn standard() -> Variant {
    Variant::Standard
}

/// The default fewest players.
fn two() -> u32 {
    2
}

/// A tournament as lists show it, and the head of `GET /api/tournaments/{id}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentSummary {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// How players are paired.
    pub format: TournamentFormat,
    /// Which game.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// The time control of every game; none for games without clocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TimeControl>,
    /// Whether its games change the players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// When it starts (or started), in milliseconds since the Unix epoch.
    pub starts_at: i64,
    /// An arena's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<i64>,
    /// A Swiss's number of rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// The fewest players it starts with.
    pub min_players: u32,
    /// The most players who may join.
    pub max_players: u32,
    /// The username of the account that created it.
    pub creator: String,
    /// Where it is in its life.
    pub state: TournamentState,
    /// Players entered and not withdrawn.
    pub players: u32,
    /// The rounds paired so far (an arena: the games paired so far).
    pub round: u32,
}

/// `GET /api/tournaments`: every tournament not finished, and the latest finished.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentList {
    /// Those not started, the soonest first.
    pub upcoming: Vec<TournamentSummary>,
    /// Those started and not over, the earliest started first.
    pub running: Vec<TournamentSummary>,
    /// Those finished or cancelled, the latest first (at most 50).
    pub finished: Vec<TournamentSummary>,
}

/// `GET /api/tournaments/{id}`: a tournament, its players, standings and rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentView {
    /// The tournament.
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// Everyone who joined, in the order they joined.
    pub entries: Vec<TournamentEntry>,
    /// The standings, first place first.
    pub standings: Vec<StandingRow>,
    /// Every round paired so far, the first first (an arena: one "round" per pairing).
    pub pairings: Vec<TournamentRound>,
}

/// A player who joined a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentEntry {
    /// Their username.
    pub player: String,
    /// Whether they withdrew: they are paired no more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
}

/// A player's place in the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StandingRow {
    /// Their username.
    pub player: String,
    /// Their score: in a Swiss or a round robin, 1 a win (or a bye), ½ a draw; in an
    /// arena, 2 a win (4 on a streak), 1 a draw.
    pub score: f64,
    /// Buchholz, the sum of the opponents' scores (a Swiss or a round robin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buchholz: Option<f64>,
    /// Sonneborn-Berger, the sum of the scores of the opponents beaten and half those
    /// drawn with (a Swiss or a round robin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sonneborn_berger: Option<f64>,
    /// Games played (byes not counted).
    pub games: u32,
}

/// One round's games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentRound {
    /// Its number, from 1.
    pub round: u32,
    /// Its games, board 1 first, and a bye last.
    pub games: Vec<TournamentGame>,
    /// In a round robin of an odd number of players, who rests this round (meets the
    /// Berger table's dummy): no game and no points, unlike a Swiss bye. Added in
    /// version 1; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resting: Option<String>,
}

/// A game of a tournament, or a bye.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentGame {
    /// The room it is played in; none for a bye.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// White's username (the bye's player for a bye).
    pub white: String,
    /// Black's username; none for a bye, worth a win to `white`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    /// The result, once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::schema::OutcomeDef>")
    )]
    pub outcome: Option<Outcome>,
}

/// `GET /api/tournaments/{id}/node`: where a tournament's director runs, for operators
/// of a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TournamentNode {
    /// The tournament's id.
    pub tournament: String,
    /// The tag of the node that holds the director's claim: the node running it, or, if
    /// that node died, the one that ran it until another takes it over. Absent when no
    /// node holds it and on a single server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<u32>,
    /// Whether that node is alive.
    pub alive: bool,
    /// Whether the node that answered holds the director in memory, running it or
    /// relaying it from its node.
    pub here: bool,
    /// The tag of the node that answered (0 on a single server).
    pub this_node: u32,
}
