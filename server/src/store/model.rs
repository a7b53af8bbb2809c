//! What is stored of a room, the same in every database, and the decisions both
//! databases make alike (whose turn a count of turns means, which rooms went stale).

use punct_protocol::{ChatLine, TimeControl, Visibility};
use punct_rules::{Color, Outcome, Turn, Variant, WinReason};

use crate::rating::{Change, Rating, Standing};
use crate::secret::TokenHash;

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

/// An account's mail settings, as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct MailSettings {
    /// Where mail goes.
    pub(crate) email: Option<String>,
    /// How often.
    pub(crate) mode: punct_protocol::NotifyMode,
    /// The secret of the link that turns mail off, set with the first address and kept.
    pub(crate) unsubscribe: Option<String>,
}

/// What a queued mail says, as stored (JSON): what the mailer needs to write it that the
/// database does not keep elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Notice {
    /// A correspondence game waits for the player's move.
    YourMove {
        /// Who played, as shown.
        opponent: String,
        /// What they played, in notation.
        turn: String,
        /// The turn's number.
        number: usize,
        /// The days the player has for the reply.
        days: u8,
    },
    /// The game is over: its record says how.
    GameOver,
    /// A quarter of the move's days is left to the player, who has not moved: once a
    /// move (the outbox holds one such notice per move, `number` and `deadline` tell
    /// them apart).
    TimeRunningOut {
        /// The turn awaited.
        number: usize,
        /// When the player's time runs out, in milliseconds since the Unix epoch.
        deadline: i64,
    },
    /// The day's digest: the games that wait for the player's move when it is written
    /// (nothing is sent if none does by then).
    Digest,
    /// A link for the account's owner, sent to `email` whatever the mail settings; it
    /// works once and for an hour. Its secret is made as the mail is written, and only
    /// its hash is kept (the link's row in `mail_links` has the mail's id): the database
    /// never holds a secret that works.
    Link {
        /// What the link does.
        purpose: LinkPurpose,
        /// Where it goes: for `confirm`, the address to confirm.
        email: String,
    },
}

/// What a mailed link does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LinkPurpose {
    /// Confirms the address it was sent to as the account's.
    Confirm,
    /// Sets a new password ("forgot password").
    Reset,
}

impl Notice {
    /// Whether only players who take a mail for each move are sent it (not those who
    /// take a digest).
    pub(crate) fn each_only(&self) -> bool {
        matches!(self, Notice::YourMove { .. })
    }
}

/// A mail claimed from the outbox for sending, with its player's settings as they are
/// now (a player who turned mail off since is sent nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Outbound {
    /// The mail's id: its Message-ID is made of it, the same on every try.
    pub(crate) id: String,
    /// The room it is about.
    pub(crate) room: String,
    /// What it says.
    pub(crate) notice: Notice,
    /// Tries that failed before.
    pub(crate) attempts: u32,
    /// The player.
    pub(crate) account: Account,
    /// The player's mail settings.
    pub(crate) settings: MailSettings,
    /// The language the player reads (`en`, `de`…), if they chose one.
    pub(crate) language: Option<String>,
}

/// An account to create.
#[derive(Debug)]
pub(crate) struct NewAccount {
    /// Its id.
    pub(crate) id: AccountId,
    /// Its username, as registered.
    pub(crate) username: String,
    /// What no two usernames may share: see `accounts::username_key`.
    pub(crate) key: String,
    /// What no two usernames may share either: see `accounts::lookalike_key`.
    pub(crate) lookalike: String,
    /// Its password, hashed (a PHC string).
    pub(crate) password: String,
    /// The language its owner reads (`en`, `de`…), as their pages were when registering.
    pub(crate) language: String,
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
    /// The player of a seat as both databases read it: the name given, and the
    /// account's id and username when it has one.
    pub(crate) fn read(
        name: Option<String>,
        account: Option<String>,
        username: Option<String>,
    ) -> Player {
        Player {
            name,
            account: account
                .zip(username)
                .map(|(id, username)| Account { id, username }),
        }
    }

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

/// One player's side of a rated game: who, and what the game did to their rating.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rated {
    /// The player's username.
    pub(crate) username: String,
    /// Their rating before and after.
    pub(crate) change: Change,
}

/// What a deleted account is named, before its number: "deleted player 7".
pub(crate) const DELETED_PLAYER: &str = "deleted player";

/// A session of an account, as the account's list of sessions shows it.
#[derive(Clone, Debug)]
pub(crate) struct SessionRow {
    /// Its secret's hash: which one the request asking holds.
    pub(crate) token: TokenHash,
    /// The `User-Agent` that started it, if one was sent.
    pub(crate) user_agent: Option<String>,
    /// When it started.
    pub(crate) created_at: i64,
    /// When it was last used (to the minute).
    pub(crate) last_seen_at: i64,
    /// When it ends.
    pub(crate) expires_at: i64,
}

