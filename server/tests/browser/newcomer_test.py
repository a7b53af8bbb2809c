#!/usr/bin/env python3
"""Browser tests of what a new player met on the web pages: the rules page, the marks on
the board (last turn, winning chain, sides), choosing an orientation and confirming a
turn, takebacks, presence when leaving the page, the alert of one's move, the clocks,
notices, invitations, the phone's layout, the keyboard and the archive.

Run by `.ci/browser-tests` after `web_test.py`; the shared parts are in `harness.py`.

Usage: newcomer_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import json
import os
import re
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.keys import Keys

from harness import Game, WHITE_CONNECTS, color, http, position, run, wait_until

COLS = "ABCDEFGHIJKLMNOPQ"


def side(c, r, dc, dr):
    return [f"{COLS[c - 1 + i * dc]}{r + i * dr}" for i in range(7)]


# RULES.md section 1: the three pairs of opposite sides.
SIDES = [
    [side(1, 2, 0, 1), side(17, 10, 0, 1)],
    [side(2, 1, 1, 0), side(10, 17, 1, 0)],
    [side(10, 2, 1, 1), side(2, 10, 1, 1)],
]

# RULES.md section 1: the central hexagon.
CENTRE = {"G7", "G8", "G9", "H7", "H8", "H9", "H10", "I7", "I8", "I9", "I10", "I11", "J8", "J9", "J10", "J11", "K9", "K10", "K11"}

# A standard game that ends when White drops its 18th piece, unconnected, and White wins
# the count of the centre: the rules page's picture of that count.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web", "lessons.json")) as lessons:
    CENTRE_WIN = json.load(lessons)["pictures"]["count"]["turns"]


def seat_two(server, white, black, **request):
    """A room made over the API: White's browser keeps its token, Black takes the free
    seat from the page."""
    granted = server.create_room(color="white", **request)
    room = granted["room"]
    white.go(server.base + "/")
    white.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", granted["token"])
    white.go(f"{server.base}/room/{room}")
    wait_until("white seated", lambda: white.text("#you") == "You play white")
    black.go(f"{server.base}/room/{room}")
    black.click("#seat-offer:not([hidden]) #take-seat")
    wait_until("black seated", lambda: black.text("#you") == "You play black")
    game = Game(server.base, white, black, [])
    game.room = room
    return game


def cells(b, kind):
    """The cells of the board drawn with class `kind`, sorted."""
    return b.js("return [...document.querySelectorAll(`#board polygon.${arguments[0]}`)].map(p => p.dataset.cell).sort();", kind)


def presence(b, seat):
    return b.text(f"#player-{seat} .presence")


def page_top(b, css):
    """Where the element's top is on the page, however it is scrolled."""
    return b.js("return document.querySelector(arguments[0]).getBoundingClientRect().top + window.scrollY;", css)


def overlapping_labels(b):
    """The pairs of board labels whose boxes meet."""
    return b.js(
        "const boxes = [...document.querySelectorAll('#board .labels text')].map(t => [t.textContent, t.getBoundingClientRect()]);"
        "const out = [];"
        "for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {"
        "  const [p, a] = boxes[i], [q, b] = boxes[j];"
        "  if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(p + '/' + q);"
        "}"
        "return out;"
    )


def last_turn_flip_and_labels(server, white, black):
    """Point 2 (the last turn marked) and 10 (labels, flipping, turn numbers)."""
    game = seat_two(server, white, black)
    game.typed("C10:D9,D10")
    for b in (white, black):
        wait_until(f"{b.name} marks the drop", lambda: cells(b, "last-to") == ["C10", "D10", "D9"])
        assert cells(b, "last-from") == []
    game.typed("N15:M14,N14")
    game.typed("C10-C3:B1,C2")
    for b in (white, black):
        wait_until(f"{b.name} marks the move", lambda: (cells(b, "last-from"), cells(b, "last-to")) == (["C10"], ["B1", "C2", "C3"]))
        b.find("#board .last-path")
    # Black sees the board from its side; either player may flip it.
    assert black.board()["flipped"] == "true" and white.board()["flipped"] == "false"

    def above(b, upper, lower):
        return b.rect(f'polygon[data-cell="{upper}"]')["top"] < b.rect(f'polygon[data-cell="{lower}"]')["top"]

    assert above(white, "I16", "I2") and above(black, "I2", "I16")
    for b in (white, black):
        assert not overlapping_labels(b), f"{b.name}: labels overlap: {overlapping_labels(b)}"
    white.screenshot("last-turn.png")
    black.screenshot("last-turn-flipped.png")
    white.click("#flip")
    wait_until("white flipped", lambda: white.board()["flipped"] == "true")
    assert not overlapping_labels(white)
    white.click("#flip")
    wait_until("white unflipped", lambda: white.board()["flipped"] == "false")
    # Turns are numbered by moves, White's and Black's side by side, each with its side.
    moves = white.js("return [...document.querySelectorAll('#turns li')].map(li => [...li.querySelectorAll('.turn')].map(t => t.getAttribute('aria-label')));")
    assert moves == [["1. White: C10:D9,D10", "1. Black: N15:M14,N14"], ["2. White: C10-C3:B1,C2"]], moves
    assert white.js("return [...document.querySelectorAll('#turns .side-mark')].map(m => m.textContent).join('');") == "○●○"
    assert white.text("#turn-status") == "Black to move, move 2", white.text("#turn-status")
    return game


