//! Where rooms, seats (as hashes of their tokens), turns and results are kept: one
//! interface, two databases.
//!
//! - `sqlite`: one SQLite file (or memory), the embedded default: one server, no other
//!   service.
//! - `postgres`: PostgreSQL, for a cluster of servers sharing one database.
//!
//! Both commit whatever requests are waiting in one transaction (a group commit), and
//! answer a request only once its transaction is committed: a turn is acknowledged only
//! after it is on disk. A turn's (room, number) is unique, and a room's own writes name
//! the incarnation that loaded it: once another node has loaded the room, the old one's
//! writes are refused ([`StoreError::Fenced`]).
//!
//! # Layout
//!
//! - this file: [`Store`], which chooses the database from the setting, checks the lease
//!   before each write, reads the time, and sends each request down one of three paths
//!   (a room's group-committed write, a statement or two, a rating); and [`StoreError`];
//! - `schema`: the one list of migrations, in each database's spelling;
//! - `model`: what is stored, the same in both, and the decisions both make alike;
//! - `sql`: every statement, the same in both;
//! - `driver`: the seam between the queries and a database ([`driver::Conn`]), and the
//!   values that cross it;
//! - `rooms`, `accounts`, `ratings`, `outbox` (mail queued with the change that causes
//!   it): every query, written once against the seam;
//! - `tournaments`: tournaments, their entries and their rounds' pairings;
//! - `migrate`: copying a SQLite database into an empty PostgreSQL one;
//! - `sqlite/`, `postgres/`: each database's driver, transactions, and how it counts
//!   the migrations it has run.

mod accounts;
mod driver;
mod error;
mod migrate;
mod model;
mod moderation;
mod outbox;
mod postgres;
mod ratings;
mod rooms;
mod schema;
mod sql;
mod sqlite;
#[cfg(test)]
mod tests;
mod tournaments;

use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use punct_protocol::{ArchivedGame, ChatLine, TournamentState, TournamentSummary};
use punct_rules::{Color, Outcome, Turn, Variant};

use crate::clock::now;
use crate::lease::Lease;
use crate::rating::Standing;
use crate::secret::TokenHash;

pub(crate) use model::{
    Account, AccountId, AccountState, ArchiveCursor, Block, DELETED_PLAYER, Entry, LinkPurpose,
    MailSettings, NewAccount, NewEntry, NewPairing, NewReport, NewRoom, NewTournament, Notice,
    Outbound, Player, PlayerRecord, Rated, Report, Role, RoomRow, RunningOut, Sanction, SessionRow,
    SignIn, Stale, StoredEntry, StoredLine, StoredPairing, StoredRecord, StoredRoom, time_control,
    to_move,
};

use driver::{Answer, Conn};
pub(crate) use error::StoreError;
pub use migrate::Copied;
use postgres::Postgres;
use rooms::{Write, Written};
use sqlite::Sqlite;

/// A cheap handle on the database.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    /// The database.
    db: Db,
    /// How long each commit took, for `/metrics`.
    commits: Histogram,
    /// Checked before each write: a node of a cluster that lost its lease writes nothing.
    lease: Lease,
}

/// Which database: where the queries of `rooms`, `accounts` and `ratings` run.
#[derive(Clone, Debug)]
enum Db {
    /// The embedded SQLite file.
    Sqlite(Sqlite),
    /// PostgreSQL.
    Postgres(Postgres),
}

impl Db {
    /// Makes a room's `write` in the next group commit; answers once it is committed.
    async fn write(&self, write: Write) -> Result<Written, StoreError> {
        match self {
            Db::Sqlite(db) => {
                db.call(move |db| Box::pin(async move { write.run(db).await }))
                    .await
            }
            Db::Postgres(db) => db.write(write).await,
        }
    }

    /// Runs `work`: on SQLite in the next transaction (answered once it is committed),
    /// on PostgreSQL on a pooled connection, each statement committing alone.
    async fn run<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Db::Sqlite(db) => db.call(work).await,
            Db::Postgres(db) => db.call(work).await,
        }
    }

    /// Runs `work` in a transaction with no other rating beside it: on SQLite, as any
    /// job of its one thread; on PostgreSQL, under an advisory lock all nodes take.
    async fn exclusive<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Db::Sqlite(db) => db.call(work).await,
            Db::Postgres(db) => db.transaction(true, work).await,
        }
    }

    /// Runs `work` in one transaction: on SQLite, as any job of its one thread; on
    /// PostgreSQL, in a transaction of its own.
    async fn atomic<T: Send + 'static>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T> + Send + 'static,
    ) -> Result<T, StoreError> {
        match self {
            Db::Sqlite(db) => db.call(work).await,
            Db::Postgres(db) => db.transaction(false, work).await,
        }
    }
}

