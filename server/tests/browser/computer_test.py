#!/usr/bin/env python3
"""Browser tests of the engine in the page (engine.wasm in a worker, thinker.js): the
analysis board shows the engine's evaluation and line while the page stays responsive,
refuses them to a player in their own game while it runs, and the site installs as an
app that plays a game against the computer with the server gone, kept across reloads.
The lobby's "Play the computer" starts a game against the server's computer.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: computer_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import re
import time

from harness import http, record, run, wait_until


def main():
    run("computer", scenario)


def scenario(server, browser):
    desktop = browser("desktop")
    phone = browser("phone", phone=True)
    the_engines_line_on_the_analysis_board(server, desktop, "engine-line-desktop.png")
    the_engines_line_on_the_analysis_board(server, phone, "engine-line-phone.png")
    no_hints_in_your_own_live_game(server, desktop, phone)
    the_lobby_plays_the_server_s_computer(server, phone)
    # Last: it stops the server.
    a_game_against_the_computer_with_the_server_gone(server, desktop)


def line_shown(b):
    return b.js("return [...document.querySelectorAll('#engine-lines li:first-child button')].map(e => e.textContent);")


def the_engines_line_on_the_analysis_board(server, b, shot):
    turns = record("midgame-standard.txt")[:20]
    b.go(f"{server.base}/analysis#standard/{'/'.join(turns)}@20")
    wait_until("the analysis board", lambda: b.js("return document.body.dataset.loaded") == "true")
    assert b.visible("#engine-form") and not b.visible("#engine-refused")

    # To a depth: the evaluation, the depth reached and the line, the chosen turn first.
    b.js("document.getElementById('engine-limit').value = 'depth 3';")
    b.click("#analyse")
    wait_until("the engine's answer", lambda: b.js("return document.getElementById('engine-panel').dataset.analysed"), timeout=60)
    evaluation = b.text("#engine-eval")
    assert re.fullmatch(r"[+-]?\d+\.\d for White|(White|Black) wins in \d+ turns?", evaluation), evaluation
    assert b.text("#engine-stats").startswith("3 turns deep"), b.text("#engine-stats")
    line = line_shown(b)
    assert 1 <= len(line) <= 3, line
    b.screenshot(shot)

    # The line plays on the board: the rules in the page take every turn of it.
    b.js("[...document.querySelectorAll('#engine-lines li:first-child button')].at(-1).click();")
    after = 20 + len(line)
    wait_until("the line played", lambda: f"after {after} turns" in (b.text("#status") or ""))
    assert b.js("return location.hash") == "#standard/" + "/".join(turns + line) + f"@{after}"
    # The answer was for the position before: it is gone.
    assert line_shown(b) == [] and b.text("#engine-eval") == ""

    # For a time: the search runs in the worker, and the page answers at once meanwhile.
    b.js("document.getElementById('engine-limit').value = 'ms 10000';")
    b.click("#analyse")
    wait_until("thinking", lambda: b.text("#engine-eval") == "Thinking…")
    time.sleep(0.5)
    for _ in range(5):
        started = time.monotonic()
        assert b.js("return document.getElementById('engine-eval').textContent") == "Thinking…"
        spent = time.monotonic() - started
        assert spent < 0.5, f"the page took {spent:.2f} s to answer while the engine searched"
    # Stopping ends the search; stepping back is answered at once.
    b.click("#stop-engine")
    wait_until("stopped", lambda: b.text("#engine-eval") == "" and not b.visible("#stop-engine"))
    b.js("document.getElementById('engine-limit').value = 'ms 1000';")
    b.click("#analyse")
    wait_until("an answer in time", lambda: b.js("return document.getElementById('engine-panel').dataset.analysed") and line_shown(b), timeout=20)


def no_hints_in_your_own_live_game(server, player, spectator):
    granted = server.create_room(variant="standard", color="white")
    room = granted["room"]
    http("POST", f"{server.base}/api/rooms/{room}/seat", {})
    player.go(server.base + "/")
    player.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", granted["token"])

    # White's own game, running: the board is there, the engine is not, even on a link
    # that brings its own line.
    for url in (f"/analysis?room={room}", f"/analysis?room={room}#standard/C4:C5,D5@1"):
        player.go(server.base + url)
        wait_until("the analysis board", lambda: player.js("return document.body.dataset.loaded") == "true")
        assert player.visible("#engine-refused"), url
        assert not player.visible("#engine-form") and not player.visible("#analyse"), url
    player.screenshot("engine-refused.png")
    # A room the server cannot show (none such, here) gets no hints either.
    player.go(server.base + "/analysis?room=no-such-room")
    wait_until("the analysis board", lambda: player.js("return document.body.dataset.loaded") == "true")
    assert player.visible("#engine-refused") and not player.visible("#analyse")

    # Someone without a seat there analyses the same game.
    spectator.go(f"{server.base}/analysis?room={room}")
    wait_until("the analysis board", lambda: spectator.js("return document.body.dataset.loaded") == "true")
    assert not spectator.visible("#engine-refused") and spectator.visible("#analyse")
    spectator.js("document.getElementById('engine-limit').value = 'depth 2';")
    spectator.click("#analyse")
    wait_until("the spectator's line", lambda: line_shown(spectator), timeout=60)


def the_lobby_plays_the_server_s_computer(server, b):
    """"Play the computer" in the lobby starts a game against the server's computer at
    the level pressed, whose room opens with the player seated."""
    b.go(server.base + "/")
    b.click("#computer-grid button[data-level='2']")
    wait_until("the game's room", lambda: "/room/" in b.js("return location.pathname;"))
    room = b.js("return location.pathname.split('/')[2];")
    players = http("GET", f"{server.base}/api/rooms/{room}")["players"]
    levels = [players[c].get("computer") for c in ("white", "black")]
    assert 2 in levels and None in levels, players
    you = "white" if levels[1] == 2 else "black"
    wait_until("seated", lambda: b.text("#you") == f"You play {you}")
    # The computer opens when it has White; either way the player is to move next.
    wait_until("the player to move", lambda: board(b).get("myTurn") == "true", timeout=30)
    b.screenshot("lobby-computer-game.png")


def board(b):
    return b.js("return Object.assign({}, document.getElementById('board').dataset);")


def play_a_turn(b, n):
    """Plays the first turn the page offers as the player's turn `n` of the game, and
    waits for the computer's answer."""
    wait_until("my turn", lambda: board(b).get("myTurn") == "true" and board(b).get("turns") == str(n - 1))
    turn = b.js("return document.querySelector('#completions option').value;")
    b.type("#notation", turn + "\n")
    wait_until("the computer's answer", lambda: board(b).get("turns") == str(n + 1), timeout=30)
    return turn


