//! Messages from the server to a client, and the snapshot of a room.

use std::collections::BTreeMap;

use punct_rules::{Cell, Color, Game, Kind, Outcome, Position, Turn, Variant};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{IntoStaticStr, VariantArray};

use crate::{RatingChanges, RequestId, Seq, TournamentRound, TournamentView};

/// A message from the server: a reply to a request (it has the request's `id`), a room
/// event (it has the room's `seq`), or a private notice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(
    clippy::large_enum_variant,
    reason = "a message lives from its making to its sending; boxing the snapshot would \
              only add an allocation"
)]
pub enum ServerMessage {
    /// Reply to `hello`: the versions match and the connection may join a room.
    Welcome {
        /// The `hello`'s id.
        id: RequestId,
        /// The server's protocol version.
        version: u32,
    },
    /// The whole room: the reply to `join` and `watch`, and sent unasked (without an `id`)
    /// when a connection has fallen behind the room's events and must start afresh.
    Snapshot {
        /// The request's id; absent when unasked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// Who the receiver is in this room.
        you: Role,
        /// The room as it stands after event `room.seq`.
        room: RoomSnapshot,
    },
    /// The reply to a `join` or `watch` that gave `since`: the events after `since`
    /// follow, in order, then the live ones. (A client whose `since` is too old gets a
    /// `snapshot` instead.)
    Resumed {
        /// The request's id.
        id: RequestId,
        /// Who the receiver is in this room.
        you: Role,
        /// The `since` of the request: the events replayed start after it.
        since: Seq,
        /// Both seats as they are now: presence is not replayed.
        players: Seats,
        /// How many spectators watch now.
        spectators: usize,
        /// The recent chat this member hears (as in a snapshot), whatever it missed.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        chat: Vec<ChatLine>,
    },
    /// A request was accepted: for a `play`, the `turn_played` event with this `seq`
    /// follows; for `resign` and the draw requests, the event they caused.
    Ack {
        /// The `play`'s id.
        id: RequestId,
        /// Sequence number of the event recording the turn.
        seq: Seq,
    },
    /// A request, or a frame that was not one, was refused. Nothing changed.
    Error {
        /// The id of the refused request, when it could be read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// What went wrong, for programs.
        code: ErrorCode,
        /// For `illegal-turn`: the rules engine's reason, such as `drop-in-centre`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
        /// With `rule`: the values its reason names, by name (`cell`, `from`, `to`: cells
        /// such as `I9`; `kind`: a kind of piece such as `straight-end`; `expected`,
        /// `found`: heights), so that a client can tell the reason in its reader's
        /// language. Empty for a reason that names none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        args: Option<BTreeMap<String, String>>,
        /// What went wrong, for people.
        message: String,
    },
    /// Room event: a turn was played.
    TurnPlayed {
        /// The room's sequence number of this event.
        seq: Seq,
        /// The turn, in canonical notation.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::TurnDef"))]
        turn: Turn,
        /// Who played it.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
        /// How many turns have been played, this one included.
        number: usize,
        /// Whose turn it is now (meaningless once the game is over).
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        to_move: Color,
        /// The clocks just after the turn, in a game with a time control.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockView>,
    },
    /// Room event: the game ended. Follows the `turn_played` event that ended it.
    GameOver {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who won and why, or why it is a draw.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::OutcomeDef"))]
        outcome: Outcome,
    },
    /// Room event: a rated game's ratings were changed. Follows its `game_over`.
    Ratings {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Both players' ratings before and after.
        #[serde(flatten)]
        changes: RatingChanges,
    },
    /// Room event: a player offered a draw; it stands until the opponent accepts or
    /// declines it, or the offerer plays a turn.
    DrawOffered {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who offered.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
    },
    /// Room event: the draw offer was declined by `by`.
    DrawDeclined {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who declined.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
    },
    /// Room event: after the game, a player asked for a rematch; it is made when the
    /// opponent asks too.
    RematchOffered {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who asked.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
    },
    /// Room event: both players asked for a rematch. It is played in room `room` with
    /// colours swapped; each player joins it with the seat token they hold here.
    Rematch {
        /// The room's sequence number of this event.
        seq: Seq,
        /// The id of the rematch's room.
        room: String,
    },
    /// Room event: a player asked to take back their last turn (and the opponent's reply,
    /// if the asker is to move); it stands until the opponent accepts or declines it, or
    /// a turn is played.
    TakebackOffered {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who asked.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
    },
    /// Room event: the takeback request was declined by `by`.
    TakebackDeclined {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who declined.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
    },
    /// Room event: the opponent accepted the takeback request of `by`: the last turns
    /// are undone, and the game goes on from the position after turn `number`.
    TakenBack {
        /// The room's sequence number of this event.
        seq: Seq,
        /// Who asked for it (and is now to move).
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        by: Color,
        /// How many turns remain played.
        number: usize,
        /// Whose turn it is now.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        to_move: Color,
        /// The clocks now, in a game with a time control: nobody gets time back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<ClockView>,
    },
    /// Presence: a player took their seat for the first time. Presence notices are not
    /// room events: they have no `seq` and are not replayed to a member coming back.
    PlayerJoined {
        /// The seat.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        color: Color,
    },
    /// Presence: a player's connection ended; the seat stays theirs.
    PlayerLeft {
        /// The seat.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        color: Color,
        /// While the game goes on: milliseconds until the opponent may claim the win
        /// if the player has not come back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claim_in_ms: Option<u64>,
    },
    /// Presence: a player came back with their token (possibly replacing a connection
    /// that was still open).
    PlayerReconnected {
        /// The seat.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        color: Color,
    },
    /// Presence: the number of spectators changed. Sent at most about once a second, with
    /// the latest count.
    Spectators {
        /// How many spectators watch now.
        count: usize,
    },
    /// A line of the room's chat, to those who hear its channel. Not a room event: no
    /// `seq`; members get the recent lines in their snapshot or `resumed` instead.
    Chat {
        /// The line.
        #[serde(flatten)]
        line: ChatLine,
    },
    /// A moderator removed a line of the room's chat: show it as removed. Not a room
    /// event, like `chat`.
    ChatRemoved {
        /// The removed line's `line`.
        line: u64,
    },
    /// Private to the player to move, right after the opponent's `turn_played`: every
    /// legal turn, so a client can offer only those.
    YourTurn {
        /// The sequence number of the event after which these turns are legal.
        seq: Seq,
        /// Every legal turn, in canonical notation.
        #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::schema::TurnDef>"))]
        legal_turns: Vec<Turn>,
    },
    /// A followed tournament as it stands: the reply to `follow`, and sent unasked
    /// (without an `id`) whenever it changes: a player joins or withdraws, a game ends,
    /// it starts or ends. At most once a second: closer changes are sent together. Not a
    /// room event.
    Tournament {
        /// The `follow`'s id; absent when unasked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// The tournament, as `GET /api/tournaments/{id}` answers it.
        tournament: Box<TournamentView>,
    },
    /// A round of the followed tournament was paired (and stored): its games.
    TournamentRound {
        /// The tournament's id.
        tournament: String,
        /// The round.
        round: TournamentRound,
    },
    /// To a follower signed in as a player of the followed tournament: their next game,
    /// when its round is paired (and, on `follow`, the game they have not finished).
    TournamentGame {
        /// The tournament's id.
        tournament: String,
        /// The round.
        round: u32,
        /// The game's room: join it signed in, without a token.
        room: String,
        /// The colour the player has.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        color: Color,
        /// The opponent's username.
        opponent: String,
    },
    /// The answer to `seek`: it waits for someone who wants the same game.
    Seeking {
        /// The `seek`'s id.
        id: RequestId,
        /// The seek's id, as `paired`, `seek_ended` and the lobby's list name it.
        seek: String,
        /// When it ends if nobody meets it, in milliseconds since the Unix epoch.
        expires_at: i64,
    },
    /// A seek met another: the room of their game is made, and this connection holds
    /// one of its seats. The answer to `seek` (with its `id`) when it met a waiting one
    /// at once, else sent unasked.
    Paired {
        /// The `seek`'s id, when this answers it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// The seek's id.
        seek: String,
        /// The room: `join` it with `token`.
        room: String,
        /// The secret seat token of this player's seat.
        token: String,
        /// The colour the player has.
        #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
        color: Color,
        /// Who the opponent is.
        opponent: Player,
    },
    /// A seek ended without meeting anyone.
    SeekEnded {
        /// The seek's id.
        seek: String,
        /// Why: `expired`, its time ran out.
        reason: SeekEnd,
    },
    /// The server is about to close this connection, and why.
    Bye {
        /// Why, for programs: `seat-taken-over`, `shutting-down`, `rate-limited` or
        /// `session-ended`.
        code: ErrorCode,
        /// Why, for people.
        message: String,
    },
}

