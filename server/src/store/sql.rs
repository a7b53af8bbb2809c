//! Every statement the store runs, the same on both databases. They are written in
//! PostgreSQL's SQL; the SQLite driver rewrites what SQLite spells otherwise (`$1` is
//! `?1`; it has no row locks, `FOR SHARE` and `FOR UPDATE`, and needs none: one thread
//! writes). Where PostgreSQL cannot infer a parameter's type, a `CAST` names it, which
//! SQLite reads too.

/// The account of the seat of room `$1` whose token's hash is `$2`: a row whose one
/// column is null for a seat without one; none without such a seat.
pub(crate) const SEAT_ACCOUNT: &str =
    "SELECT CASE WHEN white_token = $2 THEN white_account ELSE black_account END
     FROM rooms WHERE id = $1 AND (white_token = $2 OR black_token = $2)";

/// When account `$1` was banned and when deleted, each null if it was not.
pub(crate) const ACCOUNT_ENDED: &str = "SELECT banned_at, deleted_at FROM accounts WHERE id = $1";

/// Sets account `$1`'s language to `$2`.
pub(crate) const SET_LANGUAGE: &str = "UPDATE accounts SET language = $2 WHERE id = $1";

/// The language of the account whose username has key `$1`, unless deleted: a row
/// whose one column is null when none was chosen; none without the account.
pub(crate) const LANGUAGE_BY_KEY: &str =
    "SELECT language FROM accounts WHERE username_key = $1 AND deleted_at IS NULL";

/// Account `$1`'s mail settings: address, how often, the unsubscribe secret.
pub(crate) const NOTIFICATIONS: &str =
    "SELECT email, notify, unsubscribe FROM accounts WHERE id = $1";

/// Sets the mail settings (address, how often) of account `$3`, and gives it an
/// unsubscribe secret (`$4`) if it has none: the secret, once set, is kept, so that the
/// link in every mail already sent keeps working. A confirmed address stays confirmed
/// only if it is the same.
pub(crate) const SET_NOTIFICATIONS: &str =
    "UPDATE accounts SET email = $1, notify = $2, unsubscribe = COALESCE(unsubscribe, $4),
            email_confirmed = email_confirmed AND COALESCE(email = CAST($1 AS TEXT), FALSE)
     WHERE id = $3";

/// The account whose unsubscribe secret is `$1`, if one has it.
pub(crate) const UNSUBSCRIBE_KNOWN: &str = "SELECT 1 FROM accounts WHERE unsubscribe = $1";

/// Turns off the mail of the account whose unsubscribe secret is `$1`.
pub(crate) const UNSUBSCRIBE: &str = "UPDATE accounts SET notify = 'off' WHERE unsubscribe = $1";

/// Queues mail `$1` (notice `$2`, at `$3`) to the player of `color` in room `$4`, if it
/// is a correspondence game and the player's account takes this mail: every mail if
/// `each_only`, else any mail at all.
pub(crate) fn queue_mail(color: punct_rules::Color, each_only: bool) -> String {
    let modes = if each_only {
        "a.notify = 'each'"
    } else {
        "a.notify <> 'off'"
    };
    format!(
        "INSERT INTO mail_outbox (id, account, room, notice, queued_at, due_at)
         SELECT $1, a.id, r.id, $2, $3, $3
         FROM rooms r JOIN accounts a ON a.id = r.{color}_account
         WHERE r.id = $4 AND r.clock_days IS NOT NULL AND a.email IS NOT NULL AND {modes}"
    )
}

/// Queues mail `$1` as [`queue_mail`] does (to any player who takes mail), unless the
/// outbox holds the same notice about the room already, sent or not.
pub(crate) fn queue_mail_once(color: punct_rules::Color) -> String {
    format!(
        "{} AND NOT EXISTS (SELECT 1 FROM mail_outbox o WHERE o.room = r.id AND o.notice = $2)",
        queue_mail(color, false)
    )
}

/// Claims for `$1` until `$2` up to `$4` mails due at `$3` that no one holds, oldest
/// first. `SKIP LOCKED`: nodes claiming together take different mails, none waits.
pub(crate) const CLAIM_MAIL: &str = "UPDATE mail_outbox SET claimed_by = $1, claimed_until = $2
     WHERE id IN (SELECT id FROM mail_outbox
                  WHERE done_at IS NULL AND due_at <= $3
                    AND (claimed_until IS NULL OR claimed_until < $3)
                  ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)";

