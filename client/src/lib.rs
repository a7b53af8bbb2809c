//! A client of `punct-server`, for every program that talks to one: the terminal client,
//! the load generator, the server's own tests and its health check.
//!
//! # Layout
//!
//! - [`Server`]: a server's base URL, `http://` or `https://` (behind a TLS proxy), read
//!   from what a person types.
//! - [`Client`]: the HTTP API of `server/API.md` (rooms, seats, the lobby, records,
//!   tournaments, readiness) on `reqwest`, with timeouts, and the start of WebSocket
//!   connections.
//! - [`Connection`]: one WebSocket on `tokio-tungstenite`, speaking the JSON of
//!   `protocol/PROTOCOL.md`: numbered requests, their replies told apart from the events
//!   that come meanwhile, timeouts on replies and on silence.
//! - [`connect`]: a room's connection that reconnects by itself with back-off and resumes
//!   with `since`, driven over channels ([`Link`]): [`Request`]s in (game actions,
//!   chat, mute), [`NetEvent`]s out.
//! - [`seek`]: quick pairing: a seek on a connection of its own, made again when the
//!   connection is lost, until someone meets it ([`Paired`]).
//! - `tls` (feature `tls`, on by default): rustls with the system's root certificates and
//!   any given ones, for `https://` and `wss://`.
//! - [`Error`]: what can go wrong, each kind keeping its cause.

mod error;
mod http;
mod seek;
mod server;
mod session;
mod socket;
#[cfg(feature = "tls")]
mod tls;

pub use error::Error;
pub use http::{Client, ClientBuilder};
pub use seek::{Paired, SeekOptions, seek};
pub use server::Server;
pub use session::{Entry, Link, NetEvent, Request, connect};
pub use socket::Connection;
pub use tokio_tungstenite::tungstenite::Message;
pub use tokio_tungstenite::tungstenite::protocol::CloseFrame;
pub use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