/// An account another blocks, as the blocker's list shows it.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// The account blocked.
    pub(crate) account: Account,
    /// When the block was made.
    pub(crate) since: i64,
}

/// What a player's page shows, as stored.
#[derive(Debug)]
pub(crate) struct PlayerRecord {
    /// The account.
    pub(crate) account: Account,
    /// When it was made.
    pub(crate) created_at: i64,
    /// Each variant's standing and rated games.
    pub(crate) ratings: Vec<(Variant, Standing, u32)>,
    /// Each rated game's result for the player, oldest first: variant, room, when, and
    /// the rating after it.
    pub(crate) history: Vec<(Variant, String, i64, Rating)>,
    /// Every finished game's outcome, with the player's colour.
    pub(crate) results: Vec<(Color, Outcome)>,
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
    /// In a correspondence game, the days each move may take (the clock's base).
    pub(crate) days: Option<u8>,
    /// White's and Black's token hashes, for the seats given out (at least one).
    pub(crate) seats: [Option<TokenHash>; 2],
    /// White's and Black's players, for the seats given out.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
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
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// What the game did to the ratings, once it was rated.
    pub(crate) ratings: Option<[Rated; 2]>,
    /// The chat's last lines (at most a hundred), oldest first, each with its
    /// speaker's account if signed in.
    pub(crate) chat: Vec<(ChatLine, Option<AccountId>)>,
    /// Whether White's and Black's players muted their opponent.
    pub(crate) muted: [bool; 2],
    /// Times the room was loaded, this time included: the fence of this load's writes.
    pub(crate) incarnation: u32,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The time control, in milliseconds: base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// In a correspondence game, the days each move may take.
    pub(crate) days: Option<u8>,
    /// White's and Black's time left after the last turn, if it was timed.
    pub(crate) clocks_left: Option<[u64; 2]>,
    /// When the last turn was played, in milliseconds since the Unix epoch.
    pub(crate) last_turn_at: Option<i64>,
    /// The result, if the game is over (including ends decided off the board).
    pub(crate) outcome: Option<Outcome>,
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// The tournament whose game this is, if any.
    pub(crate) tournament: Option<String>,
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
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// Turns played.
    pub(crate) turns: usize,
    /// The result, once the game is over.
    pub(crate) outcome: Option<Outcome>,
    /// The time control, as the room was created with it.
    pub(crate) clock: Option<TimeControl>,
    /// When the last turn was played and both clocks after it, if it was timed.
    pub(crate) last_turn: Option<(i64, [u64; 2])>,
    /// The tournament whose game this is, if any.
    pub(crate) tournament: Option<String>,
    /// White's and Black's accounts' ratings in its variant, rounded, for those that
    /// have one.
    pub(crate) ratings: [Option<u32>; 2],
}

impl RoomRow {
    /// The time the player to move has left at `now` (milliseconds since the Unix
    /// epoch), once their clock runs.
    pub(crate) fn time_left(&self, now: i64) -> Option<u64> {
        if self.outcome.is_some() {
            return None;
        }
        let (at, left) = self.last_turn?;
        Some(running_left(left, to_move(self.turns), at, now))
    }
}

