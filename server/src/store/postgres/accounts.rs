//! Accounts and sessions in PostgreSQL. Each change is one statement, run on the reading
//! connection outside the writer's batches: none of them belongs to a room, so none
//! needs the rooms' fences, and one statement commits alone.

use tokio_postgres::error::SqlState;

use super::Postgres;
use super::queries::stored;
use crate::store::model::{Account, DigestDue, MailSettings, NewAccount, TokenHash, now, text};
use crate::store::{StoreError, sql};

impl Postgres {
    /// Stores a new account; false if its username's key is taken.
    pub(crate) async fn create_account(&self, account: NewAccount) -> Result<bool, StoreError> {
        let db = self.reader().await?;
        let inserted = db
            .execute(
                sql::INSERT_ACCOUNT,
                &[
                    &account.id,
                    &account.username,
                    &account.key,
                    &account.password,
                    &now(),
                ],
            )
            .await;
        match inserted {
            Ok(_) => Ok(true),
            Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// The account whose username has `key`, and its password hash.
    pub(crate) async fn account_by_key(
        &self,
        key: &str,
    ) -> Result<Option<(Account, String)>, StoreError> {
        let db = self.reader().await?;
        let row = db.query_opt(sql::ACCOUNT_BY_KEY, &[&key]).await?;
        Ok(row.map(|row| {
            (
                Account {
                    id: row.get(0),
                    username: row.get(1),
                },
                row.get(2),
            )
        }))
    }

    /// Stores a session of `account` until `expires_at`.
    pub(crate) async fn create_session(
        &self,
        token: TokenHash,
        account: &str,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        let db = self.reader().await?;
        db.execute(sql::SWEEP_SESSIONS, &[&account, &now()]).await?;
        db.execute(
            sql::INSERT_SESSION,
            &[&token.as_slice(), &account, &now(), &expires_at],
        )
        .await?;
        Ok(())
    }

    /// The account of session `token`, if it is still valid at `at`.
    pub(crate) async fn session(
        &self,
        token: TokenHash,
        at: i64,
    ) -> Result<Option<Account>, StoreError> {
        let db = self.reader().await?;
        let row = db
            .query_opt(sql::SESSION_ACCOUNT, &[&token.as_slice(), &at])
            .await?;
        Ok(row.map(|row| Account {
            id: row.get(0),
            username: row.get(1),
        }))
    }

    /// Deletes session `token`.
    pub(crate) async fn end_session(&self, token: TokenHash) -> Result<(), StoreError> {
        let db = self.reader().await?;
        db.execute(sql::DELETE_SESSION, &[&token.as_slice()])
            .await?;
        Ok(())
    }

    /// Account `account`'s mail settings.
    pub(crate) async fn mail_settings(
        &self,
        account: String,
    ) -> Result<Option<MailSettings>, StoreError> {
        let db = self.reader().await?;
        let Some(row) = db.query_opt(sql::NOTIFICATIONS, &[&account]).await? else {
            return Ok(None);
        };
        Ok(Some(MailSettings {
            email: row.get(0),
            mode: stored(row.get(1))?,
            unsubscribe: row.get(2),
        }))
    }

    /// Sets account `account`'s mail settings.
    pub(crate) async fn set_mail_settings(
        &self,
        account: String,
        settings: MailSettings,
    ) -> Result<(), StoreError> {
        let db = self.reader().await?;
        db.execute(
            sql::SET_NOTIFICATIONS,
            &[
                &settings.email,
                &text(&settings.mode),
                &settings.unsubscribe,
                &account,
            ],
        )
        .await?;
        Ok(())
    }

    /// Turns off the mail of the account whose unsubscribe secret is `secret`.
    pub(crate) async fn unsubscribe(&self, secret: String) -> Result<bool, StoreError> {
        let db = self.reader().await?;
        Ok(db.execute(sql::UNSUBSCRIBE, &[&secret]).await? > 0)
    }

    /// The accounts that take a daily digest and had none since `since`.
    pub(crate) async fn digests_due(&self, since: i64) -> Result<Vec<DigestDue>, StoreError> {
        let db = self.reader().await?;
        let rows = db.query(sql::DIGESTS_DUE, &[&since]).await?;
        Ok(rows
            .iter()
            .map(|row| DigestDue {
                account: Account {
                    id: row.get(0),
                    username: row.get(1),
                },
                email: row.get(2),
                unsubscribe: row.get(3),
            })
            .collect())
    }

    /// Marks `account`'s digest sent at `now` if it had none since `since`.
    pub(crate) async fn claim_digest(
        &self,
        account: String,
        since: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        let db = self.reader().await?;
        Ok(db
            .execute(sql::CLAIM_DIGEST, &[&now, &account, &since])
            .await?
            > 0)
    }
}
