//! Accounts, their sessions and mail settings, written once for both databases. None of
//! these belongs to a room, so none needs a room's fence.

use punct_rules::Color;

use super::driver::{Conn, Row, params};
use super::error::StoreError;
use super::model::{
    Account, AccountId, Block, DELETED_PLAYER, LinkPurpose, MailSettings, NewAccount, Notice,
    SessionRow, text,
};
use super::sql;
use crate::secret::{TokenHash, uuid_v7};

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
        at,
        &account.language
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

/// How long a session's "last seen" may lag: it is written at most once a minute, not
/// on every request.
const SEEN_EVERY: i64 = 60_000;

/// Stores a session of `account` from `at` until `expires_at`, started by `user_agent`;
/// sessions of the account that ended by `at` are swept as new ones start.
pub(super) async fn create_session(
    db: &dyn Conn,
    token: TokenHash,
    account: &str,
    at: i64,
    expires_at: i64,
    user_agent: Option<&str>,
) -> Result<(), StoreError> {
    db.execute(sql::SWEEP_SESSIONS, params![account, at])
        .await?;
    let values = params![token, account, at, expires_at, user_agent];
    db.execute(sql::INSERT_SESSION, values).await?;
    Ok(())
}

/// The account of session `token`, if it is still valid at `at`; the session is seen
/// at `at`, if it was last seen over a minute before.
pub(super) async fn session(
    db: &dyn Conn,
    token: TokenHash,
    at: i64,
) -> Result<Option<Account>, StoreError> {
    let Some(row) = db
        .query_opt(sql::SESSION_ACCOUNT, params![token, at])
        .await?
    else {
        return Ok(None);
    };
    let seen: Option<i64> = row.get(2)?;
    if seen.is_none_or(|seen| at - seen >= SEEN_EVERY) {
        db.execute(sql::SEEN_SESSION, params![token, at]).await?;
    }
    account(&row).map(Some)
}

/// The account of the seat of room `room` whose token's hash is `token`, if the seat
/// has one.
pub(super) async fn seat_account(
    db: &dyn Conn,
    room: &str,
    token: TokenHash,
) -> Result<Option<AccountId>, StoreError> {
    let row = db
        .query_opt(sql::SEAT_ACCOUNT, params![room, token])
        .await?;
    Ok(row.map(|row| row.get(0)).transpose()?.flatten())
}

/// Whether account `account` was banned, and whether deleted; `None` without it.
pub(super) async fn account_ended(
    db: &dyn Conn,
    account: &str,
) -> Result<Option<(bool, bool)>, StoreError> {
    let Some(row) = db.query_opt(sql::ACCOUNT_ENDED, params![account]).await? else {
        return Ok(None);
    };
    let banned: Option<i64> = row.get(0)?;
    let deleted: Option<i64> = row.get(1)?;
    Ok(Some((banned.is_some(), deleted.is_some())))
}

/// Ends session `token`.
pub(super) async fn end_session(db: &dyn Conn, token: TokenHash) -> Result<(), StoreError> {
    db.execute(sql::DELETE_SESSION, params![token]).await?;
    Ok(())
}

/// Account `account`'s sessions still valid at `at`, oldest first.
pub(super) async fn sessions_of(
    db: &dyn Conn,
    account: &str,
    at: i64,
) -> Result<Vec<SessionRow>, StoreError> {
    let rows = db.query(sql::SESSIONS_OF, params![account, at]).await?;
    rows.iter()
        .map(|row| {
            Ok(SessionRow {
                token: row.get(0)?,
                user_agent: row.get(1)?,
                created_at: row.get(2)?,
                last_seen_at: row.get(3)?,
                expires_at: row.get(4)?,
            })
        })
        .collect()
}

/// Ends every session of account `account`.
pub(super) async fn end_sessions(db: &dyn Conn, account: &str) -> Result<(), StoreError> {
    db.execute(sql::END_SESSIONS, params![account]).await?;
    Ok(())
}

/// Account `account`'s password hash.
pub(super) async fn password_of(
    db: &dyn Conn,
    account: &str,
) -> Result<Option<String>, StoreError> {
    db.query_opt(sql::PASSWORD_OF, params![account])
        .await?
        .map(|row| row.get(0))
        .transpose()
}

/// Sets account `account`'s password hash, and ends its sessions but `keep`.
pub(super) async fn set_password(
    db: &dyn Conn,
    account: &str,
    hash: &str,
    keep: TokenHash,
) -> Result<(), StoreError> {
    db.execute(sql::SET_PASSWORD, params![account, hash])
        .await?;
    db.execute(sql::END_OTHER_SESSIONS, params![account, keep])
        .await?;
    Ok(())
}

