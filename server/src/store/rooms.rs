//! Rooms, turns and chat: every question asked of them and every change made to them,
//! written once for both databases.
//!
//! A room's own writes ([`Write`]: seats, turns, results) first check, in the database,
//! the incarnation that made them ([`fence`]), and are refused ([`StoreError::Fenced`])
//! once the room has been loaded again elsewhere. On PostgreSQL the check takes a share
//! lock on the room's row, and loading a room raises its incarnation with an update of
//! that row, which waits for the writes holding the lock: so a load reads every turn of
//! the incarnation before it, and no turn of that incarnation can be stored after it.
//! (SQLite has one writer: a load never runs beside a write.)

use punct_protocol::{ArchivedGame, ChatLine, Visibility};
use punct_rules::{Color, Outcome, Turn};

use super::driver::{Conn, Row, Value, corrupt, params};
use super::error::StoreError;
use super::model::{
    AccountId, Activity, ArchiveCursor, NewRoom, Notice, Player, RoomRow, RunningOut, Stale,
    StaleEnd, StoredRecord, StoredRoom, both, outcome_text, sql_ms, text, time_control, to_move,
};
use super::outbox;
use super::ratings::game_ratings;
use super::sql;
use crate::rating;
use crate::secret::TokenHash;

/// A room's change that is group-committed: it runs in the next transaction with
/// whatever others are waiting, and is answered once that is committed. (Kept as data,
/// not as a closure, so that PostgreSQL's writer can run it again alone.)
#[derive(Debug)]
pub(super) enum Write {
    /// Store a new room.
    CreateRoom {
        /// The room.
        room: NewRoom,
        /// When it was made.
        at: i64,
    },
    /// Give out a seat.
    TakeSeat {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The seat.
        color: Color,
        /// Its token's hash.
        token: TokenHash,
        /// Who takes it.
        player: Player,
    },
    /// Store a turn, and the result if it ended the game.
    Turn {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The turn's number.
        number: usize,
        /// The turn.
        turn: Turn,
        /// White's and Black's time left after it, in a timed game.
        clocks: Option<[u64; 2]>,
        /// The result, if the turn ended the game.
        outcome: Option<Outcome>,
        /// The mail it causes, and to whom.
        mail: Vec<(Color, Notice)>,
        /// When it was played.
        at: i64,
    },
    /// Store a result reached off the board.
    Finish {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The result.
        outcome: Outcome,
        /// The mail it causes, and to whom.
        mail: Vec<(Color, Notice)>,
        /// When the game ended.
        at: i64,
    },
    /// Take back the turns after the first `played`.
    TakeBack {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
        /// The turns that remain.
        played: usize,
        /// White's and Black's time left now, in a timed game.
        clocks: Option<[u64; 2]>,
        /// Now: the clocks run again from here.
        at: i64,
    },
    /// Delete a room whose game is not over and has a seat free.
    Cancel {
        /// The room.
        room: String,
        /// The incarnation writing.
        incarnation: u32,
    },
    /// Delete or finish stale rooms not loaded since they were found.
    Expire {
        /// The rooms, as found.
        stale: Vec<Stale>,
        /// Whether the players of the games that end are mailed (see `outbox::queue`).
        mail: bool,
        /// Now: when those that end, ended.
        at: i64,
    },
}

/// What a write answers: how many rooms it changed (a seat given out or not, a room
/// cancelled or not, the stale rooms expired or finished).
pub(super) type Written = usize;

/// Both clocks as stored: White's and Black's milliseconds, or two `NULL`s.
fn clock_values(clocks: Option<[u64; 2]>) -> [Value; 2] {
    clocks.map_or([Value::Null, Value::Null], |c| {
        c.map(|ms| Value::Int(sql_ms(ms)))
    })
}

