//! The counters behind `GET /metrics`, in the Prometheus (OpenMetrics) text format.
//!
//! Counters are bumped where things happen; gauges that are cheaper to read than to keep
//! (connections open, rooms by state) are set when the page is asked for. The mail
//! backlog is in the database, so the mail task keeps it ([`MailMetrics`]) rather than
//! each scrape querying it.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;
use punct_protocol::{ErrorCode, RoomStatus};

use crate::clock::now;
use crate::computer::PoolLoad;

/// One label and its value.
type Label = [(&'static str, &'static str); 1];

/// Everything `/metrics` shows.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    connections: Gauge,
    max_connections: Gauge,
    lease_held: Gauge,
    rooms: Family<Label, Gauge>,
    turns_accepted: Counter,
    turns_rejected: Family<Label, Counter>,
    messages: Family<Label, Counter>,
    rate_limited: Family<Label, Counter>,
    refused: Family<Label, Counter>,
    disconnects: Family<Label, Counter>,
    lagged: Counter,
    storage_failures: Counter,
    computer_searches: Family<Label, Gauge>,
    /// The mail task's share.
    mail: MailMetrics,
    /// Set from `mail` as the page is asked for.
    mail_oldest_seconds: Gauge,
}

/// What the mail task tells `/metrics`: a cheap handle it keeps (clones share).
#[derive(Clone, Debug, Default)]
pub(crate) struct MailMetrics {
    /// Mails in the outbox not yet sent nor given up.
    queued: Gauge,
    /// When the oldest of them was queued (milliseconds since the epoch), 0 for none:
    /// its age is reckoned as the page is asked for, so that it grows while the task is
    /// stuck on a mail server that hangs.
    oldest_queued_at: Arc<AtomicI64>,
    /// Mails given up.
    given_up: Counter,
}

impl MailMetrics {
    /// The outbox holds `queued` mails not sent, the oldest queued at `oldest` (ms).
    pub(crate) fn backlog(&self, queued: usize, oldest: Option<i64>) {
        self.queued.set(gauge(queued));
        self.oldest_queued_at
            .store(oldest.unwrap_or(0), Ordering::Relaxed);
    }

    /// A mail was given up.
    pub(crate) fn given_up(&self) {
        self.given_up.inc();
    }
}

/// The gauges, read when the page is asked for.
#[derive(Debug)]
pub(crate) struct Gauges {
    /// WebSocket connections open.
    pub(crate) connections: usize,
    /// The most that may be (`--max-connections`), to alert before it is reached.
    pub(crate) max_connections: usize,
    /// Whether this node may write: a node of a cluster that lost its lease stops.
    pub(crate) lease_held: bool,
    /// The state of each room held in memory.
    pub(crate) rooms: Vec<RoomStatus>,
    /// The computer's searches.
    pub(crate) computers: PoolLoad,
}

/// Why the server turned a WebSocket or a new room away before it existed; its
/// kebab-case name labels `/metrics`.
#[derive(Clone, Copy, Debug, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum TurnedAway {
    /// The server holds as many connections as it may.
    MaxConnections,
    /// The address holds as many connections as it may.
    ConnectionsPerIp,
    /// The address created as many rooms as it may lately.
    RoomsPerMinute,
    /// A browser page from an origin not allowed.
    Origin,
}