/// The mails claim `$1` holds, oldest first: id, room, notice, tries, then the account's
/// username, address, mail mode, unsubscribe secret and language now.
pub(crate) const CLAIMED_MAIL: &str =
    "SELECT o.id, o.room, o.notice, o.attempts, a.id, a.username, a.email, a.notify,
            a.unsubscribe, a.language
     FROM mail_outbox o JOIN accounts a ON a.id = o.account
     WHERE o.claimed_by = $1 AND o.done_at IS NULL ORDER BY o.id";

/// Mail `$1` is done (sent, or not to be sent) at `$2`, for why `$3` if it was not sent.
pub(crate) const MAIL_DONE: &str =
    "UPDATE mail_outbox SET done_at = $2, error = $3, claimed_by = NULL, claimed_until = NULL
     WHERE id = $1";

/// Forgets the mails done (sent or given up) before `$1` that no later mail needs to
/// know of: those of finished games (nothing more is queued about them, nor checked
/// against them) and those about no game (links). An unfinished game keeps its own: a
/// reminder is queued once a move by checking what was queued before.
pub(crate) const PRUNE_MAIL: &str = "DELETE FROM mail_outbox
     WHERE done_at IS NOT NULL AND done_at < $1
       AND (room = '' OR room IN (SELECT id FROM rooms WHERE outcome IS NOT NULL))";

/// Mail `$1` failed (`$2` why): tried again at `$3`, by whoever claims it then.
pub(crate) const MAIL_FAILED: &str =
    "UPDATE mail_outbox SET attempts = attempts + 1, error = $2, due_at = $3,
            claimed_by = NULL, claimed_until = NULL
     WHERE id = $1";

/// The mails not done yet: how many, and when the oldest was queued.
pub(crate) const MAIL_BACKLOG: &str =
    "SELECT COUNT(*), MIN(queued_at) FROM mail_outbox WHERE done_at IS NULL";

/// Gives back the claims on mail not done yet whose names match `$1` (a dead node's).
pub(crate) const RELEASE_MAIL_OF: &str =
    "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL
     WHERE claimed_by LIKE $1 AND done_at IS NULL";

/// Gives back every claim on mail not done yet.
pub(crate) const RELEASE_ALL_MAIL: &str =
    "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL
     WHERE claimed_by IS NOT NULL AND done_at IS NULL";

/// Gives back the mails of claim `$1` not done yet, for any node to send, from `$2`.
pub(crate) const RELEASE_MAIL: &str =
    "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL, due_at = $2
     WHERE claimed_by = $1 AND done_at IS NULL";

/// The accounts that take a daily digest and had none since `$1`: id, username.
pub(crate) const DIGESTS_DUE: &str = "SELECT id, username
     FROM accounts
     WHERE notify = 'digest' AND email IS NOT NULL
       AND (last_digest_at IS NULL OR last_digest_at < $1)";