impl Write {
    /// Makes the change on `db`, inside the open transaction.
    pub(super) async fn run(&self, db: &dyn Conn) -> Result<Written, StoreError> {
        match self {
            Write::CreateRoom { room, at } => {
                let [base, increment] = clock_values(room.clock);
                let (computer_color, computer_level) = room
                    .computer
                    .map(|(color, level)| (text(&color), level))
                    .unzip();
                let [white, black] = &room.players;
                let [white_token, black_token] = room.seats;
                let values = [
                    Value::from(&room.id),
                    text(&room.variant).into(),
                    text(&room.visibility).into(),
                    (*at).into(),
                    white_token.into(),
                    black_token.into(),
                    base,
                    increment,
                    computer_color.into(),
                    computer_level.into(),
                    white.name.as_deref().into(),
                    white.account_id().into(),
                    black.name.as_deref().into(),
                    black.account_id().into(),
                    room.rated.into(),
                    room.days.into(),
                ];
                db.execute(sql::INSERT_ROOM, &values).await?;
                Ok(1)
            }
            Write::TakeSeat {
                room,
                incarnation,
                color,
                token,
                player,
            } => {
                fence(db, room, *incarnation).await?;
                let seated = params![room, *token, player.name.as_deref(), player.account_id()];
                Ok(count(db.execute(&sql::take_seat(*color), seated).await?))
            }
            Write::Turn {
                room,
                incarnation,
                number,
                turn,
                clocks,
                outcome,
                mail,
                at,
            } => {
                fence(db, room, *incarnation).await?;
                let [white, black] = clock_values(*clocks);
                let values = [
                    room.into(),
                    (*number).into(),
                    turn.to_string().into(),
                    (*at).into(),
                    white,
                    black,
                ];
                db.execute(sql::INSERT_TURN, &values).await?;
                if let Some(outcome) = outcome {
                    finish(db, room, *outcome, *at).await?;
                }
                queue(db, room, mail, *at).await?;
                Ok(1)
            }
            Write::Finish {
                room,
                incarnation,
                outcome,
                mail,
                at,
            } => {
                fence(db, room, *incarnation).await?;
                finish(db, room, *outcome, *at).await?;
                queue(db, room, mail, *at).await?;
                Ok(1)
            }
            Write::TakeBack {
                room,
                incarnation,
                played,
                clocks,
                at,
            } => {
                fence(db, room, *incarnation).await?;
                db.execute(sql::DELETE_TURNS_AFTER, params![room, *played])
                    .await?;
                let [white, black] = clock_values(*clocks);
                let values = [room.into(), (*played).into(), white, black, (*at).into()];
                db.execute(sql::RESET_CLOCKS, &values).await?;
                Ok(1)
            }
            Write::Cancel { room, incarnation } => {
                fence(db, room, *incarnation).await?;
                if db
                    .query_opt(sql::CANCELLABLE, params![room])
                    .await?
                    .is_none()
                {
                    return Ok(0);
                }
                delete(db, room).await?;
                Ok(1)
            }
            Write::Expire { stale, mail, at } => {
                let mut done = 0;
                for room in stale {
                    let finishing = matches!(room.end, StaleEnd::Finish(_));
                    let unchanged = params![&room.id, room.incarnation, finishing];
                    if db.query_opt(sql::UNCHANGED, unchanged).await?.is_none() {
                        continue;
                    }
                    match room.end {
                        StaleEnd::Expire => delete(db, &room.id).await?,
                        StaleEnd::Finish(outcome) => {
                            finish(db, &room.id, outcome, *at).await?;
                            // Nobody is in a room found stale: both players learn by mail.
                            if *mail {
                                let over = [Color::White, Color::Black]
                                    .map(|color| (color, Notice::GameOver));
                                queue(db, &room.id, &over, *at).await?;
                            }
                        }
                    }
                    done += 1;
                }
                Ok(done)
            }
        }
    }
}

/// A count of rows a statement changed.
fn count(changed: u64) -> Written {
    usize::try_from(changed).unwrap_or(usize::MAX)
}

