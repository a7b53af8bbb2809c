#!/usr/bin/env python3
"""Browser tests of the analysis board one can read and of the computer analysis of a
finished game (issue 44, points 3 and 4): a game in a room ends with Black letting White
connect, and its analysis in the page marks Black's turns, draws White's chance over the
game (a click goes to a turn) and gives each player an accuracy; the analysis board shows
White's chance as a bar, the engine's three lines and its choice on the board, the turns
numbered by moves and both reserves, as /offline shows them too. On a laptop (1280x800)
and a phone (390x844), with nothing wider than the phone.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: analysis_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import re

from harness import WHITE_CONNECTS, http, record, run, seated_game, wait_until

LAPTOP = {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}


def main():
    run("analysis", scenario)


def scenario(server, browser):
    white = browser("white")
    black = browser("black")
    room = finished_game(server, white, black)
    white.cdp("Emulation.setDeviceMetricsOverride", LAPTOP)
    phone = browser("phone", phone=True)
    a_finished_games_analysis(server, white, room, "review-desktop.png")
    a_finished_games_analysis(server, phone, room, "review-phone.png")
    the_analysis_board(server, white, "analysis-board-desktop.png")
    the_analysis_board(server, phone, "analysis-board-phone.png")
    offline_shows_both_reserves(server, phone)


def finished_game(server, white, black):
    """A room's game that White wins by connection in the 11th turn: Black never blocks."""
    game = seated_game(server, white, black)
    for turn in WHITE_CONNECTS:
        game.typed(turn)
    wait_until("the game over", lambda: http("GET", f"{server.base}/api/rooms/{game.room}")["status"] == "over")
    return game.room


def a_finished_games_analysis(server, b, room, shot):
    b.go(f"{server.base}/analysis?room={room}")
    wait_until("the analysis board", lambda: b.js("return document.body.dataset.loaded") == "true")
    # A player of the finished game may analyse it: the game is over.
    assert b.visible("#review-panel"), "no analysis of the game offered"
    b.click("#review-start")
    wait_until("the game analysed", lambda: b.js("return document.getElementById('review-panel').dataset.reviewed") == "true", timeout=60)

    # The graph: a band to click for every position, the start and each turn.
    bands = b.js("return document.querySelectorAll('#review-graph .graph-band').length")
    assert bands == len(WHITE_CONNECTS) + 1, bands
    # (An SVG picture has no offsetParent: its box says it is drawn.)
    assert b.js("return document.getElementById('review-graph').getBoundingClientRect().height") > 20
    b.js("document.querySelector('#review-graph .graph-band[data-n=\"5\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}));")
    wait_until("the graph goes to turn 5", lambda: "after 5 turns" in (b.text("#status") or ""))

    # Black let White connect: Black's turns carry the marks, in the list and the turns.
    marks = b.js("return [...document.querySelectorAll('#review-marks li')].map(e => [Number(e.dataset.n), e.dataset.mark, e.textContent]);")
    assert marks, "no turn marked"
    assert any(n % 2 == 0 and mark == "blunder" for n, mark, _ in marks), marks
    assert all(mark in ("inaccuracy", "mistake", "blunder") for _, mark, _ in marks), marks
    marked = b.js("return [...document.querySelectorAll('#turns .turn[data-mark]')].map(e => Number(e.dataset.n));")
    assert sorted(marked) == sorted(n for n, _, _ in marks), (marked, marks)

    # Each player's accuracy, the winner's above the loser's.
    accuracy = {}
    for color in ("white", "black"):
        text = b.text(f'#review-summary p[data-color="{color}"]')
        found = re.search(r"(\d+)% accuracy", text)
        assert found, text
        accuracy[color] = int(found.group(1))
        assert "Blunders: " in text, text
    assert accuracy["white"] > accuracy["black"], accuracy

    # A marked turn with a better one: its button goes to the position before it, where
    # the board shows the better turn.
    better = next((m for m in marks if "better" in m[2]), None)
    if better:
        n = better[0]
        b.js("document.querySelector(`#review-marks li[data-n=\"${arguments[0]}\"] button`).click();", n)
        wait_until("the position before the mark", lambda: f"after {n - 1} turn" in (b.text("#status") or ""))
        hint = b.board().get("hint")
        assert hint and hint in better[2] and hint != WHITE_CONNECTS[n - 1], (hint, better)
        b.find("#board .piece.ghost")
    assert b.visible("#eval-bar")
    assert b.wide() == [], b.wide()
    b.js("document.getElementById('review-progress').scrollIntoView({block: 'start'});")
    b.screenshot(shot)

    # Another game imported: the last one's analysis goes with it.
    b.js("document.getElementById('record').value = arguments[0];", "C4:C5,D5\n")
    b.click("#import-form button")
    wait_until("imported", lambda: "after 1 turn" in (b.text("#status") or ""))
    assert b.js("return document.getElementById('review-graph').hasAttribute('hidden')")
    assert b.js("return document.querySelectorAll('#review-marks li, #turns .turn[data-mark]').length") == 0


