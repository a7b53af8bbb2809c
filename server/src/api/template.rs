//! The pages in each language. A page's source marks what people read with keys of the
//! catalogues (`i18n`), and is rendered once per language when the server starts:
//!
//! - `data-i18n="key"` on an element: its content becomes the key's text, which may hold
//!   inline markup (`<b>`, a link), written by us, never by a player;
//! - `data-i18n-title="key"` (and `-placeholder`, `-aria-label`, `-label`): that
//!   attribute becomes the key's text;
//! - `<html lang>` names the language, and the catalogue goes into the page for its
//!   scripts (`i18n.js`), as `<script id="catalogue" type="application/json">`: every
//!   key but those only the server reads and the prose of the rules page, which is in
//!   the page already ([`NOT_FOR_SCRIPTS`]).
//!
//! The source stays a page that reads in English by itself: the English text stands
//! where the key's text goes.

use std::collections::BTreeMap;

use crate::i18n::{Lang, Message};

/// Keys the pages' scripts never ask for: the server's own (refusals, mail, the pages of
/// the unsubscribe link), and the rules page's prose.
pub(crate) const NOT_FOR_SCRIPTS: [&str; 4] = ["error.", "mail.", "unsubscribe.", "rules."];

/// Elements that have no end tag.
const VOID: [&str; 13] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// A piece of a page's source.
#[derive(Debug)]
pub(crate) enum Token<'a> {
    /// A start tag: its name (lower case), its attributes (name, value), and its text.
    Start {
        name: String,
        attributes: Vec<(&'a str, Option<&'a str>)>,
        raw: &'a str,
    },
    /// An end tag and its name (lower case).
    End { name: String, raw: &'a str },
    /// Text between tags.
    Text(&'a str),
    /// A comment or the doctype.
    Other(&'a str),
}

impl Token<'_> {
    /// The value of a start tag's attribute `name`.
    pub(crate) fn attribute(&self, name: &str) -> Option<&str> {
        match self {
            Token::Start { attributes, .. } => attributes
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .and_then(|(_, v)| *v),
            _ => None,
        }
    }
}

/// Whether `name` is an element without an end tag.
pub(crate) fn is_void(name: &str) -> bool {
    VOID.contains(&name)
}

/// The pieces of `html`, as the pages are written: attributes quoted with `"`, no `<`
/// in text but as a tag's start.
pub(crate) fn tokens(html: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        let (token, length) = if rest.starts_with("<!--") {
            let length = rest.find("-->").map_or(rest.len(), |end| end + 3);
            (Token::Other(&rest[..length]), length)
        } else if let Some(after) = rest.strip_prefix("</") {
            let length = rest.find('>').map_or(rest.len(), |end| end + 1);
            let name = after[..length.saturating_sub(3)]
                .trim()
                .to_ascii_lowercase();
            (
                Token::End {
                    name,
                    raw: &rest[..length],
                },
                length,
            )
        } else if rest.starts_with("<!") {
            let length = rest.find('>').map_or(rest.len(), |end| end + 1);
            (Token::Other(&rest[..length]), length)
        } else if rest.starts_with('<') && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            start_tag(rest)
        } else {
            // Text runs to the next tag (its first character may be a lone `<`).
            let first = rest.chars().next().map_or(1, char::len_utf8);
            let length = rest[first..].find('<').map_or(rest.len(), |at| at + first);
            (Token::Text(&rest[..length]), length)
        };
        tokens.push(token);
        rest = &rest[length..];
    }
    tokens
}

/// The start tag `html` begins with, and its length.
fn start_tag(html: &str) -> (Token<'_>, usize) {
    let bytes = html.as_bytes();
    let name_end = html[1..]
        .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
        .map_or(html.len(), |at| at + 1);
    let name = html[1..name_end].to_ascii_lowercase();
    let mut attributes = Vec::new();
    let mut at = name_end;
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= bytes.len() || bytes[at] == b'>' {
            break;
        }
        let start = at;
        while at < bytes.len()
            && !matches!(bytes[at], b'=' | b'>' | b'/')
            && !bytes[at].is_ascii_whitespace()
        {
            at += 1;
        }
        let attribute = &html[start..at];
        let mut value = None;
        if bytes.get(at) == Some(&b'=') {
            at += 1;
            if bytes.get(at) == Some(&b'"') {
                let end = html[at + 1..].find('"').map_or(html.len(), |e| at + 1 + e);
                value = Some(&html[at + 1..end]);
                at = end + 1;
            } else {
                let start = at;
                while at < bytes.len() && bytes[at] != b'>' && !bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                value = Some(&html[start..at]);
            }
        }
        attributes.push((attribute, value));
    }
    let length = (at + 1).min(html.len());
    (
        Token::Start {
            name,
            attributes,
            raw: &html[..length],
        },
        length,
    )
}

