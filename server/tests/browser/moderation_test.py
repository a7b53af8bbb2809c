#!/usr/bin/env python3
"""Browser tests of moderation: a player reports a line of chat from the game page, a
moderator (made so by `punct-server admin`) reads the queue, removes the line (every
window sees it removed at once) and warns the player, who reads the warning on the
account page; a player blocks another from their page; hostile text in lines and
reasons stays text; a player is refused the moderators' pages.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: moderation_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import subprocess
import time

from account_test import sign_in
from harness import http, run, wait_until

PASSWORD = "a fine password"
HOSTILE_LINE = "<img src=x onerror=window.pwned=1> you are all fools"
HOSTILE_REASON = "<script>window.pwned=1</script> insults"


def pwned(b):
    return b.js("return window.pwned === 1;")


def scenario(server, browser):
    base = server.base
    anna = browser("anna")
    bert = browser("bert", phone=True)
    mona = browser("mona")
    sign_in(mona, base, "mona", PASSWORD, create=True)
    sign_in(anna, base, "anna", PASSWORD, create=True)
    sign_in(bert, base, "bert", PASSWORD, create=True)
    binary, database = server.command[0], server.command[-1]
    granted = subprocess.run(
        [binary, "admin", "grant", "mona", "moderator", "--database", database],
        capture_output=True, text=True, check=True,
    )
    assert "mona is now moderator" in granted.stdout, granted

    # A game both of whose seats are taken: Anna and Bert watch it and talk.
    seat = server.create_room()
    http("POST", f"{base}/api/rooms/{seat['room']}/seat", {})
    for b in (anna, bert):
        b.go(f"{base}/room/{seat['room']}")
        b.find("#chat-input")
    bert.type("#chat-input", HOSTILE_LINE)
    bert.click("#chat-send")
    line = "#chat-lines li .text"
    wait_until("Anna hears Bert", lambda: HOSTILE_LINE in anna.text("#chat-lines"))
    assert not anna.driver.find_elements("css selector", "#chat-lines img"), "a line is text"
    anna.click("#chat-lines li .report")
    anna.type(".report-form input[name=reason]", HOSTILE_REASON)
    anna.click(".report-form button[type=submit]")
    wait_until("the report sent", lambda: "Reported" in anna.text(".report-form"))
    anna.screenshot("moderation-reported.png")

    # A player is refused the moderators' page.
    status = anna.js("return fetch('/mod').then((r) => r.status);")
    assert status == 403, status

    # The moderator reads the queue: the line and the reason, as text.
    mona.go(base + "/mod")
    wait_until("the report in the queue", lambda: "insults" in mona.text("#reports"))
    queue = mona.text("#reports")
    assert HOSTILE_LINE in queue and HOSTILE_REASON in queue, queue
    assert not mona.driver.find_elements("css selector", "#reports img, #reports script")
    mona.screenshot("moderation-queue.png")
    mona.type("#reason", "insulting the table")
    buttons = mona.driver.find_elements("css selector", "#reports button")
    next(b for b in buttons if b.text == "Remove the line").click()
    wait_until("the line removed", lambda: "Done" in mona.text("#message"))
    wait_until("the queue empty", lambda: "No open reports" in mona.text("#reports"))
    for b in (anna, bert):
        wait_until(f"{b.name} sees the line removed", lambda b=b: "removed by a moderator" in b.text("#chat-lines"))
        assert HOSTILE_LINE not in b.text("#chat-lines")
    bert.screenshot("moderation-removed-phone.png")

    # The player's record, and a warning.
    mona.go(base + "/mod/players/bert")
    wait_until("Bert's record", lambda: mona.text("#record-name") == "bert")
    assert "line removed" in mona.text("#record-actions"), mona.text("#record-actions")
    assert mona.text("#record-addresses"), "the hashed addresses"
    mona.driver.find_element("css selector", "#action select").send_keys("Warn")
    mona.type("#action input[name=reason]", "<b>mind</b> your words")
    mona.click("#action button")
    wait_until("the warning in the record", lambda: "warning" in mona.text("#record-actions"))
    mona.screenshot("moderation-record.png")
    mona.go(base + "/mod/log")
    wait_until("the audit log", lambda: "insulting the table" in mona.text("#entries"))
    assert "<b>mind</b> your words" in mona.text("#entries")

    bert.go(base + "/account")
    wait_until("Bert reads his warning", lambda: "<b>mind</b> your words" in bert.text("#warnings"))
    bert.screenshot("moderation-warning-phone.png")

    # Anna blocks Bert from his page; her account page lists him.
    anna.go(base + "/player/bert")
    wait_until("the block button", lambda: anna.visible("#block"))
    anna.click("#block")
    wait_until("blocked", lambda: anna.text("#block") == "Unblock")
    anna.go(base + "/account")
    wait_until("the block listed", lambda: "bert" in anna.text("#blocks"))
    anna.screenshot("moderation-blocks.png")
    time.sleep(0.3)
    for b in (anna, bert, mona):
        assert not pwned(b), f"hostile text ran in {b.name}'s window"


if __name__ == "__main__":
    run("moderation", scenario)
