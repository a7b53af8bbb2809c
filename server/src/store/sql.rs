//! SQL that both databases run as it is. Parameters are written `$1`, `$2`, … for
//! PostgreSQL; SQLite reads `$1` as a named parameter and numbers named parameters in the
//! order they first appear. So every statement here must first use them in order (`$1`
//! before `$2`): then both bind alike. (`SET x = $2 WHERE id = $1` would swap them in
//! SQLite.)

/// The migration that adds correspondence games, the same in both databases: the days
/// each move may take (the clock's base is then those days, its increment 0), and the
/// index of the games that sweeping looks through for a player out of days.
pub(crate) const CORRESPONDENCE: &str = "ALTER TABLE rooms ADD COLUMN clock_days SMALLINT;
    CREATE INDEX rooms_correspondence ON rooms(id) WHERE outcome IS NULL AND clock_days IS NOT NULL;
    -- Mail about correspondence games: where to, how often (off, each, digest), the secret
    -- of the link that turns it off, and when the last daily digest went.
    ALTER TABLE accounts ADD COLUMN email TEXT;
    ALTER TABLE accounts ADD COLUMN notify TEXT NOT NULL DEFAULT 'off';
    ALTER TABLE accounts ADD COLUMN unsubscribe TEXT;
    ALTER TABLE accounts ADD COLUMN last_digest_at BIGINT;
    CREATE UNIQUE INDEX accounts_unsubscribe ON accounts(unsubscribe);";

/// Account `$1`'s mail settings: address, how often, the unsubscribe secret.
pub(crate) const NOTIFICATIONS: &str =
    "SELECT email, notify, unsubscribe FROM accounts WHERE id = $1";

/// Sets the mail settings (address, how often, the unsubscribe secret) of account `$4`.
pub(crate) const SET_NOTIFICATIONS: &str =
    "UPDATE accounts SET email = $1, notify = $2, unsubscribe = $3 WHERE id = $4";

/// Turns off the mail of the account whose unsubscribe secret is `$1`.
pub(crate) const UNSUBSCRIBE: &str = "UPDATE accounts SET notify = 'off' WHERE unsubscribe = $1";

/// The accounts that take a daily digest and had none since `$1`: id, username,
/// address, unsubscribe secret.
pub(crate) const DIGESTS_DUE: &str = "SELECT id, username, email, unsubscribe FROM accounts
     WHERE notify = 'digest' AND email IS NOT NULL
       AND (last_digest_at IS NULL OR last_digest_at < $1)";

/// Marks account `$2`'s digest sent at `$1`, if it had none since `$3`: a digest claimed
/// by one node is not sent by another.
pub(crate) const CLAIM_DIGEST: &str = "UPDATE accounts SET last_digest_at = $1
     WHERE id = $2 AND (last_digest_at IS NULL OR last_digest_at < $3)";

/// The unfinished rooms that may need a timer in memory: id, whether a clock (not days
/// per move: sweeping ends those) is set, the computer's colour, turns played.
pub(crate) const WITH_TIMERS: &str =
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
pub(crate) const STALE: &str = "SELECT r.id, r.incarnation, r.created_at,
        r.white_token IS NOT NULL AND r.black_token IS NOT NULL,
        r.computer_color,
        (SELECT COUNT(*) FROM turns t WHERE t.room = r.id),
        lt.played_at, lt.white_ms, lt.black_ms, r.clock_days
     FROM rooms r LEFT JOIN turns lt ON lt.room = r.id
         AND lt.number = (SELECT MAX(t.number) FROM turns t WHERE t.room = r.id)
     WHERE r.outcome IS NULL AND (r.created_at < $1 OR r.clock_days IS NOT NULL)
     ORDER BY r.created_at, r.id";

/// The columns of a room's row as the lobby shows it (`RoomRow`): id, variant,
/// visibility, whether each seat is taken, the computer's colour and level, turns played,
/// the outcome, whether it is rated, both players (see [`PLAYERS_COLUMNS`]), the time
/// control (base and increment in milliseconds, days per move), then of the last turn:
/// when, and both clocks after it. Its caller adds the `WHERE`.
pub(crate) fn room_rows() -> String {
    format!(
        "SELECT r.id, r.variant, r.visibility,
            r.white_token IS NOT NULL, r.black_token IS NOT NULL,
            r.computer_color, r.computer_level,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.outcome, r.rated,
            {PLAYERS_COLUMNS},
            r.clock_base_ms, r.clock_increment_ms, r.clock_days,
            lt.played_at, lt.white_ms, lt.black_ms
        FROM rooms r {PLAYERS_JOIN} {LAST_TURN_JOIN}"
    )
}

/// Joins rooms `r` to their last turn `lt`, if one was played.
const LAST_TURN_JOIN: &str = "LEFT JOIN turns lt ON lt.room = r.id
     AND lt.number = (SELECT MAX(t.number) FROM turns t WHERE t.room = r.id)";

/// The unfinished games in which account `$1` holds a seat, as [`room_rows`], oldest
/// first.
pub(crate) fn games_of() -> String {
    format!(
        "{} WHERE r.outcome IS NULL AND (r.white_account = $1 OR r.black_account = $1)
         ORDER BY r.created_at, r.id",
        room_rows()
    )
}