impl ServerMessage {
    /// The room sequence number, for room events (presence notices have none).
    pub fn seq(&self) -> Option<Seq> {
        match *self {
            ServerMessage::TurnPlayed { seq, .. }
            | ServerMessage::GameOver { seq, .. }
            | ServerMessage::Ratings { seq, .. }
            | ServerMessage::DrawOffered { seq, .. }
            | ServerMessage::DrawDeclined { seq, .. }
            | ServerMessage::RematchOffered { seq, .. }
            | ServerMessage::Rematch { seq, .. }
            | ServerMessage::TakebackOffered { seq, .. }
            | ServerMessage::TakebackDeclined { seq, .. }
            | ServerMessage::TakenBack { seq, .. } => Some(seq),
            _ => None,
        }
    }

    /// An error reply.
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> Self {
        ServerMessage::Error {
            id,
            code,
            rule: None,
            args: None,
            message: message.into(),
        }
    }
}

/// Stable, machine-readable reasons, written in kebab-case on the wire.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The frame is not JSON, or not a known message with the right fields.
    Malformed,
    /// A `play` whose turn is not in notation.
    BadNotation,
    /// A frame larger than the server accepts; the connection is closed.
    MessageTooLarge,
    /// The first message was not a `hello`.
    HelloRequired,
    /// A second `hello`.
    DuplicateHello,
    /// The `hello` states a protocol version the server does not speak; the connection is
    /// closed.
    UnsupportedVersion,
    /// `join` or `watch` on a connection that is already in a room.
    AlreadyJoined,
    /// `play` before `join`.
    NotJoined,
    /// No room has this id.
    NoSuchRoom,
    /// The seat token is not one of this room's, or its seat's account was deleted.
    BadToken,
    /// A spectator tried to play.
    NotAPlayer,
    /// A player tried to play while it is the opponent's turn.
    NotYourTurn,
    /// The rules engine refused the turn; `rule` says why.
    IllegalTurn,
    /// Both seats of the room are taken (HTTP).
    RoomFull,
    /// The server holds as many rooms as it may: creating a room, or entering (or taking
    /// the seat of) one that is not in memory.
    TooManyRooms,
    /// The server has as many connections as it may.
    TooManyConnections,
    /// A bad HTTP request body or parameter.
    BadRequest,
    /// Another connection took over this seat with its token.
    SeatTakenOver,
    /// The server is shutting down.
    ShuttingDown,
    /// The game is over: nothing more can be done in it.
    GameOver,
    /// `accept_draw` or `decline_draw` with no offer from the opponent standing, or
    /// `offer_draw` with an offer already standing.
    NoDrawOffer,
    /// The server could not store the request; nothing changed. Try again.
    StorageFailed,
    /// `claim_win` while the opponent is connected or within their grace period.
    NotClaimable,
    /// `rematch` before the game is over, while the player's own request stands, or
    /// after the rematch was made.
    RematchUnavailable,
    /// Too many messages of one kind in too short a time, or too many rooms created from
    /// one address; nothing was done. A connection that keeps flooding is closed.
    RateLimited,
    /// A browser page from an origin the server does not allow opened the WebSocket
    /// (HTTP 403).
    OriginNotAllowed,
    /// Registering a username that an account already has (or one differing only in
    /// case, `-` or `_`).
    UsernameTaken,
    /// A username or password that breaks the rules for them (HTTP 400).
    BadUsername,
    /// A password too short or too long (HTTP 400).
    BadPassword,
    /// Signing in with a username and password that do not match an account.
    BadCredentials,
    /// A name that is too long, empty, has characters that cannot be shown, or is an
    /// account's username or the computer's.
    BadName,
    /// The request needs a signed-in player: a rated game, a seat of one, or a session
    /// that has expired or was signed out (HTTP 401).
    SignInRequired,
    /// A request that changes something, authenticated by the session cookie, that came
    /// from another site's page (HTTP 403).
    CrossSite,
    /// No account has this username (HTTP 404).
    NoSuchPlayer,
    /// A `chat` whose text is empty, longer than 300 characters, or holds control
    /// characters.
    BadChat,
    /// `takeback` from a player who has played no turn yet, or whose request stands
    /// already.
    TakebackUnavailable,
    /// `accept_takeback` or `decline_takeback` with no request from the opponent
    /// standing.
    NoTakebackOffer,
    /// Cancelling a room whose other seat is taken, or whose game is over (HTTP 409).
    NotCancellable,
    /// Taking a seat in a room whose creator blocks the account (HTTP 403).
    Blocked,
    /// A `chat` from an account a moderator muted, signed in or in a seat of the account
    /// joined with its token, until the mute ends (HTTP 403).
    Muted,
    /// Playing a rated game, for an account a moderator barred from them (HTTP 403).
    BarredFromRated,
    /// Signing in to an account a moderator banned (HTTP 403); `join` with the token of a
    /// seat whose account is banned.
    Banned,
    /// A moderator's page or action, asked by an account without the role (HTTP 403).
    NotAModerator,
    /// A report, or a line of chat, that does not exist (HTTP 404).
    NotFound,
    /// No tournament has this id (HTTP 404).
    NoSuchTournament,
    /// Joining a tournament the account has joined already (HTTP 409).
    AlreadyEntered,
    /// Joining a tournament that has as many players as it may (HTTP 409).
    TournamentFull,
    /// Joining a tournament that has started or ended, or withdrawing from one that has
    /// ended (HTTP 409).
    TournamentStarted,
    /// Withdrawing from a tournament the account has not joined, or has left (HTTP 409).
    NotEntered,
    /// `bye`: the session the connection was signed in with ended (signed out, a new
    /// password, a ban, the account deleted), or the account of the seat it joined with
    /// a token was banned or deleted.
    SessionEnded,
}

