//! The schema: one list of migrations, oldest first, for both databases, and the rule
//! for which of them a database still needs.
//!
//! A database records how many have run (SQLite in `PRAGMA user_version`, PostgreSQL
//! in its `punct_schema` table). At start, the server runs the ones after that in one
//! transaction, and refuses a database newer than itself. Each driver runs them in its
//! own way (`sqlite/`, `postgres/`). The SQL is written once: where the two databases
//! spell a type or a trigger differently, a [`Dialect`] names it.
//!
//! Never change what a migration does once it has shipped: add another.

use super::error::StoreError;

/// How a database spells what the migrations cannot write the same in both.
pub(super) struct Dialect {
    /// Milliseconds since the Unix epoch.
    pub(super) time: &'static str,
    /// A 64-bit integer: a duration in milliseconds, a room's incarnation.
    pub(super) big: &'static str,
    /// A small integer: the computer's level.
    pub(super) small: &'static str,
    /// Bytes: a token's hash.
    pub(super) bytes: &'static str,
    /// A floating-point number: a rating.
    pub(super) real: &'static str,
    /// A key numbered in the order rows are added.
    pub(super) serial: &'static str,
    /// A flag, false until set.
    pub(super) flag: &'static str,
    /// What follows a table whose primary key is all it is looked up by (SQLite stores
    /// such a table in its key's order, with no separate row id).
    pub(super) keyed: &'static str,
    /// The triggers that keep the audit log append-only.
    pub(super) append_only: &'static str,
}

/// SQLite's spelling.
pub(super) const SQLITE: Dialect = Dialect {
    time: "INTEGER",
    big: "INTEGER",
    small: "INTEGER",
    bytes: "BLOB",
    real: "REAL",
    serial: "INTEGER PRIMARY KEY AUTOINCREMENT",
    flag: "INTEGER NOT NULL DEFAULT 0",
    keyed: " WITHOUT ROWID",
    append_only: AUDIT_APPEND_ONLY_SQLITE,
};

/// PostgreSQL's spelling.
pub(super) const POSTGRES: Dialect = Dialect {
    time: "BIGINT",
    big: "BIGINT",
    small: "SMALLINT",
    bytes: "BYTEA",
    real: "DOUBLE PRECISION",
    serial: "BIGSERIAL PRIMARY KEY",
    flag: "BOOLEAN NOT NULL DEFAULT FALSE",
    keyed: "",
    append_only: AUDIT_APPEND_ONLY_POSTGRES,
};

/// How many migrations there are: the version of a database this server made.
pub(super) const LATEST: usize = 19;

/// Every migration, oldest first, in `d`'s spelling.
fn migrations(d: &Dialect) -> [String; LATEST] {
    [
        // 1: rooms, seats and turns.
        rooms(d),
        // 2: time controls, and both clocks after each turn.
        clocks(d),
        // 3: the archive pages through finished games by the time they ended.
        "CREATE INDEX rooms_finished ON rooms(finished_at, id) WHERE outcome IS NOT NULL"
            .to_owned(),
        // 4: a seat the server's engine plays, and its level.
        format!(
            "ALTER TABLE rooms ADD COLUMN computer_color TEXT;
            ALTER TABLE rooms ADD COLUMN computer_level {};",
            d.small
        ),
        // 5: the lobby lists unfinished rooms oldest first, from the database.
        "CREATE INDEX rooms_lobby ON rooms(created_at, id) WHERE outcome IS NULL".to_owned(),
        // 6: accounts and their sessions; players' names and accounts on the seats;
        // rated games and the ratings they changed.
        accounts(d),
        // 7: each room's chat, and who muted whom.
        chat(d),
        // 8: correspondence games' days per move.
        CORRESPONDENCE.to_owned(),
        // 9: usernames' look-alike keys.
        lookalikes(),
        // 10: the mail outbox.
        OUTBOX.to_owned(),
        // 11: an account's life: sessions' devices and when last seen, deleted accounts,
        // who said each line of chat, confirmed addresses and mailed links.
        account_life(d),
        // 12: who blocks whom.
        blocks(d),
        // 13: roles, sanctions, reports, the audit log, sign-in addresses.
        moderation(d) + d.append_only,
        // 14: the puzzles each account solved.
        puzzles_solved(d),
        // 15: the language an account's owner reads.
        LANGUAGES.to_owned(),
        // 16: tournaments, their entries and pairings.
        tournaments(d),
        // 17: a report keeps its line's room.
        REPORTS_ROOM.to_owned(),
        // 18: the bans each server looks for, made from the console.
        "CREATE INDEX accounts_banned ON accounts(banned_at) WHERE banned_at IS NOT NULL"
            .to_owned(),
        // 19: puzzle ratings, of players and of puzzles, each player's first result of
        // each puzzle, and their best streak.
        puzzle_ratings(d),
    ]
}

