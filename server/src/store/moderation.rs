//! Moderation's rows: roles and sanctions on accounts, reports, the audit log, and the
//! hashed addresses accounts signed in from.

use super::db::Store;
use super::driver::{Conn, FromRow, Row, params};
use super::error::StoreError;
use super::model::AccountId;
use crate::clock::now;
use crate::secret::{self, TokenHash};

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

impl Store {
    /// The key of the hashes of sign-in addresses, made on first use.
    pub(crate) async fn address_key(&self) -> Result<TokenHash, StoreError> {
        self.db.atomic(|db| Box::pin(address_key(db))).await
    }

    /// Account `account` signed in now from the address hashed to `address`.
    pub(crate) async fn signed_in_from(
        &self,
        account: &str,
        address: TokenHash,
    ) -> Result<(), StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { signed_in_from(db, &account, address, at).await }))
            .await
    }

    /// The addresses `account` signed in from (hashed), most recent first.
    pub(crate) async fn sign_ins_of(&self, account: &str) -> Result<Vec<SignIn>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { sign_ins_of(db, &account).await }))
            .await
    }

    /// The accounts banned after `since` (milliseconds since the Unix epoch), from the
    /// page or from the console.
    pub(crate) async fn banned_since(&self, since: i64) -> Result<Vec<AccountId>, StoreError> {
        self.db
            .run(move |db| {
                Box::pin(async move {
                    let rows = db.query(BANNED_SINCE, params![since]).await?;
                    rows.iter().map(|row| row.get("id")).collect()
                })
            })
            .await
    }

    /// `account`'s role and sanctions; `None` if there is no such account.
    pub(crate) async fn account_state(
        &self,
        account: &str,
    ) -> Result<Option<AccountState>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { state_of(db, &account).await }))
            .await
    }

    /// Makes `sanction`, resolves the report `entry` answers and writes `entry` in the
    /// audit log, in one transaction.
    pub(crate) async fn act(&self, sanction: Sanction, entry: NewEntry) -> Result<(), StoreError> {
        let at = now();
        self.db
            .atomic(move |db| Box::pin(act(db, sanction, entry, at)))
            .await
    }

    /// Stores `report`; answers its id.
    pub(crate) async fn report(&self, report: NewReport) -> Result<String, StoreError> {
        let (id, at) = (crate::secret::uuid_v7(), now());
        let stored = id.clone();
        self.db
            .run(move |db| Box::pin(async move { self::report(db, &stored, report, at).await }))
            .await?;
        Ok(id)
    }

    /// How many reports `reporter` made that no moderator resolved yet.
    pub(crate) async fn open_reports_by(&self, reporter: &str) -> Result<usize, StoreError> {
        let reporter = reporter.to_owned();
        self.db
            .run(move |db| Box::pin(async move { open_reports_by(db, &reporter).await }))
            .await
    }

    /// The open reports, oldest first, at most `limit`.
    pub(crate) async fn open_reports(&self, limit: usize) -> Result<Vec<Report>, StoreError> {
        self.db
            .run(move |db| Box::pin(open_reports(db, limit)))
            .await
    }

    /// The reports made by or about `account`, newest first.
    pub(crate) async fn reports_about(&self, account: &str) -> Result<Vec<Report>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { reports_about(db, &account).await }))
            .await
    }

    /// Report `id`, if there is one.
    pub(crate) async fn report_by_id(&self, id: &str) -> Result<Option<Report>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { report_by_id(db, &id).await }))
            .await
    }

    /// The audit log, newest first: entries numbered below `before`, at most `limit`.
    pub(crate) async fn audit_log(
        &self,
        before: i64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        self.db
            .run(move |db| Box::pin(audit_log(db, before, limit)))
            .await
    }

    /// The entries of the audit log about `account`, newest first.
    pub(crate) async fn audit_of(&self, account: &str) -> Result<Vec<Entry>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { audit_of(db, &account).await }))
            .await
    }

    /// Line `line` of chat, if it is kept.
    pub(crate) async fn chat_line(&self, line: u64) -> Result<Option<StoredLine>, StoreError> {
        self.db.run(move |db| Box::pin(chat_line(db, line))).await
    }

    /// The unfinished rooms in which `account` holds a seat.
    pub(crate) async fn running_rooms_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { running_rooms_of(db, &account).await }))
            .await
    }

    /// Room `room`'s game will not be rated (a moderator closes it).
    pub(crate) async fn unrate(&self, room: &str) -> Result<(), StoreError> {
        let room = room.to_owned();
        self.owned(move |db| Box::pin(async move { unrate(db, &room).await }))
            .await
    }
}

