//! What several aggregates store alike: who an account is and who plays a seat, and how
//! values are written into columns and read back (colours, variants and outcomes as
//! their JSON, milliseconds, a time control from its columns). Each aggregate's own
//! models live with it.

use punct_protocol::TimeControl;
use punct_rules::{Color, Outcome};

/// An account's id: a UUIDv7, hyphenated.
pub(crate) type AccountId = String;

/// A registered account, as rooms and pages name it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Account {
    /// Its id.
    pub(crate) id: AccountId,
    /// Its username, as registered.
    pub(crate) username: String,
}

/// A time control from its stored columns: base and increment in milliseconds, and the
/// days per move of a correspondence game.
pub(crate) fn time_control(clock: Option<[u64; 2]>, days: Option<u8>) -> Option<TimeControl> {
    let seconds = |ms: u64| u32::try_from(ms / 1000).unwrap_or(u32::MAX);
    match (clock, days) {
        (_, Some(days)) => Some(TimeControl::days(days)),
        (Some([base, increment]), None) => {
            Some(TimeControl::clock(seconds(base), seconds(increment)))
        }
        (None, None) => None,
    }
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

/// Time left for `mover` at `now`, their clock running since `since` with `left` of it.
pub(super) fn running_left(left: [u64; 2], mover: Color, since: i64, now: i64) -> u64 {
    let spent = u64::try_from(now.saturating_sub(since)).unwrap_or(0);
    left[mover as usize].saturating_sub(spent)
}

/// Who plays a seat, beside its token: the name they gave, and their account if they
/// were signed in when they took it (the account's username is then their name).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Player {
    /// The name shown, if one was given.
    pub(crate) name: Option<String>,
    /// The account that holds the seat.
    pub(crate) account: Option<Account>,
}

impl Player {
    /// The player as everyone sees them.
    pub(crate) fn view(&self) -> punct_protocol::Player {
        punct_protocol::Player {
            name: self.name.clone(),
            account: self.account.as_ref().map(|a| a.username.clone()),
        }
    }

    /// The id of the player's account, as stored.
    pub(crate) fn account_id(&self) -> Option<&str> {
        self.account.as_ref().map(|a| a.id.as_str())
    }

    /// The player of `account`, named by its username.
    pub(crate) fn of(account: Account) -> Player {
        Player {
            name: Some(account.username.clone()),
            account: Some(account),
        }
    }
}