/// Time left for `mover` at `now`, their clock running since `since` with `left` of it.
fn running_left(left: [u64; 2], mover: Color, since: i64, now: i64) -> u64 {
    let spent = u64::try_from(now.saturating_sub(since)).unwrap_or(0);
    left[mover as usize].saturating_sub(spent)
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

/// A game's record as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredRecord {
    /// The game played.
    pub(crate) variant: Variant,
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
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

/// A correspondence game whose player to move has a quarter of the move's days left or
/// less.
#[derive(Clone, Debug)]
pub(crate) struct RunningOut {
    /// Its room.
    pub(crate) room: String,
    /// The player to move.
    pub(crate) color: Color,
    /// What they are told.
    pub(crate) notice: Notice,
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
    /// In a correspondence game, the days each move may take.
    pub(crate) days: Option<u8>,
    /// Both clocks after the last turn, if it was timed.
    pub(crate) clocks_left: Option<[u64; 2]>,
}

impl Activity {
    /// In a correspondence game whose clock runs, the player to move, the turn awaited
    /// and when their time runs out, if no more than a quarter of the move's days (and
    /// some time) is left at `now`.
    pub(crate) fn running_out(&self, now: i64) -> Option<(Color, Notice)> {
        let (days, left, at) = (self.days?, self.clocks_left?, self.last_turn_at?);
        let mover = to_move(self.turns);
        let remaining = running_left(left, mover, at, now);
        let quarter = u64::from(days) * 86_400_000 / 4;
        let deadline = at.saturating_add(i64::try_from(left[mover as usize]).ok()?);
        (remaining > 0 && remaining <= quarter).then_some((
            mover,
            Notice::TimeRunningOut {
                number: self.turns + 1,
                deadline,
            },
        ))
    }

    /// What becomes of the room, if it went stale: one created before `open_before`
    /// whose seat nobody took is deleted; a game with both seats taken in which nobody
    /// played since `abandoned_before` ends as if the player waited for had been claimed
    /// against (the player to move loses by abandonment). A game where the computer is
    /// to move is never stale: the computer plays on. A correspondence game whose clock
    /// runs ends by it instead: the player to move loses on time once out of days at
    /// `now` (the room is not in memory, so no timer of its own sees it).
    pub(crate) fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
        now: i64,
    ) -> Option<StaleEnd> {
        let waited_for = to_move(self.turns);
        let active = self.last_turn_at.unwrap_or(self.created_at);
        if let (Some(_), Some(left), Some(at)) = (self.days, self.clocks_left, self.last_turn_at) {
            return (running_left(left, waited_for, at, now) == 0).then_some(StaleEnd::Finish(
                Outcome::Win {
                    winner: waited_for.opponent(),
                    reason: WinReason::Time,
                },
            ));
        }
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

/// A role above a player's.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    /// Acts on players: reports, warnings, mutes, bars, bans, chat, rooms.
    Moderator,
    /// A moderator who may also act on moderators.
    Admin,
}

impl Role {
    /// The role as stored and shown.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    /// The role named `name`.
    pub(crate) fn parse(name: &str) -> Option<Role> {
        match name {
            "moderator" => Some(Role::Moderator),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// An account's role and the sanctions on it, as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AccountState {
    /// Its role, if above a player's.
    pub(crate) role: Option<Role>,
    /// When it was banned, if it is.
    pub(crate) banned_at: Option<i64>,
    /// Until when it is muted, if it was (the mute may have ended).
    pub(crate) muted_until: Option<i64>,
    /// Whether it is barred from rated games.
    pub(crate) barred_from_rated: bool,
}

/// What a moderator's action changes in the database, beside its entry in the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Sanction {
    /// Nothing but the entry (a warning, a dismissed report, a room closed).
    None,
    /// The account's role becomes this.
    Role(Option<Role>),
    /// Banned from this time (its sessions end), or the ban lifted.
    Ban(Option<i64>),
    /// Muted until this time, or the mute lifted.
    Mute(Option<i64>),
    /// Barred from rated games, or the bar lifted.
    BarFromRated(bool),
    /// This line of chat is removed.
    RemoveLine(u64),
}

/// An entry of the audit log, to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NewEntry {
    /// Who acts: a moderator's account, or `None` for the operator's console.
    pub(crate) moderator: Option<AccountId>,
    /// What they do (`warn`, `mute`, `ban`, …).
    pub(crate) action: &'static str,
    /// The account acted on.
    pub(crate) account: Option<AccountId>,
    /// The room acted on.
    pub(crate) room: Option<String>,
    /// The line of chat acted on.
    pub(crate) chat_line: Option<u64>,
    /// The report this answers, resolved by it.
    pub(crate) report: Option<String>,
    /// Why, in the moderator's words.
    pub(crate) reason: String,
    /// When a mute ends.
    pub(crate) until: Option<i64>,
    /// A role granted.
    pub(crate) role: Option<Role>,
}

/// An entry of the audit log, as read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Entry {
    /// Its number: entries are numbered in the order written.
    pub(crate) id: i64,
    /// When, in milliseconds since the Unix epoch.
    pub(crate) at: i64,
    /// The moderator's username; absent for the operator's console.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) moderator: Option<String>,
    /// What was done.
    pub(crate) action: String,
    /// The username of the account acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) account: Option<String>,
    /// The room acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) room: Option<String>,
    /// The line of chat acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<u64>,
    /// The report answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) report: Option<String>,
    /// Why.
    pub(crate) reason: String,
    /// When a mute ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) until: Option<i64>,
    /// The role granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<String>,
}

/// A report, to be stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NewReport {
    /// Who reports.
    pub(crate) reporter: AccountId,
    /// The player reported, if it has an account.
    pub(crate) reported: Option<AccountId>,
    /// The line of chat reported.
    pub(crate) chat_line: Option<u64>,
    /// The line's room: kept with the report, as the line may go with its speaker.
    pub(crate) room: Option<String>,
    /// Why.
    pub(crate) reason: String,
}

