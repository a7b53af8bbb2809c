#!/usr/bin/env python3
"""Browser tests of the web client's people: names that would be markup, a room's chat,
accounts and a rated game, a correspondence game and its mail settings, player pages and
the leaderboard, in headless Chromium driven by Selenium (the shared parts are in
`harness.py`). The games themselves are web_test.py's.

Run by `.ci/browser-tests`, which installs Chromium and Selenium and builds the server
first.

Usage: people_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import time

from harness import Game, WHITE_CONNECTS, http, run, wait_until


def main():
    run("people", scenario)


def scenario(server, browser):
    base = server.base
    white = browser("white")
    black = browser("black")
    # The spectator is on a phone: the page must work there too.
    watcher = browser("watcher", phone=True)
    hostile_names(base, white, black, watcher)
    room_chat(base, white, black, watcher)
    rated_game(base, white, black, watcher)
    correspondence(base, watcher, black)
    player_pages(base, white, black)


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
