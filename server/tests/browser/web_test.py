#!/usr/bin/env python3
"""Browser tests of the web client: two players and a spectator through whole games, in
headless Chromium driven by Selenium (the shared parts are in `harness.py`).

Run by `.ci/browser-tests`, which installs Chromium and Selenium and builds the server
first.

Usage: web_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import time

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
    hostile_names(base, white, black, watcher)
    room_chat(base, white, black, watcher)
    rated_game(base, white, black, watcher)
    correspondence(base, watcher, black)
    player_pages(base, white, black)


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


# Names that would run script if a page read them as HTML. The server takes names of at
# most 24 characters, so the longer classics are refused (and the refusal is shown).
HOSTILE_WHITE = "<svg onload=pwned=1>"
HOSTILE_BLACK = "<script>pwned=1</script>"
HOSTILE_LONG = "<img src=x onerror=window.pwned=1>"


def not_pwned(b):
    assert b.js("return typeof window.pwned;") == "undefined", f"{b.name}: a name ran as script"


def hostile_names(base, white, black, watcher):
    # Anonymous players name themselves with markup: it shows as text everywhere.
    white.go(base + "/")
    white.js("document.querySelector('select[name=color]').value = 'white';")
    white.type("#display-name", HOSTILE_LONG)
    white.click("#create-room")
    wait_until("the long name refused", lambda: white.text("#create-error"))
    assert "name" in white.text("#create-error"), white.text("#create-error")
    white.type("#display-name", HOSTILE_WHITE)
    white.click("#create-room")
    wait_until("white in the room", lambda: white.text("#you") == "You play white")
    room = white.js("return location.pathname.split('/')[2];")
    assert white.js("return localStorage.getItem('punct-name');") == HOSTILE_WHITE

    black.go(base + "/")
    black.type("#display-name", HOSTILE_BLACK)
    black.click(f'tr[data-room="{room}"] button.join')
    wait_until("black in the room", lambda: black.text("#you") == "You play black")

    watcher.go(base + "/")
    row = f'tr[data-room="{room}"]'
    watcher.find(f'{row}[data-status="live"]')
    assert watcher.text(f'{row} .seat[data-color="white"] .name') == HOSTILE_WHITE
    assert watcher.text(f'{row} .seat[data-color="black"] .name') == HOSTILE_BLACK
    assert watcher.js("return document.querySelectorAll('#rooms svg, #rooms script, #rooms img').length;") == 0
    watcher.screenshot("lobby-names.png")
    not_pwned(watcher)

    watcher.go(f"{base}/room/{room}")
    wait_until("watcher in the room", lambda: watcher.text("#you") == "Watching")
    for b in (white, black, watcher):
        wait_until(f"{b.name} names white", lambda: b.text("#player-white .who") == HOSTILE_WHITE)
        wait_until(f"{b.name} names black", lambda: b.text("#player-black .who") == HOSTILE_BLACK)
        assert b.js("return document.querySelectorAll('.players svg, .players script').length;") == 0
        not_pwned(b)
    black.screenshot("room-names.png")
    # The record keeps the names as given.
    names = http("GET", f"{base}/api/rooms/{room}/record")
    assert names["white"] == {"name": HOSTILE_WHITE} and names["black"] == {"name": HOSTILE_BLACK}, names


# A line of chat that would run script if a page read it as HTML.
HOSTILE_CHAT = "<img src=x onerror=window.pwned=1><script>window.pwned=1</script>"


def chat_lines(b):
    """The lines the chat panel shows: [channel, colour, who, text] each."""
    return b.js("return [...document.querySelectorAll('#chat-lines li')].map(li => [li.dataset.channel, li.dataset.color, li.querySelector('.who').textContent, li.querySelector('.text').textContent]);")


def chat_received(b):
    """How many `chat` notices the page received, over all its connections."""
    return b.received().count("chat")


def say(b, text):
    """Types `text` into the chat box and presses Enter; waits for the server's ack,
    which empties the box."""
    b.type("#chat-input", text + "\n")
    wait_until(f"{b.name}'s line acknowledged (it says: {b.text('#chat-error')!r})", lambda: b.js("return document.getElementById('chat-input').value === '' && !document.getElementById('chat-send').disabled;"))


def quiet(what, browsers, seconds=1.0):
    """Checks that nothing reaches `browsers` for a while: a line they must not hear
    would have arrived by then (it reached its speaker already)."""
    before = [(chat_received(b), chat_lines(b)) for b in browsers]
    time.sleep(seconds)
    for b, (count, lines) in zip(browsers, before):
        assert chat_received(b) == count and chat_lines(b) == lines, f"{b.name} heard {what}: {chat_lines(b)}"


def room_chat(base, white, black, watcher):
    # Two players and a spectator in a room shared by URL. White gave no name (it shows
    # as "White"); Black keeps the hostile name of the test before.
    granted = http("POST", base + "/api/rooms", {"color": "white"})
    room = granted["room"]
    white.go(base + "/")
    white.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", granted["token"])
    white.go(f"{base}/room/{room}")
    black.go(f"{base}/room/{room}")
    black.click("#seat-offer:not([hidden]) #take-seat")
    wait_until("black seated", lambda: black.text("#you") == "You play black")
    watcher.go(f"{base}/room/{room}")
    wait_until("watcher in the room", lambda: watcher.text("#you") == "Watching")
    for b in (white, black):
        wait_until(f"{b.name}'s chat", lambda: b.text("#chat-title") == "Players' chat")
        assert b.js("return !document.getElementById('mute').hidden;")
    wait_until("the watcher's chat", lambda: watcher.text("#chat-title") == "Spectators' chat")
    assert watcher.js("return document.getElementById('mute').hidden;")
    assert white.js("return document.getElementById('chat-input').maxLength;") == 300

    # White says something hostile, then something friendly: Black reads both as text.
    say(white, HOSTILE_CHAT)
    say(white, "good luck, have fun")
    said = [["players", "white", "White", HOSTILE_CHAT], ["players", "white", "White", "good luck, have fun"]]
    for b in (white, black):
        wait_until(f"{b.name} shows white's lines", lambda: chat_lines(b) == said)
    say(black, "thanks, you too")
    said.append(["players", "black", HOSTILE_BLACK, "thanks, you too"])
    for b in (white, black):
        wait_until(f"{b.name} shows black's line", lambda: chat_lines(b) == said)
    # Each line tells its time on hover.
    assert all(black.js("return [...document.querySelectorAll('#chat-lines li')].map(li => li.title);")), "a line without its time"
    # The spectator hears none of it.
    assert chat_lines(watcher) == [] and chat_received(watcher) == 0, chat_lines(watcher)

    # The spectator talks: only spectators hear it while the game goes on.
    say(watcher, "who will win?")
    wait_until("the watcher shows its line", lambda: chat_lines(watcher) == [["spectators", "", "spectator", "who will win?"]])
    quiet("the spectator", (white, black))

    # A line over 300 characters: the box takes 300 of them; one longer still (set by
    # script, past the box's limit) is refused by the server, which says why.
    white.type("#chat-input", "x" * 301)
    assert white.js("return document.getElementById('chat-input').value.length;") == 300
    assert white.text("#chat-count") == "300/300"
    white.js("const i = document.getElementById('chat-input'); i.value = 'y'.repeat(301); i.dispatchEvent(new Event('input'));")
    assert white.js("return document.getElementById('chat-count').classList.contains('over');")
    white.click("#chat-send")
    wait_until("the long line refused", lambda: white.text("#chat-error"))
    assert "300 characters" in white.text("#chat-error"), white.text("#chat-error")
    assert white.js("return document.getElementById('chat-input').value.length;") == 301, "the refused line left the box"
    assert chat_lines(white) == said and chat_lines(black) == said
    # Refused chat leaves the game's own message line alone.
    assert "refused" not in (white.text("#message") or "")
    white.js("const i = document.getElementById('chat-input'); i.value = ''; i.dispatchEvent(new Event('input'));")

    # Nothing anyone typed ran, or made an element, on any page.
    for b in (white, black, watcher):
        not_pwned(b)
        assert b.js("return document.querySelectorAll('#chat img, #chat script, #chat svg').length;") == 0, f"{b.name}: markup in the chat"
        assert b.js("return document.querySelectorAll('img').length;") == 0, f"{b.name}: an img appeared"

    # Screenshots at desktop and phone width, before muting.
    black.js("document.getElementById('chat').scrollIntoView({block: 'center'});")
    black.screenshot("chat.png")
    watcher.js("document.getElementById('chat').scrollIntoView({block: 'center'});")
    watcher.screenshot("chat-spectator-phone.png")
    # (A headless window is at least 500 pixels wide: a phone's 400 is emulated.)
    white.cdp("Emulation.setDeviceMetricsOverride", {"width": 400, "height": 860, "deviceScaleFactor": 1, "mobile": True})
    white.js("document.getElementById('chat').scrollIntoView({block: 'center'});")
    wide = white.js("return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 401).map(e => e.tagName + '#' + e.id + ' ' + e.getBoundingClientRect().right);")
    assert not wide, f"wider than a phone: {wide}"
    white.screenshot("chat-phone.png")
    white.cdp("Emulation.clearDeviceMetricsOverride", {})

    # Black mutes White: White's next line reaches White only, and Black's page hides
    # White's lines, as the server's snapshots do from now on.
    black.click("#mute")
    wait_until("black muted white", lambda: black.text("#mute") == "Unmute opponent")
    wait_until("white's lines hidden", lambda: chat_lines(black) == said[2:])
    say(white, "can you hear me?")
    wait_until("white shows its own line", lambda: chat_lines(white)[-1:] == [["players", "white", "White", "can you hear me?"]])
    quiet("the muted player", (black,))
    # Reloaded, Black's page still says so, and the server sends none of White's lines.
    black.refresh()
    wait_until("black back", lambda: black.text("#you") == "You play black" and black.connection() == "online")
    wait_until("black's chat back", lambda: chat_lines(black) == said[2:])
    assert black.text("#mute") == "Unmute opponent"
    black.click("#mute")
    wait_until("black unmuted white", lambda: black.text("#mute") == "Mute opponent")

    # After the game the players hear the spectators: a new line live, labelled as a
    # spectator's, and the earlier ones when they come back.
    white.click("#resign")
    white.click("#resign")
    for b in (white, black, watcher):
        wait_until(f"{b.name} sees the result", lambda: b.text("#banner") == "Black wins (resignation)")
    wait_until("white's note", lambda: "spectators" in white.text("#chat-note"))
    say(watcher, "well played")
    for b in (white, black):
        wait_until(f"{b.name} hears the spectator", lambda: chat_lines(b)[-1:] == [["spectators", "", "spectator", "well played"]])
    white.refresh()
    wait_until("white back", lambda: white.text("#you") == "You play white" and white.connection() == "online")
    spoken = [line[3] for line in wait_until("white's chat back", lambda: chat_lines(white))]
    assert spoken == [HOSTILE_CHAT, "good luck, have fun", "thanks, you too", "who will win?", "can you hear me?", "well played"], spoken
    # The spectators still never see the players' lines.
    assert [line[0] for line in chat_lines(watcher)] == ["spectators", "spectators"], chat_lines(watcher)
    white.js("document.getElementById('chat').scrollIntoView({block: 'center'});")
    white.screenshot("chat-over.png")
    for b in (white, black, watcher):
        not_pwned(b)


def sign_up(b, base, username, password, shot=None):
    """Registers `username` from the lobby's dialog; the page shows who is signed in.
    `shot`: a file for a screenshot of the filled-in dialog."""
    b.go(base + "/")
    b.click("#sign-up")
    b.type("#account-form input[name=username]", username)
    b.type("#account-form input[name=password]", password)
    if shot:
        b.screenshot(shot)
    b.click("#account-submit")
    wait_until(f"{b.name} signed in as {username}", lambda: b.text("#me") == username)


def rated_game(base, white, black, third):
    # Anna signs up and creates a rated room; the computer plays no rated games.
    sign_up(white, base, "anna", "correct horse battery", "sign-up.png")
    assert white.js("return document.getElementById('rated-field').offsetParent !== null;")
    assert white.js("return document.getElementById('name-field').hidden;")
    assert white.js("return document.getElementById('me').getAttribute('href');") == "/player/anna"
    white.js("const s = document.querySelector('select[name=computer]'); s.value = '2'; s.dispatchEvent(new Event('change'));")
    assert white.js("return document.getElementById('rated').disabled;")
    white.js("const s = document.querySelector('select[name=computer]'); s.value = ''; s.dispatchEvent(new Event('change'));")
    white.js("document.querySelector('select[name=color]').value = 'white';")
    white.click("#rated")
    white.click("#create-room")
    wait_until("anna in the room", lambda: white.text("#you") == "You play white")
    room = white.js("return location.pathname.split('/')[2];")
    assert white.js("return !document.getElementById('rated').hidden;")
    assert white.text("#player-white .who") == "anna"
    assert white.js("return document.querySelector('#player-white .who a').getAttribute('href');") == "/player/anna"

    # Bert signs up in his own browser and takes the seat from the lobby.
    sign_up(black, base, "bert", "another good password")
    row = f'tr[data-room="{room}"]'
    black.find(f"{row} .rated-mark")
    assert black.text(f'{row} .seat[data-color="white"] a.name') == "anna"
    black.screenshot("lobby-rated.png")
    black.click(f"{row} button.join")
    wait_until("bert in the room", lambda: black.text("#you") == "You play black")
    wait_until("anna sees bert", lambda: white.text("#player-black .who") == "bert")
    assert black.text("#player-white .who") == "anna"

    game = Game(base, white, black, [])
    game.room = room
    game.typed(WHITE_CONNECTS[0])
    game.typed(WHITE_CONNECTS[1])

    # Anna signs in in a third browser, which has no seat token: the page takes her seat
    # back by her account, and her first window is told another one took over.
    third.go(base + "/")
    assert third.js("return localStorage.getItem(arguments[0]);", f"punct-seat:{room}") is None
    # A username that differs only in case is taken: the dialog says so in the server's words.
    third.click("#sign-up")
    third.type("#account-form input[name=username]", "Anna")
    third.type("#account-form input[name=password]", "whatever it is")
    third.click("#account-submit")
    third.find("#account-error:not([hidden])")
    assert "exists already" in third.text("#account-error"), third.text("#account-error")
    third.click("#account-form button[type=button]")
    third.click("#sign-in")
    third.type("#account-form input[name=username]", "anna")
    third.type("#account-form input[name=password]", "correct horse battery")
    third.click("#account-submit")
    wait_until("signed in there", lambda: third.text("#me") == "anna")
    # The lobby knows the account holds a seat there.
    third.click(f"{row} a.play")
    wait_until("anna back in her seat", lambda: third.text("#you") == "You play white")
    wait_until("the first window let go", lambda: white.connection() == "closed")
    game = Game(base, third, black, [])
    game.room = room
    game.played = WHITE_CONNECTS[:2]
    game.typed(WHITE_CONNECTS[2])
    game.typed(WHITE_CONNECTS[3])

    # Anna resigns; both players see the result and how their ratings changed.
    game.wait_my_turn()
    third.click("#resign")
    third.click("#resign")
    ratings = {}
    for b in (third, black):
        wait_until(f"{b.name} sees the result", lambda: b.text("#banner") == "Black wins (resignation)")
        wait_until(f"{b.name} sees the ratings", lambda: b.js("return !document.getElementById('ratings').hidden;"))
        ratings[b.name] = [b.text(f'#ratings .change[data-color="{c}"]') for c in ("white", "black")]
    assert ratings["watcher"] == ratings["black"], ratings
    anna = http("GET", f"{base}/api/players/anna")["ratings"][0]["rating"]
    bert = http("GET", f"{base}/api/players/bert")["ratings"][0]["rating"]
    lost, won = 1500 - round(anna["rating"]), round(bert["rating"]) - 1500
    assert lost > 0 and won > 0, (anna, bert)
    assert ratings["black"] == [f"anna 1500? → {round(anna['rating'])}? (−{lost})", f"bert 1500? → {round(bert['rating'])}? (+{won})"], ratings
    third.js("window.scrollTo(0, 0);")
    third.screenshot("rated-over.png")
    # Anna's first window, reloaded, joins with its token and shows the ratings too.
    white.refresh()
    wait_until("anna's first window back", lambda: white.text("#you") == "You play white")
    wait_until("it shows the ratings", lambda: white.text('#ratings .change[data-color="white"]') == ratings["black"][0])
    for b in (white, black, third):
        not_pwned(b)


def correspondence(base, anna, bert):
    # Anna (signed in, on a phone) offers a game of three days a move from the lobby.
    anna.go(base + "/")
    anna.find("#create")
    anna.js("document.querySelector('select[name=clock]').value = '3d';"
            "document.querySelector('select[name=color]').value = 'white';")
    anna.click("#create-room")
    wait_until("anna in the correspondence room", lambda: anna.text("#you") == "You play white")
    room = anna.js("return location.pathname.split('/')[2];")
    # The lobby lists it among the correspondence games, with its days, not the others.
    bert.go(base + "/")
    row = f'#correspondence tr[data-room="{room}"]'
    bert.find(row)
    assert bert.text(f"{row} td.clock") == "3 days a move", bert.text(f"{row} td.clock")
    assert bert.js("return document.querySelector(arguments[0]) === null;", f'#rooms tr[data-room="{room}"]')
    bert.screenshot("lobby-correspondence.png")
    bert.click(f"{row} button.join")
    wait_until("bert in the room", lambda: bert.text("#you") == "You play black")
    game = Game(base, anna, bert, [])
    game.room = room
    game.typed(WHITE_CONNECTS[0])
    wait_until("bert's clock in days", lambda: bert.text("#player-black .clock") == "2 d 23 h")

    # Bert's games: this one waits for his move, with three days less a moment.
    bert.go(base + "/mine")
    mine = f'#mine tr[data-room="{room}"]'
    bert.find(mine)
    assert bert.text(f"{mine} td.state") == "your move"
    assert bert.text(f"{mine} td.left") == "2 d 23 h", bert.text(f"{mine} td.left")
    assert bert.js("return document.title;") == "(1) your move — PÜNCT"
    # He asks for mail about each move; the setting is kept.
    bert.find("#mail-panel:not([hidden])")
    bert.type("#email", "bert@example.org")
    bert.js("document.getElementById('mode').value = 'each';")
    bert.click("#mail button[type=submit]")
    wait_until("mail settings saved", lambda: bert.text("#mail-status") == "Saved.")
    bert.screenshot("my-games.png")
    bert.refresh()
    wait_until("mail settings kept", lambda: bert.js("return document.getElementById('email').value;") == "bert@example.org")
    assert bert.js("return document.getElementById('mode').value;") == "each"


def player_pages(base, white, black):
    # Bert's name in the lobby header leads to his page: his win, his rating and its chart.
    black.go(base + "/")
    black.click("#me")
    wait_until("bert's page", lambda: black.js("return document.body.dataset.loaded;") == "true")
    assert black.js("return location.pathname;") == "/player/bert"
    assert black.text("#username") == "bert"
    assert black.text("#wins b") == "1" and black.text("#losses b") == "0" and black.text("#draws b") == "0"
    bert = http("GET", f"{base}/api/players/bert")
    assert black.text('.rating[data-variant="standard"] .value') == f"{round(bert['ratings'][0]['rating']['rating'])}?"
    # The starting rating and one rated game, the game's point linking to it.
    assert black.js("return document.querySelectorAll('.rating svg.chart circle').length;") == 2
    room = bert["recent"][0]["room"]
    assert black.js("return document.querySelector('.rating svg.chart a').getAttribute('href');") == f"/room/{room}"
    assert black.text(f'#recent tr[data-room="{room}"] td.result') == "Won (resignation)"
    assert black.js("return document.getElementById('all-games').getAttribute('href');") == "/games?player=bert"
    black.screenshot("player.png")

    # All his games: the archive filtered by player.
    black.click("#all-games")
    wait_until("bert's games", lambda: black.js("return document.body.dataset.loaded;") == "true")
    assert black.js("return document.querySelectorAll('#games tbody tr').length;") == 1
    black.find(f'#games tr[data-room="{room}"]')
    black.screenshot("games.png")

    # A page for nobody says so.
    white.go(base + "/player/nobody")
    wait_until("no such player", lambda: white.text("#profile-error") == "No player is called nobody.")

    # The leaderboard lists established ratings only: after one game both are provisional.
    white.go(base + "/leaderboard")
    wait_until("leaderboard", lambda: white.js("return document.body.dataset.loaded;") == "true")
    assert white.js("return !document.getElementById('no-leaders').hidden;")
    assert white.text("#no-leaders").startswith("No player has an established rating in this variant yet.")
    assert white.js("return document.querySelector('#variants a.current').dataset.variant;") == "standard"
    white.screenshot("leaderboard.png")
    white.click('#variants a[data-variant="basic"]')
    wait_until("basic leaderboard", lambda: white.js("return document.body.dataset.loaded === 'true' && document.querySelector('#variants a.current').dataset.variant;") == "basic")

    # Signing out: the lobby offers to sign in again, and the session is gone.
    black.go(base + "/")
    black.click("#sign-out")
    black.find("#sign-in")
    assert black.js("return document.getElementById('rated-field').hidden;")


if __name__ == "__main__":
    main()
