//! A game's two clocks. The server is the only timekeeper: clients are told how much time
//! each side had when a message was made, and whose clock runs.
//!
//! White's first turn is not timed; from then on the clock of the player to move runs
//! from the moment the opponent's turn was accepted. A turn adds the increment to its
//! player's clock, or in a correspondence game sets it back to the days per move.

use std::time::Duration;

use punct_protocol::{ClockView, TimeControl};
use punct_rules::Color;
use tokio::time::Instant;

/// Both clocks of a timed game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Clock {
    /// The time control: a rematch is played with the same.
    control: TimeControl,
    /// Added to a player's time with each turn they play.
    increment: Duration,
    /// In a correspondence game, the time each move may take: a player's time is set
    /// back to it after each of their turns.
    per_move: Option<Duration>,
    /// White's and Black's time left when the running clock started.
    left: [Duration; 2],
    /// Whose clock runs, and since when; `None` before the first turn and once stopped.
    running: Option<(Color, Instant)>,
}

impl Clock {
    /// Fresh clocks for `control`.
    pub(crate) fn new(control: TimeControl) -> Clock {
        let [base, increment] = Clock::control_ms(control).map(Duration::from_millis);
        Clock {
            control,
            increment,
            per_move: control.days.map(|_| base),
            left: [base; 2],
            running: None,
        }
    }

    /// Clocks as stored: the time control and the times left after the last turn, the
    /// clock of `to_move` starting now. The time the room was not running is not
    /// charged (the server was down), except in a correspondence game: its room sleeps
    /// between moves, and the `slept` since the last turn count.
    pub(crate) fn resumed(
        control: TimeControl,
        left_ms: Option<[u64; 2]>,
        to_move: Color,
        slept: Duration,
    ) -> Clock {
        let mut clock = Clock::new(control);
        if let Some(left) = left_ms {
            clock.left = left.map(Duration::from_millis);
            if clock.per_move.is_some() {
                let mover = &mut clock.left[to_move as usize];
                *mover = mover.saturating_sub(slept);
            }
            clock.running = Some((to_move, Instant::now()));
        }
        clock
    }

    /// The time control the clocks started with.
    pub(crate) fn control(&self) -> TimeControl {
        self.control
    }

    /// Whether this is a correspondence game's clock, days per move.
    pub(crate) fn is_correspondence(&self) -> bool {
        self.per_move.is_some()
    }

    /// The time control, in milliseconds: base and increment (for the store). Days per
    /// move are a base of those days and no increment.
    pub(crate) fn control_ms(control: TimeControl) -> [u64; 2] {
        const DAY_MS: u64 = 24 * 3600 * 1000;
        match control.days {
            Some(days) => [u64::from(days) * DAY_MS, 0],
            None => [control.base, control.increment].map(|s| u64::from(s) * 1000),
        }
    }

    /// Time left for `color` at `now`.
    pub(crate) fn left(&self, color: Color, now: Instant) -> Duration {
        let left = self.left[color as usize];
        match self.running {
            Some((running, since)) if running == color => left.saturating_sub(now - since),
            _ => left,
        }
    }

    /// When the running clock reaches zero.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.running
            .map(|(color, since)| since + self.left[color as usize])
    }

    /// Whose clock has run out at `now`.
    pub(crate) fn flagged(&self, now: Instant) -> Option<Color> {
        self.deadline()
            .filter(|&deadline| deadline <= now)
            .and(self.running.map(|(color, _)| color))
    }

    /// `mover`'s turn was accepted at `now`: their clock stops and gains the increment,
    /// the opponent's starts.
    pub(crate) fn punch(&mut self, mover: Color, now: Instant) {
        let left = self.left(mover, now);
        self.left[mover as usize] = match self.per_move {
            // White's first turn is not timed.
            _ if self.running.is_none() => left,
            Some(per_move) => per_move,
            None => left + self.increment,
        };
        self.running = Some((mover.opponent(), now));
    }

    /// Turns were taken back at `now`, leaving `to_move` to move after `played` turns:
    /// the running clock stops, keeping the time it spent (nobody gets time back), and
    /// `to_move`'s starts, unless the game is back at its untimed first turn.
    pub(crate) fn take_back(&mut self, to_move: Color, played: usize, now: Instant) {
        self.stop(now);
        if played > 0 {
            self.running = Some((to_move, now));
        }
    }

    /// Stops the running clock at `now` (the game is over).
    pub(crate) fn stop(&mut self, now: Instant) {
        if let Some((color, _)) = self.running {
            self.left[color as usize] = self.left(color, now);
            self.running = None;
        }
    }

    /// White's and Black's time left at `now`, in milliseconds (for the store).
    pub(crate) fn left_ms(&self, now: Instant) -> [u64; 2] {
        Color::ALL.map(|color| millis(self.left(color, now)))
    }

    /// The clocks as clients see them at `now`.
    pub(crate) fn view(&self, now: Instant) -> ClockView {
        let [white_ms, black_ms] = self.left_ms(now);
        ClockView {
            white_ms,
            black_ms,
            running: self.running.map(|(color, _)| color),
            increment_ms: millis(self.increment),
            days: self.control.days,
        }
    }
}

