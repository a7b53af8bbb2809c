//! The schema, one migration per version, run by `rusqlite_migration`: `PRAGMA
//! user_version` says how many have run, those after it run at start in one transaction,
//! and a database newer than this server is refused.

use std::sync::LazyLock;

use rusqlite_migration::{M, Migrations};

use crate::store::sql::{self, Types};

/// Every migration, oldest first. Never change what one does once it has shipped: add
/// another. The sixth to seventeenth are written once for both databases (`store/sql.rs`).
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
        M::up(ACCOUNTS.as_str()),
        // 7: each room's chat, and who muted whom.
        M::up(CHAT.as_str()),
        // 8: correspondence games' days per move.
        M::up(sql::CORRESPONDENCE),
        // 9: usernames' look-alike keys.
        M::up(LOOKALIKES.as_str()),
        // 10: the mail outbox.
        M::up(sql::OUTBOX),
        // 11: an account's life: sessions' devices and when last seen, deleted accounts,
        // who said each line of chat, confirmed addresses and mailed links.
        M::up(ACCOUNT_LIFE.as_str()),
        // 12: who blocks whom.
        M::up(BLOCKS.as_str()),
        // 13: roles, sanctions, reports, the audit log, sign-in addresses.
        M::up(MODERATION.as_str()),
        // 14: the puzzles each account solved.
        M::up(PUZZLES_SOLVED.as_str()),
        // 15: the language an account's owner reads.
        M::up(sql::LANGUAGES),
        // 16: tournaments, their entries and pairings.
        M::up(TOURNAMENTS.as_str()),
        // 17: a report keeps its line's room.
        M::up(sql::REPORTS_ROOM),
    ])
}

/// SQLite's names of the types of the migrations written once for both databases.
const TYPES: Types = Types {
    time: "INTEGER",
    bytes: "BLOB",
    real: "REAL",
    serial: "INTEGER PRIMARY KEY AUTOINCREMENT",
    flag: "INTEGER NOT NULL DEFAULT 0",
};

/// Migration 6, PostgreSQL's second.
static ACCOUNTS: LazyLock<String> = LazyLock::new(|| sql::accounts(&TYPES));

/// Migration 9, PostgreSQL's fifth.
static LOOKALIKES: LazyLock<String> = LazyLock::new(sql::lookalikes);

/// Migration 11, PostgreSQL's seventh.
static ACCOUNT_LIFE: LazyLock<String> = LazyLock::new(|| sql::account_life(&TYPES));

/// Migration 12, PostgreSQL's eighth.
static BLOCKS: LazyLock<String> = LazyLock::new(|| sql::blocks(&TYPES));

/// Migration 13, PostgreSQL's ninth.
static MODERATION: LazyLock<String> =
    LazyLock::new(|| sql::moderation(&TYPES) + sql::AUDIT_APPEND_ONLY_SQLITE);

/// Migration 14, PostgreSQL's tenth.
static PUZZLES_SOLVED: LazyLock<String> = LazyLock::new(|| sql::puzzles_solved(&TYPES));

/// Migration 16, PostgreSQL's twelfth.
static TOURNAMENTS: LazyLock<String> = LazyLock::new(|| sql::tournaments(&TYPES));

/// Migration 7, PostgreSQL's third.
static CHAT: LazyLock<String> = LazyLock::new(|| sql::chat(&TYPES));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }
}