/// A report, as moderators read it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Report {
    /// Its id.
    pub(crate) id: String,
    /// The reporter's username.
    pub(crate) reporter: String,
    /// The reported player's username; absent for a line said without an account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reported: Option<String>,
    /// The line of chat reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<u64>,
    /// The line's room.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) room: Option<String>,
    /// The line's text, for a report of a line: empty once removed, or gone with its
    /// speaker's account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
    /// Why it was reported.
    pub(crate) reason: String,
    /// When, in milliseconds since the Unix epoch.
    pub(crate) at: i64,
    /// When a moderator resolved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resolved_at: Option<i64>,
    /// Who resolved it; absent for the console or while open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resolved_by: Option<String>,
}

/// An address an account signed in from, as its keyed hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SignIn {
    /// The hash.
    pub(crate) address: TokenHash,
    /// The first and last sign-in from it, in milliseconds since the Unix epoch.
    pub(crate) first_at: i64,
    /// The last.
    pub(crate) last_at: i64,
}

/// A line of chat as a moderator acts on it: its room, its speaker's account, whether
/// removed already.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredLine {
    /// The room it was said in.
    pub(crate) room: String,
    /// The speaker's account, if signed in.
    pub(crate) account: Option<AccountId>,
    /// Whether a moderator removed it.
    pub(crate) removed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_runs_out_with_a_quarter_of_the_move_s_days_left() {
        const DAY: i64 = 86_400_000;
        // White played the first turn at 0: Black has a day for the second, until DAY.
        let game = Activity {
            created_at: 0,
            last_turn_at: Some(0),
            seated: true,
            computer: None,
            turns: 1,
            days: Some(1),
            clocks_left: Some([DAY as u64; 2]),
        };
        assert_eq!(game.running_out(DAY * 3 / 4 - 1), None);
        let told = Some((
            Color::Black,
            Notice::TimeRunningOut {
                number: 2,
                deadline: DAY,
            },
        ));
        assert_eq!(game.running_out(DAY * 3 / 4), told);
        assert_eq!(game.running_out(DAY - 1), told);
        assert_eq!(
            game.running_out(DAY),
            None,
            "out of time: the sweep ends it"
        );
        let timed = Activity { days: None, ..game };
        assert_eq!(timed.running_out(DAY * 3 / 4), None, "not correspondence");
    }
}

/// A tournament to create.
#[derive(Clone, Debug)]
pub(crate) struct NewTournament {
    /// Its id (a UUIDv7).
    pub(crate) id: String,
    /// Its name.
    pub(crate) name: String,
    /// How players are paired.
    pub(crate) format: punct_protocol::TournamentFormat,
    /// The game played.
    pub(crate) variant: Variant,
    /// Every game's time control.
    pub(crate) clock: Option<TimeControl>,
    /// Whether its games are rated.
    pub(crate) rated: bool,
    /// When it starts, in milliseconds since the Unix epoch.
    pub(crate) starts_at: i64,
    /// An arena's end.
    pub(crate) ends_at: Option<i64>,
    /// A Swiss's number of rounds.
    pub(crate) rounds: Option<u32>,
    /// The fewest players it starts with.
    pub(crate) min_players: u32,
    /// The most who may join.
    pub(crate) max_players: u32,
    /// The account that creates it.
    pub(crate) creator: AccountId,
}

/// An account entered in a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredEntry {
    /// The account.
    pub(crate) account: Account,
    /// When it joined (last).
    pub(crate) joined_at: i64,
    /// When it withdrew, if it has.
    pub(crate) withdrawn_at: Option<i64>,
}

/// A pairing about to be stored: a game (its room with it) or a bye.
#[derive(Debug)]
pub(crate) struct NewPairing {
    /// The game's room; none for a bye.
    pub(crate) room: Option<NewRoom>,
    /// White's account (the bye's player's).
    pub(crate) white: AccountId,
    /// Black's account; none for a bye.
    pub(crate) black: Option<AccountId>,
}

/// A stored pairing, with its game's result as the room has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredPairing {
    /// Its round, from 1.
    pub(crate) round: u32,
    /// Its board in the round, from 1.
    pub(crate) board: u32,
    /// The game's room; none for a bye.
    pub(crate) room: Option<String>,
    /// White (the bye's player).
    pub(crate) white: Account,
    /// Black; none for a bye.
    pub(crate) black: Option<Account>,
    /// The game's result, once over.
    pub(crate) outcome: Option<Outcome>,
    /// When it ended, in milliseconds since the Unix epoch.
    pub(crate) finished_at: Option<i64>,
}