/// Whether `database` names a PostgreSQL database rather than a SQLite file.
pub(crate) fn is_postgres(database: &str) -> bool {
    database.starts_with("postgres://") || database.starts_with("postgresql://")
}

impl Store {
    /// Opens the database `database` names: a PostgreSQL URL (`postgres://…` or
    /// `postgresql://…`), a SQLite file path (created if need be), or SQLite in memory
    /// for `None` or `:memory:`. Its schema is brought up to date.
    pub(crate) async fn open(database: Option<&str>) -> Result<Store, StoreError> {
        // From half a millisecond to about two seconds.
        let commits = Histogram::new(exponential_buckets(0.0005, 2.0, 13));
        let db = match database {
            Some(url) if is_postgres(url) => {
                Db::Postgres(Postgres::open(url, commits.clone()).await?)
            }
            Some(":memory:") | None => Db::Sqlite(Sqlite::open(None, commits.clone())?),
            Some(path) => Db::Sqlite(Sqlite::open(
                Some(std::path::Path::new(path)),
                commits.clone(),
            )?),
        };
        Ok(Store {
            db,
            commits,
            lease: Lease::default(),
        })
    }

    /// Opens the SQLite file at `path` for a migration to copy, refusing it unless it
    /// can be read whole: never created, no server on it, its WAL folded in (see
    /// `Sqlite::open_whole`).
    pub(crate) fn open_whole(path: &std::path::Path) -> Result<Store, StoreError> {
        let commits = Histogram::new(exponential_buckets(0.0005, 2.0, 13));
        Ok(Store {
            db: Db::Sqlite(Sqlite::open_whole(path, commits.clone())?),
            commits,
            lease: Lease::default(),
        })
    }

    /// Closes the database after every request made before: on SQLite, the WAL is folded
    /// into the file and emptied, so that the file alone holds everything (it is what an
    /// operator copies); requests made after fail. PostgreSQL keeps its own log, and its
    /// connections close as the process ends.
    pub(crate) async fn close(&self) -> Result<(), StoreError> {
        match &self.db {
            Db::Sqlite(db) => db.close().await,
            Db::Postgres(_) => Ok(()),
        }
    }

    /// A new, empty store for a test: in memory, or a database of its own on a
    /// PostgreSQL server the tests start when `PUNCT_TEST_DATABASE=postgres`, so that the
    /// same tests check both.
    #[cfg(test)]
    pub(crate) async fn empty() -> Store {
        let postgres = std::env::var("PUNCT_TEST_DATABASE").is_ok_and(|db| db == "postgres");
        let url = postgres.then(|| punct_testing::Postgres::shared().database());
        Store::open(url.as_deref()).await.unwrap()
    }

    /// Runs the statement `sql` as it is, for a test that must reach past the store's
    /// methods (to see the database itself refuse it).
    #[cfg(test)]
    pub(crate) async fn execute_raw(&self, sql: &'static str) -> Result<u64, StoreError> {
        self.db
            .atomic(move |db| Box::pin(async move { db.execute(sql, &[]).await }))
            .await
    }

    /// The same database, written to only while `lease` is held.
    pub(crate) fn with_lease(self, lease: Lease) -> Store {
        Store { lease, ..self }
    }

    /// Refuses a write once the node has lost its lease: the rooms it held are being
    /// taken over by other nodes. (The incarnation fence refuses it in the database too,
    /// once one has.)
    fn leased(&self) -> Result<(), StoreError> {
        if self.lease.held() {
            Ok(())
        } else {
            Err(StoreError::Fenced)
        }
    }

    /// Makes a room's `write`, if the node holds its lease.
    async fn write(&self, write: Write) -> Result<Written, StoreError> {
        self.leased()?;
        self.db.write(write).await
    }

    /// The histogram of commit times.
    pub(crate) fn commit_times(&self) -> Histogram {
        self.commits.clone()
    }

