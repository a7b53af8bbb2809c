//! The room's task: what wakes it (a request, the clock, the computer, a presence
//! notice due, a retry, the idle timeout) and which method serves each request.

use punct_protocol::{Action, RoomSummary};
use tokio::sync::watch;
use tokio::time::Instant;
use tracing::Instrument;

use super::kind::Rooms;
use super::protocol::{Answer, Request};
use super::state::Room;
use crate::clock::Clock;
use crate::cluster::{Envelope, Inbox};
use crate::computer::{Chosen, Thinking};

/// What woke a room's actor.
enum Wake {
    /// A request.
    Request(Envelope<Rooms>),
    /// The running clock ran out (or storing its fall may be tried again).
    FlagFell,
    /// The computer chose its turn.
    Chosen(Chosen),
    /// A spectator count is due.
    Audience,
    /// The wait after a storage failure is over.
    Retry,
}

impl Room {
    /// Serves requests until the room closes: when every handle is gone, or when nobody
    /// has been in it for the idle timeout and nothing in it is being timed. Publishes
    /// the summary on `summary` whenever it changes.
    pub(super) fn run(
        mut self,
        mut inbox: Inbox<Rooms>,
        summary: watch::Sender<RoomSummary>,
    ) -> impl Future<Output = ()> + Send + 'static {
        // A span of its own, not the one of the connection or request that loaded it.
        let span = tracing::info_span!(parent: None, "room", room = %self.id);
        async move {
            tracing::info!(variant = %self.game.variant(), turns = self.game.turns().len(), "room opened");
            let idle_timeout = self.context.timings.idle_timeout;
            // Counted from the last member's request, or from when the room last had a
            // clock or the computer to time: a reader polling it (its summary, where it
            // runs) does not keep it in memory.
            let mut idle_from = Instant::now();
            loop {
                self.think_if_due();
                let flag = self.flag_falls();
                // A correspondence game's room sleeps between moves: its flag, days
                // away, is the sweep's to see (`Registry::sweep`).
                let timed = flag.is_some() && !self.clock.as_ref().is_some_and(Clock::is_correspondence);
                let idle = self.is_empty() && !timed && self.thinking.is_none();
                let (audience, retry) = (self.audience_due(), self.retry.until());
                let wake = tokio::select! {
                    // Requests first: a join queued when the idle timeout fires is served.
                    biased;
                    envelope = inbox.recv() => match envelope {
                        Some(envelope) => Wake::Request(envelope),
                        None => break,
                    },
                    () = sleep_until(flag) => Wake::FlagFell,
                    chosen = chosen(&mut self.thinking) => Wake::Chosen(chosen),
                    () = sleep_until(audience) => Wake::Audience,
                    () = sleep_until(retry) => Wake::Retry,
                    () = tokio::time::sleep_until(idle_from + idle_timeout), if idle => {
                        // Whatever is still queued is refused (its senders see the room
                        // closed, and load it again).
                        inbox.close();
                        tracing::info!("nobody came for {idle_timeout:?}: closing");
                        break;
                    }
                };
                let member_asked = matches!(&wake, Wake::Request(envelope) if from_member(&envelope.request));
                // Boxed: storing a turn or a seat is a future of kilobytes, and inline it
                // would make every room's task that large while it waits.
                match wake {
                    Wake::Request(envelope) => Box::pin(self.handle(envelope)).await,
                    Wake::FlagFell => {
                        // A failure is logged; the retry waits.
                        let _ = Box::pin(self.end_if_flagged()).await;
                    }
                    Wake::Chosen(chosen) => Box::pin(self.computer_plays(chosen)).await,
                    Wake::Audience => self.tell_audience(),
                    Wake::Retry => {}
                }
                if member_asked || !idle {
                    idle_from = Instant::now();
                }
                if self.fenced {
                    inbox.close();
                    tracing::warn!("the room was loaded again elsewhere: closing");
                    break;
                }
                if self.cancelled {
                    inbox.close();
                    break;
                }
                summary.send_if_modified(|old| {
                    let new = self.summary();
                    let changed = *old != new;
                    *old = new;
                    changed
                });
            }
            tracing::info!("room closed");
        }
        .instrument(span)
    }

    /// Serves one request: each goes to the method of its concern, and its answer,
    /// with the events from now on, to whoever asked.
    async fn handle(&mut self, envelope: Envelope<Rooms>) {
        let (request, asker) = envelope.open();
        let answer = match request {
            Request::TakeSeat { player, blockers } => {
                Answer::Seat(self.take_seat(player, &blockers).await)
            }
            Request::Join {
                conn,
                key,
                since,
                lists,
                blocks,
            } => Answer::Entered(self.join(conn, &key, since, lists, blocks)),
            Request::Watch {
                conn,
                since,
                blocks,
            } => Answer::Entered(Ok(self.watch(conn, since, blocks))),
            Request::Resync { conn } => Answer::Entered(self.resync(conn)),
            Request::Talk { conn, talk } => Answer::Done(self.talk(conn, talk).await),
            Request::Act {
                conn,
                action,
                retry,
            } => {
                let done = self.act(conn, action, retry).await;
                if let Action::Play { .. } = action {
                    let refused = done.as_ref().err().map(|refusal| refusal.code);
                    self.context.services.metrics.turn(refused);
                }
                Answer::Done(done)
            }
            Request::Cancel { key } => Answer::Cancelled(self.cancel(&key).await),
            Request::Leave { conn } => {
                self.leave(conn);
                Answer::Left
            }
            Request::NodeDied { node } => {
                self.node_died(node);
                Answer::Left
            }
            Request::Moderate(moderate) => Answer::Done(self.moderate(moderate).await),
            Request::Summary => Answer::Summary(self.summary()),
            Request::Record => Answer::Record(self.record()),
            Request::Forget { account, name } => {
                self.forget(&account, &name);
                Answer::Left
            }
        };
        asker.answer(answer, self.history.sender());
    }
}

/// Whether `request` comes from someone in the room, or about to be (a seat taken over
/// HTTP is joined next): only these keep an empty room in memory.
fn from_member(request: &Request) -> bool {
    match request {
        Request::TakeSeat { .. }
        | Request::Join { .. }
        | Request::Watch { .. }
        | Request::Resync { .. }
        | Request::Act { .. }
        | Request::Talk { .. }
        | Request::Cancel { .. }
        | Request::Leave { .. }
        | Request::NodeDied { .. } => true,
        Request::Moderate(_) | Request::Summary | Request::Record | Request::Forget { .. } => false,
    }
}

/// The computer's turn once it has chosen; never while it is not thinking.
async fn chosen(thinking: &mut Option<Thinking>) -> Chosen {
    match thinking {
        Some(thinking) => thinking.answer().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
