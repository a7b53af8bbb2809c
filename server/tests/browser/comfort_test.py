#!/usr/bin/env python3
"""Browser tests of what makes the pages comfortable: the contrast of every text in light
and dark colours, on every page and in the states a player meets (signing in, a game
waiting, played, over and rated, watching), the switch between the colours, a turn played
from the keyboard alone, the move sounds and the slide of a moved piece (and no slide for
a reader who asks for less motion).

Run by `.ci/browser-tests`; the shared parts are in `harness.py`. The schemes and the
reduced motion are the reader's system settings, emulated through the DevTools protocol
(`Emulation.setEmulatedMedia`).

Usage: comfort_test.py SERVER_BINARY SCREENSHOT_DIR
"""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from harness import WHITE_CONNECTS, run, wait_until
from people_test import sign_up

PASSWORD = "correct horse battery"

# Records each animation the page starts on an element of the board (`testAnimations`:
# the piece and the first keyframe's transform), since one lasts only a quarter second.
ANIMATION_PROBE = """
(() => {
  window.testAnimations = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (keyframes, options) {
    window.testAnimations.push({ piece: this.getAttribute('data-piece'), from: keyframes[0].transform });
    return animate.call(this, keyframes, options);
  };
})();
"""

# Every visible text of the page against what is behind it, by WCAG 2's contrast ratio:
# 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold). The backdrop of a text is the
# background colours of it and its ancestors, laid over each other until an opaque one;
# a text in an SVG picture stands on the closed shape just before it (a badge's disc),
# or on the picture's backdrop. The opacity of the text and its ancestors fades its
# colour. An empty field's placeholder counts. Disabled controls are left out, as WCAG
# leaves out inactive components, and so are generated contents without letters or
# digits (the dot before the connection's state). Answers the number of texts checked
# and those below their ratio.
CONTRAST = r"""
const parse = (text) => {
  const m = /^rgba?\(([^)]+)\)$/.exec(text);
  if (!m) return null;
  const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
};
const over = (top, under) => ({
  r: top.r * top.a + under.r * (1 - top.a),
  g: top.g * top.a + under.g * (1 - top.a),
  b: top.b * top.a + under.b * (1 - top.a),
  a: 1,
});
const luminance = (c) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
};
const ratio = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const hex = (c) => '#' + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
function backdrop(el) {
  const layers = [];
  for (let n = el; n; n = n.parentElement) {
    // The shapes of a picture paint no CSS background; the picture itself may.
    if (n instanceof SVGElement && !(n instanceof SVGSVGElement)) continue;
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c === null) throw new Error(`unread background ${getComputedStyle(n).backgroundColor}`);
    if (c.a > 0) layers.push(c);
    if (c.a >= 1) break;
  }
  // Under everything, the canvas: white (the root always paints an opaque colour here).
  return layers.reverse().reduce((under, layer) => over(layer, under), { r: 255, g: 255, b: 255, a: 1 });
}
function opacity(el) {
  let product = 1;
  for (let n = el; n; n = n.parentElement) product *= parseFloat(getComputedStyle(n).opacity);
  return product;
}
function name(el) {
  return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '');
}
const checked = [];
const failed = [];
function check(el, text, colour, style) {
  let fg = parse(colour);
  if (fg === null) throw new Error(`unread colour ${colour} of ${name(el)}`);
  const shape = el.previousElementSibling;
  const bg = el instanceof SVGElement && !(el instanceof SVGSVGElement)
    ? (shape && ['circle', 'ellipse', 'rect', 'polygon'].includes(shape.tagName) ? parse(getComputedStyle(shape).fill) : null) ?? backdrop(el.ownerSVGElement)
    : backdrop(el);
  fg = over({ ...fg, a: fg.a * opacity(el) }, bg);
  const size = parseFloat(style.fontSize);
  const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
  const need = large ? 3 : 4.5;
  const got = ratio(fg, bg);
  checked.push(text);
  if (got < need) failed.push(`${name(el)} "${text.slice(0, 40)}": ${got.toFixed(2)}:1 (${hex(fg)} on ${hex(bg)}, needs ${need}:1)`);
}
for (const el of document.querySelectorAll('body *')) {
  if (['SCRIPT', 'STYLE', 'OPTION', 'OPTGROUP', 'DATALIST'].includes(el.tagName)) continue;
  if (el.closest(':disabled')) continue;
  const style = getComputedStyle(el);
  if (el.getClientRects().length === 0 || style.visibility !== 'visible' || opacity(el) < 0.05) continue;
  const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('').trim();
  const svgText = el instanceof SVGElement;
  if (own) check(el, own, svgText ? style.fill : style.color, style);
  if (el.matches('input:not([type=hidden],[type=checkbox],[type=radio]), textarea')) {
    if (el.value.trim()) check(el, el.value, style.color, style);
    else if (el.placeholder) check(el, el.placeholder, getComputedStyle(el, '::placeholder').color, style);
  }
  if (el.matches('select') && el.selectedOptions.length) check(el, el.selectedOptions[0].text, style.color, style);
  for (const pseudo of ['::before', '::after']) {
    const generated = getComputedStyle(el, pseudo);
    if (generated.content !== 'none' && /[\p{L}\p{N}]/u.test(generated.content)) check(el, generated.content, generated.color, generated);
  }
}
return { checked: checked.length, failed };
"""


