//! Tournaments' rows: the tournaments, who entered each, and each round's pairings
//! (stored with their games' rooms, in one transaction).

use punct_protocol::{TimeControl, TournamentState, TournamentSummary};
use punct_rules::{Outcome, Variant};

use super::db::Store;
use super::driver::{Conn, FromRow, Row, Value, params};
use super::error::StoreError;
use super::model::{Account, AccountId, both, text, time_control};
use super::rooms::{NewRoom, Write};
use crate::clock::{Clock, now};

/// A tournament to create.
#[derive(Clone, Debug)]
pub(crate) struct NewTournament {
    /// Its id (a UUIDv7).
    pub(crate) id: String,
    /// Its name.
    pub(crate) name: String,
    /// How players are paired.
    pub(crate) format: punct_protocol::TournamentFormat,
    /// The game played.
    pub(crate) variant: Variant,
    /// Every game's time control.
    pub(crate) clock: Option<TimeControl>,
    /// Whether its games are rated.
    pub(crate) rated: bool,
    /// When it starts, in milliseconds since the Unix epoch.
    pub(crate) starts_at: i64,
    /// An arena's end.
    pub(crate) ends_at: Option<i64>,
    /// A Swiss's number of rounds.
    pub(crate) rounds: Option<u32>,
    /// The fewest players it starts with.
    pub(crate) min_players: u32,
    /// The most who may join.
    pub(crate) max_players: u32,
    /// The account that creates it.
    pub(crate) creator: AccountId,
}

/// An account entered in a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredEntry {
    /// The account.
    pub(crate) account: Account,
    /// When it joined (last).
    pub(crate) joined_at: i64,
    /// When it withdrew, if it has.
    pub(crate) withdrawn_at: Option<i64>,
}

/// A pairing about to be stored: a game (its room with it) or a bye.
#[derive(Debug)]
pub(crate) struct NewPairing {
    /// The game's room; none for a bye.
    pub(crate) room: Option<NewRoom>,
    /// White's account (the bye's player's).
    pub(crate) white: AccountId,
    /// Black's account; none for a bye.
    pub(crate) black: Option<AccountId>,
}

/// A stored pairing, with its game's result as the room has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredPairing {
    /// Its round, from 1.
    pub(crate) round: u32,
    /// Its board in the round, from 1.
    pub(crate) board: u32,
    /// The game's room; none for a bye.
    pub(crate) room: Option<String>,
    /// White (the bye's player).
    pub(crate) white: Account,
    /// Black; none for a bye.
    pub(crate) black: Option<Account>,
    /// The game's result, once over.
    pub(crate) outcome: Option<Outcome>,
    /// When it ended, in milliseconds since the Unix epoch.
    pub(crate) finished_at: Option<i64>,
}

impl Store {
    /// Stores `tournament`, not started.
    pub(crate) async fn create_tournament(
        &self,
        tournament: NewTournament,
    ) -> Result<(), StoreError> {
        let at = now();
        self.owned(move |db| Box::pin(async move { create(db, &tournament, at).await }))
            .await
    }