/// The migrations a database at `version` still needs to reach version `to` (at most
/// [`LATEST`]), each with its number, in `d`'s spelling; an error for a database newer
/// than this server, which must not be touched.
pub(super) fn pending(
    version: usize,
    to: usize,
    d: &Dialect,
) -> Result<Vec<(usize, String)>, StoreError> {
    if version > LATEST {
        return Err(StoreError::Schema(format!(
            "the database is at schema version {version}, newer than this server ({LATEST})"
        )));
    }
    Ok(migrations(d)
        .into_iter()
        .enumerate()
        .map(|(at, sql)| (at + 1, sql))
        .skip(version)
        .take(to.saturating_sub(version))
        .collect())
}

/// Migration 1: rooms, their seats (as hashes of their tokens) and turns.
fn rooms(d: &Dialect) -> String {
    let Dialect {
        time,
        big,
        bytes,
        keyed,
        ..
    } = d;
    format!(
        "CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        variant TEXT NOT NULL,
        visibility TEXT NOT NULL,
        created_at {time} NOT NULL,
        -- SHA-256 of each seat's token; NULL while the seat is free.
        white_token {bytes},
        black_token {bytes},
        -- How many times the room has been loaded: the high half of its sequence numbers,
        -- and the fence of each load's writes.
        incarnation {big} NOT NULL DEFAULT 0,
        -- The result as JSON once the game is over.
        outcome TEXT,
        finished_at {time}
    );
    CREATE TABLE turns (
        room TEXT NOT NULL REFERENCES rooms(id),
        number INTEGER NOT NULL,
        turn TEXT NOT NULL,
        played_at {time} NOT NULL,
        PRIMARY KEY (room, number)
    ){keyed};
    CREATE INDEX rooms_unfinished ON rooms(id) WHERE outcome IS NULL;"
    )
}

/// Migration 2: a room's time control, and both clocks after each turn.
fn clocks(d: &Dialect) -> String {
    let big = d.big;
    format!(
        "ALTER TABLE rooms ADD COLUMN clock_base_ms {big};
    ALTER TABLE rooms ADD COLUMN clock_increment_ms {big};
    ALTER TABLE turns ADD COLUMN white_ms {big};
    ALTER TABLE turns ADD COLUMN black_ms {big};"
    )
}

/// Migration 8, correspondence games, the same in both databases: the days
/// each move may take (the clock's base is then those days, its increment 0), and the
/// index of the games that sweeping looks through for a player out of days.
const CORRESPONDENCE: &str = "ALTER TABLE rooms ADD COLUMN clock_days SMALLINT;
    CREATE INDEX rooms_correspondence ON rooms(id) WHERE outcome IS NULL AND clock_days IS NOT NULL;
    -- Mail about correspondence games: where to, how often (off, each, digest), the secret
    -- of the link that turns it off, and when the last daily digest went.
    ALTER TABLE accounts ADD COLUMN email TEXT;
    ALTER TABLE accounts ADD COLUMN notify TEXT NOT NULL DEFAULT 'off';
    ALTER TABLE accounts ADD COLUMN unsubscribe TEXT;
    ALTER TABLE accounts ADD COLUMN last_digest_at BIGINT;
    CREATE UNIQUE INDEX accounts_unsubscribe ON accounts(unsubscribe);";

