//! The computer opponent of rooms created against it: `punct-engine` thinking on a small,
//! bounded pool of threads while the rooms' actors go on answering everyone.
//!
//! A search is CPU-bound for its whole budget. Were every computer room to start one on
//! a thread of its own, twenty rooms on two cores would each get a tenth of a core and
//! play far below their level. Instead at most `threads` searches run at once; the others
//! wait their turn in order, and each search gets its full budget once it starts (in a
//! timed game, the budget is its share of the clock as it stands when the search starts,
//! so waiting costs time, never strength).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use punct_engine::{Choice, Engine, Level, Limits};
use punct_rules::{Color, Game};
use tokio::sync::{Semaphore, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::clock::Clock;

/// The least time the computer takes for a turn, however short its clock.
const MIN_THINK: Duration = Duration::from_millis(50);

/// The name the computer plays under at `level`, shown in the lobby, the room, the
/// archive and records. No player may take it (see `accounts`).
pub(crate) fn name(level: u8) -> String {
    format!("Computer (level {level})")
}

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

impl Computer {
    /// The computer playing `color` at `level` in the room `room`, if that level exists.
    /// Its random choices are seeded by the room's id: each game varies, and a game the
    /// room plays on after a restart or on another node chooses as it would have.
    pub(crate) fn new(color: Color, level: u8, room: &str) -> Option<Computer> {
        let engine = Engine::for_game(Level::new(level)?, room);
        Some(Computer {
            color,
            level,
            engine: Arc::new(engine),
        })
    }
}

/// Where every computer seat thinks: at most so many searches at once, the others
/// waiting their turn. Cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Computers {
    /// One permit per search thread.
    threads: Arc<Semaphore>,
    /// How many threads there are.
    size: usize,
    /// Searches waiting for a thread.
    waiting: Arc<AtomicUsize>,
    /// How long a search may take, at most.
    think_time: Duration,
}

/// How busy the pool is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PoolLoad {
    /// Searches running.
    pub(crate) running: usize,
    /// Searches waiting for a thread.
    pub(crate) waiting: usize,
}

/// A turn being thought about (or waiting for a thread). Dropping it stops the search.
#[derive(Debug)]
pub(crate) struct Thinking {
    /// Raised to make the search return at once.
    stop: Arc<AtomicBool>,
    /// The turn chosen.
    answer: oneshot::Receiver<Chosen>,
    /// The task that waits for a thread: aborted if the turn is no longer wanted.
    task: AbortHandle,
}

/// What a search came to.
#[derive(Debug, Default)]
pub(crate) struct Chosen {
    /// The engine's choice (none if the game was over or the search failed).
    pub(crate) choice: Option<Choice>,
    /// How long the search waited for a thread.
    pub(crate) waited: Duration,
    /// How long it was given.
    pub(crate) budget: Duration,
}

impl Computers {
    /// A pool of `threads` search threads (0: one less than the machine's cores, at least
    /// one), each search given `think_time` at most.
    pub(crate) fn new(threads: usize, think_time: Duration) -> Computers {
        let size = match threads {
            0 => std::thread::available_parallelism()
                .map_or(1, |n| n.get().saturating_sub(1))
                .max(1),
            n => n,
        };
        Computers {
            threads: Arc::new(Semaphore::new(size)),
            size,
            waiting: Arc::new(AtomicUsize::new(0)),
            think_time,
        }
    }

    /// Searches running and waiting now.
    pub(crate) fn load(&self) -> PoolLoad {
        PoolLoad {
            running: self.size - self.threads.available_permits(),
            waiting: self.waiting.load(Ordering::Relaxed),
        }
    }

    /// Starts choosing `computer`'s turn in `game` once a thread is free. `clock` is the
    /// game's clocks now, if it is timed: the budget is reckoned from them when the
    /// search starts.
    pub(crate) fn think(&self, computer: &Computer, game: &Game, clock: Option<Clock>) -> Thinking {
        let stop = Arc::new(AtomicBool::new(false));
        let (tell, answer) = oneshot::channel();
        let (pool, engine, game) = (self.clone(), Arc::clone(&computer.engine), game.clone());
        let (color, stopped) = (computer.color, Arc::clone(&stop));
        let task = tokio::spawn(async move {
            let queued = Instant::now();
            let waiting = Waiting::new(&pool.waiting);
            let Ok(thread) = Arc::clone(&pool.threads).acquire_owned().await else {
                return;
            };
            drop(waiting);
            let now = Instant::now();
            let budget = budget(pool.think_time, clock.as_ref(), color, now);
            let limits = Limits::within(budget).with_stop(stopped);
            let choice = tokio::task::spawn_blocking(move || {
                // The thread is given back when the search returns, even if nobody
                // waits for its answer any more.
                let _thread = thread;
                engine.think(&game, &limits)
            })
            .await
            .ok()
            .flatten();
            let _ = tell.send(Chosen {
                choice,
                waited: now - queued,
                budget,
            });
        });
        Thinking {
            stop,
            answer,
            task: task.abort_handle(),
        }
    }
}

