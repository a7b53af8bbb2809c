// The game page's knowledge of its room: what the server told it, and the next state after
// each server message (protocol/PROTOCOL.md). `apply(state, message, now)` returns a new
// state, or the same object when the message changes nothing (a duplicate event, a reply
// that is not the room's business), so callers can tell by identity whether it counted.
//
// Pure: no DOM, no globals, no timers, so Node's test runner replays recorded streams
// through it (tests/). Times are the caller's: `now` is when the message arrived, on the
// clock the page reads (`performance.now()`); clocks and claim deadlines count from it.
//
// Sequence numbers (PROTOCOL.md, "Coming back"): a room event whose `seq` is not after the
// last one seen is skipped; one that does not follow it (a gap) is not applied, and marks
// the state `behind` until a fresh `snapshot` or `resumed` replaces what was missed. The
// page then comes back with `since`. Presence notices, chat and replies carry no `seq`.
//
// What the page says about news (a declined offer, a refusal, a `bye`) is in `notice`, a
// new object each time there is news and null once it is stale (the next turn, coming
// back): the view shows a notice when the object changes.

import { refusalText, side } from './ui.js';
import { t } from './i18n.js';

/** The messages that are room events: they carry the room's next `seq`. */
export const ROOM_EVENTS = new Set([
  'turn_played',
  'draw_offered',
  'draw_declined',
  'game_over',
  'rematch_offered',
  'rematch',
  'ratings',
  'takeback_offered',
  'takeback_declined',
  'taken_back',
]);

/** Lines of chat kept: the server sends at most 100 on entering, then each new one. */
export const CHAT_KEPT = 300;

const COLORS = ['white', 'black'];
const LOAD = 2 ** 32;

/** The state before the first snapshot. */
export function initial() {
  return {
    /** `white`, `black` or `spectator`; null before the room is entered. */
    you: null,
    variant: 'standard',
    /** Both seats (`taken`, `connected`, `name`, `account`, `computer`, `claim_in_ms`). */
    players: null,
    toMove: 'white',
    board: [],
    reserves: null,
    turns: [],
    /** How many turns `board` and `reserves` are after: they lag `turns` until the
     * position after a new turn is found (`withPosition`). */
    boardAfter: 0,
    /** The legal turns the server sent this player (`your_turn`, or the snapshot's); null
     * when it is not their move or their `hello` declined the lists. */
    legal: null,
    outcome: null,
    spectators: 0,
    /** The colour whose draw offer stands. */
    drawOffer: null,
    /** The colour whose takeback request stands. */
    takebackOffer: null,
    /** Both clocks as last told (`ClockView`), in a game with a time control. */
    clock: null,
    /** When `clock` was told (`now`): the running clock counts down from then. */
    clockAt: 0,
    /** Per colour: when the opponent may claim the win while that player is away. */
    claimAt: {},
    /** After the game: the colour whose rematch request stands. */
    rematchOffer: null,
    /** The id of the rematch's room, once both players asked for it. */
    rematch: null,
    /** Whether this player asked for the rematch while the page watched (their own
     * request stood, or the rematch was made live): the page then follows them there. */
    askedRematch: false,
    /** The `seq` of the last room event applied (or of the snapshot): `since` when
     * coming back. */
    seq: null,
    /** Set when an event did not follow `seq`: the events after it wait for a snapshot
     * or `resumed`. */
    behind: false,
    /** Whether the game changes both players' ratings. */
    rated: false,
    /** Once a rated game is rated: per colour, the player's rating before and after. */
    ratings: null,
    /** The lines of chat this member hears, oldest first. */
    chat: [],
    /** The news to show (`{text, kind}`), or null. */
    notice: null,
    /** Set when the room does not exist (`no-such-room`). */
    gone: false,
    /** The `code` of the `bye` the server sent before closing, if any. */
    bye: null,
  };
}

/** The state after `message`, received at `now`. */
export function apply(state, message, now = 0) {
  if (ROOM_EVENTS.has(message.type)) {
    if (state.behind) return state;
    if (state.seq !== null) {
      // The server sends no repeats; skipping them keeps a replay from counting twice.
      if (message.seq <= state.seq) return state;
      if (!follows(state.seq, message.seq)) return { ...state, behind: true };
    }
    state = { ...state, seq: message.seq };
  }
  const handle = HANDLERS[message.type];
  return handle ? handle(state, message, now) : state;
}

