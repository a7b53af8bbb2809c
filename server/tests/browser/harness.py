"""The shared parts of the browser tests: the server under test, Chromium windows driven
by Selenium, screenshots and waiting.

A test module starts a `Server` from the binary `.ci/browser-tests` built, opens a
`Browser` per person (a desktop window of 1280x900, or a phone of 390x844 emulated) and
drives the pages through it. Every page gets `SOCKET_PROBE` before its own scripts.
Chromium and chromedriver are Debian's: the driver is named by its path, so Selenium
Manager never downloads one.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from support import free_port, http, wait_until  # noqa: E402  (the path is set just above)

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

ROOT = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.join(ROOT, "..", "..", "..", "rules", "tests", "records")

# White links B1 to K17 in the 11th turn (server/tests/it/games.rs, WHITE_CONNECTS).
WHITE_CONNECTS = """B2:B1,B3 A3:A2,A4 B5:B4,B6 A6:A5,A7 B7:B8,B9 B10:C11,D12 C10:D11,E12
C1:D1,E1 F13:G14,H15 E13:F14,G15 I15:J16,K17""".split()

DESKTOP = (1280, 900)
PHONE = (390, 844)

# Installed in every page before its own scripts: keeps each WebSocket and the types of
# the messages it received, and while `testBlocked` is set makes new connections fail, so
# a test can cut a page off the server and let it come back. It also counts the sounds
# the page starts (`testBeeps`), since a headless browser plays none.
SOCKET_PROBE = """
(() => {
  const Native = window.WebSocket;
  window.testSockets = [];
  window.testReceived = [];
  window.testBlocked = false;
  window.WebSocket = class extends Native {
    constructor(url, ...rest) {
      super(window.testBlocked ? 'ws://127.0.0.1:1/' : url, ...rest);
      window.testSockets.push(this);
      this.addEventListener('message', (e) => window.testReceived.push(JSON.parse(e.data).type));
    }
  };
  window.testBeeps = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.testBeeps++;
    return start.apply(this, args);
  };
})();
"""


def record(name):
    """The turns of a game record of the rules crate's tests."""
    with open(os.path.join(RECORDS, name)) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def ready(url):
    try:
        urllib.request.urlopen(url, timeout=1)
        return True
    except OSError:
        return False


class Server:
    """The server binary on a free port of the loopback, with a database of its own."""

    def __init__(self, binary):
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        database = os.path.join(tempfile.mkdtemp(prefix="punct-web-"), "punct.db")
        self.command = [binary, "--listen", f"127.0.0.1:{port}", "--database", database]
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(self.command)
        wait_until("the server", lambda: ready(self.base + "/healthz"))

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def restart(self):
        """Stops the server and starts it again on the same database and port."""
        self.stop()
        self.start()

    def create_room(self, **request):
        """Creates a room over the API; answers the granted seat (room, color, token)."""
        return http("POST", self.base + "/api/rooms", request)


