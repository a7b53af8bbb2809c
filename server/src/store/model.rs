//! What is stored of a room, the same in every database, and the decisions both
//! databases make alike (whose turn a count of turns means, which rooms went stale).

use punct_protocol::Visibility;
use punct_rules::{Color, Outcome, Turn, Variant, WinReason};
use sha2::{Digest, Sha256};

/// The SHA-256 of a seat token: what the database keeps instead of the token.
pub(crate) type TokenHash = [u8; 32];

/// Hashes a seat token.
pub(crate) fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// A room to create: everything about it is written in one transaction, so a room is
/// never half made.
#[derive(Debug)]
pub(crate) struct NewRoom {
    /// Its id.
    pub(crate) id: String,
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// The time control in milliseconds, base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// White's and Black's token hashes, for the seats given out (at least one).
    pub(crate) seats: [Option<TokenHash>; 2],
    /// The seat the server's engine plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

/// A room as the database has it: enough to rebuild it exactly.
#[derive(Debug)]
pub(crate) struct StoredRoom {
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// White's and Black's token hashes.
    pub(crate) seats: [Option<TokenHash>; 2],
    /// Times the room was loaded, this time included: the fence of this load's writes.
    pub(crate) incarnation: u32,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The time control, in milliseconds: base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// White's and Black's time left after the last turn, if it was timed.
    pub(crate) clocks_left: Option<[u64; 2]>,
    /// The result, if the game is over (including ends decided off the board).
    pub(crate) outcome: Option<Outcome>,
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

/// A room as the lobby lists it, read without replaying its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RoomRow {
    /// Its id.
    pub(crate) id: String,
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// Whether White's and Black's seats are given out.
    pub(crate) taken: [bool; 2],
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// Turns played.
    pub(crate) turns: usize,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
}

/// A game's record as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredRecord {
    /// The game played.
    pub(crate) variant: Variant,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
}

/// A room nobody has come back to for too long, as it was when found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stale {
    /// Its id.
    pub(crate) id: String,
    /// Its incarnation when found: if it has been loaded since, it is left alone.
    pub(crate) incarnation: u32,
    /// What becomes of it.
    pub(crate) end: StaleEnd,
}

/// What becomes of a stale room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StaleEnd {
    /// Nobody took its free seat: it is deleted.
    Expire,
    /// Nobody played in it: the game ends so.
    Finish(Outcome),
}

/// What a database tells of an unfinished room for judging whether it went stale.
#[derive(Debug)]
pub(crate) struct Activity {
    /// When it was created, in milliseconds since the Unix epoch.
    pub(crate) created_at: i64,
    /// When its last turn was played, if one was.
    pub(crate) last_turn_at: Option<i64>,
    /// Whether both seats are given out.
    pub(crate) seated: bool,
    /// The seat the computer plays.
    pub(crate) computer: Option<Color>,
    /// Turns played.
    pub(crate) turns: usize,
}

impl Activity {
    /// What becomes of the room, if it went stale: one created before `open_before`
    /// whose seat nobody took is deleted; a game with both seats taken in which nobody
    /// played since `abandoned_before` ends as if the player waited for had been claimed
    /// against (the player to move loses by abandonment). A game where the computer is
    /// to move is never stale: the computer plays on.
    pub(crate) fn stale(&self, open_before: i64, abandoned_before: i64) -> Option<StaleEnd> {
        let waited_for = to_move(self.turns);
        let active = self.last_turn_at.unwrap_or(self.created_at);
        if !self.seated && self.created_at < open_before {
            Some(StaleEnd::Expire)
        } else if self.seated && active < abandoned_before && self.computer != Some(waited_for) {
            Some(StaleEnd::Finish(Outcome::Win {
                winner: waited_for.opponent(),
                reason: WinReason::Abandonment,
            }))
        } else {
            None
        }
    }
}

/// Where a page of the archive starts: just after the game that ended at `finished_at`
/// (milliseconds since the Unix epoch) in room `room`, the last of the page before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArchiveCursor {
    /// When that game ended.
    pub(crate) finished_at: i64,
    /// Its room: tells apart games that ended in the same millisecond.
    pub(crate) room: String,
}

/// Whose turn it is after `turns` turns: the players alternate strictly (a pass is a
/// turn), so the count alone tells.
pub(crate) fn to_move(turns: usize) -> Color {
    if turns.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A value as the JSON string serde writes for it, without the quotes: how colours,
/// variants and visibilities are stored.
pub(crate) fn text<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value).expect("plain values serialise") {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Reads back what [`text`] (or `serde_json::to_string`, for objects) wrote.
pub(crate) fn from_text<T: serde::de::DeserializeOwned>(
    stored: &str,
) -> Result<T, serde_json::Error> {
    if stored.starts_with('{') {
        serde_json::from_str(stored)
    } else {
        serde_json::from_value(serde_json::Value::String(stored.to_owned()))
    }
}

/// An outcome as stored: its JSON.
pub(crate) fn outcome_text(outcome: Outcome) -> String {
    serde_json::to_string(&outcome).expect("outcomes serialise")
}

/// Milliseconds as the databases store them.
pub(crate) fn sql_ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Two stored milliseconds, when both are there.
pub(crate) fn both(a: Option<i64>, b: Option<i64>) -> Option<[u64; 2]> {
    let ms = |v: i64| u64::try_from(v).unwrap_or(0);
    Some([ms(a?), ms(b?)])
}

/// A count the database answers.
pub(crate) fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}