/// Marks account `$2`'s digest queued at `$1`, if it had none since `$3`: a digest
/// queued by one node is not queued by another.
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
/// when, and both clocks after it; the tournament whose game it is; each seat's account's
/// rating in the room's variant, if it has one. Its caller adds the `WHERE`.
pub(crate) fn room_rows() -> String {
    format!(
        "SELECT r.id, r.variant, r.visibility,
            r.white_token IS NOT NULL, r.black_token IS NOT NULL,
            r.computer_color, r.computer_level,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.outcome, r.rated,
            {PLAYERS_COLUMNS},
            r.clock_base_ms, r.clock_increment_ms, r.clock_days,
            lt.played_at, lt.white_ms, lt.black_ms,
            (SELECT tp.tournament FROM tournament_pairings tp WHERE tp.room = r.id),
            (SELECT g.rating FROM ratings g WHERE g.account = r.white_account AND g.variant = r.variant),
            (SELECT g.rating FROM ratings g WHERE g.account = r.black_account AND g.variant = r.variant)
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

/// A line of room `$1`'s chat: channel, the speaker's colour and name, text, when, the
/// speaker's account. Answers the line's id.
pub(crate) const INSERT_CHAT: &str =
    "INSERT INTO chat (room, channel, color, name, text, at, account)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

/// Room `$1`'s last hundred lines of chat, newest first: channel, colour, name, text
/// (empty once removed), when, id, removed, the speaker's account.
pub(crate) const ROOM_CHAT: &str =
    "SELECT channel, color, name, CASE WHEN removed THEN '' ELSE text END, at, id, removed,
            account
     FROM chat WHERE room = $1 ORDER BY id DESC LIMIT 100";

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

/// A new account: id, username, its key, its look-alike key, password hash, when, its
/// language.
pub(crate) const INSERT_ACCOUNT: &str =
    "INSERT INTO accounts (id, username, username_key, username_lookalike, password, created_at,
                           language)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// The account whose username has key `$1`, unless deleted: id, username, password hash.
pub(crate) const ACCOUNT_BY_KEY: &str =
    "SELECT id, username, password FROM accounts WHERE username_key = $1 AND deleted_at IS NULL";

/// A row if an account's username has look-alike key `$1`.
pub(crate) const LOOKALIKE_TAKEN: &str = "SELECT 1 FROM accounts WHERE username_lookalike = $1";

/// Forgets account `$1`'s sessions that ended by `$2`.
pub(crate) const SWEEP_SESSIONS: &str =
    "DELETE FROM sessions WHERE account = $1 AND expires_at <= $2";

/// A new session: its token's hash, account, when (also last seen), until when, the
/// `User-Agent` it was started with.
pub(crate) const INSERT_SESSION: &str =
    "INSERT INTO sessions (token, account, created_at, last_seen_at, expires_at, user_agent)
     VALUES ($1, $2, $3, $3, $4, $5)";

/// The account (id, username) of session `$1`, if it has not ended by `$2`, and when the
/// session was last seen (if ever recorded).
pub(crate) const SESSION_ACCOUNT: &str =
    "SELECT a.id, a.username, s.last_seen_at FROM sessions s JOIN accounts a ON a.id = s.account
     WHERE s.token = $1 AND s.expires_at > $2";

/// Session `$1` was seen at `$2`.
pub(crate) const SEEN_SESSION: &str = "UPDATE sessions SET last_seen_at = $2 WHERE token = $1";

/// Account `$1`'s sessions that have not ended by `$2`, oldest first: token hash,
/// `User-Agent`, when started, last seen, until when.
pub(crate) const SESSIONS_OF: &str =
    "SELECT token, user_agent, created_at, COALESCE(last_seen_at, created_at), expires_at
     FROM sessions WHERE account = $1 AND expires_at > $2 ORDER BY created_at, token";

/// Ends every session of account `$1`.
pub(crate) const END_SESSIONS: &str = "DELETE FROM sessions WHERE account = $1";

/// The number the next deleted account takes: one more than the last's.
pub(crate) const NEXT_DELETED_NUMBER: &str =
    "SELECT COALESCE(MAX(deleted_number), 0) + 1 FROM accounts";

/// Deletes what account `$1` holds, at `$2`, as "deleted player `$3`" (`$4`, that name):
/// its password, mail address and settings go; its id stays, so that games, results and
/// ratings keep their player, and its username's keys stay, so that nobody can take the
/// name. Changes nothing if it was deleted already.
pub(crate) const DELETE_ACCOUNT: &str =
    "UPDATE accounts SET username = $4, password = '', email = NULL, notify = 'off',
            email_confirmed = FALSE, unsubscribe = NULL, last_digest_at = NULL, language = NULL,
            deleted_number = $3, deleted_at = $2
     WHERE id = $1 AND deleted_at IS NULL";

/// The name account `$1`'s seats show is `$2` now.
pub(crate) fn rename_seats(color: punct_rules::Color) -> String {
    format!("UPDATE rooms SET {color}_name = $2 WHERE {color}_account = $1")
}

/// Every room in which account `$1` took a seat, oldest first.
pub(crate) const ROOMS_OF: &str =
    "SELECT id FROM rooms WHERE white_account = $1 OR black_account = $1
     ORDER BY created_at, id";

/// Account `$1`'s lines of chat, oldest first: room, channel, colour, name, text, when,
/// id, removed.
pub(crate) const CHAT_OF: &str =
    "SELECT room, channel, color, name, text, at, id, removed FROM chat
     WHERE account = $1 ORDER BY id";

/// Forgets account `$1`'s lines of chat.
pub(crate) const DELETE_CHAT_OF: &str = "DELETE FROM chat WHERE account = $1";

/// A link carried by mail `$1` to account `$2` for `$3` (`confirm`, `reset`) at `$4`,
/// good until `$5`; its secret is made as the mail is written.
pub(crate) const INSERT_LINK: &str =
    "INSERT INTO mail_links (id, account, purpose, email, expires_at)
     VALUES ($1, $2, $3, $4, $5)";

/// The link of mail `$1`, still good at `$3`, has the secret that hashes to `$2` (that of
/// the mail being written: a mail sent again carries a new one, the old no longer works).
pub(crate) const ARM_LINK: &str =
    "UPDATE mail_links SET token = $2 WHERE id = $1 AND expires_at > $3";

/// Queues mail `$1` (notice `$3`, at `$4`) to account `$2`, about no room.
pub(crate) const QUEUE_ACCOUNT_MAIL: &str =
    "INSERT INTO mail_outbox (id, account, room, notice, queued_at, due_at)
     VALUES ($1, $2, '', $3, $4, $4)";

/// Uses the link whose secret hashes to `$1`, if it is for `$2` and good at `$3`: it is
/// deleted (it works once); answers its account and address.
pub(crate) const USE_LINK: &str = "DELETE FROM mail_links
     WHERE token = $1 AND purpose = $2 AND expires_at > $3 RETURNING account, email";

/// Forgets account `$1`'s links for `$2`.
pub(crate) const DELETE_LINKS: &str = "DELETE FROM mail_links WHERE account = $1 AND purpose = $2";

/// Whether account `$1`'s address is confirmed.
pub(crate) const EMAIL_CONFIRMED: &str = "SELECT email_confirmed FROM accounts WHERE id = $1";

/// Account `$1`'s address is `$2`, confirmed, unless the account was deleted.
pub(crate) const CONFIRM_EMAIL: &str =
    "UPDATE accounts SET email = $2, email_confirmed = TRUE WHERE id = $1 AND deleted_at IS NULL";

/// The accounts (id, username, the address as confirmed) whose confirmed address is
/// `$1`, in any case.
pub(crate) const CONFIRMED: &str = "SELECT id, username, email FROM accounts
     WHERE lower(email) = lower($1) AND email_confirmed AND deleted_at IS NULL";

/// Forgets every block account `$1` made or is under.
pub(crate) const DELETE_BLOCKS_OF: &str = "DELETE FROM blocks WHERE blocker = $1 OR blocked = $1";

/// Forgets account `$1`'s mail links.
pub(crate) const DELETE_LINKS_OF: &str = "DELETE FROM mail_links WHERE account = $1";

/// Forgets account `$1`'s mail, sent or not.
pub(crate) const DELETE_MAIL_OF: &str = "DELETE FROM mail_outbox WHERE account = $1";

/// Ends session `$1`.
pub(crate) const DELETE_SESSION: &str = "DELETE FROM sessions WHERE token = $1";

/// Account `$1`'s password hash.
pub(crate) const PASSWORD_OF: &str = "SELECT password FROM accounts WHERE id = $1";

/// Account `$1`'s password hash is `$2` now.
pub(crate) const SET_PASSWORD: &str = "UPDATE accounts SET password = $2 WHERE id = $1";

/// Ends account `$1`'s sessions but `$2`.
pub(crate) const END_OTHER_SESSIONS: &str =
    "DELETE FROM sessions WHERE account = $1 AND token <> $2";

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

/// Account `$1`'s rating in variant `$2` (rating, deviation, volatility: `$3` to `$5`)
/// after `$6` more rated games, the last of which ended at `$7`: one more after a game, or
/// all of them when rebuilding (the ratings were deleted first).
pub(crate) const PUT_RATING: &str =
    "INSERT INTO ratings (account, variant, rating, deviation, volatility, games,
                          last_rated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account, variant) DO UPDATE SET
         rating = excluded.rating, deviation = excluded.deviation,
         volatility = excluded.volatility, games = ratings.games + excluded.games,
         last_rated_at = excluded.last_rated_at";

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