def emulate(b, scheme="light", motion="no-preference"):
    """Sets the system's colour scheme and motion preference the page sees."""
    b.cdp(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}, {"name": "prefers-reduced-motion", "value": motion}]},
    )


def legible(b, what, shot):
    """Checks the contrast of every text on the page shown, in light and dark colours
    (the system's, with no colours chosen), with a screenshot of each."""
    for scheme in ("light", "dark"):
        emulate(b, scheme)
        dark = b.js("return matchMedia('(prefers-color-scheme: dark)').matches;")
        assert dark == (scheme == "dark"), f"{b.name}: the page does not see the {scheme} scheme"
        result = b.js(CONTRAST)
        assert result["checked"] >= 5, f"{b.name}, {what} ({scheme}): only {result['checked']} texts found"
        assert not result["failed"], f"{b.name}, {what} ({scheme}): text below WCAG AA contrast:\n" + "\n".join(result["failed"])
        b.screenshot(f"{shot}-{scheme}.png")
    emulate(b, "light")
    return result["checked"]


def background(b):
    """The page's background colour, as the browser computes it."""
    return b.js("return getComputedStyle(document.documentElement).backgroundColor;")


def colours_switch(base, b):
    """The switch chooses light or dark over the system's scheme, and is remembered."""
    b.go(base + "/")
    emulate(b, "light")
    light = background(b)
    b.find("#theme")
    assert b.js("return document.getElementById('theme').value;") == "system"
    b.js("const s = document.getElementById('theme'); s.value = 'dark'; s.dispatchEvent(new Event('change'));")
    dark = background(b)
    assert dark != light, "choosing dark changes nothing"
    b.refresh()
    b.find("#theme")
    emulate(b, "light")
    assert b.js("return document.documentElement.dataset.theme;") == "dark", "the choice is forgotten on reload"
    assert b.js("return document.getElementById('theme').value;") == "dark"
    assert background(b) == dark, "the page is not dark again after a reload"
    # Chosen light holds against a dark system.
    b.js("const s = document.getElementById('theme'); s.value = 'light'; s.dispatchEvent(new Event('change'));")
    emulate(b, "dark")
    assert background(b) == light
    # Back to the system's: it follows the system again.
    b.js("const s = document.getElementById('theme'); s.value = 'system'; s.dispatchEvent(new Event('change'));")
    assert background(b) == dark
    emulate(b, "light")
    assert background(b) == light
    b.refresh()
    assert b.js("return document.documentElement.dataset.theme;") is None


