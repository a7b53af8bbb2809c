//! The computer opponent of a room created against it: `punct-engine` thinking on a
//! blocking thread while the room's actor goes on answering everyone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use punct_engine::{Engine, Level, Limits};
use punct_rules::{Color, Game, Turn};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::clock::Clock;

/// The least time the computer takes for a turn, however short its clock.
const MIN_THINK: Duration = Duration::from_millis(50);

/// A seat the server's engine plays.
#[derive(Debug)]
pub(crate) struct Computer {
    /// Its colour.
    pub(crate) color: Color,
    /// Its level, as the player chose it.
    pub(crate) level: u8,
    /// The engine; it keeps no state between turns.
    engine: Arc<Engine>,
}

/// A turn being thought about. Dropping it stops the search.
#[derive(Debug)]
pub(crate) struct Thinking {
    /// Raised to make the search return at once.
    stop: Arc<AtomicBool>,
    /// The turn chosen (none if the game was over).
    answer: oneshot::Receiver<Option<Turn>>,
}

impl Computer {
    /// The computer playing `color` at `level`, if that level exists.
    pub(crate) fn new(color: Color, level: u8) -> Option<Computer> {
        let engine = Engine::new(Level::new(level)?);
        Some(Computer {
            color,
            level,
            engine: Arc::new(engine),
        })
    }

    /// Starts choosing a turn in `game` within `budget`.
    pub(crate) fn think(&self, game: &Game, budget: Duration) -> Thinking {
        let stop = Arc::new(AtomicBool::new(false));
        let (tell, answer) = oneshot::channel();
        let limits = Limits::within(budget).with_stop(Arc::clone(&stop));
        let (engine, game) = (Arc::clone(&self.engine), game.clone());
        tokio::task::spawn_blocking(move || {
            let _ = tell.send(engine.think(&game, &limits).map(|choice| choice.turn));
        });
        Thinking { stop, answer }
    }
}

impl Thinking {
    /// The turn chosen; `None` if the game was over or the thread failed.
    pub(crate) async fn answer(&mut self) -> Option<Turn> {
        (&mut self.answer).await.ok().flatten()
    }
}

impl Drop for Thinking {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// How long the computer of `color` may think: `think_time`, but in a timed game never
/// more than a fair share of its clock (a twentieth of what is left plus half the
/// increment), so that it does not lose on time.
pub(crate) fn budget(
    think_time: Duration,
    clock: Option<&Clock>,
    color: Color,
    now: Instant,
) -> Duration {
    let Some(clock) = clock else {
        return think_time;
    };
    let increment = Duration::from_secs(clock.control().increment.into());
    let share = clock.left(color, now) / 20 + increment / 2;
    think_time.min(share).max(MIN_THINK)
}

#[cfg(test)]
mod tests {
    use punct_protocol::TimeControl;

    use super::*;

    #[test]
    fn only_real_levels_are_seated() {
        assert!(Computer::new(Color::Black, 0).is_none());
        assert!(Computer::new(Color::Black, Level::STRONGEST + 1).is_none());
        assert_eq!(Computer::new(Color::Black, 1).map(|c| c.level), Some(1));
    }

    #[tokio::test(start_paused = true)]
    async fn the_budget_is_a_fair_share_of_the_clock() {
        let now = Instant::now();
        let second = Duration::from_secs(1);
        assert_eq!(budget(second, None, Color::White, now), second);
        // Five minutes and two seconds a turn: the think time is the smaller.
        let roomy = Clock::new(TimeControl {
            base: 300,
            increment: 2,
        });
        assert_eq!(budget(second, Some(&roomy), Color::White, now), second);
        // Ten seconds: half a second.
        let short = Clock::new(TimeControl {
            base: 10,
            increment: 0,
        });
        assert_eq!(
            budget(second, Some(&short), Color::White, now),
            Duration::from_millis(500)
        );
        // One second: never under the floor.
        let tiny = Clock::new(TimeControl {
            base: 1,
            increment: 0,
        });
        assert_eq!(budget(second, Some(&tiny), Color::White, now), MIN_THINK);
    }

    #[tokio::test]
    async fn it_answers_a_legal_turn() {
        let computer = Computer::new(Color::White, 2).unwrap();
        let game = Game::new(punct_rules::Variant::Standard);
        let turn = computer
            .think(&game, Duration::from_millis(100))
            .answer()
            .await
            .expect("a turn");
        assert!(game.is_legal(turn).is_ok());
    }
}