    /// Answers once the database has run a query.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.db
            .run(|db| Box::pin(async move { db.query(sql::PING, &[]).await.map(drop) }))
            .await
    }

    /// Records a new room, its seats given out and its computer, in one transaction.
    pub(crate) async fn create_room(&self, room: NewRoom) -> Result<(), StoreError> {
        self.write(Write::CreateRoom { room, at: now() })
            .await
            .map(drop)
    }

    /// Records that the seat of `color` in `room` (run as `incarnation`) was given out to
    /// `player`; false if it was taken already.
    pub(crate) async fn take_seat(
        &self,
        room: &str,
        incarnation: u32,
        color: Color,
        token: TokenHash,
        player: Player,
    ) -> Result<bool, StoreError> {
        let write = Write::TakeSeat {
            room: room.to_owned(),
            incarnation,
            color,
            token,
            player,
        };
        Ok(self.write(write).await? == 1)
    }

    /// Records turn `number` of `room` (run as `incarnation`), the clocks after it
    /// (White's and Black's time left, in a timed game), the result if it ended the
    /// game, and queues the `mail` it causes, in one transaction.
    #[expect(
        clippy::too_many_arguments,
        reason = "a turn's parts, written as one row; a struct would only name them again"
    )]
    pub(crate) async fn turn(
        &self,
        room: &str,
        incarnation: u32,
        number: usize,
        turn: Turn,
        clocks: Option<[u64; 2]>,
        outcome: Option<Outcome>,
        mail: Vec<(Color, Notice)>,
    ) -> Result<(), StoreError> {
        let write = Write::Turn {
            room: room.to_owned(),
            incarnation,
            number,
            turn,
            clocks,
            outcome,
            mail,
            at: now(),
        };
        self.write(write).await.map(drop)
    }

    /// Takes back the turns of `room` (run as `incarnation`) after the first `played`;
    /// `clocks` (White's and Black's time left now, in a timed game) are stored as those
    /// after turn `played`, as if it had just been played, so that a room loaded later
    /// starts from them.
    pub(crate) async fn take_back(
        &self,
        room: &str,
        incarnation: u32,
        played: usize,
        clocks: Option<[u64; 2]>,
    ) -> Result<(), StoreError> {
        let write = Write::TakeBack {
            room: room.to_owned(),
            incarnation,
            played,
            clocks,
            at: now(),
        };
        self.write(write).await.map(drop)
    }

    /// Deletes `room` (run as `incarnation`), its turns and chat, if its game is not over
    /// and a seat is free; false otherwise.
    pub(crate) async fn cancel(&self, room: &str, incarnation: u32) -> Result<bool, StoreError> {
        let write = Write::Cancel {
            room: room.to_owned(),
            incarnation,
        };
        Ok(self.write(write).await? == 1)
    }

    /// Records that `room` (run as `incarnation`) ended off the board, and queues the
    /// `mail` that causes, in one transaction.
    pub(crate) async fn finish(
        &self,
        room: &str,
        incarnation: u32,
        outcome: Outcome,
        mail: Vec<(Color, Notice)>,
    ) -> Result<(), StoreError> {
        let write = Write::Finish {
            room: room.to_owned(),
            incarnation,
            outcome,
            mail,
            at: now(),
        };
        self.write(write).await.map(drop)
    }

    /// Loads `room` to run it, counting one more incarnation (which fences the writes of
    /// any earlier one); `None` if there is no such room.
    pub(crate) async fn load(&self, room: &str) -> Result<Option<StoredRoom>, StoreError> {
        self.leased()?;
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::load(db, &room).await }))
            .await
    }

    /// `room` as the lobby would show it, read only.
    pub(crate) async fn summary(&self, room: &str) -> Result<Option<RoomRow>, StoreError> {
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::summary(db, &room).await }))
            .await
    }

    /// The record of `room`, read only.
    pub(crate) async fn record(&self, room: &str) -> Result<Option<StoredRecord>, StoreError> {
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::record(db, &room).await }))
            .await
    }

    /// Up to `limit` public rooms whose game is not over, oldest first.
    pub(crate) async fn lobby(&self, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
        self.db
            .run(move |db| Box::pin(rooms::lobby(db, limit)))
            .await
    }

    /// The unfinished games in which `account` holds a seat, oldest first.
    pub(crate) async fn games_of(&self, account: &str) -> Result<Vec<RoomRow>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::games_of(db, &account).await }))
            .await
    }

    /// The rooms whose game is not over and that need a timer running: a timed game whose
    /// clock runs (the first turn is played), or a game where the computer is to move.
    pub(crate) async fn with_timers(&self) -> Result<Vec<String>, StoreError> {
        self.db.run(|db| Box::pin(rooms::with_timers(db))).await
    }

    /// The unfinished rooms gone stale (see `model::Activity::stale`), given the times of
    /// `open_before`, `abandoned_before` and `now` (milliseconds since the Unix epoch).
    pub(crate) async fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
        now: i64,
    ) -> Result<Vec<Stale>, StoreError> {
        self.db
            .run(move |db| Box::pin(rooms::stale(db, open_before, abandoned_before, now)))
            .await
    }

    /// The correspondence games whose player to move has a quarter of the move's days
    /// left or less at `now` (see `model::Activity::running_out`).
    pub(crate) async fn running_out(&self, now: i64) -> Result<Vec<RunningOut>, StoreError> {
        self.db
            .run(move |db| Box::pin(rooms::running_out(db, now)))
            .await
    }

    /// Queues `due`'s notice for its player, unless the outbox holds it already (it was
    /// queued at an earlier sweep); answers whether it queued it.
    pub(crate) async fn remind(&self, due: RunningOut) -> Result<bool, StoreError> {
        let at = now();
        // Under the lock every node takes, so that two nodes sweeping at once cannot both
        // find the reminder missing and queue it twice.
        self.db
            .exclusive(move |db| {
                Box::pin(async move {
                    outbox::queue_once(db, &due.room, due.color, &due.notice, at).await
                })
            })
            .await
    }

    /// Deletes or finishes the stale rooms of `stale` that have not been loaded since
    /// they were found (nor finished, nor had their seat taken); answers how many. With
    /// `mail`, the players of each correspondence game it finishes are mailed.
    pub(crate) async fn expire(&self, stale: Vec<Stale>, mail: bool) -> Result<usize, StoreError> {
        self.write(Write::Expire {
            stale,
            mail,
            at: now(),
        })
        .await
    }

    /// Stores a line of `room`'s chat, said by `account`'s player if signed in.
    pub(crate) async fn chat(
        &self,
        room: &str,
        line: &ChatLine,
        account: Option<String>,
    ) -> Result<u64, StoreError> {
        self.leased()?;
        let (room, line) = (room.to_owned(), line.clone());
        self.db
            .run(move |db| {
                Box::pin(async move { rooms::chat(db, &room, &line, account.as_deref()).await })
            })
            .await
    }

    /// Every room in which `account` took a seat, oldest first.
    pub(crate) async fn rooms_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::rooms_of(db, &account).await }))
            .await
    }

    /// Every line of chat `account` said, oldest first, each with its room.
    pub(crate) async fn chat_of(
        &self,
        account: &str,
    ) -> Result<Vec<(String, ChatLine)>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::chat_of(db, &account).await }))
            .await
    }

    /// Records whether `color`'s player in `room` mutes the opponent.
    pub(crate) async fn mute(
        &self,
        room: &str,
        color: Color,
        muted: bool,
    ) -> Result<(), StoreError> {
        self.leased()?;
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms::mute(db, &room, color, muted).await }))
            .await
    }

    /// Stores a new account; false if its username's key or look-alike key is taken.
    pub(crate) async fn create_account(&self, account: NewAccount) -> Result<bool, StoreError> {
        let at = now();
        self.db
            .run(move |db| Box::pin(async move { accounts::create(db, &account, at).await }))
            .await
    }

    /// The account whose username has `key` (see `accounts::username_key`), and its
    /// password hash.
    pub(crate) async fn account_by_key(
        &self,
        key: &str,
    ) -> Result<Option<(Account, String)>, StoreError> {
        let key = key.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::by_key(db, &key).await }))
            .await
    }

    /// Sets the language account `account` reads to `code`.
    pub(crate) async fn set_language(&self, account: &str, code: &str) -> Result<(), StoreError> {
        let (account, code) = (account.to_owned(), code.to_owned());
        self.db
            .run(move |db| {
                Box::pin(async move { accounts::set_language(db, &account, &code).await })
            })
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
            .run(move |db| Box::pin(async move { accounts::language_by_key(db, &key).await }))
            .await
    }

    /// Whether an account's username has the look-alike key `lookalike` (see
    /// `accounts::lookalike_key`).
    pub(crate) async fn lookalike_taken(&self, lookalike: &str) -> Result<bool, StoreError> {
        let lookalike = lookalike.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::lookalike_taken(db, &lookalike).await }))
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
                    accounts::create_session(db, token, &account, at, expires_at, agent).await
                })
            })
            .await
    }

    /// Account `account`'s sessions that have not ended, oldest first.
    pub(crate) async fn sessions_of(&self, account: &str) -> Result<Vec<SessionRow>, StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { accounts::sessions_of(db, &account, at).await }))
            .await
    }

    /// Ends every session of account `account`.
    pub(crate) async fn end_sessions(&self, account: &str) -> Result<(), StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::end_sessions(db, &account).await }))
            .await
    }

    /// The key of the hashes of sign-in addresses, made on first use.
    pub(crate) async fn address_key(&self) -> Result<TokenHash, StoreError> {
        self.db
            .atomic(|db| Box::pin(moderation::address_key(db)))
            .await
    }

    /// Account `account` signed in now from the address hashed to `address`.
    pub(crate) async fn signed_in_from(
        &self,
        account: &str,
        address: TokenHash,
    ) -> Result<(), StoreError> {
        let (account, at) = (account.to_owned(), now());
        self.db
            .run(move |db| {
                Box::pin(async move { moderation::signed_in_from(db, &account, address, at).await })
            })
            .await
    }

    /// The addresses `account` signed in from (hashed), most recent first.
    pub(crate) async fn sign_ins_of(&self, account: &str) -> Result<Vec<SignIn>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { moderation::sign_ins_of(db, &account).await }))
            .await
    }

    /// `account`'s role and sanctions; `None` if there is no such account.
    pub(crate) async fn account_state(
        &self,
        account: &str,
    ) -> Result<Option<AccountState>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { moderation::state_of(db, &account).await }))
            .await
    }

    /// Makes `sanction`, resolves the report `entry` answers and writes `entry` in the
    /// audit log, in one transaction.
    pub(crate) async fn act(&self, sanction: Sanction, entry: NewEntry) -> Result<(), StoreError> {
        let at = now();
        self.db
            .atomic(move |db| Box::pin(moderation::act(db, sanction, entry, at)))
            .await
    }

    /// Stores `report`; answers its id.
    pub(crate) async fn report(&self, report: NewReport) -> Result<String, StoreError> {
        let (id, at) = (crate::secret::uuid_v7(), now());
        let stored = id.clone();
        self.db
            .run(move |db| {
                Box::pin(async move { moderation::report(db, &stored, report, at).await })
            })
            .await?;
        Ok(id)
    }

    /// How many reports `reporter` made that no moderator resolved yet.
    pub(crate) async fn open_reports_by(&self, reporter: &str) -> Result<usize, StoreError> {
        let reporter = reporter.to_owned();
        self.db
            .run(move |db| {
                Box::pin(async move { moderation::open_reports_by(db, &reporter).await })
            })
            .await
    }

    /// The open reports, oldest first, at most `limit`.
    pub(crate) async fn open_reports(&self, limit: usize) -> Result<Vec<Report>, StoreError> {
        self.db
            .run(move |db| Box::pin(moderation::open_reports(db, limit)))
            .await
    }

    /// The reports made by or about `account`, newest first.
    pub(crate) async fn reports_about(&self, account: &str) -> Result<Vec<Report>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { moderation::reports_about(db, &account).await }))
            .await
    }

    /// Report `id`, if there is one.
    pub(crate) async fn report_by_id(&self, id: &str) -> Result<Option<Report>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { moderation::report_by_id(db, &id).await }))
            .await
    }

    /// The audit log, newest first: entries numbered below `before`, at most `limit`.
    pub(crate) async fn audit_log(
        &self,
        before: i64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        self.db
            .run(move |db| Box::pin(moderation::audit_log(db, before, limit)))
            .await
    }

    /// The entries of the audit log about `account`, newest first.
    pub(crate) async fn audit_of(&self, account: &str) -> Result<Vec<Entry>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { moderation::audit_of(db, &account).await }))
            .await
    }

    /// Line `line` of chat, if it is kept.
    pub(crate) async fn chat_line(&self, line: u64) -> Result<Option<StoredLine>, StoreError> {
        self.db
            .run(move |db| Box::pin(moderation::chat_line(db, line)))
            .await
    }

    /// The unfinished rooms in which `account` holds a seat.
    pub(crate) async fn running_rooms_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| {
                Box::pin(async move { moderation::running_rooms_of(db, &account).await })
            })
            .await
    }

    /// Room `room`'s game will not be rated (a moderator closes it).
    pub(crate) async fn unrate(&self, room: &str) -> Result<(), StoreError> {
        self.leased()?;
        let room = room.to_owned();
        self.db
            .run(move |db| Box::pin(async move { moderation::unrate(db, &room).await }))
            .await
    }

    /// Stores `tournament`, not started.
    pub(crate) async fn create_tournament(
        &self,
        tournament: NewTournament,
    ) -> Result<(), StoreError> {
        self.leased()?;
        let at = now();
        self.db
            .run(move |db| Box::pin(async move { tournaments::create(db, &tournament, at).await }))
            .await
    }

    /// Tournament `id`, as lists show it.
    pub(crate) async fn tournament(
        &self,
        id: &str,
    ) -> Result<Option<TournamentSummary>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { tournaments::tournament(db, &id).await }))
            .await
    }

    /// Up to `limit` tournaments in `state`: those not over the soonest to start first,
    /// the others the latest over first.
    pub(crate) async fn tournaments_in(
        &self,
        state: TournamentState,
        limit: usize,
    ) -> Result<Vec<TournamentSummary>, StoreError> {
        self.db
            .run(move |db| Box::pin(tournaments::tournaments_in(db, state, limit)))
            .await
    }

    /// The tournaments not over that are running or due to start by `at`.
    pub(crate) async fn tournaments_due(&self, at: i64) -> Result<Vec<String>, StoreError> {
        self.db
            .run(move |db| Box::pin(tournaments::due(db, at)))
            .await
    }

    /// Tournament `id` moves to `state` now (a finished or cancelled one is over now).
    pub(crate) async fn set_tournament_state(
        &self,
        id: &str,
        state: TournamentState,
    ) -> Result<(), StoreError> {
        self.leased()?;
        let (id, at) = (id.to_owned(), now());
        self.db
            .run(move |db| {
                Box::pin(async move { tournaments::set_state(db, &id, state, at).await })
            })
            .await
    }

    /// Account `account` enters tournament `id` now (again, if it had withdrawn).
    pub(crate) async fn enter(&self, id: &str, account: &str) -> Result<(), StoreError> {
        self.leased()?;
        let (id, account, at) = (id.to_owned(), account.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { tournaments::enter(db, &id, &account, at).await }))
            .await
    }

    /// Account `account` leaves tournament `id` before its start: its entry goes, so
    /// that the entries of a started tournament are the players it started with. False
    /// if it was not in it.
    pub(crate) async fn leave(&self, id: &str, account: &str) -> Result<bool, StoreError> {
        self.leased()?;
        let (id, account) = (id.to_owned(), account.to_owned());
        self.db
            .run(move |db| Box::pin(async move { tournaments::leave(db, &id, &account).await }))
            .await
    }

    /// Account `account` withdraws from tournament `id` (started) now: it is paired no
    /// more, and stays in the standings. False if it was not in it, or had withdrawn.
    pub(crate) async fn withdraw(&self, id: &str, account: &str) -> Result<bool, StoreError> {
        self.leased()?;
        let (id, account, at) = (id.to_owned(), account.to_owned(), now());
        self.db
            .run(move |db| {
                Box::pin(async move { tournaments::withdraw(db, &id, &account, at).await })
            })
            .await
    }

    /// Tournament `id`'s entries, in the order they joined.
    pub(crate) async fn entries(&self, id: &str) -> Result<Vec<StoredEntry>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { tournaments::entries(db, &id).await }))
            .await
    }

    /// Stores round `round` of tournament `id`, each game with its room, in one
    /// transaction: all of it or, if any of it fails (the round was stored already),
    /// nothing.
    pub(crate) async fn pair_round(
        &self,
        id: &str,
        round: u32,
        pairings: Vec<NewPairing>,
    ) -> Result<(), StoreError> {
        self.leased()?;
        let (id, at) = (id.to_owned(), now());
        self.db
            .atomic(move |db| {
                Box::pin(async move { tournaments::pair_round(db, &id, round, pairings, at).await })
            })
            .await
    }

    /// Tournament `id`'s pairings round by round, each with its game's result.
    pub(crate) async fn pairings(&self, id: &str) -> Result<Vec<StoredPairing>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { tournaments::pairings(db, &id).await }))
            .await
    }

    /// Account `blocker` blocks account `blocked` from now on, until lifted.
    pub(crate) async fn block(&self, blocker: &str, blocked: &str) -> Result<(), StoreError> {
        let (blocker, blocked, at) = (blocker.to_owned(), blocked.to_owned(), now());
        self.db
            .run(move |db| {
                Box::pin(async move { accounts::block(db, &blocker, &blocked, at).await })
            })
            .await
    }

    /// Account `blocker` no longer blocks account `blocked`; false if it did not.
    pub(crate) async fn unblock(&self, blocker: &str, blocked: &str) -> Result<bool, StoreError> {
        let (blocker, blocked) = (blocker.to_owned(), blocked.to_owned());
        self.db
            .run(move |db| Box::pin(async move { accounts::unblock(db, &blocker, &blocked).await }))
            .await
    }

    /// The accounts `blocker` blocks, oldest block first.
    pub(crate) async fn blocks_of(&self, blocker: &str) -> Result<Vec<Block>, StoreError> {
        let blocker = blocker.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::blocks_of(db, &blocker).await }))
            .await
    }

    /// Account `account` solved puzzle `puzzle` (now, unless it had before).
    pub(crate) async fn solve(&self, account: &str, puzzle: &str) -> Result<(), StoreError> {
        let (account, puzzle, at) = (account.to_owned(), puzzle.to_owned(), now());
        self.db
            .run(move |db| {
                Box::pin(async move { accounts::solve(db, &account, &puzzle, at).await })
            })
            .await
    }

    /// The puzzles `account` has solved, by id.
    pub(crate) async fn solved_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::solved_of(db, &account).await }))
            .await
    }

    /// The accounts that block `blocked`.
    pub(crate) async fn blockers_of(&self, blocked: &str) -> Result<Vec<AccountId>, StoreError> {
        let blocked = blocked.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::blockers_of(db, &blocked).await }))
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
            .run(move |db| Box::pin(accounts::session(db, token, at)))
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
            .run(move |db| Box::pin(async move { accounts::seat_account(db, &room, token).await }))
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
            .run(move |db| Box::pin(async move { accounts::account_ended(db, &account).await }))
            .await
    }

    /// Ends session `token`.
    pub(crate) async fn end_session(&self, token: TokenHash) -> Result<(), StoreError> {
        self.db
            .run(move |db| Box::pin(accounts::end_session(db, token)))
            .await
    }

    /// The password hash of account `account`; `None` if there is no such account (or
    /// it was deleted).
    pub(crate) async fn password_of(&self, account: &str) -> Result<Option<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::password_of(db, &account).await }))
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
                Box::pin(async move { accounts::set_password(db, &account, &hash, keep).await })
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
            .exclusive(move |db| Box::pin(async move { accounts::delete(db, &account, at).await }))
            .await
    }

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
                Box::pin(async move {
                    accounts::mail_link(db, &account, purpose, &email, at, expires_at).await
                })
            })
            .await
    }

    /// Gives the link that mail `mail` carries the secret that hashes to `token`, as the
    /// mail is written; false if the link no longer works (it is then not sent).
    pub(crate) async fn arm_link(&self, mail: &str, token: TokenHash) -> Result<bool, StoreError> {
        let (mail, at) = (mail.to_owned(), now());
        self.db
            .run(move |db| Box::pin(async move { accounts::arm_link(db, &mail, token, at).await }))
            .await
    }

    /// Confirms the address of the `confirm` link whose secret hashes to `token`, and
    /// uses the link up; false if it is used, expired or unknown.
    pub(crate) async fn confirm_email(&self, token: TokenHash) -> Result<bool, StoreError> {
        let at = now();
        self.db
            .atomic(move |db| Box::pin(accounts::confirm_email(db, token, at)))
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
            .atomic(move |db| {
                Box::pin(async move { accounts::reset_password(db, token, at, &hash).await })
            })
            .await
    }

    /// Whether account `account`'s address is confirmed.
    pub(crate) async fn email_confirmed(&self, account: &str) -> Result<bool, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::email_confirmed(db, &account).await }))
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
            .run(move |db| Box::pin(async move { accounts::confirmed(db, &email).await }))
            .await
    }

    /// Account `account`'s mail settings; `None` if there is no such account.
    pub(crate) async fn mail_settings(
        &self,
        account: &str,
    ) -> Result<Option<MailSettings>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::mail_settings(db, &account).await }))
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
                Box::pin(async move { accounts::set_mail_settings(db, &account, &settings).await })
            })
            .await
    }

    /// Whether an account has unsubscribe secret `secret`.
    pub(crate) async fn unsubscribe_known(&self, secret: &str) -> Result<bool, StoreError> {
        let secret = secret.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::unsubscribe_known(db, &secret).await }))
            .await
    }

    /// Turns off the mail of the account whose unsubscribe secret is `secret`; false if
    /// no account has it.
    pub(crate) async fn unsubscribe(&self, secret: &str) -> Result<bool, StoreError> {
        let secret = secret.to_owned();
        self.db
            .run(move |db| Box::pin(async move { accounts::unsubscribe(db, &secret).await }))
            .await
    }

    /// The accounts that take a daily digest and had none since `since`.
    pub(crate) async fn digests_due(&self, since: i64) -> Result<Vec<Account>, StoreError> {
        self.db
            .run(move |db| Box::pin(accounts::digests_due(db, since)))
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
            .atomic(move |db| {
                Box::pin(async move { accounts::queue_digest(db, &account, since, now).await })
            })
            .await
    }

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
                Box::pin(async move { outbox::claim(db, &claim, now, until, limit).await })
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
            .run(move |db| {
                Box::pin(async move { outbox::done(db, &id, at, error.as_deref()).await })
            })
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
            .run(move |db| Box::pin(async move { outbox::failed(db, &id, &error, due_at).await }))
            .await
    }

    /// Gives back, as a server starts, the claims on mail that a process gone holds: on
    /// SQLite every claim is one, as the file has one server; in a cluster on PostgreSQL
    /// claims lapse instead, as another node may be sending.
    pub(crate) async fn release_dead_claims(&self) -> Result<(), StoreError> {
        match &self.db {
            Db::Sqlite(db) => {
                db.call(|db| Box::pin(async move { outbox::release_all(db).await }))
                    .await
            }
            Db::Postgres(_) => Ok(()),
        }
    }

    /// Gives back the mail that node `node` (its tag), now dead, claimed and did not
    /// send, for the living to send at once; answers how many.
    pub(crate) async fn release_mail_of(&self, node: u32) -> Result<u64, StoreError> {
        self.db
            .run(move |db| Box::pin(outbox::release_of(db, node)))
            .await
    }

    /// How many mails of the outbox are not done yet, and when the oldest was queued.
    pub(crate) async fn mail_backlog(&self) -> Result<(usize, Option<i64>), StoreError> {
        self.db.run(|db| Box::pin(outbox::backlog(db))).await
    }

    /// Forgets the mails sent or given up before `before` that nothing needs any more:
    /// those of finished games and links. Answers how many.
    pub(crate) async fn prune_mail(&self, before: i64) -> Result<u64, StoreError> {
        self.db
            .run(move |db| Box::pin(outbox::prune(db, before)))
            .await
    }

    /// Gives back the mails of `claim` not done yet, for any node to send from `due_at`.
    pub(crate) async fn release_mail(&self, claim: &str, due_at: i64) -> Result<(), StoreError> {
        let claim = claim.to_owned();
        self.db
            .run(move |db| Box::pin(async move { outbox::release(db, &claim, due_at).await }))
            .await
    }

    /// Rates `room` if it is a finished rated game between two accounts, both of whom
    /// played a turn, and has not been rated yet; answers what it did.
    pub(crate) async fn rate_game(&self, room: &str) -> Result<Option<[Rated; 2]>, StoreError> {
        let room = room.to_owned();
        self.db
            .exclusive(move |db| Box::pin(async move { ratings::rate(db, &room).await }))
            .await
    }

    /// The finished rated games not rated yet (rating them failed), oldest first.
    pub(crate) async fn unrated_games(&self) -> Result<Vec<String>, StoreError> {
        self.db.run(|db| Box::pin(ratings::unrated_games(db))).await
    }

    /// Rebuilds every rating, and what each game did to them, by replaying the rated
    /// games in the order they were rated; answers how many games.
    pub(crate) async fn rebuild_ratings(&self) -> Result<usize, StoreError> {
        self.db.exclusive(|db| Box::pin(ratings::rebuild(db))).await
    }

    /// The page of the account whose username has `key`.
    pub(crate) async fn player(&self, key: &str) -> Result<Option<PlayerRecord>, StoreError> {
        let key = key.to_owned();
        self.db
            .run(move |db| Box::pin(async move { ratings::player(db, &key).await }))
            .await
    }

    /// Up to `limit` players of `variant` whose stored deviation is at most `deviation`,
    /// best first: username, standing, rated games.
    pub(crate) async fn leaders(
        &self,
        variant: Variant,
        deviation: f64,
        limit: usize,
    ) -> Result<Vec<(String, Standing, u32)>, StoreError> {
        self.db
            .run(move |db| Box::pin(ratings::leaders(db, variant, deviation, limit)))
            .await
    }

    /// Up to `limit` finished public games, the one that ended last first, starting after
    /// `after`; only those `player`'s account played, if given.
    pub(crate) async fn archive(
        &self,
        after: Option<ArchiveCursor>,
        limit: usize,
        player: Option<AccountId>,
    ) -> Result<Vec<ArchivedGame>, StoreError> {
        self.db
            .run(move |db| Box::pin(rooms::archive(db, after, limit, player)))
            .await
    }

    /// Copies everything in this database (a SQLite file) into `target` (an empty
    /// PostgreSQL database), in one transaction; then checks that both hold as many rows
    /// in each table, and that every game's record and the archive read the same.
    pub(crate) async fn migrate_to(&self, target: &Store) -> Result<Copied, StoreError> {
        let (Db::Sqlite(from), Db::Postgres(to)) = (&self.db, &target.db) else {
            return Err(StoreError::NotCopied(
                "copies from a SQLite file into PostgreSQL only".into(),
            ));
        };
        let from = from.clone();
        // Under the rating lock: no node rates a game into the target meanwhile.
        let rows = to
            .transaction(true, move |db| {
                Box::pin(async move { migrate::copy(&from, db).await })
            })
            .await?;
        let counts = self.db.run(|db| Box::pin(migrate::counts(db))).await?;
        let copied = target.db.run(|db| Box::pin(migrate::counts(db))).await?;
        migrate::same_counts(&counts, &copied)?;
        let rooms = self.db.run(|db| Box::pin(migrate::rooms(db))).await?;
        for room in &rooms {
            if self.record(room).await? != target.record(room).await? {
                return Err(StoreError::NotCopied(format!(
                    "room {room}'s record reads otherwise"
                )));
            }
        }
        if self.archive(None, usize::MAX, None).await?
            != target.archive(None, usize::MAX, None).await?
        {
            return Err(StoreError::NotCopied("the archive reads otherwise".into()));
        }
        Ok(Copied {
            tables: counts.len(),
            rows,
            games: rooms.len(),
        })
    }
}