def takeback(game):
    """Point 3: takebacks asked, declined, accepted; one turn or two."""
    white, black = game.white, game.black
    game.typed("K8:L7,L8")
    black.click("#takeback")
    white.find("#takeback-answer:not([hidden])")
    white.screenshot("takeback-asked.png")
    white.click("#decline-takeback")
    wait_until("black told", lambda: "declined the takeback" in (black.text("#message") or ""))
    wait_until("black may ask again", lambda: black.js("return !document.getElementById('takeback').disabled;"))
    black.click("#takeback")
    white.click("#takeback-answer:not([hidden]) #accept-takeback")
    game.played.pop()
    game.wait_turns(3)
    wait_until("black to move again", lambda: black.board()["myTurn"] == "true")
    assert white.find("#takeback-answer").get_attribute("hidden") is not None
    # White, to move after Black's reply, takes back its own turn and the reply.
    game.typed("K8:L7,L8")
    white.click("#takeback")
    black.click("#takeback-answer:not([hidden]) #accept-takeback")
    game.played = game.played[:2]
    game.wait_turns(2)
    wait_until("white to move again", lambda: white.board()["myTurn"] == "true")
    for b in (white, black):
        wait_until(f"{b.name} marks the turn before", lambda: cells(b, "last-to") == ["M14", "N14", "N15"])
    assert http("GET", f"{game.base}/api/rooms/{game.room}/record")["turns"] == ["C10:D9,D10", "N15:M14,N14"]


