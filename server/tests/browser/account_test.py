#!/usr/bin/env python3
"""Browser tests of the account page: the list of sessions, changing the password (which
signs the other device out), the header of a signed-in page, the data to download,
hostile text that must stay text, and deleting the account.

Run by `.ci/browser-tests` after `newcomer_test.py`; the shared parts are in `harness.py`.

Usage: account_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import json
import time

from harness import run, wait_until

PASSWORD = "a fine password"
NEW_PASSWORD = "another fine one"


def sign_in(b, base, username, password, create):
    """Registers (`create`) or signs in to `username` from the lobby's dialog."""
    b.go(base + "/")
    b.click("#sign-up" if create else "#sign-in")
    b.type("#account-form input[name=username]", username)
    b.type("#account-form input[name=password]", password)
    b.click("#account-submit")
    wait_until(f"{b.name} signed in as {username}", lambda: b.text("#me") == username)


def fill(b, form, **fields):
    for name, value in fields.items():
        b.type(f"#{form} input[name={name}]", value)
    b.click(f"#{form} button")


def sessions_and_password(base, laptop, phone):
    sign_in(laptop, base, "anna", PASSWORD, create=True)
    sign_in(phone, base, "anna", PASSWORD, create=False)
    laptop.click("#my-account")
    wait_until("both sessions listed", lambda: len(laptop.driver.find_elements("css selector", "#sessions tbody tr")) == 2)
    rows = laptop.text("#sessions tbody")
    assert "Chrome on Android" in rows, rows
    assert "this device" in rows, rows
    laptop.screenshot("account-sessions.png")

    fill(laptop, "password", password="not hers at all", new_password=NEW_PASSWORD)
    wait_until("the wrong password refused", lambda: "not the account's password" in laptop.text("#status"))
    fill(laptop, "password", password=PASSWORD, new_password=NEW_PASSWORD)
    wait_until("the password changed", lambda: "changed" in laptop.text("#status"))
    wait_until("one session left", lambda: len(laptop.driver.find_elements("css selector", "#sessions tbody tr")) == 1)
    phone.go(base + "/account")
    wait_until("the phone signed out", lambda: phone.visible("#forgot-panel"))
    assert not phone.visible("#signed-in-panels")
    phone.screenshot("account-signed-out.png")


def export(base, laptop):
    data = laptop.js(
        "return fetch('/api/me/export').then((r) => r.text());"
    )
    exported = json.loads(data)
    assert exported["account"]["username"] == "anna", exported
    assert len(exported["sessions"]) == 1, exported


def hostile_status(base, laptop):
    """An address that is markup is shown as text, never run."""
    hostile = "<img src=x onerror=window.pwned=1>@example.org"
    laptop.js("document.querySelector('#email input').type = 'text';")
    fill(laptop, "email", email=hostile)
    wait_until("the address refused", lambda: "not a mail address" in laptop.text("#status"))
    time.sleep(0.3)
    assert not laptop.js("return window.pwned === 1;")
    assert not laptop.driver.find_elements("css selector", "#status img")


def deletion(base, laptop):
    fill(laptop, "delete", password=NEW_PASSWORD)
    laptop.driver.switch_to.alert.accept()
    wait_until("the account deleted", lambda: "deleted player 1" in laptop.text("#status"))
    laptop.screenshot("account-deleted.png")
    wait_until("back in the lobby, signed out", lambda: laptop.visible("#sign-in"))


def one_line_header(base, b):
    """Signed in at 1280 px, every page's header stays one line: the site's links fold
    into the menu where the account corner and the switches leave them no room, and
    come back once the window is wide enough."""
    for page in ("/", "/learn", "/puzzles", "/tournaments", "/games", "/account"):
        b.go(base + page)
        b.find("#sign-out")
        b.find("#theme")
        wait_until(f"one line on {page}", lambda: b.rect("header")["height"] < 50)
    b.go(base + "/learn")
    b.find("#sign-out")
    wait_until("the links folded", lambda: b.visible(".menu-toggle") and not b.visible("#site-links a[href='/puzzles']"))
    b.click(".menu-toggle")
    wait_until("the menu open", lambda: b.visible("#site-links a[href='/puzzles']"))
    b.screenshot("header-folded-menu.png")
    b.driver.set_window_size(1800, 900)
    wait_until("the links back in the header", lambda: not b.visible(".menu-toggle") and b.visible("#site-links a[href='/puzzles']"))
    assert b.rect("#site-links")["top"] < 30, "in the header, not an open menu under it"
    assert b.rect("header")["height"] < 50
    b.driver.set_window_size(1280, 900)
    wait_until("folded again", lambda: b.visible(".menu-toggle"))
    # Back where the next checks begin.
    b.go(base + "/account")
    b.find("#email input")


def main():
    run("account", scenario)


def scenario(server, browser):
    base = server.base
    laptop = browser("laptop")
    phone = browser("phone", phone=True)
    sessions_and_password(base, laptop, phone)
    one_line_header(base, laptop)
    export(base, laptop)
    hostile_status(base, laptop)
    deletion(base, laptop)


if __name__ == "__main__":
    main()
