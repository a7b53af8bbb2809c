//! Accounts, their names, passwords and sessions, written once for both databases. None
//! of these belongs to a room, so none needs a room's fence.

use punct_rules::Color;

use super::db::Store;
use super::driver::{Conn, FromRow, Row, params};
use super::error::StoreError;
use super::model::{Account, AccountId};
use crate::clock::now;
use crate::secret::TokenHash;

/// An account to create.
#[derive(Debug)]
pub(crate) struct NewAccount {
    /// Its id.
    pub(crate) id: AccountId,
    /// Its username, as registered.
    pub(crate) username: String,
    /// What no two usernames may share: see `accounts::username_key`.
    pub(crate) key: String,
    /// What no two usernames may share either: see `accounts::lookalike_key`.
    pub(crate) lookalike: String,
    /// Its password, hashed (a PHC string).
    pub(crate) password: String,
    /// The language its owner reads (`en`, `de`…), as their pages were when registering.
    pub(crate) language: String,
}

/// What a deleted account is named, before its number: "deleted player 7".
pub(crate) const DELETED_PLAYER: &str = "deleted player";

/// A session of an account, as the account's list of sessions shows it.
#[derive(Clone, Debug)]
pub(crate) struct SessionRow {
    /// Its secret's hash: which one the request asking holds.
    pub(crate) token: TokenHash,
    /// The `User-Agent` that started it, if one was sent.
    pub(crate) user_agent: Option<String>,
    /// When it started.
    pub(crate) created_at: i64,
    /// When it was last used (to the minute).
    pub(crate) last_seen_at: i64,
    /// When it ends.
    pub(crate) expires_at: i64,
}

impl Store {
    /// Stores a new account; false if its username's key or look-alike key is taken.
    pub(crate) async fn create_account(&self, account: NewAccount) -> Result<bool, StoreError> {
        let at = now();
        self.db
            .run(move |db| Box::pin(async move { create(db, &account, at).await }))
            .await
    }

    /// The account whose username has `key` (see `username_key`), and its
    /// password hash.
    pub(crate) async fn account_by_key(
        &self,
        key: &str,
    ) -> Result<Option<(Account, String)>, StoreError> {
        let key = key.to_owned();
        self.db
            .run(move |db| Box::pin(async move { by_key(db, &key).await }))
            .await
    }

    /// Sets the language account `account` reads to `code`.
    pub(crate) async fn set_language(&self, account: &str, code: &str) -> Result<(), StoreError> {
        let (account, code) = (account.to_owned(), code.to_owned());
        self.db
            .run(move |db| Box::pin(async move { set_language(db, &account, &code).await }))
            .await
    }

    /// The language of the account whose username has `key`: `None` without the
    /// account, `Some(None)` when it chose none.
    pub(crate) async fn language_by_key(
        &self,
        key: &str,
    ) -> Result<Option<Option<String>>, StoreError> {
        let key = key.to_owned();
        self.db
            .run(move |db| Box::pin(async move { language_by_key(db, &key).await }))
            .await
    }

    /// Whether an account's username has the look-alike key `lookalike` (see
    /// `lookalike_key`).
    pub(crate) async fn lookalike_taken(&self, lookalike: &str) -> Result<bool, StoreError> {
        let lookalike = lookalike.to_owned();
        self.db
            .run(move |db| Box::pin(async move { lookalike_taken(db, &lookalike).await }))
            .await
    }

