//! Running punct in public: roles, players' reports, moderators' actions and the audit
//! log that records each of them.
//!
//! - An account may be a `moderator` or an `admin`, granted only by the operator
//!   (`punct-server admin grant`). Both act on players; only an admin acts on an account
//!   that has a role, and nobody acts on their own account.
//! - A signed-in player reports a player, or a line of chat, with a reason. Reports
//!   wait in a queue until a moderator acts on them or dismisses them.
//! - Each action changes the database and writes its entry in the audit log in one
//!   transaction: the log holds every action that was done, and only those. The log is
//!   append-only, down to the database (triggers refuse to change or delete an entry).
//!   What a room must carry out (a game forfeited, a room closed, a line removed) it is
//!   then asked to, wherever it runs.
//!
//! The actions, and what each does:
//!
//! - `warn`: an entry the player reads among their warnings (`GET /api/me/warnings`).
//! - `mute` for some minutes, `unmute`: no chat from the account in any room until then.
//! - `bar`, `unbar`: no rated game (creating one or taking a seat in one).
//! - `ban`, `unban`: no sign-in; every session ends, and every unfinished game of the
//!   account is lost by abandonment (a room still waiting for an opponent is deleted).
//!   The account and its name stay, so nobody can take the name.
//! - `remove_line`: the line is shown to everyone as removed, now and later.
//! - `close_room`: a game under way is drawn as `closed` and not rated; a room still
//!   waiting for an opponent is deleted.
//! - `dismiss`: a report is resolved with nothing done.
//!
//! `api::moderation` has the routes; `main.rs` the operator's `admin` commands.

use punct_protocol::ErrorCode;
use serde::Deserialize;

use crate::accounts::Accounts;
use crate::clock::now;
use crate::endings::{Ended, Endings};
use crate::errors::Refused;
use crate::limits::Throttle;
use crate::registry::Registry;
use crate::room::Moderate;
use crate::store::{
    Account, AccountState, Entry, LinkPurpose, NewEntry, NewReport, Report, Role, Sanction, Store,
};

/// Longest reason, for a report or an action, in characters.
const MAX_REASON: usize = 500;
/// Reports one account may make a minute.
const REPORTS_PER_MINUTE: u32 = 5;
/// Reports one account may have open at once: a flood of reports is no report.
const MAX_OPEN_REPORTS: usize = 20;
/// Longest mute: a year, in minutes.
const MAX_MUTE_MINUTES: u32 = 525_600;
/// Reports in the queue a moderator reads at once.
pub(crate) const QUEUE: usize = 100;

/// What a moderator asks: an action, whom or what it is on, and why.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ask {
    /// What to do.
    pub(crate) action: Action,
    /// Why, in the moderator's words: kept in the audit log.
    pub(crate) reason: String,
    /// The account, for the actions on an account.
    #[serde(default)]
    pub(crate) username: Option<String>,
    /// How long a mute lasts.
    #[serde(default)]
    pub(crate) minutes: Option<u32>,
    /// The line of chat, for `remove_line`.
    #[serde(default)]
    pub(crate) line: Option<u64>,
    /// The room, for `close_room`.
    #[serde(default)]
    pub(crate) room: Option<String>,
    /// The report this answers: resolved by the action.
    #[serde(default)]
    pub(crate) report: Option<String>,
}

/// A moderator's action (the module's docs say what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Action {
    /// Warn the player.
    Warn,
    /// Mute the player in every chat for some minutes.
    Mute,
    /// Lift a mute.
    Unmute,
    /// Bar the player from rated games.
    Bar,
    /// Lift the bar.
    Unbar,
    /// Ban the player.
    Ban,
    /// Lift the ban.
    Unban,
    /// Remove a line of chat.
    RemoveLine,
    /// Close a room.
    CloseRoom,
    /// Resolve a report with nothing done.
    Dismiss,
}

impl Action {
    /// The action's name in the audit log.
    fn name(self) -> &'static str {
        match self {
            Action::Warn => "warn",
            Action::Mute => "mute",
            Action::Unmute => "unmute",
            Action::Bar => "bar",
            Action::Unbar => "unbar",
            Action::Ban => "ban",
            Action::Unban => "unban",
            Action::RemoveLine => "remove_line",
            Action::CloseRoom => "close_room",
            Action::Dismiss => "dismiss",
        }
    }
}

