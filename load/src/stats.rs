//! What a run counts and measures, shared by every task, and the report made of it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::LoadConfig;

/// Counters and latency histograms (microseconds, three significant figures, up to a
/// minute).
#[derive(Debug, Default)]
pub(crate) struct Stats {
    /// Connections open now.
    connected: AtomicUsize,
    /// The most connections open at once.
    peak: AtomicUsize,
    /// Turns acknowledged.
    turns: AtomicU64,
    /// Games played to their end.
    games: AtomicU64,
    /// Connections that ended before the run did.
    dropped: AtomicU64,
    /// What went wrong, by kind.
    errors: Mutex<BTreeMap<String, u64>>,
    /// Each latency measured, by what it measures.
    latencies: Mutex<BTreeMap<Measure, Histogram<u64>>>,
}

/// What a latency is the time to: each starts when the mover sends its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Measure {
    /// The mover's `ack`.
    Ack,
    /// The mover's own `turn_played`, which follows the ack.
    Own,
    /// The opponent's `turn_played`.
    Opponent,
    /// The opponent's `your_turn`, when the lists are asked for.
    YourTurn,
    /// The `turn_played` of the room's last spectator.
    Fanout,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A sample list is never left half-changed: a panic elsewhere does not spoil it.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The longest latency recorded exactly: a minute, in microseconds.
const MAX_MICROS: u64 = 60_000_000;

impl Stats {
    pub(crate) fn opened(&self) {
        let now = self.connected.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    pub(crate) fn closed(&self) {
        self.connected.fetch_sub(1, Ordering::Relaxed);
    }

    pub(crate) fn connected(&self) -> usize {
        self.connected.load(Ordering::Relaxed)
    }

    /// A turn was acknowledged after `latency`.
    pub(crate) fn turn(&self, latency: Duration) {
        self.turns.fetch_add(1, Ordering::Relaxed);
        self.latency(Measure::Ack, latency);
    }

    pub(crate) fn turns(&self) -> u64 {
        self.turns.load(Ordering::Relaxed)
    }

    /// Something a turn brings arrived `latency` after the turn was sent.
    pub(crate) fn latency(&self, measure: Measure, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        lock(&self.latencies)
            .entry(measure)
            .or_insert_with(|| Histogram::new_with_bounds(1, MAX_MICROS, 3).expect("valid bounds"))
            .saturating_record(micros.max(1));
    }

    pub(crate) fn game_finished(&self) {
        self.games.fetch_add(1, Ordering::Relaxed);
    }

    /// A connection ended early, for `why`.
    pub(crate) fn dropped(&self, why: String) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
        self.error(why);
    }

    /// Something went wrong; `why` is grouped with others of its kind.
    pub(crate) fn error(&self, why: String) {
        *lock(&self.errors).entry(why).or_default() += 1;
    }

    pub(crate) fn errors(&self) -> u64 {
        lock(&self.errors).values().sum()
    }

    /// What went wrong, by kind.
    pub(crate) fn error_kinds(&self) -> BTreeMap<String, u64> {
        lock(&self.errors).clone()
    }

