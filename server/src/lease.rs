//! Whether this node may still write: in a cluster, a node writes only while it holds
//! its lease (renewed in NATS by the `cluster` module), so that a node cut off from the
//! others stops writing before they take its rooms over. A single server always holds
//! it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A cheap handle on the node's lease.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lease {
    /// Until when it is held; `None`: always (one server, no cluster).
    until: Option<Arc<Until>>,
}

/// A deadline that can move later, read without a lock.
#[derive(Debug)]
struct Until {
    /// What the deadline counts from.
    origin: Instant,
    /// Microseconds after `origin`; 0 once given up.
    micros: AtomicU64,
}

impl Lease {
    /// A lease not held until it is first extended.
    pub(crate) fn renewable() -> Lease {
        Lease {
            until: Some(Arc::new(Until {
                origin: Instant::now(),
                micros: AtomicU64::new(0),
            })),
        }
    }

    /// Whether the node holds the lease now.
    pub(crate) fn held(&self) -> bool {
        self.until.as_ref().is_none_or(|until| {
            micros(until.origin.elapsed()) < until.micros.load(Ordering::Acquire)
        })
    }

    /// Holds the lease until `deadline` (never shortens it).
    pub(crate) fn extend(&self, deadline: Instant) {
        if let Some(until) = &self.until {
            let micros = micros(deadline.saturating_duration_since(until.origin));
            until.micros.fetch_max(micros, Ordering::AcqRel);
        }
    }

    /// Gives the lease up for good.
    pub(crate) fn give_up(&self) {
        if let Some(until) = &self.until {
            until.micros.store(0, Ordering::Release);
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_held_until_its_deadline() {
        assert!(Lease::default().held(), "one server always holds it");
        let lease = Lease::renewable();
        assert!(!lease.held(), "not before it is first extended");
        lease.extend(Instant::now() + Duration::from_secs(60));
        assert!(lease.held());
        lease.extend(Instant::now());
        assert!(lease.held(), "extending never shortens it");
        lease.give_up();
        assert!(!lease.held());
        let short = Lease::renewable();
        short.extend(Instant::now() + Duration::from_millis(20));
        std::thread::sleep(Duration::from_millis(30));
        assert!(!short.held(), "it runs out unless renewed");
    }
}
