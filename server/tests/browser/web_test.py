#!/usr/bin/env python3
"""Browser tests of the web client: two players and a spectator through whole games, in
headless Chromium driven by Selenium (the shared parts are in `harness.py`). What is
about people rather than games (names, chat, accounts, player pages) is people_test.py's.

Run by `.ci/browser-tests`, which installs Chromium and Selenium and builds the server
first.

Usage: web_test.py SERVER_BINARY SCREENSHOT_DIR
"""


from harness import Game, WHITE_CONNECTS, http, position, record, run, wait_until


def main():
    run("web", scenario)


def scenario(server, browser):
    base = server.base
    white = browser("white")
    black = browser("black")
    # The spectator is on a phone: the page must work there too.
    watcher = browser("watcher", phone=True)
    play_and_watch(base, white, black, watcher)
    finished_game(base, white, black, watcher)
    agreed_draw(base, white, black, server.restart)
    against_the_computer(base, white)


def against_the_computer(base, white):
    # "Play the computer" from the lobby: the server takes Black and answers White's turn.
    white.go(base + "/")
    white.js("document.querySelector('select[name=color]').value = 'white';")
    white.js("document.querySelector('select[name=computer]').value = '1';")
    white.click("#create-room")
    wait_until("white in the room", lambda: white.text("#you") == "You play white")
    wait_until("the computer seated", lambda: white.text("#player-black .presence") == "computer, level 1")
    wait_until("white to move", lambda: white.board()["myTurn"] == "true")
    white.type("#notation", "C4:C5,D5\n")
    wait_until("the computer answers", lambda: white.board()["turns"] == "2")
    wait_until("white to move again", lambda: white.board()["myTurn"] == "true")
    white.screenshot("computer.png")
    room = white.js("return location.pathname.split('/')[2];")
    turns = http("GET", f"{base}/api/rooms/{room}/record")["turns"]
    assert turns[0] == "C4:C5,D5" and len(turns) == 2, turns


def play_and_watch(base, white, black, watcher):
    # White creates a room from the lobby, keeping white.
    white.go(base + "/")
    white.js("document.querySelector('select[name=color]').value = 'white';")
    white.click("#create-room")
    wait_until("white in the room", lambda: white.text("#you") == "You play white")
    room = white.js("return location.pathname.split('/')[2];")

    # Black joins from the lobby; the watcher sees the room go live there.
    black.go(base + "/")
    black.click(f'tr[data-room="{room}"] button.join')
    wait_until("black in the room", lambda: black.text("#you") == "You play black")
    # An open room beside the live one, so the lobby shows both states.
    open_room = http("POST", base + "/api/rooms", {"variant": "basic"})["room"]
    black.go(base + "/")
    black.find(f'tr[data-room="{room}"][data-status="live"]')
    black.find(f'tr[data-room="{open_room}"][data-status="open"] button.join')
    black.screenshot("lobby.png")
    black.go(f"{base}/room/{room}")
    wait_until("black back in the room", lambda: black.text("#you") == "You play black")
    watcher.go(base + "/")
    watcher.click(f'tr[data-room="{room}"] a.watch')
    wait_until("watcher in the room", lambda: watcher.text("#you") == "Watching")
    wait_until("spectator counted", lambda: white.text("#spectators b") == "1")

    game = Game(base, white, black, [watcher])
    game.room = room
    line = record("midgame-standard.txt")

    # An illegal attempt: black cannot move out of turn, and white's typed drop into the
    # centre is refused by the page without reaching the server.
    assert black.board()["myTurn"] == "false"
    game.wait_my_turn()
    white.type("#notation", "I9:I10,J10\n")
    wait_until("refusal shown", lambda: "not a legal turn" in (white.text("#message") or ""))
    assert white.js("return document.getElementById('message').dataset.kind;") == "refused"
    assert white.board()["turns"] == "0" and white.board()["pending"] == "false"
    # Picking a piece, then a cell it cannot reach, changes nothing either.
    white.click("#reserve-white button[data-kind=triangle]")
    white.click('polygon[data-cell="I9"]')
    assert "No legal turn" in white.text("#message")
    white.click("#cancel")

    # The first turns by mouse: drops of several kinds, then moves; the first move that
    # lands on a piece (a jump) too.
    jumped = False
    for i, turn in enumerate(line):
        if i < 4 or (not jumped and "-" in turn):
            picked = game.clicked(turn, "picking.png" if "-" in turn else None)
            board = position(base, room, len(game.played))["board"]
            jumped = any(s["dots"][0]["level"] >= 2 for s in board)
            if picked:
                # The page's reading of the kind agrees with the rules engine.
                punct = turn.split(":")[0]
                kind = next(s for s in board if s["cell"] == punct)["dots"][0]["kind"]
                assert picked == kind, f"{turn}: picked {picked}, dropped {kind}"
        else:
            game.typed(turn)
        if i == 20:
            # A reload in the middle of the game resumes the seat from localStorage.
            black.refresh()
            wait_until("black back in its seat", lambda: black.text("#you") == "You play black" and black.board().get("turns") == str(len(game.played)))
    assert jumped, "the line has a jump played by mouse"

    # The mid-game has stacks and a bridge (a stack whose levels skip under the bridge).
    board = position(base, room, len(line))["board"]
    levels = [[d["level"] for d in s["dots"]] for s in board]
    assert any(ls[0] >= 3 for ls in levels), "a stack three high"
    assert any(ls[-1] > 1 or any(a - b > 1 for a, b in zip(ls, ls[1:])) for ls in levels), "a bridge"
    assert int(white.js("return document.querySelectorAll('#board .badge').length;")) > 0
    white.js("document.querySelector('polygon[data-cell=\"%s\"]').dispatchEvent(new MouseEvent('pointerover', {bubbles: true}));" % next(s["cell"] for s in board if len(s["dots"]) >= 3))
    assert len(white.js("return [...document.querySelectorAll('#inspect li')].map(e => e.textContent);")) >= 3
    white.screenshot("midgame.png")
    watcher.js("window.scrollTo(0, 0);")
    watcher.screenshot("midgame-phone.png")

    # The watcher steps back through the game while it goes on, then returns.
    watcher.click('#turns [data-n="3"]')
    wait_until("watcher shows turn 3", lambda: watcher.board()["shown"] == "3")
    assert watcher.text("#viewing b") == "2. White"
    assert int(watcher.js("return document.querySelectorAll('#board .piece').length;")) == 2  # two drops, then a move
    watcher.click("#live")
    wait_until("watcher back live", lambda: watcher.board()["shown"] == str(len(line)))


