//! Where single-owner actors run, and how requests reach them: on a single server, or
//! on one node of a cluster of servers sharing one PostgreSQL database and NATS (one
//! server or a NATS cluster), any of which accepts any request for any actor.
//!
//! Nothing here knows what an actor is for. A kind of actor (a room; later a
//! tournament's director) says in [`Kind`] what its requests, answers, events and
//! status are and how to load and start one; [`Placement`] then runs each of its actors
//! on exactly one node, relays it to the others, and moves it to another node when its
//! node dies, with no code of its own for that kind. `docs/CLUSTER.md` draws the
//! picture and says what happens on each failure.
//!
//! # Layout
//!
//! - `ids`: node tags, and connection ids that carry their node's tag.
//! - `kind`: the [`Kind`] trait and an actor's inbox ([`Envelope`], [`Reply`]).
//! - `handle`: [`Handle`], a cheap handle on an actor run here or relayed; an actor run
//!   here answers only while this node holds its lease.
//! - `placement`: [`Placement`], the actors of one kind: loading, claiming, relaying,
//!   forgetting, and asking with retries while an actor moves.
//! - `nodes`: [`Nodes`], the strategy: a single server, or a node of a cluster.
//! - `nats`: the cluster itself: the node's lease, the claims, NATS.
//! - `relay`: an actor another node runs, relayed here.
//! - `wire`: what nodes send each other: subjects, forwarded requests, news.
//!
//! Must not import: anything of the server above `lease`; a kind's own modules.

mod handle;
mod ids;
mod kind;
mod nats;
mod nodes;
mod placement;
mod relay;
mod wire;

pub(crate) use handle::{Closed, Handle};
pub(crate) use ids::{ConnId, NodeTag, node_of};
pub(crate) use kind::{Asker, Envelope, Inbox, Kind, Reply, Started, Unavailable};
pub(crate) use nodes::Nodes;
pub(crate) use placement::{Limits, PlaceError, Placement, Whereabouts};
