//! Accounts' mail addresses: the links mailed to confirm one or to set a new password,
//! what mail each account takes, and its daily digest.

use super::accounts::{END_SESSIONS, SET_PASSWORD};
use super::db::Store;
use super::driver::{Conn, FromRow, params};
use super::error::StoreError;
use super::model::{Account, AccountId, text};
use super::outbox::{LinkPurpose, MailSettings, Notice};
use crate::clock::now;
use crate::secret::{TokenHash, uuid_v7};

impl Store {
    /// Stores a link for `purpose` to `account`'s owner at `email`, good until
    /// `expires_at`, and queues the mail ([`Notice::Link`]) that carries it, in one
    /// transaction.
    pub(crate) async fn mail_link(
        &self,
        account: &str,
        purpose: LinkPurpose,
        email: String,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .atomic(move |db| {
                Box::pin(
                    async move { mail_link(db, &account, purpose, &email, at, expires_at).await },
                )
            })
            .await
    }

    /// Gives the link that mail `mail` carries the secret that hashes to `token`, as the
    /// mail is written; false if the link no longer works (it is then not sent).
    pub(crate) async fn arm_link(&self, mail: &str, token: TokenHash) -> Result<bool, StoreError> {
        let (mail, at) = (mail.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { arm_link(db, &mail, token, at).await }))
            .await
    }

    /// Confirms the address of the `confirm` link whose secret hashes to `token`, and
    /// uses the link up; false if it is used, expired or unknown.
    pub(crate) async fn confirm_email(&self, token: TokenHash) -> Result<bool, StoreError> {
        let at = now();
        self.db
            .atomic(move |db| Box::pin(confirm_email(db, token, at)))
            .await
    }

    /// Sets the password of the `reset` link whose secret hashes to `token` to `hash`,
    /// uses the link up and ends every session of the account, in one transaction;
    /// answers the account, or `None` if the link is used, expired or unknown.
    pub(crate) async fn reset_password(
        &self,
        token: TokenHash,
        hash: String,
    ) -> Result<Option<AccountId>, StoreError> {
        let at = now();
        self.db
            .atomic(move |db| Box::pin(async move { reset_password(db, token, at, &hash).await }))
            .await
    }

    /// Whether account `account`'s address is confirmed.
    pub(crate) async fn email_confirmed(&self, account: &str) -> Result<bool, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { email_confirmed(db, &account).await }))
            .await
    }

    /// The accounts whose confirmed address is `email` (in any case), each with the
    /// address as confirmed.
    pub(crate) async fn confirmed(
        &self,
        email: &str,
    ) -> Result<Vec<(Account, String)>, StoreError> {
        let email = email.to_owned();
        self.db
            .run(move |db| Box::pin(async move { confirmed(db, &email).await }))
            .await
    }

    /// Account `account`'s mail settings; `None` if there is no such account.
    pub(crate) async fn mail_settings(
        &self,
        account: &str,
    ) -> Result<Option<MailSettings>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { mail_settings(db, &account).await }))
            .await
    }

    /// Sets account `account`'s mail settings. Its unsubscribe secret is set only if it
    /// has none: once given, it stays, so that every link already mailed keeps working.
    pub(crate) async fn set_mail_settings(
        &self,
        account: &str,
        settings: MailSettings,
    ) -> Result<(), StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| {
                Box::pin(async move { set_mail_settings(db, &account, &settings).await })
            })
            .await
    }

    /// Whether an account has unsubscribe secret `secret`.
    pub(crate) async fn unsubscribe_known(&self, secret: &str) -> Result<bool, StoreError> {
        let secret = secret.to_owned();
        self.db
            .run(move |db| Box::pin(async move { unsubscribe_known(db, &secret).await }))
            .await
    }

    /// Turns off the mail of the account whose unsubscribe secret is `secret`; false if
    /// no account has it.
    pub(crate) async fn unsubscribe(&self, secret: &str) -> Result<bool, StoreError> {
        let secret = secret.to_owned();
        self.db
            .run(move |db| Box::pin(async move { unsubscribe(db, &secret).await }))
            .await
    }

    /// The accounts that take a daily digest and had none since `since`.
    pub(crate) async fn digests_due(&self, since: i64) -> Result<Vec<Account>, StoreError> {
        self.db
            .run(move |db| Box::pin(digests_due(db, since)))
            .await
    }

    /// Queues `account`'s digest ([`Notice::Digest`]) at `now` if it had none since
    /// `since`, in one transaction; false if it had (another node queued it).
    pub(crate) async fn queue_digest(
        &self,
        account: &str,
        since: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        let account = account.to_owned();
        self.db
            .atomic(move |db| Box::pin(async move { queue_digest(db, &account, since, now).await }))
            .await
    }
}