def the_analysis_board(server, b, shot):
    # A position of a real game, 14 turns in: White to move.
    turns = record("midgame-standard.txt")[:14]
    b.go(f"{server.base}/analysis#standard/{'/'.join(turns)}@14")
    wait_until("the analysis board", lambda: b.js("return document.body.dataset.loaded") == "true")

    # The turns numbered by moves, two to a move as in the room; both reserves.
    assert b.js("return document.querySelectorAll('#turns li').length") == 7
    assert b.js("return document.querySelectorAll('#turns .turn').length") == 14
    for i, color in enumerate(("white", "black")):
        kinds = b.js(f"return [...document.querySelectorAll('#reserve-{color} .kind')].map(e => e.getAttribute('aria-label'));")
        assert len(kinds) == 6, kinds
        # 18 pieces, less one for each of the side's drops (a move takes none).
        left = 18 - sum(1 for turn in turns[i::2] if "-" not in turn.split(":")[0])
        assert b.text(f"#reserve-{color} small") == f"{left} left", (b.text(f"#reserve-{color} small"), left)
    assert not b.visible("#eval-bar")

    b.js("document.getElementById('engine-limit').value = 'depth 3';")
    b.click("#analyse")
    wait_until("the engine's answer", lambda: b.js("return document.getElementById('engine-panel').dataset.analysed"), timeout=60)
    # Three lines, each a score and its turns; the first is the engine's choice.
    lines = b.js("return [...document.querySelectorAll('#engine-lines li')].map(li => [li.querySelector('.line-score').textContent, [...li.querySelectorAll('button')].map(e => e.textContent)]);")
    assert len(lines) == 3, lines
    assert len({line[1][0] for line in lines}) == 3, lines
    for score, _ in lines:
        assert re.fullmatch(r"[+-]?\d+\.\d|(White|Black) wins in \d+ turns?", score), score
    # The bar: White's chance as a share of it, said in words.
    assert b.visible("#eval-bar")
    percent = int(b.js("return document.getElementById('eval-bar').dataset.percent"))
    assert 0 <= percent <= 100
    assert b.text("#eval-text") == f"White's chance to win: {percent}%"
    width = b.js("return document.getElementById('eval-white').getBoundingClientRect().width / document.getElementById('eval-bar').getBoundingClientRect().width")
    assert abs(width * 100 - percent) < 2, (width, percent)
    assert "cells of connection path" in b.text("#engine-panel .hint")
    # The choice on the board: its piece as a ghost, and an arrow for a move or a jump.
    best = lines[0][1][0]
    assert b.board()["hint"] == best
    b.find("#board .piece.ghost")
    assert bool(b.js("return document.querySelector('#board .arrow') !== null")) == ("-" in best), best
    assert b.wide() == [], b.wide()
    b.js("window.scrollTo(0, 0);")
    b.screenshot(shot)
    b.js("document.getElementById('engine-panel').scrollIntoView({block: 'start'});")
    b.screenshot(shot.replace("board", "lines"))

    # A position whose best turn is a move: the arrow goes from its origin to its PÜNCT.
    later = record("late-standard.txt")
    for after in MOVES_BEST:
        # (A query of its own, so that the page loads again rather than only its fragment
        # changing.)
        b.go(f"{server.base}/analysis?try={after}#standard/{'/'.join(later)}@{after}")
        wait_until("the later position", lambda: f"after {after} turns" in (b.text("#status") or ""))
        b.js("document.getElementById('engine-limit').value = 'depth 2';")
        b.click("#analyse")
        wait_until("the engine's answer", lambda: b.js("return document.getElementById('engine-panel').dataset.analysed"), timeout=60)
        if "-" in b.board()["hint"]:
            b.find("#board .arrow polygon")
            return
    raise AssertionError(f"the engine moved a piece in none of the positions after {MOVES_BEST} turns")


def offline_shows_both_reserves(server, b):
    b.go(f"{server.base}/offline")
    wait_until("the offline game", lambda: b.js("return document.body.dataset.loaded") == "true")
    for color in ("white", "black"):
        assert b.js(f"return document.querySelectorAll('#reserve-{color} .kind').length") == 6
        assert b.text(f"#reserve-{color} small") == "18 left"
    assert b.wide() == [], b.wide()


# Positions of late-standard.txt (after so many turns) where level 5, two turns deep,
# moves a piece (found with `punct_engine::lines`, as the page asks it); a few, so that a
# change to the engine's choices leaves at least one.
MOVES_BEST = (81, 84, 90, 92)


if __name__ == "__main__":
    main()