/// Migration 9: each account's username gets its look-alike key
/// (`accounts::lookalike_key`). Usernames are ASCII, so the key of one already stored
/// is its `username_key` with the digits that pass for letters replaced, as the table
/// stood when this shipped. Of two stored usernames that already pass for each other,
/// the older (UUIDv7 ids sort by time) keeps the key and the other has none: both can
/// still sign in, and no third can join them.
fn lookalikes() -> String {
    let folded = |key: &str| {
        format!(
            "replace(replace(replace(replace(replace({key}, '0', 'o'), '1', 'l'), '3', 'e'), '5', 's'), '8', 'b')"
        )
    };
    let (new, older) = (
        folded("accounts.username_key"),
        folded("older.username_key"),
    );
    format!(
        "ALTER TABLE accounts ADD COLUMN username_lookalike TEXT;
    UPDATE accounts SET username_lookalike = {new}
        WHERE NOT EXISTS (SELECT 1 FROM accounts AS older
            WHERE older.id < accounts.id AND {older} = {new});
    CREATE UNIQUE INDEX accounts_username_lookalike ON accounts(username_lookalike);"
    )
}

/// Migration 10: the outbox. Each mail is queued in the transaction of the change that
/// causes it, and sent (once, by whichever node claims it) after.
const OUTBOX: &str = "CREATE TABLE mail_outbox (
        -- A UUIDv7: the order mails were queued in, and their Message-ID.
        id TEXT PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts(id),
        room TEXT NOT NULL,
        -- What to write, as JSON (`model::Notice`).
        notice TEXT NOT NULL,
        queued_at BIGINT NOT NULL,
        -- Failed tries so far, and when the next may be made (the back-off).
        attempts INTEGER NOT NULL DEFAULT 0,
        due_at BIGINT NOT NULL,
        -- The claim of the node sending it, held until `claimed_until`: a node that dies
        -- holding it gives it up so.
        claimed_by TEXT,
        claimed_until BIGINT,
        -- When it was sent, or given up (then with the last failure).
        done_at BIGINT,
        error TEXT
    );
    CREATE INDEX mail_outbox_due ON mail_outbox(due_at) WHERE done_at IS NULL;
    CREATE INDEX mail_outbox_claim ON mail_outbox(claimed_by) WHERE done_at IS NULL;";

/// Migration 11, an account's life: each session's device (its `User-Agent`) and when
/// it was last seen; a deleted account's number (its name is "deleted player N"); who
/// said each line of chat, so that a deleted account's lines go (lines said before are
/// a seat's player's, or a spectator's signed in under their username); whether the
/// mail address was confirmed, and the links mailed to confirm one or to set a new
/// password.
fn account_life(d: &Dialect) -> String {
    let Dialect {
        time, bytes, flag, ..
    } = d;
    format!(
        "{ACCOUNT_LIFE}
    ALTER TABLE accounts ADD COLUMN email_confirmed {flag};
    CREATE TABLE mail_links (
        -- The id of the mail in the outbox that carries it.
        id TEXT PRIMARY KEY,
        -- SHA-256 of the secret of the link, made as the mail is written; NULL before.
        token {bytes} UNIQUE,
        account TEXT NOT NULL REFERENCES accounts(id),
        -- `confirm` (the address) or `reset` (the password).
        purpose TEXT NOT NULL,
        -- Where it was sent: the address to confirm.
        email TEXT NOT NULL,
        expires_at {time} NOT NULL
    );
    CREATE INDEX mail_links_account ON mail_links(account);"
    )
}

/// The part of [`account_life`] whose types are the same in both databases.
const ACCOUNT_LIFE: &str = "ALTER TABLE sessions ADD COLUMN user_agent TEXT;
    ALTER TABLE sessions ADD COLUMN last_seen_at BIGINT;
    ALTER TABLE accounts ADD COLUMN deleted_number BIGINT;
    ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;
    CREATE UNIQUE INDEX accounts_deleted_number ON accounts(deleted_number);
    ALTER TABLE chat ADD COLUMN account TEXT REFERENCES accounts(id);
    UPDATE chat SET account = (SELECT CASE WHEN chat.color = 'white' THEN r.white_account
                                           ELSE r.black_account END
                               FROM rooms r WHERE r.id = chat.room)
        WHERE color IS NOT NULL;
    UPDATE chat SET account = (SELECT a.id FROM accounts a WHERE a.username = chat.name)
        WHERE color IS NULL;
    CREATE INDEX chat_account ON chat(account) WHERE account IS NOT NULL;";