/// Whole milliseconds, as the protocol counts them.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Milliseconds since the Unix epoch.
#[cfg(not(test))]
pub(crate) fn now() -> i64 {
    system_now()
}

/// Milliseconds since the Unix epoch, as the system's time when first asked and tokio's
/// clock from then on: a unit test that pauses time and advances it by days moves the
/// stored times with it (a correspondence game's days). Called off the runtime (the
/// SQLite thread), it follows the real time.
#[cfg(test)]
pub(crate) fn now() -> i64 {
    static START: std::sync::OnceLock<(i64, std::time::Instant)> = std::sync::OnceLock::new();
    let (wall, start) = *START.get_or_init(|| (system_now(), std::time::Instant::now()));
    let now = tokio::time::Instant::now().into_std();
    let ms = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
    if now >= start {
        wall + ms(now - start)
    } else {
        wall - ms(start - now)
    }
}

fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_player_to_move_spends_time_and_gains_the_increment() {
        let mut clock = Clock::new(TimeControl::clock(60, 5));
        let start = Instant::now();
        assert_eq!(clock.deadline(), None, "nothing runs before the first turn");
        // White's first turn, ten seconds in, costs nothing and earns nothing.
        clock.punch(Color::White, start + Duration::from_secs(10));
        assert_eq!(clock.left(Color::White, start), Duration::from_secs(60));
        // Black thinks for 20 s: 60 - 20 + 5.
        clock.punch(Color::Black, start + Duration::from_secs(30));
        assert_eq!(clock.left(Color::Black, start), Duration::from_secs(45));
        // White's clock runs now: it falls 60 s after Black's turn.
        assert_eq!(clock.deadline(), Some(start + Duration::from_secs(90)));
        assert_eq!(clock.flagged(start + Duration::from_secs(89)), None);
        assert_eq!(
            clock.flagged(start + Duration::from_secs(90)),
            Some(Color::White)
        );
        let view = clock.view(start + Duration::from_secs(40));
        assert_eq!(
            (view.white_ms, view.black_ms, view.running),
            (50_000, 45_000, Some(Color::White))
        );
        clock.stop(start + Duration::from_secs(40));
        assert_eq!(clock.deadline(), None);
        assert_eq!(
            clock.left_ms(start + Duration::from_secs(99)),
            [50_000, 45_000]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_takeback_gives_no_time_back_and_starts_the_clock_of_the_player_to_move() {
        let mut clock = Clock::new(TimeControl::clock(60, 0));
        let start = Instant::now();
        clock.punch(Color::White, start);
        clock.punch(Color::Black, start + Duration::from_secs(10));
        // White thinks 5 s, then Black's turn is taken back: Black is to move again, with
        // the 10 s spent gone for good, and White keeps the 55 s left.
        let at = start + Duration::from_secs(15);
        clock.take_back(Color::Black, 1, at);
        let view = clock.view(at);
        assert_eq!(
            (view.white_ms, view.black_ms, view.running),
            (55_000, 50_000, Some(Color::Black))
        );
        // Back to before the first turn: no clock runs, as at the start.
        clock.take_back(Color::White, 0, at);
        assert_eq!(clock.deadline(), None);
        assert_eq!(clock.view(at).running, None);
    }

    #[tokio::test(start_paused = true)]
    async fn resumed_clocks_do_not_charge_the_downtime() {
        let control = TimeControl::clock(60, 1);
        let hour = Duration::from_secs(3600);
        let clock = Clock::resumed(control, Some([12_000, 30_000]), Color::Black, hour);
        let now = Instant::now();
        assert_eq!(clock.left(Color::Black, now), Duration::from_secs(30));
        assert_eq!(clock.deadline(), Some(now + Duration::from_secs(30)));
        let fresh = Clock::resumed(control, None, Color::White, hour);
        assert_eq!(fresh.deadline(), None, "no turn yet: nothing runs");
    }

    #[tokio::test(start_paused = true)]
    async fn days_per_move_set_the_time_back_and_count_while_the_room_sleeps() {
        const DAY: Duration = Duration::from_secs(24 * 3600);
        let control = TimeControl::days(3);
        assert_eq!(Clock::control_ms(control), [3 * 86_400_000, 0]);
        let mut clock = Clock::new(control);
        assert!(clock.is_correspondence());
        let start = Instant::now();
        clock.punch(Color::White, start);
        // Black takes two days, and has three again for the next move.
        clock.punch(Color::Black, start + 2 * DAY);
        assert_eq!(clock.left(Color::Black, start), 3 * DAY);
        assert_eq!(clock.deadline(), Some(start + 5 * DAY));
        assert_eq!(clock.view(start).days, Some(3));
        // Loaded again one day after Black's turn: White has two days left, not three.
        let left = clock.left_ms(start + 2 * DAY);
        let resumed = Clock::resumed(control, Some(left), Color::White, DAY);
        let now = Instant::now();
        assert_eq!(resumed.left(Color::White, now), 2 * DAY);
        // More than three days asleep: the flag falls at once.
        let late = Clock::resumed(control, Some(left), Color::White, 4 * DAY);
        assert_eq!(late.flagged(now), Some(Color::White));
    }
}