def press(b, *keys):
    """Presses keys on whatever has the keyboard's focus; answers how many. (Not through
    an element: the board's cells are drawn anew on every message.)"""
    for key in keys:
        ActionChains(b.driver).send_keys(key).perform()
    return len(keys)


def new_game(base, b):
    """A standard game against the computer from the lobby, White for `b`."""
    b.go(base + "/")
    b.js("document.querySelector('select[name=color]').value = 'white';")
    b.js("document.querySelector('select[name=computer]').value = '1';")
    b.click("#create-room")
    wait_until("in the room", lambda: b.text("#you") == "You play white")
    wait_until("white to move", lambda: b.board()["myTurn"] == "true")
    return b.room()


def keyboard_drop(b):
    """From a piece of the reserve to a played drop with the keyboard only: Enter picks
    the piece and goes to the nearest lit cell, Enter chooses it, Enter plays it."""
    b.js("document.querySelector('#reserve-white button.kind:not(:disabled)').focus();")
    presses = press(b, Keys.ENTER)
    assert b.js("return document.activeElement.dataset.cell !== undefined;"), "the board did not take the keyboard"
    assert b.js("return document.activeElement.classList.contains('target');"), "the cursor is not on a lit cell"
    presses += press(b, Keys.ENTER)
    chosen = b.board()["ghost"]
    assert chosen, "Enter on a lit cell chose no turn"
    presses += press(b, Keys.ENTER)
    wait_until("the drop played", lambda: b.board()["turns"] in ("1", "2"))
    played = b.js("return document.querySelector('#turns .turn .text').textContent;")
    assert played == chosen, f"Enter played {played}, not the turn shown, {chosen}"
    assert presses <= 3, presses
    print(f"{b.name}: a drop played {presses} key presses after the reserve")
    return played


def keyboard_turn_keys(b):
    """A digit picks that kind of the reserve and goes to the board; Space turns the
    piece on its chosen cell, R turns it too, and Enter there plays it."""
    before = b.board()["turns"]
    b.js("document.activeElement.blur();")
    # The first kind whose nearest lit cell takes it in two orientations or more (three
    # minor cells lit or more), so that there is something to turn.
    for digit in "123456":
        press(b, digit)
        if not b.js("return document.activeElement.classList.contains('target');"):
            continue
        press(b, Keys.ENTER)
        if b.js("return document.querySelectorAll('#board .cell.minor').length;") >= 3:
            break
        press(b, Keys.ESCAPE)
    else:
        raise AssertionError("no digit reached a cell with a piece to turn")
    first = b.board()["ghost"]
    press(b, Keys.SPACE)
    turned = b.board()["ghost"]
    assert turned != first, f"Space did not turn the piece ({first})"
    press(b, "r")
    assert b.board()["ghost"] != turned, "R did not turn the piece"
    press(b, Keys.SPACE)
    shown = b.board()["ghost"]
    press(b, Keys.ENTER)
    wait_until("the turn played", lambda: int(b.board()["turns"]) > int(before))
    played = b.js(f"return document.querySelectorAll('#turns .turn .text')[{before}].textContent;")
    assert played == shown, f"Enter played {played}, not the turn shown, {shown}"


def typed_move(b, punct):
    """Types a legal move of the piece whose PÜNCT is on `punct` to another cell, taken
    from the list of legal turns the notation box offers."""
    b.type("#notation", f"{punct}-")
    offered = wait_until(
        "the legal moves offered",
        lambda: b.js("return [...document.querySelectorAll('#notation-completions option')].map((o) => o.value);"),
    )
    # One that takes the PÜNCT to another cell, so there is a way to slide.
    move = next(m for m in offered if m.split(":")[0] != f"{punct}-{punct}")
    b.type("#notation", move + "\n")
    return move


def slid(animations):
    """Whether `animations` (the probe's) slid one of White's pieces from elsewhere."""
    return any((a["piece"] or "").startswith("white-") and a["from"] != "translate(0px, 0px)" for a in animations)