/// Counts a search as waiting for a thread while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(count: &'a AtomicUsize) -> Waiting<'a> {
        count.fetch_add(1, Ordering::Relaxed);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Thinking {
    /// What the search came to; an empty choice if it failed.
    pub(crate) async fn answer(&mut self) -> Chosen {
        (&mut self.answer).await.unwrap_or_default()
    }
}

impl Drop for Thinking {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.task.abort();
    }
}

/// How long the computer of `color` may think: `think_time`, but in a timed game never
/// more than a fair share of its clock (a twentieth of what is left plus half the
/// increment), so that it does not lose on time.
fn budget(think_time: Duration, clock: Option<&Clock>, color: Color, now: Instant) -> Duration {
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
        assert!(Computer::new(Color::Black, 0, "r").is_none());
        assert!(Computer::new(Color::Black, Level::STRONGEST + 1, "r").is_none());
        assert_eq!(
            Computer::new(Color::Black, 1, "r").map(|c| c.level),
            Some(1)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_budget_is_a_fair_share_of_the_clock() {
        let now = Instant::now();
        let second = Duration::from_secs(1);
        assert_eq!(budget(second, None, Color::White, now), second);
        // Five minutes and two seconds a turn: the think time is the smaller.
        let roomy = Clock::new(TimeControl::clock(300, 2));
        assert_eq!(budget(second, Some(&roomy), Color::White, now), second);
        // Ten seconds: half a second.
        let short = Clock::new(TimeControl::clock(10, 0));
        assert_eq!(
            budget(second, Some(&short), Color::White, now),
            Duration::from_millis(500)
        );
        // One second: never under the floor.
        let tiny = Clock::new(TimeControl::clock(1, 0));
        assert_eq!(budget(second, Some(&tiny), Color::White, now), MIN_THINK);
    }

    #[tokio::test]
    async fn it_answers_a_legal_turn() {
        let computers = Computers::new(1, Duration::from_millis(100));
        let computer = Computer::new(Color::White, 2, "r").unwrap();
        let game = Game::new(punct_rules::Variant::Standard);
        let chosen = computers.think(&computer, &game, None).answer().await;
        let turn = chosen.choice.expect("a turn").turn;
        assert!(game.is_legal(turn).is_ok());
        assert_eq!(chosen.budget, Duration::from_millis(100));
    }

    #[tokio::test]
    async fn searches_beyond_the_pool_wait_their_turn_and_get_their_full_budget() {
        let budget = Duration::from_millis(150);
        let computers = Computers::new(1, budget);
        let computer = Computer::new(Color::White, 4, "r").unwrap();
        let game = Game::new(punct_rules::Variant::Standard);
        let mut thinking: Vec<Thinking> = (0..3)
            .map(|_| computers.think(&computer, &game, None))
            .collect();
        // One runs; the other two wait.
        while computers.load().running == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            computers.load(),
            PoolLoad {
                running: 1,
                waiting: 2
            }
        );
        let mut waited = Vec::new();
        for search in &mut thinking {
            let chosen = search.answer().await;
            assert!(chosen.choice.is_some());
            assert_eq!(
                chosen.budget, budget,
                "a search waits, then thinks its full time"
            );
            waited.push(chosen.waited);
        }
        // The last waited for the two before it.
        assert!(waited[2] >= budget, "{waited:?}");
        // A search given up while it waits leaves the queue.
        let first = computers.think(&computer, &game, None);
        let second = computers.think(&computer, &game, None);
        while computers.load().waiting == 0 {
            tokio::task::yield_now().await;
        }
        drop(second);
        while computers.load().waiting != 0 {
            tokio::task::yield_now().await;
        }
        drop(first);
    }
}
