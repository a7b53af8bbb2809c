//! A room: one game, its two seats and its spectators, owned by one task (an actor).
//!
//! The actor is the only place where a turn is accepted. It takes one kind of value, a
//! [`Request`], from a [`RoomHandle`] (the same whether the room runs on this node or is
//! relayed from another), answers each with an [`Answer`], and publishes what happened
//! as [`Event`]s on a broadcast channel that every member reads at its own pace. The
//! actor never waits for a connection, so a slow member can only fall behind, never
//! hold the room up. A room is placed, loaded and moved between nodes by `cluster`
//! through [`Rooms`], and never sees the registry.
//!
//! # Layout
//!
//! Data, each file a leaf of this folder:
//! - `protocol`: [`Request`], [`Answer`] and [`Event`]: the room's whole interface.
//! - `context`: [`Context`], what every room is given (store, metrics, timings).
//! - `setup`: what a room starts from: a new room ([`Fresh`]), or one loaded.
//! - `seat`, `chat`, `history`, `backoff`: the seats and spectators, the chat's recent
//!   lines, the numbered events and their replay buffer, the wait after a storage
//!   failure.
//! - `state`: the `Room` the actor owns, made of the above.
//!
//! Behaviour, each file adding the methods of one concern to `Room`:
//! - `actor`: the task's loop, what wakes it, and which method serves each request.
//! - `seats`: `TakeSeat`, `Join`, `Watch`, `Resync`, `Leave`, `NodeDied`, `Cancel`; who
//!   is away, and the presence notices (not part of the game's history).
//! - `turns`: `Act` (turns, resignation, draws, takebacks, claims, rematch), the clock
//!   running out, the computer's turns.
//! - `talk`: `Talk`: chat and muting.
//! - `moderate`: `Moderate`: a moderator's forfeit, closed room or removed line.
//! - `view`: what a member gets on entering, snapshots, summaries, the record.
//! - `kind`: [`Rooms`], rooms as a kind of actor for `cluster`.
//!
//! Must not import: `registry`, `connection`, `api`.

mod actor;
mod backoff;
mod chat;
mod context;
mod history;
mod kind;
mod moderate;
mod protocol;
mod seat;
mod seats;
mod setup;
mod state;
mod talk;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
mod turns;
mod view;

pub(crate) use context::Context;
pub(crate) use history::LIVE_EVENTS;
pub(crate) use kind::Rooms;
pub(crate) use protocol::{Answer, Entered, Event, Key, Mismatch, Moderate, Request, Start, Talk};
pub(crate) use setup::Fresh;

/// A cheap handle on a running room, run here or relayed from its node.
pub(crate) type RoomHandle = crate::cluster::Handle<Rooms>;
