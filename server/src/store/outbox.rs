//! The mail outbox, written once for both databases. A mail is queued by the write that
//! causes it, in its transaction (`rooms`), and claimed, sent and marked done by the
//! mailer of whichever node claims it first.

use punct_rules::Color;

use super::driver::{Conn, params};
use super::error::StoreError;
use super::model::{Account, MailSettings, Notice, Outbound};
use super::sql;
use crate::secret::uuid_v7;

/// Queues `notice` about `room` at `at` to the player of `to`, if the room is a
/// correspondence game and the player takes such mail (see [`sql::queue_mail`]).
pub(super) async fn queue(
    db: &dyn Conn,
    room: &str,
    to: Color,
    notice: &Notice,
    at: i64,
) -> Result<(), StoreError> {
    let json = serde_json::to_string(notice).expect("a notice serialises");
    let values = params![uuid_v7(), json, at, room];
    db.execute(&sql::queue_mail(to, notice.each_only()), values)
        .await?;
    Ok(())
}

/// Queues `notice` as [`queue`] does, unless the outbox holds the same notice about
/// `room` already; answers whether it queued it.
pub(super) async fn queue_once(
    db: &dyn Conn,
    room: &str,
    to: Color,
    notice: &Notice,
    at: i64,
) -> Result<bool, StoreError> {
    let json = serde_json::to_string(notice).expect("a notice serialises");
    let values = params![uuid_v7(), json, at, room];
    let queued = db.execute(&sql::queue_mail_once(to), values).await?;
    Ok(queued > 0)
}

/// Claims for `claim` until `until` up to `limit` mails due at `now`; answers them,
/// oldest first.
pub(super) async fn claim(
    db: &dyn Conn,
    claim: &str,
    now: i64,
    until: i64,
    limit: usize,
) -> Result<Vec<Outbound>, StoreError> {
    db.execute(sql::CLAIM_MAIL, params![claim, until, now, limit])
        .await?;
    let rows = db.query(sql::CLAIMED_MAIL, params![claim]).await?;
    rows.iter()
        .map(|row| {
            let notice: String = row.get(2)?;
            Ok(Outbound {
                id: row.get(0)?,
                room: row.get(1)?,
                notice: serde_json::from_str(&notice)
                    .map_err(|e| StoreError::Corrupt(Box::new(e)))?,
                attempts: row.get(3)?,
                account: Account {
                    id: row.get(4)?,
                    username: row.get(5)?,
                },
                settings: MailSettings {
                    email: row.get(6)?,
                    mode: row.stored(7)?,
                    unsubscribe: row.get(8)?,
                },
                language: row.get(9)?,
            })
        })
        .collect()
}

/// Marks mail `id` done at `at`: sent, or given up for `error`.
pub(super) async fn done(
    db: &dyn Conn,
    id: &str,
    at: i64,
    error: Option<&str>,
) -> Result<(), StoreError> {
    db.execute(sql::MAIL_DONE, params![id, at, error]).await?;
    Ok(())
}

/// Counts a failed try of mail `id` (for `error`), to be tried again at `due_at`.
pub(super) async fn failed(
    db: &dyn Conn,
    id: &str,
    error: &str,
    due_at: i64,
) -> Result<(), StoreError> {
    db.execute(sql::MAIL_FAILED, params![id, error, due_at])
        .await?;
    Ok(())
}

/// Gives back the mails of `claim` not done yet, due again at `due_at`.
pub(super) async fn release(db: &dyn Conn, claim: &str, due_at: i64) -> Result<(), StoreError> {
    db.execute(sql::RELEASE_MAIL, params![claim, due_at])
        .await?;
    Ok(())
}

/// How many mails are not done yet, and when the oldest was queued.
pub(super) async fn backlog(db: &dyn Conn) -> Result<(usize, Option<i64>), StoreError> {
    let row = db.query_one(sql::MAIL_BACKLOG, &[]).await?;
    Ok((row.get(0)?, row.get(1)?))
}

/// Gives back the claims of node `node` (its tag) on mail not done yet.
pub(super) async fn release_of(db: &dyn Conn, node: u32) -> Result<u64, StoreError> {
    db.execute(sql::RELEASE_MAIL_OF, params![format!("{node}-%")])
        .await
}

/// Gives back every claim on mail not done yet.
pub(super) async fn release_all(db: &dyn Conn) -> Result<(), StoreError> {
    db.execute(sql::RELEASE_ALL_MAIL, &[]).await?;
    Ok(())
}

/// Forgets the mails done before `before` that nothing needs (see [`sql::PRUNE_MAIL`]);
/// answers how many.
pub(super) async fn prune(db: &dyn Conn, before: i64) -> Result<u64, StoreError> {
    db.execute(sql::PRUNE_MAIL, params![before]).await
}