def sounds_and_slide(base, b, punct):
    """The move sounds' switch is remembered, and a turn played sounds. A moved piece
    slides when the board shows its turn, played or stepped to, but not for a reader who
    asks for less motion. (The page finds each position with its rules engine, which
    .ci/run requires: without it the positions come from the server, and the board may
    skip the move to the computer's answer.)"""
    assert not b.js("return document.getElementById('move-sounds').checked;"), "move sounds are on by default"
    b.click("#move-sounds")
    b.refresh()
    wait_until("the board after the reload", lambda: b.board().get("myTurn") == "true")
    assert b.js("return document.getElementById('move-sounds').checked;"), "the move sounds' switch is forgotten"
    # A key or a click wakes the page's sound (browsers keep it silent until then).
    b.click("#inspect")
    beeps = b.js("return window.testBeeps;")
    turns = int(b.board()["turns"])
    b.js("window.testAnimations.length = 0;")
    move = typed_move(b, punct)
    wait_until(f"the move {move} played", lambda: int(b.board()["shown"]) > turns)
    wait_until("a sound for the move", lambda: b.js("return window.testBeeps;") > beeps)
    assert slid(b.js("return window.testAnimations;")), f"the move {move} played without a slide"
    # The computer's answer sounds too.
    wait_until("the computer's answer", lambda: b.board()["turns"] == str(turns + 2))
    wait_until("a sound for the answer", lambda: b.js("return window.testBeeps;") >= beeps + 2)

    def step_to_move():
        """The animations started by stepping from the turn before the move to it."""
        b.click(f'#turns .turn[data-n="{turns}"]')
        wait_until("the step back", lambda: b.board()["shown"] == str(turns))
        b.js("window.testAnimations.length = 0;")
        b.click("#forward")
        wait_until("the step forward", lambda: b.board()["shown"] == str(turns + 1))
        return b.js("return window.testAnimations;")

    assert slid(step_to_move()), f"stepping forward to the move {move} did not slide its piece"
    emulate(b, "light", motion="reduce")
    assert step_to_move() == [], "a piece slid for a reader who asks for less motion"
    emulate(b, "light")
    b.click("#live")


def resign(b):
    b.click("#resign")
    b.click("#resign")
    wait_until("the game over", lambda: b.visible("#banner") and "resignation" in b.text("#banner"))


def pages(base, b, username, room):
    """Every other page once its data is shown, in both schemes."""
    checked = 0
    for path, shown in [
        ("/games", "document.querySelector('#games tbody tr')"),
        (f"/player/{username}", "document.getElementById('joined').textContent"),
        ("/leaderboard", "document.querySelector('#leaders tbody tr') || !document.getElementById('no-leaders').hidden"),
        ("/account", "document.querySelector('#sessions tbody tr')"),
        ("/mine", "!document.getElementById('no-games').hidden || document.querySelector('#mine tbody tr')"),
        # (Without the rules engine in the page, the analysis board says so instead.)
        (f"/analysis?room={room}", "document.querySelector('#turns li') || !document.getElementById('no-engine').hidden"),
        ("/how-to-play", "document.querySelector('#kind-list li') && !document.querySelector('svg[data-board]:empty')"),
        ("/tournaments", "document.body.dataset.loaded"),
    ]:
        b.go(base + path)
        wait_until(f"{b.name}: {path} shown", lambda: b.js(f"return Boolean({shown});"))
        name = path.strip("/").split("/")[0].split("?")[0]
        checked += legible(b, path, f"contrast-{b.name}-{name}")
    return checked


