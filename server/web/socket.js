// One connection to the server's WebSocket, `/ws` (protocol/PROTOCOL.md), as the game
// page, the lobby's quick pairing and a tournament's followers all need it: it opens the
// socket (wss on a page served over https), says `hello`, numbers the requests, hands
// every message to its owner parsed, and, when the socket ends, connects again if its
// owner wants, after a wait that doubles up to 5 s so that a restarting server is not
// flooded. What to ask once welcomed, and when to come back, is the owner's business.

/** The wait before connecting again after `failures` connections in a row were lost:
 * 250 ms, doubling up to 5 s. */
export function retryDelay(failures) {
  return Math.min(5000, 250 * 2 ** failures);
}

/**
 * Connects. `options`:
 * - `hello`: fields `hello` carries besides its type and version (`legal_turns`);
 * - `opening(again)`: called as each socket is opened, `again` when one was lost before;
 * - `receive(message)`: every message, parsed;
 * - `closed()`: the socket ended; answers whether to connect again (never after
 *   `close()`).
 */
export function connect(options) {
  let socket = null;
  // Ids go on rising across sockets: an answer is never taken for one to an earlier
  // request.
  let nextId = 1;
  let failures = 0;
  /** The connection waiting to be tried, if any. */
  let timer = null;
  /** Set by `close()`: the owner is done with it. */
  let ended = false;

  function send(message) {
    const id = nextId++;
    socket.send(JSON.stringify({ ...message, id }));
    return id;
  }

  function open() {
    timer = null;
    options.opening?.(failures > 0);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const current = new WebSocket(`${scheme}://${location.host}/ws`);
    socket = current;
    // A socket let go of (`suspend`) may still open, speak or close after its successor
    // was made: a page shown again from the back/forward cache runs its queued events
    // late. Heard, it would speak for the page twice.
    current.onopen = () => {
      if (socket === current) send({ type: 'hello', version: 1, ...options.hello });
    };
    current.onmessage = (event) => {
      if (socket === current) options.receive(JSON.parse(event.data));
    };
    current.onclose = () => {
      if (socket !== current) return;
      if (options.closed() && !ended) timer = setTimeout(open, retryDelay(failures++));
    };
  }

  open();

  return {
    /** Sends `message` with the next id; answers the id. */
    send,

    /** Whether the socket is open. */
    online: () => socket?.readyState === WebSocket.OPEN,

    /** The connection counts as made: the next one lost waits the shortest time again. */
    settled() {
      failures = 0;
    },

    /** Closes the socket as a lost connection would: `closed()` says what follows. */
    drop() {
      socket?.close();
    },

    /** Lets go of the socket without a word to the owner, and connects no more until
     * `resume()`. */
    suspend() {
      clearTimeout(timer);
      timer = null;
      const leaving = socket;
      socket = null;
      leaving?.close();
    },

    /** Connects again at once, as the first time. */
    resume() {
      failures = 0;
      open();
    },

    /** Closes for good: `closed()` is still told, and nothing connects again. */
    close() {
      ended = true;
      clearTimeout(timer);
      timer = null;
      socket?.close();
    },
  };
}
