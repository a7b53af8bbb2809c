//! Tournaments' rows: the tournaments, who entered each, and each round's pairings
//! (stored with their games' rooms, in one transaction).

use punct_protocol::{TournamentState, TournamentSummary};

use super::driver::{Conn, Row, Value, params};
use super::error::StoreError;
use super::model::{
    Account, NewPairing, NewTournament, StoredEntry, StoredPairing, text, time_control,
};
use super::rooms::Write;
use super::sql;
use crate::clock::Clock;

/// Stores `tournament`, made at `at`, not started.
pub(super) async fn create(
    db: &dyn Conn,
    tournament: &NewTournament,
    at: i64,
) -> Result<(), StoreError> {
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
    db.execute(sql::INSERT_TOURNAMENT, &values).await?;
    Ok(())
}

/// Milliseconds as the database keeps them.
fn ms_i64(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// A tournament as [`sql::TOURNAMENT_COLUMNS`] reads it.
fn summary(row: &Row) -> Result<TournamentSummary, StoreError> {
    let base: Option<i64> = row.get(4)?;
    let increment: Option<i64> = row.get(5)?;
    let days: Option<u8> = row.get(6)?;
    let ms = |ms: i64| u64::try_from(ms).unwrap_or(0);
    let clock = time_control(base.zip(increment).map(|(b, i)| [ms(b), ms(i)]), days);
    let count = |at| -> Result<u32, StoreError> {
        let n: i64 = row.get(at)?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    };
    Ok(TournamentSummary {
        id: row.get(0)?,
        name: row.get(1)?,
        format: row.stored(2)?,
        variant: row.stored(3)?,
        clock,
        rated: row.get(7)?,
        starts_at: row.get(8)?,
        ends_at: row.get(9)?,
        rounds: row.get(10)?,
        min_players: row.get(11)?,
        max_players: row.get(12)?,
        creator: row.get(13)?,
        state: row.stored(14)?,
        players: count(15)?,
        round: count(16)?,
    })
}

/// Tournament `id`.
pub(super) async fn tournament(
    db: &dyn Conn,
    id: &str,
) -> Result<Option<TournamentSummary>, StoreError> {
    db.query_opt(&sql::tournament(), params![id])
        .await?
        .map(|row| summary(&row))
        .transpose()
}

/// Up to `limit` tournaments in `state`.
pub(super) async fn tournaments_in(
    db: &dyn Conn,
    state: TournamentState,
    limit: usize,
) -> Result<Vec<TournamentSummary>, StoreError> {
    let rows = db
        .query(&sql::tournaments_in(), params![text(&state), limit])
        .await?;
    rows.iter().map(summary).collect()
}

/// The tournaments not finished that have started by `at` or are running.
pub(super) async fn due(db: &dyn Conn, at: i64) -> Result<Vec<String>, StoreError> {
    let rows = db.query(sql::TOURNAMENTS_DUE, params![at]).await?;
    rows.iter().map(|row| row.get(0)).collect()
}

/// Tournament `id` moves to `state`, at `at`.
pub(super) async fn set_state(
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
    db.execute(
        sql::SET_TOURNAMENT_STATE,
        params![id, text(&state), finished_at],
    )
    .await?;
    Ok(())
}

/// Account `account` enters tournament `id` at `at`.
pub(super) async fn enter(
    db: &dyn Conn,
    id: &str,
    account: &str,
    at: i64,
) -> Result<(), StoreError> {
    db.execute(sql::ENTER, params![id, account, at]).await?;
    Ok(())
}

/// Account `account` leaves tournament `id`, not started; false if it was not in it.
pub(super) async fn leave(db: &dyn Conn, id: &str, account: &str) -> Result<bool, StoreError> {
    Ok(db.execute(sql::LEAVE, params![id, account]).await? > 0)
}

/// Account `account` withdraws from tournament `id` at `at`; false if it was not in it.
pub(super) async fn withdraw(
    db: &dyn Conn,
    id: &str,
    account: &str,
    at: i64,
) -> Result<bool, StoreError> {
    Ok(db.execute(sql::WITHDRAW, params![id, account, at]).await? > 0)
}

/// Tournament `id`'s entries, in the order they joined.
pub(super) async fn entries(db: &dyn Conn, id: &str) -> Result<Vec<StoredEntry>, StoreError> {
    let rows = db.query(sql::ENTRIES, params![id]).await?;
    rows.iter()
        .map(|row| {
            Ok(StoredEntry {
                account: Account {
                    id: row.get(0)?,
                    username: row.get(1)?,
                },
                joined_at: row.get(2)?,
                withdrawn_at: row.get(3)?,
            })
        })
        .collect()
}

/// Stores round `round` of tournament `id`: each game's room, then its pairing, boards
/// numbered from 1, in the caller's transaction. A round stored already is refused by
/// the pairings' key, and the transaction with it.
pub(super) async fn pair_round(
    db: &dyn Conn,
    id: &str,
    round: u32,
    pairings: Vec<NewPairing>,
    at: i64,
) -> Result<(), StoreError> {
    for (board, pairing) in (1u32..).zip(pairings) {
        let room = pairing.room.as_ref().map(|room| room.id.clone());
        if let Some(room) = pairing.room {
            Write::CreateRoom { room, at }.run(db).await?;
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
        db.execute(sql::INSERT_PAIRING, &values).await?;
    }
    Ok(())
}

/// Tournament `id`'s pairings, round by round, each with its game's result.
pub(super) async fn pairings(db: &dyn Conn, id: &str) -> Result<Vec<StoredPairing>, StoreError> {
    let rows = db.query(sql::PAIRINGS, params![id]).await?;
    rows.iter()
        .map(|row| {
            let black: Option<String> = row.get(5)?;
            let black_name: Option<String> = row.get(6)?;
            Ok(StoredPairing {
                round: row.get(0)?,
                board: row.get(1)?,
                room: row.get(2)?,
                white: Account {
                    id: row.get(3)?,
                    username: row.get(4)?,
                },
                black: black
                    .zip(black_name)
                    .map(|(id, username)| Account { id, username }),
                outcome: row.stored_opt(7)?,
                finished_at: row.get(8)?,
            })
        })
        .collect()
}
