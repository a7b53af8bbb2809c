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
//! - `db`: [`Store`], the one handle: it chooses the database from the setting, and
//!   sends each request down one of its paths, writes of what an actor owns (rooms,
//!   tournaments) only while the node holds its lease;
//! - one file an aggregate, each holding its models, its requests (an `impl Store`
//!   block), the queries they run, written once against the seam, and their SQL:
//!   `rooms` (a room's own writes and its load), `games` (rooms read as games:
//!   summaries, records, the lobby, the archive), `timers`, `chat`, `accounts`,
//!   `addresses`, `blocks`, `puzzles`, `moderation`, `tournaments`, `ratings`, `outbox`
//!   (mail queued with the change that causes it);
//! - `schema`: the one list of migrations, in each database's spelling;
//! - `model`: what several aggregates store alike, and how values go into columns;
//! - `driver`: the seam between the queries and a database ([`driver::Conn`]), and the
//!   values that cross it; `error`: why a request failed;
//! - `migrate`: copying a SQLite database into an empty PostgreSQL one;
//! - `sqlite/`, `postgres/`: each database's driver, transactions, and how it counts
//!   the migrations it has run.
//!
//! Statements are written in PostgreSQL's SQL; the SQLite driver rewrites what SQLite
//! spells otherwise (`$1` is `?1`; it has no row locks, `FOR SHARE` and `FOR UPDATE`,
//! and needs none: one thread writes). Where PostgreSQL cannot infer a parameter's type,
//! a `CAST` names it, which SQLite reads too.

mod accounts;
mod addresses;
mod blocks;
mod chat;
mod db;
mod driver;
mod error;
mod games;
mod migrate;
mod model;
mod moderation;
mod outbox;
mod postgres;
mod puzzles;
mod ratings;
mod rooms;
mod schema;
mod sqlite;
#[cfg(test)]
mod tests;
mod timers;
mod tournaments;

pub(crate) use accounts::{DELETED_PLAYER, NewAccount, SessionRow};
pub(crate) use blocks::Block;
pub(crate) use games::{ArchiveCursor, RoomRow, StoredRecord};
pub(crate) use model::{Account, AccountId, Player, time_control};
pub(crate) use moderation::{AccountState, Entry, NewEntry, NewReport, Report, Role, Sanction};
pub(crate) use outbox::LinkPurpose;
pub(crate) use outbox::{MailSettings, Notice, Outbound};
pub(crate) use puzzles::{PuzzlePlayed, PuzzlePlayer};
pub(crate) use ratings::Rated;
pub(crate) use rooms::{NewRoom, StoredRoom, to_move};
pub(crate) use tournaments::{NewPairing, NewTournament, StoredEntry, StoredPairing};

pub(crate) use db::{Store, is_postgres};
pub(crate) use error::StoreError;
pub use migrate::Copied;
