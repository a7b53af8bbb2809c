//! The game's history as members see it: numbered room events, the latest of them kept
//! for members who come back, and presence notices sent alongside but never numbered or
//! kept.

use std::collections::VecDeque;
use std::sync::Arc;

use punct_protocol::{Seq, ServerMessage};
use punct_rules::{Color, Turn};
use tokio::sync::broadcast;

use super::protocol::{Event, Hearers, to_json};
use crate::cluster::ConnId;

/// How many events a member may fall behind the live ones before it gets a fresh
/// snapshot instead. Each room (and each node relaying it) holds a slot per event from
/// its first moment, whether or not anything happens, so this stays small: a member's
/// connection takes each event off at once into its own queue, and falls this far
/// behind only when it does not run at all for that long. Members coming back are
/// served from the events kept (`Config::room_event_buffer`), which grow only as events
/// happen.
pub(crate) const LIVE_EVENTS: usize = 32;

/// The room's events: what was published, and what is kept.
#[derive(Debug)]
pub(super) struct History {
    /// Sequence number of the last event published: the incarnation in the high half,
    /// the events of this incarnation in the low half.
    seq: Seq,
    /// The latest events, for members that come back.
    recent: VecDeque<Arc<Event>>,
    /// How many events `recent` keeps.
    capacity: usize,
    /// Where events and notices are published.
    events: broadcast::Sender<Arc<Event>>,
}

impl History {
    /// No events yet in this incarnation; `capacity` are kept, and members fall at most
    /// as far behind (and never more than [`LIVE_EVENTS`]).
    pub(super) fn new(incarnation: u32, capacity: usize) -> History {
        let capacity = capacity.max(1);
        let (events, _) = broadcast::channel(capacity.min(LIVE_EVENTS));
        History {
            seq: Seq::from(incarnation) << 32,
            recent: VecDeque::new(),
            capacity,
            events,
        }
    }

    /// The sequence number of the last event.
    pub(super) fn seq(&self) -> Seq {
        self.seq
    }

    /// Events and notices from now on.
    pub(super) fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }

    /// Where events and notices are published.
    pub(super) fn sender(&self) -> &broadcast::Sender<Arc<Event>> {
        &self.events
    }

    /// Publishes the next event, with the legal turns for the player to move after it if
    /// given; returns its sequence number.
    pub(super) fn publish(
        &mut self,
        event: impl FnOnce(Seq) -> ServerMessage,
        your_turn: Option<(Color, Vec<Turn>)>,
    ) -> Seq {
        self.seq += 1;
        let seq = self.seq;
        let event = Arc::new(Event::new(
            Some(seq),
            to_json(&event(seq)),
            your_turn.map(|(color, legal_turns)| (color, your_turn_json(seq, legal_turns))),
        ));
        if self.recent.len() == self.capacity {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::clone(&event));
        // No receiver is fine: nobody is in the room to hear it.
        let _ = self.events.send(event);
        seq
    }

    /// Tells every member about presence: not a room event, so it takes no sequence
    /// number and is not kept for members coming back.
    pub(super) fn notify(&self, message: &ServerMessage) {
        let notice = Arc::new(Event::new(None, to_json(message), None));
        let _ = self.events.send(notice);
    }

    /// Tells `hearers` something that is not a room event (a line of chat).
    pub(super) fn notify_to(&self, message: &ServerMessage, hearers: Hearers) {
        let mut notice = Event::new(None, to_json(message), None);
        notice.hearers = hearers;
        let _ = self.events.send(Arc::new(notice));
    }

    /// Tells the connection `conn` that another took its seat over.
    pub(super) fn notify_takeover(&self, conn: ConnId) {
        let _ = self.events.send(Arc::new(Event::takeover(conn)));
    }

    /// Drops the latest list of legal turns once a turn makes it stale, from the replay
    /// buffer and the broadcast channel at once (they share the event).
    pub(super) fn forget_legal_turns(&mut self) {
        for event in self.recent.iter().rev() {
            if event.forget_your_turn() {
                return;
            }
        }
    }

    /// The events after `since`, if `since` is a number of this incarnation the room
    /// has reached and every event after it is still kept.
    pub(super) fn missed_since(&self, since: Seq) -> Option<Vec<Arc<Event>>> {
        let incarnation_start = self.seq & !u64::from(u32::MAX);
        if since > self.seq || since < incarnation_start {
            return None;
        }
        let oldest_kept = self
            .recent
            .front()
            .and_then(|e| e.seq)
            .unwrap_or(self.seq + 1);
        if since + 1 < oldest_kept {
            return None;
        }
        Some(
            self.recent
                .iter()
                .filter(|e| e.seq.is_some_and(|seq| seq > since))
                .cloned()
                .collect(),
        )
    }
}

/// A `your_turn` message, written into a buffer of the right size at once: a list of
/// thousands of turns would otherwise be copied over and over as its string doubled.
pub(super) fn your_turn_json(seq: Seq, legal_turns: Vec<Turn>) -> String {
    // Most turns take 12 to 15 characters, quotes and a comma included.
    let mut json = Vec::with_capacity(64 + 16 * legal_turns.len());
    serde_json::to_writer(&mut json, &ServerMessage::YourTurn { seq, legal_turns })
        .expect("server messages serialise");
    String::from_utf8(json).expect("serde_json writes UTF-8")
}