/// The account whose username has key `$1`, unless deleted: id, username, when it was
/// made.
pub(crate) const PLAYER: &str =
    "SELECT id, username, created_at FROM accounts WHERE username_key = $1 AND deleted_at IS NULL";

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
/// username, standing, games. A deleted account's rating stays (its opponents' were
/// computed from it) but is not on the board.
pub(crate) const LEADERS: &str =
    "SELECT a.username, r.rating, r.deviation, r.volatility, r.last_rated_at, r.games
     FROM ratings r JOIN accounts a ON a.id = r.account
     WHERE r.variant = $1 AND r.deviation <= $2 AND a.deleted_at IS NULL
     ORDER BY r.rating DESC, a.username LIMIT $3";

/// A new room: id, variant, visibility, when, both token hashes, the clock (base and
/// increment), the computer (colour, level), both players (name, account), whether it is
/// rated, days per move.
pub(crate) const INSERT_ROOM: &str =
    "INSERT INTO rooms (id, variant, visibility, created_at, white_token, black_token,
                        clock_base_ms, clock_increment_ms, computer_color, computer_level,
                        white_name, white_account, black_name, black_account, rated,
                        clock_days)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

/// Gives room `$1`'s seat of `color` to token hash `$2`, name `$3` and account `$4`, if
/// it is free.
pub(crate) fn take_seat(color: punct_rules::Color) -> String {
    format!(
        "UPDATE rooms SET {color}_token = $2, {color}_name = $3, {color}_account = $4
         WHERE id = $1 AND {color}_token IS NULL"
    )
}

