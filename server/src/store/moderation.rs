//! Moderation's rows: roles and sanctions on accounts, reports, the audit log, and the
//! hashed addresses accounts signed in from.

use super::driver::{Conn, Row, params};
use super::error::StoreError;
use super::model::{
    AccountState, Entry, NewEntry, NewReport, Report, Role, Sanction, SignIn, StoredLine,
};
use super::sql;
use crate::secret::{self, TokenHash};

/// The key that hashes sign-in addresses, made by the first node that needs it.
pub(super) async fn address_key(db: &dyn Conn) -> Result<TokenHash, StoreError> {
    const NAME: &str = "sign-in-addresses";
    let made = secret::random_key();
    db.execute(sql::INSERT_SERVER_KEY, params![NAME, made])
        .await?;
    let rows = db.query(sql::SERVER_KEY, params![NAME]).await?;
    match rows.first() {
        Some(row) => row.get(0),
        None => Err(super::driver::corrupt("the address key was not kept")),
    }
}

/// Account `account` signed in from the address hashed to `address` at `at`.
pub(super) async fn signed_in_from(
    db: &dyn Conn,
    account: &str,
    address: TokenHash,
    at: i64,
) -> Result<(), StoreError> {
    db.execute(sql::SIGNED_IN_FROM, params![account, address, at])
        .await?;
    Ok(())
}

/// The addresses `account` signed in from, most recent first.
pub(super) async fn sign_ins_of(db: &dyn Conn, account: &str) -> Result<Vec<SignIn>, StoreError> {
    let rows = db.query(sql::SIGN_INS_OF, params![account]).await?;
    rows.iter()
        .map(|row| {
            Ok(SignIn {
                address: row.get(0)?,
                first_at: row.get(1)?,
                last_at: row.get(2)?,
            })
        })
        .collect()
}

/// `account`'s role and sanctions; `None` if no account has that id.
pub(super) async fn state_of(
    db: &dyn Conn,
    account: &str,
) -> Result<Option<AccountState>, StoreError> {
    let rows = db.query(sql::STANDING_OF, params![account]).await?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let role: Option<String> = row.get(0)?;
    Ok(Some(AccountState {
        role: role.as_deref().and_then(Role::parse),
        banned_at: row.get(1)?,
        muted_until: row.get(2)?,
        barred_from_rated: row.get(3)?,
    }))
}