/// Deletes account `account` at `at` (see `sql::DELETE_ACCOUNT`): its sessions, chat
/// lines, mail, blocks (made or under) and solved puzzles go, and it and its seats are named "deleted player N" from now on.
/// Answers that name; `None` if it was deleted already.
pub(super) async fn delete(
    db: &dyn Conn,
    account: &str,
    at: i64,
) -> Result<Option<String>, StoreError> {
    let number: i64 = db.query_one(sql::NEXT_DELETED_NUMBER, &[]).await?.get(0)?;
    let name = format!("{DELETED_PLAYER} {number}");
    let values = params![account, at, number, &name];
    if db.execute(sql::DELETE_ACCOUNT, values).await? == 0 {
        return Ok(None);
    }
    for color in [Color::White, Color::Black] {
        db.execute(&sql::rename_seats(color), params![account, &name])
            .await?;
    }
    let forgotten = [
        sql::END_SESSIONS,
        sql::DELETE_CHAT_OF,
        sql::DELETE_MAIL_OF,
        sql::DELETE_LINKS_OF,
        sql::DELETE_BLOCKS_OF,
        sql::DELETE_SIGN_INS_OF,
        sql::DELETE_SOLVED_OF,
    ];
    for forget in forgotten {
        db.execute(forget, params![account]).await?;
    }
    Ok(Some(name))
}

/// Account `blocker` blocks account `blocked` from `at` (again: nothing changes).
pub(super) async fn block(
    db: &dyn Conn,
    blocker: &str,
    blocked: &str,
    at: i64,
) -> Result<(), StoreError> {
    db.execute(sql::INSERT_BLOCK, params![blocker, blocked, at])
        .await?;
    Ok(())
}

/// Account `blocker` no longer blocks account `blocked`; false if it did not.
pub(super) async fn unblock(
    db: &dyn Conn,
    blocker: &str,
    blocked: &str,
) -> Result<bool, StoreError> {
    Ok(db
        .execute(sql::DELETE_BLOCK, params![blocker, blocked])
        .await?
        > 0)
}

/// The accounts `blocker` blocks, oldest block first.
pub(super) async fn blocks_of(db: &dyn Conn, blocker: &str) -> Result<Vec<Block>, StoreError> {
    let rows = db.query(sql::BLOCKS_OF, params![blocker]).await?;
    rows.iter()
        .map(|row| {
            Ok(Block {
                account: Account {
                    id: row.get(0)?,
                    username: row.get(1)?,
                },
                since: row.get(2)?,
            })
        })
        .collect()
}

/// Account `account` solved puzzle `puzzle` at `at` (again: nothing changes).
pub(super) async fn solve(
    db: &dyn Conn,
    account: &str,
    puzzle: &str,
    at: i64,
) -> Result<(), StoreError> {
    db.execute(sql::INSERT_SOLVED, params![account, puzzle, at])
        .await?;
    Ok(())
}

/// The puzzles `account` has solved, by id.
pub(super) async fn solved_of(db: &dyn Conn, account: &str) -> Result<Vec<String>, StoreError> {
    let rows = db.query(sql::SOLVED_OF, params![account]).await?;
    rows.iter().map(|row| row.get(0)).collect()
}

/// The accounts that block `blocked`.
pub(super) async fn blockers_of(
    db: &dyn Conn,
    blocked: &str,
) -> Result<Vec<AccountId>, StoreError> {
    let rows = db.query(sql::BLOCKERS_OF, params![blocked]).await?;
    rows.iter().map(|row| row.get(0)).collect()
}

/// Stores a link for `purpose` to `account`'s owner at `email`, good until
/// `expires_at`, and queues the mail that carries it, at `at`.
pub(super) async fn mail_link(
    db: &dyn Conn,
    account: &str,
    purpose: LinkPurpose,
    email: &str,
    at: i64,
    expires_at: i64,
) -> Result<(), StoreError> {
    let id = uuid_v7();
    let values = params![&id, account, text(&purpose), email, expires_at];
    db.execute(sql::INSERT_LINK, values).await?;
    let notice = Notice::Link {
        purpose,
        email: email.to_owned(),
    };
    let json = serde_json::to_string(&notice).expect("a notice serialises");
    db.execute(sql::QUEUE_ACCOUNT_MAIL, params![&id, account, json, at])
        .await?;
    Ok(())
}