/// Room `$1` at incarnation `$2`, its row held in share mode until the transaction ends:
/// a load, which raises the incarnation, waits for the writes of the one before.
pub(crate) const FENCE: &str = "SELECT 1 FROM rooms WHERE id = $1 AND incarnation = $2 FOR SHARE";

/// Turn `$2` of room `$1`: the turn, when, White's and Black's time left after it.
pub(crate) const INSERT_TURN: &str =
    "INSERT INTO turns (room, number, turn, played_at, white_ms, black_ms)
     VALUES ($1, $2, $3, $4, $5, $6)";

/// Room `$1` ended with outcome `$2` at `$3`.
pub(crate) const FINISH: &str = "UPDATE rooms SET outcome = $2, finished_at = $3 WHERE id = $1";

/// Takes back room `$1`'s turns after the first `$2`.
pub(crate) const DELETE_TURNS_AFTER: &str = "DELETE FROM turns WHERE room = $1 AND number > $2";

/// Turn `$2` of room `$1` is the last again: White's and Black's time left (`$3`, `$4`)
/// and when (`$5`) are now's, so that the clocks run on from them.
pub(crate) const RESET_CLOCKS: &str =
    "UPDATE turns SET white_ms = $3, black_ms = $4, played_at = $5
     WHERE room = $1 AND number = $2";

/// Forgets room `$1`'s turns (the room is being deleted).
pub(crate) const DELETE_TURNS: &str = "DELETE FROM turns WHERE room = $1";

/// Forgets room `$1` (its turns and chat first).
pub(crate) const DELETE_ROOM: &str = "DELETE FROM rooms WHERE id = $1";

/// Stale room `$1`, if it is as it was found: still at incarnation `$2`, not over, and
/// (unless it is to be finished, `$3`) with a seat free. Its row is held until the end
/// of the transaction.
pub(crate) const UNCHANGED: &str = "SELECT 1 FROM rooms
     WHERE id = $1 AND incarnation = $2 AND outcome IS NULL
       AND ($3 OR white_token IS NULL OR black_token IS NULL)
     FOR UPDATE";

/// Counts one more incarnation of room `$1`; answers it.
pub(crate) const LOAD: &str =
    "UPDATE rooms SET incarnation = incarnation + 1 WHERE id = $1 RETURNING incarnation";

/// Room `$1` as a load or a record reads it: variant, visibility, both token hashes, the
/// outcome, the clock (base and increment), the computer (colour, level), days per move,
/// whether it is rated, whether White and Black mute their opponent, then both players
/// (see [`PLAYERS_COLUMNS`]).
pub(crate) fn room() -> String {
    format!(
        "SELECT r.variant, r.visibility, r.white_token, r.black_token, r.outcome,
                r.clock_base_ms, r.clock_increment_ms, r.computer_color, r.computer_level,
                r.clock_days, r.rated, r.white_mutes, r.black_mutes, {PLAYERS_COLUMNS}
         FROM rooms r {PLAYERS_JOIN} WHERE r.id = $1"
    )
}

/// Room `$1`'s turns in order: the turn, White's and Black's time left after it, when.
pub(crate) const TURNS: &str =
    "SELECT turn, white_ms, black_ms, played_at FROM turns WHERE room = $1 ORDER BY number";

/// Up to `$4` finished games of visibility `$1`, the one that ended last first, after
/// the game that ended at `$2` in room `$3` (if given), and only those account `$5`
/// played (if given): room, variant, outcome, when it ended, turns played, whether
/// rated, both players, the tournament whose game it was.
pub(crate) fn archive() -> String {
    format!(
        "SELECT r.id, r.variant, r.outcome, r.finished_at,
                (SELECT COUNT(*) FROM turns t WHERE t.room = r.id), r.rated,
                {PLAYERS_COLUMNS},
                (SELECT tp.tournament FROM tournament_pairings tp WHERE tp.room = r.id)
         FROM rooms r {PLAYERS_JOIN}
         WHERE r.outcome IS NOT NULL AND r.visibility = $1
           AND (CAST($2 AS BIGINT) IS NULL
                OR (r.finished_at, r.id) < (CAST($2 AS BIGINT), CAST($3 AS TEXT)))
           AND (CAST($5 AS TEXT) IS NULL OR r.white_account = $5 OR r.black_account = $5)
         ORDER BY r.finished_at DESC, r.id DESC
         LIMIT $4"
    )
}