impl ErrorCode {
    /// The code as written on the wire.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a connection is in its room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The white player.
    White,
    /// The black player.
    Black,
    /// A spectator: can watch, never act.
    Spectator,
}

impl Role {
    /// The seat, for a player.
    pub const fn color(self) -> Option<Color> {
        match self {
            Role::White => Some(Color::White),
            Role::Black => Some(Color::Black),
            Role::Spectator => None,
        }
    }

    /// The role of the player of `color`.
    pub const fn player(color: Color) -> Role {
        match color {
            Color::White => Role::White,
            Color::Black => Role::Black,
        }
    }
}

/// Everything about a room that a client needs to draw it and follow it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RoomSnapshot {
    /// The room's id.
    pub room: String,
    /// The sequence number of the last event included; events after it follow.
    pub seq: Seq,
    /// Which game is played.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::VariantDef"))]
    pub variant: Variant,
    /// Both seats.
    pub players: Seats,
    /// Whether the game changes its players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// Whose turn it is (meaningless once the game is over).
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
    pub to_move: Color,
    /// Every cell that holds a dot, in canonical cell order.
    pub board: Vec<StackView>,
    /// The pieces each player has not dropped yet.
    pub reserves: Reserves,
    /// Every turn played, in order, in canonical notation.
    #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::schema::TurnDef>"))]
    pub turns: Vec<Turn>,
    /// The result, once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::schema::OutcomeDef>")
    )]
    pub outcome: Option<Outcome>,
    /// How many spectators watch.
    pub spectators: usize,
    /// The clocks, in a game with a time control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// The player whose draw offer stands, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::ColorDef>"))]
    pub draw_offer: Option<Color>,
    /// The player whose takeback request stands, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::ColorDef>"))]
    pub takeback_offer: Option<Color>,
    /// Once a rated game is over: what it did to both players' ratings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingChanges>,
    /// After the game: the player whose rematch request stands, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::ColorDef>"))]
    pub rematch_offer: Option<Color>,
    /// The id of the rematch's room, once both players asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<String>,
    /// The recent chat the receiver hears, oldest first (at most the last 100 lines):
    /// a player, the players' channel (without the opponent's lines once muted) and,
    /// after the game, the spectators'; a spectator, the spectators' channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<ChatLine>,
    /// Every legal turn: only in the snapshot sent to the player to move while the game
    /// goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<Vec<crate::schema::TurnDef>>")
    )]
    pub legal_turns: Option<Vec<Turn>>,
    /// The tournament whose game this is, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
}