/// Gives the link of mail `mail` the secret that hashes to `token`, if it is still good
/// at `at`; false if it is not (used, expired, or its account deleted).
pub(super) async fn arm_link(
    db: &dyn Conn,
    mail: &str,
    token: TokenHash,
    at: i64,
) -> Result<bool, StoreError> {
    Ok(db.execute(sql::ARM_LINK, params![mail, token, at]).await? > 0)
}

/// Uses the link whose secret hashes to `token`, if it is for `purpose` and good at
/// `at`; answers its account and address.
async fn use_link(
    db: &dyn Conn,
    token: TokenHash,
    purpose: LinkPurpose,
    at: i64,
) -> Result<Option<(String, String)>, StoreError> {
    db.query_opt(sql::USE_LINK, params![token, text(&purpose), at])
        .await?
        .map(|row| Ok((row.get(0)?, row.get(1)?)))
        .transpose()
}

/// Confirms the address of the `confirm` link whose secret hashes to `token`, if it is
/// good at `at`; false if it is not.
pub(super) async fn confirm_email(
    db: &dyn Conn,
    token: TokenHash,
    at: i64,
) -> Result<bool, StoreError> {
    let Some((account, email)) = use_link(db, token, LinkPurpose::Confirm, at).await? else {
        return Ok(false);
    };
    Ok(db
        .execute(sql::CONFIRM_EMAIL, params![account, email])
        .await?
        > 0)
}

/// Sets the password of the `reset` link whose secret hashes to `token`, if it is good
/// at `at`, to `hash`: every session of the account ends, and its other reset links
/// go. False if the link is not good.
pub(super) async fn reset_password(
    db: &dyn Conn,
    token: TokenHash,
    at: i64,
    hash: &str,
) -> Result<Option<AccountId>, StoreError> {
    let Some((account, _)) = use_link(db, token, LinkPurpose::Reset, at).await? else {
        return Ok(None);
    };
    db.execute(sql::SET_PASSWORD, params![&account, hash])
        .await?;
    db.execute(sql::END_SESSIONS, params![&account]).await?;
    let reset = text(&LinkPurpose::Reset);
    db.execute(sql::DELETE_LINKS, params![&account, reset])
        .await?;
    Ok(Some(account))
}

/// Whether account `account`'s address is confirmed.
pub(super) async fn email_confirmed(db: &dyn Conn, account: &str) -> Result<bool, StoreError> {
    Ok(db
        .query_opt(sql::EMAIL_CONFIRMED, params![account])
        .await?
        .map(|row| row.get(0))
        .transpose()?
        .unwrap_or(false))
}

/// The accounts whose confirmed address is `email`, each with the address as confirmed.
pub(super) async fn confirmed(
    db: &dyn Conn,
    email: &str,
) -> Result<Vec<(Account, String)>, StoreError> {
    let rows = db.query(sql::CONFIRMED, params![email]).await?;
    rows.iter()
        .map(|row| Ok((account(row)?, row.get(2)?)))
        .collect()
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
pub(super) async fn digests_due(db: &dyn Conn, since: i64) -> Result<Vec<Account>, StoreError> {
    let rows = db.query(sql::DIGESTS_DUE, params![since]).await?;
    rows.iter().map(account).collect()
}

/// Queues `account`'s digest at `now` if it had none since `since`; false if it had.
pub(super) async fn queue_digest(
    db: &dyn Conn,
    account: &str,
    since: i64,
    now: i64,
) -> Result<bool, StoreError> {
    if db
        .execute(sql::CLAIM_DIGEST, params![now, account, since])
        .await?
        == 0
    {
        return Ok(false);
    }
    let json = serde_json::to_string(&Notice::Digest).expect("a notice serialises");
    db.execute(
        sql::QUEUE_ACCOUNT_MAIL,
        params![uuid_v7(), account, json, now],
    )
    .await?;
    Ok(true)
}

/// Sets `account`'s language to `code`.
pub(super) async fn set_language(
    db: &dyn Conn,
    account: &str,
    code: &str,
) -> Result<(), StoreError> {
    db.execute(sql::SET_LANGUAGE, params![account, code])
        .await?;
    Ok(())
}

/// The language of the account whose username has `key`: `None` without the account,
/// `Some(None)` when it chose none.
pub(super) async fn language_by_key(
    db: &dyn Conn,
    key: &str,
) -> Result<Option<Option<String>>, StoreError> {
    db.query_opt(sql::LANGUAGE_BY_KEY, params![key])
        .await?
        .map(|row| row.get(0))
        .transpose()
}

/// An account read from its first two columns: id, username.
fn account(row: &Row) -> Result<Account, StoreError> {
    Ok(Account {
        id: row.get(0)?,
        username: row.get(1)?,
    })
}
