//! Accounts, sessions, and the names players give.
//!
//! - A username is 3 to 20 ASCII letters, digits, `-` and `_`, starting with a letter.
//!   Two usernames that differ only in case, `-` or `_` are the same account
//!   ([`username_key`]), and nobody can register one that passes for another's: a digit
//!   read as the letter it stands in for, `b0b` beside `bob` ([`lookalike_key`]).
//! - A password is hashed with Argon2id (`password`), and never logged.
//! - Signing in is rate-limited per address and per username, before any hashing. A
//!   username nobody has is checked against a dummy hash, so a failure takes as long
//!   whether the account exists or not.
//! - A session is a 128-bit random secret; the database keeps its SHA-256, as for seat
//!   tokens. It expires after `--session-lifetime`, and signing out deletes it.
//! - A name (what an anonymous player plays under) is 1 to 24 printable characters, and
//!   may not look like an account's username or the computer's name: compared by the
//!   same look-alike key, whatever its case, spacing, digits, small capitals, or letters
//!   from other scripts that look Latin (`ʙoʙ`, `ьоь`).
//! - Changing the password and deleting the account ask for the password, under the
//!   sign-in limits: a session alone (a borrowed laptop, a stolen cookie) is not enough.
//!   A new password signs out every other session.
//! - A link mailed to confirm an address or to set a forgotten password is a 128-bit
//!   secret made as the mail is written (`mail`) and kept as its SHA-256; it works once
//!   and for an hour, and is rate-limited per address asking and per recipient.
//!   "Forgot password" answers the same, at once, whether or not an account has the
//!   address: the lookup runs after the answer.
//! - A deleted account keeps its id, so that games, results and ratings keep their
//!   player, shown as "deleted player N", and its username's keys, so that nobody takes
//!   the name; all else it held goes (`Store::delete_account`).
//!
//! - A player may block another account until lifting the block: the blocked account
//!   cannot take a seat in a room the blocker created, and its chat does not reach the
//!   blocker. Rooms are told whom a member blocks as it enters (`room::Request`).
//!
//! `api::accounts` has the routes, `api::auth` how a request is signed in.

mod device;
mod names;
#[cfg(test)]
mod tests;

pub(crate) use device::device;
pub(crate) use names::{lookalike_key, username_key};

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use punct_protocol::{ErrorCode, Session};

use crate::clock::now;
use crate::errors::Refused;
use crate::i18n::Lang;
use crate::limits::Throttle;
use crate::password;
use crate::rating::Rating;
use crate::secret;
use crate::secret::{TokenHash, hash_token};
use crate::store::{
    Account, AccountId, Block, DELETED_PLAYER, LinkPurpose, NewAccount, PuzzlePlayed, PuzzlePlayer,
    SessionRow, Store, StoreError,
};

/// Longest username.
const MAX_USERNAME: usize = 20;
/// Shortest username.
const MIN_USERNAME: usize = 3;
/// Shortest password: NIST's floor for a password chosen by its user.
const MIN_PASSWORD: usize = 8;
/// Longest password: enough for any passphrase, short enough that hashing one costs
/// no more than any other.
const MAX_PASSWORD: usize = 128;
/// Longest name, in characters.
const MAX_NAME: usize = 24;
/// Links (to confirm an address, to set a new password) asked for a minute from one
/// address.
const LINKS_PER_ADDRESS: u32 = 10;
/// Links mailed a minute to one mail address, or for one account.
const LINKS_PER_RECIPIENT: u32 = 3;
/// How long a mailed link works.
pub(crate) const LINK_LIFETIME_MS: i64 = 3_600_000;
/// The longest mail address (RFC 5321's path limit).
const MAX_EMAIL: usize = 254;
/// Downloads of one account's data a minute.
const EXPORTS_PER_MINUTE: u32 = 2;
/// Most characters of a `User-Agent` kept: enough to tell the device.
const MAX_USER_AGENT: usize = 256;

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Refused {
        let error: &dyn std::error::Error = &e;
        tracing::error!(error, "accounts");
        Refused::new(
            ErrorCode::StorageFailed,
            "the database could not answer; try again",
        )
    }
}

/// Accounts and sessions, over the store.
#[derive(Debug)]
pub(crate) struct Accounts {
    store: Store,
    /// How long a session lasts.
    lifetime: Duration,
    /// Sign-in attempts per address.
    per_address: Throttle<IpAddr>,
    /// Sign-in attempts per username (by its key).
    per_account: Throttle<String>,
    /// Downloads of an account's data, per account: each reads every game it played.
    exports: Throttle<String>,
    /// Links mailed, per address asking (a flood of mail from one place).
    links_per_address: Throttle<IpAddr>,
    /// Links mailed, per mail address or account (a flood of mail to one inbox).
    links_per_recipient: Throttle<String>,
    /// The key of the hashes of sign-in addresses, read once.
    address_key: tokio::sync::OnceCell<TokenHash>,
}

