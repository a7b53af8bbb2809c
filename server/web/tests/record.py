#!/usr/bin/env python3
"""Records the message streams the game page's tests replay (fixtures/).

Each scenario plays a room on a real server over the WebSocket protocol, as two players
and a spectator would, and saves what every connection received, one message a line (JSON
Lines), in `fixtures/SCENARIO/CLIENT.jsonl`. A client that comes back on a new connection
gets a file per connection: `black.jsonl`, then `black.2.jsonl`. Nothing is edited after
recording: the files are what the server sent, ids, sequence numbers, clocks and times
included, so the tests see the protocol as it is.

To re-record after a change to the protocol (the tests then say what the page must learn):

    export CARGO_TARGET_DIR=/work/targets/web   # or leave it unset for ./target
    cargo build -p punct-server --locked
    pip install websockets                       # the only package used, from PyPI
    python3 server/web/tests/record.py "${CARGO_TARGET_DIR:-target}/debug/punct-server"
    node --test server/web/tests/

The script starts its own servers on free ports of 127.0.0.1, with `--database :memory:`,
and stops them when it is done; it writes over the fixtures folder. One server runs with
the default settings; a second with a room event buffer of 1 and a grace period of 1 s,
so that a spectator falls behind (and gets a snapshot without `id`), a `since` that is
too old gets a snapshot, and a player may claim the win quickly.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from websockets.sync.client import connect

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from support import free_port, http, wait_until  # noqa: E402  (the path is set just above)

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")

# White links B1 to K17 in the 11th turn (server/tests/common/games.rs, WHITE_CONNECTS).
WHITE_CONNECTS = """B2:B1,B3 A3:A2,A4 B5:B4,B6 A6:A5,A7 B7:B8,B9 B10:C11,D12 C10:D11,E12
C1:D1,E1 F13:G14,H15 E13:F14,G15 I15:J16,K17""".split()


class Server:
    """The server binary on a free port of the loopback, its database in memory."""

    def __init__(self, binary, *flags):
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}/ws"
        command = [binary, "--listen", f"127.0.0.1:{port}", "--database", ":memory:", *flags]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until("the server", self.ready)

    def ready(self):
        try:
            urllib.request.urlopen(self.base + "/healthz", timeout=1)
            return True
        except OSError:
            return False

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def http(self, method, path, body=None, bearer=None):
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else None
        return http(method, self.base + path, body, headers)

    def room(self, bearer=None, **request):
        """Creates a room with White's seat; answers the room id and White's token."""
        granted = self.http("POST", "/api/rooms", {"color": "white", **request}, bearer)
        return granted["room"], granted["token"]

    def seat(self, room, bearer=None, **request):
        return self.http("POST", f"/api/rooms/{room}/seat", request, bearer)["token"]

    def account(self, username):
        """Registers an account; answers its session token."""
        return self.http("POST", "/api/accounts", {"username": username, "password": "correct horse"})["token"]


class Client:
    """One WebSocket connection that keeps every message it receives, read by a thread of
    its own so that nothing waits on the script."""

    def __init__(self, server, name, bearer=None):
        self.name = name
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else None
        self.socket = connect(server.ws, additional_headers=headers, max_size=None)
        self.received = []
        self.next_id = 1
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        try:
            for text in self.socket:
                self.received.append(json.loads(text))
        except Exception:
            pass

    def send(self, message):
        """Sends `message` with the next id; answers the id."""
        id = self.next_id
        self.next_id += 1
        self.socket.send(json.dumps({"id": id, **message}))
        return id

    def raw(self, text):
        self.socket.send(text)

    def reply(self, id):
        """The `ack`, `error` or other answer to request `id`, once it came."""
        return wait_until(f"{self.name}: the reply to {id}", lambda: next((m for m in self.received if m.get("id") == id), None))

    def ask(self, message):
        """Sends `message` and waits for its reply."""
        return self.reply(self.send(message))

    def hello(self, legal_turns=False):
        extra = {} if legal_turns else {"legal_turns": False}
        return self.ask({"type": "hello", "version": 1, **extra})

    def got(self, predicate, what="a message", timeout=15):
        return wait_until(f"{self.name}: {what}", lambda: next((m for m in self.received if predicate(m)), None), timeout)

    def count(self, type):
        return sum(1 for m in self.received if m["type"] == type)

    def wait_count(self, type, n):
        wait_until(f"{self.name}: {n} {type}", lambda: self.count(type) >= n)

    def last_seq(self):
        """The last room event's `seq` (or the snapshot's), as a page keeps it."""
        seq = None
        for m in self.received:
            if m["type"] == "snapshot":
                seq = m["room"]["seq"]
            elif "seq" in m and m["type"] not in ("ack", "your_turn"):
                seq = m["seq"]
        return seq

    def close(self):
        self.socket.close()
        self.reader.join(5)


def player(server, name, room, token=None, bearer=None, legal_turns=False, since=None):
    c = Client(server, name, bearer)
    c.hello(legal_turns)
    request = {"type": "join", "room": room}
    if token:
        request["token"] = token
    if since is not None:
        request["since"] = since
    c.ask(request)
    return c


def spectator(server, name, room, since=None):
    c = Client(server, name)
    c.hello()
    request = {"type": "watch", "room": room}
    if since is not None:
        request["since"] = since
    c.ask(request)
    return c


def play(clients, turns, start=0):
    """Plays `turns` in order, White's and Black's by turns from turn `start`, each
    waiting for the one before to reach everyone."""
    white, black = clients[0], clients[1]
    for i, turn in enumerate(turns, start):
        mover = white if i % 2 == 0 else black
        answer = mover.ask({"type": "play", "turn": turn})
        assert answer["type"] == "ack", answer
        for c in clients:
            c.got(lambda m, n=i + 1: m["type"] == "turn_played" and m["number"] == n, f"turn {i + 1}")


def settle(seconds=1.2):
    """Lets spectator counts (sent at most about once a second) and stray notices come."""
    time.sleep(seconds)


def save(scenario, *connections):
    folder = os.path.join(FIXTURES, scenario)
    os.makedirs(folder, exist_ok=True)
    for name, c in connections:
        with open(os.path.join(folder, f"{name}.jsonl"), "w") as f:
            for message in c.received:
                f.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"{scenario}: {', '.join(f'{name} {len(c.received)}' for name, c in connections)}")


def close_all(*clients):
    for c in clients:
        c.close()


# ---- the scenarios ------------------------------------------------------------------


def connection_win(server):
    """A full game to White's win by connection, with a spectator watching from the
    start; the players found their turns themselves (`legal_turns: false`)."""
    room, wt = server.room()
    white = player(server, "white", room, wt)
    watcher = spectator(server, "watcher", room)
    black = player(server, "black", room, server.seat(room))
    white.got(lambda m: m["type"] == "player_joined", "black joined")
    play([white, black, watcher], WHITE_CONNECTS)
    for c in (white, black, watcher):
        c.got(lambda m: m["type"] == "game_over", "the end")
    settle(0.3)
    close_all(white, black, watcher)
    save("connection-win", ("white", white), ("black", black), ("watcher", watcher))


def draws(server):
    """Draw offers: one declined, one that lapses when its offerer plays, one accepted;
    the refusals of answering no offer and offering twice. Black takes the server's lists
    of legal turns (`your_turn`), as a page without the rules engine does."""
    room, wt = server.room()
    white = player(server, "white", room, wt)
    black = player(server, "black", room, server.seat(room), legal_turns=True)
    watcher = spectator(server, "watcher", room)
    everyone = [white, black, watcher]
    play(everyone, WHITE_CONNECTS[:2])
    white.ask({"type": "offer_draw"})
    assert white.ask({"type": "offer_draw"})["code"] == "no-draw-offer"
    assert white.ask({"type": "accept_draw"})["code"] == "no-draw-offer"
    black.ask({"type": "decline_draw"})
    white.ask({"type": "offer_draw"})
    # White plays: the offer lapses silently.
    play(everyone, WHITE_CONNECTS[2:3], start=2)
    black.ask({"type": "offer_draw"})
    white.ask({"type": "accept_draw"})
    for c in everyone:
        c.got(lambda m: m["type"] == "game_over", "the end")
    assert black.ask({"type": "offer_draw"})["code"] == "game-over"
    settle(0.3)
    close_all(*everyone)
    save("draws", ("white", white), ("black", black), ("watcher", watcher))


def takebacks(server):
    """Takeback requests: declined, accepted by the player to move (one turn back) and
    by the player who moved (two turns back), and refused when nothing can be taken
    back."""
    room, wt = server.room()
    white = player(server, "white", room, wt)
    black = player(server, "black", room, server.seat(room))
    watcher = spectator(server, "watcher", room)
    everyone = [white, black, watcher]
    assert white.ask({"type": "takeback"})["code"] == "takeback-unavailable"
    play(everyone, WHITE_CONNECTS[:1])
    assert black.ask({"type": "takeback"})["code"] == "takeback-unavailable"
    white.ask({"type": "takeback"})
    black.ask({"type": "decline_takeback"})
    play(everyone, WHITE_CONNECTS[1:2], start=1)
    # White to move asks: White's turn and Black's reply are taken back.
    white.ask({"type": "takeback"})
    assert white.ask({"type": "accept_takeback"})["code"] == "no-takeback-offer"
    black.ask({"type": "accept_takeback"})
    for c in everyone:
        c.got(lambda m: m["type"] == "taken_back", "taken back")
    play(everyone, WHITE_CONNECTS[:2])
    # Black, whose opponent is to move, asks: Black's turn alone is taken back.
    black.ask({"type": "takeback"})
    white.ask({"type": "accept_takeback"})
    for c in everyone:
        c.wait_count("taken_back", 2)
    play(everyone, WHITE_CONNECTS[1:3], start=1)
    settle(0.3)
    close_all(*everyone)
    save("takebacks", ("white", white), ("black", black), ("watcher", watcher))


def clocks(server):
    """A game of 3 s + 1 s a turn: the clocks in each turn, and Black losing on time."""
    room, wt = server.room(clock={"base": 3, "increment": 1})
    white = player(server, "white", room, wt)
    black = player(server, "black", room, server.seat(room))
    watcher = spectator(server, "watcher", room)
    everyone = [white, black, watcher]
    play(everyone, WHITE_CONNECTS[:3])
    for c in everyone:
        c.got(lambda m: m["type"] == "game_over", "Black's flag", timeout=10)
    settle(0.3)
    close_all(*everyone)
    save("clocks", ("white", white), ("black", black), ("watcher", watcher))


def resign_and_rematch(server):
    """A rated game between two accounts: Black resigns, the ratings follow, both ask
    for a rematch and get the new room; the rematch is refused once made."""
    anna, bert = server.account("anna"), server.account("bert")
    room, _ = server.room(bearer=anna, rated=True)
    server.seat(room, bearer=bert)
    white = player(server, "white", room, bearer=anna)
    black = player(server, "black", room, bearer=bert)
    watcher = spectator(server, "watcher", room)
    everyone = [white, black, watcher]
    assert white.ask({"type": "rematch"})["code"] == "rematch-unavailable"
    play(everyone, WHITE_CONNECTS[:2])
    black.ask({"type": "resign"})
    for c in everyone:
        c.got(lambda m: m["type"] == "ratings", "the ratings")
    white.ask({"type": "rematch"})
    assert white.ask({"type": "rematch"})["code"] == "rematch-unavailable"
    black.ask({"type": "rematch"})
    for c in everyone:
        c.got(lambda m: m["type"] == "rematch", "the rematch")
    settle(0.3)
    close_all(*everyone)
    save("resign-rematch", ("white", white), ("black", black), ("watcher", watcher))


def chat(server):
    """Both channels: the players' lines, which spectators never get; a spectator's,
    which the players get once the game is over; a refused line; a mute."""
    room, wt = server.room(name="Clara")
    white = player(server, "white", room, wt)
    black = player(server, "black", room, server.seat(room, name="Dmitri"))
    watcher = spectator(server, "watcher", room)
    everyone = [white, black, watcher]
    white.ask({"type": "chat", "text": "good luck!"})
    black.ask({"type": "chat", "text": "  you too  "})
    watcher.ask({"type": "chat", "text": "go white"})
    assert white.ask({"type": "chat", "text": "   "})["code"] == "bad-chat"
    black.ask({"type": "mute", "muted": True})
    white.ask({"type": "chat", "text": "muted?"})
    black.ask({"type": "mute", "muted": False})
    assert watcher.ask({"type": "mute", "muted": True})["code"] == "not-a-player"
    white.ask({"type": "resign"})
    for c in everyone:
        c.got(lambda m: m["type"] == "game_over", "the end")
    watcher.ask({"type": "chat", "text": "well played"})
    black.ask({"type": "chat", "text": "thanks"})
    for c in (white, black):
        c.got(lambda m: m["type"] == "chat" and m["text"] == "well played", "the spectator's line")
    settle(0.3)
    close_all(*everyone)
    # Coming in afterwards: the snapshot holds the lines the newcomer hears.
    late = spectator(server, "late", room)
    settle(0.3)
    late.close()
    save("chat", ("white", white), ("black", black), ("watcher", watcher), ("late", late))


def presence(server):
    """Who is there: a spectator before anyone sits, Black taking the free seat, a
    second spectator, Black leaving and coming back, White taken over by another
    connection with the same token (`bye`), a claim refused while Black is away."""
    room, wt = server.room()
    watcher = spectator(server, "watcher", room)
    white = player(server, "white", room, wt)
    settle()
    bt = server.seat(room)
    black = player(server, "black", room, bt)
    white.got(lambda m: m["type"] == "player_joined", "black joined")
    second = spectator(server, "second", room)
    for c in (white, black, watcher):
        c.got(lambda m: m["type"] == "spectators" and m["count"] == 2, "two spectators")
    play([white, black, watcher, second], WHITE_CONNECTS[:1])
    black.close()
    white.got(lambda m: m["type"] == "player_left", "black left")
    assert white.ask({"type": "claim_win"})["code"] == "not-claimable"
    black2 = player(server, "black.2", room, bt)
    white.got(lambda m: m["type"] == "player_reconnected", "black back")
    second.close()
    for c in (white, black2, watcher):
        c.got(lambda m: m["type"] == "spectators" and m["count"] == 1, "one spectator again")
    # The same token on a new connection takes the seat over.
    white2 = player(server, "white.2", room, wt)
    white.got(lambda m: m["type"] == "bye", "the takeover")
    settle(0.3)
    close_all(white, white2, black2, watcher)
    save("presence", ("white", white), ("white.2", white2), ("black", black), ("black.2", black2),
         ("watcher", watcher), ("second", second))


def reconnect(server):
    """Black leaves; White plays and offers a draw meanwhile; Black comes back with
    `since` and gets `resumed`, the missed events and, taking the server's lists, its
    `your_turn`. The spectator does the same. A `since` the room has not reached is
    answered with a snapshot."""
    room, wt = server.room()
    white = player(server, "white", room, wt)
    bt = server.seat(room)
    black = player(server, "black", room, bt)
    watcher = spectator(server, "watcher", room)
    play([white, black, watcher], WHITE_CONNECTS[:2])
    since = black.last_seq()
    watched = watcher.last_seq()
    black.close()
    watcher.close()
    white.got(lambda m: m["type"] == "player_left", "black left")
    white.ask({"type": "play", "turn": WHITE_CONNECTS[2]})
    white.ask({"type": "offer_draw"})
    black2 = player(server, "black.2", room, bt, legal_turns=True, since=since)
    black2.got(lambda m: m["type"] == "your_turn", "black's turn")
    watcher2 = spectator(server, "watcher.2", room, since=watched)
    watcher2.got(lambda m: m["type"] == "draw_offered", "the draw offered")
    black2.ask({"type": "decline_draw"})
    play([white, black2, watcher2], WHITE_CONNECTS[3:4], start=3)
    # Ahead of the room's last event: the server cannot resume, and sends a snapshot.
    ahead = spectator(server, "ahead", room, since=watcher2.last_seq() + 5)
    settle(0.3)
    close_all(white, black2, watcher2, ahead)
    save("reconnect", ("white", white), ("black", black), ("black.2", black2), ("watcher", watcher),
         ("watcher.2", watcher2), ("ahead", ahead))


def behind(small):
    """On the server whose rooms keep one event: a spectator that misses events gets a
    fresh snapshot without `id` (the last turn and `game_over` come in one step, more
    than its buffer holds), and one coming back after two events gets a snapshot too."""
    for attempt in range(20):
        room, wt = small.room()
        white = player(small, "white", room, wt)
        black = player(small, "black", room, small.seat(room))
        watcher = spectator(small, "watcher", room)
        late = spectator(small, "late", room)
        play([white, black, watcher, late], WHITE_CONNECTS[:9])
        since = late.last_seq()
        late.close()
        play([white, black], WHITE_CONNECTS[9:10], start=9)
        white.ask({"type": "play", "turn": WHITE_CONNECTS[10]})
        # Any member may fall behind here, the players too.
        for c in (white, black, watcher):
            c.got(lambda m: m["type"] == "game_over" or (m["type"] == "snapshot" and "outcome" in m["room"]), "the end")
        late2 = spectator(small, "late.2", room, since=since)
        settle(0.3)
        close_all(white, black, watcher, late2)
        if any(m["type"] == "snapshot" and "id" not in m for m in watcher.received):
            save("behind", ("watcher", watcher), ("late", late), ("late.2", late2))
            return
    raise AssertionError("the spectator never fell behind")


def claim(small):
    """On the server with a grace period of 1 s: Black leaves, White claims the win."""
    room, wt = small.room()
    white = player(small, "white", room, wt)
    black = player(small, "black", room, small.seat(room))
    play([white, black], WHITE_CONNECTS[:2])
    black.close()
    white.got(lambda m: m["type"] == "player_left", "black left")
    time.sleep(1.2)
    white.ask({"type": "claim_win"})
    white.got(lambda m: m["type"] == "game_over", "the end")
    settle(0.3)
    white.close()
    save("claim", ("white", white), ("black", black))


def errors(server):
    """Refusals: before `hello`, a second `hello`, a frame that is no message, a room
    that does not exist, a token that is no seat's, a turn out of turn, in bad notation
    or against the rules, a spectator's turn."""
    room, wt = server.room()
    c = Client(server, "white")
    c.ask({"type": "join", "room": room, "token": wt})
    c.hello()
    c.ask({"type": "hello", "version": 1})
    c.raw("[1, 2]")
    c.got(lambda m: m.get("code") == "malformed", "malformed")
    c.ask({"type": "play", "turn": "C4:C5,D5"})
    c.ask({"type": "join", "room": "0123456789abcdef0123", "token": wt})
    c.ask({"type": "join", "room": room, "token": "0" * 32})
    c.ask({"type": "join", "room": room, "token": wt})
    c.ask({"type": "play", "turn": "hello"})
    c.ask({"type": "play", "turn": "I9:I10,J10"})
    black = player(server, "black", room, server.seat(room))
    black.ask({"type": "play", "turn": "A3:A2,A4"})
    watcher = spectator(server, "watcher", room)
    watcher.ask({"type": "play", "turn": "B2:B1,B3"})
    watcher.ask({"type": "resign"})
    settle(0.3)
    close_all(c, black, watcher)
    save("errors", ("white", c), ("black", black), ("watcher", watcher))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "debug", "punct-server")
    shutil.rmtree(FIXTURES, ignore_errors=True)
    server = Server(binary)
    small = Server(binary, "--room-event-buffer", "1", "--grace-period", "1s")
    try:
        connection_win(server)
        draws(server)
        takebacks(server)
        clocks(server)
        resign_and_rematch(server)
        chat(server)
        presence(server)
        reconnect(server)
        errors(server)
        behind(small)
        claim(small)
    finally:
        server.stop()
        small.stop()


if __name__ == "__main__":
    main()