/// The key that hashes sign-in addresses, made by the first node that needs it.
async fn address_key(db: &dyn Conn) -> Result<TokenHash, StoreError> {
    const NAME: &str = "sign-in-addresses";
    let made = secret::random_key();
    db.execute(INSERT_SERVER_KEY, params![NAME, made]).await?;
    let rows = db.query(SERVER_KEY, params![NAME]).await?;
    match rows.first() {
        Some(row) => row.get("key"),
        None => Err(super::driver::corrupt("the address key was not kept")),
    }
}

/// Account `account` signed in from the address hashed to `address` at `at`.
async fn signed_in_from(
    db: &dyn Conn,
    account: &str,
    address: TokenHash,
    at: i64,
) -> Result<(), StoreError> {
    db.execute(SIGNED_IN_FROM, params![account, address, at])
        .await?;
    Ok(())
}

/// The addresses `account` signed in from, most recent first.
async fn sign_ins_of(db: &dyn Conn, account: &str) -> Result<Vec<SignIn>, StoreError> {
    let rows = db.query(SIGN_INS_OF, params![account]).await?;
    rows.iter()
        .map(|row| {
            Ok(SignIn {
                address: row.get("address")?,
                first_at: row.get("first_at")?,
                last_at: row.get("last_at")?,
            })
        })
        .collect()
}

/// `account`'s role and sanctions; `None` if no account has that id.
async fn state_of(db: &dyn Conn, account: &str) -> Result<Option<AccountState>, StoreError> {
    let rows = db.query(STANDING_OF, params![account]).await?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let role: Option<String> = row.get("role")?;
    Ok(Some(AccountState {
        role: role.as_deref().and_then(Role::parse),
        banned_at: row.get("banned_at")?,
        muted_until: row.get("muted_until")?,
        barred_from_rated: row.get("barred_from_rated")?,
    }))
}

/// Makes `sanction` on `entry`'s account (or line), resolves the report `entry` answers,
/// and writes `entry` at `at`: all or nothing, in the caller's transaction.
async fn act(
    db: &dyn Conn,
    sanction: Sanction,
    entry: NewEntry,
    at: i64,
) -> Result<(), StoreError> {
    let account = entry.account.as_deref();
    match sanction {
        Sanction::None => {}
        Sanction::Role(role) => {
            let role = role.map(Role::as_str);
            db.execute(SET_ROLE, params![account, role]).await?;
        }
        Sanction::Ban(at) => {
            db.execute(SET_BANNED, params![account, at]).await?;
            if at.is_some() {
                db.execute(super::accounts::END_SESSIONS, params![account])
                    .await?;
            }
        }
        Sanction::Mute(until) => {
            db.execute(SET_MUTED, params![account, until]).await?;
        }
        Sanction::BarFromRated(barred) => {
            db.execute(SET_BARRED, params![account, barred]).await?;
        }
        Sanction::RemoveLine(line) => {
            db.execute(REMOVE_CHAT_LINE, params![line_value(line)])
                .await?;
        }
    }
    if let Some(report) = &entry.report {
        db.execute(
            RESOLVE_REPORT,
            params![report, at, entry.moderator.as_deref()],
        )
        .await?;
    }
    let values = params![
        at,
        entry.moderator.as_deref(),
        entry.action,
        account,
        entry.room.as_deref(),
        entry.chat_line.map(line_value),
        entry.report.as_deref(),
        &entry.reason,
        entry.until,
        entry.role.map(Role::as_str),
    ];
    db.execute(INSERT_AUDIT, values).await?;
    Ok(())
}

/// A line's id as the database keeps it.
fn line_value(line: u64) -> i64 {
    i64::try_from(line).unwrap_or(i64::MAX)
}

/// Stores `report` as `id` at `at`.
async fn report(db: &dyn Conn, id: &str, report: NewReport, at: i64) -> Result<(), StoreError> {
    let values = params![
        id,
        &report.reporter,
        report.reported.as_deref(),
        report.chat_line.map(line_value),
        &report.reason,
        at,
        report.room.as_deref(),
    ];
    db.execute(INSERT_REPORT, values).await?;
    Ok(())
}

/// How many reports `reporter` made that are still open.
async fn open_reports_by(db: &dyn Conn, reporter: &str) -> Result<usize, StoreError> {
    let rows = db.query(OPEN_REPORTS_BY, params![reporter]).await?;
    rows.first().map_or(Ok(0), |row| row.get("open_reports"))
}

/// The open reports, oldest first, at most `limit`.
async fn open_reports(db: &dyn Conn, limit: usize) -> Result<Vec<Report>, StoreError> {
    let rows = db.query(&open_reports_sql(), params![limit]).await?;
    rows.iter().map(Report::from_row).collect()
}