impl Accounts {
    /// Accounts on `store`; sessions last `lifetime`; an address may try to sign in
    /// `per_address` times a minute, and anyone may try one username `per_account` times
    /// a minute (0: no limit).
    pub(crate) fn new(
        store: Store,
        lifetime: Duration,
        per_address: u32,
        per_account: u32,
    ) -> Arc<Accounts> {
        Arc::new(Accounts {
            store,
            lifetime,
            per_address: Throttle::per_minute(per_address),
            per_account: Throttle::per_minute(per_account),
            exports: Throttle::per_minute(EXPORTS_PER_MINUTE),
            links_per_address: Throttle::per_minute(LINKS_PER_ADDRESS),
            links_per_recipient: Throttle::per_minute(LINKS_PER_RECIPIENT),
            address_key: tokio::sync::OnceCell::new(),
        })
    }

    /// Registers `username` with `password`, its owner reading `language`, and signs in
    /// to it.
    pub(crate) async fn register(
        &self,
        username: &str,
        password: &str,
        language: Lang,
        from: IpAddr,
        user_agent: Option<&str>,
    ) -> Result<Session, Refused> {
        check_username(username)?;
        check_password(password)?;
        // Registering hashes a password: it counts against the address like signing in.
        if !self.per_address.allow(from) {
            return Err(too_many());
        }
        let hash = hash_password(password.to_owned()).await?;
        let account = NewAccount {
            id: secret::uuid_v7(),
            username: username.to_owned(),
            key: username_key(username),
            lookalike: lookalike_key(username),
            password: hash,
            language: language.code().to_owned(),
        };
        let id = account.id.clone();
        if !self.store.create_account(account).await? {
            return Err(Refused::new(
                ErrorCode::UsernameTaken,
                format!("an account named {username} (or nearly so) exists already"),
            ));
        }
        tracing::info!(account = %id, "account registered");
        let account = Account {
            id,
            username: username.to_owned(),
        };
        self.start_session(account, from, user_agent).await
    }

    /// The language `account`'s owner reads from now on, for their mail and the pages of
    /// the devices they sign in on.
    pub(crate) async fn set_language(
        &self,
        account: &Account,
        language: Lang,
    ) -> Result<(), Refused> {
        Ok(self
            .store
            .set_language(&account.id, language.code())
            .await?)
    }

    /// The language the owner of `username` reads, as they chose it; for an account that
    /// chose none (it registered before languages), `reading` becomes its language.
    pub(crate) async fn language(&self, username: &str, reading: Lang) -> Result<Lang, Refused> {
        let key = username_key(username);
        match self.store.language_by_key(&key).await? {
            Some(Some(code)) => Ok(Lang::parse(&code).unwrap_or(reading)),
            Some(None) => {
                if let Some((account, _)) = self.store.account_by_key(&key).await? {
                    self.set_language(&account, reading).await?;
                }
                Ok(reading)
            }
            None => Ok(reading),
        }
    }

    /// Signs in to `username` with `password`.
    pub(crate) async fn sign_in(
        &self,
        username: &str,
        password: &str,
        from: IpAddr,
        user_agent: Option<&str>,
    ) -> Result<Session, Refused> {
        let key = username_key(username);
        // Both limits are counted whether or not the account exists, and before any
        // hashing: a flood costs the server nothing and tells nothing.
        let address_ok = self.per_address.allow(from);
        let account_ok = self.per_account.allow(key.clone());
        if !(address_ok && account_ok) {
            return Err(too_many());
        }
        let found = self.store.account_by_key(&key).await?;
        let (account, hash) = match found {
            Some((account, hash)) => (Some(account), hash),
            None => (None, password::dummy_hash().await),
        };
        let right = password::verify(password.to_owned(), hash).await;
        match account {
            Some(account) if right => {
                let state = self.store.account_state(&account.id).await?;
                if state.is_some_and(|state| state.banned_at.is_some()) {
                    return Err(Refused::new(
                        ErrorCode::Banned,
                        "a moderator banned this account",
                    ));
                }
                self.start_session(account, from, user_agent).await
            }
            _ => Err(Refused::new(
                ErrorCode::BadCredentials,
                "no account has this username and password",
            )),
        }
    }