/// Migration 12: who blocks whom, since when, until lifted. The index on `blocked`
/// serves the question a seat asks: who blocks the account taking it.
fn blocks(d: &Dialect) -> String {
    let time = d.time;
    format!(
        "CREATE TABLE blocks (
        blocker TEXT NOT NULL REFERENCES accounts(id),
        blocked TEXT NOT NULL REFERENCES accounts(id),
        created_at {time} NOT NULL,
        PRIMARY KEY (blocker, blocked)
    );
    CREATE INDEX blocks_blocked ON blocks(blocked);"
    )
}

/// Migration 14: which of the page's puzzles (by their ids in `puzzles.json`) each
/// account has solved, and when first.
fn puzzles_solved(d: &Dialect) -> String {
    let time = d.time;
    format!(
        "CREATE TABLE puzzles_solved (
        account TEXT NOT NULL REFERENCES accounts(id),
        puzzle TEXT NOT NULL,
        solved_at {time} NOT NULL,
        PRIMARY KEY (account, puzzle)
    );"
    )
}

/// Migration 19: the Glicko-2 puzzle rating of each player who played a puzzle, and of
/// each puzzle (by its id in `puzzles.json`; one never played has no row and stands at a
/// newcomer's rating); a player's best streak; and each player's first result of each
/// puzzle, the only one rated. Puzzles solved before ratings existed count as played, so
/// solving them again rates nothing, as any second try.
fn puzzle_ratings(d: &Dialect) -> String {
    let Dialect {
        time,
        real,
        flag,
        keyed,
        ..
    } = d;
    format!(
        "CREATE TABLE puzzle_players (
        account TEXT PRIMARY KEY REFERENCES accounts(id),
        rating {real} NOT NULL,
        deviation {real} NOT NULL,
        volatility {real} NOT NULL,
        -- When the last rated puzzle was played; NULL if none was (a streak alone).
        last_rated_at {time},
        best_streak INTEGER NOT NULL DEFAULT 0
    ){keyed};
    CREATE TABLE puzzle_ratings (
        puzzle TEXT PRIMARY KEY,
        rating {real} NOT NULL,
        deviation {real} NOT NULL,
        volatility {real} NOT NULL,
        played INTEGER NOT NULL
    ){keyed};
    CREATE TABLE puzzle_attempts (
        account TEXT NOT NULL REFERENCES accounts(id),
        puzzle TEXT NOT NULL,
        solved {flag},
        played_at {time} NOT NULL,
        PRIMARY KEY (account, puzzle)
    ){keyed};
    -- `1 = 1` is true in both databases' own type for it (1 and TRUE).
    INSERT INTO puzzle_attempts (account, puzzle, solved, played_at)
        SELECT account, puzzle, 1 = 1, solved_at FROM puzzles_solved;"
    )
}

/// Migration 15: the language an account's owner reads, for their mail and for the
/// pages of each device they sign in on; none until chosen (English mail).
const LANGUAGES: &str = "ALTER TABLE accounts ADD COLUMN language TEXT";

/// Migration 17: a report keeps its line's room. The line goes with its speaker's
/// account, and the report must still say where it was said.
const REPORTS_ROOM: &str = "ALTER TABLE reports ADD COLUMN room TEXT;
    UPDATE reports SET room = (SELECT c.room FROM chat c WHERE c.id = reports.chat_line)
    WHERE chat_line IS NOT NULL";