class Browser:
    """One Chromium window with its own storage, driven by Selenium."""

    def __init__(self, name, shots, phone=False, lang=None):
        self.name = name
        self.shots = shots
        self.phone = phone
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or ""
        width, height = PHONE if phone else DESKTOP
        for arg in (
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            f"--user-data-dir={tempfile.mkdtemp(prefix='punct-chrome-')}",
            f"--window-size={width},{height}",
        ):
            options.add_argument(arg)
        if lang:
            # The browser's language, as it asks for pages in `Accept-Language`.
            options.add_argument(f"--lang={lang}")
            options.add_experimental_option("prefs", {"intl.accept_languages": lang})
        if phone:
            # A headless window is at least 500 pixels wide: a phone is emulated.
            options.add_experimental_option(
                "mobileEmulation",
                {
                    "deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0, "touch": True},
                    "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
                    "(KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
                },
            )
        service = Service(executable_path=shutil.which("chromedriver"))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": SOCKET_PROBE})

    def cdp(self, command, params=None):
        return self.driver.execute_cdp_cmd(command, params or {})

    def go(self, url):
        self.driver.get(url)

    def refresh(self):
        self.driver.refresh()

    def back(self):
        self.driver.back()

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def find(self, css, timeout=15):
        """The element matching `css`, waiting for it to appear."""
        def lookup():
            found = self.driver.find_elements(By.CSS_SELECTOR, css)
            return found[0] if found else None
        return wait_until(f"{self.name}: {css}", lookup, timeout)

    def click(self, css):
        """Clicks the element matching `css`. The pages redraw often: an element replaced
        between being found and clicked is found again."""

        def clicked():
            try:
                self.find(css).click()
                return True
            except StaleElementReferenceException:
                return False

        wait_until(f"{self.name}: click {css}", clicked)

    def press(self, css, key):
        """Focuses the element matching `css` and presses `key` on it. The board is drawn
        again as the game's news arrives: an element replaced between the focus and the
        key is found and focused again (the key never reached it)."""

        def pressed():
            try:
                self.js("document.querySelector(arguments[0]).focus();", css)
                self.driver.switch_to.active_element.send_keys(key)
                return True
            except StaleElementReferenceException:
                return False

        wait_until(f"{self.name}: {css} takes a key", pressed)

    def type(self, css, text):
        """Replaces the text of the input `css` with `text`."""
        element = self.find(css)
        element.clear()
        element.send_keys(text)

    def text(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css)

    def visible(self, css):
        """Whether an element matching `css` is laid out (not hidden)."""
        return self.js("const e = document.querySelector(arguments[0]); return !!(e && e.offsetParent);", css)

    def rect(self, css):
        """The element's box in the viewport: left, top, right, bottom, width, height."""
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.getBoundingClientRect().toJSON() : null;", css)

    def board(self):
        """The data attributes the game page keeps on its board."""
        return self.js("return Object.assign({}, document.getElementById('board').dataset);")

    def connection(self):
        return self.js("return document.getElementById('connection').dataset.state;")

    def received(self):
        """The types of the messages the page received, over all its connections."""
        return self.js("return window.testReceived;")

    def room(self):
        """The id of the room the page shows."""
        return self.js("return location.pathname.split('/')[2];")

    def set_hidden(self, hidden):
        """Makes the page believe its tab is hidden (or shown again), as switching tabs
        would, and tells it so."""
        self.js(
            "const hidden = arguments[0];"
            "Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});"
            "Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => hidden ? 'hidden' : 'visible'});"
            "document.dispatchEvent(new Event('visibilitychange'));",
            hidden,
        )

    def wide(self):
        """The elements that stick out of the viewport on the right. What is drawn inside
        an SVG picture is left out: the picture clips it (a cropped board)."""
        return self.js(
            "const w = document.documentElement.clientWidth;"
            "return [...document.querySelectorAll('body *')]"
            ".filter(e => !e.ownerSVGElement && e.getBoundingClientRect().right > w + 1)"
            ".map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));"
        )

    def screenshot(self, name):
        """Saves a screenshot as `name` in the screenshot folder."""
        self.driver.save_screenshot(os.path.join(self.shots, name))

    def quit(self):
        self.driver.quit()