/// Makes `sanction` on `entry`'s account (or line), resolves the report `entry` answers,
/// and writes `entry` at `at`: all or nothing, in the caller's transaction.
pub(super) async fn act(
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
            db.execute(sql::SET_ROLE, params![account, role]).await?;
        }
        Sanction::Ban(at) => {
            db.execute(sql::SET_BANNED, params![account, at]).await?;
            if at.is_some() {
                db.execute(sql::END_SESSIONS, params![account]).await?;
            }
        }
        Sanction::Mute(until) => {
            db.execute(sql::SET_MUTED, params![account, until]).await?;
        }
        Sanction::BarFromRated(barred) => {
            db.execute(sql::SET_BARRED, params![account, barred])
                .await?;
        }
        Sanction::RemoveLine(line) => {
            db.execute(sql::REMOVE_CHAT_LINE, params![line_value(line)])
                .await?;
        }
    }
    if let Some(report) = &entry.report {
        db.execute(
            sql::RESOLVE_REPORT,
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
    db.execute(sql::INSERT_AUDIT, values).await?;
    Ok(())
}

/// A line's id as the database keeps it.
fn line_value(line: u64) -> i64 {
    i64::try_from(line).unwrap_or(i64::MAX)
}

/// Stores `report` as `id` at `at`.
pub(super) async fn report(
    db: &dyn Conn,
    id: &str,
    report: NewReport,
    at: i64,
) -> Result<(), StoreError> {
    let values = params![
        id,
        &report.reporter,
        report.reported.as_deref(),
        report.chat_line.map(line_value),
        &report.reason,
        at,
        report.room.as_deref(),
    ];
    db.execute(sql::INSERT_REPORT, values).await?;
    Ok(())
}

/// How many reports `reporter` made that are still open.
pub(super) async fn open_reports_by(db: &dyn Conn, reporter: &str) -> Result<usize, StoreError> {
    let rows = db.query(sql::OPEN_REPORTS_BY, params![reporter]).await?;
    rows.first().map_or(Ok(0), |row| row.get(0))
}

/// The open reports, oldest first, at most `limit`.
pub(super) async fn open_reports(db: &dyn Conn, limit: usize) -> Result<Vec<Report>, StoreError> {
    let rows = db.query(&sql::open_reports(), params![limit]).await?;
    rows.iter().map(report_row).collect()
}

/// The reports made by or about `account`, newest first.
pub(super) async fn reports_about(db: &dyn Conn, account: &str) -> Result<Vec<Report>, StoreError> {
    let rows = db.query(&sql::reports_about(), params![account]).await?;
    rows.iter().map(report_row).collect()
}

/// Report `id`, if there is one.
pub(super) async fn report_by_id(db: &dyn Conn, id: &str) -> Result<Option<Report>, StoreError> {
    let rows = db.query(&sql::report(), params![id]).await?;
    rows.first().map(report_row).transpose()
}

/// A report read from [`sql::open_reports`]'s columns.
fn report_row(row: &Row) -> Result<Report, StoreError> {
    Ok(Report {
        id: row.get(0)?,
        reporter: row.get(1)?,
        reported: row.get(2)?,
        line: row
            .get::<Option<i64>>(3)?
            .and_then(|n| u64::try_from(n).ok()),
        room: row.get(4)?,
        text: row.get(5)?,
        reason: row.get(6)?,
        at: row.get(7)?,
        resolved_at: row.get(8)?,
        resolved_by: row.get(9)?,
    })
}

/// The audit log, newest first: entries before `before`, at most `limit`.
pub(super) async fn audit_log(
    db: &dyn Conn,
    before: i64,
    limit: usize,
) -> Result<Vec<Entry>, StoreError> {
    let rows = db.query(&sql::audit_log(), params![before, limit]).await?;
    rows.iter().map(entry_row).collect()
}

/// The entries of the audit log about `account`, newest first.
pub(super) async fn audit_of(db: &dyn Conn, account: &str) -> Result<Vec<Entry>, StoreError> {
    let rows = db.query(&sql::audit_of(), params![account]).await?;
    rows.iter().map(entry_row).collect()
}

/// An entry read from [`sql::audit_log`]'s columns.
fn entry_row(row: &Row) -> Result<Entry, StoreError> {
    Ok(Entry {
        id: row.get(0)?,
        at: row.get(1)?,
        moderator: row.get(2)?,
        action: row.get(3)?,
        account: row.get(4)?,
        room: row.get(5)?,
        line: row
            .get::<Option<i64>>(6)?
            .and_then(|n| u64::try_from(n).ok()),
        report: row.get(7)?,
        reason: row.get(8)?,
        until: row.get(9)?,
        role: row.get(10)?,
    })
}

/// Line `line` of chat, if it was kept.
pub(super) async fn chat_line(db: &dyn Conn, line: u64) -> Result<Option<StoredLine>, StoreError> {
    let rows = db.query(sql::CHAT_LINE, params![line_value(line)]).await?;
    rows.first()
        .map(|row| {
            Ok(StoredLine {
                room: row.get(0)?,
                account: row.get(1)?,
                removed: row.get(2)?,
            })
        })
        .transpose()
}

/// The unfinished rooms in which `account` holds a seat.
pub(super) async fn running_rooms_of(
    db: &dyn Conn,
    account: &str,
) -> Result<Vec<String>, StoreError> {
    let rows = db.query(sql::RUNNING_ROOMS_OF, params![account]).await?;
    rows.iter().map(|row| row.get(0)).collect()
}

/// Room `room`'s game will not be rated.
pub(super) async fn unrate(db: &dyn Conn, room: &str) -> Result<(), StoreError> {
    db.execute(sql::UNRATE_ROOM, params![room]).await?;
    Ok(())
}
