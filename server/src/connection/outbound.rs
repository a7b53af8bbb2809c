//! A connection's queue of frames for its writer, bounded.
//!
//! Every connection has one, and it is empty most of the time. tokio's channel sets
//! aside room for 32 frames, about 2 KiB with its own state, from the moment it is
//! made; this queue holds only the frames waiting, and gives back the room a burst took
//! once it is drained.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::ws::Message;
use tokio::sync::Notify;

/// Room for frames that a drained queue keeps.
pub(super) const KEPT: usize = 4;

/// Why a frame was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NotQueued {
    /// As many frames wait as the queue holds.
    Full,
    /// The writer is gone.
    Closed,
}

/// What the two ends share.
struct Shared {
    /// The frames and the ends' state.
    queue: Mutex<Queue>,
    /// Wakes the writer: a frame was queued, or the sender is gone.
    ready: Notify,
}

/// The frames waiting, and which end is gone.
struct Queue {
    /// Oldest first.
    frames: VecDeque<Message>,
    /// Most frames waiting at once.
    capacity: usize,
    /// The connection let go of its end: the writer ends once the queue is drained.
    sender_gone: bool,
    /// The writer ended: nothing more is taken.
    writer_gone: bool,
}

fn lock(shared: &Shared) -> MutexGuard<'_, Queue> {
    // No code that holds the lock can panic half-way through a change.
    shared.queue.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A queue of at most `capacity` frames.
pub(super) fn queue(capacity: usize) -> (Sender, Receiver) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            frames: VecDeque::new(),
            capacity,
            sender_gone: false,
            writer_gone: false,
        }),
        ready: Notify::new(),
    });
    (Sender(Arc::clone(&shared)), Receiver(shared))
}

/// The connection's end.
pub(super) struct Sender(Arc<Shared>);

impl Sender {
    /// Queues `frame` without waiting.
    pub(super) fn try_send(&self, frame: Message) -> Result<(), NotQueued> {
        let mut queue = lock(&self.0);
        if queue.writer_gone {
            return Err(NotQueued::Closed);
        }
        if queue.frames.len() >= queue.capacity {
            return Err(NotQueued::Full);
        }
        queue.frames.push_back(frame);
        drop(queue);
        self.0.ready.notify_one();
        Ok(())
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        lock(&self.0).sender_gone = true;
        self.0.ready.notify_one();
    }
}

/// The writer's end.
pub(super) struct Receiver(Arc<Shared>);

impl Receiver {
    /// The next frame; none once the sender is gone and every frame is taken.
    pub(super) async fn recv(&mut self) -> Option<Message> {
        loop {
            {
                let mut queue = lock(&self.0);
                if let Some(frame) = take(&mut queue) {
                    return Some(frame);
                }
                if queue.sender_gone {
                    return None;
                }
            }
            // A frame queued since the lock was let go left a permit: no wake-up is
            // lost.
            self.0.ready.notified().await;
        }
    }

    /// The next frame if one is waiting, without waiting for one.
    pub(super) fn try_recv(&mut self) -> Option<Message> {
        take(&mut lock(&self.0))
    }

    /// Room set aside for frames (for tests).
    #[cfg(test)]
    pub(super) fn room(&self) -> usize {
        lock(&self.0).frames.capacity()
    }
}

/// The oldest frame waiting, giving back the room of a drained burst.
fn take(queue: &mut Queue) -> Option<Message> {
    let frame = queue.frames.pop_front()?;
    if queue.frames.is_empty() && queue.frames.capacity() > KEPT {
        queue.frames.shrink_to(KEPT);
    }
    Some(frame)
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let mut queue = lock(&self.0);
        queue.writer_gone = true;
        queue.frames.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Message {
        Message::Text(n.to_string().into())
    }

    #[tokio::test]
    async fn the_writer_gets_every_frame_in_order_then_the_end() {
        let (out, mut queue) = queue(8);
        for n in 0..3 {
            out.try_send(text(n)).unwrap();
        }
        drop(out);
        for n in 0..3 {
            assert_eq!(queue.recv().await, Some(text(n)));
        }
        assert_eq!(queue.recv().await, None);
    }

    #[tokio::test]
    async fn a_writer_waiting_wakes_for_the_next_frame() {
        let (out, mut queue) = queue(8);
        let writer = tokio::spawn(async move { queue.recv().await });
        tokio::task::yield_now().await;
        out.try_send(text(7)).unwrap();
        assert_eq!(writer.await.unwrap(), Some(text(7)));
    }

    #[tokio::test]
    async fn what_waits_is_taken_without_waiting() {
        let (out, mut queue) = queue(8);
        assert_eq!(queue.try_recv(), None);
        out.try_send(text(1)).unwrap();
        out.try_send(text(2)).unwrap();
        assert_eq!(queue.recv().await, Some(text(1)));
        assert_eq!(queue.try_recv(), Some(text(2)));
        assert_eq!(queue.try_recv(), None);
    }

    #[test]
    fn a_full_queue_refuses_and_keeps_what_it_has() {
        let (out, queue) = queue(2);
        out.try_send(text(1)).unwrap();
        out.try_send(text(2)).unwrap();
        assert_eq!(out.try_send(text(3)), Err(NotQueued::Full));
        drop(queue);
        assert_eq!(out.try_send(text(4)), Err(NotQueued::Closed));
    }

    #[tokio::test]
    async fn a_drained_queue_gives_back_the_room_of_a_burst() {
        let (out, mut queue) = queue(256);
        assert_eq!(queue.room(), 0, "nothing set aside before the first frame");
        for n in 0..200 {
            out.try_send(text(n)).unwrap();
        }
        assert!(queue.room() >= 200);
        for _ in 0..200 {
            queue.recv().await.unwrap();
        }
        assert!(queue.room() <= KEPT, "{} kept", queue.room());
    }
}