    /// Stores a session of `account`, whose secret hashes to `token`, until `expires_at`
    /// (milliseconds since the Unix epoch), started by `user_agent`.
    pub(crate) async fn create_session(
        &self,
        token: TokenHash,
        account: &str,
        expires_at: i64,
        user_agent: Option<String>,
    ) -> Result<(), StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .run(move |db| {
                Box::pin(async move {
                    let agent = user_agent.as_deref();
                    create_session(db, token, &account, at, expires_at, agent).await
                })
            })
            .await
    }

    /// Account `account`'s sessions that have not ended, oldest first.
    pub(crate) async fn sessions_of(&self, account: &str) -> Result<Vec<SessionRow>, StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { sessions_of(db, &account, at).await }))
            .await
    }

    /// Ends every session of account `account`.
    pub(crate) async fn end_sessions(&self, account: &str) -> Result<(), StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { end_sessions(db, &account).await }))
            .await
    }

    /// The account of session `token`, if it has not expired by `at` nor been ended;
    /// the session is seen at `at` (written at most once a minute).
    pub(crate) async fn session(
        &self,
        token: TokenHash,
        at: i64,
    ) -> Result<Option<Account>, StoreError> {
        self.db
            .run(move |db| Box::pin(session(db, token, at)))
            .await
    }

    /// The account of the seat of room `room` whose token's hash is `token`, if there
    /// is such a seat and it has one.
    pub(crate) async fn seat_account(
        &self,
        room: &str,
        token: TokenHash,
    ) -> Result<Option<AccountId>, StoreError> {
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { seat_account(db, &room, token).await }))
            .await
    }

    /// Whether account `account` was banned, and whether deleted; `None` if there is no
    /// such account.
    pub(crate) async fn account_ended(
        &self,
        account: &str,
    ) -> Result<Option<(bool, bool)>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { account_ended(db, &account).await }))
            .await
    }

    /// Ends session `token`.
    pub(crate) async fn end_session(&self, token: TokenHash) -> Result<(), StoreError> {
        self.db
            .run(move |db| Box::pin(end_session(db, token)))
            .await
    }

    /// The password hash of account `account`; `None` if there is no such account (or
    /// it was deleted).
    pub(crate) async fn password_of(&self, account: &str) -> Result<Option<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { password_of(db, &account).await }))
            .await
    }

    /// Sets account `account`'s password hash to `hash`, and ends every session of the
    /// account but `keep`, in one transaction.
    pub(crate) async fn set_password(
        &self,
        account: &str,
        hash: String,
        keep: TokenHash,
    ) -> Result<(), StoreError> {
        let account = account.to_owned();
        self.db
            .atomic(move |db| {
                Box::pin(async move { set_password(db, &account, &hash, keep).await })
            })
            .await
    }

    /// Deletes account `account`: its sessions, chat lines, mail address and settings go;
    /// it and its seats are named "deleted player N" (N one more than the last deleted
    /// account's); its games, results and ratings stay. Answers that name; `None` if it
    /// was deleted already. Under the rating lock: no game of the account is rated
    /// halfway, and two deletions never take one number.
    pub(crate) async fn delete_account(&self, account: &str) -> Result<Option<String>, StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .exclusive(move |db| Box::pin(async move { delete(db, &account, at).await }))
            .await
    }
}

/// Stores a new account, made at `at`; false if its username's key or look-alike key
/// is taken.
async fn create(db: &dyn Conn, account: &NewAccount, at: i64) -> Result<bool, StoreError> {
    let values = params![
        &account.id,
        &account.username,
        &account.key,
        &account.lookalike,
        &account.password,
        at,
        &account.language
    ];
    match db.execute(INSERT_ACCOUNT, values).await {
        Ok(_) => Ok(true),
        Err(e) if e.is_unique_violation() => Ok(false),
        Err(e) => Err(e),
    }
}

/// The account whose username has `key`, and its password hash.
async fn by_key(db: &dyn Conn, key: &str) -> Result<Option<(Account, String)>, StoreError> {
    db.query_opt(ACCOUNT_BY_KEY, params![key])
        .await?
        .map(|row| Ok((Account::from_row(&row)?, row.get("password")?)))
        .transpose()
}

/// Whether an account's username has the look-alike key `lookalike`.
async fn lookalike_taken(db: &dyn Conn, lookalike: &str) -> Result<bool, StoreError> {
    Ok(db
        .query_opt(LOOKALIKE_TAKEN, params![lookalike])
        .await?
        .is_some())
}

/// How long a session's "last seen" may lag: it is written at most once a minute, not
/// on every request.
const SEEN_EVERY: i64 = 60_000;