/// The reports made by or about `account`, newest first.
async fn reports_about(db: &dyn Conn, account: &str) -> Result<Vec<Report>, StoreError> {
    let rows = db.query(&reports_about_sql(), params![account]).await?;
    rows.iter().map(Report::from_row).collect()
}

/// Report `id`, if there is one.
async fn report_by_id(db: &dyn Conn, id: &str) -> Result<Option<Report>, StoreError> {
    let rows = db.query(&report_sql(), params![id]).await?;
    rows.first().map(Report::from_row).transpose()
}

/// A report read from [`REPORT_COLUMNS`].
impl FromRow for Report {
    fn from_row(row: &Row) -> Result<Report, StoreError> {
        Ok(Report {
            id: row.get("id")?,
            reporter: row.get("reporter")?,
            reported: row.get("reported")?,
            line: line(row)?,
            room: row.get("room")?,
            text: row.get("text")?,
            reason: row.get("reason")?,
            at: row.get("created_at")?,
            resolved_at: row.get("resolved_at")?,
            resolved_by: row.get("resolved_by")?,
        })
    }
}

/// The line of chat a report or an entry of the log is about, from its `chat_line`.
fn line(row: &Row) -> Result<Option<u64>, StoreError> {
    let line: Option<i64> = row.get("chat_line")?;
    Ok(line.and_then(|n| u64::try_from(n).ok()))
}

/// The audit log, newest first: entries before `before`, at most `limit`.
async fn audit_log(db: &dyn Conn, before: i64, limit: usize) -> Result<Vec<Entry>, StoreError> {
    let rows = db.query(&audit_log_sql(), params![before, limit]).await?;
    rows.iter().map(Entry::from_row).collect()
}

/// The entries of the audit log about `account`, newest first.
async fn audit_of(db: &dyn Conn, account: &str) -> Result<Vec<Entry>, StoreError> {
    let rows = db.query(&audit_of_sql(), params![account]).await?;
    rows.iter().map(Entry::from_row).collect()
}

/// An entry read from [`AUDIT_COLUMNS`].
impl FromRow for Entry {
    fn from_row(row: &Row) -> Result<Entry, StoreError> {
        Ok(Entry {
            id: row.get("id")?,
            at: row.get("at")?,
            moderator: row.get("moderator")?,
            action: row.get("action")?,
            account: row.get("account")?,
            room: row.get("room")?,
            line: line(row)?,
            report: row.get("report")?,
            reason: row.get("reason")?,
            until: row.get("until")?,
            role: row.get("role")?,
        })
    }
}

/// Line `line` of chat, if it was kept.
async fn chat_line(db: &dyn Conn, line: u64) -> Result<Option<StoredLine>, StoreError> {
    let rows = db.query(CHAT_LINE, params![line_value(line)]).await?;
    rows.first()
        .map(|row| {
            Ok(StoredLine {
                room: row.get("room")?,
                account: row.get("account")?,
                removed: row.get("removed")?,
            })
        })
        .transpose()
}

/// The unfinished rooms in which `account` holds a seat.
async fn running_rooms_of(db: &dyn Conn, account: &str) -> Result<Vec<String>, StoreError> {
    let rows = db.query(RUNNING_ROOMS_OF, params![account]).await?;
    rows.iter().map(|row| row.get("id")).collect()
}

/// Room `room`'s game will not be rated.
async fn unrate(db: &dyn Conn, room: &str) -> Result<(), StoreError> {
    db.execute(UNRATE_ROOM, params![room]).await?;
    Ok(())
}

/// The key named `$1`.
const SERVER_KEY: &str = "SELECT key FROM server_keys WHERE name = $1";

/// Keeps key `$2` as `$1`, unless a key of that name exists (another node made it).
const INSERT_SERVER_KEY: &str =
    "INSERT INTO server_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";

/// Account `$1` signed in from address hash `$2` at `$3`.
const SIGNED_IN_FROM: &str =
    "INSERT INTO sign_ins (account, address, first_at, last_at) VALUES ($1, $2, $3, $3)
     ON CONFLICT (account, address) DO UPDATE SET last_at = excluded.last_at";

/// Account `$1`'s sign-in addresses (hashed), most recent first: hash, first, last.
const SIGN_INS_OF: &str =
    "SELECT address, first_at, last_at FROM sign_ins WHERE account = $1 ORDER BY last_at DESC";

/// Account `$1`'s role and sanctions: role, banned at, muted until, barred from rated.
const STANDING_OF: &str =
    "SELECT role, banned_at, muted_until, barred_from_rated FROM accounts WHERE id = $1";

/// Gives account `$1` role `$2` (NULL: none).
const SET_ROLE: &str = "UPDATE accounts SET role = $2 WHERE id = $1";

