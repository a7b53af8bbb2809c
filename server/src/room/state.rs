//! The state a room's actor owns: the game and everything around it. Only the actor
//! touches it; each concern's file (`seats`, `turns`, `talk`, `view`) adds the methods
//! of that concern.

use std::sync::Arc;

use punct_protocol::{RatingChanges, Visibility};
use punct_rules::{Color, Game, Outcome};

use super::backoff::Backoff;
use super::chat::Chat;
use super::context::Context;
use super::history::History;
use super::seat::{Audience, Seat};
use super::setup::Setup;
use crate::clock::Clock;
use crate::computer::{Computer, Thinking};

/// The state the actor owns.
#[derive(Debug)]
pub(super) struct Room {
    /// The room's id.
    pub(super) id: String,
    /// Whether the lobby lists it.
    pub(super) visibility: Visibility,
    /// The game: the only copy, changed only here.
    pub(super) game: Game,
    /// The result when the game ended off the board (resignation, agreement, time,
    /// abandonment).
    pub(super) ending: Option<Outcome>,
    /// The player whose draw offer stands.
    pub(super) draw_offer: Option<Color>,
    /// The player whose takeback request stands.
    pub(super) takeback_offer: Option<Color>,
    /// After the game: the player whose rematch request stands.
    pub(super) rematch_offer: Option<Color>,
    /// The rematch's room, once made.
    pub(super) rematch: Option<String>,
    /// The clocks, in a timed game.
    pub(super) clock: Option<Clock>,
    /// Whether the game changes its players' ratings.
    pub(super) rated: bool,
    /// The chat's recent lines, and who muted whom.
    pub(super) chat: Chat,
    /// Once a rated game is over and rated: what it did to the ratings.
    pub(super) ratings: Option<RatingChanges>,
    /// White's and Black's seats, indexed by `Color as usize`.
    pub(super) seats: [Seat; 2],
    /// The spectators.
    pub(super) audience: Audience,
    /// The numbered events and the replay buffer.
    pub(super) history: History,
    /// The seat the server's engine plays, if any.
    pub(super) computer: Option<Computer>,
    /// The engine's search for its next turn, while it runs.
    pub(super) thinking: Option<Thinking>,
    /// Holds back what the room stores on its own after a storage failure.
    pub(super) retry: Backoff,
    /// The incarnation this room was loaded as: its writes name it, and are refused once
    /// the room has been loaded again elsewhere.
    pub(super) incarnation: u32,
    /// Set once a write was refused for that: the room closes, and its members follow
    /// it to wherever it runs now.
    pub(super) fenced: bool,
    /// Set once its creator cancelled the room: it is deleted, and closes.
    pub(super) cancelled: bool,
    /// The tournament whose game this is, if any.
    pub(super) tournament: Option<String>,
    /// The store, the metrics, the timings and the computer's threads.
    pub(super) context: Arc<Context>,
}

impl Room {
    /// The room `setup` describes.
    pub(super) fn new(setup: Setup, context: Arc<Context>) -> Room {
        let Setup {
            id,
            visibility,
            seats,
            players,
            rated,
            ratings,
            chat,
            muted,
            incarnation,
            game,
            ending,
            clock,
            computer,
            tournament,
        } = setup;
        let computer = computer.and_then(|(color, level)| Computer::new(color, level, &id));
        let [white, black] = players;
        let players = [(Color::White, white), (Color::Black, black)];
        let seats = players.map(|(color, player)| {
            let engine = computer.as_ref().is_some_and(|c| c.color == color);
            Seat::new(seats[color as usize], player, engine)
        });
        Room {
            id,
            visibility,
            rated,
            game,
            ending,
            draw_offer: None,
            takeback_offer: None,
            ratings,
            chat: Chat::with(chat, muted),
            rematch_offer: None,
            rematch: None,
            clock,
            seats,
            audience: Audience::default(),
            history: History::new(incarnation, context.timings.event_buffer),
            computer,
            thinking: None,
            retry: Backoff::default(),
            incarnation,
            fenced: false,
            cancelled: false,
            tournament,
            context,
        }
    }
}
