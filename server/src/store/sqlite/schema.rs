//! The schema, one migration per version, run by `rusqlite_migration`: `PRAGMA
//! user_version` says how many have run, those after it run at start in one transaction,
//! and a database newer than this server is refused.

use rusqlite_migration::{M, Migrations};

/// Every migration, oldest first. Never edit one that has shipped: add another.
pub(super) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        // 1: rooms, seats and turns.
        M::up(
            "CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        variant TEXT NOT NULL,
        visibility TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        -- SHA-256 of each seat's token; NULL while the seat is free.
        white_token BLOB,
        black_token BLOB,
        -- How many times the room has been loaded: the high half of its sequence numbers.
        incarnation INTEGER NOT NULL DEFAULT 0,
        -- The result as JSON once the game is over.
        outcome TEXT,
        finished_at INTEGER
    );
    CREATE TABLE turns (
        room TEXT NOT NULL REFERENCES rooms(id),
        number INTEGER NOT NULL,
        turn TEXT NOT NULL,
        played_at INTEGER NOT NULL,
        PRIMARY KEY (room, number)
    ) WITHOUT ROWID;
    CREATE INDEX rooms_unfinished ON rooms(id) WHERE outcome IS NULL;",
        ),
        // 2: time controls, and both clocks after each turn.
        M::up(
            "ALTER TABLE rooms ADD COLUMN clock_base_ms INTEGER;
    ALTER TABLE rooms ADD COLUMN clock_increment_ms INTEGER;
    ALTER TABLE turns ADD COLUMN white_ms INTEGER;
    ALTER TABLE turns ADD COLUMN black_ms INTEGER;",
        ),
        // 3: the archive pages through finished games by the time they ended.
        M::up("CREATE INDEX rooms_finished ON rooms(finished_at, id) WHERE outcome IS NOT NULL;"),
        // 4: a seat the server's engine plays, and its level.
        M::up(
            "ALTER TABLE rooms ADD COLUMN computer_color TEXT;
    ALTER TABLE rooms ADD COLUMN computer_level INTEGER;",
        ),
        // 5: the lobby lists unfinished rooms oldest first, from the database.
        M::up("CREATE INDEX rooms_lobby ON rooms(created_at, id) WHERE outcome IS NULL;"),
        // 6: accounts and their sessions; players' names and accounts on the seats;
        // rated games and the ratings they changed.
        M::up(ACCOUNTS),
        // 7: each room's chat, and who muted whom.
        M::up(
            "CREATE TABLE chat (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        room TEXT NOT NULL REFERENCES rooms(id),
        channel TEXT NOT NULL,
        color TEXT,
        name TEXT,
        text TEXT NOT NULL,
        at INTEGER NOT NULL
    );
    CREATE INDEX chat_room ON chat(room, id);
    -- Whether White's and Black's players muted their opponent.
    ALTER TABLE rooms ADD COLUMN white_mutes INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rooms ADD COLUMN black_mutes INTEGER NOT NULL DEFAULT 0;",
        ),
        // 8: correspondence games' days per move.
        M::up(crate::store::sql::CORRESPONDENCE),
    ])
}

/// Migration 6, PostgreSQL's second: the same tables and meaning in each database's
/// own types.
const ACCOUNTS: &str = "CREATE TABLE accounts (
        -- A UUIDv7.
        id TEXT PRIMARY KEY,
        -- As registered; `username_key` (lower case) is what must be unique.
        username TEXT NOT NULL,
        username_key TEXT NOT NULL UNIQUE,
        -- Argon2id, as a PHC string.
        password TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE sessions (
        -- SHA-256 of the session's secret.
        token BLOB PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts(id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    );
    CREATE INDEX sessions_account ON sessions(account);
    ALTER TABLE rooms ADD COLUMN white_name TEXT;
    ALTER TABLE rooms ADD COLUMN black_name TEXT;
    ALTER TABLE rooms ADD COLUMN white_account TEXT REFERENCES accounts(id);
    ALTER TABLE rooms ADD COLUMN black_account TEXT REFERENCES accounts(id);
    ALTER TABLE rooms ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX rooms_white_account ON rooms(white_account, finished_at)
        WHERE white_account IS NOT NULL;
    CREATE INDEX rooms_black_account ON rooms(black_account, finished_at)
        WHERE black_account IS NOT NULL;
    -- A player's rating now, per variant.
    CREATE TABLE ratings (
        account TEXT NOT NULL REFERENCES accounts(id),
        variant TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL,
        -- The end of the last rated game: inactivity since then widens the deviation.
        last_rated_at INTEGER NOT NULL,
        PRIMARY KEY (account, variant)
    );
    CREATE INDEX ratings_board ON ratings(variant, rating);
    -- Each rated game, in the order it was rated: rebuilding replays this order.
    CREATE TABLE rated_games (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        room TEXT NOT NULL UNIQUE REFERENCES rooms(id),
        rated_at INTEGER NOT NULL
    );
    -- What a rated game did to each player's rating.
    CREATE TABLE rating_changes (
        room TEXT NOT NULL REFERENCES rated_games(room),
        color TEXT NOT NULL,
        account TEXT NOT NULL REFERENCES accounts(id),
        variant TEXT NOT NULL,
        rated_at INTEGER NOT NULL,
        rating_before REAL NOT NULL,
        deviation_before REAL NOT NULL,
        volatility_before REAL NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        PRIMARY KEY (room, color)
    );
    CREATE INDEX rating_changes_account ON rating_changes(account, variant, rated_at);";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }
}
