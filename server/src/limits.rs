//! What one client may do: messages per connection, and connections and new rooms per
//! address. All of it is token buckets, so short bursts pass and floods do not.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use punct_protocol::ClientMessage;
use tokio::time::Instant;

use crate::config::Config;

/// A token bucket: holds up to `burst` tokens and gains `rate` a second; each thing done
/// takes one.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    /// Tokens now (as of `last`).
    tokens: f64,
    /// When `tokens` was last brought up to date.
    last: Instant,
    /// Tokens gained a second.
    rate: f64,
    /// Most tokens held.
    burst: f64,
}

impl Bucket {
    /// A full bucket.
    fn full(rate: f64, burst: f64, now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            last: now,
            rate,
            burst,
        }
    }

    fn refill(&mut self, now: Instant) {
        let gained = now.saturating_duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + gained).min(self.burst);
        self.last = now;
    }

    /// Takes a token if there is one.
    fn take(&mut self, now: Instant) -> bool {
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Whether the bucket has refilled completely, so forgetting it changes nothing.
    fn is_full(&mut self, now: Instant) -> bool {
        self.refill(now);
        self.tokens >= self.burst
    }
}

/// The kinds of frame a connection's rates are counted by; the lower-case name is used in
/// errors and `/metrics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub(crate) enum Kind {
    /// `hello`, `join`, `watch`.
    Enter,
    /// `play`.
    Play,
    /// `resign`, the draw messages, `claim_win`, `rematch`, `mute`.
    Act,
    /// `chat`.
    Chat,
    /// A frame that is not a request: not JSON, an unknown type, a binary frame.
    Invalid,
    /// A ping or pong from the client.
    Control,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Enter,
        Kind::Play,
        Kind::Act,
        Kind::Chat,
        Kind::Invalid,
        Kind::Control,
    ];

    /// The kind of a request.
    pub(crate) fn of(request: &ClientMessage) -> Kind {
        match request {
            ClientMessage::Hello { .. }
            | ClientMessage::Join { .. }
            | ClientMessage::Watch { .. }
            | ClientMessage::Follow { .. }
            | ClientMessage::Unfollow { .. }
            | ClientMessage::Seek { .. }
            | ClientMessage::CancelSeek { .. } => Kind::Enter,
            ClientMessage::Play { .. } => Kind::Play,
            ClientMessage::Resign { .. }
            | ClientMessage::OfferDraw { .. }
            | ClientMessage::AcceptDraw { .. }
            | ClientMessage::DeclineDraw { .. }
            | ClientMessage::ClaimWin { .. }
            | ClientMessage::Rematch { .. }
            | ClientMessage::Takeback { .. }
            | ClientMessage::AcceptTakeback { .. }
            | ClientMessage::DeclineTakeback { .. }
            | ClientMessage::Mute { .. } => Kind::Act,
            ClientMessage::Chat { .. } => Kind::Chat,
        }
    }

    /// The kind's name, in errors and `/metrics`.
    pub(crate) fn label(self) -> &'static str {
        self.into()
    }

    /// The default sustained rate (a second) and burst of the kind; PROTOCOL.md lists
    /// them. Far above what a person or a fair program does: a game is a turn every few
    /// seconds, and a connection enters one room.
    const fn default_rate(self) -> (f64, f64) {
        match self {
            Kind::Enter => (1.0, 10.0),
            Kind::Play => (20.0, 40.0),
            Kind::Act => (2.0, 10.0),
            // A line every two seconds, five at once: a conversation, not a flood.
            Kind::Chat => (0.5, 5.0),
            Kind::Invalid => (1.0, 10.0),
            Kind::Control => (5.0, 20.0),
        }
    }
}

/// Refusals a connection may earn before it is closed, and how fast it earns that
/// patience back.
const PATIENCE: (f64, f64) = (0.1, 10.0);

/// What a connection's limits say about one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Within the limits: serve it.
    Pass,
    /// Over its kind's rate: refuse it, with an error.
    Refuse,
    /// Over the rate again and again: close the connection.
    Close,
}

/// A connection's message rates: one bucket per kind, and one for the refusals it earns.
#[derive(Debug)]
pub(crate) struct MessageLimits {
    /// By `Kind as usize`; none when rate limits are off.
    buckets: Option<[Bucket; Kind::ALL.len()]>,
    /// Taken from by every refusal; once empty, the connection is closed.
    patience: Bucket,
}