/// Refuses a room's own write once the room has been loaded again (elsewhere): the
/// incarnation it was loaded as is no longer the stored one. On PostgreSQL, holds the
/// room's row in share mode until the transaction ends (see the module's comment).
async fn fence(db: &dyn Conn, room: &str, incarnation: u32) -> Result<(), StoreError> {
    match db.query_opt(sql::FENCE, params![room, incarnation]).await? {
        Some(_) => Ok(()),
        None => Err(StoreError::Fenced),
    }
}

/// Records that `room`'s game ended with `outcome` at `at`.
async fn finish(db: &dyn Conn, room: &str, outcome: Outcome, at: i64) -> Result<(), StoreError> {
    db.execute(sql::FINISH, params![room, outcome_text(outcome), at])
        .await?;
    Ok(())
}

/// Queues `mail` about `room` at `at`, each notice to its player.
async fn queue(
    db: &dyn Conn,
    room: &str,
    mail: &[(Color, Notice)],
    at: i64,
) -> Result<(), StoreError> {
    for (to, notice) in mail {
        outbox::queue(db, room, *to, notice, at).await?;
    }
    Ok(())
}

/// Deletes `room`, its turns and chat.
async fn delete(db: &dyn Conn, room: &str) -> Result<(), StoreError> {
    for statement in [sql::DELETE_CHAT, sql::DELETE_TURNS, sql::DELETE_ROOM] {
        db.execute(statement, params![room]).await?;
    }
    Ok(())
}

/// Loads `room` to run it, counting one more incarnation; `None` if there is no such
/// room.
pub(super) async fn load(db: &dyn Conn, room: &str) -> Result<Option<StoredRoom>, StoreError> {
    let Some(loaded) = db.query_opt(sql::LOAD, params![room]).await? else {
        return Ok(None);
    };
    let head = db.query_one(&sql::room(), params![room]).await?;
    let rated: bool = head.get(10)?;
    let mut clocks_left = None;
    let mut last_turn_at = None;
    let mut turns = Vec::new();
    for row in db.query(sql::TURNS, params![room]).await? {
        turns.push(parse_turn(&row.get::<String>(0)?)?);
        clocks_left = both(row.get(1)?, row.get(2)?);
        last_turn_at = Some(row.get(3)?);
    }
    Ok(Some(StoredRoom {
        variant: head.stored(0)?,
        visibility: head.stored(1)?,
        seats: [head.get(2)?, head.get(3)?],
        players: players(&head, 13)?,
        rated,
        ratings: if rated {
            game_ratings(db, room).await?
        } else {
            None
        },
        chat: room_chat(db, room).await?,
        muted: [head.get(11)?, head.get(12)?],
        incarnation: loaded.get(0)?,
        turns,
        clock: both(head.get(5)?, head.get(6)?),
        days: head.get(9)?,
        clocks_left,
        last_turn_at,
        outcome: head.stored_opt(4)?,
        computer: computer(head.stored_opt(7)?, head.get(8)?),
        tournament: match db.query_opt(sql::TOURNAMENT_OF_ROOM, params![room]).await? {
            Some(row) => row.get(0)?,
            None => None,
        },
    }))
}

/// `room` as the lobby would show it.
pub(super) async fn summary(db: &dyn Conn, room: &str) -> Result<Option<RoomRow>, StoreError> {
    let statement = format!("{} WHERE r.id = $1", sql::room_rows());
    db.query_opt(&statement, params![room])
        .await?
        .map(|row| room_row(&row))
        .transpose()
}

/// The record of `room`.
pub(super) async fn record(db: &dyn Conn, room: &str) -> Result<Option<StoredRecord>, StoreError> {
    let Some(head) = db.query_opt(&sql::room(), params![room]).await? else {
        return Ok(None);
    };
    let turns = db
        .query(sql::TURNS, params![room])
        .await?
        .iter()
        .map(|row| parse_turn(&row.get::<String>(0)?))
        .collect::<Result<_, _>>()?;
    Ok(Some(StoredRecord {
        variant: head.stored(0)?,
        players: players(&head, 13)?,
        rated: head.get(10)?,
        turns,
        outcome: head.stored_opt(4)?,
    }))
}

