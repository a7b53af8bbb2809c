//! What the pages promise: every text a key of the catalogues and every key asked
//! for, every asset a page loads served and kept offline, every page whole in the one
//! layout, one navigation on each page.

use super::super::template::{NOT_FOR_SCRIPTS, Token, is_void, tokens};
use super::{ASSETS, PAGES};
use crate::i18n::Lang;

/// Attributes that people read (or hear), each translated by `data-i18n-{name}`.
const READ_ATTRIBUTES: [&str; 5] = ["title", "placeholder", "aria-label", "label", "alt"];

/// Whether `text` has words to translate: two letters in a row, but for the game's
/// name.
fn has_words(text: &str) -> bool {
    let text = text.replace("PÜNCT", "");
    let letters: Vec<bool> = text.chars().map(char::is_alphabetic).collect();
    letters.windows(2).any(|pair| pair[0] && pair[1])
}

#[test]
fn every_text_of_the_pages_is_a_key_of_the_catalogues() {
    let english = Lang::En.catalogue();
    for (page, html) in PAGES.iter().map(|(_, page, html)| (*page, *html)).chain([
        ("nav.html", super::layout::NAV),
        ("layout.html", super::layout::LAYOUT),
    ]) {
        // For each element open, whether it (or one around it) has its text by key.
        let mut open: Vec<(String, bool)> = Vec::new();
        for token in tokens(html) {
            match &token {
                Token::Start { name, .. } => {
                    let key = token.attribute("data-i18n");
                    if let Some(key) = key {
                        assert!(english.contains_key(key), "{page}: no key {key}");
                    }
                    for attribute in READ_ATTRIBUTES {
                        let Some(value) = token.attribute(attribute) else {
                            continue;
                        };
                        match token.attribute(&format!("data-i18n-{attribute}")) {
                            Some(key) => {
                                assert!(english.contains_key(key), "{page}: no key {key}")
                            }
                            None => assert!(
                                !has_words(value),
                                "{page}: <{name} {attribute}=\"{value}\"> has no key"
                            ),
                        }
                    }
                    let keyed = key.is_some() || open.last().is_some_and(|(_, keyed)| *keyed);
                    if !is_void(name) {
                        open.push((name.clone(), keyed));
                    }
                }
                Token::End { name, .. } => {
                    let at = open.iter().rposition(|(open, _)| open == name);
                    open.truncate(at.unwrap_or(open.len()));
                }
                Token::Text(text) => {
                    let keyed = open.last().is_some_and(|(_, keyed)| *keyed);
                    let script = open.last().is_some_and(|(name, _)| name == "script");
                    assert!(
                        keyed || script || !has_words(text),
                        "{page}: {:?} has no key",
                        text.trim()
                    );
                }
                Token::Other(_) => {}
            }
        }
    }
}

/// The keys a module asks `t` for: `t('key'` whole, `t(`prefix.${…}` as its prefix.
fn asked(source: &str) -> Vec<(&str, bool)> {
    let mut keys = Vec::new();
    for quote in ['\'', '`'] {
        for (at, call) in source.match_indices(&format!("t({quote}")) {
            // `t` itself, not the end of another name (`split('+')`).
            let before = source[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || "_.$".contains(c)) {
                continue;
            }
            let rest = &source[at + call.len()..];
            let key = rest.split(quote).next().unwrap_or("");
            match key.split_once("${") {
                Some((prefix, _)) => keys.push((prefix, true)),
                None => keys.push((key, false)),
            }
        }
    }
    keys
}

#[test]
fn every_key_the_modules_ask_for_is_in_the_catalogues_given_to_them() {
    let english = Lang::En.catalogue();
    for (module, _, source) in ASSETS.iter().filter(|(name, _, _)| name.ends_with(".js")) {
        let source = std::str::from_utf8(source).expect("modules are UTF-8");
        for (key, prefix) in asked(source) {
            let given = |found: &str| !NOT_FOR_SCRIPTS.iter().any(|p| found.starts_with(p));
            let known = if prefix {
                english.keys().any(|k| k.starts_with(key) && given(k))
            } else {
                english.contains_key(key) && given(key)
            };
            assert!(
                known,
                "{module} asks for {key}, which its page is not given"
            );
        }
    }
}

/// Every Rust source of the server, as text: where the refusals, mail and pages of
/// the server itself ask for their keys.
fn rust_sources() -> Vec<String> {
    let mut sources = Vec::new();
    let mut folders = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).expect("the sources are there") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push(std::fs::read_to_string(path).expect("a source is UTF-8"));
            }
        }
    }
    sources
}