/// `text` made safe inside a quoted attribute.
fn attribute_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The catalogue of `lang` for the page's scripts, as the JSON of a `<script>` element.
fn catalogue_script(lang: Lang) -> String {
    let keys: BTreeMap<&str, &Message> = lang
        .catalogue()
        .iter()
        .filter(|(key, _)| !NOT_FOR_SCRIPTS.iter().any(|prefix| key.starts_with(prefix)))
        .map(|(key, message)| (key.as_str(), message))
        .collect();
    let json = serde_json::to_string(&keys).expect("text serialises");
    // `</` would end the script element early; `<\/` is the same JSON.
    format!(
        r#"<script id="catalogue" type="application/json">{}</script>"#,
        json.replace("</", r"<\/")
    )
}

/// `html`, a page's source, in `lang`.
pub(crate) fn render(html: &str, lang: Lang) -> String {
    let mut out = String::with_capacity(html.len() * 2);
    // Inside an element whose content is replaced: how many of its elements are open.
    let mut replaced = 0usize;
    for token in tokens(html) {
        match &token {
            Token::Start {
                name,
                attributes,
                raw,
            } => {
                if replaced > 0 {
                    replaced += usize::from(!is_void(name));
                    continue;
                }
                let marked = attributes.iter().any(|(n, _)| n.starts_with("data-i18n"));
                if marked || name == "html" {
                    out.push_str(&translated_tag(name, attributes, lang));
                } else {
                    out.push_str(raw);
                }
                if let Some(key) = token.attribute("data-i18n") {
                    out.push_str(lang.text(key));
                    replaced = usize::from(!is_void(name));
                }
            }
            Token::End { name, raw } => {
                if replaced > 0 {
                    replaced -= 1;
                    if replaced > 0 {
                        continue;
                    }
                }
                if name == "head" {
                    out.push_str(&catalogue_script(lang));
                }
                out.push_str(raw);
            }
            Token::Text(text) | Token::Other(text) => {
                if replaced == 0 {
                    out.push_str(text);
                }
            }
        }
    }
    out
}

/// A start tag with its attributes in `lang`, its keys dropped, and the `lang` of
/// `<html>`.
fn translated_tag(name: &str, attributes: &[(&str, Option<&str>)], lang: Lang) -> String {
    let mut tag = format!("<{name}");
    for &(attribute, value) in attributes {
        if attribute.starts_with("data-i18n") {
            continue;
        }
        let key = format!("data-i18n-{attribute}");
        let translated = attributes
            .iter()
            .find(|(n, _)| *n == key)
            .and_then(|(_, key)| *key)
            .map(|key| attribute_text(lang.text(key)));
        let value = match (name, attribute) {
            ("html", "lang") => Some(lang.code().to_owned()),
            _ => translated.or_else(|| value.map(str::to_owned)),
        };
        match value {
            Some(value) => tag.push_str(&format!(r#" {attribute}="{value}""#)),
            None => tag.push_str(&format!(" {attribute}")),
        }
    }
    tag.push('>');
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_become_the_languages_text_and_lang_is_set() {
        let page = r#"<html lang="en"><head><title data-i18n="page.lobby.title">PÜNCT — lobby</title></head>
<body><input data-i18n-placeholder="lobby.name.placeholder" placeholder="anonymous" name="name">
<p data-i18n="lobby.no-rooms">No <b>rooms</b>.</p><p>kept</p></body></html>"#;
        let german = render(page, Lang::De);
        assert!(german.starts_with(r#"<html lang="de">"#), "{german}");
        assert!(german.contains(&format!(
            "<title>{}</title>",
            Lang::De.text("page.lobby.title")
        )));
        assert!(german.contains(&format!(
            r#"<input placeholder="{}" name="name">"#,
            Lang::De.text("lobby.name.placeholder")
        )));
        assert!(german.contains(&format!(
            "<p>{}</p><p>kept</p>",
            Lang::De.text("lobby.no-rooms")
        )));
        assert!(german.contains(r#"<script id="catalogue" type="application/json">{"#));
        assert!(!german.contains("data-i18n"));
    }
}
