#!/usr/bin/env python3
"""Browser tests of quick pairing: two browsers that press the same clock in the lobby's
"Play now" grid meet in one room within a second, each seated by the token its page was
given; a waiting seek is listed by its player, never by an id; cancelling ends it. The
opponent's first turn is said in words in a live region, as Chromium's accessibility tree
(a screen reader's view of the page) shows it, and so is a turn shown before it is played.
A player who turns off the confirmation
step plays a turn without Play.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: seek_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import re
import time

from harness import Game, http, run, wait_until


def seeks(base):
    return http("GET", base + "/api/seeks")["seeks"]


def scenario(server, browser):
    base = server.base
    anna = browser("seek-desktop")
    bert = browser("seek-phone", phone=True)
    for b, name in ((anna, "Anna"), (bert, "Bert")):
        b.go(base + "/")
        b.js("localStorage.setItem('punct-name', arguments[0]);", name)
        b.refresh()
        b.find("#quick-grid button[data-clock='300+3']")

    # A seek that is cancelled leaves the list.
    anna.click("#quick-grid button[data-clock='600+5']")
    wait_until("anna's 10+5 seek listed", lambda: len(seeks(base)) == 1)
    anna.click("#seek-cancel")
    wait_until("the seek cancelled", lambda: not seeks(base))

    anna.click("#quick-grid button[data-clock='300+3']")
    wait_until("anna's seek listed", lambda: len(seeks(base)) == 1)
    listed = seeks(base)[0]
    assert listed["player"].get("name") == "Anna", listed
    # The lobby shows the seek by its player and clock: no id anywhere in its text.
    wait_until("bert's lobby lists anna", lambda: "Anna" in bert.text("#seeks"))
    text = bert.text("#seeks")
    assert "5 min + 3 s" in text, text
    ids = re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}|[0-9a-f]{8}\b", bert.text("main"))
    assert not ids, f"the lobby shows ids: {ids}"
    anna.screenshot("seek-desktop-waiting.png")
    bert.screenshot("seek-phone-lobby.png")

    started = time.monotonic()
    bert.click("#quick-grid button[data-clock='300+3']")
    for b in (anna, bert):
        wait_until(f"{b.name} in the room", lambda: "/room/" in b.js("return location.pathname;"))
    rooms = {b.js("return location.pathname;") for b in (anna, bert)}
    assert len(rooms) == 1, rooms
    seated = {}
    for b in (anna, bert):
        wait_until(f"{b.name} seated", lambda: b.text("#you").startswith("You play"))
        seated[b.name] = b.text("#you")
    met = time.monotonic() - started
    assert set(seated.values()) == {"You play white", "You play black"}, seated
    assert met < 5, f"{met:.2f} s from the second press to both seated"
    print(f"two browsers met and were seated {met:.2f} s after the second press")
    assert not seeks(base)
    for b in (anna, bert):
        b.screenshot(f"{b.name}-paired.png")
    heard(anna, bert)


def live_texts(b):
    """What Chromium's accessibility tree (a screen reader's view) holds in the page's
    polite live regions: the text of each, as a screen reader would say it."""
    nodes = {n["nodeId"]: n for n in b.cdp("Accessibility.getFullAXTree")["nodes"]}

    def text(node):
        if node.get("role", {}).get("value") == "StaticText":
            return node.get("name", {}).get("value", "")
        return "".join(text(nodes[c]) for c in node.get("childIds", []) if c in nodes)

    said = []
    for node in nodes.values():
        props = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        if props.get("live") == "polite":
            said.append(text(node))
    return said


def in_view(b, me):
    """With a turn chosen (a piece and its cell), the board, the player's own reserve and
    the confirm control are on the screen together, without scrolling (the page is at its
    top, as it opens): at 1280×800 with the header on one line, and at 390×844."""
    wait_until(f"{b.name} may move", lambda: b.board().get("myTurn") == "true")
    b.js("window.scrollTo(0, 0);")
    b.click(f"#reserve-{me} button.kind:not(:disabled)")
    b.click("polygon.target")
    wait_until(f"{b.name} may confirm", lambda: b.js("return !document.getElementById('place').disabled;"))
    # The turn shown and not yet played is said, as a screen reader hears it.
    shown = wait_until(f"{b.name} hears the turn shown", lambda: [x for x in live_texts(b) if x.startswith("Shown, not yet played: its PÜNCT on ")])
    assert re.fullmatch(r"Shown, not yet played: its PÜNCT on [A-Q]\d+, its other dots on [A-Q]\d+, [A-Q]\d+, way 1 of \d+\.", shown[0]), shown
    height = b.js("return window.innerHeight;")
    scrolled = b.js("return window.scrollY;")
    for css in ("#place", f"#reserve-{me}", "#board"):
        box = b.rect(css)
        assert box["top"] + scrolled >= 0 and box["bottom"] + scrolled <= height, f"{b.name}: {css} at {box} in {height} px"
    if not b.phone:
        assert b.rect("header")["height"] < 50, f"the header wraps: {b.rect('header')}"
    b.screenshot(f"{b.name}-turn-chosen.png")
    b.click("#cancel")


def heard(anna, bert):
    """The opponent's turn is said in words in a live region, as a screen reader hears it."""
    white, black = (anna, bert) if anna.text("#you") == "You play white" else (bert, anna)
    in_view(white, "white")
    game = Game(white.js("return location.origin;"), white, black, [])
    game.typed("C4:C5,D5")
    said = "White drops a piece (triangle) with its PÜNCT on C4, its other dots on C5, D5."
    wait_until("black's screen reader hears the turn", lambda: said in live_texts(black))
    assert black.text("#announcer") == said
    in_view(black, "black")
    unconfirmed(black, "black")


def unconfirmed(b, me):
    """Confirming a turn with Play is the default. Turned off, a click on a minor dot of
    the piece shown (or a destination where the piece fits one way only) plays the turn,
    and the choice is remembered."""
    assert b.js("return document.getElementById('confirm').checked;"), "confirming is the default"
    turns = int(b.board()["turns"])
    b.click("#confirm")
    assert b.js("return localStorage.getItem('punct-confirm');") == "off"
    b.click(f"#reserve-{me} button.kind:not(:disabled)")
    target = b.js("return document.querySelector('polygon.target').dataset.cell;")
    b.click(f"polygon.target[data-cell='{target}']")
    ghost = b.js("return [...document.querySelectorAll('g[data-piece=ghost] circle.dot')].map((c) => c.dataset.cell);")
    if ghost:
        minor = next(cell for cell in ghost if cell != target)
        b.click(f"polygon[data-cell='{minor}']")
    wait_until(f"{b.name}'s turn played without Play", lambda: b.board().get("turns") == str(turns + 1))
    b.refresh()
    assert not b.js("return document.getElementById('confirm').checked;"), "the choice is remembered"


def main():
    run("seek", scenario)


if __name__ == "__main__":
    main()
