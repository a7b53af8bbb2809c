//! Accounts, their sessions and mail settings, written once for both databases. None of
//! these belongs to a room, so none needs a room's fence.

use super::driver::{Conn, Row, params};
use super::error::StoreError;
use super::model::{Account, DigestDue, MailSettings, NewAccount, text};
use super::sql;
use crate::secret::TokenHash;

/// Stores a new account, made at `at`; false if its username's key or look-alike key
/// is taken.
pub(super) async fn create(
    db: &dyn Conn,
    account: &NewAccount,
    at: i64,
) -> Result<bool, StoreError> {
    let values = params![
        &account.id,
        &account.username,
        &account.key,
        &account.lookalike,
        &account.password,
        at
    ];
    match db.execute(sql::INSERT_ACCOUNT, values).await {
        Ok(_) => Ok(true),
        Err(e) if e.is_unique_violation() => Ok(false),
        Err(e) => Err(e),
    }
}

/// The account whose username has `key`, and its password hash.
pub(super) async fn by_key(
    db: &dyn Conn,
    key: &str,
) -> Result<Option<(Account, String)>, StoreError> {
    db.query_opt(sql::ACCOUNT_BY_KEY, params![key])
        .await?
        .map(|row| Ok((account(&row)?, row.get(2)?)))
        .transpose()
}

/// Whether an account's username has the look-alike key `lookalike`.
pub(super) async fn lookalike_taken(db: &dyn Conn, lookalike: &str) -> Result<bool, StoreError> {
    Ok(db
        .query_opt(sql::LOOKALIKE_TAKEN, params![lookalike])
        .await?
        .is_some())
}

/// Stores a session of `account` from `at` until `expires_at`; sessions of the account
/// that ended by `at` are swept as new ones start.
pub(super) async fn create_session(
    db: &dyn Conn,
    token: TokenHash,
    account: &str,
    at: i64,
    expires_at: i64,
) -> Result<(), StoreError> {
    db.execute(sql::SWEEP_SESSIONS, params![account, at])
        .await?;
    db.execute(sql::INSERT_SESSION, params![token, account, at, expires_at])
        .await?;
    Ok(())
}

/// The account of session `token`, if it is still valid at `at`.
pub(super) async fn session(
    db: &dyn Conn,
    token: TokenHash,
    at: i64,
) -> Result<Option<Account>, StoreError> {
    db.query_opt(sql::SESSION_ACCOUNT, params![token, at])
        .await?
        .map(|row| account(&row))
        .transpose()
}

/// Ends session `token`.
pub(super) async fn end_session(db: &dyn Conn, token: TokenHash) -> Result<(), StoreError> {
    db.execute(sql::DELETE_SESSION, params![token]).await?;
    Ok(())
}

/// Account `account`'s mail settings; `None` if there is no such account.
pub(super) async fn mail_settings(
    db: &dyn Conn,
    account: &str,
) -> Result<Option<MailSettings>, StoreError> {
    db.query_opt(sql::NOTIFICATIONS, params![account])
        .await?
        .map(|row| {
            Ok(MailSettings {
                email: row.get(0)?,
                mode: row.stored(1)?,
                unsubscribe: row.get(2)?,
            })
        })
        .transpose()
}

/// Sets account `account`'s mail settings; its unsubscribe secret only if it has none.
pub(super) async fn set_mail_settings(
    db: &dyn Conn,
    account: &str,
    settings: &MailSettings,
) -> Result<(), StoreError> {
    let values = params![
        settings.email.as_deref(),
        text(&settings.mode),
        account,
        settings.unsubscribe.as_deref(),
    ];
    db.execute(sql::SET_NOTIFICATIONS, values).await?;
    Ok(())
}

/// Whether an account has unsubscribe secret `secret`.
pub(super) async fn unsubscribe_known(db: &dyn Conn, secret: &str) -> Result<bool, StoreError> {
    Ok(db
        .query_opt(sql::UNSUBSCRIBE_KNOWN, params![secret])
        .await?
        .is_some())
}

/// Turns off the mail of the account whose unsubscribe secret is `secret`; false if no
/// account has it.
pub(super) async fn unsubscribe(db: &dyn Conn, secret: &str) -> Result<bool, StoreError> {
    Ok(db.execute(sql::UNSUBSCRIBE, params![secret]).await? > 0)
}

/// The accounts that take a daily digest and had none since `since`.
pub(super) async fn digests_due(db: &dyn Conn, since: i64) -> Result<Vec<DigestDue>, StoreError> {
    let rows = db.query(sql::DIGESTS_DUE, params![since]).await?;
    rows.iter()
        .map(|row| {
            Ok(DigestDue {
                account: account(row)?,
                email: row.get(2)?,
                unsubscribe: row.get(3)?,
            })
        })
        .collect()
}

/// Marks `account`'s digest sent at `now` if it had none since `since`; false if it had.
pub(super) async fn claim_digest(
    db: &dyn Conn,
    account: &str,
    since: i64,
    now: i64,
) -> Result<bool, StoreError> {
    Ok(db
        .execute(sql::CLAIM_DIGEST, params![now, account, since])
        .await?
        > 0)
}

/// An account read from its first two columns: id, username.
fn account(row: &Row) -> Result<Account, StoreError> {
    Ok(Account {
        id: row.get(0)?,
        username: row.get(1)?,
    })
}
