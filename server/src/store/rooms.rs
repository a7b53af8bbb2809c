//! Rooms and their turns: a room's own writes, and loading a room to run it, written
//! once for both databases.
//!
//! A room's own writes ([`Write`]: seats, turns, results) first check, in the database,
//! the incarnation that made them ([`fence`]), and are refused ([`StoreError::Fenced`])
//! once the room has been loaded again elsewhere. On PostgreSQL the check takes a share
//! lock on the room's row, and loading a room raises its incarnation with an update of
//! that row, which waits for the writes holding the lock: so a load reads every turn of
//! the incarnation before it, and no turn of that incarnation can be stored after it.
//! (SQLite has one writer: a load never runs beside a write.)

use punct_protocol::{ChatLine, Visibility};
use punct_rules::{Color, Outcome, Turn, Variant};

use super::chat::room_chat;
use super::db::Store;
use super::driver::{Answer, Conn, Grouped, Row, Value, corrupt, params};
use super::error::StoreError;
use super::model::{Account, AccountId, Player, both, outcome_text, sql_ms, text};
use super::outbox;
use super::outbox::Notice;
use super::ratings::{Rated, game_ratings};
use crate::clock::now;
use crate::secret::TokenHash;

/// A room to create: everything about it is written in one transaction, so a room is
/// never half made.
#[derive(Debug)]
pub(crate) struct NewRoom {
    /// Its id.
    pub(crate) id: String,
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// The time control in milliseconds, base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// In a correspondence game, the days each move may take (the clock's base).
    pub(crate) days: Option<u8>,
    /// White's and Black's token hashes, for the seats given out (at least one).
    pub(crate) seats: [Option<TokenHash>; 2],
    /// White's and Black's players, for the seats given out.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// The seat the server's engine plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

/// A room as the database has it: enough to rebuild it exactly.
#[derive(Debug)]
pub(crate) struct StoredRoom {
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// White's and Black's token hashes.
    pub(crate) seats: [Option<TokenHash>; 2],
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// What the game did to the ratings, once it was rated.
    pub(crate) ratings: Option<[Rated; 2]>,
    /// The chat's last lines (at most a hundred), oldest first, each with its
    /// speaker's account if signed in.
    pub(crate) chat: Vec<(ChatLine, Option<AccountId>)>,
    /// Whether White's and Black's players muted their opponent.
    pub(crate) muted: [bool; 2],
    /// Times the room was loaded, this time included: the fence of this load's writes.
    pub(crate) incarnation: u32,
    /// Every accepted turn, in order.
    pub(crate) turns: Vec<Turn>,
    /// The time control, in milliseconds: base and increment.
    pub(crate) clock: Option<[u64; 2]>,
    /// In a correspondence game, the days each move may take.
    pub(crate) days: Option<u8>,
    /// White's and Black's time left after the last turn, if it was timed.
    pub(crate) clocks_left: Option<[u64; 2]>,
    /// When the last turn was played, in milliseconds since the Unix epoch.
    pub(crate) last_turn_at: Option<i64>,
    /// The result, if the game is over (including ends decided off the board).
    pub(crate) outcome: Option<Outcome>,
    /// The seat the computer plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// The tournament whose game this is, if any.
    pub(crate) tournament: Option<String>,
}

/// A room nobody has come back to for too long, as it was when found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stale {
    /// Its id.
    pub(crate) id: String,
    /// Its incarnation when found: if it has been loaded since, it is left alone.
    pub(crate) incarnation: u32,
    /// What becomes of it.
    pub(crate) end: StaleEnd,
}

/// What becomes of a stale room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StaleEnd {
    /// Nobody took its free seat: it is deleted.
    Expire,
    /// Nobody played in it: the game ends so.
    Finish(Outcome),
}