def finished_game(base, white, black, watcher):
    # A room shared by URL: black opens the link and takes the free seat from the page.
    granted = http("POST", base + "/api/rooms", {"color": "white", "clock": {"base": 300, "increment": 3}})
    white.go(base + "/")
    white.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{granted['room']}", granted["token"])
    white.go(f"{base}/room/{granted['room']}")
    black.go(f"{base}/room/{granted['room']}")
    black.click("#seat-offer:not([hidden]) #take-seat")
    wait_until("black seated by link", lambda: black.text("#you") == "You play black")
    watcher.go(f"{base}/room/{granted['room']}")
    wait_until("watcher in the room", lambda: watcher.text("#you") == "Watching")
    game = Game(base, white, black, [watcher])
    for turn in WHITE_CONNECTS:
        game.typed(turn)
        if len(game.played) == 1:
            # White's clock stopped with the increment added; Black's runs, everywhere.
            for b in game.everyone():
                clocks = b.js("return [...document.querySelectorAll('.player .clock')].map(e => [e.textContent, e.classList.contains('running'), !!e.offsetParent]);")
                assert clocks[0][1:] == [False, True] and clocks[1][1:] == [True, True], f"{b.name}: {clocks}"
                assert clocks[0][0] in ("5:03", "5:00"), f"{b.name}: {clocks}"
            # It ticks down from 5:00 (a busy page may draw 4:58 before it draws 4:59).
            black_clock = "const [m, s] = document.querySelector('#player-black .clock').textContent.split(':'); return 60 * Number(m) + Number(s);"
            wait_until("black's clock ticks", lambda: 290 <= watcher.js(black_clock) < 300)
    for b in game.everyone():
        wait_until(f"{b.name} sees the result", lambda: b.text("#banner") == "White wins (connection)")
    for b in game.everyone():
        assert not b.js("return ['controls', 'actions'].some(id => document.getElementById(id).offsetParent);"), f"{b.name} still offers to play"
    assert white.js("return document.getElementById('controls').hidden;")
    white.screenshot("finished.png")
    # Only players are offered a rematch.
    assert white.js("return !!document.getElementById('rematch').offsetParent;")
    assert not watcher.js("return !!document.getElementById('after-game').offsetParent;")

    # The finished game replays turn by turn from its URL.
    watcher.go(f"{base}/room/{granted['room']}")
    watcher.click('#turns [data-n="1"]')
    wait_until("replay at turn 1", lambda: watcher.board()["shown"] == "1")
    watcher.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));")
    wait_until("replay at turn 2", lambda: watcher.board()["shown"] == "2")
    watcher.click("#forward")
    wait_until("replay at turn 3", lambda: watcher.board()["shown"] == "3")
    watcher.click("#back")
    wait_until("replay back at turn 2", lambda: watcher.board()["shown"] == "2")
    assert int(watcher.js("return document.querySelectorAll('#board .piece').length;")) == 2
    rematch(base, white, black, watcher, granted["room"])


