//! The pool's actor: the open seeks, oldest first, and how two of them meet.
//!
//! A new seek meets the oldest waiting seek it is compatible with ([`meets`]); their
//! room is made and stored before either hears of it. A seek nobody meets ends at its
//! expiry. The pool stores nothing: when its node dies the seeks die with it, and each
//! seeker's connection seeks again where the pool runs next.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use punct_protocol::SeekView;
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
    pub(crate) async fn run<K>(mut self, mut inbox: Inbox<K>)
    where
        K: Kind<Request = Request, Answer = Answer, Event = Event>,
    {
        let mut batch = Vec::with_capacity(BATCH);
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
                    let requests = batch.drain(..).map(Envelope::open).collect();
                    self.serve(requests).await;
                }
                () = expiry => self.expire(),
            }
        }
    }

    /// Serves a batch of requests, in order.
    async fn serve<K>(&mut self, requests: Vec<(Request, Asker<K>)>)
    where
        K: Kind<Request = Request, Answer = Answer, Event = Event>,
    {
        let at = Instant::now();
        self.paired
            .retain(|_, (_, when)| at.duration_since(*when) < PAIRING_KEPT);
        // Each seek's answer, or the two seeks whose room is to be made.
        let mut outcomes = Vec::new();
        for (request, asker) in requests {
            match request {
                Request::Seek(seek) => outcomes.push((self.seek(*seek, at), asker)),
                // Told, never asked: nobody waits for an answer.
                Request::Cancel { conn } => self.waiting.retain(|w| w.seek.conn != conn),
                Request::NodeDied { node } => {
                    self.waiting.retain(|w| node_of(w.seek.conn) != node);
                }
            }
        }
        let made = futures_util::future::join_all(outcomes.iter().map(|(outcome, _)| async {
            match outcome {
                Outcome::Meet(meeting) => {
                    let Meeting { white, black, .. } = &**meeting;
                    let seats = [white.seat, black.seat];
                    let players = [white.player.clone(), black.player.clone()];
                    Some(
                        self.registry
                            .create_paired(white.game, seats, players)
                            .await,
                    )
                }
                Outcome::Answer(_) => None,
            }
        }))
        .await;
        let mut told = Vec::new();
        for ((outcome, asker), made) in outcomes.into_iter().zip(made) {
            let answer = match (outcome, made) {
                (Outcome::Answer(answer), _) => answer,
                (Outcome::Meet(meeting), Some(Ok(room))) => {
                    let Meeting {
                        white,
                        black,
                        waited,
                    } = *meeting;
                    let pairing = Pairing {
                        room,
                        white: (white.seek.clone(), white.player.view()),
                        black: (black.seek.clone(), black.player.view()),
                    };
                    for id in [&white.seek, &black.seek] {
                        self.paired.insert(id.clone(), (pairing.clone(), at));
                    }
                    drop(waited);
                    told.push(pairing.clone());
                    Answer::Paired(pairing)
                }
                (Outcome::Meet(meeting), made) => {
                    let waited = meeting.waited;
                    // The seek that waited waits on, first in line; the new one is refused.
                    self.waiting.insert(0, waited);
                    let code = match made {
                        Some(Err(code)) => code,
                        _ => punct_protocol::ErrorCode::StorageFailed,
                    };
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
