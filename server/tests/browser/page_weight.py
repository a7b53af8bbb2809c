#!/usr/bin/env python3
"""What the game page costs a player: bytes and time to the first board, and bytes per
turn, for docs/PERFORMANCE.md. Not a test: it measures one server binary.

Usage: page_weight.py SERVER_BINARY [TURNS]

Plays TURNS turns (30 by default) of a rules test record over the WebSocket protocol,
then opens the room in headless Chromium as the player to move: first with an empty cache,
then four more times with it warm. For each visit it reports the bytes that came over
HTTP (as sent, compressed or not), the bytes received over the WebSocket until the board
was drawn, and the time from the start of navigation to the first board with its pieces.
Then the other player's page is opened and the bytes it receives for one turn of its
opponent are counted.
"""

import contextlib
import json
import statistics
import sys
import tempfile

from websockets.sync.client import connect

from harness import Browser, Server, http, record, wait_until

# Counts what the page receives and notes when the board first shows pieces.
PROBE = """
(() => {
  window.weight = { ws: 0, wsAtBoard: null, board: null };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        window.weight.ws += new TextEncoder().encode(e.data).length;
      });
    }
  };
  const look = () => {
    const pieces = document.querySelector('#board .pieces');
    if (pieces && pieces.childElementCount > 0) {
      window.weight.board = performance.now();
      window.weight.wsAtBoard = window.weight.ws;
    } else {
      requestAnimationFrame(look);
    }
  };
  requestAnimationFrame(look);
})();
"""

HTTP_BYTES = """
const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
return entries.reduce((sum, e) => sum + e.transferSize, 0);
"""


def play(base, room, tokens, turns):
    """Plays `turns` in `room` over the WebSocket protocol, the players taking turns."""
    with contextlib.ExitStack() as stack:
        sockets = []
        for token in tokens:
            ws = stack.enter_context(connect(base.replace("http", "ws") + "/ws"))
            ws.send(json.dumps({"type": "hello", "id": 1, "version": 1, "legal_turns": False}))
            ws.send(json.dumps({"type": "join", "id": 2, "room": room, "token": token}))
            sockets.append(ws)
        for n, turn in enumerate(turns):
            ws = sockets[n % 2]
            ws.send(json.dumps({"type": "play", "id": 100 + n, "turn": turn}))
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message.get("id") == 100 + n:
                    assert message["type"] == "ack", message
                    break


def visit(browser, url):
    browser.go(url)
    wait_until("the board", lambda: browser.js("return window.weight.board;"), timeout=30)
    return {
        "http": browser.js(HTTP_BYTES),
        "ws": browser.js("return window.weight.wsAtBoard;"),
        "ms": browser.js("return window.weight.board;"),
    }


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    turns = record("midgame-standard.txt")[:count]
    server = Server(binary)
    base = server.base
    browsers = []
    try:
        white = server.create_room(variant="standard", color="white")
        black = http("POST", f"{base}/api/rooms/{white['room']}/seat", {})
        room = white["room"]
        # Even: White is to move; odd: Black.
        mover, other = (white, black) if count % 2 == 0 else (black, white)
        play(base, room, [white["token"], black["token"]], turns)

        shots = tempfile.mkdtemp(prefix="punct-weight-")
        for name in ("mover", "other"):
            b = Browser(name, shots)
            b.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
            browsers.append(b)
        page = f"{base}/room/{room}"
        first, warm = None, []
        b = browsers[0]
        b.go(base + "/")
        b.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", mover["token"])
        for i in range(5):
            seen = visit(b, page)
            if i == 0:
                first = seen
            else:
                warm.append(seen)
        print(f"after {count} turns, the page of the player to move:")
        print(f"  first visit: {first['http']:,} bytes over HTTP, {first['ws']:,} over the WebSocket, board after {first['ms']:.0f} ms")
        print(
            f"  warm cache (median of {len(warm)}): {statistics.median(w['http'] for w in warm):,.0f} bytes over HTTP, "
            f"{statistics.median(w['ws'] for w in warm):,.0f} over the WebSocket, "
            f"board after {statistics.median(w['ms'] for w in warm):.0f} ms"
        )

        o = browsers[1]
        o.go(base + "/")
        o.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", other["token"])
        visit(o, page)
        before = o.js("return window.weight.ws;")
        # The player to move plays the record's next turn from its page; the other page
        # then receives the turn and, without the engine, its own legal turns.
        b.type("#notation", record("midgame-standard.txt")[count] + "\n")
        wait_until("the turn reaches the other page", lambda: o.board().get("turns") == str(count + 1))
        wait_until("the lists, if any", lambda: o.board().get("myTurn") == "true", timeout=10)
        print(f"  one turn of the opponent: {o.js('return window.weight.ws;') - before:,} bytes over the WebSocket")
    finally:
        for b in browsers:
            b.quit()
        server.stop()


if __name__ == "__main__":
    main()