    /// Starts a session of `account`, keeping the start of `user_agent` to name the
    /// device in the list of sessions, and the keyed hash of the address it came `from`
    /// for moderators to compare.
    async fn start_session(
        &self,
        account: Account,
        from: IpAddr,
        user_agent: Option<&str>,
    ) -> Result<Session, Refused> {
        let key = self
            .address_key
            .get_or_try_init(|| self.store.address_key())
            .await?;
        let address = secret::hash_address(key, from);
        self.store.signed_in_from(&account.id, address).await?;
        let token = secret::token();
        let lifetime = i64::try_from(self.lifetime.as_millis()).unwrap_or(i64::MAX);
        let expires_at = now().saturating_add(lifetime);
        let user_agent = user_agent.map(|agent| agent.chars().take(MAX_USER_AGENT).collect());
        self.store
            .create_session(hash_token(&token), &account.id, expires_at, user_agent)
            .await?;
        Ok(Session {
            username: account.username,
            token,
            expires_at: u64::try_from(expires_at).unwrap_or(0),
        })
    }

    /// The ids of the puzzles `account` has solved, in order.
    pub(crate) async fn solved(&self, account: &Account) -> Result<Vec<String>, Refused> {
        Ok(self.store.solved_of(&account.id).await?)
    }

    /// `account` finished puzzle `puzzle` (an id of the page's puzzles), having `solved`
    /// it or not; the first result is rated.
    pub(crate) async fn play_puzzle(
        &self,
        account: &Account,
        puzzle: &str,
        solved: bool,
    ) -> Result<PuzzlePlayed, Refused> {
        Ok(self.store.play_puzzle(&account.id, puzzle, solved).await?)
    }

    /// `account`'s puzzle rating and best streak.
    pub(crate) async fn puzzle_player(&self, account: &Account) -> Result<PuzzlePlayer, Refused> {
        Ok(self.store.puzzle_player(&account.id).await?)
    }

    /// The rating of every puzzle played rated, by id.
    pub(crate) async fn puzzle_ratings(&self) -> Result<Vec<(String, Rating)>, Refused> {
        Ok(self.store.puzzle_ratings().await?)
    }

    /// `account` ended a streak of `streak` puzzles: its best streak now.
    pub(crate) async fn end_streak(&self, account: &Account, streak: u32) -> Result<u32, Refused> {
        Ok(self.store.end_streak(&account.id, streak).await?)
    }

    /// The accounts `account` blocks, oldest block first.
    pub(crate) async fn blocks(&self, account: &Account) -> Result<Vec<Block>, Refused> {
        Ok(self.store.blocks_of(&account.id).await?)
    }

    /// `account` blocks the account named `username` until it lifts the block.
    pub(crate) async fn block(&self, account: &Account, username: &str) -> Result<(), Refused> {
        let blocked = self.named(username).await?;
        if blocked.id == account.id {
            return Err(Refused::new(
                ErrorCode::BadRequest,
                "you cannot block yourself",
            ));
        }
        self.store.block(&account.id, &blocked.id).await?;
        tracing::info!(account = %account.id, blocked = %blocked.id, "blocked");
        Ok(())
    }

    /// `account` lifts its block of the account named `username`, if it had one.
    pub(crate) async fn unblock(&self, account: &Account, username: &str) -> Result<(), Refused> {
        let blocked = self.named(username).await?;
        if self.store.unblock(&account.id, &blocked.id).await? {
            tracing::info!(account = %account.id, blocked = %blocked.id, "block lifted");
        }
        Ok(())
    }

    /// The account named `username` (in any case or spelling its key allows), unless
    /// it was deleted.
    pub(crate) async fn named(&self, username: &str) -> Result<Account, Refused> {
        match self.store.account_by_key(&username_key(username)).await? {
            // A deleted account keeps its keys but has no password.
            Some((account, password)) if !password.is_empty() => Ok(account),
            _ => Err(Refused::new(
                ErrorCode::NoSuchPlayer,
                "no account has this username",
            )),
        }
    }

    /// The account of the session whose secret is `token`, if it has not expired or been
    /// signed out.
    pub(crate) async fn session(&self, token: &str) -> Result<Option<Account>, Refused> {
        Ok(self.store.session(hash_token(token), now()).await?)
    }

    /// Signs the session of `token` out: it is deleted.
    pub(crate) async fn sign_out(&self, token: &str) -> Result<(), Refused> {
        Ok(self.store.end_session(hash_token(token)).await?)
    }

    /// `account`'s sessions that have not ended, oldest first, the one of `token` (the
    /// one asking) marked.
    pub(crate) async fn sessions(
        &self,
        account: &Account,
        token: &str,
    ) -> Result<Vec<(SessionRow, bool)>, Refused> {
        let own = hash_token(token);
        let sessions = self.store.sessions_of(&account.id).await?;
        Ok(sessions
            .into_iter()
            .map(|session| {
                let current = session.token == own;
                (session, current)
            })
            .collect())
    }

