//! The `punct` client: play and watch games on a `punct-server`, in a full-screen
//! terminal app or scripted, and let the engine play a seat.
//!
//! # Layout
//!
//! - `punct-client` (its own crate) talks to the server: the HTTP API, and a WebSocket
//!   connection per room that reconnects by itself and resumes from the last event seen.
//! - [`session`]: the room as the client knows it, with the game replayed by the rules
//!   crate from the turns the server reports.
//! - [`account`]: the session file that keeps `punct login`'s sessions, and asking for
//!   a password.
//! - [`seats`]: the seat file that keeps seat tokens between runs, and getting a seat.
//! - [`script`]: scripted play and watching, events out as JSON lines.
//! - [`bot`]: the engine playing a seat online.
//! - [`tournament`]: tournaments as lines of text, and a player's next game in one.
//! - [`language`]: the language the server is asked to speak (`--lang`, the locale).
//! - [`lobby`]: the lobby's state and key handling (list, create, join, watch), free of
//!   any terminal.
//! - [`app`]: the interactive room view's state and key handling, free of any terminal.
//! - [`board`]: the board on screen, full size or compact: where cells go, how pieces,
//!   the last turn and bridges are marked, and the legend.
//! - [`ui`]: drawing the lobby and the room view with ratatui.
//! - [`tui`]: the terminal itself: raw mode, the event loop, restoring on exit or panic.

pub mod account;
pub mod app;
pub mod board;
pub mod bot;
pub mod games;
pub mod language;
pub mod lobby;
pub mod script;
pub mod seats;
pub mod session;
pub mod tournament;
pub mod tui;
pub mod ui;