/// An operator's action from the console (`punct-server admin`), on an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Console {
    /// Give the account a role.
    Grant(String),
    /// Take its role away.
    Revoke,
    /// Ban it.
    Ban,
    /// Lift its ban.
    Unban,
    /// Mail its confirmed address a link to set a new password.
    ResetLink,
}

/// Roles, reports, actions and the audit log, over the store and the rooms.
#[derive(Debug)]
pub(crate) struct Moderation {
    store: Store,
    accounts: std::sync::Arc<Accounts>,
    rooms: Registry,
    /// The connections a ban closes.
    endings: Endings,
    /// Reports per reporter.
    reports: Throttle<String>,
}

impl Moderation {
    /// Moderation of the accounts in `accounts`, kept in `store`, and the rooms of
    /// `rooms`, whose ban closes the connections of `endings`.
    pub(crate) fn new(
        store: Store,
        accounts: std::sync::Arc<Accounts>,
        rooms: Registry,
        endings: Endings,
    ) -> Moderation {
        Moderation {
            store,
            accounts,
            rooms,
            endings,
            reports: Throttle::per_minute(REPORTS_PER_MINUTE),
        }
    }

    /// `account`'s role, if it may moderate; `not-a-moderator` otherwise.
    pub(crate) async fn role_of(&self, account: &Account) -> Result<Role, Refused> {
        let state = self.state_of(account).await?;
        state.role.ok_or_else(|| {
            Refused::new(
                ErrorCode::NotAModerator,
                "only a moderator may do this".to_owned(),
            )
        })
    }

    /// `account`'s role and sanctions.
    async fn state_of(&self, account: &Account) -> Result<AccountState, Refused> {
        Ok(self
            .store
            .account_state(&account.id)
            .await?
            .unwrap_or_default())
    }