impl Metrics {
    /// Counters at zero; `commits` is the database's commit-time histogram; `node` is
    /// the tag of this node (0 on a single server).
    pub(crate) fn new(commits: Histogram, node: u32) -> Metrics {
        let mut registry = Registry::with_prefix("punct");
        // Behind a load balancer, which node's page this is.
        registry.register(
            "node",
            "The node that serves this page, by its tag (0: a single server)",
            Info::new([("node", node.to_string())]),
        );
        let metrics = Metrics {
            connections: Gauge::default(),
            max_connections: Gauge::default(),
            lease_held: Gauge::default(),
            rooms: Family::default(),
            turns_accepted: Counter::default(),
            turns_rejected: Family::default(),
            messages: Family::default(),
            rate_limited: Family::default(),
            refused: Family::default(),
            disconnects: Family::default(),
            lagged: Counter::default(),
            storage_failures: Counter::default(),
            computer_searches: Family::default(),
            mail: MailMetrics::default(),
            mail_oldest_seconds: Gauge::default(),
            registry: Registry::default(),
        };
        registry.register(
            "connections",
            "WebSocket connections open",
            metrics.connections.clone(),
        );
        registry.register(
            "max_connections",
            "WebSocket connections the node may hold (--max-connections)",
            metrics.max_connections.clone(),
        );
        registry.register(
            "lease_held",
            "1 while the node holds its cluster lease and may write (always on a single server)",
            metrics.lease_held.clone(),
        );
        registry.register(
            "rooms",
            "Rooms held in memory, by state (open: a seat is free)",
            metrics.rooms.clone(),
        );
        registry.register(
            "turns_accepted",
            "Turns accepted and stored",
            metrics.turns_accepted.clone(),
        );
        registry.register(
            "turns_rejected",
            "Turns refused, by error code",
            metrics.turns_rejected.clone(),
        );
        registry.register(
            "messages",
            "WebSocket requests received, by type (invalid: frames that are not a request)",
            metrics.messages.clone(),
        );
        registry.register(
            "rate_limited",
            "Frames refused for exceeding their kind's rate, by kind",
            metrics.rate_limited.clone(),
        );
        registry.register(
            "refused",
            "WebSocket upgrades and room creations turned away, by reason",
            metrics.refused.clone(),
        );
        registry.register(
            "disconnects",
            "WebSocket connections ended, by reason (too-slow: its outbound queue was full)",
            metrics.disconnects.clone(),
        );
        registry.register(
            "lagged",
            "Times a member fell behind its room's event buffer and was sent a fresh snapshot",
            metrics.lagged.clone(),
        );
        registry.register(
            "storage_failures",
            "Changes the database could not store (refused, nothing changed)",
            metrics.storage_failures.clone(),
        );
        registry.register(
            "computer_searches",
            "The computer's searches, by state (running on a search thread, or waiting for one)",
            metrics.computer_searches.clone(),
        );
        registry.register(
            "mail_queued",
            "Mails in the outbox not yet sent nor given up (every node counts the whole outbox)",
            metrics.mail.queued.clone(),
        );
        registry.register(
            "mail_oldest_seconds",
            "Age of the oldest mail not yet sent (0: none)",
            metrics.mail_oldest_seconds.clone(),
        );
        registry.register(
            "mail_given_up",
            "Mails this node gave up: refused for good, or failed too many times",
            metrics.mail.given_up.clone(),
        );
        registry.register(
            "db_commit_seconds",
            "Time to commit one batch of database writes",
            commits,
        );
        Metrics {
            registry,
            ..metrics
        }
    }

    /// A turn was accepted, or refused with `code`.
    pub(crate) fn turn(&self, refused: Option<ErrorCode>) {
        match refused {
            None => {
                self.turns_accepted.inc();
            }
            Some(code) => {
                self.turns_rejected
                    .get_or_create(&[("reason", code.as_str())])
                    .inc();
            }
        }
    }

    /// A frame came in: a request of type `kind`, or `invalid`.
    pub(crate) fn message(&self, kind: &'static str) {
        self.messages.get_or_create(&[("type", kind)]).inc();
    }

    /// A frame of `kind` was over its rate.
    pub(crate) fn rate_limited(&self, kind: &'static str) {
        self.rate_limited.get_or_create(&[("kind", kind)]).inc();
    }

    /// A connection or a room was turned away.
    pub(crate) fn refused(&self, why: TurnedAway) {
        self.refused.get_or_create(&[("reason", why.into())]).inc();
    }

    /// A connection ended, for `reason`.
    pub(crate) fn disconnect(&self, reason: &'static str) {
        self.disconnects.get_or_create(&[("reason", reason)]).inc();
    }