def rematch(base, white, black, watcher, old):
    # White asks for a rematch; Black and the watcher see it, and Black accepts.
    white.click("#rematch")
    wait_until("white's request stands", lambda: "waiting" in (white.text("#rematch-status") or ""))
    assert white.js("return document.getElementById('rematch').disabled;")
    wait_until("black sees the request", lambda: black.text("#rematch") == "Accept the rematch")
    assert black.text("#rematch-status") == "Your opponent asks for a rematch."
    wait_until("watcher sees the request", lambda: watcher.text("#rematch-status") == "White asks for a rematch.")
    black.screenshot("rematch-offer.png")
    black.click("#rematch")

    # Both players land in the new room, colours swapped; the watcher gets a link there.
    def room_of(b):
        return b.js("return location.pathname.split('/')[2];")
    new = wait_until("white in the rematch", lambda: room_of(white) != old and room_of(white))
    wait_until("black in the rematch", lambda: room_of(black) == new)
    wait_until("white plays black now", lambda: white.text("#you") == "You play black")
    wait_until("black plays white now", lambda: black.text("#you") == "You play white")
    link = watcher.find("#rematch-link:not([hidden])")
    assert watcher.text("#rematch-link") == "Watch the rematch"
    assert watcher.js("return location.pathname.split('/')[2];") == old
    link.click()
    wait_until("watcher in the rematch", lambda: room_of(watcher) == new and watcher.text("#you") == "Watching")
    summary = http("GET", f"{base}/api/rooms/{new}")
    assert summary.get("status") == "live", summary

    # Turns are played there. Meanwhile the new White's page loses its connection and
    # stays away while Black plays; it comes back with `since`, the server replays the
    # missed turn, and the page can play on.
    game = Game(base, black, white, [watcher])
    game.room = new
    game.typed(WHITE_CONNECTS[0])
    before = len(black.received())
    black.js("window.testBlocked = true; window.testSockets.at(-1).close();")
    wait_until("black's page offline", lambda: black.connection() != "online")
    turn = WHITE_CONNECTS[1]
    game.wait_my_turn().type("#notation", turn + "\n")
    wait_until("the turn played", lambda: white.board().get("turns") == "2")
    black.js("window.testBlocked = false;")
    wait_until("black's page back", lambda: black.connection() == "online")
    game.done(turn)
    after = black.received()[before:]
    assert "resumed" in after and "snapshot" not in after, after
    assert after.index("turn_played") > after.index("resumed"), after
    game.typed(WHITE_CONNECTS[2])
    white.screenshot("rematch.png")


def agreed_draw(base, white, black, restart_server):
    # The server restarts mid-game; the pages reconnect by themselves and the game goes
    # on. Resign needs a second click; a draw offer is answered from the other browser.
    granted = http("POST", base + "/api/rooms", {"color": "white"})
    room = granted["room"]
    white.go(base + "/")
    white.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", granted["token"])
    white.go(f"{base}/room/{room}")
    black.go(f"{base}/room/{room}")
    black.click("#seat-offer:not([hidden]) #take-seat")
    wait_until("black seated", lambda: black.text("#you") == "You play black")
    assert not black.js("return !!document.getElementById('draw-answer').offsetParent;")
    game = Game(base, white, black, [])
    game.typed(WHITE_CONNECTS[0])
    before = len(black.received())
    restart_server()
    for b in (white, black):
        wait_until(f"{b.name} notices", lambda: b.connection() != "online")
    for b in (white, black):
        wait_until(f"{b.name} reconnects", lambda: b.connection() == "online")
    assert white.text("#you") == "You play white" and black.text("#you") == "You play black"
    # The sequence numbers before the restart are of another incarnation of the room:
    # the pages came back from a snapshot, and still show the game as it stands.
    assert "snapshot" in black.received()[before:]
    game.wait_turns(1)
    game.wait_my_turn()
    white.click("#resign")
    assert white.text("#resign") == "Really resign?"
    white.click("#offer-draw")
    black.find("#draw-answer:not([hidden]) #accept-draw")
    black.click("#accept-draw")
    for b in (white, black):
        wait_until(f"{b.name} sees the draw", lambda: b.text("#banner") == "Draw (agreement)")


if __name__ == "__main__":
    main()