/// Forgets every rating (a rebuild writes them again).
pub(crate) const DELETE_RATINGS: &str = "DELETE FROM ratings";

/// Answers once the database runs a query.
pub(crate) const PING: &str = "SELECT 1";

/// Account `$1` solved puzzle `$2` at `$3`; nothing changes if it had already.
pub(crate) const INSERT_SOLVED: &str = "INSERT INTO puzzles_solved (account, puzzle, solved_at)
     VALUES ($1, $2, $3) ON CONFLICT (account, puzzle) DO NOTHING";

/// The puzzles account `$1` has solved, by id.
pub(crate) const SOLVED_OF: &str =
    "SELECT puzzle FROM puzzles_solved WHERE account = $1 ORDER BY puzzle";

/// Forgets the puzzles account `$1` solved.
pub(crate) const DELETE_SOLVED_OF: &str = "DELETE FROM puzzles_solved WHERE account = $1";

/// Account `$1` blocks account `$2` from `$3`; nothing changes if it did already.
pub(crate) const INSERT_BLOCK: &str = "INSERT INTO blocks (blocker, blocked, created_at)
     VALUES ($1, $2, $3) ON CONFLICT (blocker, blocked) DO NOTHING";

/// Account `$1` no longer blocks account `$2`.
pub(crate) const DELETE_BLOCK: &str = "DELETE FROM blocks WHERE blocker = $1 AND blocked = $2";

/// The accounts account `$1` blocks, oldest block first: id, username, since when.
pub(crate) const BLOCKS_OF: &str = "SELECT a.id, a.username, b.created_at
     FROM blocks b JOIN accounts a ON a.id = b.blocked
     WHERE b.blocker = $1 ORDER BY b.created_at, a.username";

/// The accounts that block account `$1`.
pub(crate) const BLOCKERS_OF: &str = "SELECT blocker FROM blocks WHERE blocked = $1";

/// The key named `$1`.
pub(crate) const SERVER_KEY: &str = "SELECT key FROM server_keys WHERE name = $1";

/// Keeps key `$2` as `$1`, unless a key of that name exists (another node made it).
pub(crate) const INSERT_SERVER_KEY: &str =
    "INSERT INTO server_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";

/// Account `$1` signed in from address hash `$2` at `$3`.
pub(crate) const SIGNED_IN_FROM: &str =
    "INSERT INTO sign_ins (account, address, first_at, last_at) VALUES ($1, $2, $3, $3)
     ON CONFLICT (account, address) DO UPDATE SET last_at = excluded.last_at";

/// Account `$1`'s sign-in addresses (hashed), most recent first: hash, first, last.
pub(crate) const SIGN_INS_OF: &str =
    "SELECT address, first_at, last_at FROM sign_ins WHERE account = $1 ORDER BY last_at DESC";

/// Forgets account `$1`'s sign-in addresses.
pub(crate) const DELETE_SIGN_INS_OF: &str = "DELETE FROM sign_ins WHERE account = $1";

/// Account `$1`'s role and sanctions: role, banned at, muted until, barred from rated.
pub(crate) const STANDING_OF: &str =
    "SELECT role, banned_at, muted_until, barred_from_rated FROM accounts WHERE id = $1";

/// Gives account `$1` role `$2` (NULL: none).
pub(crate) const SET_ROLE: &str = "UPDATE accounts SET role = $2 WHERE id = $1";

/// Bans account `$1` at `$2` (NULL: lifts the ban).
pub(crate) const SET_BANNED: &str = "UPDATE accounts SET banned_at = $2 WHERE id = $1";

/// Mutes account `$1` until `$2` (NULL: lifts the mute).
pub(crate) const SET_MUTED: &str = "UPDATE accounts SET muted_until = $2 WHERE id = $1";

/// Bars account `$1` from rated games, or lifts the bar (`$2`).
pub(crate) const SET_BARRED: &str = "UPDATE accounts SET barred_from_rated = $2 WHERE id = $1";

