//! The PostgreSQL schema, one migration per version. A one-row table says how many have
//! run; the server runs those after it at start, in one transaction, under an advisory
//! lock so that nodes starting together migrate once. A database newer than the server
//! is refused.
//!
//! (Hand-written rather than a migration crate: refinery, the one that speaks
//! tokio-postgres, brings a dozen crates and a history table of its own for what is a
//! numbered list run in one transaction.)

use tokio_postgres::Client;

use crate::store::error::StoreError;
use crate::store::sql::{self, Types};

/// PostgreSQL's names of the types of the migrations written once for both databases.
const TYPES: Types = Types {
    time: "BIGINT",
    bytes: "BYTEA",
    real: "DOUBLE PRECISION",
    serial: "BIGSERIAL PRIMARY KEY",
    flag: "BOOLEAN NOT NULL DEFAULT FALSE",
};

/// Every migration, oldest first. Never change what one does once it has shipped: add
/// another. The schema is SQLite's (`store/sqlite/schema.rs`): the first is its first
/// five migrations, the others its sixth to seventeenth.
pub(super) fn migrations() -> [String; 13] {
    [
        ROOMS.to_owned(),
        // 2: accounts and their sessions; players' names and accounts on the seats;
        // rated games and the ratings they changed.
        sql::accounts(&TYPES),
        // 3: each room's chat, and who muted whom.
        sql::chat(&TYPES),
        // 4: correspondence games' days per move.
        sql::CORRESPONDENCE.to_owned(),
        // 5: usernames' look-alike keys.
        sql::lookalikes(),
        // 6: the mail outbox.
        sql::OUTBOX.to_owned(),
        // 7: an account's life: sessions' devices and when last seen, deleted accounts,
        // who said each line of chat, confirmed addresses and mailed links.
        sql::account_life(&TYPES),
        // 8: who blocks whom.
        sql::blocks(&TYPES),
        // 9: roles, sanctions, reports, the audit log, sign-in addresses.
        sql::moderation(&TYPES) + sql::AUDIT_APPEND_ONLY_POSTGRES,
        // 10: the puzzles each account solved.
        sql::puzzles_solved(&TYPES),
        // 11: the language an account's owner reads.
        sql::LANGUAGES.to_owned(),
        // 12: tournaments, their entries and pairings.
        sql::tournaments(&TYPES),
        // 13: a report keeps its line's room.
        sql::REPORTS_ROOM.to_owned(),
    ]
}

/// Migration 1: rooms, seats, turns, clocks, the computer's seat, and the indexes of the
/// archive and the lobby.
const ROOMS: &str = "CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        variant TEXT NOT NULL,
        visibility TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        -- SHA-256 of each seat's token; NULL while the seat is free.
        white_token BYTEA,
        black_token BYTEA,
        -- How many times the room has been loaded: the high half of its sequence numbers,
        -- and the fence of each load's writes.
        incarnation BIGINT NOT NULL DEFAULT 0,
        -- The result as JSON once the game is over.
        outcome TEXT,
        finished_at BIGINT,
        clock_base_ms BIGINT,
        clock_increment_ms BIGINT,
        computer_color TEXT,
        computer_level SMALLINT
    );
    CREATE TABLE turns (
        room TEXT NOT NULL REFERENCES rooms(id),
        number INTEGER NOT NULL,
        turn TEXT NOT NULL,
        played_at BIGINT NOT NULL,
        white_ms BIGINT,
        black_ms BIGINT,
        PRIMARY KEY (room, number)
    );
    CREATE INDEX rooms_unfinished ON rooms(id) WHERE outcome IS NULL;
    CREATE INDEX rooms_finished ON rooms(finished_at, id) WHERE outcome IS NOT NULL;
    CREATE INDEX rooms_lobby ON rooms(created_at, id) WHERE outcome IS NULL;";

/// The advisory lock the migrations run under: `punct` in ASCII.
const LOCK: i64 = 0x0070_756e_6374;

/// Brings the schema of the database `client` is connected to up to date.
pub(super) async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK])
        .await?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS punct_schema (version INTEGER NOT NULL)")
        .await?;
    let version: i32 = tx
        .query_opt("SELECT version FROM punct_schema", &[])
        .await?
        .map_or(0, |row| row.get(0));
    let version = usize::try_from(version).unwrap_or(0);
    let migrations = migrations();
    if version > migrations.len() {
        return Err(StoreError::Schema(format!(
            "the database is at schema version {version}, newer than this server ({})",
            migrations.len()
        )));
    }
    for (number, sql) in migrations.iter().enumerate().skip(version) {
        tx.batch_execute(sql).await?;
        tracing::info!(version = number + 1, "database schema migrated");
    }
    let latest = i32::try_from(migrations.len()).expect("few migrations");
    tx.execute("DELETE FROM punct_schema", &[]).await?;
    tx.execute("INSERT INTO punct_schema (version) VALUES ($1)", &[&latest])
        .await?;
    tx.commit().await?;
    Ok(())
}