/// Stores a session of `account` from `at` until `expires_at`, started by `user_agent`;
/// sessions of the account that ended by `at` are swept as new ones start.
async fn create_session(
    db: &dyn Conn,
    token: TokenHash,
    account: &str,
    at: i64,
    expires_at: i64,
    user_agent: Option<&str>,
) -> Result<(), StoreError> {
    db.execute(SWEEP_SESSIONS, params![account, at]).await?;
    let values = params![token, account, at, expires_at, user_agent];
    db.execute(INSERT_SESSION, values).await?;
    Ok(())
}

/// The account of session `token`, if it is still valid at `at`; the session is seen
/// at `at`, if it was last seen over a minute before.
async fn session(db: &dyn Conn, token: TokenHash, at: i64) -> Result<Option<Account>, StoreError> {
    let Some(row) = db.query_opt(SESSION_ACCOUNT, params![token, at]).await? else {
        return Ok(None);
    };
    let seen: Option<i64> = row.get("last_seen_at")?;
    if seen.is_none_or(|seen| at - seen >= SEEN_EVERY) {
        db.execute(SEEN_SESSION, params![token, at]).await?;
    }
    Account::from_row(&row).map(Some)
}

/// The account of the seat of room `room` whose token's hash is `token`, if the seat
/// has one.
async fn seat_account(
    db: &dyn Conn,
    room: &str,
    token: TokenHash,
) -> Result<Option<AccountId>, StoreError> {
    let row = db.query_opt(SEAT_ACCOUNT, params![room, token]).await?;
    Ok(row.map(|row| row.get("account")).transpose()?.flatten())
}

/// Whether account `account` was banned, and whether deleted; `None` without it.
async fn account_ended(db: &dyn Conn, account: &str) -> Result<Option<(bool, bool)>, StoreError> {
    let Some(row) = db.query_opt(ACCOUNT_ENDED, params![account]).await? else {
        return Ok(None);
    };
    let banned: Option<i64> = row.get("banned_at")?;
    let deleted: Option<i64> = row.get("deleted_at")?;
    Ok(Some((banned.is_some(), deleted.is_some())))
}

/// Ends session `token`.
async fn end_session(db: &dyn Conn, token: TokenHash) -> Result<(), StoreError> {
    db.execute(DELETE_SESSION, params![token]).await?;
    Ok(())
}

/// Account `account`'s sessions still valid at `at`, oldest first.
async fn sessions_of(db: &dyn Conn, account: &str, at: i64) -> Result<Vec<SessionRow>, StoreError> {
    let rows = db.query(SESSIONS_OF, params![account, at]).await?;
    rows.iter()
        .map(|row| {
            Ok(SessionRow {
                token: row.get("token")?,
                user_agent: row.get("user_agent")?,
                created_at: row.get("created_at")?,
                last_seen_at: row.get("last_seen_at")?,
                expires_at: row.get("expires_at")?,
            })
        })
        .collect()
}

/// Ends every session of account `account`.
async fn end_sessions(db: &dyn Conn, account: &str) -> Result<(), StoreError> {
    db.execute(END_SESSIONS, params![account]).await?;
    Ok(())
}

/// Account `account`'s password hash.
async fn password_of(db: &dyn Conn, account: &str) -> Result<Option<String>, StoreError> {
    db.query_opt(PASSWORD_OF, params![account])
        .await?
        .map(|row| row.get("password"))
        .transpose()
}

/// Sets account `account`'s password hash, and ends its sessions but `keep`.
async fn set_password(
    db: &dyn Conn,
    account: &str,
    hash: &str,
    keep: TokenHash,
) -> Result<(), StoreError> {
    db.execute(SET_PASSWORD, params![account, hash]).await?;
    db.execute(END_OTHER_SESSIONS, params![account, keep])
        .await?;
    Ok(())
}