/// Bans account `$1` at `$2` (NULL: lifts the ban).
const SET_BANNED: &str = "UPDATE accounts SET banned_at = $2 WHERE id = $1";

/// Mutes account `$1` until `$2` (NULL: lifts the mute).
const SET_MUTED: &str = "UPDATE accounts SET muted_until = $2 WHERE id = $1";

/// Bars account `$1` from rated games, or lifts the bar (`$2`).
const SET_BARRED: &str = "UPDATE accounts SET barred_from_rated = $2 WHERE id = $1";

/// A report: id, reporter, reported, line, reason, when.
const INSERT_REPORT: &str =
    "INSERT INTO reports (id, reporter, reported, chat_line, reason, created_at, room)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Reports made by account `$1` still open.
const OPEN_REPORTS_BY: &str =
    "SELECT COUNT(*) AS open_reports FROM reports WHERE reporter = $1 AND resolved_at IS NULL";

/// The columns of a report as moderators read it, and the joins they need: id,
/// reporter's and reported's usernames, line, its room (kept with the report), its text
/// (for a line only: empty once removed or gone with its speaker), reason, when,
/// resolved when, resolved by whom.
const REPORT_COLUMNS: &str = "SELECT p.id, ra.username AS reporter, da.username AS reported,
            p.chat_line, p.room,
            CASE WHEN p.chat_line IS NULL THEN NULL WHEN c.removed THEN ''
                 ELSE COALESCE(c.text, '') END AS text,
            p.reason, p.created_at, p.resolved_at, ma.username AS resolved_by
     FROM reports p
     JOIN accounts ra ON ra.id = p.reporter
     LEFT JOIN accounts da ON da.id = p.reported
     LEFT JOIN accounts ma ON ma.id = p.resolved_by
     LEFT JOIN chat c ON c.id = p.chat_line";

/// The open reports, oldest first, at most `$1`.
fn open_reports_sql() -> String {
    format!("{REPORT_COLUMNS} WHERE p.resolved_at IS NULL ORDER BY p.created_at, p.id LIMIT $1")
}

/// The reports made by or about account `$1`, newest first.
fn reports_about_sql() -> String {
    format!(
        "{REPORT_COLUMNS} WHERE p.reporter = $1 OR p.reported = $1
         ORDER BY p.created_at DESC, p.id LIMIT 200"
    )
}

/// Report `$1`.
fn report_sql() -> String {
    format!("{REPORT_COLUMNS} WHERE p.id = $1")
}

/// Resolves report `$1` at `$2` by moderator `$3` (NULL: the console), if still open.
const RESOLVE_REPORT: &str =
    "UPDATE reports SET resolved_at = $2, resolved_by = $3 WHERE id = $1 AND resolved_at IS NULL";

/// An entry of the audit log: when, who, what, whom, room, line, report, why, until, role.
const INSERT_AUDIT: &str = "INSERT INTO audit_log
     (at, moderator, action, account, room, chat_line, report, reason, until, role)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// The columns of an audit entry as read: id, when, moderator's username, action, the
/// account's username, room, line, report, reason, until, role.
const AUDIT_COLUMNS: &str =
    "SELECT l.id, l.at, ma.username AS moderator, l.action, aa.username AS account, l.room,
            l.chat_line, l.report, l.reason, l.until, l.role
     FROM audit_log l
     LEFT JOIN accounts ma ON ma.id = l.moderator
     LEFT JOIN accounts aa ON aa.id = l.account";

/// The audit log, newest first, before entry `$1`, at most `$2` entries.
fn audit_log_sql() -> String {
    format!("{AUDIT_COLUMNS} WHERE l.id < $1 ORDER BY l.id DESC LIMIT $2")
}

/// The entries of the audit log about account `$1`, newest first.
fn audit_of_sql() -> String {
    format!("{AUDIT_COLUMNS} WHERE l.account = $1 ORDER BY l.id DESC LIMIT 200")
}

/// Line `$1` of chat: its room, its speaker's account, whether removed.
const CHAT_LINE: &str = "SELECT room, account, removed FROM chat WHERE id = $1";

/// Removes line `$1` of chat.
const REMOVE_CHAT_LINE: &str = "UPDATE chat SET removed = TRUE WHERE id = $1";

/// The unfinished rooms in which account `$1` holds a seat.
const RUNNING_ROOMS_OF: &str = "SELECT id FROM rooms
     WHERE outcome IS NULL AND (white_account = $1 OR black_account = $1)";

/// A closed room's game is not rated: room `$1`.
const UNRATE_ROOM: &str = "UPDATE rooms SET rated = FALSE WHERE id = $1";

/// The accounts banned after `$1`.
const BANNED_SINCE: &str = "SELECT id FROM accounts WHERE banned_at > $1";