    /// Tournament `id`, as lists show it.
    pub(crate) async fn tournament(
        &self,
        id: &str,
    ) -> Result<Option<TournamentSummary>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { tournament(db, &id).await }))
            .await
    }

    /// Up to `limit` tournaments in `state`: those not over the soonest to start first,
    /// the others the latest over first.
    pub(crate) async fn tournaments_in(
        &self,
        state: TournamentState,
        limit: usize,
    ) -> Result<Vec<TournamentSummary>, StoreError> {
        self.db
            .run(move |db| Box::pin(tournaments_in(db, state, limit)))
            .await
    }

    /// The tournaments not over that are running or due to start by `at`.
    pub(crate) async fn tournaments_due(&self, at: i64) -> Result<Vec<String>, StoreError> {
        self.db.run(move |db| Box::pin(due(db, at))).await
    }

    /// Tournament `id` moves to `state` now (a finished or cancelled one is over now).
    pub(crate) async fn set_tournament_state(
        &self,
        id: &str,
        state: TournamentState,
    ) -> Result<(), StoreError> {
        let (id, at) = (id.to_owned(), now());
        self.owned(move |db| Box::pin(async move { set_state(db, &id, state, at).await }))
            .await
    }

    /// Account `account` enters tournament `id` now (again, if it had withdrawn).
    pub(crate) async fn enter(&self, id: &str, account: &str) -> Result<(), StoreError> {
        let (id, account, at) = (id.to_owned(), account.to_owned(), now());
        self.owned(move |db| Box::pin(async move { enter(db, &id, &account, at).await }))
            .await
    }

    /// Account `account` leaves tournament `id` before its start: its entry goes, so
    /// that the entries of a started tournament are the players it started with. False
    /// if it was not in it.
    pub(crate) async fn leave(&self, id: &str, account: &str) -> Result<bool, StoreError> {
        let (id, account) = (id.to_owned(), account.to_owned());
        self.owned(move |db| Box::pin(async move { leave(db, &id, &account).await }))
            .await
    }

    /// Account `account` withdraws from tournament `id` (started) now: it is paired no
    /// more, and stays in the standings. False if it was not in it, or had withdrawn.
    pub(crate) async fn withdraw(&self, id: &str, account: &str) -> Result<bool, StoreError> {
        let (id, account, at) = (id.to_owned(), account.to_owned(), now());
        self.owned(move |db| Box::pin(async move { withdraw(db, &id, &account, at).await }))
            .await
    }

    /// Tournament `id`'s entries, in the order they joined.
    pub(crate) async fn entries(&self, id: &str) -> Result<Vec<StoredEntry>, StoreError> {
        let id = id.to_owned();
        self.db
            .run(move |db| Box::pin(async move { entries(db, &id).await }))
            .await
    }

    /// Stores round `round` of tournament `id`, each game with its room, in one
    /// transaction: all of it or, if any of it fails (the round was stored already),
    /// nothing.
    pub(crate) async fn pair_round(
        &self,
        id: &str,
        round: u32,
        pairings: Vec<NewPairing>,
    ) -> Result<(), StoreError> {
        let (id, at) = (id.to_owned(), now());
        self.db
            .atomic(move |db| {
                Box::pin(async move { pair_round(db, &id, round, pairings, at).await })
            })
            .await
    }

    /// Tournament `id`'s pairings round by round, each with its game's result.
    pub(crate) async fn pairings(&self, id: &str) -> Result<Vec<StoredPairing>, StoreError> {
        let id = id.to_owned();
        self.owned(move |db| Box::pin(async move { pairings(db, &id).await }))
            .await
    }
}

/// Stores `tournament`, made at `at`, not started.
async fn create(db: &dyn Conn, tournament: &NewTournament, at: i64) -> Result<(), StoreError> {
    let [base, increment] = match tournament.clock {
        Some(control) => Clock::control_ms(control).map(|ms| Value::from(ms_i64(ms))),
        None => [Value::Null, Value::Null],
    };
    let days = tournament.clock.and_then(|control| control.days);
    let values = [
        Value::from(&tournament.id),
        Value::from(&tournament.name),
        text(&tournament.format).into(),
        text(&tournament.variant).into(),
        base,
        increment,
        days.into(),
        tournament.rated.into(),
        tournament.starts_at.into(),
        tournament.ends_at.into(),
        tournament.rounds.into(),
        tournament.min_players.into(),
        tournament.max_players.into(),
        Value::from(&tournament.creator),
        at.into(),
        text(&TournamentState::Upcoming).into(),
    ];
    db.execute(INSERT_TOURNAMENT, &values).await?;
    Ok(())
}

