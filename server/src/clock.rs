//! A game's two clocks. The server is the only timekeeper: clients are told how much time
//! each side had when a message was made, and whose clock runs.
//!
//! White's first turn is not timed; from then on the clock of the player to move runs
//! from the moment the opponent's turn was accepted. A turn adds the increment to its
//! player's clock.

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
    /// White's and Black's time left when the running clock started.
    left: [Duration; 2],
    /// Whose clock runs, and since when; `None` before the first turn and once stopped.
    running: Option<(Color, Instant)>,
}

impl Clock {
    /// Fresh clocks for `control`.
    pub(crate) fn new(control: TimeControl) -> Clock {
        let base = Duration::from_secs(control.base.into());
        Clock {
            control,
            increment: Duration::from_secs(control.increment.into()),
            left: [base; 2],
            running: None,
        }
    }

    /// Clocks as stored: the time control and the times left after the last turn, the
    /// clock of `to_move` starting now (the time the server was down is not charged).
    pub(crate) fn resumed(
        control_ms: [u64; 2],
        left_ms: Option<[u64; 2]>,
        to_move: Color,
    ) -> Clock {
        let left = left_ms.unwrap_or([control_ms[0]; 2]);
        let seconds = |ms: u64| u32::try_from(ms / 1000).unwrap_or(u32::MAX);
        Clock {
            control: TimeControl {
                base: seconds(control_ms[0]),
                increment: seconds(control_ms[1]),
            },
            increment: Duration::from_millis(control_ms[1]),
            left: left.map(Duration::from_millis),
            running: left_ms.map(|_| (to_move, Instant::now())),
        }
    }

    /// The time control the clocks started with.
    pub(crate) fn control(&self) -> TimeControl {
        self.control
    }

    /// The time control, in milliseconds: base and increment (for the store).
    pub(crate) fn control_ms(control: TimeControl) -> [u64; 2] {
        [control.base, control.increment].map(|s| u64::from(s) * 1000)
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
        self.left[mover as usize] = if self.running.is_some() {
            left + self.increment
        } else {
            // White's first turn is not timed.
            left
        };
        self.running = Some((mover.opponent(), now));
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
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_player_to_move_spends_time_and_gains_the_increment() {
        let mut clock = Clock::new(TimeControl {
            base: 60,
            increment: 5,
        });
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
    async fn resumed_clocks_do_not_charge_the_downtime() {
        let clock = Clock::resumed([60_000, 1_000], Some([12_000, 30_000]), Color::Black);
        let now = Instant::now();
        assert_eq!(clock.left(Color::Black, now), Duration::from_secs(30));
        assert_eq!(clock.deadline(), Some(now + Duration::from_secs(30)));
        let fresh = Clock::resumed([60_000, 1_000], None, Color::White);
        assert_eq!(fresh.deadline(), None, "no turn yet: nothing runs");
    }
}
