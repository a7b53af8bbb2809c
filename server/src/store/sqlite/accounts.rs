//! Accounts and sessions in SQLite.

use rusqlite::{ErrorCode, OptionalExtension, params};

use super::Sqlite;
use super::queries::stored;
use crate::store::model::{Account, DigestDue, MailSettings, NewAccount, TokenHash, now, text};
use crate::store::{StoreError, sql};

impl Sqlite {
    /// Stores a new account; false if its username's key is taken.
    pub(crate) async fn create_account(&self, account: NewAccount) -> Result<bool, StoreError> {
        self.call(move |db| {
            let inserted = db.execute(
                sql::INSERT_ACCOUNT,
                params![
                    account.id,
                    account.username,
                    account.key,
                    account.password,
                    now()
                ],
            );
            match inserted {
                Ok(_) => Ok(true),
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == ErrorCode::ConstraintViolation =>
                {
                    Ok(false)
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
    }

    /// The account whose username has `key`, and its password hash.
    pub(crate) async fn account_by_key(
        &self,
        key: &str,
    ) -> Result<Option<(Account, String)>, StoreError> {
        let key = key.to_owned();
        self.call(move |db| {
            Ok(db
                .prepare_cached(sql::ACCOUNT_BY_KEY)?
                .query_row(params![key], |row| {
                    Ok((
                        Account {
                            id: row.get(0)?,
                            username: row.get(1)?,
                        },
                        row.get(2)?,
                    ))
                })
                .optional()?)
        })
        .await
    }

    /// Stores a session of `account` until `expires_at`.
    pub(crate) async fn create_session(
        &self,
        token: TokenHash,
        account: &str,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        let account = account.to_owned();
        self.call(move |db| {
            // Sessions that ended are swept as new ones start.
            db.execute(sql::SWEEP_SESSIONS, params![account, now()])?;
            db.execute(
                sql::INSERT_SESSION,
                params![token, account, now(), expires_at],
            )?;
            Ok(())
        })
        .await
    }

    /// The account of session `token`, if it is still valid at `at`.
    pub(crate) async fn session(
        &self,
        token: TokenHash,
        at: i64,
    ) -> Result<Option<Account>, StoreError> {
        self.call(move |db| {
            Ok(db
                .prepare_cached(sql::SESSION_ACCOUNT)?
                .query_row(params![token, at], |row| {
                    Ok(Account {
                        id: row.get(0)?,
                        username: row.get(1)?,
                    })
                })
                .optional()?)
        })
        .await
    }

    /// Deletes session `token`.
    pub(crate) async fn end_session(&self, token: TokenHash) -> Result<(), StoreError> {
        self.call(move |db| {
            db.execute(sql::DELETE_SESSION, params![token])?;
            Ok(())
        })
        .await
    }

    /// Account `account`'s mail settings.
    pub(crate) async fn mail_settings(
        &self,
        account: String,
    ) -> Result<Option<MailSettings>, StoreError> {
        self.call(move |db| {
            Ok(db
                .query_row(sql::NOTIFICATIONS, params![account], |row| {
                    Ok(MailSettings {
                        email: row.get(0)?,
                        mode: stored(&row.get::<_, String>(1)?)?,
                        unsubscribe: row.get(2)?,
                    })
                })
                .optional()?)
        })
        .await
    }

    /// Sets account `account`'s mail settings.
    pub(crate) async fn set_mail_settings(
        &self,
        account: String,
        settings: MailSettings,
    ) -> Result<(), StoreError> {
        self.call(move |db| {
            db.execute(
                sql::SET_NOTIFICATIONS,
                params![
                    settings.email,
                    text(&settings.mode),
                    settings.unsubscribe,
                    account
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// Turns off the mail of the account whose unsubscribe secret is `secret`.
    pub(crate) async fn unsubscribe(&self, secret: String) -> Result<bool, StoreError> {
        self.call(move |db| Ok(db.execute(sql::UNSUBSCRIBE, params![secret])? > 0))
            .await
    }

    /// The accounts that take a daily digest and had none since `since`.
    pub(crate) async fn digests_due(&self, since: i64) -> Result<Vec<DigestDue>, StoreError> {
        self.call(move |db| {
            let mut query = db.prepare(sql::DIGESTS_DUE)?;
            let due = query
                .query_map(params![since], |row| {
                    Ok(DigestDue {
                        account: Account {
                            id: row.get(0)?,
                            username: row.get(1)?,
                        },
                        email: row.get(2)?,
                        unsubscribe: row.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
            Ok(due)
        })
        .await
    }

    /// Marks `account`'s digest sent at `now` if it had none since `since`.
    pub(crate) async fn claim_digest(
        &self,
        account: String,
        since: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.call(move |db| Ok(db.execute(sql::CLAIM_DIGEST, params![now, account, since])? > 0))
            .await
    }
}