    /// Whether `account` may download its data now: a few times a minute.
    pub(crate) fn may_export(&self, account: &Account) -> Result<(), Refused> {
        if self.exports.allow(account.id.clone()) {
            Ok(())
        } else {
            Err(Refused::new(
                ErrorCode::RateLimited,
                "the data was downloaded a moment ago; wait a minute",
            ))
        }
    }

    /// Signs out every session of `account`, the one asking too.
    pub(crate) async fn sign_out_everywhere(&self, account: &Account) -> Result<(), Refused> {
        self.store.end_sessions(&account.id).await?;
        tracing::info!(account = %account.id, "signed out everywhere");
        Ok(())
    }

    /// Changes `account`'s password from `old` to `new`, and signs out every session of
    /// the account but `token`'s (the one asking): whoever knew the old password is out.
    pub(crate) async fn change_password(
        &self,
        account: &Account,
        token: &str,
        old: &str,
        new: &str,
        from: IpAddr,
    ) -> Result<(), Refused> {
        check_password(new)?;
        self.check_password_of(account, old, from).await?;
        let hash = hash_password(new.to_owned()).await?;
        self.store
            .set_password(&account.id, hash, hash_token(token))
            .await?;
        tracing::info!(account = %account.id, "password changed");
        Ok(())
    }

    /// Deletes `account`, once its `password` is given (see `Store::delete_account`);
    /// answers the name it is shown under from now on.
    pub(crate) async fn delete(
        &self,
        account: &Account,
        password: &str,
        from: IpAddr,
    ) -> Result<String, Refused> {
        self.check_password_of(account, password, from).await?;
        // Deleted meanwhile (by another of its sessions): as if the password were wrong.
        let name = self.store.delete_account(&account.id).await?;
        let name = name.ok_or_else(|| {
            Refused::new(
                ErrorCode::BadCredentials,
                "this is not the account's password",
            )
        })?;
        tracing::info!(account = %account.id, "account deleted");
        Ok(name)
    }

    /// Mails `email` a link that confirms it as `account`'s address.
    pub(crate) async fn ask_confirmation(
        &self,
        account: &Account,
        email: &str,
        from: IpAddr,
    ) -> Result<(), Refused> {
        let email = check_email(email)?;
        self.may_mail(from, account.id.clone())?;
        self.mail_link(account, LinkPurpose::Confirm, email).await
    }

    /// "Forgot password": mails a link that sets a new password to every account whose
    /// confirmed address is `email`. Answers the same, as soon, whether or not one has
    /// it: the work is done after the answer.
    pub(crate) fn forgot_password(
        self: &Arc<Self>,
        email: &str,
        from: IpAddr,
    ) -> Result<(), Refused> {
        let email = check_email(email)?;
        self.may_mail(from, email.to_lowercase())?;
        let accounts = Arc::clone(self);
        tokio::spawn(async move {
            let found = match accounts.store.confirmed(&email).await {
                Ok(found) => found,
                Err(e) => {
                    let error: &dyn std::error::Error = &e;
                    return tracing::error!(error, "finding the accounts of an address");
                }
            };
            // To the address as confirmed, not as typed.
            for (account, email) in found {
                let mailed = accounts.mail_link(&account, LinkPurpose::Reset, email);
                if mailed.await.is_ok() {
                    tracing::info!(account = %account.id, "password reset link mailed");
                }
            }
        });
        Ok(())
    }

    /// Confirms the address the link of secret `token` was mailed to.
    pub(crate) async fn confirm_email(&self, token: &str) -> Result<(), Refused> {
        if self.store.confirm_email(hash_token(token)).await? {
            Ok(())
        } else {
            Err(bad_link())
        }
    }

    /// Sets a new password with the link of secret `token`: every session of the
    /// account ends (whoever had the old password is out). Answers the account's id.
    pub(crate) async fn reset_password(
        &self,
        token: &str,
        password: &str,
        from: IpAddr,
    ) -> Result<AccountId, Refused> {
        check_password(password)?;
        // It hashes a password: it counts against the address like signing in.
        if !self.per_address.allow(from) {
            return Err(too_many());
        }
        let hash = hash_password(password.to_owned()).await?;
        let account = self.store.reset_password(hash_token(token), hash).await?;
        account.ok_or_else(bad_link)
    }