/** Whether `seq` is the event right after `last`: the next number, or the first event of
 * a later load of the room from the database (high 32 bits: the loads; low: the events). */
export function follows(last, seq) {
  return seq === last + 1 || (Math.floor(seq / LOAD) > Math.floor(last / LOAD) && seq % LOAD === 1);
}

const HANDLERS = {
  snapshot(state, { you, room }, now) {
    const claimAt = claims(room.players, now);
    const clock = room.clock ? (room.outcome ? stoppedClock(room.clock, room.outcome) : room.clock) : null;
    return {
      ...state,
      you,
      variant: room.variant,
      players: room.players,
      toMove: room.to_move,
      board: room.board,
      reserves: room.reserves,
      turns: room.turns,
      boardAfter: room.turns.length,
      legal: room.legal_turns ?? null,
      outcome: room.outcome ?? null,
      spectators: room.spectators,
      drawOffer: room.draw_offer ?? null,
      takebackOffer: room.takeback_offer ?? null,
      clock,
      clockAt: now,
      claimAt,
      rematchOffer: room.rematch_offer ?? null,
      rematch: room.rematch ?? null,
      askedRematch: state.askedRematch || Boolean(room.rematch_offer && room.rematch_offer === you),
      seq: room.seq,
      behind: false,
      rated: Boolean(room.rated),
      ratings: room.ratings ?? null,
      chat: (room.chat ?? []).slice(-CHAT_KEPT),
      notice: null,
    };
  },

  // The missed events follow as ordinary messages, in order; presence is as it is now.
  resumed(state, message, now) {
    return {
      ...state,
      you: message.you,
      players: message.players,
      spectators: message.spectators,
      claimAt: claims(message.players, now),
      chat: (message.chat ?? []).slice(-CHAT_KEPT),
      behind: false,
      notice: null,
    };
  },

  error(state, message) {
    if (message.code === 'no-such-room') return { ...state, gone: true };
    // A turn the rules refuse is said from its rule and values, in the page's words.
    const why = refusalText(message.rule, message.args, message.message);
    return { ...state, notice: { text: t('notice.refused', { message: why }), kind: 'error' } };
  },

  chat(state, message) {
    const { type: _, ...line } = message;
    return { ...state, chat: [...state.chat, line].slice(-CHAT_KEPT) };
  },

  chat_removed(state, message) {
    // A moderator removed a line: it stays in its place, shown as removed.
    const chat = state.chat.map((line) => (line.line === message.line ? { ...line, text: '', removed: true } : line));
    return { ...state, chat };
  },

  turn_played(state, message, now) {
    // A turn that does not extend the list (never sent by the server) leaves it alone.
    const turns = message.number === state.turns.length + 1 ? [...state.turns, message.turn] : state.turns;
    return {
      ...state,
      turns,
      toMove: message.to_move,
      legal: null,
      ...(message.clock ? { clock: message.clock, clockAt: now } : {}),
      // The offerer's turn lets their draw offer lapse; any turn lapses a takeback request.
      drawOffer: state.drawOffer === message.by ? null : state.drawOffer,
      takebackOffer: null,
      notice: null,
    };
  },

  your_turn(state, message) {
    return { ...state, legal: message.legal_turns };
  },

  game_over(state, message, now) {
    const clock = state.clock ? stoppedClock({ ...state.clock, ...clockNow(state, now) }, message.outcome) : null;
    return {
      ...state,
      outcome: message.outcome,
      legal: null,
      clock,
      clockAt: now,
      drawOffer: null,
      takebackOffer: null,
    };
  },

  draw_offered(state, message) {
    return { ...state, drawOffer: message.by };
  },

  draw_declined(state, message) {
    return { ...state, drawOffer: null, notice: { text: t('notice.draw-declined', { side: side(message.by) }), kind: 'info' } };
  },

  takeback_offered(state, message) {
    return { ...state, takebackOffer: message.by };
  },

  takeback_declined(state, message) {
    // The player who declined knows it.
    const notice = message.by === myColor(state) ? state.notice : { text: t('notice.takeback-declined', { side: side(message.by) }), kind: 'info' };
    return { ...state, takebackOffer: null, notice };
  },

  // The game goes on from an earlier position, found as after a turn.
  taken_back(state, message, now) {
    return {
      ...state,
      takebackOffer: null,
      turns: state.turns.slice(0, message.number),
      toMove: message.to_move,
      legal: null,
      ...(message.clock ? { clock: message.clock, clockAt: now } : {}),
      notice: { text: t('notice.taken-back', { side: side(message.by) }), kind: 'info' },
    };
  },

  rematch_offered(state, message) {
    return {
      ...state,
      rematchOffer: message.by,
      askedRematch: state.askedRematch || message.by === myColor(state),
    };
  },

  ratings(state, message) {
    return { ...state, ratings: { white: message.white, black: message.black } };
  },

  // Both players asked: a player's page goes on in the new room.
  rematch(state, message) {
    return {
      ...state,
      rematchOffer: null,
      rematch: message.room,
      askedRematch: state.askedRematch || myColor(state) !== null,
    };
  },

  player_joined: arrived,
  player_reconnected: arrived,

  player_left(state, message, now) {
    const players = { ...state.players, [message.color]: { ...state.players[message.color], connected: false } };
    return { ...state, players, claimAt: withClaim(state.claimAt, message.color, message.claim_in_ms, now) };
  },

  spectators(state, message) {
    return { ...state, spectators: message.count };
  },

  bye(state, message) {
    return { ...state, bye: message.code, notice: { text: message.message, kind: 'info' } };
  },
};