/// Deletes account `account` at `at` (see `DELETE_ACCOUNT`): its sessions, chat
/// lines, mail, blocks (made or under), solved puzzles, puzzle results and puzzle rating
/// go, and it and its seats are named "deleted player N" from now on.
/// Answers that name; `None` if it was deleted already.
async fn delete(db: &dyn Conn, account: &str, at: i64) -> Result<Option<String>, StoreError> {
    let number: i64 = db
        .query_one(NEXT_DELETED_NUMBER, &[])
        .await?
        .get("number")?;
    let name = format!("{DELETED_PLAYER} {number}");
    let values = params![account, at, number, &name];
    if db.execute(DELETE_ACCOUNT, values).await? == 0 {
        return Ok(None);
    }
    for color in [Color::White, Color::Black] {
        db.execute(&rename_seats_sql(color), params![account, &name])
            .await?;
    }
    let forgotten = [
        END_SESSIONS,
        DELETE_CHAT_OF,
        DELETE_MAIL_OF,
        DELETE_LINKS_OF,
        DELETE_BLOCKS_OF,
        DELETE_SIGN_INS_OF,
        DELETE_SOLVED_OF,
        DELETE_ATTEMPTS_OF,
        DELETE_PUZZLE_PLAYER,
    ];
    for forget in forgotten {
        db.execute(forget, params![account]).await?;
    }
    Ok(Some(name))
}

/// Sets `account`'s language to `code`.
async fn set_language(db: &dyn Conn, account: &str, code: &str) -> Result<(), StoreError> {
    db.execute(SET_LANGUAGE, params![account, code]).await?;
    Ok(())
}

/// The language of the account whose username has `key`: `None` without the account,
/// `Some(None)` when it chose none.
async fn language_by_key(db: &dyn Conn, key: &str) -> Result<Option<Option<String>>, StoreError> {
    db.query_opt(LANGUAGE_BY_KEY, params![key])
        .await?
        .map(|row| row.get("language"))
        .transpose()
}

/// An account read from its columns `id` and `username`, as every query that answers
/// one names them.
impl FromRow for Account {
    fn from_row(row: &Row) -> Result<Account, StoreError> {
        Ok(Account {
            id: row.get("id")?,
            username: row.get("username")?,
        })
    }
}

/// The account of the seat of room `$1` whose token's hash is `$2`: a row whose one
/// column is null for a seat without one; none without such a seat.
const SEAT_ACCOUNT: &str =
    "SELECT CASE WHEN white_token = $2 THEN white_account ELSE black_account END AS account
     FROM rooms WHERE id = $1 AND (white_token = $2 OR black_token = $2)";

/// When account `$1` was banned and when deleted, each null if it was not.
const ACCOUNT_ENDED: &str = "SELECT banned_at, deleted_at FROM accounts WHERE id = $1";

/// Sets account `$1`'s language to `$2`.
const SET_LANGUAGE: &str = "UPDATE accounts SET language = $2 WHERE id = $1";

/// The language of the account whose username has key `$1`, unless deleted: a row
/// whose one column is null when none was chosen; none without the account.
const LANGUAGE_BY_KEY: &str =
    "SELECT language FROM accounts WHERE username_key = $1 AND deleted_at IS NULL";

/// A new account: id, username, its key, its look-alike key, password hash, when, its
/// language.
const INSERT_ACCOUNT: &str =
    "INSERT INTO accounts (id, username, username_key, username_lookalike, password, created_at,
                           language)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// The account whose username has key `$1`, unless deleted: id, username, password hash.
const ACCOUNT_BY_KEY: &str =
    "SELECT id, username, password FROM accounts WHERE username_key = $1 AND deleted_at IS NULL";

/// A row if an account's username has look-alike key `$1`.
const LOOKALIKE_TAKEN: &str = "SELECT 1 AS found FROM accounts WHERE username_lookalike = $1";

/// Forgets account `$1`'s sessions that ended by `$2`.
const SWEEP_SESSIONS: &str = "DELETE FROM sessions WHERE account = $1 AND expires_at <= $2";

/// A new session: its token's hash, account, when (also last seen), until when, the
/// `User-Agent` it was started with.
const INSERT_SESSION: &str =
    "INSERT INTO sessions (token, account, created_at, last_seen_at, expires_at, user_agent)
     VALUES ($1, $2, $3, $3, $4, $5)";