/// A report: id, reporter, reported, line, reason, when.
pub(crate) const INSERT_REPORT: &str =
    "INSERT INTO reports (id, reporter, reported, chat_line, reason, created_at, room)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Reports made by account `$1` still open.
pub(crate) const OPEN_REPORTS_BY: &str =
    "SELECT COUNT(*) FROM reports WHERE reporter = $1 AND resolved_at IS NULL";

/// The columns of a report as moderators read it, and the joins they need: id,
/// reporter's and reported's usernames, line, its room (kept with the report), its text
/// (for a line only: empty once removed or gone with its speaker), reason, when,
/// resolved when, resolved by whom.
const REPORT_COLUMNS: &str = "SELECT p.id, ra.username, da.username, p.chat_line, p.room,
            CASE WHEN p.chat_line IS NULL THEN NULL WHEN c.removed THEN ''
                 ELSE COALESCE(c.text, '') END, p.reason,
            p.created_at, p.resolved_at, ma.username
     FROM reports p
     JOIN accounts ra ON ra.id = p.reporter
     LEFT JOIN accounts da ON da.id = p.reported
     LEFT JOIN accounts ma ON ma.id = p.resolved_by
     LEFT JOIN chat c ON c.id = p.chat_line";

/// The open reports, oldest first, at most `$1`.
pub(crate) fn open_reports() -> String {
    format!("{REPORT_COLUMNS} WHERE p.resolved_at IS NULL ORDER BY p.created_at, p.id LIMIT $1")
}

/// The reports made by or about account `$1`, newest first.
pub(crate) fn reports_about() -> String {
    format!(
        "{REPORT_COLUMNS} WHERE p.reporter = $1 OR p.reported = $1
         ORDER BY p.created_at DESC, p.id LIMIT 200"
    )
}

/// Report `$1`.
pub(crate) fn report() -> String {
    format!("{REPORT_COLUMNS} WHERE p.id = $1")
}

/// Resolves report `$1` at `$2` by moderator `$3` (NULL: the console), if still open.
pub(crate) const RESOLVE_REPORT: &str =
    "UPDATE reports SET resolved_at = $2, resolved_by = $3 WHERE id = $1 AND resolved_at IS NULL";

/// An entry of the audit log: when, who, what, whom, room, line, report, why, until, role.
pub(crate) const INSERT_AUDIT: &str = "INSERT INTO audit_log
     (at, moderator, action, account, room, chat_line, report, reason, until, role)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// The columns of an audit entry as read: id, when, moderator's username, action, the
/// account's username, room, line, report, reason, until, role.
const AUDIT_COLUMNS: &str = "SELECT l.id, l.at, ma.username, l.action, aa.username, l.room,
            l.chat_line, l.report, l.reason, l.until, l.role
     FROM audit_log l
     LEFT JOIN accounts ma ON ma.id = l.moderator
     LEFT JOIN accounts aa ON aa.id = l.account";

/// The audit log, newest first, before entry `$1`, at most `$2` entries.
pub(crate) fn audit_log() -> String {
    format!("{AUDIT_COLUMNS} WHERE l.id < $1 ORDER BY l.id DESC LIMIT $2")
}

/// The entries of the audit log about account `$1`, newest first.
pub(crate) fn audit_of() -> String {
    format!("{AUDIT_COLUMNS} WHERE l.account = $1 ORDER BY l.id DESC LIMIT 200")
}

/// Line `$1` of chat: its room, its speaker's account, whether removed.
pub(crate) const CHAT_LINE: &str = "SELECT room, account, removed FROM chat WHERE id = $1";

/// Removes line `$1` of chat.
pub(crate) const REMOVE_CHAT_LINE: &str = "UPDATE chat SET removed = TRUE WHERE id = $1";

/// The unfinished rooms in which account `$1` holds a seat.
pub(crate) const RUNNING_ROOMS_OF: &str = "SELECT id FROM rooms
     WHERE outcome IS NULL AND (white_account = $1 OR black_account = $1)";

/// A closed room's game is not rated: room `$1`.
pub(crate) const UNRATE_ROOM: &str = "UPDATE rooms SET rated = FALSE WHERE id = $1";