def walk(base, b, username, keyboard):
    """Signs up, plays and finishes a game, and checks the contrast of every page on the
    way; on the desktop, the game is played from the keyboard."""
    b.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": ANIMATION_PROBE})
    b.go(base + "/")
    b.click("#sign-in")
    b.find("dialog[open]")
    checked = legible(b, "the sign-in dialog", f"contrast-{b.name}-sign-in")
    sign_up(b, base, username, PASSWORD)
    wait_until("the away seat listed", lambda: "(away)" in (b.text("#rooms tbody") or ""))
    checked += legible(b, "the lobby", f"contrast-{b.name}-lobby")
    room = new_game(base, b)
    if keyboard:
        drop = keyboard_drop(b)
        wait_until("the computer's answer", lambda: b.board()["turns"] == "2" and b.board()["myTurn"] == "true")
        sounds_and_slide(base, b, drop.split(":")[0])
        wait_until("white to move", lambda: b.board()["myTurn"] == "true")
        keyboard_turn_keys(b)
    else:
        b.type("#notation", "C4:C5,D5\n")
    wait_until("white to move", lambda: b.board()["myTurn"] == "true")
    b.type("#chat-input", "good luck\n")
    wait_until("the chat line shown", lambda: b.js("return document.querySelectorAll('#chat-lines li').length;"))
    checked += legible(b, "the game", f"contrast-{b.name}-room")
    resign(b)
    checked += legible(b, "the game over", f"contrast-{b.name}-over")
    b.click('#turns .turn[data-n="1"]')
    b.find("#viewing:not([hidden])")
    checked += legible(b, "a past position", f"contrast-{b.name}-past")
    checked += pages(base, b, username, room)
    print(f"{b.name}: {checked} texts checked in each scheme, every one at WCAG AA in light and in dark")


def waiting_room(base, b):
    """A room waiting for an opponent, with its invitation; answers its id."""
    b.go(base + "/")
    b.click("#create-room")
    b.find("#invite:not([hidden])")
    legible(b, "the invitation", f"contrast-{b.name}-invite")
    return b.room()


def seat_offered(base, b, room):
    """A spectator of a room with a free seat is offered it."""
    b.go(f"{base}/room/{room}")
    b.find("#seat-offer:not([hidden])")
    legible(b, "the seat offered", f"contrast-{b.name}-seat-offer")


def rated_game(base, white, black):
    """A rated game between the two accounts, resigned: the changes of the ratings, and
    a player's page with a rating and its chart, in both schemes."""
    white.go(base + "/")
    white.js("document.querySelector('select[name=color]').value = 'white';")
    white.click("#rated")
    white.click("#create-room")
    wait_until("in the rated room", lambda: white.text("#you") == "You play white")
    room = white.room()
    black.go(base + "/")
    black.click(f'tr[data-room="{room}"] button.join')
    wait_until("black seated", lambda: black.text("#you") == "You play black")
    for b, turn in ((white, WHITE_CONNECTS[0]), (black, WHITE_CONNECTS[1])):
        wait_until(f"{b.name} to move", lambda: b.board()["myTurn"] == "true")
        b.type("#notation", turn + "\n")
    wait_until("white to move", lambda: white.board()["myTurn"] == "true")
    # An offer floats over the board.
    white.click("#offer-draw")
    black.find("#draw-answer:not([hidden])")
    legible(black, "a draw offered", f"contrast-{black.name}-draw-offer")
    black.click("#decline-draw")
    wait_until("the offer declined", lambda: white.text("#message"))
    resign(white)
    for b in (white, black):
        wait_until(f"{b.name} sees the ratings", lambda: b.js("return !document.getElementById('ratings').hidden;"))
        legible(b, "the ratings", f"contrast-{b.name}-ratings")
    white.go(base + "/player/ada")
    white.find(".chart circle")
    legible(white, "a player's rating", f"contrast-{white.name}-rating")


def main():
    run("comfort", scenario)


def scenario(server, browser):
    base = server.base
    # A room whose creator never came in: the lobby lists its seat as away.
    server.create_room(variant="standard", color="white")
    desktop = browser("desktop")
    walk(base, desktop, "ada", keyboard=True)
    colours_switch(base, desktop)
    waiting = waiting_room(base, desktop)
    phone = browser("phone", phone=True)
    walk(base, phone, "bert", keyboard=False)
    seat_offered(base, phone, waiting)
    colours_switch(base, phone)
    rated_game(base, desktop, phone)


if __name__ == "__main__":
    main()