function arrived(state, message) {
  const players = {
    ...state.players,
    [message.color]: { ...state.players[message.color], taken: true, connected: true },
  };
  return { ...state, players, claimAt: withClaim(state.claimAt, message.color, null) };
}

/** The claim deadlines of both seats as a snapshot or `resumed` tells them. */
function claims(players, now) {
  let claimAt = {};
  for (const color of COLORS) claimAt = withClaim(claimAt, color, players[color].claim_in_ms, now);
  return claimAt;
}

function withClaim(claimAt, color, ms, now) {
  const { [color]: _, ...rest } = claimAt;
  return ms === undefined || ms === null ? rest : { ...rest, [color]: now + ms };
}

/** The state once the position after the first `n` turns is known: kept only when no
 * turn was played or taken back meanwhile. */
export function withPosition(state, n, position) {
  if (n !== state.turns.length) return state;
  return { ...state, board: position.board, reserves: position.reserves, boardAfter: n };
}

/** The state with the players' names and accounts of the room's summary (`players`):
 * `player_joined` does not say who joined. */
export function withNames(state, players) {
  if (!state.players) return state;
  const named = {};
  for (const color of COLORS) {
    const { name, account } = players[color];
    named[color] = { ...state.players[color], name, account };
  }
  return { ...state, players: named };
}

/** This page's colour, or null for a spectator (or before entering). */
export function myColor(state) {
  return state.you === 'white' || state.you === 'black' ? state.you : null;
}

/** Whether it is this player's move in a game that goes on with both seats taken. */
export function myMove(state) {
  const me = myColor(state);
  const seated = Boolean(state.players?.white.taken && state.players?.black.taken);
  return Boolean(me && seated && !state.outcome && state.toMove === me);
}

/** Both clocks' milliseconds at `now`: the running one counts down from when it was
 * told, never below zero. */
export function clockNow(state, now) {
  const spent = now - state.clockAt;
  const left = (color) => Math.max(0, state.clock[`${color}_ms`] - (state.clock.running === color ? spent : 0));
  return { white_ms: left('white'), black_ms: left('black') };
}

/** A clock once the game is over: stopped, and at zero for a player who lost on time
 * (the page's own count may be a moment behind the server's, which decides). */
export function stoppedClock(clock, outcome) {
  const loser = outcome.winner === 'white' ? 'black' : 'white';
  const flagged = outcome.reason === 'time' ? { [`${loser}_ms`]: 0 } : {};
  return { ...clock, running: null, ...flagged };
}

/** How many turns `color` has played of `turns` (White plays the odd ones). */
export function turnsOf(state, color) {
  const n = state.turns.length;
  return color === 'white' ? Math.ceil(n / 2) : Math.floor(n / 2);
}