/// Whose turn it is after `turns` turns: the players alternate strictly (a pass is a
/// turn), so the count alone tells.
pub(crate) fn to_move(turns: usize) -> Color {
    if turns.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

impl Store {
    /// Makes a room's `write` in the next group commit, if the node holds its lease;
    /// answers once it is committed.
    pub(super) async fn write(&self, write: Write) -> Result<Written, StoreError> {
        self.owned_write(Box::new(write)).await
    }

    /// Records a new room, its seats given out and its computer, in one transaction.
    pub(crate) async fn create_room(&self, room: NewRoom) -> Result<(), StoreError> {
        self.write(Write::CreateRoom { room, at: now() })
            .await
            .map(drop)
    }

    /// Records that the seat of `color` in `room` (run as `incarnation`) was given out to
    /// `player`; false if it was taken already.
    pub(crate) async fn take_seat(
        &self,
        room: &str,
        incarnation: u32,
        color: Color,
        token: TokenHash,
        player: Player,
    ) -> Result<bool, StoreError> {
        let write = Write::TakeSeat {
            room: room.to_owned(),
            incarnation,
            color,
            token,
            player,
        };
        Ok(self.write(write).await? == 1)
    }

    /// Records turn `number` of `room` (run as `incarnation`), the clocks after it
    /// (White's and Black's time left, in a timed game), the result if it ended the
    /// game, and queues the `mail` it causes, in one transaction.
    #[expect(
        clippy::too_many_arguments,
        reason = "a turn's parts, written as one row; a struct would only name them again"
    )]
    pub(crate) async fn turn(
        &self,
        room: &str,
        incarnation: u32,
        number: usize,
        turn: Turn,
        clocks: Option<[u64; 2]>,
        outcome: Option<Outcome>,
        mail: Vec<(Color, Notice)>,
    ) -> Result<(), StoreError> {
        let write = Write::Turn {
            room: room.to_owned(),
            incarnation,
            number,
            turn,
            clocks,
            outcome,
            mail,
            at: now(),
        };
        self.write(write).await.map(drop)
    }

    /// Takes back the turns of `room` (run as `incarnation`) after the first `played`;
    /// `clocks` (White's and Black's time left now, in a timed game) are stored as those
    /// after turn `played`, as if it had just been played, so that a room loaded later
    /// starts from them.
    pub(crate) async fn take_back(
        &self,
        room: &str,
        incarnation: u32,
        played: usize,
        clocks: Option<[u64; 2]>,
    ) -> Result<(), StoreError> {
        let write = Write::TakeBack {
            room: room.to_owned(),
            incarnation,
            played,
            clocks,
            at: now(),
        };
        self.write(write).await.map(drop)
    }

    /// Deletes `room` (run as `incarnation`), its turns and chat, if its game is not over
    /// and a seat is free; false otherwise.
    pub(crate) async fn cancel(&self, room: &str, incarnation: u32) -> Result<bool, StoreError> {
        let write = Write::Cancel {
            room: room.to_owned(),
            incarnation,
        };
        Ok(self.write(write).await? == 1)
    }

    /// Records that `room` (run as `incarnation`) ended off the board, and queues the
    /// `mail` that causes, in one transaction.
    pub(crate) async fn finish(
        &self,
        room: &str,
        incarnation: u32,
        outcome: Outcome,
        mail: Vec<(Color, Notice)>,
    ) -> Result<(), StoreError> {
        let write = Write::Finish {
            room: room.to_owned(),
            incarnation,
            outcome,
            mail,
            at: now(),
        };
        self.write(write).await.map(drop)
    }

    /// Loads `room` to run it, counting one more incarnation (which fences the writes of
    /// any earlier one); `None` if there is no such room.
    pub(crate) async fn load(&self, room: &str) -> Result<Option<StoredRoom>, StoreError> {
        let room = room.to_owned();
        self.owned(move |db| Box::pin(async move { load(db, &room).await }))
            .await
    }
}

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
type Written = usize;

/// Both clocks as stored: White's and Black's milliseconds, or two `NULL`s.
fn clock_values(clocks: Option<[u64; 2]>) -> [Value; 2] {
    clocks.map_or([Value::Null, Value::Null], |c| {
        c.map(|ms| Value::Int(sql_ms(ms)))
    })
}

impl Grouped for Write {
    fn run<'a>(&'a self, db: &'a dyn Conn) -> Answer<'a, Written> {
        Box::pin(self.make(db))
    }
}

