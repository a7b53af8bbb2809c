//! The mail outbox, written once for both databases. A mail is queued by the write that
//! causes it, in its transaction (`rooms`), and claimed, sent and marked done by the
//! mailer of whichever node claims it first.

use punct_rules::Color;

use super::db::{Db, Store};
use super::driver::{Conn, FromRow, Row, params};
use super::error::StoreError;
use super::model::Account;
use crate::clock::now;
use crate::secret::uuid_v7;

/// What a mailed link does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LinkPurpose {
    /// Confirms the address it was sent to as the account's.
    Confirm,
    /// Sets a new password ("forgot password").
    Reset,
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

/// An account's mail settings, from its columns `email`, `notify` and `unsubscribe`.
impl FromRow for MailSettings {
    fn from_row(row: &Row) -> Result<MailSettings, StoreError> {
        Ok(MailSettings {
            email: row.get("email")?,
            mode: row.stored("notify")?,
            unsubscribe: row.get("unsubscribe")?,
        })
    }
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

impl Store {
    /// Claims for `claim` (a node's, for `lease`) up to `limit` mails of the outbox that
    /// are due and held by no one; answers them, oldest first.
    pub(crate) async fn claim_mail(
        &self,
        claim: &str,
        lease: std::time::Duration,
        limit: usize,
    ) -> Result<Vec<Outbound>, StoreError> {
        let (claim, now) = (claim.to_owned(), now());
        let until = now.saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX));
        self.db
            .run(move |db| {
                Box::pin(async move { self::claim(db, &claim, now, until, limit).await })
            })
            .await
    }

    /// Marks mail `id` done: sent, or (with `error`) given up.
    pub(crate) async fn mail_done(
        &self,
        id: &str,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        let (id, at) = (id.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { done(db, &id, at, error.as_deref()).await }))
            .await
    }

    /// Counts a failed try of mail `id` (`error`), to be tried again at `due_at`.
    pub(crate) async fn mail_failed(
        &self,
        id: &str,
        error: String,
        due_at: i64,
    ) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { failed(db, &id, &error, due_at).await }))
            .await
    }

    /// Gives back, as a server starts, the claims on mail that a process gone holds: on
    /// SQLite every claim is one, as the file has one server; in a cluster on PostgreSQL
    /// claims lapse instead, as another node may be sending.
    pub(crate) async fn release_dead_claims(&self) -> Result<(), StoreError> {
        match &self.db {
            Db::Sqlite(db) => {
                db.call(|db| Box::pin(async move { release_all(db).await }))
                    .await
            }
            Db::Postgres(_) => Ok(()),
        }
    }

    /// Gives back the mail that node `node` (its tag), now dead, claimed and did not
    /// send, for the living to send at once; answers how many.
    pub(crate) async fn release_mail_of(&self, node: u32) -> Result<u64, StoreError> {
        self.db.run(move |db| Box::pin(release_of(db, node))).await
    }

    /// How many mails of the outbox are not done yet, and when the oldest was queued.
    pub(crate) async fn mail_backlog(&self) -> Result<(usize, Option<i64>), StoreError> {
        self.db.run(|db| Box::pin(backlog(db))).await
    }

    /// Forgets the mails sent or given up before `before` that nothing needs any more:
    /// those of finished games and links. Answers how many.
    pub(crate) async fn prune_mail(&self, before: i64) -> Result<u64, StoreError> {
        self.db.run(move |db| Box::pin(prune(db, before))).await
    }

    /// Gives back the mails of `claim` not done yet, for any node to send from `due_at`.
    pub(crate) async fn release_mail(&self, claim: &str, due_at: i64) -> Result<(), StoreError> {
        let claim = claim.to_owned();
        self.db
            .run(move |db| Box::pin(async move { release(db, &claim, due_at).await }))
            .await
    }
}

/// Queues `notice` about `room` at `at` to the player of `to`, if the room is a
/// correspondence game and the player takes such mail (see [`queue_mail_sql`]).
pub(super) async fn queue(
    db: &dyn Conn,
    room: &str,
    to: Color,
    notice: &Notice,
    at: i64,
) -> Result<(), StoreError> {
    let json = serde_json::to_string(notice).expect("a notice serialises");
    let values = params![uuid_v7(), json, at, room];
    db.execute(&queue_mail_sql(to, notice.each_only()), values)
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
    let queued = db.execute(&queue_mail_once_sql(to), values).await?;
    Ok(queued > 0)
}

/// Claims for `claim` until `until` up to `limit` mails due at `now`; answers them,
/// oldest first.
async fn claim(
    db: &dyn Conn,
    claim: &str,
    now: i64,
    until: i64,
    limit: usize,
) -> Result<Vec<Outbound>, StoreError> {
    db.execute(CLAIM_MAIL, params![claim, until, now, limit])
        .await?;
    let rows = db.query(CLAIMED_MAIL, params![claim]).await?;
    rows.iter()
        .map(|row| {
            let notice: String = row.get("notice")?;
            Ok(Outbound {
                id: row.get("mail")?,
                room: row.get("room")?,
                notice: serde_json::from_str(&notice)
                    .map_err(|e| StoreError::Corrupt(Box::new(e)))?,
                attempts: row.get("attempts")?,
                account: Account::from_row(row)?,
                settings: MailSettings::from_row(row)?,
                language: row.get("language")?,
            })
        })
        .collect()
}

/// Marks mail `id` done at `at`: sent, or given up for `error`.
async fn done(db: &dyn Conn, id: &str, at: i64, error: Option<&str>) -> Result<(), StoreError> {
    db.execute(MAIL_DONE, params![id, at, error]).await?;
    Ok(())
}