/// Up to `limit` public rooms whose game is not over, oldest first.
pub(super) async fn lobby(db: &dyn Conn, limit: usize) -> Result<Vec<RoomRow>, StoreError> {
    let statement = format!(
        "{} WHERE r.outcome IS NULL AND r.visibility = $1 ORDER BY r.created_at, r.id LIMIT $2",
        sql::room_rows()
    );
    let rows = db
        .query(&statement, params![text(&Visibility::Public), limit])
        .await?;
    rows.iter().map(room_row).collect()
}

/// The unfinished games in which `account` holds a seat, oldest first.
pub(super) async fn games_of(db: &dyn Conn, account: &str) -> Result<Vec<RoomRow>, StoreError> {
    let rows = db.query(&sql::games_of(), params![account]).await?;
    rows.iter().map(room_row).collect()
}

/// The rooms whose game is not over and that need a timer running: a timed game whose
/// clock runs (the first turn is played), or a game where the computer is to move.
pub(super) async fn with_timers(db: &dyn Conn) -> Result<Vec<String>, StoreError> {
    let mut ids = Vec::new();
    for row in db.query(sql::WITH_TIMERS, &[]).await? {
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
pub(super) async fn stale(
    db: &dyn Conn,
    open_before: i64,
    abandoned_before: i64,
    now: i64,
) -> Result<Vec<Stale>, StoreError> {
    let rows = db
        .query(sql::STALE, params![open_before.max(abandoned_before)])
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
pub(super) async fn running_out(db: &dyn Conn, now: i64) -> Result<Vec<RunningOut>, StoreError> {
    // No room is created before the first millisecond: only correspondence games.
    let rows = db.query(sql::STALE, params![i64::MIN]).await?;
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

/// A row of [`sql::STALE`] as what it tells of its room.
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

/// Up to `limit` finished public games, the one that ended last first, starting after
/// `after`; only those `player`'s account played, if given.
pub(super) async fn archive(
    db: &dyn Conn,
    after: Option<ArchiveCursor>,
    limit: usize,
    player: Option<AccountId>,
) -> Result<Vec<ArchivedGame>, StoreError> {
    let (finished_at, room) = after.map_or((None, None), |c| (Some(c.finished_at), Some(c.room)));
    let values = params![text(&Visibility::Public), finished_at, room, limit, player];
    let rows = db.query(&sql::archive(), values).await?;
    rows.iter()
        .map(|row| {
            let [white, black] = players(row, 6)?;
            Ok(ArchivedGame {
                room: row.get(0)?,
                variant: row.stored(1)?,
                outcome: row.stored(2)?,
                finished_at: u64::try_from(row.get::<i64>(3)?).unwrap_or(0),
                turns: row.get(4)?,
                rated: row.get(5)?,
                white: white.view(),
                black: black.view(),
                tournament: row.get(12)?,
            })
        })
        .collect()
}

/// Stores a line of `room`'s chat, said by `account`'s player if signed in; answers
/// its id.
pub(super) async fn chat(
    db: &dyn Conn,
    room: &str,
    line: &ChatLine,
    account: Option<&str>,
) -> Result<u64, StoreError> {
    let values = params![
        room,
        text(&line.channel),
        line.color.map(|color| text(&color)),
        line.name.as_deref(),
        &line.text,
        sql_ms(line.at),
        account,
    ];
    let rows = db.query(sql::INSERT_CHAT, values).await?;
    let row = rows
        .first()
        .ok_or_else(|| corrupt("no id for a line of chat"))?;
    Ok(u64::try_from(row.get::<i64>(0)?).unwrap_or(0))
}

/// Records whether `color`'s player in `room` mutes the opponent.
pub(super) async fn mute(
    db: &dyn Conn,
    room: &str,
    color: Color,
    muted: bool,
) -> Result<(), StoreError> {
    db.execute(&sql::set_mute(color), params![muted, room])
        .await?;
    Ok(())
}

/// Every room in which `account` took a seat, oldest first.
pub(super) async fn rooms_of(db: &dyn Conn, account: &str) -> Result<Vec<String>, StoreError> {
    let rows = db.query(sql::ROOMS_OF, params![account]).await?;
    rows.iter().map(|row| row.get(0)).collect()
}

/// Every line of chat `account` said, oldest first, each with its room.
pub(super) async fn chat_of(
    db: &dyn Conn,
    account: &str,
) -> Result<Vec<(String, ChatLine)>, StoreError> {
    let rows = db.query(sql::CHAT_OF, params![account]).await?;
    rows.iter()
        .map(|row| Ok((row.get(0)?, chat_line(row, 1)?)))
        .collect()
}

/// A line of chat read from its columns from `at`: channel, colour, name, text, when,
/// id, removed.
pub(super) fn chat_line(row: &Row, at: usize) -> Result<ChatLine, StoreError> {
    Ok(ChatLine {
        channel: row.stored(at)?,
        color: row.stored_opt(at + 1)?,
        name: row.get(at + 2)?,
        text: row.get(at + 3)?,
        at: u64::try_from(row.get::<i64>(at + 4)?).unwrap_or(0),
        line: u64::try_from(row.get::<i64>(at + 5)?).ok(),
        removed: row.get(at + 6)?,
    })
}

/// `room`'s last lines of chat, oldest first, each with its speaker's account.
async fn room_chat(
    db: &dyn Conn,
    room: &str,
) -> Result<Vec<(ChatLine, Option<AccountId>)>, StoreError> {
    let mut lines = db
        .query(sql::ROOM_CHAT, params![room])
        .await?
        .iter()
        .map(|row| Ok((chat_line(row, 0)?, row.get(7)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    lines.reverse();
    Ok(lines)
}

/// A room's row as the lobby shows it, read from [`sql::room_rows`].
fn room_row(row: &Row) -> Result<RoomRow, StoreError> {
    Ok(RoomRow {
        id: row.get(0)?,
        variant: row.stored(1)?,
        visibility: row.stored(2)?,
        taken: [row.get(3)?, row.get(4)?],
        computer: computer(row.stored_opt(5)?, row.get(6)?),
        turns: row.get(7)?,
        outcome: row.stored_opt(8)?,
        rated: row.get(9)?,
        players: players(row, 10)?,
        clock: time_control(both(row.get(16)?, row.get(17)?), row.get(18)?),
        last_turn: row
            .get::<Option<i64>>(19)?
            .zip(both(row.get(20)?, row.get(21)?)),
        tournament: row.get(22)?,
        ratings: [
            row.get::<Option<f64>>(23)?.map(rating::shown),
            row.get::<Option<f64>>(24)?.map(rating::shown),
        ],
    })
}

/// Both seats' players, read from the [`sql::PLAYERS_COLUMNS`] starting at column `first`.
fn players(row: &Row, first: usize) -> Result<[Player; 2], StoreError> {
    let seat = |at: usize| -> Result<Player, StoreError> {
        Ok(Player::read(
            row.get(at)?,
            row.get(at + 1)?,
            row.get(at + 2)?,
        ))
    };
    Ok([seat(first)?, seat(first + 3)?])
}

/// The computer's seat and level, when both are stored.
fn computer(color: Option<Color>, level: Option<u8>) -> Option<(Color, u8)> {
    color.zip(level)
}

/// A stored turn in notation.
fn parse_turn(text: &str) -> Result<Turn, StoreError> {
    text.parse().map_err(corrupt)
}