/// Migration 6: accounts and their sessions, players' names and accounts on the seats,
/// and rated games with the ratings they changed.
fn accounts(d: &Dialect) -> String {
    let Dialect {
        time,
        bytes,
        real,
        serial,
        flag,
        ..
    } = d;
    format!(
        "CREATE TABLE accounts (
        -- A UUIDv7.
        id TEXT PRIMARY KEY,
        -- As registered; `username_key` (lower case) is what must be unique.
        username TEXT NOT NULL,
        username_key TEXT NOT NULL UNIQUE,
        -- Argon2id, as a PHC string.
        password TEXT NOT NULL,
        created_at {time} NOT NULL
    );
    CREATE TABLE sessions (
        -- SHA-256 of the session's secret.
        token {bytes} PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts(id),
        created_at {time} NOT NULL,
        expires_at {time} NOT NULL
    );
    CREATE INDEX sessions_account ON sessions(account);
    ALTER TABLE rooms ADD COLUMN white_name TEXT;
    ALTER TABLE rooms ADD COLUMN black_name TEXT;
    ALTER TABLE rooms ADD COLUMN white_account TEXT REFERENCES accounts(id);
    ALTER TABLE rooms ADD COLUMN black_account TEXT REFERENCES accounts(id);
    ALTER TABLE rooms ADD COLUMN rated {flag};
    CREATE INDEX rooms_white_account ON rooms(white_account, finished_at)
        WHERE white_account IS NOT NULL;
    CREATE INDEX rooms_black_account ON rooms(black_account, finished_at)
        WHERE black_account IS NOT NULL;
    -- A player's rating now, per variant.
    CREATE TABLE ratings (
        account TEXT NOT NULL REFERENCES accounts(id),
        variant TEXT NOT NULL,
        rating {real} NOT NULL,
        deviation {real} NOT NULL,
        volatility {real} NOT NULL,
        games INTEGER NOT NULL,
        -- The end of the last rated game: inactivity since then widens the deviation.
        last_rated_at {time} NOT NULL,
        PRIMARY KEY (account, variant)
    );
    CREATE INDEX ratings_board ON ratings(variant, rating);
    -- Each rated game, in the order it was rated: rebuilding replays this order.
    CREATE TABLE rated_games (
        seq {serial},
        room TEXT NOT NULL UNIQUE REFERENCES rooms(id),
        rated_at {time} NOT NULL
    );
    -- What a rated game did to each player's rating.
    CREATE TABLE rating_changes (
        room TEXT NOT NULL REFERENCES rated_games(room),
        color TEXT NOT NULL,
        account TEXT NOT NULL REFERENCES accounts(id),
        variant TEXT NOT NULL,
        rated_at {time} NOT NULL,
        rating_before {real} NOT NULL,
        deviation_before {real} NOT NULL,
        volatility_before {real} NOT NULL,
        rating {real} NOT NULL,
        deviation {real} NOT NULL,
        volatility {real} NOT NULL,
        PRIMARY KEY (room, color)
    );
    CREATE INDEX rating_changes_account ON rating_changes(account, variant, rated_at);"
    )
}

/// Migration 7: each room's chat, and who muted whom.
fn chat(d: &Dialect) -> String {
    let Dialect {
        time, serial, flag, ..
    } = d;
    format!(
        "CREATE TABLE chat (
        id {serial},
        room TEXT NOT NULL REFERENCES rooms(id),
        channel TEXT NOT NULL,
        color TEXT,
        name TEXT,
        text TEXT NOT NULL,
        at {time} NOT NULL
    );
    CREATE INDEX chat_room ON chat(room, id);
    -- Whether White's and Black's players muted their opponent.
    ALTER TABLE rooms ADD COLUMN white_mutes {flag};
    ALTER TABLE rooms ADD COLUMN black_mutes {flag};"
    )
}