/// A new tournament: id, name, format, variant, the clock (base, increment, days),
/// rated, starts, ends, rounds, fewest and most players, creator, when, state.
pub(crate) const INSERT_TOURNAMENT: &str = "INSERT INTO tournaments
        (id, name, format, variant, clock_base_ms, clock_increment_ms, clock_days, rated,
         starts_at, ends_at, rounds, min_players, max_players, creator, created_at, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

/// The columns of a tournament `t` as [`TOURNAMENT_FROM`] reads it: id, name, format,
/// variant, clock (base, increment, days), rated, starts, ends, rounds, fewest and most
/// players, the creator's username, state, the players entered and not withdrawn, the
/// rounds paired.
pub(crate) const TOURNAMENT_COLUMNS: &str = "t.id, t.name, t.format, t.variant,
        t.clock_base_ms, t.clock_increment_ms, t.clock_days, t.rated, t.starts_at, t.ends_at,
        t.rounds, t.min_players, t.max_players, c.username, t.state,
        (SELECT COUNT(*) FROM tournament_entries e
         WHERE e.tournament = t.id AND e.withdrawn_at IS NULL),
        (SELECT COALESCE(MAX(p.round), 0) FROM tournament_pairings p
         WHERE p.tournament = t.id)";

/// Tournaments `t` with their creators `c`, for [`TOURNAMENT_COLUMNS`].
pub(crate) const TOURNAMENT_FROM: &str = "FROM tournaments t JOIN accounts c ON c.id = t.creator";

/// Tournament `$1`.
pub(crate) fn tournament() -> String {
    format!("SELECT {TOURNAMENT_COLUMNS} {TOURNAMENT_FROM} WHERE t.id = $1")
}

/// The tournaments in state `$1`, at most `$2`: those not finished the soonest to start
/// first, the others the latest finished first.
pub(crate) fn tournaments_in() -> String {
    format!(
        "SELECT {TOURNAMENT_COLUMNS} {TOURNAMENT_FROM} WHERE t.state = $1
         ORDER BY CASE WHEN t.finished_at IS NULL THEN t.starts_at ELSE -t.finished_at END,
                  t.id
         LIMIT $2"
    )
}

/// The tournaments not finished whose start is at `$1` or before, or that are running.
pub(crate) const TOURNAMENTS_DUE: &str = "SELECT id FROM tournaments
     WHERE finished_at IS NULL AND (starts_at <= $1 OR state = 'running')
     ORDER BY starts_at, id";

/// Tournament `$1` moves to state `$2`; finished at `$3` (if given).
pub(crate) const SET_TOURNAMENT_STATE: &str =
    "UPDATE tournaments SET state = $2, finished_at = $3 WHERE id = $1";

/// Account `$2` enters tournament `$1` at `$3` (or again, after withdrawing).
pub(crate) const ENTER: &str = "INSERT INTO tournament_entries (tournament, account, joined_at)
     VALUES ($1, $2, $3)
     ON CONFLICT (tournament, account) DO UPDATE SET withdrawn_at = NULL, joined_at = $3";

/// Account `$2` leaves tournament `$1` before its start: its entry goes.
pub(crate) const LEAVE: &str =
    "DELETE FROM tournament_entries WHERE tournament = $1 AND account = $2";

/// Account `$2` withdraws from tournament `$1` at `$3`.
pub(crate) const WITHDRAW: &str = "UPDATE tournament_entries SET withdrawn_at = $3
     WHERE tournament = $1 AND account = $2 AND withdrawn_at IS NULL";

/// Tournament `$1`'s entries in the order they joined: account, username, joined,
/// withdrawn.
pub(crate) const ENTRIES: &str = "SELECT e.account, a.username, e.joined_at, e.withdrawn_at
     FROM tournament_entries e JOIN accounts a ON a.id = e.account
     WHERE e.tournament = $1 ORDER BY e.joined_at, e.account";

/// A pairing of tournament `$1`, round `$2`, board `$3`: room, white, black, when.
pub(crate) const INSERT_PAIRING: &str = "INSERT INTO tournament_pairings
        (tournament, round, board, room, white, black, paired_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Tournament `$1`'s pairings, round by round and board by board: round, board, room,
/// white (account, username), black (account, username), the room's outcome and when it
/// ended.
pub(crate) const PAIRINGS: &str = "SELECT p.round, p.board, p.room, p.white, wa.username,
            p.black, ba.username, r.outcome, r.finished_at
     FROM tournament_pairings p
     JOIN accounts wa ON wa.id = p.white
     LEFT JOIN accounts ba ON ba.id = p.black
     LEFT JOIN rooms r ON r.id = p.room
     WHERE p.tournament = $1 ORDER BY p.round, p.board";

/// The tournament whose game is played in room `$1`.
pub(crate) const TOURNAMENT_OF_ROOM: &str =
    "SELECT tournament FROM tournament_pairings WHERE room = $1";
