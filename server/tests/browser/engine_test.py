#!/usr/bin/env python3
"""Browser tests of the rules engine in the page (engine.js, the server's rules compiled
to WebAssembly): the game page declines the server's lists of legal turns and still
plays, a typed turn is explained when it is refused and completed while it is typed, and
the analysis board plays variations, shares them by link and imports and exports
records. On a desktop and on a phone.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: engine_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from harness import record, run, seated_game, wait_until


def main():
    run("engine", scenario)


def scenario(server, browser):
    white = browser("white")
    phone = browser("phone", phone=True)
    room = the_game_page_uses_the_engine(server, white, phone)
    the_analysis_board(server, white, room, "analysis-desktop.png")
    the_analysis_board(server, phone, room, "analysis-phone.png")


def the_game_page_uses_the_engine(server, white, black):
    # The module is served, compressed, from a path that changes with each release.
    page = urllib.request.urlopen(server.base + "/").read().decode()
    assert '"/assets/' in page
    game = seated_game(server, white, black)
    room = game.room
    line = record("midgame-standard.txt")

    # Playing with the mouse and by typing works on the engine's own list.
    game.clicked(line[0])
    game.typed(line[1])
    for b in (white, black):
        received = b.received()
        assert "snapshot" in received and "your_turn" not in received, received
        assert b.js("return window.testSockets.length") >= 1

    # A typed turn the rules refuse says why, in the rules' words, and is not sent.
    game.wait_my_turn()
    white.type("#notation", "I9:I10,J10\n")
    wait_until(
        "the reason",
        lambda: "central hexagon at I9" in (white.text("#message") or ""),
    )
    assert white.board()["turns"] == "2" and white.board()["pending"] == "false"
    white.type("#notation", line[0] + "\n")
    wait_until("the reason", lambda: "not a legal turn here:" in (white.text("#message") or ""))
    white.screenshot("engine-why-not.png")

    # Typing the start of a turn offers the legal turns that start so.
    white.type("#notation", line[2][:3])
    wait_until("completions", lambda: white.js("return document.querySelectorAll('#notation-completions option').length") > 0)
    offered = white.js("return [...document.querySelectorAll('#notation-completions option')].map(o => o.value);")
    assert all(t.startswith(line[2][:3].upper()) for t in offered), offered
    assert "start" in white.text("#message"), white.text("#message")
    white.type("#notation", line[2].lower())
    wait_until("legal", lambda: "is legal" in (white.text("#message") or ""))
    white.type("#notation", "")
    game.typed(line[2])
    # The engine's positions and the server's agree.
    drawn = white.js("return [...document.querySelectorAll('#board polygon')].length")
    assert drawn > 200
    return room


def the_analysis_board(server, b, room, shot):
    base = server.base
    line = record("midgame-standard.txt")[:3]
    b.go(f"{base}/analysis?room={room}&after=2")
    wait_until("the analysis board", lambda: b.js("return document.body.dataset.loaded") == "true")
    wait_until("two turns shown", lambda: "after 2 turns" in (b.text("#status") or ""))
    assert b.js("return location.hash") == "#standard/" + "/".join(line) + "@2"

    # A variation from turn 2: clicking a cell lists the turns there, one is played.
    target = line[2].split(":")[0].split("-")[-1]
    source = line[2].split("-")[0] if "-" in line[2] else target
    b.click(f'polygon[data-cell="{source}"]')
    wait_until("turns listed", lambda: b.js("return document.querySelectorAll('#choice-list button').length") > 0)
    choices = b.js("return [...document.querySelectorAll('#choice-list button')].map(e => e.textContent);")
    other = next(t for t in choices if t != line[2])
    b.js("[...document.querySelectorAll('#choice-list button')].find(e => e.textContent === arguments[0]).click();", other)
    wait_until("the variation", lambda: b.visible("#variation"))
    assert b.js("return location.hash").endswith(f"/{other}@3")
    b.screenshot(shot)

    # An illegal typed turn says why; a legal one is played.
    b.type("#notation", "I9:I10,J10\n")
    wait_until("why", lambda: "central hexagon" in (b.text("#message") or ""))
    b.click("#game-line")
    wait_until("the game's line", lambda: not b.visible("#variation"))
    assert b.js("return location.hash") == "#standard/" + "/".join(line) + "@2"

    # The link shares the position: a fresh page on it shows the same line and turn.
    link = b.js("return location.href")
    b.go(base + "/")
    b.go(link)
    wait_until("the shared position", lambda: "after 2 turns" in (b.text("#status") or ""))
    assert len(b.js("return [...document.querySelectorAll('#turns .turn')]")) == 3

    # Export: the record as the server writes it; import: a pasted record.
    exported = b.js(
        "return fetch(document.getElementById('export').href).then(r => r.text());"
    )
    served = urllib.request.urlopen(f"{base}/api/rooms/{room}/record.txt").read().decode()
    assert [t for t in exported.splitlines() if not t.startswith("#")] == line[:2], exported
    assert served.splitlines()[0] == exported.splitlines()[0], (served, exported)
    b.js("document.getElementById('record').value = arguments[0];", "# a test\nc4:c5,d5\n\nJ14:J15,K15\n")
    b.click("#import-form button")
    wait_until("imported", lambda: "after 2 turns" in (b.text("#status") or ""))
    assert b.js("return location.hash") == "#standard/C4:C5,D5/J14:J15,K15@2"
    b.js("document.getElementById('record').value = 'C4:C5,D5\\nC4:C5,D5';")
    b.click("#import-form button")
    wait_until("refused", lambda: "line 2" in (b.text("#message") or ""))
    # Keys step through the line.
    b.js("document.activeElement.blur();")
    ActionChains(b.driver).send_keys(Keys.ARROW_LEFT).perform()
    wait_until("one back", lambda: "after 1 turn" in (b.text("#status") or ""))


if __name__ == "__main__":
    main()