def a_game_against_the_computer_with_the_server_gone(server, b):
    manifest = http("GET", server.base + "/manifest.webmanifest")
    assert manifest["start_url"] == "/" and manifest["icons"][0]["src"].endswith("/icon.svg"), manifest

    b.go(server.base + "/offline")
    wait_until("the game", lambda: b.js("return document.body.dataset.loaded") == "true")
    # The service worker is installed, and keeps both modules among the rest.
    assert b.js("return navigator.serviceWorker.ready.then(() => true);")
    kept = b.js("return caches.keys().then(names => caches.open(names[0])).then(c => c.keys()).then(rs => rs.map(r => new URL(r.url).pathname));")
    assert {"/offline", "/analysis", "/"} <= set(kept), kept
    assert any(p.endswith("/engine.wasm") for p in kept) and any(p.endswith("/rules.wasm") for p in kept), kept

    b.js("document.getElementById('level').value = '2';")
    b.click("#start")
    played = [play_a_turn(b, 1)]

    # The network gone: the server stops. The page comes back from the app's copy, with
    # the game, and play goes on against the engine in the page.
    server.stop()
    b.refresh()
    wait_until("the page without a server", lambda: b.js("return document.body.dataset.loaded") == "true")
    assert board(b)["turns"] == "2", board(b)
    assert b.js("return [...document.querySelectorAll('#turns li')].length") == 2
    played.append(play_a_turn(b, 3))
    played.append(play_a_turn(b, 5))
    b.screenshot("offline-game.png")

    b.refresh()
    wait_until("the kept game", lambda: b.js("return document.body.dataset.loaded") == "true" and board(b).get("turns") == "6")
    kept_turns = b.js("return JSON.parse(localStorage.getItem('punct-offline-game')).turns;")
    assert kept_turns[0::2] == played, (kept_turns, played)
    # Another page the app keeps opens too.
    b.go(server.base + "/analysis")
    wait_until("the analysis board offline", lambda: b.js("return document.body.dataset.loaded") == "true")


if __name__ == "__main__":
    main()