def orientation(server, desktop, phone):
    """Point 3: the destination clicked again turns the piece, a minor cell picks the
    orientation, and only Play sends the turn; on a desktop and on a phone."""
    game = seat_two(server, desktop, phone)
    for b in (desktop, phone):
        b = game.wait_my_turn()
        mine = color(len(game.played))
        b.click(f'#reserve-{mine} button[data-kind="triangle"]')
        # A cell in the open, with room for the piece in every orientation.
        targets = cells(b, "target")
        cell = targets[len(targets) // 2]
        b.click(f'polygon[data-cell="{cell}"]')
        first = wait_until("a piece shown", lambda: b.board()["ghost"])
        b.click(f'polygon[data-cell="{cell}"]')
        turned = b.board()["ghost"]
        assert turned and turned != first, (first, turned)
        assert b.board()["turns"] == str(len(game.played)) and b.board()["pending"] == "false"
        minors = cells(b, "minor")
        choice = next(m for m in minors if m not in turned.split(":")[1].split(","))
        b.click(f'polygon.minor[data-cell="{choice}"]')
        chosen = b.board()["ghost"]
        assert choice in chosen.split(":")[1].split(","), (choice, chosen)
        b.screenshot(f"orientation-{'phone' if b.phone else 'desktop'}.png")
        b.click("#place")
        game.done(chosen)
    return game


def winning_chain(server, white, black):
    """Point 4 (the chain and its sides) and 10 (the result does not move the board)."""
    game = seat_two(server, white, black)
    top = page_top(white, "#board")
    for turn in WHITE_CONNECTS:
        game.typed(turn)
    board = {s["cell"]: s["dots"][0]["color"] for s in position(game.base, game.room, len(WHITE_CONNECTS))["board"]}
    for b in (white, black):
        wait_until(f"{b.name} sees the result", lambda: b.text("#banner") == "White wins (connection)")
        chain = wait_until(f"{b.name} shows the chain", lambda: cells(b, "chain"))
        assert all(board.get(cell) == "white" for cell in chain), chain
        won = b.js("return [...document.querySelectorAll('#board .side.won')].map(s => Number(s.dataset.pair));")
        assert len(won) == 2 and won[0] == won[1], won
        first, second = SIDES[won[0]]
        assert set(chain) & set(first) and set(chain) & set(second), chain
        b.find("#board .chain-line")
    assert page_top(white, "#board") == top, "the result moved the board"
    # On a laptop's 1280x800 the Rematch button is in view without scrolling.
    white.cdp("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    try:
        white.js("window.scrollTo(0, 0);")
        rematch = wait_until("the rematch offered", lambda: white.visible("#rematch") and white.rect("#rematch"))
        assert rematch["top"] >= 0 and rematch["bottom"] <= 800 and rematch["right"] <= 1280, rematch
        white.screenshot("rematch-in-view.png")
    finally:
        white.cdp("Emulation.clearDeviceMetricsOverride")
    white.screenshot("winning-chain.png")
    return game


def centre_count(server, white, black):
    """A standard game ended by White's 18th drop: the result says the count of the centre."""
    game = seat_two(server, white, black)
    for turn in CENTRE_WIN:
        game.typed(turn)
    board = position(game.base, game.room, len(CENTRE_WIN))["board"]
    tops = [s["dots"][0]["color"] for s in board if s["cell"] in CENTRE]
    won, lost = tops.count("white"), tops.count("black")
    assert won > lost, tops
    for b in (white, black):
        wait_until(f"{b.name} sees the count", lambda: b.text("#banner") == f"White wins the centre count, {won} to {lost}")
    white.screenshot("centre-count.png")


def away_when_gone(game):
    """Point 5: a page left for the back/forward cache lets its socket go."""
    white, black = game.white, game.black
    wait_until("black online", lambda: presence(white, "black") == "online")
    black.js("window.dispatchEvent(new PageTransitionEvent('pagehide', {persisted: true}));")
    wait_until("black away", lambda: presence(white, "black") == "away")
    black.js("window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}));")
    wait_until("black back", lambda: presence(white, "black") == "online" and black.connection() == "online")
    # For real: Black goes to the lobby and comes back with the browser's back button.
    black.go(game.base + "/")
    wait_until("black away for real", lambda: presence(white, "black") == "away")
    black.back()
    wait_until("black back for real", lambda: black.text("#you") == "You play black" and black.connection() == "online")
    wait_until("white sees black back", lambda: presence(white, "black") == "online")


def your_move_alert(game):
    """Point 6: the tab's title and a tone tell a player in another tab it is their move."""
    white, black = game.white, game.black
    title = black.js("return document.title;")
    black.click("#sound")
    black.set_hidden(True)
    beeps = black.js("return window.testBeeps;")
    game.typed("B2:B1,B3")
    wait_until("black's title", lambda: black.js("return document.title;") == f"Your move — {title}")
    assert black.js("return window.testBeeps;") > beeps
    black.set_hidden(False)
    wait_until("title back", lambda: black.js("return document.title;") == title)
    # White's tab, shown all along, was never retitled.
    assert white.js("return document.title;") == title


def flag(server, white, black):
    """Point 10: a clock that ran out shows 0:00."""
    game = seat_two(server, white, black, clock={"base": 1, "increment": 0})
    game.typed(WHITE_CONNECTS[0])
    for b in (white, black):
        wait_until(f"{b.name} sees the flag", lambda: b.text("#banner") == "White wins (time)")
        time.sleep(0.3)
        assert b.text("#player-black .clock") == "0:00", b.text("#player-black .clock")
    black.screenshot("flag-phone.png" if black.phone else "flag.png")


def notices(server, white, phone):
    """Point 10 (stale notices go) and 7 (a draw offer is in view on a phone)."""
    game = seat_two(server, white, phone)
    game.typed(WHITE_CONNECTS[0])
    white.click("#offer-draw")
    phone.js("window.scrollTo(0, 0);")
    answer = phone.find("#draw-answer:not([hidden])")
    box = phone.rect("#draw-answer")
    height = phone.js("return window.innerHeight;")
    assert 0 <= box["top"] and box["bottom"] <= height, (box, height)
    phone.screenshot("draw-offer-phone.png")
    answer.find_element("css selector", "#decline-draw").click()
    wait_until("white told", lambda: white.text("#message") == "Black declined the draw")
    game.typed(WHITE_CONNECTS[1])
    wait_until("the notice gone with the turn", lambda: white.text("#message") == "")
    # The server restarts: its goodbye is shown, and goes once the page is back.
    before = len(white.received())
    server.restart()
    for b in (white, phone):
        wait_until(f"{b.name} back", lambda: b.connection() == "online")
    assert "bye" in white.received()[before:]
    wait_until("no stale goodbye", lambda: white.text("#message") == "")


def lobby_and_invite(server, creator, phone):
    """Points 8 (inviting, the time control, own seat, cancelling) and 7 (the lobby on a
    phone)."""
    base = server.base
    for name in ("Alexandrina the Great", "Bartholomew", "Cy"):
        http("POST", base + "/api/rooms", {"name": name, "clock": {"base": 900, "increment": 10}})
    creator.go(base + "/")
    creator.js("document.querySelector('select[name=color]').value = 'white';"
               "document.querySelector('select[name=clock]').value = '300+3';")
    creator.click("#create-room")
    wait_until("in the room", lambda: creator.text("#you") == "You play white")
    room = creator.room()
    creator.find("#invite:not([hidden])")
    assert creator.js("return document.getElementById('invite-link').value;") == f"{base}/room/{room}"
    assert creator.text("#time-control") == "5 min + 3 s"
    creator.click("#copy-link")
    wait_until("copied", lambda: creator.text("#copy-link") in ("Copied", "Press Ctrl+C"))
    creator.screenshot("invite.png")
    # The lobby: the time control, and the creator's way back to the seat.
    phone.go(base + "/")
    row = f'tr[data-room="{room}"]'
    phone.find(f"{row} button.join")
    assert phone.text(f"{row} td.clock") == "5 min + 3 s"
    assert not phone.wide(), phone.wide()
    assert phone.js("return document.documentElement.scrollWidth <= document.documentElement.clientWidth;")
    phone.screenshot("lobby-phone.png")
    creator.go(base + "/")
    assert creator.find(f"{row} a.play").text == "Your seat"
    creator.click(f"{row} a.play")
    wait_until("back in the seat", lambda: creator.text("#you") == "You play white")
    # Nobody came: the creator cancels the room, which is gone.
    creator.click("#cancel-room")
    creator.click("#cancel-room")
    wait_until("back in the lobby", lambda: creator.js("return location.pathname;") == "/")
    try:
        http("GET", f"{base}/api/rooms/{room}")
        raise AssertionError("the cancelled room is still there")
    except urllib.error.HTTPError as e:
        assert e.code == 404
    # Its link now says so.
    phone.go(f"{base}/room/{room}")
    phone.find("#no-room:not([hidden])")
    assert phone.text("#no-room h2") == "No such room"
    assert not phone.visible("main")
    phone.screenshot("no-such-room-phone.png")


def phone_board(server, white, phone):
    """Point 7: zoomed, a phone's cells are 40 px across, and the page stays put."""
    game = seat_two(server, white, phone)
    small = phone.rect('polygon[data-cell="I9"]')
    phone.click("#zoom")
    big = phone.rect('polygon[data-cell="I9"]')
    assert big["width"] >= 40 and big["height"] >= 40, (small, big)
    assert phone.js("return document.documentElement.scrollWidth <= document.documentElement.clientWidth;")
    phone.screenshot("zoomed-phone.png")
    phone.click("#zoom")
    return game


def keyboard(game):
    """Point 11: the board from the keyboard, and what a screen reader is told."""
    white = game.white
    labels = white.js("return [...document.querySelectorAll('#reserve-white button.kind')].map(b => b.getAttribute('aria-label'));")
    assert labels[-1] == "White's triangle: 6 left", labels
    assert all(label.startswith("White's ") for label in labels)
    assert white.js("return document.querySelector('#board polygon[data-cell=\"I9\"]').getAttribute('role');") == "button"

    def active():
        return white.js("return document.activeElement.dataset.cell || document.activeElement.id;")

    start = white.js("return document.querySelector('#board polygon[tabindex=\"0\"]').dataset.cell;")
    white.press(f'#board polygon[data-cell="{start}"]', Keys.ARROW_UP)
    up = f"{start[0]}{int(start[1:]) + 1}"
    wait_until("the cursor moved up", lambda: active() == up)
    # Pick a kind, a destination and an orientation with keys, then play.
    white.press('#reserve-white button[data-kind="triangle"]', Keys.ENTER)
    target = white.find("polygon.target").get_attribute("data-cell")
    white.press(f'polygon[data-cell="{target}"]', Keys.ENTER)
    first = wait_until("a piece shown", lambda: white.board()["ghost"])
    white.press(f'polygon[data-cell="{target}"]', Keys.SPACE)
    wait_until("turned by key", lambda: white.board()["ghost"] != first)
    turn = white.board()["ghost"]
    white.press("#place", Keys.ENTER)
    game.done(turn)


def how_to_play(server, desktop, phone):
    """Point 1: the rules, illustrated by the board's own drawing, linked from the pages."""
    desktop.go(server.base + "/")
    desktop.click("#rules-link")
    wait_until("the rules page", lambda: desktop.js("return location.pathname;") == "/how-to-play")
    boards = wait_until("its boards", lambda: desktop.js("return document.querySelectorAll('svg.lesson-board polygon.cell').length;"))
    assert boards == 211 * 8, boards
    text = desktop.text("main")
    for said in (
        "drops their own 18th piece",
        "only White's very first drop must keep out of it",
        "must end up placed differently",
        "back on the ground",
        "When neither player can move, the game ends",
    ):
        assert said in text, said
    assert "last of the 36 pieces" not in text
    counts = desktop.js("return [...document.querySelectorAll('#kind-list li')].map(li => li.textContent.trim());")
    assert [c.split(" ")[0] for c in counts] == ["2", "4", "2", "2", "2", "6"], counts
    # Every picture but the whole board's is cropped to what it shows.
    cropped = desktop.js("return [...document.querySelectorAll('svg.lesson-board')].map(s => [s.dataset.board, s.classList.contains('cropped')]);")
    assert all(crop == (name != "sides") for name, crop in cropped), cropped
    counted = desktop.text('[data-result="count"]')
    assert re.fullmatch(r"White wins the centre count, (\d+) to (\d+)\.", counted), counted
    assert desktop.js("return document.querySelectorAll('svg.lesson-board .side').length;") == 6 * 8
    assert desktop.js("return document.querySelectorAll('[data-board=goal] .side.won').length;") == 2
    assert desktop.js("return document.querySelectorAll('[data-board=goal] polygon.chain').length;") >= 7
    assert desktop.js("return document.querySelectorAll('[data-board=move] polygon.target').length;") > 20
    assert desktop.js("return document.querySelectorAll('#kind-list li').length;") == 6
    for section in ("goal", "board-sides", "drops", "moves", "jumps", "bridges", "end"):
        desktop.find(f"section#{section} h2")
    desktop.screenshot("how-to-play.png")
    phone.go(server.base + "/how-to-play")
    phone.find("svg.lesson-board polygon")
    assert not phone.wide(), phone.wide()
    # On a phone a cropped picture's dots are big enough to tell apart.
    sizes = wait_until("the pictures drawn", lambda: phone.js(
        "return [...document.querySelectorAll('svg.lesson-board.cropped')].map(s => [s.dataset.board, s.querySelector('circle.dot').getBoundingClientRect().width]);"))
    assert len(sizes) == 7 and all(size >= 30 for _, size in sizes), sizes
    phone.screenshot("how-to-play-phone.png")


def archive(server, b, room):
    """Point 9: a finished game from the archive, replayed turn by turn, its record."""
    b.go(server.base + "/games")
    row = f'#games tr[data-room="{room}"]'
    link = b.find(f"{row} a.record")
    href = link.get_attribute("href")
    # The link downloads under the name the server gives the record.
    assert link.get_attribute("download") == "", link.get_attribute("download")
    with urllib.request.urlopen(href, timeout=10) as response:
        text = response.read().decode()
        named = response.headers["Content-Disposition"]
    assert re.fullmatch(r'attachment; filename="punct-white-black-\d{4}-\d\d-\d\d\.txt"', named), named
    assert text.splitlines()[-len(WHITE_CONNECTS):] == WHITE_CONNECTS, text
    b.click(f"{row} a.replay")
    wait_until("the game", lambda: b.text("#banner") == "White wins (connection)")
    assert b.find("#rules-link").get_attribute("href").endswith("/how-to-play")
    b.click('#turns [data-n="1"]')
    wait_until("turn 1", lambda: b.board()["shown"] == "1")
    assert cells(b, "last-to") == ["B1", "B2", "B3"]
    b.click("#forward")
    wait_until("turn 2", lambda: b.board()["shown"] == "2")
    assert b.text("#viewing b") == "1. Black"
    assert b.find("#record-link").get_attribute("href").endswith(f"/api/rooms/{room}/record.txt")
    assert b.find("#record-link").get_attribute("download") == ""
    b.screenshot("archive-replay.png")


def main():
    run("newcomer", scenario)


def scenario(server, browser):
    white = browser("white")
    black = browser("black")
    phone = browser("phone", phone=True)
    game = last_turn_flip_and_labels(server, white, black)
    takeback(game)
    away_when_gone(game)
    your_move_alert(game)
    orientation(server, white, phone)
    keyboard(seat_two(server, white, black))
    finished = winning_chain(server, white, black)
    centre_count(server, white, black)
    flag(server, white, black)
    flag(server, white, phone)
    notices(server, white, phone)
    phone_board(server, white, phone)
    lobby_and_invite(server, white, phone)
    how_to_play(server, white, phone)
    archive(server, black, finished.room)


if __name__ == "__main__":
    main()
