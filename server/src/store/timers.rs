//! The rooms that time acts on: those with a running clock, those left so long they
//! expire, and correspondence games whose mover is running out of days.

use punct_rules::{Color, Outcome, WinReason};

use super::db::Store;
use super::driver::{Conn, FromRow, Row, params};
use super::error::StoreError;
use super::model::{both, running_left};
use super::outbox::Notice;
use super::rooms::{Stale, StaleEnd, Write, to_move};
use crate::clock::now;

/// A correspondence game whose player to move has a quarter of the move's days left or
/// less.
#[derive(Clone, Debug)]
pub(crate) struct RunningOut {
    /// Its room.
    pub(crate) room: String,
    /// The player to move.
    pub(crate) color: Color,
    /// What they are told.
    pub(crate) notice: Notice,
}

/// What a database tells of an unfinished room for judging whether it went stale.
#[derive(Debug)]
pub(crate) struct Activity {
    /// When it was created, in milliseconds since the Unix epoch.
    pub(crate) created_at: i64,
    /// When its last turn was played, if one was.
    pub(crate) last_turn_at: Option<i64>,
    /// Whether both seats are given out.
    pub(crate) seated: bool,
    /// The seat the computer plays.
    pub(crate) computer: Option<Color>,
    /// Turns played.
    pub(crate) turns: usize,
    /// In a correspondence game, the days each move may take.
    pub(crate) days: Option<u8>,
    /// Both clocks after the last turn, if it was timed.
    pub(crate) clocks_left: Option<[u64; 2]>,
}

impl Activity {
    /// In a correspondence game whose clock runs, the player to move, the turn awaited
    /// and when their time runs out, if no more than a quarter of the move's days (and
    /// some time) is left at `now`.
    pub(crate) fn running_out(&self, now: i64) -> Option<(Color, Notice)> {
        let (days, left, at) = (self.days?, self.clocks_left?, self.last_turn_at?);
        let mover = to_move(self.turns);
        let remaining = running_left(left, mover, at, now);
        let quarter = u64::from(days) * 86_400_000 / 4;
        let deadline = at.saturating_add(i64::try_from(left[mover as usize]).ok()?);
        (remaining > 0 && remaining <= quarter).then_some((
            mover,
            Notice::TimeRunningOut {
                number: self.turns + 1,
                deadline,
            },
        ))
    }

    /// What becomes of the room, if it went stale: one created before `open_before`
    /// whose seat nobody took is deleted; a game with both seats taken in which nobody
    /// played since `abandoned_before` ends as if the player waited for had been claimed
    /// against (the player to move loses by abandonment). A game where the computer is
    /// to move is never stale: the computer plays on. A correspondence game whose clock
    /// runs ends by it instead: the player to move loses on time once out of days at
    /// `now` (the room is not in memory, so no timer of its own sees it).
    pub(crate) fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
        now: i64,
    ) -> Option<StaleEnd> {
        let waited_for = to_move(self.turns);
        let active = self.last_turn_at.unwrap_or(self.created_at);
        if let (Some(_), Some(left), Some(at)) = (self.days, self.clocks_left, self.last_turn_at) {
            return (running_left(left, waited_for, at, now) == 0).then_some(StaleEnd::Finish(
                Outcome::Win {
                    winner: waited_for.opponent(),
                    reason: WinReason::Time,
                },
            ));
        }
        if !self.seated && self.created_at < open_before {
            Some(StaleEnd::Expire)
        } else if self.seated && active < abandoned_before && self.computer != Some(waited_for) {
            Some(StaleEnd::Finish(Outcome::Win {
                winner: waited_for.opponent(),
                reason: WinReason::Abandonment,
            }))
        } else {
            None
        }
    }
}

impl Store {
    /// The rooms whose game is not over and that need a timer running: a timed game whose
    /// clock runs (the first turn is played), or a game where the computer is to move.
    pub(crate) async fn with_timers(&self) -> Result<Vec<String>, StoreError> {
        self.db.run(|db| Box::pin(with_timers(db))).await
    }

    /// The unfinished rooms gone stale (see [`Activity::stale`]), given the times of
    /// `open_before`, `abandoned_before` and `now` (milliseconds since the Unix epoch).
    pub(crate) async fn stale(
        &self,
        open_before: i64,
        abandoned_before: i64,
        now: i64,
    ) -> Result<Vec<Stale>, StoreError> {
        self.db
            .run(move |db| Box::pin(stale(db, open_before, abandoned_before, now)))
            .await
    }

    /// The correspondence games whose player to move has a quarter of the move's days
    /// left or less at `now` (see [`Activity::running_out`]).
    pub(crate) async fn running_out(&self, now: i64) -> Result<Vec<RunningOut>, StoreError> {
        self.db.run(move |db| Box::pin(running_out(db, now))).await
    }

    /// Queues `due`'s notice for its player, unless the outbox holds it already (it was
    /// queued at an earlier sweep); answers whether it queued it.
    pub(crate) async fn remind(&self, due: RunningOut) -> Result<bool, StoreError> {
        let at = now();
        // Under the lock every node takes, so that two nodes sweeping at once cannot both
        // find the reminder missing and queue it twice.
        self.db
            .exclusive(move |db| {
                Box::pin(async move {
                    super::outbox::queue_once(db, &due.room, due.color, &due.notice, at).await
                })
            })
            .await
    }

