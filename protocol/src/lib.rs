//! The messages between the PÜNCT server and its clients: one JSON object per WebSocket
//! text message, tagged by `type`, and the JSON bodies of the HTTP API.
//!
//! `PROTOCOL.md` beside this crate describes the conversation in prose with an example of
//! every message; `schema.json` is the JSON Schema of all of them, for clients written in
//! other languages (regenerate it with `punct-server schema > protocol/schema.json`).
//!
//! # Layout
//!
//! - [`client`](ClientMessage): what a client sends, and [`ClientMessage::decode`], which
//!   reads a frame and, when it cannot, still finds the request id to answer.
//! - [`server`](ServerMessage): what the server sends: replies to requests (which echo the
//!   request id), room events (which carry the room's sequence number), the
//!   [`RoomSnapshot`] a client gets on joining, and the [`ErrorCode`]s.
//! - [`http`](CreateRoom): request and response bodies of the HTTP API; `accounts`
//!   (from [`Credentials`]): those of accounts, sessions, ratings and player pages.
//! - [`tournament`](TournamentView): the HTTP bodies of tournaments.
//! - [`seek`](SeekGame): quick pairing: the game a seek asks for, the open seeks.
//! - `schema` (with the feature of that name): the JSON Schema export, `schema_json`, and
//!   the schema-only mirrors of the rules crate's types.
//!
//! Turns and cells travel in the canonical notation of RULES.md section 5 (`C4:C5,D5`,
//! `F5-F8:E8,G9`, `pass`); colours, variants, kinds and outcomes as the rules crate's serde
//! feature writes them.
//!
//! ```
//! use punct_protocol::{ClientMessage, ServerMessage};
//! let play = ClientMessage::Play { id: 3, turn: "c4:d5,c5".parse()?, number: Some(1) };
//! assert_eq!(
//!     serde_json::to_string(&play)?,
//!     r#"{"type":"play","id":3,"turn":"C4:C5,D5","number":1}"#
//! );
//! let reply = r#"{"type":"error","id":3,"code":"not-your-turn","message":"it is black's turn"}"#;
//! match serde_json::from_str(reply)? {
//!     ServerMessage::Error { id, code, .. } => assert_eq!((id, code.as_str()), (Some(3), "not-your-turn")),
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod accounts;
mod client;
mod http;
#[cfg(feature = "schema")]
mod schema;
mod seek;
mod server;
mod tournament;

pub use accounts::{
    Credentials, Leaderboard, LeaderboardEntry, Notifications, NotifyMode, PlayerProfile,
    RatingChange, RatingChanges, RatingPoint, RatingView, Results, Session, SignedIn,
    VariantRating,
};
pub use client::{Action, ClientMessage, DecodeError};
pub use http::{
    ApiError, Archive, ArchivedGame, CancelRoom, CreateRoom, Lobby, MyGame, MyGames, NodeView,
    Record, RoomNode, RoomStatus, RoomSummary, SeatChoice, SeatGranted, TakeSeat, TimeControl,
    Visibility,
};
#[cfg(feature = "schema")]
pub use schema::{SCHEMA_TITLE, schema_json};
pub use seek::{SeekGame, SeekList, SeekPoolNode, SeekView};
pub use server::{
    Channel, ChatLine, ClockView, DotView, ErrorCode, Player, PositionView, ReserveView, Reserves,
    Role, RoomSnapshot, SeatView, Seats, SeekEnd, ServerMessage, StackView,
};
pub use tournament::{
    CreateTournament, StandingRow, TournamentEntry, TournamentFormat, TournamentGame,
    TournamentList, TournamentNode, TournamentRound, TournamentState, TournamentSummary,
    TournamentView,
};

/// The version of this protocol. A client states it in its `hello`; the server refuses a
/// connection whose version differs.
pub const PROTOCOL_VERSION: u32 = 1;

/// A client's number for one request, echoed in the reply so the client can match them.
pub type RequestId = u64;

/// A room's position in its event stream: every room event has the next number, so a client
/// that sees a gap knows it missed something.
pub type Seq = u64;
