// Quick pairing from the lobby: one WebSocket (socket.js) that sends `seek` once welcomed
// and waits for `paired` (protocol/PROTOCOL.md, seek). The seat token of the room made is
// kept as a room's creator's is, and the page goes to the room. A connection that drops
// while seeking seeks again, so a server going away costs the player nothing.

import { displayName, keepSeatToken } from './api.js';
import { connect } from './socket.js';

/** The key this browser gives with its seeks, the same in all its tabs, so that two tabs
 * of one player never meet each other. */
function guestKey() {
  let key = localStorage.getItem('punct-guest');
  if (!key) {
    key = crypto.randomUUID();
    localStorage.setItem('punct-guest', key);
  }
  return key;
}

/**
 * Seeks `game` (`{variant, clock, rated}`), as signed in or not (`signedIn`). `on` has
 * `waiting(expiresAt)`, `paired(room)`, `ended()` (the seek ran out) and `failed(message)`.
 * Answers a function that cancels the seek.
 */
export function seek(game, signedIn, on) {
  let done = false;

  const connection = connect({
    receive: handle,
    // Seek again once back: the server that held the seek may have gone away.
    closed: () => !done,
  });

  function handle(message) {
    switch (message.type) {
      case 'welcome': {
        connection.settled();
        const request = { type: 'seek', ...game };
        if (!signedIn) {
          request.guest = guestKey();
          if (displayName()) request.name = displayName();
        }
        connection.send(request);
        break;
      }
      case 'seeking':
        on.waiting(message.expires_at);
        break;
      case 'paired':
        done = true;
        keepSeatToken(message.room, message.token);
        connection.close();
        on.paired(message.room);
        break;
      case 'seek_ended':
        done = true;
        connection.close();
        on.ended();
        break;
      case 'error':
        done = true;
        connection.close();
        on.failed(message.message);
        break;
      default:
        break;
    }
  }

  return () => {
    done = true;
    connection.close();
  };
}
