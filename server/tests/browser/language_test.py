#!/usr/bin/env python3
"""Browser tests of the languages: a browser that asks for German gets the pages in German
(what the server writes and what the scripts build: the tutorial's lessons, the puzzles
and the colour switch too), and the switch in the header turns them French and keeps
them so from page to page, the game page too.

Run by `.ci/browser-tests`; the shared parts are in `harness.py`.

Usage: language_test.py SERVER_BINARY SCREENSHOT_DIR
"""

from selenium.webdriver.support.select import Select

from harness import run, wait_until


def lang(b):
    return b.js("return document.documentElement.lang;")


def headings(b):
    """The texts of the page's panel headings."""
    return b.js("return [...document.querySelectorAll('main h2')].map((h) => h.textContent);")


def german_from_the_browser(base, b):
    b.go(base + "/")
    assert lang(b) == "de", lang(b)
    assert "Neue Partie" in headings(b), headings(b)
    assert any(h.startswith("Sofort spielen") for h in headings(b)), headings(b)
    assert b.js("return document.title;") == "PÜNCT — Lobby"
    # Built by the scripts, from the catalogue in the page.
    wait_until("the account buttons in German", lambda: b.text("#sign-in") == "Anmelden")
    assert b.text("#sign-up") == "Registrieren"
    assert b.js("return document.getElementById('language').value;") == "de"
    b.screenshot("language-lobby-de.png")
    b.go(base + "/how-to-play")
    assert b.text("#goal h2") == "Das Ziel"
    wait_until("the kinds in German", lambda: "gewinkelt, PÜNCT in der Ecke" in b.text("#kind-list"))
    # The tutorial: the page's words and the lesson's, from the catalogue.
    b.go(base + "/learn#drop")
    assert b.js("return document.title;") == "PÜNCT — spielen lernen"
    wait_until("a lesson in German", lambda: b.text("#title") == "Lektion 1: Einen Stein einsetzen")
    assert b.text("#text").startswith("Du spielst Weiß und bist am Zug."), b.text("#text")
    assert b.text("#place") == "Spielen"
    # The puzzles, and the colour switch that theme.js builds from the page's catalogue.
    b.go(base + "/puzzles#connect-1")
    assert b.js("return document.title;") == "PÜNCT — Rätsel"
    wait_until("a puzzle in German", lambda: b.text("#title") == "Rätsel 1: verbinden")
    assert b.text("#text").startswith("Schwarz am Zug: Verbinde"), b.text("#text")
    assert b.text("#keeping") == "Melde dich an, damit deine gelösten Rätsel gespeichert werden."
    options = b.js("return [...document.querySelectorAll('#theme option')].map(o => o.textContent);")
    assert options == ["Farben des Systems", "Hell", "Dunkel"], options
    assert b.js("return document.getElementById('theme').title;") == "Helle oder dunkle Farben"


def french_from_the_switch(base, b):
    b.go(base + "/")
    Select(b.find("#language")).select_by_value("fr")
    wait_until("the lobby in French", lambda: lang(b) == "fr" and "Nouvelle partie" in headings(b))
    wait_until("the account buttons in French", lambda: b.text("#sign-in") == "Se connecter")
    b.screenshot("language-lobby-fr.png")
    # Kept for the next page, whatever the browser asks for.
    b.go(base + "/how-to-play")
    assert lang(b) == "fr", lang(b)
    assert b.text("#goal h2") == "Le but"
    b.go(base + "/")
    # The lobby's script is running once the account buttons are drawn: the form is its.
    wait_until("the lobby's script", lambda: b.text("#sign-in") == "Se connecter")
    Select(b.find("select[name=color]")).select_by_value("white")
    b.click("#create-room")
    wait_until("in the room, in French", lambda: b.text("#you") == "Vous jouez les blancs")
    assert b.text("#player-white b") == "○ Blanc"
    wait_until("online, in French", lambda: b.text("#connection") == "en ligne")
    assert b.text("#reserve-white small") == "encore 18", b.text("#reserve-white small")
    b.screenshot("language-room-fr.png")


def phone_in_dutch(base, b):
    b.go(base + "/leaderboard")
    assert lang(b) == "nl", lang(b)
    assert b.text("main h2").startswith("Ranglijst"), b.text("main h2")


def main():
    run("language", scenario)


def scenario(server, browser):
    base = server.base
    german = browser("german", lang="de")
    german_from_the_browser(base, german)
    french_from_the_switch(base, german)
    phone_in_dutch(base, browser("dutch phone", phone=True, lang="nl"))


if __name__ == "__main__":
    main()