/// Stores a link for `purpose` to `account`'s owner at `email`, good until
/// `expires_at`, and queues the mail that carries it, at `at`.
async fn mail_link(
    db: &dyn Conn,
    account: &str,
    purpose: LinkPurpose,
    email: &str,
    at: i64,
    expires_at: i64,
) -> Result<(), StoreError> {
    let id = uuid_v7();
    let values = params![&id, account, text(&purpose), email, expires_at];
    db.execute(INSERT_LINK, values).await?;
    let notice = Notice::Link {
        purpose,
        email: email.to_owned(),
    };
    let json = serde_json::to_string(&notice).expect("a notice serialises");
    db.execute(QUEUE_ACCOUNT_MAIL, params![&id, account, json, at])
        .await?;
    Ok(())
}

/// Gives the link of mail `mail` the secret that hashes to `token`, if it is still good
/// at `at`; false if it is not (used, expired, or its account deleted).
async fn arm_link(
    db: &dyn Conn,
    mail: &str,
    token: TokenHash,
    at: i64,
) -> Result<bool, StoreError> {
    Ok(db.execute(ARM_LINK, params![mail, token, at]).await? > 0)
}

/// Uses the link whose secret hashes to `token`, if it is for `purpose` and good at
/// `at`; answers its account and address.
async fn use_link(
    db: &dyn Conn,
    token: TokenHash,
    purpose: LinkPurpose,
    at: i64,
) -> Result<Option<(String, String)>, StoreError> {
    db.query_opt(USE_LINK, params![token, text(&purpose), at])
        .await?
        .map(|row| Ok((row.get("account")?, row.get("email")?)))
        .transpose()
}

/// Confirms the address of the `confirm` link whose secret hashes to `token`, if it is
/// good at `at`; false if it is not.
async fn confirm_email(db: &dyn Conn, token: TokenHash, at: i64) -> Result<bool, StoreError> {
    let Some((account, email)) = use_link(db, token, LinkPurpose::Confirm, at).await? else {
        return Ok(false);
    };
    Ok(db.execute(CONFIRM_EMAIL, params![account, email]).await? > 0)
}

/// Sets the password of the `reset` link whose secret hashes to `token`, if it is good
/// at `at`, to `hash`: every session of the account ends, and its other reset links
/// go. False if the link is not good.
async fn reset_password(
    db: &dyn Conn,
    token: TokenHash,
    at: i64,
    hash: &str,
) -> Result<Option<AccountId>, StoreError> {
    let Some((account, _)) = use_link(db, token, LinkPurpose::Reset, at).await? else {
        return Ok(None);
    };
    db.execute(SET_PASSWORD, params![&account, hash]).await?;
    db.execute(END_SESSIONS, params![&account]).await?;
    let reset = text(&LinkPurpose::Reset);
    db.execute(DELETE_LINKS, params![&account, reset]).await?;
    Ok(Some(account))
}

/// Whether account `account`'s address is confirmed.
async fn email_confirmed(db: &dyn Conn, account: &str) -> Result<bool, StoreError> {
    Ok(db
        .query_opt(EMAIL_CONFIRMED, params![account])
        .await?
        .map(|row| row.get("email_confirmed"))
        .transpose()?
        .unwrap_or(false))
}

/// The accounts whose confirmed address is `email`, each with the address as confirmed.
async fn confirmed(db: &dyn Conn, email: &str) -> Result<Vec<(Account, String)>, StoreError> {
    let rows = db.query(CONFIRMED, params![email]).await?;
    rows.iter()
        .map(|row| Ok((Account::from_row(row)?, row.get("email")?)))
        .collect()
}

/// Account `account`'s mail settings; `None` if there is no such account.
async fn mail_settings(db: &dyn Conn, account: &str) -> Result<Option<MailSettings>, StoreError> {
    db.query_opt(NOTIFICATIONS, params![account])
        .await?
        .map(|row| MailSettings::from_row(&row))
        .transpose()
}

/// Sets account `account`'s mail settings; its unsubscribe secret only if it has none.
async fn set_mail_settings(
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
    db.execute(SET_NOTIFICATIONS, values).await?;
    Ok(())
}

/// Whether an account has unsubscribe secret `secret`.
async fn unsubscribe_known(db: &dyn Conn, secret: &str) -> Result<bool, StoreError> {
    Ok(db
        .query_opt(UNSUBSCRIBE_KNOWN, params![secret])
        .await?
        .is_some())
}

/// Turns off the mail of the account whose unsubscribe secret is `secret`; false if no
/// account has it.
async fn unsubscribe(db: &dyn Conn, secret: &str) -> Result<bool, StoreError> {
    Ok(db.execute(UNSUBSCRIBE, params![secret]).await? > 0)
}

