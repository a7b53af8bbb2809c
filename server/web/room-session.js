// The game page's connection to the room, speaking protocol/PROTOCOL.md over
// socket.js's WebSocket. It says `hello` (declining the lists of legal turns when the page
// has the rules engine), enters the room (`join` with the seat token this browser keeps,
// `join` without one for a signed-in player whose account holds a seat, `watch`
// otherwise), and comes back after losing the connection with `since`, the last room
// event seen. Only a snapshot or a resumption counts as back: a server that welcomes the
// page and then fails it again is waited for longer each time.
//
// While the page sits in the back/forward cache its socket is closed (the player shows
// as away while gone) and opened again when the page is shown. The session stops for good
// when the room is gone or another window took the seat over.

import { connect } from './socket.js';
import { t } from './i18n.js';

/**
 * Opens the session. `options`:
 * - `roomId`;
 * - `legalTurns`: whether the server is to send the lists of legal turns;
 * - `since()`: the `seq` to come back from, or null on entering the first time;
 * - `seatToken()`: this browser's token of the room, or null; `forgetToken()` drops it;
 * - `accountSeat()`: whether the signed-in account holds a seat of the room;
 * - `receive(message)`: every message of the room's business (all but `welcome` and the
 *   refusal of a `join` by account, which the session answers itself by watching);
 * - `disconnected()`: the connection ended (requests in flight have no answer coming);
 * - `status(state, text)`: shows the connection's state (`connecting`, `online`,
 *   `offline`, `closed`) in words.
 */
export function openSession(options) {
  /** Set while the page is kept in the back/forward cache. */
  let parked = false;
  /** Set when reconnecting would be wrong: the room is gone or another tab took the seat. */
  let stopped = false;
  /** The `id` of the last `join` sent without a token: refused, the page watches instead. */
  let accountJoin = null;

  const setConnection = options.status;

  const connection = connect({
    hello: options.legalTurns ? {} : { legal_turns: false },
    opening: (again) => setConnection('connecting', again ? t('connection.reconnecting') : t('connection.connecting')),
    receive: handle,
    closed() {
      options.disconnected();
      if (stopped) return false;
      setConnection('offline', t('connection.offline'));
      return true;
    },
  });
  const { send } = connection;

  /** Enters the room, coming back from the last event seen if there was one. */
  function enter() {
    const token = options.seatToken();
    const seq = options.since();
    const since = seq === null ? {} : { since: seq };
    if (token) send({ type: 'join', room: options.roomId, token, ...since });
    else if (options.accountSeat()) accountJoin = send({ type: 'join', room: options.roomId, ...since });
    else send({ type: 'watch', room: options.roomId, ...since });
  }

  function handle(message) {
    switch (message.type) {
      case 'welcome':
        enter();
        return;
      case 'snapshot':
      case 'resumed':
        connection.settled();
        setConnection('online', t('connection.online'));
        break;
      case 'error':
        if (message.id !== undefined && message.id === accountJoin) {
          // The account holds no seat here after all (or the session ended): watch.
          accountJoin = null;
          send({ type: 'watch', room: options.roomId });
          return;
        }
        if (message.code === 'no-such-room') {
          stopped = true;
          connection.close();
        } else if (message.code === 'bad-token') {
          // The kept token is not a seat of this room (an old room id reused?): watch.
          options.forgetToken();
          send({ type: 'watch', room: options.roomId });
        }
        break;
      case 'bye':
        if (message.code === 'seat-taken-over') {
          stopped = true;
          setConnection('closed', t('connection.taken-over'));
        }
        break;
      default:
        break;
    }
    options.receive(message);
  }

  addEventListener('pagehide', () => {
    if (stopped || parked) return;
    parked = true;
    connection.suspend();
    options.disconnected();
  });
  addEventListener('pageshow', (event) => {
    // Shown again from the back/forward cache: come back with the events missed.
    if (!event.persisted || !parked) return;
    parked = false;
    connection.resume();
  });

  return {
    /** Sends `message` with the next id; returns the id. */
    send,
    online: connection.online,
    /** Whether the session ended for good. */
    stopped: () => stopped,

    /** Ends the session for good (the page leaves, or the room is gone). */
    stop() {
      stopped = true;
      connection.close();
    },

    /** Comes back at once with `since`, for the events missed after a gap. */
    resync() {
      if (!stopped && !parked) connection.drop();
    },
  };
}