    /// Whether account `account` may say something in a chat now: not while muted.
    pub(crate) async fn may_chat(&self, account: &str) -> Result<(), Refused> {
        let state = self.store.account_state(account).await?.unwrap_or_default();
        match state.muted_until {
            Some(until) if until > now() => Err(Refused::new(
                ErrorCode::Muted,
                format!(
                    "a moderator muted you for {} more minutes",
                    u64::try_from(until - now()).unwrap_or(0).div_ceil(60_000)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Whether `account` may play a rated game: not while barred from them.
    pub(crate) async fn may_play_rated(&self, account: &Account) -> Result<(), Refused> {
        if self.state_of(account).await?.barred_from_rated {
            Err(Refused::new(
                ErrorCode::BarredFromRated,
                "a moderator barred you from rated games".to_owned(),
            ))
        } else {
            Ok(())
        }
    }

    /// `reporter` reports the line of chat `line`, or else the player `username`, for
    /// `reason`; answers the report's id.
    pub(crate) async fn report(
        &self,
        reporter: &Account,
        username: Option<&str>,
        line: Option<u64>,
        reason: &str,
    ) -> Result<String, Refused> {
        let reason = checked_reason(reason)?;
        let (reported, room) = match (line, username) {
            (Some(line), _) => {
                let stored = self.store.chat_line(line).await?.ok_or_else(no_such_line)?;
                (stored.account, Some(stored.room))
            }
            (None, Some(username)) => (Some(self.accounts.named(username).await?.id), None),
            (None, None) => return Err(bad("name a player or a line of chat to report")),
        };
        if reported.as_ref() == Some(&reporter.id) {
            return Err(bad("you cannot report yourself"));
        }
        // Counted once the report is sound: a mistyped name costs nothing.
        if !self.reports.allow(reporter.id.clone())
            || self.store.open_reports_by(&reporter.id).await? >= MAX_OPEN_REPORTS
        {
            return Err(Refused::new(
                ErrorCode::RateLimited,
                "you have reported enough for now; a moderator will read your reports".to_owned(),
            ));
        }
        let report = NewReport {
            reporter: reporter.id.clone(),
            reported,
            chat_line: line,
            room,
            reason,
        };
        let id = self.store.report(report).await?;
        tracing::info!(report = %id, reporter = %reporter.id, "reported");
        Ok(id)
    }

    /// The open reports, oldest first, for `moderator`.
    pub(crate) async fn queue(&self, moderator: &Account) -> Result<Vec<Report>, Refused> {
        self.role_of(moderator).await?;
        Ok(self.store.open_reports(QUEUE).await?)
    }

    /// The audit log, newest first, entries numbered below `before`, at most `limit`,
    /// for `moderator`.
    pub(crate) async fn log(
        &self,
        moderator: &Account,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Entry>, Refused> {
        self.role_of(moderator).await?;
        let before = before.unwrap_or(i64::MAX);
        Ok(self.store.audit_log(before, limit).await?)
    }

    /// The warnings `account` was given, newest first.
    pub(crate) async fn warnings(&self, account: &Account) -> Result<Vec<Entry>, Refused> {
        let entries = self.store.audit_of(&account.id).await?;
        Ok(entries
            .into_iter()
            .filter(|entry| entry.action == Action::Warn.name())
            .collect())
    }

    /// Carries out `ask` for `moderator`: checks it, writes it with its entry in the
    /// audit log, then has the rooms concerned carry it out.
    pub(crate) async fn act(&self, moderator: &Account, ask: Ask) -> Result<(), Refused> {
        let role = self.role_of(moderator).await?;
        let reason = checked_reason(&ask.reason)?;
        if let Some(report) = &ask.report
            && self.store.report_by_id(report).await?.is_none()
        {
            return Err(Refused::new(
                ErrorCode::NotFound,
                "no such report".to_owned(),
            ));
        }
        let mut entry = NewEntry {
            moderator: Some(moderator.id.clone()),
            action: ask.action.name(),
            account: None,
            room: None,
            chat_line: None,
            report: ask.report.clone(),
            reason,
            until: None,
            role: None,
        };
        let sanction = match ask.action {
            Action::Dismiss => {
                if ask.report.is_none() {
                    return Err(bad("name the report to dismiss"));
                }
                Sanction::None
            }
            Action::RemoveLine => {
                let line = ask.line.ok_or_else(|| bad("name the line to remove"))?;
                let stored = self.store.chat_line(line).await?.ok_or_else(no_such_line)?;
                entry.account = stored.account;
                entry.room = Some(stored.room);
                entry.chat_line = Some(line);
                Sanction::RemoveLine(line)
            }
            Action::CloseRoom => {
                let room = ask
                    .room
                    .clone()
                    .ok_or_else(|| bad("name the room to close"))?;
                // The room first: it may refuse (its game is over already), and the log
                // holds only what was done.
                self.rooms
                    .moderate(&room, Moderate::Close)
                    .await
                    .map_err(|refusal| Refused::new(refusal.code, refusal.message))?;
                entry.room = Some(room);
                Sanction::None
            }
            _ => {
                let username = ask.username.as_deref();
                let target = self
                    .accounts
                    .named(username.ok_or_else(|| bad("name the player"))?)
                    .await?;
                if target.id == moderator.id {
                    return Err(bad("you cannot act on your own account"));
                }
                let target_state = self.state_of(&target).await?;
                if target_state.role.is_some() && role != Role::Admin {
                    return Err(Refused::new(
                        ErrorCode::NotAModerator,
                        "only an admin acts on a moderator".to_owned(),
                    ));
                }
                entry.account = Some(target.id.clone());
                on_account(ask.action, ask.minutes, &mut entry)?
            }
        };
        let banned = matches!(sanction, Sanction::Ban(Some(_)));
        let line = match &sanction {
            Sanction::RemoveLine(line) => Some(*line),
            _ => None,
        };
        let (account, room) = (entry.account.clone(), entry.room.clone());
        self.store.act(sanction, entry).await?;
        tracing::info!(moderator = %moderator.id, action = ask.action.name(), "moderated");
        if let (Some(line), Some(room)) = (line, room) {
            self.carry_out(&room, Moderate::RemoveLine { line }).await;
        }
        if banned && let Some(account) = account {
            let ended = Ended::Account {
                account: account.clone(),
                deleted_as: None,
            };
            self.endings.end(ended).await;
            for room in self.store.running_rooms_of(&account).await? {
                let forfeit = Moderate::Forfeit {
                    account: account.clone(),
                };
                self.carry_out(&room, forfeit).await;
            }
        }
        Ok(())
    }

    /// Asks room `room` to carry out `moderate`, which the database holds already: a
    /// refusal (the game ended meanwhile) changes nothing, and is logged.
    async fn carry_out(&self, room: &str, moderate: Moderate) {
        if let Err(refusal) = self.rooms.moderate(room, moderate).await {
            tracing::warn!(room, code = %refusal.code, "a room did not carry out a moderator's action: {}", refusal.message);
        }
    }
}

/// The sanction of an action on an account (`warn` to `unban`), the mute's end noted in
/// `entry`.
fn on_account(
    action: Action,
    minutes: Option<u32>,
    entry: &mut NewEntry,
) -> Result<Sanction, Refused> {
    Ok(match action {
        Action::Warn => Sanction::None,
        Action::Mute => {
            let minutes = minutes
                .filter(|m| (1..=MAX_MUTE_MINUTES).contains(m))
                .ok_or_else(|| bad("a mute lasts 1 to 525,600 minutes"))?;
            let until = now() + i64::from(minutes) * 60_000;
            entry.until = Some(until);
            Sanction::Mute(Some(until))
        }
        Action::Unmute => Sanction::Mute(None),
        Action::Bar => Sanction::BarFromRated(true),
        Action::Unbar => Sanction::BarFromRated(false),
        Action::Ban => Sanction::Ban(Some(now())),
        Action::Unban => Sanction::Ban(None),
        Action::RemoveLine | Action::CloseRoom | Action::Dismiss => {
            unreachable!("not an action on an account")
        }
    })
}

/// The operator's `action` on the account named `username`, from the console, for
/// `reason`: written with its entry in the audit log (no moderator: the console).
/// Answers what was done, for the operator to read.
pub(crate) async fn console(
    store: &Store,
    username: &str,
    action: Console,
    reason: &str,
) -> Result<String, Refused> {
    let reason = checked_reason(reason)?;
    let key = crate::accounts::username_key(username);
    let account = match store.account_by_key(&key).await? {
        Some((account, password)) if !password.is_empty() => account,
        _ => {
            return Err(Refused::new(
                ErrorCode::NoSuchPlayer,
                format!("no account is named {username}"),
            ));
        }
    };
    let mut entry = NewEntry {
        moderator: None,
        action: "",
        account: Some(account.id.clone()),
        room: None,
        chat_line: None,
        report: None,
        reason,
        until: None,
        role: None,
    };
    let (sanction, done) = match action {
        Console::Grant(role) => {
            let role =
                Role::parse(&role).ok_or_else(|| bad("the roles are `moderator` and `admin`"))?;
            entry.action = "grant";
            entry.role = Some(role);
            (
                Sanction::Role(Some(role)),
                format!("{} is now {}", account.username, role.as_str()),
            )
        }
        Console::Revoke => {
            entry.action = "revoke";
            (
                Sanction::Role(None),
                format!("{} has no role now", account.username),
            )
        }
        Console::Ban => {
            entry.action = "ban";
            let running = store.running_rooms_of(&account.id).await?;
            (
                Sanction::Ban(Some(now())),
                format!(
                    "{} is banned and signed out; {} unfinished games stay open until they are abandoned (a moderator's ban from the web ends them at once)",
                    account.username,
                    running.len()
                ),
            )
        }
        Console::Unban => {
            entry.action = "unban";
            (
                Sanction::Ban(None),
                format!("{} may sign in again", account.username),
            )
        }
        Console::ResetLink => {
            entry.action = "reset_link";
            let settings = store.mail_settings(&account.id).await?;
            let email = settings.and_then(|settings| settings.email);
            let email = match email {
                Some(email) if store.email_confirmed(&account.id).await? => email,
                _ => {
                    return Err(bad(
                        "the account has no confirmed mail address to send a link to",
                    ));
                }
            };
            let expires_at = now().saturating_add(crate::accounts::LINK_LIFETIME_MS);
            store
                .mail_link(&account.id, LinkPurpose::Reset, email.clone(), expires_at)
                .await?;
            (
                Sanction::None,
                format!("a link to set a new password is queued for {email}"),
            )
        }
    };
    store.act(sanction, entry).await?;
    Ok(done)
}

/// `reason` trimmed, if it is 1 to 500 characters without control characters.
fn checked_reason(reason: &str) -> Result<String, Refused> {
    let reason = reason.trim();
    if reason.is_empty()
        || reason.chars().count() > MAX_REASON
        || reason.chars().any(|c| c.is_control() && c != '\n')
    {
        return Err(bad("give a reason of 1 to 500 characters"));
    }
    Ok(reason.to_owned())
}

/// A `bad-request` refusal saying `why`.
fn bad(why: &str) -> Refused {
    Refused::new(ErrorCode::BadRequest, why.to_owned())
}

/// The refusal of a line of chat that is not kept.
fn no_such_line() -> Refused {
    Refused::new(ErrorCode::NotFound, "no such line of chat".to_owned())
}
