//! The rooms that time acts on: those with a running clock, those left so long they
//! expire, and correspondence games whose mover is running out of days.

use super::db::Store;
use super::driver::{Conn, Row, params};
use super::error::StoreError;
use super::model::{Activity, RunningOut, Stale, both, to_move};
use super::rooms::Write;
use crate::clock::now;
use punct_rules::Color;

impl Store {
    /// The rooms whose game is not over and that need a timer running: a timed game whose
    /// clock runs (the first turn is played), or a game where the computer is to move.
    pub(crate) async fn with_timers(&self) -> Result<Vec<String>, StoreError> {
        self.db.run(|db| Box::pin(with_timers(db))).await
    }

    /// The unfinished rooms gone stale (see `model::Activity::stale`), given the times of
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
    /// left or less at `now` (see `model::Activity::running_out`).
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
        let timed: bool = row.get(1)?;
        let computer: Option<Color> = row.stored_opt(2)?;
        let turns: usize = row.get(3)?;
        if (timed && turns > 0) || computer == Some(to_move(turns)) {
            ids.push(row.get(0)?);
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
        if let Some(end) = activity(&row)?.stale(open_before, abandoned_before, now) {
            stale.push(Stale {
                id: row.get(0)?,
                incarnation: row.get(1)?,
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
        if let Some((color, notice)) = activity(&row)?.running_out(now) {
            due.push(RunningOut {
                room: row.get(0)?,
                color,
                notice,
            });
        }
    }
    Ok(due)
}

/// A row of [`STALE`] as what it tells of its room.
fn activity(row: &Row) -> Result<Activity, StoreError> {
    Ok(Activity {
        created_at: row.get(2)?,
        seated: row.get(3)?,
        computer: row.stored_opt(4)?,
        turns: row.get(5)?,
        last_turn_at: row.get(6)?,
        clocks_left: both(row.get(7)?, row.get(8)?),
        days: row.get(9)?,
    })
}

/// The unfinished rooms that may need a timer in memory: id, whether a clock (not days
/// per move: sweeping ends those) is set, the computer's colour, turns played.
const WITH_TIMERS: &str =
    "SELECT r.id, r.clock_base_ms IS NOT NULL AND r.clock_days IS NULL, r.computer_color,
        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id)
     FROM rooms r
     WHERE r.outcome IS NULL
       AND (r.clock_base_ms IS NOT NULL OR r.computer_color IS NOT NULL)
     ORDER BY r.created_at, r.id";

/// The unfinished rooms that may have gone stale: those created before `$1`, and every
/// correspondence game. Id, incarnation, when created, whether both seats are taken, the
/// computer's colour, turns played, then of the last turn: when, and both clocks after
/// it; and the days per move.
const STALE: &str = "SELECT r.id, r.incarnation, r.created_at,
        r.white_token IS NOT NULL AND r.black_token IS NOT NULL,
        r.computer_color,
        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id),
        lt.played_at, lt.white_ms, lt.black_ms, r.clock_days
     FROM rooms r LEFT JOIN turns lt ON lt.room = r.id
         AND lt.number = (SELECT MAX(t.number) FROM turns t WHERE t.room = r.id)
     WHERE r.outcome IS NULL AND (r.created_at < $1 OR r.clock_days IS NOT NULL)
     ORDER BY r.created_at, r.id";