    /// Whether a link may be mailed now, asked from `from` for `recipient`.
    fn may_mail(&self, from: IpAddr, recipient: String) -> Result<(), Refused> {
        let address_ok = self.links_per_address.allow(from);
        let recipient_ok = self.links_per_recipient.allow(recipient);
        if address_ok && recipient_ok {
            Ok(())
        } else {
            Err(Refused::new(
                ErrorCode::RateLimited,
                "too many mails asked for; wait a minute",
            ))
        }
    }

    /// Stores a link for `purpose` to `account`'s owner at `email`, and queues its mail.
    async fn mail_link(
        &self,
        account: &Account,
        purpose: LinkPurpose,
        email: String,
    ) -> Result<(), Refused> {
        let expires_at = now().saturating_add(LINK_LIFETIME_MS);
        self.store
            .mail_link(&account.id, purpose, email, expires_at)
            .await?;
        Ok(())
    }

    /// Whether `password` is `account`'s: checked as a sign-in is, under the same limits
    /// (a stolen session must not become a way to guess the password).
    async fn check_password_of(
        &self,
        account: &Account,
        password: &str,
        from: IpAddr,
    ) -> Result<(), Refused> {
        let address_ok = self.per_address.allow(from);
        let account_ok = self.per_account.allow(username_key(&account.username));
        if !(address_ok && account_ok) {
            return Err(too_many());
        }
        let hash = self.store.password_of(&account.id).await?;
        let right = match hash {
            Some(hash) => password::verify(password.to_owned(), hash).await,
            None => false,
        };
        if right {
            Ok(())
        } else {
            Err(Refused::new(
                ErrorCode::BadCredentials,
                "this is not the account's password",
            ))
        }
    }

    /// `name`, trimmed, if a player may play under it.
    pub(crate) async fn check_name(&self, name: &str) -> Result<String, Refused> {
        let name = name.trim();
        let bad = |why: &str| Refused::new(ErrorCode::BadName, why);
        let length = name.chars().count();
        if length == 0 || length > MAX_NAME {
            return Err(bad("a name is 1 to 24 characters"));
        }
        if name.chars().any(hidden) {
            return Err(bad("a name may not hold control or invisible characters"));
        }
        let key = lookalike_key(name);
        if key.is_empty() {
            return Err(bad("a name needs a letter or a digit"));
        }
        if key.starts_with(&lookalike_key("computer")) {
            return Err(bad("the computer's names are its own"));
        }
        if key.starts_with(&lookalike_key(DELETED_PLAYER)) {
            return Err(bad("this is how deleted accounts are named"));
        }
        if self.store.lookalike_taken(&key).await? {
            return Err(bad("this name is an account's; sign in to play under it"));
        }
        Ok(name.to_owned())
    }
}

/// Characters a name may not hold: controls, and the invisible ones that could make two
/// names look alike or reorder the text around them (zero-width, bidirectional).
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{00AD}')
}

fn check_username(username: &str) -> Result<(), Refused> {
    let ok = (MIN_USERNAME..=MAX_USERNAME).contains(&username.len())
        && username.starts_with(|c: char| c.is_ascii_alphabetic())
        && username
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    if ok {
        Ok(())
    } else {
        Err(Refused::new(
            ErrorCode::BadUsername,
            "a username is 3 to 20 ASCII letters, digits, - and _, starting with a letter",
        ))
    }
}

fn check_password(password: &str) -> Result<(), Refused> {
    if (MIN_PASSWORD..=MAX_PASSWORD).contains(&password.chars().count()) {
        Ok(())
    } else {
        Err(Refused::new(
            ErrorCode::BadPassword,
            "a password is 8 to 128 characters",
        ))
    }
}

/// `email`, trimmed, if it is a mail address.
pub(crate) fn check_email(email: &str) -> Result<String, Refused> {
    let email = email.trim();
    if email.len() > MAX_EMAIL || email.parse::<lettre::Address>().is_err() {
        return Err(Refused::new(
            ErrorCode::BadRequest,
            format!("'{email}' is not a mail address"),
        ));
    }
    Ok(email.to_owned())
}

/// The refusal of a mailed link that does not work.
fn bad_link() -> Refused {
    Refused::new(
        ErrorCode::BadRequest,
        "this link does not work: it was used, or is over an hour old; ask for another",
    )
}

fn too_many() -> Refused {
    Refused::new(
        ErrorCode::RateLimited,
        "too many attempts to sign in; wait a minute",
    )
}

/// `password` hashed for keeping, or why it could not be.
async fn hash_password(password: String) -> Result<String, Refused> {
    password::hash(password).await.ok_or_else(|| {
        Refused::new(
            ErrorCode::StorageFailed,
            "the password could not be hashed; try again",
        )
    })
}