impl MessageLimits {
    /// Full buckets, their rates and bursts scaled by `scale` (0 turns the limits off).
    pub(crate) fn new(scale: f64, now: Instant) -> MessageLimits {
        let buckets = (scale > 0.0).then(|| {
            Kind::ALL.map(|kind| {
                let (rate, burst) = kind.default_rate();
                Bucket::full(rate * scale, (burst * scale).max(1.0), now)
            })
        });
        MessageLimits {
            buckets,
            patience: Bucket::full(PATIENCE.0, PATIENCE.1, now),
        }
    }

    /// Counts a frame of `kind`.
    pub(crate) fn check(&mut self, kind: Kind, now: Instant) -> Verdict {
        let Some(buckets) = &mut self.buckets else {
            return Verdict::Pass;
        };
        if buckets[kind as usize].take(now) {
            Verdict::Pass
        } else if self.patience.take(now) {
            Verdict::Refuse
        } else {
            Verdict::Close
        }
    }
}

/// Per address: open connections and recent room creations.
#[derive(Debug)]
pub(crate) struct Addresses {
    /// Most connections from one address; 0 for no cap.
    max_connections: usize,
    /// Rooms one address may create a minute; 0 for no cap.
    rooms_per_minute: u32,
    /// The addresses with connections open or rooms created lately.
    table: Mutex<HashMap<IpAddr, Usage>>,
}

/// What one address is using.
#[derive(Debug)]
struct Usage {
    /// Connections open.
    connections: usize,
    /// Rooms it may still create, once it has created one.
    rooms: Option<Bucket>,
}

/// Addresses kept before the table is swept of those that use nothing.
const SWEEP_ABOVE: usize = 4096;

impl Addresses {
    pub(crate) fn new(config: &Config) -> Arc<Addresses> {
        Arc::new(Addresses {
            max_connections: config.max_connections_per_ip,
            rooms_per_minute: config.rooms_per_minute,
            table: Mutex::new(HashMap::new()),
        })
    }

    /// A connection slot for `ip`, or `None` if it holds as many as it may. The slot is
    /// given back when dropped.
    pub(crate) fn connect(self: &Arc<Addresses>, ip: IpAddr) -> Option<AddressSlot> {
        let ip = ip.to_canonical();
        let mut table = self.lock();
        let usage = table.entry(ip).or_insert(Usage {
            connections: 0,
            rooms: None,
        });
        if self.max_connections > 0 && usage.connections >= self.max_connections {
            return None;
        }
        usage.connections += 1;
        Some(AddressSlot {
            addresses: Arc::clone(self),
            ip,
        })
    }