/// Each key built at run time, as its start and its end around the values:
/// `t(`reason.${…}`)` in a module, `format!("mail.{kind}.body")` in Rust.
fn built_keys(source: &str) -> Vec<(&str, &str)> {
    let mut built = Vec::new();
    for (opening, value, close, end) in [("t(`", "${", '}', '`'), ("format!(\"", "{", '}', '"')] {
        for (at, _) in source.match_indices(opening) {
            let rest = &source[at + opening.len()..];
            let Some(whole) = rest.split(end).next() else {
                continue;
            };
            let Some((start, after)) = whole.split_once(value) else {
                continue;
            };
            let finish = after.rsplit(close).next().unwrap_or_default();
            if start.contains('.') && !finish.contains(value) {
                built.push((start, finish));
            }
        }
    }
    built
}

#[test]
fn every_key_of_the_catalogues_is_asked_for_somewhere() {
    let mut sources: Vec<String> = PAGES
        .iter()
        .map(|(_, _, html)| (*html).to_owned())
        .collect();
    sources.push(super::NOT_FOUND.to_owned());
    sources.push(super::layout::NAV.to_owned());
    sources.extend(
        ASSETS
            .iter()
            .filter(|(name, _, _)| name.ends_with(".js") || name.ends_with(".json"))
            .map(|(_, _, bytes)| String::from_utf8_lossy(bytes).into_owned()),
    );
    sources.extend(rust_sources());
    let built: Vec<(&str, &str)> = sources.iter().flat_map(|s| built_keys(s)).collect();
    let asked = |key: &str| {
        let literal = ['"', '\'', '`'].iter().any(|quote| {
            sources
                .iter()
                .any(|s| s.contains(&format!("{quote}{key}{quote}")))
        });
        let made = |(start, end): &(&str, &str)| key.starts_with(start) && key.ends_with(end);
        literal || built.iter().any(made)
    };
    for key in Lang::En.catalogue().keys() {
        assert!(
            asked(key),
            "{key} is in the catalogues, and nothing asks for it"
        );
    }
}

/// The names that follow `prefix` up to `end` in `text`.
fn references<'a>(text: &'a str, prefix: &str, end: char) -> Vec<&'a str> {
    text.split(prefix)
        .skip(1)
        .filter_map(|rest| rest.split(end).next())
        .collect()
}