    /// A member fell behind its room.
    pub(crate) fn lagged(&self) {
        self.lagged.inc();
    }

    /// The database could not store a change.
    pub(crate) fn storage_failed(&self) {
        self.storage_failures.inc();
    }

    /// The handle the mail task keeps its gauges through.
    pub(crate) fn mail(&self) -> MailMetrics {
        self.mail.clone()
    }

    /// The page, with the gauges set to `gauges`.
    pub(crate) fn render(&self, gauges: Gauges) -> String {
        self.connections.set(gauge(gauges.connections));
        self.max_connections.set(gauge(gauges.max_connections));
        self.lease_held.set(i64::from(gauges.lease_held));
        let oldest = self.mail.oldest_queued_at.load(Ordering::Relaxed);
        let age = if oldest == 0 {
            0
        } else {
            (now() - oldest).max(0) / 1000
        };
        self.mail_oldest_seconds.set(age);
        let PoolLoad { running, waiting } = gauges.computers;
        for (state, count) in [("running", running), ("waiting", waiting)] {
            self.computer_searches
                .get_or_create(&[("state", state)])
                .set(gauge(count));
        }
        let mut counts = [("open", 0), ("live", 0), ("over", 0)];
        for status in gauges.rooms {
            let slot = match status {
                RoomStatus::Open => 0,
                RoomStatus::Live => 1,
                RoomStatus::Over => 2,
            };
            counts[slot].1 += 1;
        }
        for (state, count) in counts {
            self.rooms
                .get_or_create(&[("state", state)])
                .set(gauge(count));
        }
        let mut page = String::new();
        encode(&mut page, &self.registry).expect("writing to a String cannot fail");
        page
    }
}

fn gauge(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_every_metric_with_its_labels() {
        let commits = Histogram::new([0.001, 0.01, 0.1]);
        let metrics = Metrics::new(commits.clone(), 4660);
        commits.observe(0.004);
        metrics.turn(None);
        metrics.turn(None);
        metrics.turn(Some(ErrorCode::NotYourTurn));
        metrics.message("play");
        metrics.rate_limited("play");
        metrics.refused(TurnedAway::ConnectionsPerIp);
        metrics.disconnect("too-slow");
        metrics.lagged();
        metrics.storage_failed();
        metrics.mail().backlog(2, Some(now() - 5_000));
        metrics.mail().given_up();
        let page = metrics.render(Gauges {
            connections: 7,
            max_connections: 10,
            lease_held: true,
            rooms: vec![RoomStatus::Live, RoomStatus::Live, RoomStatus::Open],
            computers: PoolLoad {
                running: 1,
                waiting: 3,
            },
        });
        for line in [
            "punct_node_info{node=\"4660\"} 1",
            "punct_connections 7",
            "punct_max_connections 10",
            "punct_lease_held 1",
            "punct_rooms{state=\"live\"} 2",
            "punct_rooms{state=\"open\"} 1",
            "punct_rooms{state=\"over\"} 0",
            "punct_turns_accepted_total 2",
            "punct_turns_rejected_total{reason=\"not-your-turn\"} 1",
            "punct_messages_total{type=\"play\"} 1",
            "punct_rate_limited_total{kind=\"play\"} 1",
            "punct_refused_total{reason=\"connections-per-ip\"} 1",
            "punct_disconnects_total{reason=\"too-slow\"} 1",
            "punct_lagged_total 1",
            "punct_storage_failures_total 1",
            "punct_computer_searches{state=\"running\"} 1",
            "punct_computer_searches{state=\"waiting\"} 3",
            "punct_mail_queued 2",
            "punct_mail_oldest_seconds 5",
            "punct_mail_given_up_total 1",
            "punct_db_commit_seconds_count 1",
            "punct_db_commit_seconds_bucket{le=\"0.01\"} 1",
        ] {
            assert!(
                page.lines().any(|l| l == line),
                "no line {line:?} in\n{page}"
            );
        }
    }
}