/// The columns that read both seats' players, in `Player::read`'s order (White's, then
/// Black's), from rooms `r` joined as [`PLAYERS_JOIN`] does.
pub(crate) const PLAYERS_COLUMNS: &str =
    "r.white_name, r.white_account, wa.username, r.black_name, r.black_account, ba.username";

/// Joins rooms `r` to the accounts of its seats, for [`PLAYERS_COLUMNS`].
pub(crate) const PLAYERS_JOIN: &str = "LEFT JOIN accounts wa ON wa.id = r.white_account
     LEFT JOIN accounts ba ON ba.id = r.black_account";

/// A line of room `$1`'s chat: channel, the speaker's colour and name, text, when.
pub(crate) const INSERT_CHAT: &str =
    "INSERT INTO chat (room, channel, color, name, text, at) VALUES ($1, $2, $3, $4, $5, $6)";

/// Room `$1`'s last hundred lines of chat, newest first: channel, colour, name, text,
/// when.
pub(crate) const ROOM_CHAT: &str = "SELECT channel, color, name, text, at FROM chat
     WHERE room = $1 ORDER BY id DESC LIMIT 100";

/// Whether room `$1`'s White and Black muted their opponent.
pub(crate) const ROOM_MUTES: &str = "SELECT white_mutes, black_mutes FROM rooms WHERE id = $1";

/// Records whether `color`'s player mutes the opponent (`$1`) in room `$2`.
pub(crate) fn set_mute(color: punct_rules::Color) -> String {
    format!("UPDATE rooms SET {color}_mutes = $1 WHERE id = $2")
}

/// Room `$1`, if its creator may still cancel it: its game is not over and a seat is
/// free.
pub(crate) const CANCELLABLE: &str = "SELECT 1 FROM rooms
     WHERE id = $1 AND outcome IS NULL AND (white_token IS NULL OR black_token IS NULL)";

/// Forgets room `$1`'s chat (the room is being deleted).
pub(crate) const DELETE_CHAT: &str = "DELETE FROM chat WHERE room = $1";

/// A new account: id, username, its key, password hash, when.
pub(crate) const INSERT_ACCOUNT: &str =
    "INSERT INTO accounts (id, username, username_key, password, created_at)
     VALUES ($1, $2, $3, $4, $5)";

/// The account whose username has key `$1`: id, username, password hash.
pub(crate) const ACCOUNT_BY_KEY: &str =
    "SELECT id, username, password FROM accounts WHERE username_key = $1";

/// Forgets account `$1`'s sessions that ended by `$2`.
pub(crate) const SWEEP_SESSIONS: &str =
    "DELETE FROM sessions WHERE account = $1 AND expires_at <= $2";

/// A new session: its token's hash, account, when, until when.
pub(crate) const INSERT_SESSION: &str =
    "INSERT INTO sessions (token, account, created_at, expires_at) VALUES ($1, $2, $3, $4)";

/// The account (id, username) of session `$1`, if it has not ended by `$2`.
pub(crate) const SESSION_ACCOUNT: &str =
    "SELECT a.id, a.username FROM sessions s JOIN accounts a ON a.id = s.account
     WHERE s.token = $1 AND s.expires_at > $2";

/// Ends session `$1`.
pub(crate) const DELETE_SESSION: &str = "DELETE FROM sessions WHERE token = $1";

/// Room `$1` if it is a finished rated game between two accounts not rated yet: its
/// variant, outcome, end, both accounts, both usernames, and turns played.
pub(crate) const GAME_TO_RATE: &str =
    "SELECT r.variant, r.outcome, r.finished_at, r.white_account, r.black_account,
            wa.username, ba.username,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id)
     FROM rooms r
     JOIN accounts wa ON wa.id = r.white_account
     JOIN accounts ba ON ba.id = r.black_account
     WHERE r.id = $1 AND r.rated AND r.outcome IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM rated_games g WHERE g.room = r.id)";

/// The finished rated games not rated yet, in which both sides played, oldest first.
pub(crate) const UNRATED_GAMES: &str = "SELECT r.id FROM rooms r
     WHERE r.rated AND r.outcome IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM rated_games g WHERE g.room = r.id)
       AND (SELECT COUNT(*) FROM turns t WHERE t.room = r.id) >= 2
     ORDER BY r.finished_at, r.id";

/// Account `$1`'s standing in variant `$2`: rating, deviation, volatility, last rated.
pub(crate) const STANDING: &str = "SELECT rating, deviation, volatility, last_rated_at FROM ratings
     WHERE account = $1 AND variant = $2";

/// Room `$1` was rated at `$2` (its `seq` is the order games were rated in).
pub(crate) const INSERT_RATED_GAME: &str =
    "INSERT INTO rated_games (room, rated_at) VALUES ($1, $2)";

/// Account `$1`'s rating in variant `$2` after one more rated game, ended at `$6`.
pub(crate) const RATE_ONE_MORE: &str =
    "INSERT INTO ratings (account, variant, rating, deviation, volatility, games,
                          last_rated_at)
     VALUES ($1, $2, $3, $4, $5, 1, $6)
     ON CONFLICT (account, variant) DO UPDATE SET
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility, games = ratings.games + 1,
         last_rated_at = excluded.last_rated_at";