    /// Counts a room created from `ip`; false if it created as many as it may lately.
    pub(crate) fn create_room(&self, ip: IpAddr) -> bool {
        if self.rooms_per_minute == 0 {
            return true;
        }
        let now = Instant::now();
        let burst = f64::from(self.rooms_per_minute);
        let mut table = self.lock();
        if table.len() > SWEEP_ABOVE {
            table.retain(|_, usage| usage.connections > 0 || !usage.idle(now));
        }
        let usage = table.entry(ip.to_canonical()).or_insert(Usage {
            connections: 0,
            rooms: None,
        });
        usage
            .rooms
            .get_or_insert_with(|| Bucket::full(burst / 60.0, burst, now))
            .take(now)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Usage>> {
        // The table stays consistent whatever panicked while holding it.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Usage {
    /// Whether the address neither holds a connection nor is limited in creating rooms.
    fn idle(&mut self, now: Instant) -> bool {
        self.connections == 0 && self.rooms.as_mut().is_none_or(|b| b.is_full(now))
    }
}

/// A token bucket per key (an address, a username): so many a minute, and as many at
/// once. Keys whose bucket has refilled are forgotten when the table grows.
#[derive(Debug)]
pub(crate) struct Throttle<K> {
    /// Most a minute, and at once; 0 for no limit.
    per_minute: u32,
    /// The keys seen lately.
    table: Mutex<HashMap<K, Bucket>>,
}

impl<K: std::hash::Hash + Eq> Throttle<K> {
    /// A throttle allowing `per_minute` a minute per key (0: no limit).
    pub(crate) fn per_minute(per_minute: u32) -> Throttle<K> {
        Throttle {
            per_minute,
            table: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one for `key`; false if it has had as many as it may lately.
    pub(crate) fn allow(&self, key: K) -> bool {
        if self.per_minute == 0 {
            return true;
        }
        let now = Instant::now();
        let burst = f64::from(self.per_minute);
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if table.len() > SWEEP_ABOVE {
            table.retain(|_, bucket| !bucket.is_full(now));
        }
        table
            .entry(key)
            .or_insert_with(|| Bucket::full(burst / 60.0, burst, now))
            .take(now)
    }
}

/// One connection's place in its address's count.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    addresses: Arc<Addresses>,
    ip: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let now = Instant::now();
        let mut table = self.addresses.lock();
        if let Some(usage) = table.get_mut(&self.ip) {
            usage.connections -= 1;
            if usage.idle(now) {
                table.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;
    use std::time::Duration;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_throttle_counts_each_key_apart_and_refills() {
        let throttle = Throttle::per_minute(3);
        for _ in 0..3 {
            assert!(throttle.allow("kris"));
        }
        assert!(!throttle.allow("kris"));
        assert!(throttle.allow("anna"));
        tokio::time::advance(Duration::from_secs(20)).await;
        assert!(throttle.allow("kris"));
        assert!(!throttle.allow("kris"));
        let open = Throttle::per_minute(0);
        assert!((0..100).all(|_| open.allow("kris")));
    }

    #[tokio::test(start_paused = true)]
    async fn a_kind_over_its_rate_is_refused_then_the_connection_closed() {
        let mut limits = MessageLimits::new(1.0, Instant::now());
        let (rate, burst) = Kind::Play.default_rate();
        for _ in 0..burst as usize {
            assert_eq!(limits.check(Kind::Play, Instant::now()), Verdict::Pass);
        }
        // Other kinds have their own buckets.
        assert_eq!(limits.check(Kind::Act, Instant::now()), Verdict::Pass);
        for _ in 0..PATIENCE.1 as usize {
            assert_eq!(limits.check(Kind::Play, Instant::now()), Verdict::Refuse);
        }
        assert_eq!(limits.check(Kind::Play, Instant::now()), Verdict::Close);

        // Tokens come back at the rate.
        let mut limits = MessageLimits::new(1.0, Instant::now());
        for _ in 0..burst as usize {
            limits.check(Kind::Play, Instant::now());
        }
        assert_eq!(limits.check(Kind::Play, Instant::now()), Verdict::Refuse);
        tokio::time::advance(Duration::from_secs_f64(1.0 / rate)).await;
        assert_eq!(limits.check(Kind::Play, Instant::now()), Verdict::Pass);
        assert_eq!(limits.check(Kind::Play, Instant::now()), Verdict::Refuse);
    }

    #[tokio::test(start_paused = true)]
    async fn scale_zero_turns_message_limits_off() {
        let mut limits = MessageLimits::new(0.0, Instant::now());
        for _ in 0..10_000 {
            assert_eq!(limits.check(Kind::Invalid, Instant::now()), Verdict::Pass);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_address_holds_at_most_its_connections_and_gets_them_back() {
        let config = Config {
            max_connections_per_ip: 2,
            ..Config::default()
        };
        let addresses = Addresses::new(&config);
        let home = IpAddr::from(Ipv4Addr::new(192, 0, 2, 1));
        let a = addresses.connect(home).unwrap();
        let _b = addresses.connect(home).unwrap();
        assert!(addresses.connect(home).is_none());
        // The same address written as IPv4-mapped IPv6 is the same address.
        assert!(
            addresses
                .connect(IpAddr::from(Ipv4Addr::new(192, 0, 2, 1).to_ipv6_mapped()))
                .is_none()
        );
        assert!(
            addresses
                .connect(IpAddr::from(Ipv4Addr::new(192, 0, 2, 2)))
                .is_some()
        );
        drop(a);
        assert!(addresses.connect(home).is_some());
        assert!(
            addresses.lock().len() <= 2,
            "addresses with nothing open are forgotten"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_address_creates_so_many_rooms_a_minute() {
        let config = Config {
            rooms_per_minute: 3,
            ..Config::default()
        };
        let addresses = Addresses::new(&config);
        let home = IpAddr::from(Ipv4Addr::LOCALHOST);
        for _ in 0..3 {
            assert!(addresses.create_room(home));
        }
        assert!(!addresses.create_room(home));
        assert!(addresses.create_room(IpAddr::from(Ipv4Addr::new(192, 0, 2, 9))));
        tokio::time::advance(Duration::from_secs(20)).await;
        assert!(addresses.create_room(home));
        assert!(!addresses.create_room(home));
    }
}
