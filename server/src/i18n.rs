//! The languages people read: English, German, French and Dutch, for the pages, the
//! messages of refusals and the mail. Each language has one catalogue,
//! `server/web/i18n/{en,de,fr,nl}.json`, from a key to its text, with `{name}` where a
//! value goes; the pages' scripts get their language's catalogue too (`api/template`).
//!
//! A hand-written lookup rather than a crate (fluent, gettext): the texts are short
//! sentences with named values, and the one rule of plural forms the pages need is
//! written as two keys.
//!
//! Must not import: anything of the server; it is a leaf.

use std::collections::HashMap;
use std::sync::LazyLock;

/// A language of the catalogues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Lang {
    /// English: the fallback of every other, and of a key another lacks.
    #[default]
    En,
    /// German.
    De,
    /// French.
    Fr,
    /// Dutch.
    Nl,
}

/// Every language, in the order the switch offers them.
pub(crate) const LANGS: [Lang; 4] = [Lang::En, Lang::De, Lang::Fr, Lang::Nl];

/// Each language's catalogue as written, by the index of [`LANGS`].
pub(crate) const SOURCES: [&str; 4] = [
    include_str!("../web/i18n/en.json"),
    include_str!("../web/i18n/de.json"),
    include_str!("../web/i18n/fr.json"),
    include_str!("../web/i18n/nl.json"),
];

/// The catalogues, read once.
static CATALOGUES: LazyLock<Vec<HashMap<String, String>>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|source| {
            serde_json::from_str(source).expect("the catalogues are JSON objects of text")
        })
        .collect()
});

impl Lang {
    /// Its code in `lang` attributes, `Accept-Language` and the cookie.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Nl => "nl",
        }
    }

    /// The language of `code` (`de`, `de-AT`, `DE`); none for another.
    pub(crate) fn parse(code: &str) -> Option<Lang> {
        let primary = code.trim().split(['-', '_']).next()?;
        LANGS
            .into_iter()
            .find(|lang| lang.code().eq_ignore_ascii_case(primary))
    }

    /// The language an `Accept-Language` header prefers most among ours: the highest
    /// `q` (1 when not said), the first named among equals; none when it names none of
    /// ours (or refuses them with `q=0`).
    pub(crate) fn accepted(header: &str) -> Option<Lang> {
        let mut best: Option<(Lang, f32)> = None;
        for range in header.split(',') {
            let mut parts = range.split(';');
            let Some(lang) = parts.next().and_then(Lang::parse) else {
                continue;
            };
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if q > 0.0 && best.is_none_or(|(_, top)| q > top) {
                best = Some((lang, q));
            }
        }
        best.map(|(lang, _)| lang)
    }

    /// The text of `key`, from this language's catalogue or else English's; none when
    /// neither has it.
    pub(crate) fn get(self, key: &str) -> Option<&'static str> {
        self.catalogue()
            .get(key)
            .or_else(|| Lang::En.catalogue().get(key))
            .map(String::as_str)
    }

    /// The text of `key`; English's when this language lacks it (a test makes sure none
    /// does), the key itself when no catalogue has it (a mistake, shown rather than
    /// hidden).
    pub(crate) fn text(self, key: &str) -> &str {
        self.get(key).unwrap_or(key)
    }

    /// The text of `key` with each `{name}` replaced by its value in `values`, in one
    /// pass: a value that holds braces (a name a player gave) stays as it is.
    pub(crate) fn format(self, key: &str, values: &[(&str, &str)]) -> String {
        let mut text = String::new();
        let mut rest = self.text(key);
        while let Some(open) = rest.find('{') {
            let slot = rest[open + 1..].find('}').and_then(|close| {
                let name = &rest[open + 1..open + 1 + close];
                let value = values.iter().find(|(n, _)| *n == name)?.1;
                Some((value, open + close + 2))
            });
            match slot {
                Some((value, end)) => {
                    text.push_str(&rest[..open]);
                    text.push_str(value);
                    rest = &rest[end..];
                }
                None => {
                    text.push_str(&rest[..=open]);
                    rest = &rest[open + 1..];
                }
            }
        }
        text.push_str(rest);
        text
    }

    /// Its place in [`LANGS`] (and [`SOURCES`]): where tables by language keep its own.
    pub(crate) fn index(self) -> usize {
        LANGS.iter().position(|&l| l == self).unwrap_or_default()
    }

    /// Every key and text of this language's catalogue.
    pub(crate) fn catalogue(self) -> &'static HashMap<String, String> {
        &CATALOGUES[self.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `{name}`s and the markup tags of `text`, sorted: what every translation
    /// keeps.
    fn slots(text: &str) -> Vec<&str> {
        let mut slots = Vec::new();
        for (open, close) in [('{', '}'), ('<', '>')] {
            let mut rest = text;
            while let Some(start) = rest.find(open) {
                let Some(length) = rest[start..].find(close) else {
                    break;
                };
                slots.push(&rest[start..=start + length]);
                rest = &rest[start + length + 1..];
            }
        }
        slots.sort_unstable();
        slots
    }

    #[test]
    fn every_language_has_every_key_with_the_same_values_and_markup() {
        let english = Lang::En.catalogue();
        for lang in LANGS {
            let catalogue = lang.catalogue();
            for (key, text) in english {
                let Some(translated) = catalogue.get(key) else {
                    panic!("{}: the key {key} is missing", lang.code());
                };
                assert!(
                    !translated.trim().is_empty(),
                    "{}: {key} is empty",
                    lang.code()
                );
                assert_eq!(
                    slots(translated),
                    slots(text),
                    "{}: {key} does not keep the values and markup of English",
                    lang.code()
                );
            }
            for key in catalogue.keys() {
                assert!(
                    english.contains_key(key),
                    "{}: {key} is not English's",
                    lang.code()
                );
            }
        }
    }

    #[test]
    fn accept_language_is_read_by_its_weights() {
        assert_eq!(Lang::accepted("de-DE,de;q=0.9,en;q=0.8"), Some(Lang::De));
        assert_eq!(Lang::accepted("en;q=0.5, nl-BE;q=0.8"), Some(Lang::Nl));
        assert_eq!(Lang::accepted("es, fr;q=0.3"), Some(Lang::Fr));
        assert_eq!(Lang::accepted("FR-ca"), Some(Lang::Fr));
        assert_eq!(Lang::accepted("de;q=0, en;q=0.1"), Some(Lang::En));
        assert_eq!(Lang::accepted("es, *;q=0.1"), None);
        assert_eq!(Lang::accepted(""), None);
    }

    #[test]
    fn values_fill_their_places_once() {
        assert_eq!(
            Lang::Fr.format("mail.your-move.subject", &[("opponent", "anna")]),
            "À vous de jouer contre anna"
        );
        assert_eq!(
            Lang::En.format("mail.your-move.subject", &[("opponent", "{opponent}")]),
            "Your move against {opponent}"
        );
    }
}