/// Account `$1`'s rating in variant `$2`, as a rebuild found it, after `$6` games.
pub(crate) const INSERT_RATING: &str =
    "INSERT INTO ratings (account, variant, rating, deviation, volatility, games,
                          last_rated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// What a game (room, colour) did to a player's rating (account, variant, when, before,
/// after), stored or, when rebuilding, stored again.
pub(crate) const PUT_CHANGE: &str =
    "INSERT INTO rating_changes (room, color, account, variant, rated_at, rating_before,
                                 deviation_before, volatility_before, rating, deviation,
                                 volatility)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (room, color) DO UPDATE SET
         rating_before = excluded.rating_before,
         deviation_before = excluded.deviation_before,
         volatility_before = excluded.volatility_before,
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility";

/// Every rated game in the order it was rated: room, variant, outcome, when, accounts.
pub(crate) const RATED_GAMES: &str =
    "SELECT g.room, r.variant, r.outcome, g.rated_at, r.white_account, r.black_account
     FROM rated_games g JOIN rooms r ON r.id = g.room ORDER BY g.seq";

/// What rated game `$1` did, White's then Black's: username, before, after.
pub(crate) const GAME_RATINGS: &str =
    "SELECT a.username, c.rating_before, c.deviation_before, c.volatility_before,
            c.rating, c.deviation, c.volatility
     FROM rating_changes c JOIN accounts a ON a.id = c.account
     WHERE c.room = $1 ORDER BY c.color = 'black'";

/// The account whose username has key `$1`: id, username, when it was made.
pub(crate) const PLAYER: &str =
    "SELECT id, username, created_at FROM accounts WHERE username_key = $1";

/// Account `$1`'s standing and games in each variant.
pub(crate) const PLAYER_RATINGS: &str =
    "SELECT variant, rating, deviation, volatility, last_rated_at, games FROM ratings
     WHERE account = $1 ORDER BY variant";

/// Account `$1`'s rating after each rated game, in the order they were rated: variant,
/// room, when, the rating.
pub(crate) const PLAYER_HISTORY: &str =
    "SELECT c.variant, c.room, c.rated_at, c.rating, c.deviation, c.volatility
     FROM rating_changes c JOIN rated_games g ON g.room = c.room
     WHERE c.account = $1 ORDER BY g.seq";

/// Account `$1`'s colour and the outcome of every finished game it played.
pub(crate) const PLAYER_RESULTS: &str =
    "SELECT CASE WHEN white_account = $1 THEN 'white' ELSE 'black' END, outcome
     FROM rooms
     WHERE (white_account = $1 OR black_account = $1) AND outcome IS NOT NULL";

/// Up to `$3` players of variant `$1` whose deviation is at most `$2`, best first:
/// username, standing, games.
pub(crate) const LEADERS: &str =
    "SELECT a.username, r.rating, r.deviation, r.volatility, r.last_rated_at, r.games
     FROM ratings r JOIN accounts a ON a.id = r.account
     WHERE r.variant = $1 AND r.deviation <= $2
     ORDER BY r.rating DESC, a.username LIMIT $3";

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameters of `statement` in the order they first appear.
    fn first_uses(statement: &str) -> Vec<u32> {
        let mut seen = Vec::new();
        for (at, _) in statement.match_indices('$') {
            let digits: String = statement[at + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let n: u32 = digits.parse().expect("a $ is followed by a number");
            if !seen.contains(&n) {
                seen.push(n);
            }
        }
        seen
    }

    #[test]
    fn every_statement_first_uses_its_parameters_in_order() {
        let statements = [
            room_rows(),
            set_mute(punct_rules::Color::Black),
            INSERT_CHAT.into(),
            ROOM_CHAT.into(),
            ROOM_MUTES.into(),
            DELETE_CHAT.into(),
            INSERT_ACCOUNT.into(),
            ACCOUNT_BY_KEY.into(),
            SWEEP_SESSIONS.into(),
            INSERT_SESSION.into(),
            SESSION_ACCOUNT.into(),
            DELETE_SESSION.into(),
            GAME_TO_RATE.into(),
            UNRATED_GAMES.into(),
            STANDING.into(),
            INSERT_RATED_GAME.into(),
            RATE_ONE_MORE.into(),
            INSERT_RATING.into(),
            PUT_CHANGE.into(),
            RATED_GAMES.into(),
            GAME_RATINGS.into(),
            PLAYER.into(),
            PLAYER_RATINGS.into(),
            PLAYER_HISTORY.into(),
            PLAYER_RESULTS.into(),
            LEADERS.into(),
        ];
        for statement in statements {
            let uses = first_uses(&statement);
            let in_order: Vec<u32> = (1..=u32::try_from(uses.len()).unwrap()).collect();
            assert_eq!(uses, in_order, "{statement}");
        }
        assert_eq!(first_uses("SET a = $2 WHERE id = $1"), [2, 1]);
    }
}