/// Migration 13, moderation (but for the triggers that keep the audit log append-only,
/// which each database writes in its own words): roles and sanctions on accounts,
/// removed lines of chat, reports, the audit log, the keyed hashes of the addresses
/// each account signed in from, and the key of those hashes.
fn moderation(d: &Dialect) -> String {
    let Dialect {
        time,
        bytes,
        serial,
        flag,
        ..
    } = d;
    format!(
        "ALTER TABLE accounts ADD COLUMN role TEXT;
    ALTER TABLE accounts ADD COLUMN banned_at {time};
    ALTER TABLE accounts ADD COLUMN muted_until {time};
    ALTER TABLE accounts ADD COLUMN barred_from_rated {flag};
    ALTER TABLE chat ADD COLUMN removed {flag};
    CREATE TABLE reports (
        -- A UUIDv7.
        id TEXT PRIMARY KEY,
        reporter TEXT NOT NULL REFERENCES accounts(id),
        -- The player reported; NULL for a line said by a player without an account.
        reported TEXT REFERENCES accounts(id),
        -- The line of chat reported, if one was (its room is the chat's).
        chat_line BIGINT,
        reason TEXT NOT NULL,
        created_at {time} NOT NULL,
        resolved_at {time},
        resolved_by TEXT REFERENCES accounts(id)
    );
    CREATE INDEX reports_open ON reports(created_at) WHERE resolved_at IS NULL;
    CREATE INDEX reports_reported ON reports(reported);
    CREATE INDEX reports_reporter ON reports(reporter);
    CREATE TABLE audit_log (
        id {serial},
        at {time} NOT NULL,
        -- Who acted; NULL for the operator's console (`punct-server admin`).
        moderator TEXT REFERENCES accounts(id),
        action TEXT NOT NULL,
        account TEXT REFERENCES accounts(id),
        room TEXT,
        chat_line BIGINT,
        report TEXT,
        reason TEXT NOT NULL,
        -- When a mute ends; a role granted.
        until {time},
        role TEXT
    );
    CREATE INDEX audit_log_account ON audit_log(account, id);
    CREATE TABLE sign_ins (
        account TEXT NOT NULL REFERENCES accounts(id),
        -- The address, hashed with the key of `server_keys`: equal addresses compare
        -- equal, and nobody reading the database learns the address.
        address {bytes} NOT NULL,
        first_at {time} NOT NULL,
        last_at {time} NOT NULL,
        PRIMARY KEY (account, address)
    );
    CREATE TABLE server_keys (
        name TEXT PRIMARY KEY,
        key {bytes} NOT NULL
    );"
    )
}

/// SQLite's triggers that refuse to change or delete an entry of the audit log.
const AUDIT_APPEND_ONLY_SQLITE: &str =
    "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
     CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;";

/// PostgreSQL's triggers that refuse to change, delete or truncate entries of the audit
/// log.
const AUDIT_APPEND_ONLY_POSTGRES: &str =
    "CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
     CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
     FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
     CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
     FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();";

/// Migration 16: each tournament and its settings, who entered it, and each round's
/// pairings with the room of each game. A game's result is its room's outcome, written
/// by the room: the pairing never copies it, so no result can be lost between the two.
/// A pairing's (tournament, round, board) is its key: a round stored twice (a director
/// that restarted, or two that ran at once) is refused the second time.
fn tournaments(d: &Dialect) -> String {
    let Dialect { time, flag, .. } = d;
    format!(
        "CREATE TABLE tournaments (
        -- A UUIDv7.
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        -- swiss, arena, round-robin, double-round-robin.
        format TEXT NOT NULL,
        variant TEXT NOT NULL,
        -- Every game's time control, as rooms keep it.
        clock_base_ms {time},
        clock_increment_ms {time},
        clock_days SMALLINT,
        rated {flag},
        starts_at {time} NOT NULL,
        -- An arena's end.
        ends_at {time},
        -- A Swiss's number of rounds.
        rounds INTEGER,
        min_players INTEGER NOT NULL,
        max_players INTEGER NOT NULL,
        creator TEXT NOT NULL REFERENCES accounts(id),
        created_at {time} NOT NULL,
        -- upcoming, running, finished, cancelled.
        state TEXT NOT NULL,
        finished_at {time}
    );
    CREATE INDEX tournaments_open ON tournaments(starts_at) WHERE finished_at IS NULL;
    CREATE TABLE tournament_entries (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        account TEXT NOT NULL REFERENCES accounts(id),
        joined_at {time} NOT NULL,
        withdrawn_at {time},
        PRIMARY KEY (tournament, account)
    );
    CREATE TABLE tournament_pairings (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        -- The game's room; NULL for a bye.
        room TEXT REFERENCES rooms(id),
        white TEXT NOT NULL REFERENCES accounts(id),
        -- NULL for a bye, worth a win to white.
        black TEXT REFERENCES accounts(id),
        paired_at {time} NOT NULL,
        PRIMARY KEY (tournament, round, board)
    );
    CREATE UNIQUE INDEX tournament_pairings_room ON tournament_pairings(room);"
    )
}