/// Both seats of a room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Seats {
    /// White's seat.
    pub white: SeatView,
    /// Black's seat.
    pub black: SeatView,
}

impl Seats {
    /// The seat of `color`.
    pub fn get(&self, color: Color) -> &SeatView {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// One seat as others see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SeatView {
    /// Whether someone holds this seat's token.
    pub taken: bool,
    /// Who holds it, when they gave a name or were signed in.
    #[serde(flatten)]
    pub player: Player,
    /// Whether the holder is connected now.
    pub connected: bool,
    /// While the game goes on and this player is away: milliseconds until the opponent
    /// may claim the win (0: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_in_ms: Option<u64>,
    /// The level the server's engine plays at, when this seat is the computer's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<u8>,
    /// In the lobby: the rating in the room's variant of the account holding the seat
    /// (1500 for one with no rated game yet); none for a player without an account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
}

/// Which chat a line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// The players', which spectators never see.
    Players,
    /// The spectators', which players see only once the game is over.
    Spectators,
}

/// One line of a room's chat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ChatLine {
    /// Which chat.
    pub channel: Channel,
    /// Who said it: the player's seat, absent for a spectator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::ColorDef>"))]
    pub color: Option<Color>,
    /// Their name (a spectator's is their username when signed in), if they have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What they said: plain text, never markup. Empty once removed.
    pub text: String,
    /// When, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The line's number, unique on the server: what a report or a removal names. (Not
    /// `id`: in a message from the server, that is the id of the request answered.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Whether a moderator removed it (its text is then empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