/// The accounts that take a daily digest and had none since `since`.
async fn digests_due(db: &dyn Conn, since: i64) -> Result<Vec<Account>, StoreError> {
    let rows = db.query(DIGESTS_DUE, params![since]).await?;
    rows.iter().map(Account::from_row).collect()
}

/// Queues `account`'s digest at `now` if it had none since `since`; false if it had.
async fn queue_digest(
    db: &dyn Conn,
    account: &str,
    since: i64,
    now: i64,
) -> Result<bool, StoreError> {
    if db
        .execute(CLAIM_DIGEST, params![now, account, since])
        .await?
        == 0
    {
        return Ok(false);
    }
    let json = serde_json::to_string(&Notice::Digest).expect("a notice serialises");
    db.execute(QUEUE_ACCOUNT_MAIL, params![uuid_v7(), account, json, now])
        .await?;
    Ok(true)
}

/// Account `$1`'s mail settings: address, how often, the unsubscribe secret.
const NOTIFICATIONS: &str = "SELECT email, notify, unsubscribe FROM accounts WHERE id = $1";

/// Sets the mail settings (address, how often) of account `$3`, and gives it an
/// unsubscribe secret (`$4`) if it has none: the secret, once set, is kept, so that the
/// link in every mail already sent keeps working. A confirmed address stays confirmed
/// only if it is the same.
const SET_NOTIFICATIONS: &str =
    "UPDATE accounts SET email = $1, notify = $2, unsubscribe = COALESCE(unsubscribe, $4),
            email_confirmed = email_confirmed AND COALESCE(email = CAST($1 AS TEXT), FALSE)
     WHERE id = $3";

/// The account whose unsubscribe secret is `$1`, if one has it.
const UNSUBSCRIBE_KNOWN: &str = "SELECT 1 AS found FROM accounts WHERE unsubscribe = $1";

/// Turns off the mail of the account whose unsubscribe secret is `$1`.
const UNSUBSCRIBE: &str = "UPDATE accounts SET notify = 'off' WHERE unsubscribe = $1";

/// The accounts that take a daily digest and had none since `$1`: id, username.
const DIGESTS_DUE: &str = "SELECT id, username
     FROM accounts
     WHERE notify = 'digest' AND email IS NOT NULL
       AND (last_digest_at IS NULL OR last_digest_at < $1)";

/// Marks account `$2`'s digest queued at `$1`, if it had none since `$3`: a digest
/// queued by one node is not queued by another.
const CLAIM_DIGEST: &str = "UPDATE accounts SET last_digest_at = $1
     WHERE id = $2 AND (last_digest_at IS NULL OR last_digest_at < $3)";

/// A link carried by mail `$1` to account `$2` for `$3` (`confirm`, `reset`) at `$4`,
/// good until `$5`; its secret is made as the mail is written.
const INSERT_LINK: &str = "INSERT INTO mail_links (id, account, purpose, email, expires_at)
     VALUES ($1, $2, $3, $4, $5)";

/// The link of mail `$1`, still good at `$3`, has the secret that hashes to `$2` (that of
/// the mail being written: a mail sent again carries a new one, the old no longer works).
const ARM_LINK: &str = "UPDATE mail_links SET token = $2 WHERE id = $1 AND expires_at > $3";

/// Queues mail `$1` (notice `$3`, at `$4`) to account `$2`, about no room.
const QUEUE_ACCOUNT_MAIL: &str =
    "INSERT INTO mail_outbox (id, account, room, notice, queued_at, due_at)
     VALUES ($1, $2, '', $3, $4, $4)";

/// Uses the link whose secret hashes to `$1`, if it is for `$2` and good at `$3`: it is
/// deleted (it works once); answers its account and address.
const USE_LINK: &str = "DELETE FROM mail_links
     WHERE token = $1 AND purpose = $2 AND expires_at > $3 RETURNING account, email";

/// Forgets account `$1`'s links for `$2`.
const DELETE_LINKS: &str = "DELETE FROM mail_links WHERE account = $1 AND purpose = $2";

/// Whether account `$1`'s address is confirmed.
const EMAIL_CONFIRMED: &str = "SELECT email_confirmed FROM accounts WHERE id = $1";

/// Account `$1`'s address is `$2`, confirmed, unless the account was deleted.
const CONFIRM_EMAIL: &str =
    "UPDATE accounts SET email = $2, email_confirmed = TRUE WHERE id = $1 AND deleted_at IS NULL";

/// The accounts (id, username, the address as confirmed) whose confirmed address is
/// `$1`, in any case.
const CONFIRMED: &str = "SELECT id, username, email FROM accounts
     WHERE lower(email) = lower($1) AND email_confirmed AND deleted_at IS NULL";