/// The account (id, username) of session `$1`, if it has not ended by `$2`, and when the
/// session was last seen (if ever recorded).
const SESSION_ACCOUNT: &str =
    "SELECT a.id, a.username, s.last_seen_at FROM sessions s JOIN accounts a ON a.id = s.account
     WHERE s.token = $1 AND s.expires_at > $2";

/// Session `$1` was seen at `$2`.
const SEEN_SESSION: &str = "UPDATE sessions SET last_seen_at = $2 WHERE token = $1";

/// Account `$1`'s sessions that have not ended by `$2`, oldest first: token hash,
/// `User-Agent`, when started, last seen, until when.
const SESSIONS_OF: &str =
    "SELECT token, user_agent, created_at, COALESCE(last_seen_at, created_at) AS last_seen_at,
            expires_at
     FROM sessions WHERE account = $1 AND expires_at > $2 ORDER BY created_at, token";

/// Ends every session of account `$1`.
pub(super) const END_SESSIONS: &str = "DELETE FROM sessions WHERE account = $1";

/// The number the next deleted account takes: one more than the last's.
const NEXT_DELETED_NUMBER: &str =
    "SELECT COALESCE(MAX(deleted_number), 0) + 1 AS number FROM accounts";

/// Deletes what account `$1` holds, at `$2`, as "deleted player `$3`" (`$4`, that name):
/// its password, mail address and settings go; its id stays, so that games, results and
/// ratings keep their player, and its username's keys stay, so that nobody can take the
/// name. Changes nothing if it was deleted already.
const DELETE_ACCOUNT: &str =
    "UPDATE accounts SET username = $4, password = '', email = NULL, notify = 'off',
            email_confirmed = FALSE, unsubscribe = NULL, last_digest_at = NULL, language = NULL,
            deleted_number = $3, deleted_at = $2
     WHERE id = $1 AND deleted_at IS NULL";

/// The name account `$1`'s seats show is `$2` now.
fn rename_seats_sql(color: punct_rules::Color) -> String {
    format!("UPDATE rooms SET {color}_name = $2 WHERE {color}_account = $1")
}

/// Forgets account `$1`'s lines of chat.
const DELETE_CHAT_OF: &str = "DELETE FROM chat WHERE account = $1";

/// Forgets every block account `$1` made or is under.
const DELETE_BLOCKS_OF: &str = "DELETE FROM blocks WHERE blocker = $1 OR blocked = $1";

/// Forgets account `$1`'s mail links.
const DELETE_LINKS_OF: &str = "DELETE FROM mail_links WHERE account = $1";

/// Forgets account `$1`'s mail, sent or not.
const DELETE_MAIL_OF: &str = "DELETE FROM mail_outbox WHERE account = $1";

/// Ends session `$1`.
const DELETE_SESSION: &str = "DELETE FROM sessions WHERE token = $1";

/// Account `$1`'s password hash.
const PASSWORD_OF: &str = "SELECT password FROM accounts WHERE id = $1";

/// Account `$1`'s password hash is `$2` now.
pub(super) const SET_PASSWORD: &str = "UPDATE accounts SET password = $2 WHERE id = $1";

/// Ends account `$1`'s sessions but `$2`.
const END_OTHER_SESSIONS: &str = "DELETE FROM sessions WHERE account = $1 AND token <> $2";

/// Forgets the puzzles account `$1` solved.
const DELETE_SOLVED_OF: &str = "DELETE FROM puzzles_solved WHERE account = $1";

/// Forgets account `$1`'s first result of each puzzle. (The puzzles' ratings it moved stay,
/// as a deleted account's games stay in its opponents' ratings.)
const DELETE_ATTEMPTS_OF: &str = "DELETE FROM puzzle_attempts WHERE account = $1";

/// Forgets account `$1`'s puzzle rating and best streak.
const DELETE_PUZZLE_PLAYER: &str = "DELETE FROM puzzle_players WHERE account = $1";

/// Forgets account `$1`'s sign-in addresses.
const DELETE_SIGN_INS_OF: &str = "DELETE FROM sign_ins WHERE account = $1";
