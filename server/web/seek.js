// Quick pairing from the lobby: one WebSocket that says `hello`, sends `seek` and waits
// for `paired` (protocol/PROTOCOL.md, seek). The seat token of the room made is kept as a
// room's creator's is, and the page goes to the room. A connection that drops while
// seeking seeks again, so a server going away costs the player nothing.

import { displayName, keepSeatToken } from './api.js';

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
  let socket = null;
  let done = false;
  let retries = 0;

  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/ws`);
    socket.onopen = () => socket.send(JSON.stringify({ type: 'hello', id: 1, version: 1 }));
    socket.onmessage = (event) => handle(JSON.parse(event.data));
    socket.onclose = () => {
      if (done) return;
      // Seek again once back: the server that held the seek may have gone away.
      retries += 1;
      setTimeout(connect, Math.min(5000, 250 * 2 ** retries));
    };
  }

  function handle(message) {
    switch (message.type) {
      case 'welcome': {
        retries = 0;
        const request = { type: 'seek', id: 2, ...game };
        if (!signedIn) {
          request.guest = guestKey();
          if (displayName()) request.name = displayName();
        }
        socket.send(JSON.stringify(request));
        break;
      }
      case 'seeking':
        on.waiting(message.expires_at);
        break;
      case 'paired':
        done = true;
        keepSeatToken(message.room, message.token);
        socket.close();
        on.paired(message.room);
        break;
      case 'seek_ended':
        done = true;
        socket.close();
        on.ended();
        break;
      case 'error':
        done = true;
        socket.close();
        on.failed(message.message);
        break;
      default:
        break;
    }
  }

  connect();
  return () => {
    done = true;
    socket?.close();
  };
}