/// Milliseconds as the database keeps them.
fn ms_i64(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// A tournament as [`TOURNAMENT_COLUMNS`] reads it.
impl FromRow for TournamentSummary {
    fn from_row(row: &Row) -> Result<TournamentSummary, StoreError> {
        let clock = time_control(
            both(row.get("clock_base_ms")?, row.get("clock_increment_ms")?),
            row.get("clock_days")?,
        );
        let count = |name: &str| -> Result<u32, StoreError> {
            let n: i64 = row.get(name)?;
            Ok(u32::try_from(n).unwrap_or(u32::MAX))
        };
        Ok(TournamentSummary {
            id: row.get("id")?,
            name: row.get("name")?,
            format: row.stored("format")?,
            variant: row.stored("variant")?,
            clock,
            rated: row.get("rated")?,
            starts_at: row.get("starts_at")?,
            ends_at: row.get("ends_at")?,
            rounds: row.get("rounds")?,
            min_players: row.get("min_players")?,
            max_players: row.get("max_players")?,
            creator: row.get("creator")?,
            state: row.stored("state")?,
            players: count("players")?,
            round: count("paired_rounds")?,
        })
    }
}

/// Tournament `id`.
async fn tournament(db: &dyn Conn, id: &str) -> Result<Option<TournamentSummary>, StoreError> {
    db.query_opt(&tournament_sql(), params![id])
        .await?
        .map(|row| TournamentSummary::from_row(&row))
        .transpose()
}

/// Up to `limit` tournaments in `state`.
async fn tournaments_in(
    db: &dyn Conn,
    state: TournamentState,
    limit: usize,
) -> Result<Vec<TournamentSummary>, StoreError> {
    let rows = db
        .query(&tournaments_in_sql(), params![text(&state), limit])
        .await?;
    rows.iter().map(TournamentSummary::from_row).collect()
}

/// The tournaments not finished that have started by `at` or are running.
async fn due(db: &dyn Conn, at: i64) -> Result<Vec<String>, StoreError> {
    let rows = db.query(TOURNAMENTS_DUE, params![at]).await?;
    rows.iter().map(|row| row.get("id")).collect()
}

/// Tournament `id` moves to `state`, at `at`.
async fn set_state(
    db: &dyn Conn,
    id: &str,
    state: TournamentState,
    at: i64,
) -> Result<(), StoreError> {
    let over = matches!(
        state,
        TournamentState::Finished | TournamentState::Cancelled
    );
    let finished_at = over.then_some(at);
    db.execute(SET_TOURNAMENT_STATE, params![id, text(&state), finished_at])
        .await?;
    Ok(())
}

/// Account `account` enters tournament `id` at `at`.
async fn enter(db: &dyn Conn, id: &str, account: &str, at: i64) -> Result<(), StoreError> {
    db.execute(ENTER, params![id, account, at]).await?;
    Ok(())
}

/// Account `account` leaves tournament `id`, not started; false if it was not in it.
async fn leave(db: &dyn Conn, id: &str, account: &str) -> Result<bool, StoreError> {
    Ok(db.execute(LEAVE, params![id, account]).await? > 0)
}

/// Account `account` withdraws from tournament `id` at `at`; false if it was not in it.
async fn withdraw(db: &dyn Conn, id: &str, account: &str, at: i64) -> Result<bool, StoreError> {
    Ok(db.execute(WITHDRAW, params![id, account, at]).await? > 0)
}

/// Tournament `id`'s entries, in the order they joined.
async fn entries(db: &dyn Conn, id: &str) -> Result<Vec<StoredEntry>, StoreError> {
    let rows = db.query(ENTRIES, params![id]).await?;
    rows.iter()
        .map(|row| {
            Ok(StoredEntry {
                account: Account::from_row(row)?,
                joined_at: row.get("joined_at")?,
                withdrawn_at: row.get("withdrawn_at")?,
            })
        })
        .collect()
}

/// Stores round `round` of tournament `id`: each game's room, then its pairing, boards
/// numbered from 1, in the caller's transaction. A round stored already is refused by
/// the pairings' key, and the transaction with it.
async fn pair_round(
    db: &dyn Conn,
    id: &str,
    round: u32,
    pairings: Vec<NewPairing>,
    at: i64,
) -> Result<(), StoreError> {
    for (board, pairing) in (1u32..).zip(pairings) {
        let room = pairing.room.as_ref().map(|room| room.id.clone());
        if let Some(room) = pairing.room {
            Write::CreateRoom { room, at }.make(db).await?;
        }
        let values = [
            Value::from(id),
            round.into(),
            board.into(),
            room.into(),
            Value::from(&pairing.white),
            pairing.black.into(),
            at.into(),
        ];
        db.execute(INSERT_PAIRING, &values).await?;
    }
    Ok(())
}

/// Tournament `id`'s pairings, round by round, each with its game's result.
async fn pairings(db: &dyn Conn, id: &str) -> Result<Vec<StoredPairing>, StoreError> {
    let rows = db.query(PAIRINGS, params![id]).await?;
    rows.iter()
        .map(|row| {
            let black: Option<String> = row.get("black")?;
            let black_name: Option<String> = row.get("black_username")?;
            Ok(StoredPairing {
                round: row.get("round")?,
                board: row.get("board")?,
                room: row.get("room")?,
                white: Account {
                    id: row.get("white")?,
                    username: row.get("white_username")?,
                },
                black: black
                    .zip(black_name)
                    .map(|(id, username)| Account { id, username }),
                outcome: row.stored_opt("outcome")?,
                finished_at: row.get("finished_at")?,
            })
        })
        .collect()
}

/// A new tournament: id, name, format, variant, the clock (base, increment, days),
/// rated, starts, ends, rounds, fewest and most players, creator, when, state.
const INSERT_TOURNAMENT: &str = "INSERT INTO tournaments
        (id, name, format, variant, clock_base_ms, clock_increment_ms, clock_days, rated,
         starts_at, ends_at, rounds, min_players, max_players, creator, created_at, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

/// The columns of a tournament `t` as [`TOURNAMENT_FROM`] reads it: id, name, format,
/// variant, clock (base, increment, days), rated, starts, ends, rounds, fewest and most
/// players, the creator's username, state, the players entered and not withdrawn, the
/// rounds paired.
const TOURNAMENT_COLUMNS: &str = "t.id, t.name, t.format, t.variant,
        t.clock_base_ms, t.clock_increment_ms, t.clock_days, t.rated, t.starts_at, t.ends_at,
        t.rounds, t.min_players, t.max_players, c.username AS creator, t.state,
        (SELECT COUNT(*) FROM tournament_entries e
         WHERE e.tournament = t.id AND e.withdrawn_at IS NULL) AS players,
        (SELECT COALESCE(MAX(p.round), 0) FROM tournament_pairings p
         WHERE p.tournament = t.id) AS paired_rounds";

/// Tournaments `t` with their creators `c`, for [`TOURNAMENT_COLUMNS`].
const TOURNAMENT_FROM: &str = "FROM tournaments t JOIN accounts c ON c.id = t.creator";

/// Tournament `$1`.
fn tournament_sql() -> String {
    format!("SELECT {TOURNAMENT_COLUMNS} {TOURNAMENT_FROM} WHERE t.id = $1")
}

/// The tournaments in state `$1`, at most `$2`: those not finished the soonest to start
/// first, the others the latest finished first.
fn tournaments_in_sql() -> String {
    format!(
        "SELECT {TOURNAMENT_COLUMNS} {TOURNAMENT_FROM} WHERE t.state = $1
         ORDER BY CASE WHEN t.finished_at IS NULL THEN t.starts_at ELSE -t.finished_at END,
                  t.id
         LIMIT $2"
    )
}

/// The tournaments not finished whose start is at `$1` or before, or that are running.
const TOURNAMENTS_DUE: &str = "SELECT id FROM tournaments
     WHERE finished_at IS NULL AND (starts_at <= $1 OR state = 'running')
     ORDER BY starts_at, id";

/// Tournament `$1` moves to state `$2`; finished at `$3` (if given).
const SET_TOURNAMENT_STATE: &str =
    "UPDATE tournaments SET state = $2, finished_at = $3 WHERE id = $1";

/// Account `$2` enters tournament `$1` at `$3` (or again, after withdrawing).
const ENTER: &str = "INSERT INTO tournament_entries (tournament, account, joined_at)
     VALUES ($1, $2, $3)
     ON CONFLICT (tournament, account) DO UPDATE SET withdrawn_at = NULL, joined_at = $3";

/// Account `$2` leaves tournament `$1` before its start: its entry goes.
const LEAVE: &str = "DELETE FROM tournament_entries WHERE tournament = $1 AND account = $2";

/// Account `$2` withdraws from tournament `$1` at `$3`.
const WITHDRAW: &str = "UPDATE tournament_entries SET withdrawn_at = $3
     WHERE tournament = $1 AND account = $2 AND withdrawn_at IS NULL";

/// Tournament `$1`'s entries in the order they joined: account, username, joined,
/// withdrawn.
const ENTRIES: &str = "SELECT a.id, a.username, e.joined_at, e.withdrawn_at
     FROM tournament_entries e JOIN accounts a ON a.id = e.account
     WHERE e.tournament = $1 ORDER BY e.joined_at, e.account";

/// A pairing of tournament `$1`, round `$2`, board `$3`: room, white, black, when.
const INSERT_PAIRING: &str = "INSERT INTO tournament_pairings
        (tournament, round, board, room, white, black, paired_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Tournament `$1`'s pairings, round by round and board by board: round, board, room,
/// white (account, username), black (account, username), the room's outcome and when it
/// ended.
const PAIRINGS: &str = "SELECT p.round, p.board, p.room, p.white, wa.username AS white_username,
            p.black, ba.username AS black_username, r.outcome, r.finished_at
     FROM tournament_pairings p
     JOIN accounts wa ON wa.id = p.white
     LEFT JOIN accounts ba ON ba.id = p.black
     LEFT JOIN rooms r ON r.id = p.room
     WHERE p.tournament = $1 ORDER BY p.round, p.board";