/// Counts a failed try of mail `id` (for `error`), to be tried again at `due_at`.
async fn failed(db: &dyn Conn, id: &str, error: &str, due_at: i64) -> Result<(), StoreError> {
    db.execute(MAIL_FAILED, params![id, error, due_at]).await?;
    Ok(())
}

/// Gives back the mails of `claim` not done yet, due again at `due_at`.
async fn release(db: &dyn Conn, claim: &str, due_at: i64) -> Result<(), StoreError> {
    db.execute(RELEASE_MAIL, params![claim, due_at]).await?;
    Ok(())
}

/// How many mails are not done yet, and when the oldest was queued.
async fn backlog(db: &dyn Conn) -> Result<(usize, Option<i64>), StoreError> {
    let row = db.query_one(MAIL_BACKLOG, &[]).await?;
    Ok((row.get("waiting")?, row.get("oldest")?))
}

/// Gives back the claims of node `node` (its tag) on mail not done yet.
async fn release_of(db: &dyn Conn, node: u32) -> Result<u64, StoreError> {
    db.execute(RELEASE_MAIL_OF, params![format!("{node}-%")])
        .await
}

/// Gives back every claim on mail not done yet.
async fn release_all(db: &dyn Conn) -> Result<(), StoreError> {
    db.execute(RELEASE_ALL_MAIL, &[]).await?;
    Ok(())
}

/// Forgets the mails done before `before` that nothing needs (see [`PRUNE_MAIL`]);
/// answers how many.
async fn prune(db: &dyn Conn, before: i64) -> Result<u64, StoreError> {
    db.execute(PRUNE_MAIL, params![before]).await
}

/// Queues mail `$1` (notice `$2`, at `$3`) to the player of `color` in room `$4`, if it
/// is a correspondence game and the player's account takes this mail: every mail if
/// `each_only`, else any mail at all.
fn queue_mail_sql(color: punct_rules::Color, each_only: bool) -> String {
    let modes = if each_only {
        "a.notify = 'each'"
    } else {
        "a.notify <> 'off'"
    };
    format!(
        "INSERT INTO mail_outbox (id, account, room, notice, queued_at, due_at)
         SELECT $1, a.id, r.id, $2, $3, $3
         FROM rooms r JOIN accounts a ON a.id = r.{color}_account
         WHERE r.id = $4 AND r.clock_days IS NOT NULL AND a.email IS NOT NULL AND {modes}"
    )
}

/// Queues mail `$1` as [`queue_mail_sql`] does (to any player who takes mail), unless the
/// outbox holds the same notice about the room already, sent or not.
fn queue_mail_once_sql(color: punct_rules::Color) -> String {
    format!(
        "{} AND NOT EXISTS (SELECT 1 FROM mail_outbox o WHERE o.room = r.id AND o.notice = $2)",
        queue_mail_sql(color, false)
    )
}

/// Claims for `$1` until `$2` up to `$4` mails due at `$3` that no one holds, oldest
/// first. `SKIP LOCKED`: nodes claiming together take different mails, none waits.
const CLAIM_MAIL: &str = "UPDATE mail_outbox SET claimed_by = $1, claimed_until = $2
     WHERE id IN (SELECT id FROM mail_outbox
                  WHERE done_at IS NULL AND due_at <= $3
                    AND (claimed_until IS NULL OR claimed_until < $3)
                  ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)";

/// The mails claim `$1` holds, oldest first: id, room, notice, tries, then the account's
/// id, username, address, mail mode, unsubscribe secret and language now.
const CLAIMED_MAIL: &str =
    "SELECT o.id AS mail, o.room, o.notice, o.attempts, a.id, a.username, a.email, a.notify,
            a.unsubscribe, a.language
     FROM mail_outbox o JOIN accounts a ON a.id = o.account
     WHERE o.claimed_by = $1 AND o.done_at IS NULL ORDER BY o.id";

/// Mail `$1` is done (sent, or not to be sent) at `$2`, for why `$3` if it was not sent.
const MAIL_DONE: &str =
    "UPDATE mail_outbox SET done_at = $2, error = $3, claimed_by = NULL, claimed_until = NULL
     WHERE id = $1";

/// Forgets the mails done (sent or given up) before `$1` that no later mail needs to
/// know of: those of finished games (nothing more is queued about them, nor checked
/// against them) and those about no game (links). An unfinished game keeps its own: a
/// reminder is queued once a move by checking what was queued before.
const PRUNE_MAIL: &str = "DELETE FROM mail_outbox
     WHERE done_at IS NOT NULL AND done_at < $1
       AND (room = '' OR room IN (SELECT id FROM rooms WHERE outcome IS NOT NULL))";

/// Mail `$1` failed (`$2` why): tried again at `$3`, by whoever claims it then.
const MAIL_FAILED: &str = "UPDATE mail_outbox SET attempts = attempts + 1, error = $2, due_at = $3,
            claimed_by = NULL, claimed_until = NULL
     WHERE id = $1";

/// The mails not done yet: how many, and when the oldest was queued.
const MAIL_BACKLOG: &str = "SELECT COUNT(*) AS waiting, MIN(queued_at) AS oldest
     FROM mail_outbox WHERE done_at IS NULL";

/// Gives back the claims on mail not done yet whose names match `$1` (a dead node's).
const RELEASE_MAIL_OF: &str = "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL
     WHERE claimed_by LIKE $1 AND done_at IS NULL";

/// Gives back every claim on mail not done yet.
const RELEASE_ALL_MAIL: &str = "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL
     WHERE claimed_by IS NOT NULL AND done_at IS NULL";

/// Gives back the mails of claim `$1` not done yet, for any node to send, from `$2`.
const RELEASE_MAIL: &str =
    "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL, due_at = $2
     WHERE claimed_by = $1 AND done_at IS NULL";
