//! The PostgreSQL schema, one migration per version. A one-row table says how many have
//! run; the server runs those after it at start, in one transaction, under an advisory
//! lock so that nodes starting together migrate once. A database newer than the server
//! is refused.
//!
//! (Hand-written rather than a migration crate: refinery, the one that speaks
//! tokio-postgres, brings a dozen crates and a history table of its own for what is a
//! numbered list run in one transaction.)

use tokio_postgres::Client;

use crate::store::StoreError;

/// Every migration, oldest first. Never edit one that has shipped: add another. The
/// schema is SQLite's (`store/sqlite/schema.rs`): the first is its first five migrations.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: rooms, seats, turns, clocks, the computer's seat, and the indexes of the
    // archive and the lobby.
    "CREATE TABLE rooms (
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
    CREATE INDEX rooms_lobby ON rooms(created_at, id) WHERE outcome IS NULL;",
    // 2: accounts and their sessions; players' names and accounts on the seats; rated
    // games and the ratings they changed (SQLite's sixth).
    "CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        username_key TEXT NOT NULL UNIQUE,
        password TEXT NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE TABLE sessions (
        token BYTEA PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts(id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX sessions_account ON sessions(account);
    ALTER TABLE rooms ADD COLUMN white_name TEXT;
    ALTER TABLE rooms ADD COLUMN black_name TEXT;
    ALTER TABLE rooms ADD COLUMN white_account TEXT REFERENCES accounts(id);
    ALTER TABLE rooms ADD COLUMN black_account TEXT REFERENCES accounts(id);
    ALTER TABLE rooms ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX rooms_white_account ON rooms(white_account, finished_at)
        WHERE white_account IS NOT NULL;
    CREATE INDEX rooms_black_account ON rooms(black_account, finished_at)
        WHERE black_account IS NOT NULL;
    CREATE TABLE ratings (
        account TEXT NOT NULL REFERENCES accounts(id),
        variant TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        last_rated_at BIGINT NOT NULL,
        PRIMARY KEY (account, variant)
    );
    CREATE INDEX ratings_board ON ratings(variant, rating);
    CREATE TABLE rated_games (
        seq BIGSERIAL PRIMARY KEY,
        room TEXT NOT NULL UNIQUE REFERENCES rooms(id),
        rated_at BIGINT NOT NULL
    );
    CREATE TABLE rating_changes (
        room TEXT NOT NULL REFERENCES rated_games(room),
        color TEXT NOT NULL,
        account TEXT NOT NULL REFERENCES accounts(id),
        variant TEXT NOT NULL,
        rated_at BIGINT NOT NULL,
        rating_before DOUBLE PRECISION NOT NULL,
        deviation_before DOUBLE PRECISION NOT NULL,
        volatility_before DOUBLE PRECISION NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (room, color)
    );
    CREATE INDEX rating_changes_account ON rating_changes(account, variant, rated_at);",
    // 3: each room's chat, and who muted whom (SQLite's seventh).
    "CREATE TABLE chat (
        id BIGSERIAL PRIMARY KEY,
        room TEXT NOT NULL REFERENCES rooms(id),
        channel TEXT NOT NULL,
        color TEXT,
        name TEXT,
        text TEXT NOT NULL,
        at BIGINT NOT NULL
    );
    CREATE INDEX chat_room ON chat(room, id);
    ALTER TABLE rooms ADD COLUMN white_mutes BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE rooms ADD COLUMN black_mutes BOOLEAN NOT NULL DEFAULT FALSE;",
    // 4: correspondence games' days per move (SQLite's eighth).
    CORRESPONDENCE,
];

/// Migration 4, SQLite's eighth: the same statements in both.
const CORRESPONDENCE: &str = crate::store::sql::CORRESPONDENCE;

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
    if version > MIGRATIONS.len() {
        return Err(StoreError::Schema(format!(
            "the database is at schema version {version}, newer than this server ({})",
            MIGRATIONS.len()
        )));
    }
    for (number, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        tx.batch_execute(sql).await?;
        tracing::info!(version = number + 1, "database schema migrated");
    }
    let latest = i32::try_from(MIGRATIONS.len()).expect("few migrations");
    tx.execute("DELETE FROM punct_schema", &[]).await?;
    tx.execute("INSERT INTO punct_schema (version) VALUES ($1)", &[&latest])
        .await?;
    tx.commit().await?;
    Ok(())
}