/// Who plays a seat, as everyone sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Player {
    /// The name the player gave, or their account's username; absent for a player who
    /// gave none. The computer is named by its level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The username of the account that holds the seat, when its player was signed in
    /// (their page is `/player/{account}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
}

/// Why a seek ended without meeting anyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SeekEnd {
    /// Nobody met it before its time ran out.
    Expired,
}

/// Both clocks, as they stood when the message was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ClockView {
    /// White's time left, in milliseconds.
    pub white_ms: u64,
    /// Black's time left, in milliseconds.
    pub black_ms: u64,
    /// Whose clock runs (counts down from its value above); none before the first turn
    /// and once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::schema::ColorDef>"))]
    pub running: Option<Color>,
    /// Milliseconds added to a player's clock with each turn they play.
    pub increment_ms: u64,
    /// In a correspondence game, the days each move may take: a player's time is set
    /// back to them after each of their turns (`increment_ms` is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u8>,
}

/// The dots on one cell, topmost first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StackView {
    /// The cell.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::CellDef"))]
    pub cell: Cell,
    /// Its dots, topmost first. Levels can skip under a bridge.
    pub dots: Vec<DotView>,
}

/// One dot of a stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DotView {
    /// Whose piece it belongs to.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
    pub color: Color,
    /// The kind of that piece.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::KindDef"))]
    pub kind: Kind,
    /// Which of its owner's pieces (0–17): tells apart the dots of two pieces of one kind.
    pub piece: u8,
    /// Level of the dot, 1 = on the board.
    pub level: u8,
    /// Whether the dot is its piece's PÜNCT.
    pub punct: bool,
}