impl Write {
    /// Makes the change on `db`, inside the open transaction.
    pub(super) async fn make(&self, db: &dyn Conn) -> Result<Written, StoreError> {
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
                db.execute(INSERT_ROOM, &values).await?;
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
                Ok(count(db.execute(&take_seat_sql(*color), seated).await?))
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
                db.execute(INSERT_TURN, &values).await?;
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
                db.execute(DELETE_TURNS_AFTER, params![room, *played])
                    .await?;
                let [white, black] = clock_values(*clocks);
                let values = [room.into(), (*played).into(), white, black, (*at).into()];
                db.execute(RESET_CLOCKS, &values).await?;
                Ok(1)
            }
            Write::Cancel { room, incarnation } => {
                fence(db, room, *incarnation).await?;
                if db.query_opt(CANCELLABLE, params![room]).await?.is_none() {
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
                    if db.query_opt(UNCHANGED, unchanged).await?.is_none() {
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
    match db.query_opt(FENCE, params![room, incarnation]).await? {
        Some(_) => Ok(()),
        None => Err(StoreError::Fenced),
    }
}

/// Records that `room`'s game ended with `outcome` at `at`.
async fn finish(db: &dyn Conn, room: &str, outcome: Outcome, at: i64) -> Result<(), StoreError> {
    db.execute(FINISH, params![room, outcome_text(outcome), at])
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
    for statement in [DELETE_CHAT, DELETE_TURNS, DELETE_ROOM] {
        db.execute(statement, params![room]).await?;
    }
    Ok(())
}

/// Loads `room` to run it, counting one more incarnation; `None` if there is no such
/// room.
async fn load(db: &dyn Conn, room: &str) -> Result<Option<StoredRoom>, StoreError> {
    let Some(loaded) = db.query_opt(LOAD, params![room]).await? else {
        return Ok(None);
    };
    let head = db.query_one(&room_sql(), params![room]).await?;
    let rated: bool = head.get("rated")?;
    let mut clocks_left = None;
    let mut last_turn_at = None;
    let mut turns = Vec::new();
    for row in db.query(TURNS, params![room]).await? {
        turns.push(turn(&row)?);
        clocks_left = both(row.get("white_ms")?, row.get("black_ms")?);
        last_turn_at = Some(row.get("played_at")?);
    }
    Ok(Some(StoredRoom {
        variant: head.stored("variant")?,
        visibility: head.stored("visibility")?,
        seats: [head.get("white_token")?, head.get("black_token")?],
        players: players(&head)?,
        rated,
        ratings: if rated {
            game_ratings(db, room).await?
        } else {
            None
        },
        chat: room_chat(db, room).await?,
        muted: [head.get("white_mutes")?, head.get("black_mutes")?],
        incarnation: loaded.get("incarnation")?,
        turns,
        clock: both(head.get("clock_base_ms")?, head.get("clock_increment_ms")?),
        days: head.get("clock_days")?,
        clocks_left,
        last_turn_at,
        outcome: head.stored_opt("outcome")?,
        computer: computer(&head)?,
        tournament: match db.query_opt(TOURNAMENT_OF_ROOM, params![room]).await? {
            Some(row) => row.get("tournament")?,
            None => None,
        },
    }))
}

/// The names of White's and Black's columns in [`PLAYERS_COLUMNS`]: the name given, the
/// account, its username.
const SEAT_COLUMNS: [[&str; 3]; 2] = [
    ["white_name", "white_account", "white_username"],
    ["black_name", "black_account", "black_username"],
];

/// Both seats' players, read from the [`PLAYERS_COLUMNS`]: the name each gave, and their
/// account's id and username when they have one.
pub(super) fn players(row: &Row) -> Result<[Player; 2], StoreError> {
    let seat = |[name, account, username]: [&str; 3]| -> Result<Player, StoreError> {
        let id: Option<String> = row.get(account)?;
        let username: Option<String> = row.get(username)?;
        Ok(Player {
            name: row.get(name)?,
            account: id
                .zip(username)
                .map(|(id, username)| Account { id, username }),
        })
    };
    let [white, black] = SEAT_COLUMNS;
    Ok([seat(white)?, seat(black)?])
}

/// The computer's seat and level, from a room's `computer_color` and `computer_level`,
/// when both are stored.
pub(super) fn computer(row: &Row) -> Result<Option<(Color, u8)>, StoreError> {
    let color: Option<Color> = row.stored_opt("computer_color")?;
    let level: Option<u8> = row.get("computer_level")?;
    Ok(color.zip(level))
}

/// The turn of a row of [`TURNS`], read from its notation.
pub(super) fn turn(row: &Row) -> Result<Turn, StoreError> {
    row.get::<String>("turn")?.parse().map_err(corrupt)
}

/// Room `$1`, if its creator may still cancel it: its game is not over and a seat is
/// free.
const CANCELLABLE: &str = "SELECT 1 AS found FROM rooms
     WHERE id = $1 AND outcome IS NULL AND (white_token IS NULL OR black_token IS NULL)";

/// Forgets room `$1`'s chat (the room is being deleted).
const DELETE_CHAT: &str = "DELETE FROM chat WHERE room = $1";

/// A new room: id, variant, visibility, when, both token hashes, the clock (base and
/// increment), the computer (colour, level), both players (name, account), whether it is
/// rated, days per move.
const INSERT_ROOM: &str =
    "INSERT INTO rooms (id, variant, visibility, created_at, white_token, black_token,
                        clock_base_ms, clock_increment_ms, computer_color, computer_level,
                        white_name, white_account, black_name, black_account, rated,
                        clock_days)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

/// Gives room `$1`'s seat of `color` to token hash `$2`, name `$3` and account `$4`, if
/// it is free.
fn take_seat_sql(color: punct_rules::Color) -> String {
    format!(
        "UPDATE rooms SET {color}_token = $2, {color}_name = $3, {color}_account = $4
         WHERE id = $1 AND {color}_token IS NULL"
    )
}

/// Room `$1` at incarnation `$2`, its row held in share mode until the transaction ends:
/// a load, which raises the incarnation, waits for the writes of the one before.
const FENCE: &str = "SELECT 1 AS found FROM rooms WHERE id = $1 AND incarnation = $2 FOR SHARE";

/// Turn `$2` of room `$1`: the turn, when, White's and Black's time left after it.
const INSERT_TURN: &str = "INSERT INTO turns (room, number, turn, played_at, white_ms, black_ms)
     VALUES ($1, $2, $3, $4, $5, $6)";

/// Room `$1` ended with outcome `$2` at `$3`.
const FINISH: &str = "UPDATE rooms SET outcome = $2, finished_at = $3 WHERE id = $1";

/// Takes back room `$1`'s turns after the first `$2`.
const DELETE_TURNS_AFTER: &str = "DELETE FROM turns WHERE room = $1 AND number > $2";

/// Turn `$2` of room `$1` is the last again: White's and Black's time left (`$3`, `$4`)
/// and when (`$5`) are now's, so that the clocks run on from them.
const RESET_CLOCKS: &str = "UPDATE turns SET white_ms = $3, black_ms = $4, played_at = $5
     WHERE room = $1 AND number = $2";

/// Forgets room `$1`'s turns (the room is being deleted).
const DELETE_TURNS: &str = "DELETE FROM turns WHERE room = $1";

/// Forgets room `$1` (its turns and chat first).
const DELETE_ROOM: &str = "DELETE FROM rooms WHERE id = $1";

/// Stale room `$1`, if it is as it was found: still at incarnation `$2`, not over, and
/// (unless it is to be finished, `$3`) with a seat free. Its row is held until the end
/// of the transaction.
const UNCHANGED: &str = "SELECT 1 AS found FROM rooms
     WHERE id = $1 AND incarnation = $2 AND outcome IS NULL
       AND ($3 OR white_token IS NULL OR black_token IS NULL)
     FOR UPDATE";

/// Counts one more incarnation of room `$1`; answers it.
const LOAD: &str =
    "UPDATE rooms SET incarnation = incarnation + 1 WHERE id = $1 RETURNING incarnation";

/// Room `$1`'s turns in order: the turn, White's and Black's time left after it, when.
pub(super) const TURNS: &str =
    "SELECT turn, white_ms, black_ms, played_at FROM turns WHERE room = $1 ORDER BY number";

/// The tournament whose game is played in room `$1`.
const TOURNAMENT_OF_ROOM: &str = "SELECT tournament FROM tournament_pairings WHERE room = $1";

/// The columns that read both seats' players (see [`players`]), from rooms `r` joined as
/// [`PLAYERS_JOIN`] does.
pub(super) const PLAYERS_COLUMNS: &str =
    "r.white_name, r.white_account, wa.username AS white_username,
     r.black_name, r.black_account, ba.username AS black_username";

/// Joins rooms `r` to the accounts of its seats, for [`PLAYERS_COLUMNS`].
pub(super) const PLAYERS_JOIN: &str = "LEFT JOIN accounts wa ON wa.id = r.white_account
     LEFT JOIN accounts ba ON ba.id = r.black_account";

/// Room `$1` as a load or a record reads it: variant, visibility, both token hashes, the
/// outcome, the clock (base and increment), the computer (colour, level), days per move,
/// whether it is rated, whether White and Black mute their opponent, and both players
/// (see [`PLAYERS_COLUMNS`]).
pub(super) fn room_sql() -> String {
    format!(
        "SELECT r.variant, r.visibility, r.white_token, r.black_token, r.outcome,
                r.clock_base_ms, r.clock_increment_ms, r.computer_color, r.computer_level,
                r.clock_days, r.rated, r.white_mutes, r.black_mutes, {PLAYERS_COLUMNS}
         FROM rooms r {PLAYERS_JOIN} WHERE r.id = $1"
    )
}