class Game:
    """A room with two players and a spectator, each in their own browser."""

    def __init__(self, base, white, black, watchers):
        self.base = base
        self.white = white
        self.black = black
        self.watchers = watchers
        self.room = None
        self.played = []

    def everyone(self):
        return [self.white, self.black, *self.watchers]

    def mover(self):
        return self.white if len(self.played) % 2 == 0 else self.black

    def wait_turns(self, n):
        for b in self.everyone():
            wait_until(f"{b.name} shows turn {n} (it says: {b.text('#message')!r}, {b.board()})", lambda: b.board().get("shown") == str(n) and b.board().get("turns") == str(n))

    def wait_my_turn(self):
        b = self.mover()
        wait_until(f"{b.name} may move", lambda: b.board().get("myTurn") == "true")
        return b

    def typed(self, turn):
        """Plays `turn` by typing it into the notation box."""
        b = self.wait_my_turn()
        b.type("#notation", turn + "\n")
        self.done(turn)

    def clicked(self, turn, shot=None):
        """Plays `turn` with the mouse: pick the piece, pick the cell, rotate, place.
        Returns the reserve kind picked for a drop. `shot`: a file for a screenshot of
        the lit destinations of a moved piece."""
        b = self.wait_my_turn()
        origin = turn.split(":")[0]
        mine = color(len(self.played))
        shown = False
        if "-" in origin:
            kind = None
            b.click(f'polygon[data-cell="{origin.split("-")[0]}"]')
            if shot:
                b.find("polygon.target")
                b.screenshot(shot)
            shown = self.reaches(b, turn)
        else:
            # Try each kind the reserve offers until one reaches the turn.
            kinds = b.js(f"return [...document.querySelectorAll('#reserve-{mine} button.kind:not(:disabled)')].map(e => e.dataset.kind);")
            for kind in kinds:
                b.click(f'#reserve-{mine} button[data-kind="{kind}"]')
                if b.js("return !!document.querySelector(arguments[0]);", f'polygon.target[data-cell="{origin}"]'):
                    shown = self.reaches(b, turn)
                    if shown:
                        break
        assert shown, f"no piece and orientation shows {turn}"
        b.click("#place")
        self.done(turn)
        return kind

    @staticmethod
    def reaches(b, turn):
        """Picks the PÜNCT's cell and rotates until the preview shows `turn`."""
        punct = turn.split(":")[0].split("-")[-1]
        b.click(f'polygon.target[data-cell="{punct}"]')
        seen = set()
        while b.board()["ghost"] not in seen:
            if b.board()["ghost"] == turn:
                return True
            seen.add(b.board()["ghost"])
            b.click("#rotate")
        return False

    def done(self, turn):
        self.played.append(turn)
        self.wait_turns(len(self.played))
        for b in self.everyone():
            last = b.js("return [...document.querySelectorAll('#turns .turn .text')].at(-1)?.textContent;")
            assert last == turn, f"{b.name} lists {last}, not {turn}"


def seated_game(server, white, black):
    """A new standard room with `white` and `black` in its seats, each seated by the token
    the API granted (kept in the page's storage, as a page that took the seat keeps it) and
    on the room's page: a `Game` without watchers."""
    granted = server.create_room(variant="standard", color="white")
    room = granted["room"]
    other = http("POST", f"{server.base}/api/rooms/{room}/seat", {})
    for b, token in ((white, granted["token"]), (black, other["token"])):
        b.go(server.base + "/")
        b.js("localStorage.setItem(arguments[0], arguments[1]);", f"punct-seat:{room}", token)
        b.go(f"{server.base}/room/{room}")
    game = Game(server.base, white, black, [])
    game.room = room
    return game


def color(played):
    return "white" if played % 2 == 0 else "black"


def position(base, room, n):
    return http("GET", f"{base}/api/rooms/{room}/position/{n}")


def run(name, scenario):
    """Runs one module's browser tests: starts the server named on the command line and
    calls `scenario(server, browser)`, where `browser(name, phone=False, lang=None)` opens a
    window (asking for pages in `lang`, if given) that saves its screenshots in the folder
    named there. Every window is closed and the
    server stopped however the scenario ends."""
    server_binary, shots = sys.argv[1], sys.argv[2]
    os.makedirs(shots, exist_ok=True)
    server = Server(server_binary)
    browsers = []

    def browser(label, phone=False, lang=None):
        browsers.append(Browser(label, shots, phone=phone, lang=lang))
        return browsers[-1]

    try:
        started = time.monotonic()
        scenario(server, browser)
        print(f"{name} browser tests passed in {time.monotonic() - started:.1f} s; screenshots in {shots}")
    finally:
        for b in browsers:
            b.quit()
        server.stop()