impl StackView {
    /// Every non-empty stack of `position`, in canonical cell order.
    pub fn all(position: &Position) -> Vec<StackView> {
        Cell::all()
            .filter(|&cell| position.top(cell).is_some())
            .map(|cell| StackView {
                cell,
                dots: position
                    .stack(cell)
                    .into_iter()
                    .map(|dot| DotView {
                        color: dot.piece.color(),
                        kind: dot.piece.kind(),
                        piece: dot.piece.slot(),
                        level: dot.level,
                        punct: dot.is_punct,
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The board and reserves of a game's position, in the form of a snapshot's: what
/// `GET /api/rooms/{id}/position/{after}` answers, and what the web page's rules engine
/// computes for itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PositionView {
    /// How many turns led to it.
    pub after: usize,
    /// Whose turn it is.
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::ColorDef"))]
    pub to_move: Color,
    /// Every cell that holds a dot, its dots topmost first.
    pub board: Vec<StackView>,
    /// Both reserves.
    pub reserves: Reserves,
}

impl PositionView {
    /// The position `game` has reached.
    pub fn of(game: &Game) -> PositionView {
        let position = game.position();
        PositionView {
            after: game.turns().len(),
            to_move: position.to_move(),
            board: StackView::all(position),
            reserves: Reserves::of(position),
        }
    }
}

/// Both reserves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Reserves {
    /// White's reserve.
    pub white: ReserveView,
    /// Black's reserve.
    pub black: ReserveView,
}

impl Reserves {
    /// The reserves of `position`.
    pub fn of(position: &Position) -> Reserves {
        Reserves {
            white: ReserveView::of(position, Color::White),
            black: ReserveView::of(position, Color::Black),
        }
    }
}

/// The pieces of each kind a player has not dropped yet (names as the rules' kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct ReserveView {
    /// Straight pieces with the PÜNCT in the middle.
    pub straight_middle: u8,
    /// Straight pieces with the PÜNCT at an end.
    pub straight_end: u8,
    /// Angular pieces with the PÜNCT at the corner.
    pub angular_corner: u8,
    /// Angular pieces with an end PÜNCT, turning left.
    pub angular_left: u8,
    /// Angular pieces with an end PÜNCT, turning right.
    pub angular_right: u8,
    /// Triangles.
    pub triangle: u8,
}

impl ReserveView {
    /// The reserve of `color` in `position`.
    pub fn of(position: &Position, color: Color) -> ReserveView {
        let r = position.reserve(color);
        ReserveView {
            straight_middle: r.count(Kind::StraightMiddle),
            straight_end: r.count(Kind::StraightEnd),
            angular_corner: r.count(Kind::AngularCorner),
            angular_left: r.count(Kind::AngularLeft),
            angular_right: r.count(Kind::AngularRight),
            triangle: r.count(Kind::Triangle),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_carry_their_sequence_number() {
        let event = ServerMessage::TurnPlayed {
            seq: 4,
            turn: "c4:c5,d5".parse().unwrap(),
            by: Color::White,
            number: 1,
            to_move: Color::Black,
            clock: None,
        };
        assert_eq!(event.seq(), Some(4));
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"type":"turn_played","seq":4,"turn":"C4:C5,D5","by":"white","number":1,"to_move":"black"}"#
        );
    }

    #[test]
    fn error_codes_are_written_as_documented() {
        let error = ServerMessage::Error {
            id: Some(3),
            code: ErrorCode::IllegalTurn,
            rule: Some("drop-in-centre".into()),
            args: Some(BTreeMap::from([("cell".into(), "I9".into())])),
            message: "no".into(),
        };
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"type":"error","id":3,"code":"illegal-turn","rule":"drop-in-centre","args":{"cell":"I9"},"message":"no"}"#
        );
        // An error without `args`, as a server before them sent it, still reads.
        let older = r#"{"type":"error","id":3,"code":"illegal-turn","rule":"drop-in-centre","message":"no"}"#;
        let ServerMessage::Error { args, rule, .. } = serde_json::from_str(older).unwrap() else {
            panic!("an error");
        };
        assert_eq!((args, rule.as_deref()), (None, Some("drop-in-centre")));
        // Every code: the name strum gives is the one serde writes.
        let schema: serde_json::Value = serde_json::from_str(&crate::schema_json()).unwrap();
        let codes = schema["$defs"]["ErrorCode"]["oneOf"].as_array().unwrap();
        assert!(codes.len() >= 26, "{} codes", codes.len());
        for code in codes {
            let name = code["const"].as_str().unwrap();
            let code: ErrorCode = serde_json::from_value(name.into()).unwrap();
            assert_eq!(code.as_str(), name);
        }
    }
}