#[test]
fn the_game_page_has_what_its_no_such_room_version_changes() {
    let (_, _, room) = PAGES
        .iter()
        .find(|(path, _, _)| *path == super::ROOM_PAGE)
        .unwrap();
    assert!(room.contains(super::ROOM_TITLE));
    assert!(room.contains(super::NO_ROOM_PANEL));
    let no_room = std::str::from_utf8(&super::SITE.no_room[0].get().plain).unwrap();
    assert!(no_room.contains("<title>PÜNCT — no such room</title>"));
    assert!(no_room.contains(r#"<section id="no-room" class="panel no-room">"#));
}

#[test]
fn the_service_worker_keeps_the_offline_pages_and_every_asset_served() {
    let site = &*super::SITE;
    let worker = std::str::from_utf8(&site.service_worker.plain).unwrap();
    assert!(worker.contains(&format!("const RELEASE = '{}';", site.version)));
    for page in super::OFFLINE_PAGES {
        assert!(
            PAGES.iter().any(|(path, _, _)| path == page),
            "{page} is a page"
        );
        assert!(worker.contains(&format!("\"{page}\"")), "keeps {page}");
    }
    for ((name, _, _), prepared) in ASSETS.iter().zip(&site.assets) {
        let kept = worker.contains(&format!("\"/assets/{}/{name}\"", site.version));
        assert_eq!(kept, prepared.is_some(), "keeps {name} if it is served");
    }
    let manifest: serde_json::Value = serde_json::from_slice(&site.manifest.plain).unwrap();
    assert_eq!(
        manifest["icons"][0]["src"],
        format!("/assets/{}/icon.svg", site.version)
    );
}

#[test]
fn every_asset_a_page_or_module_loads_is_served() {
    let served = |name: &str| ASSETS.iter().any(|(asset, _, _)| *asset == name);
    for (path, page, html) in PAGES {
        let loaded = super::layout::in_layout(html, path);
        let loaded = references(&loaded, "\"/assets/", '"');
        assert!(
            loaded.contains(&"style.css") && loaded.iter().any(|a| a.ends_with(".js")),
            "{page} loads its stylesheet and its module"
        );
        for asset in loaded {
            assert!(
                served(asset),
                "{page} loads /assets/{asset}, which is not served"
            );
        }
    }
    for (module, _, source) in ASSETS.iter().filter(|(name, _, _)| name.ends_with(".js")) {
        let source = std::str::from_utf8(source).expect("modules are UTF-8");
        for import in references(source, "from './", '\'') {
            assert!(
                served(import),
                "{module} imports ./{import}, which is not served"
            );
        }
    }
}

/// Every page, the page for a path the site has none for included: its path, its file,
/// its source and the page the layout makes of it.
fn built_pages() -> Vec<(&'static str, &'static str, &'static str, String)> {
    PAGES
        .iter()
        .chain([&("", "not-found.html", super::NOT_FOUND)])
        .map(|&(path, page, source)| (path, page, source, super::layout::in_layout(source, path)))
        .collect()
}

#[test]
fn every_page_comes_out_whole_in_the_layout() {
    let shared = [
        r#"<meta charset="utf-8">"#,
        r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#,
        r#"<link rel="stylesheet" href="/assets/style.css">"#,
        r#"<script src="/assets/theme.js"></script>"#,
        r#"<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">"#,
        r#"<link rel="manifest" href="/manifest.webmanifest">"#,
        r#"<h1><a href="/">PÜNCT</a></h1>"#,
    ];
    for (_, page, _, html) in built_pages() {
        assert!(
            html.starts_with("<!doctype html>\n<html lang=\"en\">"),
            "{page}"
        );
        for once in shared
            .iter()
            .chain(&["<head>", "<title", "<body", "<header", "<main"])
        {
            assert_eq!(html.matches(once).count(), 1, "{page} has {once} once");
        }
        for mark in super::layout::PAGE_MARKS
            .iter()
            .chain([&super::layout::NAV_MARK])
        {
            assert_eq!(
                super::layout::LAYOUT.matches(mark).count(),
                1,
                "the layout has {mark} once"
            );
            assert!(!html.contains(mark), "{page}: {mark} is left");
        }
        // The chosen colours show from the first paint: the theme's script comes in the
        // head, before the page's own.
        let head = &html[..html.find("</head>").expect("a head")];
        let theme = head
            .find(shared[3])
            .expect("the theme's script in the head");
        assert!(
            head.find("type=\"module\"")
                .is_none_or(|module| theme < module),
            "{page}"
        );
        // And the page is one document: every element ends inside the one it began in.
        let mut open: Vec<String> = Vec::new();
        for token in tokens(&html) {
            match token {
                Token::Start { name, .. } if !is_void(&name) => open.push(name),
                Token::End { name, .. } => {
                    assert_eq!(open.pop(), Some(name.clone()), "{page}: </{name}>")
                }
                _ => {}
            }
        }
        assert!(open.is_empty(), "{page}: {open:?} never end");
    }
}

#[test]
fn a_page_s_header_has_its_own_parts_and_the_account_corner_unless_it_says_not() {
    assert!(super::layout::LAYOUT.contains(super::layout::ACCOUNT));
    for (_, page, source, html) in built_pages() {
        let (_, rest) = source.split_once("\n<header").unwrap();
        let (attributes, rest) = rest.split_once('>').unwrap();
        let (own, _) = rest.split_once("</header>").unwrap();
        let header = &html[html.find("<header>").unwrap()..html.find("</header>").unwrap()];
        let (before_nav, _) = header.split_once("<nav").unwrap();
        assert!(
            before_nav.contains(own.trim()),
            "{page}: its own parts, before the navigation"
        );
        assert_eq!(
            header.contains(super::layout::ACCOUNT.trim()),
            attributes != super::layout::NO_ACCOUNT,
            "{page}: the account corner"
        );
    }
}

#[test]
fn every_page_has_the_site_s_navigation_once_with_its_own_link_marked() {
    let links = |html: &str| references(html, "<li><a href=\"", '"').len();
    let site_links = links(super::layout::NAV);
    assert!(
        site_links >= 7,
        "the navigation reaches every part of the site"
    );
    assert_eq!(
        super::layout::LAYOUT
            .matches(super::layout::NAV_MARK)
            .count(),
        1
    );
    for (path, page, _, built) in built_pages() {
        assert_eq!(links(&built), site_links, "{page} has the whole navigation");
        let current = built.matches("aria-current=\"page\"").count();
        let listed = super::layout::NAV.contains(&format!("<a href=\"{path}\""));
        assert_eq!(current, usize::from(listed), "{page} marks its own link");
    }
}