    pub(crate) fn dropped_count(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// The report of a run that went as `run` says.
    pub(crate) fn report(&self, run: Run<'_>) -> Report {
        let turns = self.turns();
        let rss = |n: usize| run.rss[n];
        let per_connection = match (rss(0), rss(1)) {
            (Some(before), Some(loaded)) if run.held_at_start > 0 => {
                Some(loaded.saturating_sub(before) / run.held_at_start as u64)
            }
            _ => None,
        };
        Report {
            server: run
                .config
                .server
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
            rooms: run.config.rooms,
            spectators_per_room: run.config.spectators,
            idle: run.config.idle,
            rate_asked: run.config.rate,
            connections_asked: run.connections,
            connections_held: run.held_at_start,
            connections_peak: self.peak.load(Ordering::Relaxed),
            setup_seconds: run.setup.as_secs_f64(),
            seconds: run.played.as_secs_f64(),
            turns,
            turns_per_second: turns as f64 / run.played.as_secs_f64(),
            turn_latency: self.latency_of(Measure::Ack),
            own_turn_latency: self.latency_of(Measure::Own),
            opponent_latency: self.latency_of(Measure::Opponent),
            your_turn_latency: run
                .config
                .legal_turns
                .then(|| self.latency_of(Measure::YourTurn)),
            fanout_latency: self.latency_of(Measure::Fanout),
            games_finished: self.games.load(Ordering::Relaxed),
            errors: self.errors(),
            error_kinds: lock(&self.errors).clone(),
            dropped: self.dropped_count(),
            rooms_checked: run.rooms,
            turns_unpersisted: run.unpersisted,
            server_rss_before: rss(0),
            server_rss_loaded: rss(1),
            server_rss_end: rss(2),
            server_bytes_per_connection: per_connection,
            server_cpu_seconds: run.cpu.map(|(seconds, _)| seconds),
            server_cpu_per_turn_us: run
                .cpu
                .filter(|&(_, turns)| turns > 0)
                .map(|(seconds, turns)| seconds * 1e6 / turns as f64),
        }
    }
}

/// How a run went, for its report.
pub(crate) struct Run<'a> {
    /// What was asked.
    pub(crate) config: &'a LoadConfig,
    /// Connections asked for.
    pub(crate) connections: u64,
    /// Connections open when the clock started.
    pub(crate) held_at_start: usize,
    /// Time to open every connection.
    pub(crate) setup: Duration,
    /// Time the players played.
    pub(crate) played: Duration,
    /// Acknowledged turns missing from the records.
    pub(crate) unpersisted: u64,
    /// Rooms whose records were checked.
    pub(crate) rooms: usize,
    /// The server's resident memory before the load, with every connection open, and at
    /// the end.
    pub(crate) rss: [Option<u64>; 3],
    /// The server's CPU time while the players played, in seconds, and the turns
    /// acknowledged meanwhile.
    pub(crate) cpu: Option<(f64, u64)>,
}

impl Stats {
    /// The distribution of `measure`.
    fn latency_of(&self, measure: Measure) -> Latency {
        lock(&self.latencies)
            .get(&measure)
            .map_or_else(Latency::default, Latency::of)
    }
}

/// A latency distribution, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    /// How many were measured.
    pub samples: usize,
    /// The median.
    pub p50_ms: f64,
    /// The 99th percentile.
    pub p99_ms: f64,
    /// The slowest.
    pub max_ms: f64,
}

impl Latency {
    /// The median, 99th percentile and maximum of `histogram` (microseconds).
    pub(crate) fn of(histogram: &Histogram<u64>) -> Latency {
        let ms = |micros: u64| micros as f64 / 1000.0;
        Latency {
            samples: usize::try_from(histogram.len()).unwrap_or(usize::MAX),
            p50_ms: ms(histogram.value_at_quantile(0.50)),
            p99_ms: ms(histogram.value_at_quantile(0.99)),
            max_ms: ms(histogram.max()),
        }
    }
}

