#!/usr/bin/env python3
"""Browser tests of the tournaments' pages: a player creates a Swiss (the server's
refusal shown first), two players join, it starts a few seconds later, the standings and
the pairing show as the pages follow it live, the pairing links to a room both play in,
marked as a tournament's there, in the lobby, in one's games and in the archive, and the
result comes back to the tournament's page, which shows a live game's turns and clocks.
An arena is joined while it runs, and paused; a page elsewhere on the site calls its
player to the game the arena pairs. The tournament's name is markup, shown as text and never run.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: tournament_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import re
import time

from account_test import sign_in
from comfort_test import legible
from harness import http, run, wait_until

PASSWORD = "a fine password"
HOSTILE = "<img src=x onerror=window.pwned=1> Swiss"


def main():
    run("tournament", scenario)


def local_time(b, seconds):
    """The time `seconds` from now as the form's `datetime-local` field takes it."""
    return b.js(
        "const at = new Date(Date.now() + arguments[0] * 1000);"
        "return new Date(at.getTime() - at.getTimezoneOffset() * 60000).toISOString().slice(0, 19);",
        seconds,
    )


def create(b, base):
    """Anna creates a two-round Swiss from the form; answers its id."""
    b.go(base + "/tournaments")
    b.find("#create-tournament:not([hidden])")
    b.type("#create-tournament input[name=name]", HOSTILE)
    b.js("document.querySelector('#create-tournament select[name=clock]').value = '';")
    # Two rounds for two players: after the first, nobody can be paired again.
    b.type("#create-tournament input[name=rounds]", "2")
    # A start in the past: the server refuses, and the page says why.
    b.js("document.querySelector('#create-tournament input[name=starts_at]').value = '2020-01-01T00:00:00';")
    b.click("#create-submit")
    wait_until("the refusal shown", lambda: "past" in (b.text("#tournaments-status") or ""))
    assert b.js("return location.pathname;") == "/tournaments"
    b.js("document.querySelector('#create-tournament input[name=starts_at]').value = arguments[0];", local_time(b, 8))
    b.click("#create-submit")
    wait_until("the tournament's page", lambda: b.js("return location.pathname.startsWith('/tournament/');"))
    wait_until("its name", lambda: b.text("#name") == HOSTILE)
    return b.js("return location.pathname.split('/')[2];")


def arena(base, anna, bert, cleo):
    """An arena, made over the API from anna's page: anna and bert join before it starts
    and are paired, cleo joins while it runs, the page counts down to its end and has no
    tie-breaks, and anna pauses."""
    starts = anna.js("return Date.now() + 6000;")
    created = anna.js(
        "return fetch('/api/tournaments', {method: 'POST', body: JSON.stringify(arguments[0])}).then((r) => r.json());",
        {"name": "Lunch arena", "format": "arena", "clock": {"base": 300, "increment": 0}, "starts_at": starts, "ends_at": starts + 120_000, "max_players": 8},
    )
    tournament = created["id"]
    for b in (anna, bert):
        b.go(f"{base}/tournament/{tournament}")
        wait_until(f"{b.name} may join", lambda: b.visible("#join"))
        b.click("#join")
        wait_until(f"{b.name} entered", lambda: b.visible("#withdraw"))
    # The arena's start pairs them at once, which takes each player's page to the game;
    # back on the tournament's page, the game under way is offered, not forced.
    for b in (anna, bert):
        wait_until(f"{b.name} taken to the arena's game", lambda: b.js("return location.pathname;").startswith("/room/"), timeout=30)
        b.go(f"{base}/tournament/{tournament}")
        wait_until(f"{b.name} paired in the arena", lambda: b.visible("#next-game"))
        assert b.js("return location.pathname;") == f"/tournament/{tournament}"
        assert b.text("#rounds h3") == "Round 1", b.text("#rounds h3")
        wait_until("the arena under way", lambda: (b.text("#state") or "").startswith("Ends "))
        assert "Buchholz" not in b.text("#standings thead")
    sign_in(cleo, base, "cleo", PASSWORD, create=True)
    cleo.go(f"{base}/tournament/{tournament}")
    wait_until("cleo may join", lambda: cleo.visible("#join"))
    cleo.click("#join")
    wait_until("cleo in the standings", lambda: "cleo" in (anna.text("#standings tbody") or ""))
    assert anna.text("#withdraw") == "Pause"
    anna.click("#withdraw")
    wait_until("anna may come back", lambda: anna.visible("#join") and not anna.visible("#withdraw"))
    # Her game under way is played out: it is still hers to play. Its clocks run on the
    # tournament's page.
    assert anna.visible("#next-game")
    clocks = wait_until("the live game's clocks", lambda: re.search(r"○ \d:\d\d ● \d:\d\d", anna.text("#rounds .live") or ""))
    assert clocks, anna.text("#rounds .live")
    assert "(paused)" in anna.text("#standings tbody")
    anna.screenshot("arena.png")

    # Any page of the site calls its player to the game a round pairs: cleo reads the
    # tutorial when anna's game ends, and the arena pairs bert, free again, with her.
    cleo.go(f"{base}/learn")
    wait_until("cleo's page follows the arena", lambda: cleo.js("return document.querySelector('.site-nav').dataset.following === 'true';"))
    anna.click("#next-game")
    wait_until("anna in her game", lambda: anna.js("return location.pathname;").startswith("/room/"))
    anna.click("#resign")
    anna.click("#resign")
    called = wait_until("cleo called to her game", lambda: cleo.js("return document.getElementById('tournament-call')?.dataset.room;"), timeout=30, every=0.02)
    paired = http("GET", f"{base}/api/tournaments/{tournament}")["pairings"]
    ours = [g for r in paired for g in r["games"] if g["room"] == called]
    assert ours and {ours[0]["white"], ours[0]["black"]} == {"bert", "cleo"}, paired
    assert "bert" in cleo.text("#tournament-call")
    cleo.screenshot("tournament-call.png")
    cleo.click("#tournament-call a.play")
    wait_until("cleo at her game", lambda: cleo.js("return location.pathname;") == f"/room/{called}")