    /// Deletes or finishes the stale rooms of `stale` that have not been loaded since
    /// they were found (nor finished, nor had their seat taken); answers how many. With
    /// `mail`, the players of each correspondence game it finishes are mailed.
    pub(crate) async fn expire(&self, stale: Vec<Stale>, mail: bool) -> Result<usize, StoreError> {
        self.write(Write::Expire {
            stale,
            mail,
            at: now(),
        })
        .await
    }
}

/// The rooms whose game is not over and that need a timer running: a timed game whose
/// clock runs (the first turn is played), or a game where the computer is to move.
async fn with_timers(db: &dyn Conn) -> Result<Vec<String>, StoreError> {
    let mut ids = Vec::new();
    for row in db.query(WITH_TIMERS, &[]).await? {
        let timed: bool = row.get("timed")?;
        let computer: Option<Color> = row.stored_opt("computer_color")?;
        let turns: usize = row.get("turns")?;
        if (timed && turns > 0) || computer == Some(to_move(turns)) {
            ids.push(row.get("id")?);
        }
    }
    Ok(ids)
}

/// The unfinished rooms gone stale by [`Activity::stale`].
async fn stale(
    db: &dyn Conn,
    open_before: i64,
    abandoned_before: i64,
    now: i64,
) -> Result<Vec<Stale>, StoreError> {
    let rows = db
        .query(STALE, params![open_before.max(abandoned_before)])
        .await?;
    let mut stale = Vec::new();
    for row in rows {
        if let Some(end) = Activity::from_row(&row)?.stale(open_before, abandoned_before, now) {
            stale.push(Stale {
                id: row.get("id")?,
                incarnation: row.get("incarnation")?,
                end,
            });
        }
    }
    Ok(stale)
}

/// The correspondence games whose player to move runs out of time at `now`, by
/// [`Activity::running_out`].
async fn running_out(db: &dyn Conn, now: i64) -> Result<Vec<RunningOut>, StoreError> {
    // No room is created before the first millisecond: only correspondence games.
    let rows = db.query(STALE, params![i64::MIN]).await?;
    let mut due = Vec::new();
    for row in rows {
        if let Some((color, notice)) = Activity::from_row(&row)?.running_out(now) {
            due.push(RunningOut {
                room: row.get("id")?,
                color,
                notice,
            });
        }
    }
    Ok(due)
}

/// A row of [`STALE`] as what it tells of its room.
impl FromRow for Activity {
    fn from_row(row: &Row) -> Result<Activity, StoreError> {
        Ok(Activity {
            created_at: row.get("created_at")?,
            seated: row.get("seated")?,
            computer: row.stored_opt("computer_color")?,
            turns: row.get("turns")?,
            last_turn_at: row.get("played_at")?,
            clocks_left: both(row.get("white_ms")?, row.get("black_ms")?),
            days: row.get("clock_days")?,
        })
    }
}

/// The unfinished rooms that may need a timer in memory: id, whether a clock (not days
/// per move: sweeping ends those) is set, the computer's colour, turns played.
const WITH_TIMERS: &str =
    "SELECT r.id, r.clock_base_ms IS NOT NULL AND r.clock_days IS NULL AS timed,
        r.computer_color, (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) AS turns
     FROM rooms r
     WHERE r.outcome IS NULL
       AND (r.clock_base_ms IS NOT NULL OR r.computer_color IS NOT NULL)
     ORDER BY r.created_at, r.id";

/// The unfinished rooms that may have gone stale: those created before `$1`, and every
/// correspondence game. Id, incarnation, when created, whether both seats are taken, the
/// computer's colour, turns played, then of the last turn: when, and both clocks after
/// it; and the days per move.
const STALE: &str = "SELECT r.id, r.incarnation, r.created_at,
        r.white_token IS NOT NULL AND r.black_token IS NOT NULL AS seated,
        r.computer_color,
        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) AS turns,
        lt.played_at, lt.white_ms, lt.black_ms, r.clock_days
     FROM rooms r LEFT JOIN turns lt ON lt.room = r.id
         AND lt.number = (SELECT MAX(t.number) FROM turns t WHERE t.room = r.id)
     WHERE r.outcome IS NULL AND (r.created_at < $1 OR r.clock_days IS NOT NULL)
     ORDER BY r.created_at, r.id";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_runs_out_with_a_quarter_of_the_move_s_days_left() {
        const DAY: i64 = 86_400_000;
        // White played the first turn at 0: Black has a day for the second, until DAY.
        let game = Activity {
            created_at: 0,
            last_turn_at: Some(0),
            seated: true,
            computer: None,
            turns: 1,
            days: Some(1),
            clocks_left: Some([DAY as u64; 2]),
        };
        assert_eq!(game.running_out(DAY * 3 / 4 - 1), None);
        let told = Some((
            Color::Black,
            Notice::TimeRunningOut {
                number: 2,
                deadline: DAY,
            },
        ));
        assert_eq!(game.running_out(DAY * 3 / 4), told);
        assert_eq!(game.running_out(DAY - 1), told);
        assert_eq!(
            game.running_out(DAY),
            None,
            "out of time: the sweep ends it"
        );
        let timed = Activity { days: None, ..game };
        assert_eq!(timed.running_out(DAY * 3 / 4), None, "not correspondence");
    }
}