/// What a run measured. Serialises as the JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The server's address.
    pub server: String,
    /// Rooms asked for.
    pub rooms: usize,
    /// Spectators in each room.
    pub spectators_per_room: usize,
    /// Idle connections asked for.
    pub idle: usize,
    /// Turns per second asked for.
    pub rate_asked: f64,
    /// Connections asked for.
    pub connections_asked: u64,
    /// Connections open when play started.
    pub connections_held: usize,
    /// The most connections open at once.
    pub connections_peak: usize,
    /// Time to create the rooms and open every connection.
    pub setup_seconds: f64,
    /// Time the players played.
    pub seconds: f64,
    /// Turns acknowledged.
    pub turns: u64,
    /// Turns acknowledged per second of play.
    pub turns_per_second: f64,
    /// From sending a turn to the mover's ack.
    pub turn_latency: Latency,
    /// From sending a turn to the mover's own `turn_played` (after the ack).
    pub own_turn_latency: Latency,
    /// From sending a turn to the opponent's `turn_played`: when the opponent sees it.
    pub opponent_latency: Latency,
    /// From sending a turn to the opponent's `your_turn` with the legal turns, when the
    /// lists are asked for (`--legal-turns`): when the opponent may answer.
    pub your_turn_latency: Option<Latency>,
    /// From sending a turn to its arrival at the room's last spectator.
    pub fanout_latency: Latency,
    /// Games played to their end (a finished room is replaced by a new one).
    pub games_finished: u64,
    /// Everything that went wrong.
    pub errors: u64,
    /// What went wrong, by kind.
    pub error_kinds: BTreeMap<String, u64>,
    /// Connections that ended before the run did (counted among the errors too).
    pub dropped: u64,
    /// Rooms whose records were fetched at the end.
    pub rooms_checked: usize,
    /// Acknowledged turns missing from those records: must be 0.
    pub turns_unpersisted: u64,
    /// The server's resident memory before the load, in bytes.
    pub server_rss_before: Option<u64>,
    /// The server's resident memory with every connection open.
    pub server_rss_loaded: Option<u64>,
    /// The server's resident memory at the end of play.
    pub server_rss_end: Option<u64>,
    /// Memory the server gained per connection held.
    pub server_bytes_per_connection: Option<u64>,
    /// The server's CPU time (user and system) while the players played, in seconds
    /// (`/proc/PID/stat`, to the hundredth).
    pub server_cpu_seconds: Option<f64>,
    /// That CPU time over the turns acknowledged meanwhile, in microseconds.
    pub server_cpu_per_turn_us: Option<f64>,
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
            self.p50_ms, self.p99_ms, self.max_ms, self.samples
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |bytes: Option<u64>| match bytes {
            Some(b) => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
            None => "unknown".into(),
        };
        writeln!(
            f,
            "load on {}: {} rooms x (2 players + {} spectators) + {} idle = {} connections",
            self.server, self.rooms, self.spectators_per_room, self.idle, self.connections_asked
        )?;
        writeln!(
            f,
            "connections held   {} (peak {}), set up in {:.1} s",
            self.connections_held, self.connections_peak, self.setup_seconds
        )?;
        writeln!(
            f,
            "turns              {} in {:.1} s = {:.1}/s (asked {}/s), {} games finished",
            self.turns, self.seconds, self.turns_per_second, self.rate_asked, self.games_finished
        )?;
        writeln!(f, "ack                {}", self.turn_latency)?;
        writeln!(f, "own turn_played    {}", self.own_turn_latency)?;
        writeln!(f, "opponent's turn    {}", self.opponent_latency)?;
        if let Some(your_turn) = &self.your_turn_latency {
            writeln!(f, "your_turn (lists)  {your_turn}")?;
        }
        writeln!(f, "fan-out            {}", self.fanout_latency)?;
        writeln!(
            f,
            "errors             {} ({} dropped connections)",
            self.errors, self.dropped
        )?;
        for (why, count) in &self.error_kinds {
            writeln!(f, "  {count} x {why}")?;
        }
        writeln!(
            f,
            "persisted          {} rooms checked, {} acknowledged turns missing",
            self.rooms_checked, self.turns_unpersisted
        )?;
        write!(
            f,
            "server memory      {} before, {} loaded, {} at the end",
            mib(self.server_rss_before),
            mib(self.server_rss_loaded),
            mib(self.server_rss_end)
        )?;
        if let Some(per) = self.server_bytes_per_connection {
            write!(f, ", {:.1} KiB per connection", per as f64 / 1024.0)?;
        }
        if let Some(seconds) = self.server_cpu_seconds {
            write!(
                f,
                "\nserver CPU         {seconds:.2} s in {:.1} s ({:.2} cores)",
                self.seconds,
                seconds / self.seconds
            )?;
            if let Some(per_turn) = self.server_cpu_per_turn_us {
                write!(f, ", {per_turn:.0} µs per acknowledged turn")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_come_from_the_histogram() {
        let stats = Stats::default();
        for ms in 1..=100 {
            stats.latency(Measure::Opponent, Duration::from_millis(ms));
        }
        let latency = stats.latency_of(Measure::Opponent);
        assert_eq!(latency.samples, 100);
        // Three significant figures: within a tenth of a percent.
        assert!((latency.p50_ms - 50.0).abs() < 0.1, "{latency}");
        assert!((latency.p99_ms - 99.0).abs() < 0.1, "{latency}");
        assert!((latency.max_ms - 100.0).abs() < 0.1, "{latency}");
        assert_eq!(stats.latency_of(Measure::Fanout), Latency::default());
    }
}
