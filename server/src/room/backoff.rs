//! How long a room holds back what it stores on its own (the flag falling, the
//! computer's turn) after storage failed: never in a loop.

use std::time::Duration;

use tokio::time::Instant;

/// The first wait after a storage failure; each failure in a row doubles it.
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between two tries.
const LAST_RETRY: Duration = Duration::from_secs(60);

/// When the room may next store something on its own.
#[derive(Debug, Default)]
pub(super) struct Backoff {
    /// Not before then.
    until: Option<Instant>,
    /// The wait after the last failure.
    delay: Duration,
}

impl Backoff {
    /// Storing failed at `now`: wait twice as long as last time.
    pub(super) fn failed(&mut self, now: Instant) {
        self.delay = if self.delay.is_zero() {
            FIRST_RETRY
        } else {
            (self.delay * 2).min(LAST_RETRY)
        };
        self.until = Some(now + self.delay);
    }

    /// Storing succeeded: no wait.
    pub(super) fn succeeded(&mut self) {
        *self = Backoff::default();
    }

    /// When the room may try again, while it must wait.
    pub(super) fn until(&self) -> Option<Instant> {
        self.until.filter(|&until| until > Instant::now())
    }
}
