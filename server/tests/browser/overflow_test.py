#!/usr/bin/env python3
"""Browser test of the longest words: every page, in each of the nine languages, on a
phone 390 pixels wide, is no wider than the screen. A word that does not wrap (a German
compound, a Polish or Russian inflection) would make the page scroll sideways; the test
names the elements that stick out. Every page has the same navigation, which a phone
folds into a menu button.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: overflow_test.py SERVER_BINARY SCREENSHOT_DIR
"""

import time

from selenium.webdriver.common.keys import Keys

from harness import run, wait_until

LANGUAGES = ["en", "de", "fr", "it", "nl", "es", "pl", "ru", "cs"]

# Every page a visitor without an account reaches (the moderators' pages are served to
# moderators only), with the element whose words the page's script writes last.
PAGES = [
    ("/", "#sign-in"),
    ("/leaderboard", "main h2"),
    ("/games", "main h2"),
    ("/mine", "main h2"),
    ("/account", "main h2"),
    ("/analysis", "#status"),
    ("/how-to-play", "#kind-list"),
    ("/offline", "main h2"),
    ("/learn", "#title"),
    ("/puzzles", "#text"),
    ("/tournaments", "main h2"),
    ("/player/nobody-at-all", "main"),
    ("/tournament/nothing-here", "main"),
]

# The elements reaching past the screen's right edge, and the page's own width: what
# scrolling sideways would show. What a box clips (a board's drawing, a table that
# scrolls in its panel) is not the page's.
OVERFLOW = """
const width = document.documentElement.clientWidth;
const clipped = (e) => {
  for (let up = e.parentElement; up && up !== document.body; up = up.parentElement) {
    if (up instanceof SVGElement || getComputedStyle(up).overflowX !== 'visible') return true;
  }
  return false;
};
const out = [];
for (const e of document.querySelectorAll('body *')) {
  const box = e.getBoundingClientRect();
  if (box.width === 0 || e.closest('[hidden]') || clipped(e)) continue;
  if (box.right > width + 1) out.push(`${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}: ${Math.round(box.right)} px`);
}
return { width, scroll: document.documentElement.scrollWidth, out: out.slice(0, 8) };
"""


def main():
    run("overflow", scenario)


def scenario(server, browser):
    base = server.base
    room = server.create_room(variant="standard", color="white")["room"]
    pages = PAGES + [(f"/room/{room}", "#connection")]
    phone = browser("phone", phone=True)
    failures = []
    navigation = {}
    for code in LANGUAGES:
        phone.go(base + "/")
        phone.js("document.cookie = arguments[0];", f"punct_lang={code}; path=/")
        for path, written in pages:
            phone.go(base + path)
            wait_until(f"{path} in {code}", lambda: phone.js("return document.documentElement.lang;") == code)
            phone.find(written)
            # The scripts draw what they write after the page loads: let them finish.
            time.sleep(0.3)
            found = phone.js(OVERFLOW)
            if found["scroll"] > found["width"] or found["out"]:
                failures.append(f"{code} {path}: {found['scroll']} px wide on a {found['width']} px screen: {found['out']}")
                phone.screenshot(f"overflow-{code}-{path.strip('/').replace('/', '-') or 'lobby'}.png")
            navigation.setdefault(phone.js(NAVIGATION), []).append(f"{code} {path}")
            if code in ("en", "de") and path in ("/", "/learn"):
                menu(phone, f"{code} {path}", failures)
    assert len(navigation) == 1, f"the pages' navigations differ: {navigation}"
    assert not failures, "\n".join(failures)


# Where the header's navigation leads: the same on every page.
NAVIGATION = "return [...document.querySelectorAll('header nav.site-nav a')].map((a) => new URL(a.href).pathname).join(' ');"


def menu(phone, page, failures):
    """On a phone the navigation folds into its menu button: pressing it shows every link
    on the screen, and Escape folds it again."""
    assert not phone.visible("#site-links a"), f"{page}: the links are folded"
    phone.click(".menu-toggle")
    links = phone.js("return [...document.querySelectorAll('#site-links a')].map((a) => a.getBoundingClientRect().toJSON());")
    width = phone.js("return document.documentElement.clientWidth;")
    if len(links) < 7 or any(box["width"] == 0 or box["right"] > width + 1 for box in links):
        failures.append(f"{page}: the opened menu's links are not all on the screen: {links}")
        phone.screenshot(f"menu-{page.replace(' ', '-').replace('/', '')}.png")
    assert phone.js("return document.querySelector('.menu-toggle').getAttribute('aria-expanded');") == "true"
    phone.js("document.querySelector('.menu-toggle').focus();")
    phone.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(f"{page}: the menu folded", lambda: not phone.visible("#site-links a"))


if __name__ == "__main__":
    main()