def round_robin_rest(base, b):
    """A round robin of three: each round one of them rests, and the page says who."""
    tokens = {}
    for name in ("rita", "rolf", "ruth"):
        made = http("POST", base + "/api/accounts", {"username": name, "password": PASSWORD})
        tokens[name] = {"Authorization": f"Bearer {made['token']}"}
    request = {
        "name": "Trio",
        "format": "round-robin",
        # After the joins, on a machine running other suites beside this one.
        "starts_at": int(time.time() * 1000) + 3000,
        "min_players": 3,
        "max_players": 3,
    }
    trio = http("POST", base + "/api/tournaments", request, tokens["rita"])["id"]
    for name in tokens:
        http("POST", f"{base}/api/tournaments/{trio}/join", None, tokens[name])
    b.go(f"{base}/tournament/{trio}")
    rests = wait_until("round 1 names who rests", lambda: b.text("#rounds .resting"), timeout=20)
    resting = http("GET", f"{base}/api/tournaments/{trio}")["pairings"][0]["resting"]
    assert resting in tokens and rests == f"Resting: {resting}", (rests, resting)
    assert b.js("return document.querySelectorAll('#rounds tr[data-room]').length;") == 1, "one game"


def scenario(server, browser):
    base = server.base
    anna = browser("anna")
    bert = browser("bert")
    sign_in(anna, base, "anna", PASSWORD, create=True)
    sign_in(bert, base, "bert", PASSWORD, create=True)
    tournament = create(anna, base)
    anna.click("#join")
    wait_until("anna in the standings", lambda: "anna" in (anna.text("#standings tbody") or ""))
    wait_until("anna may withdraw", lambda: anna.visible("#withdraw"))

    # Bert joins from the list.
    bert.go(base + "/tournaments")
    bert.click(f'#upcoming tr[data-tournament="{tournament}"] button.join')
    wait_until("bert on the tournament's page", lambda: bert.js("return location.pathname;") == f"/tournament/{tournament}")
    wait_until("the countdown", lambda: "first round starts in" in (bert.text("#next") or ""))
    bert.screenshot("tournament-upcoming.png")

    # Cleo watches with her sockets cut off: her page reads the tournament over HTTP.
    cleo = browser("cleo")
    cleo.go(f"{base}/tournament/{tournament}")
    wait_until("cleo follows", lambda: cleo.js("return document.body.dataset.following === 'true';"))
    cleo.js("window.testBlocked = true; window.testSockets.forEach((s) => s.close());")
    wait_until("cleo no longer follows", lambda: cleo.js("return document.body.dataset.following !== 'true';"))

    # It starts by itself; both pages follow it over their WebSockets, not reloaded (on a
    # slow machine the round may already have taken them to their game).
    for b in (anna, bert):
        wait_until(f"{b.name} follows", lambda: b.js("return document.body.dataset.following === 'true' || location.pathname.startsWith('/room/');"))
    # The first round pairs them: within a second, both pages are at their game.
    wait_until("the first round paired", lambda: http("GET", f"{base}/api/tournaments/{tournament}")["pairings"], timeout=30, every=0.02)
    paired_at = time.monotonic()
    view = http("GET", f"{base}/api/tournaments/{tournament}")
    game = view["pairings"][0]["games"][0]
    room = game["room"]
    for b in (anna, bert):
        wait_until(f"{b.name} taken to the game", lambda: b.js("return location.pathname;") == f"/room/{room}", timeout=5, every=0.02)
    taken = time.monotonic() - paired_at
    print(f"both players' tournament pages reached their game {taken:.2f} s after the pairing was read")
    assert taken < 3, f"{taken:.2f} s"
    # A spectator's page shows the pairing with a link to its room.
    wait_until("cleo sees the pairing", lambda: cleo.js("return document.querySelectorAll('#rounds tr[data-room]').length;") == 1, timeout=20)
    assert cleo.js("return document.querySelector('#rounds a.game-link').getAttribute('href');") == f"/room/{room}"
    assert "anna" in cleo.text("#standings tbody") and "bert" in cleo.text("#standings tbody")
    legible(cleo, "a running tournament", "tournament-running")

    # The room both play in is marked as the tournament's.
    for b in (anna, bert):
        wait_until(f"{b.name} sees the mark", lambda: b.visible("#tournament-link"))
        assert b.js("return document.getElementById('tournament-link').getAttribute('href');") == f"/tournament/{tournament}"
    white, black = (anna, bert) if game["white"] == "anna" else (bert, anna)
    wait_until("white may move", lambda: white.board().get("myTurn") == "true")
    white.type("#notation", "C4:C5,D5\n")
    wait_until("black sees the turn", lambda: black.board().get("turns") == "1")
    white.screenshot("tournament-game.png")
    # The tournament's page shows the live game's move and its last turn.
    wait_until("cleo sees the live game's turn", lambda: "Move 1 · C4:C5,D5" in (cleo.text(f'#rounds tr[data-room="{room}"] .live') or ""))

    # The lobby and the player's own games list the game under way, marked with a link to
    # its tournament.
    white.go(base + "/")
    mark = f'#rooms tr[data-room="{room}"] a.tournament-mark'
    white.find(mark)
    assert white.js("return document.querySelector(arguments[0]).getAttribute('href');", mark) == f"/tournament/{tournament}"
    white.go(base + "/mine")
    white.find(f'#mine tr[data-room="{room}"] a.tournament-mark')
    black.click("#resign")
    black.click("#resign")

    # The result comes back to the tournament's page.
    black.click("#tournament-link")
    wait_until("the result", lambda: black.text("#rounds tr[data-room] .outcome") == "1–0", timeout=20)
    wait_until("finished", lambda: black.text("#state") == "finished", timeout=20)
    winner = game["white"]
    assert black.text("#standings tbody tr:first-child td:nth-child(2)") == winner
    # It names its winner, and why it ended before its second round.
    assert black.text("#winner") == f"Won by {winner}", black.text("#podium")
    assert "after round 1 of 2" in black.text("#ended-early"), black.text("#podium")
    legible(black, "a finished tournament", "tournament-finished")
    wait_until("cleo sees the result", lambda: cleo.text("#rounds tr[data-room] .outcome") == "1–0")
    assert cleo.text("#state") == "finished"
    assert not cleo.js("return document.body.dataset.following === 'true';")

    # The archive marks the game as the tournament's.
    black.go(base + "/games")
    archived = f'#games tr[data-room="{room}"] a.tournament-mark'
    black.find(archived)
    assert black.js("return document.querySelector(arguments[0]).getAttribute('href');", archived) == f"/tournament/{tournament}"

    # In German, the page and what its script writes.
    dora = browser("dora", lang="de")
    dora.go(f"{base}/tournament/{tournament}")
    wait_until("the German page", lambda: dora.text("#state") == "beendet")
    assert dora.text("#facts").startswith("Schweizer System, 2 Runden · Standardspiel · ohne Uhr"), dora.text("#facts")
    assert dora.text("#winner") == f"Gewonnen von {winner}", dora.text("#podium")
    assert dora.text("#standings thead") == "PlatzSpielerPunkteBuchholzSonneborn-BergerPartien"

    arena(base, anna, bert, cleo)
    round_robin_rest(base, cleo)

    # Markup in the name stayed text everywhere.
    anna.go(base + "/tournaments")
    wait_until("the finished list", lambda: anna.text("#finished .tournament-link") == HOSTILE)
    time.sleep(0.3)
    for b in (anna, bert, cleo, dora):
        assert not b.js("return window.pwned === 1;")
        assert not b.driver.find_elements("css selector", "#name img, .tournament-link img")


if __name__ == "__main__":
    main()
