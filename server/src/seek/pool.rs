//! The pool's actor: the open seeks, oldest first, and how two of them meet.
//!
//! A new seek meets the oldest waiting seek it is compatible with ([`meets`]); their
//! room is made and stored before either hears of it. The pool goes on pairing while a
//! batch's rooms are being stored, so that the batches of a burst wait for their commits
//! together rather than one after another. A seek nobody meets ends at its expiry. The pool stores nothing: when its node dies the seeks die with it, and each
//! seeker's connection seeks again where the pool runs next.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use punct_protocol::{ErrorCode, SeekView};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::protocol::{Answer, Event, NewSeek, Pairing, Request};
use crate::clock::now;
use crate::cluster::{Asker, Envelope, Inbox, Kind, node_of};
use crate::rating;
use crate::registry::Registry;
use crate::secret;

/// How long a seek waits for someone to meet it.
pub(crate) const SEEK_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// How long a pairing is remembered for a seeker that asks again (its connection
/// missed the news, or the answer was lost on its way).
const PAIRING_KEPT: Duration = Duration::from_secs(60);

/// Whether seeks `a` and `b` may meet: the same game, two different people (by account,
/// or for guests by the key their client keeps), neither blocking the other, and for a
/// rated game each rating within the other's range.
pub(crate) fn meets(a: &NewSeek, b: &NewSeek) -> bool {
    let account = |seek: &NewSeek| seek.player.account.as_ref().map(|a| a.id.clone());
    let same_person = a.conn == b.conn
        || account(a).is_some() && account(a) == account(b)
        || a.guest.is_some() && a.guest == b.guest;
    let blocked = |x: &NewSeek, y: &NewSeek| account(y).is_some_and(|id| x.blocks.contains(&id));
    if a.game != b.game || same_person || blocked(a, b) || blocked(b, a) {
        return false;
    }
    if !a.game.rated {
        return true;
    }
    let (Some(ra), Some(rb)) = (a.rating, b.rating) else {
        return false;
    };
    let apart = (ra - rb).abs();
    let within = |range: Option<u32>| range.is_none_or(|r| apart <= f64::from(r));
    within(a.range) && within(b.range)
}

/// Requests served together at most.
const BATCH: usize = 256;

/// What becomes of one seek in a batch.
enum Outcome {
    /// Its answer, known at once.
    Answer(Answer),
    /// It meets a waiting seek: their room is to be made. (Boxed: two seeks are large
    /// beside an answer.)
    Meet(Box<Meeting>),
}

/// Two seeks that meet, before their room is made.
struct Meeting {
    /// The seek that plays White.
    white: NewSeek,
    /// The seek that plays Black.
    black: NewSeek,
    /// The seek that waited, back in line if the room cannot be made.
    waited: Waiting,
}

/// A batch's meetings, each with the asker of the seek that came second, and each one's
/// room as it was made (its id) or not.
struct Made<K: Kind> {
    meetings: Vec<(Meeting, Asker<K>)>,
    rooms: Vec<Result<String, ErrorCode>>,
}

/// A seek waiting in the pool.
struct Waiting {
    /// The seek.
    seek: NewSeek,
    /// When it ends, in ms since the Unix epoch (as its seeker was told).
    expires_at: i64,
    /// The same moment on the pool's timer.
    deadline: Instant,
}

/// The pool's state, owned by its actor.
pub(crate) struct Pool {
    /// The open seeks, oldest first.
    waiting: Vec<Waiting>,
    /// Recent pairings by seek, for a seeker that asks again.
    paired: HashMap<String, (Pairing, Instant)>,
    /// The seeks whose rooms are being made.
    making: HashSet<String>,
    /// Where rooms are made.
    registry: Registry,
    /// What every seeker hears.
    events: broadcast::Sender<Arc<Event>>,
    /// The open seeks as the lobby lists them.
    status: watch::Sender<Vec<SeekView>>,
}

impl Pool {
    /// An empty pool making its rooms in `registry`.
    pub(crate) fn new(
        registry: Registry,
        events: broadcast::Sender<Arc<Event>>,
        status: watch::Sender<Vec<SeekView>>,
    ) -> Pool {
        Pool {
            waiting: Vec::new(),
            paired: HashMap::new(),
            making: HashSet::new(),
            registry,
            events,
            status,
        }
    }

    /// Serves `inbox` until it closes (the server stops), ending seeks as they expire.
    /// (Generic over its kind, which is `kind`'s to say.)
    ///
    /// Requests are served in batches, as many as wait (up to [`BATCH`]): the rooms of a
    /// batch's pairings are made together, and its pairings told in one event, so that a
    /// burst of seekers costs each seeker's connection one wake-up, not one a pairing.
    /// While a batch's rooms are made, the next batches are served: their rooms are
    /// stored in the same commits (the store groups what waits).
    pub(crate) async fn run<K>(mut self, mut inbox: Inbox<K>)
    where
        K: Kind<Request = Request, Answer = Answer, Event = Event>,
    {
        let mut batch = Vec::with_capacity(BATCH);
        // The batches whose rooms are being made.
        let mut in_flight: FuturesUnordered<BoxFuture<'static, Made<K>>> = FuturesUnordered::new();
        // Requests to serve: a seek asked again while its room is being made waits for it.
        let mut pending = Vec::new();
        loop {
            let next = self.waiting.iter().map(|w| w.deadline).min();
            let expiry = async {
                match next {
                    Some(deadline) => tokio::time::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                received = inbox.recv_many(&mut batch, BATCH) => {
                    if received == 0 {
                        return;
                    }
                    pending.extend(batch.drain(..).map(Envelope::open));
                }
                Some(made) = in_flight.next() => self.tell(made),
                () = expiry => self.expire(),
            }
            let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut pending)
                .into_iter()
                .partition(|(request, _)| !self.is_making(request));
            pending = later;
            if !now.is_empty()
                && let Some(made) = self.serve(now)
            {
                in_flight.push(made);
            }
        }
    }

