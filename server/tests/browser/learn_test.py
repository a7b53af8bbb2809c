#!/usr/bin/env python3
"""Browser tests of the tutorial (`/learn`) and the puzzles (`/puzzles`): a lesson done
wrong (its hint shown) and then right (its word of success), on a desktop and on a
phone; a puzzle solved, and remembered after a reload when signed in, its first result
moving the player's puzzle rating; streak mode counting a solve and ending at a wrong
try, signed in and as a guest.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: learn_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import json
import os

from harness import run, wait_until

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web")
with open(os.path.join(WEB, "tutorial.json")) as f:
    LESSONS = {lesson["id"]: lesson for lesson in json.load(f)["lessons"]}
with open(os.path.join(WEB, "puzzles.json")) as f:
    PUZZLES = json.load(f)["puzzles"]
with open(os.path.join(WEB, "i18n", "en.json")) as f:
    ENGLISH = json.load(f)

PASSWORD = "a fine password"


def said(lesson, part):
    """What `lesson` says in English as its `part`: title, text, hint or success."""
    return ENGLISH[f"learn.lesson.{lesson['id']}.{part}"]


def main():
    run("learn", scenario)


def scenario(server, browser):
    desktop = browser("desktop")
    phone = browser("phone", phone=True)
    the_rules_page_leads_to_the_tutorial(server, desktop)
    a_lesson_wrong_then_right(server, desktop, LESSONS["drop"], "learn-desktop.png")
    a_lesson_wrong_then_right(server, phone, LESSONS["bridge"], "learn-phone.png")
    a_puzzle_solved_and_remembered(server, desktop, PUZZLES[0], "puzzle-desktop.png")
    a_streak_counts_solves_until_a_wrong_try(server, desktop, "streak-desktop.png", signed_in=True)
    a_puzzle_solved_as_a_guest(server, phone, PUZZLES[-1], "puzzle-phone.png")
    a_streak_counts_solves_until_a_wrong_try(server, phone, "streak-phone.png", signed_in=False)


def the_rules_page_leads_to_the_tutorial(server, b):
    b.go(server.base + "/how-to-play")
    b.click('main a[href="/learn"]')
    wait_until("the tutorial", lambda: b.js("return location.pathname;") == "/learn")
    wait_until("its first lesson", lambda: b.js("return location.hash;") == "#drop")


def ghost(b):
    return b.js("return document.getElementById('board').dataset.ghost;")


def pick_and_turn(b, turn):
    """Picks the piece of `turn` (on the board for a move, else each kind of the reserve
    in turn), its PÜNCT's cell, and turns it until the preview shows `turn`. False if no
    piece reaches it."""
    origin = turn.split(":")[0]
    punct = origin.split("-")[-1]
    if "-" in origin:
        b.click(f'#board polygon[data-cell="{origin.split("-")[0]}"]')
        tries = [None]
    else:
        tries = b.js("return [...document.querySelectorAll('#reserve button.kind:not(:disabled)')].map(e => e.dataset.kind);")
    for kind in tries:
        if kind:
            b.click(f'#reserve button[data-kind="{kind}"]')
        if not b.js("return !!document.querySelector(arguments[0]);", f'#board polygon.target[data-cell="{punct}"]'):
            continue
        b.click(f'#board polygon.target[data-cell="{punct}"]')
        seen = set()
        while ghost(b) not in seen:
            if ghost(b) == turn:
                return True
            seen.add(ghost(b))
            # The destination clicked again turns the piece.
            b.click(f'#board polygon[data-cell="{punct}"]')
    return False


def play(b, turn):
    assert pick_and_turn(b, turn), f"{b.name}: no piece and orientation shows {turn}"
    b.click("#place")


def feedback(b):
    return b.js("const f = document.getElementById('feedback'); return f.hidden ? null : [f.dataset.kind, f.textContent];")


def a_lesson_wrong_then_right(server, b, lesson, shot):
    b.go(f"{server.base}/learn#{lesson['id']}")
    wait_until(f"{b.name}: the lesson", lambda: b.js("return document.body.dataset.loaded") == "true")
    assert said(lesson, "title") in b.text("#title"), b.text("#title")
    assert b.text("#text") == said(lesson, "text")
    if lesson["goal"].get("cells"):
        marked = b.js("return [...document.querySelectorAll('#board polygon.marked')].map(p => p.dataset.cell).sort();")
        assert marked == sorted(lesson["goal"]["cells"]), marked
    assert not b.wide(), b.wide()

    play(b, lesson["wrong"][0])
    wait_until(f"{b.name}: the hint", lambda: feedback(b) == ["hint", said(lesson, "hint")])
    assert not b.visible("#next"), "no next lesson after a wrong try"
    # The wrong turn is taken back: the position is the lesson's again.
    assert not b.js("return document.querySelector('#board .piece.ghost') !== null && document.getElementById('board').dataset.ghost !== '';")

    play(b, lesson["right"])
    wait_until(f"{b.name}: the success", lambda: feedback(b) == ["success", said(lesson, "success")])
    assert b.visible("#next")
    done = b.js("return [...document.querySelectorAll('#steps button.done')].map(e => e.dataset.lesson);")
    assert lesson["id"] in done, done
    b.screenshot(shot)
    b.click("#next")
    wait_until(f"{b.name}: the next lesson", lambda: feedback(b) is None and b.text("#text") != said(lesson, "text"))


def sign_up(b, base, username):
    b.go(base + "/")
    b.click("#sign-up")
    b.type("#account-form input[name=username]", username)
    b.type("#account-form input[name=password]", PASSWORD)
    b.click("#account-submit")
    wait_until(f"{b.name} signed in as {username}", lambda: b.text("#me") == username)


def solved_marks(b):
    return b.js("return [...document.querySelectorAll('#steps button.done')].map(e => e.dataset.puzzle);")


def open_puzzle(b, base, puzzle):
    b.go(f"{base}/puzzles#{puzzle['id']}")
    wait_until(f"{b.name}: the puzzle", lambda: b.js("return document.body.dataset.loaded") == "true")
    assert b.js("return location.hash") == f"#{puzzle['id']}"


def a_wrong_try(b, puzzle):
    """Plays some legal turn that is not the answer: the first lit cell of the first
    kind the reserve offers (or of the answer's piece when it is a move)."""
    answer = puzzle["answer"]
    origin = answer.split(":")[0]
    if "-" in origin:
        b.click(f'#board polygon[data-cell="{origin.split("-")[0]}"]')
    else:
        b.click("#reserve button.kind:not(:disabled)")
    b.click("#board polygon.target")
    if ghost(b) == answer:
        b.click("#cancel")
        return False
    b.click("#place")
    return True


def said_with(key, **values):
    """What catalogue key `key` says in English with `values` in its slots (a plural
    key by `count`)."""
    text = ENGLISH[key]
    if isinstance(text, dict):
        text = text["one" if values.get("count") == 1 else "other"]
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def stored_puzzles(b):
    return b.js("return fetch('/api/me/puzzles').then(r => r.json());")


def a_puzzle_solved_and_remembered(server, b, puzzle, shot):
    sign_up(b, server.base, "solver")
    open_puzzle(b, server.base, puzzle)
    assert solved_marks(b) == []
    # A newcomer's rating, and the puzzle's, before any result.
    assert b.text("#rating") == said_with("puzzles.rating.mine", rating="1500?"), b.text("#rating")
    assert b.text("#puzzle-rating") == said_with("puzzles.rating.puzzle", rating="1500?")
    wrong = a_wrong_try(b, puzzle)
    if wrong:
        wait_until("the hint", lambda: (feedback(b) or [None])[0] == "hint")
        assert solved_marks(b) == []
        # The failure is the first result: the rating falls, by as much as it says.
        wait_until("rated", lambda: "(−" in b.text("#rating"))
        rating = stored_puzzles(b)["rating"]["rating"]
        assert rating < 1500, rating
        drop = 1500 - round(rating)
        shown = said_with("puzzles.rating.mine", rating=f"{round(rating)}?") + f" (−{drop})"
        assert b.text("#rating") == shown, b.text("#rating")
        assert b.text("#puzzle-rating") != said_with("puzzles.rating.puzzle", rating="1500?")
    play(b, puzzle["answer"])
    wait_until("solved", lambda: (feedback(b) or [None])[0] == "success")
    assert solved_marks(b) == [puzzle["id"]]
    if wrong:
        # Solved after a failure: kept as solved, not rated again.
        wait_until("not rated again", lambda: b.text("#rating") == said_with("puzzles.rating.unchanged", rating=f"{round(rating)}?"))
    else:
        wait_until("rated", lambda: "(+" in b.text("#rating"))
    b.screenshot(shot)
    # Kept with the account: the mark is there after a reload.
    wait_until("stored", lambda: b.js("return fetch('/api/me/puzzles').then(r => r.json()).then(j => j.solved);") == [puzzle["id"]])
    b.refresh()
    wait_until("remembered", lambda: b.js("return document.body.dataset.loaded") == "true" and solved_marks(b) == [puzzle["id"]])
    assert "✓" in b.text("#title")


def shown_puzzle(b):
    """The puzzle on the board (in streak mode too, where the address says `#streak`)."""
    return b.js("return document.querySelector('#steps button[aria-current]').dataset.puzzle;")


def a_streak_counts_solves_until_a_wrong_try(server, b, shot, signed_in):
    """Streak mode: one puzzle solved counts 1, a wrong try on the next ends the streak
    at 1, and 1 is kept as the best (by the server when signed in, else the browser)."""
    open_puzzle(b, server.base, PUZZLES[0])
    b.click("#to-streak")
    wait_until(f"{b.name}: streak mode", lambda: b.visible("#streak"))
    assert b.js("return location.hash") == "#streak"
    assert not b.visible("#steps") and b.visible("#to-all") and not b.visible("#to-streak")
    assert b.text("#streak") == said_with("puzzles.streak.count", count=0)
    by_id = {p["id"]: p for p in PUZZLES}
    # The easiest first: no puzzle shown first is rated above another.
    ratings = {p["id"]: p["rating"]["rating"] for p in b.js("return fetch('/api/puzzles').then(r => r.json());")["puzzles"]}
    first = by_id[shown_puzzle(b)]
    assert ratings[first["id"]] == min(ratings.values()), (first["id"], ratings)
    play(b, first["answer"])
    wait_until(f"{b.name}: one solved", lambda: b.text("#streak") == said_with("puzzles.streak.count", count=1))
    b.click("#next")
    second = by_id[shown_puzzle(b)]
    assert second["id"] != first["id"]
    assert ratings[second["id"]] >= ratings[first["id"]]
    assert a_wrong_try(b, second), "a wrong try on the second puzzle"
    wait_until(f"{b.name}: the streak ends", lambda: b.text("#streak") == said_with("puzzles.streak.over", count=1))
    wait_until(f"{b.name}: the best", lambda: b.text("#streak-best") == said_with("puzzles.streak.best", count=1))
    assert b.visible("#streak-again") and not b.visible("#next")
    assert not b.wide(), b.wide()
    b.screenshot(shot)
    if signed_in:
        wait_until("the best kept", lambda: stored_puzzles(b)["best_streak"] == 1)
    else:
        assert b.js("return localStorage.getItem('punct-puzzle-streak');") == "1"
    # The address opens streak mode again; its button leads back to the list.
    b.refresh()
    wait_until(f"{b.name}: streak mode again", lambda: b.js("return document.body.dataset.loaded") == "true" and b.visible("#streak"))
    assert b.text("#streak-best") == said_with("puzzles.streak.best", count=1)
    b.click("#to-all")
    assert b.visible("#steps") and not b.visible("#streak")


def a_puzzle_solved_as_a_guest(server, b, puzzle, shot):
    open_puzzle(b, server.base, puzzle)
    assert not b.wide(), b.wide()
    play(b, puzzle["answer"])
    wait_until("solved", lambda: (feedback(b) or [None])[0] == "success")
    assert solved_marks(b) == [puzzle["id"]]
    b.screenshot(shot)


if __name__ == "__main__":
    main()