    /// Whether `request` is a seek whose room is being made.
    fn is_making(&self, request: &Request) -> bool {
        matches!(request, Request::Seek(seek) if self.making.contains(&seek.seek))
    }

    /// Serves a batch of requests, in order: answers at once what it can, and answers
    /// the future that makes the rooms of the seeks that met, if any did.
    fn serve<K>(
        &mut self,
        requests: Vec<(Request, Asker<K>)>,
    ) -> Option<BoxFuture<'static, Made<K>>>
    where
        K: Kind<Request = Request, Answer = Answer, Event = Event>,
    {
        let at = Instant::now();
        self.paired
            .retain(|_, (_, when)| at.duration_since(*when) < PAIRING_KEPT);
        let mut meetings = Vec::new();
        for (request, asker) in requests {
            match request {
                Request::Seek(seek) => match self.seek(*seek, at) {
                    Outcome::Answer(answer) => asker.answer(answer, &self.events),
                    Outcome::Meet(meeting) => meetings.push((*meeting, asker)),
                },
                // Told, never asked: nobody waits for an answer.
                Request::Cancel { conn } => self.waiting.retain(|w| w.seek.conn != conn),
                Request::NodeDied { node } => {
                    self.waiting.retain(|w| node_of(w.seek.conn) != node);
                }
            }
        }
        self.publish();
        if meetings.is_empty() {
            return None;
        }
        let rooms: Vec<_> = meetings
            .iter()
            .map(|(Meeting { white, black, .. }, _)| {
                self.making.insert(white.seek.clone());
                self.making.insert(black.seek.clone());
                let players = [white.player.clone(), black.player.clone()];
                (white.game, [white.seat, black.seat], players)
            })
            .collect();
        let registry = self.registry.clone();
        Some(Box::pin(async move {
            let rooms = rooms
                .into_iter()
                .map(|(game, seats, players)| registry.create_paired(game, seats, players));
            let rooms = futures_util::future::join_all(rooms).await;
            Made { meetings, rooms }
        }))
    }

    /// Tells a batch whose rooms were made: each pair of seekers their pairing, in one
    /// event for all of them. A meeting whose room could not be made puts the seek that
    /// waited back, first in line, and refuses the other.
    fn tell<K>(&mut self, made: Made<K>)
    where
        K: Kind<Request = Request, Answer = Answer, Event = Event>,
    {
        let at = Instant::now();
        let mut told = Vec::new();
        for ((meeting, asker), room) in made.meetings.into_iter().zip(made.rooms) {
            let Meeting {
                white,
                black,
                waited,
            } = meeting;
            self.making.remove(&white.seek);
            self.making.remove(&black.seek);
            let answer = match room {
                Ok(room) => {
                    let pairing = Pairing {
                        room,
                        white: (white.seek.clone(), white.player.view()),
                        black: (black.seek.clone(), black.player.view()),
                    };
                    for id in [&white.seek, &black.seek] {
                        self.paired.insert(id.clone(), (pairing.clone(), at));
                    }
                    told.push(pairing.clone());
                    Answer::Paired(pairing)
                }
                Err(code) => {
                    self.waiting.insert(0, waited);
                    Answer::Refused(code)
                }
            };
            asker.answer(answer, &self.events);
        }
        if !told.is_empty() {
            let _ = self.events.send(Arc::new(Event::Paired(told)));
        }
        self.publish();
    }

    /// What becomes of `seek`: it meets the oldest compatible waiting seek, or waits.
    fn seek(&mut self, seek: NewSeek, at: Instant) -> Outcome {
        if let Some((pairing, _)) = self.paired.get(&seek.seek) {
            return Outcome::Answer(Answer::Paired(pairing.clone()));
        }
        // One seek a connection, and a seek asked again replaces itself.
        self.waiting
            .retain(|w| w.seek.conn != seek.conn && w.seek.seek != seek.seek);
        let Some(index) = self.waiting.iter().position(|w| meets(&w.seek, &seek)) else {
            let expires_at = now().saturating_add(millis(SEEK_LIFETIME));
            self.waiting.push(Waiting {
                seek,
                expires_at,
                deadline: at + SEEK_LIFETIME,
            });
            return Outcome::Answer(Answer::Waiting { expires_at });
        };
        let waited = self.waiting.remove(index);
        let (white, black) = if secret::coin() {
            (waited.seek.clone(), seek)
        } else {
            (seek, waited.seek.clone())
        };
        Outcome::Meet(Box::new(Meeting {
            white,
            black,
            waited,
        }))
    }

    /// Ends the seeks whose time is up, telling their seekers.
    fn expire(&mut self) {
        let at = Instant::now();
        let (over, open): (Vec<Waiting>, Vec<Waiting>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|w| w.deadline <= at);
        self.waiting = open;
        for waiting in over {
            let seek = waiting.seek.seek;
            let _ = self.events.send(Arc::new(Event::Expired { seek }));
        }
        self.publish();
    }

    /// Shows the open seeks as they are now.
    fn publish(&self) {
        let seeks = self.waiting.iter().map(view).collect();
        self.status.send_replace(seeks);
    }
}

/// A waiting seek as the lobby shows it.
fn view(waiting: &Waiting) -> SeekView {
    let seek = &waiting.seek;
    SeekView {
        seek: seek.seek.clone(),
        player: seek.player.view(),
        rating: seek.rating.map(rating::shown),
        game: seek.game,
        expires_at: waiting.expires_at,
    }
}

/// Milliseconds of `duration`, for times since the epoch.
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
