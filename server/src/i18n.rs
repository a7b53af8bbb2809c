//! The languages people read: the nine of the rulebooks (English, German, French,
//! Italian, Dutch, Spanish, Polish, Russian and Czech), for the pages, the messages of
//! refusals and the mail. Each language has one catalogue, `server/web/i18n/{code}.json`,
//! from a key to its message; the pages' scripts get their language's catalogue too
//! (`api/template`), and `i18n.js` reads it the same way.
//!
//! A message is a text with `{name}` where a value goes, or, when it counts something,
//! an object of texts by CLDR plural category (`one`, `few`, `many`, `other`) chosen by
//! its `count`: Polish, Russian and Czech have three or four forms where English has
//! two. The categories come from `intl_pluralrules` (the rules Fluent uses) here and
//! from the browser's `Intl.PluralRules` in the page, so neither side keeps rules of its
//! own. JSON rather than Fluent's own syntax: the keys (`room.play`) stay those the pages
//! and scripts already name, which Fluent's identifiers cannot spell, and the page reads
//! its catalogue with no parser of its own.
//!
//! Must not import: anything of the server; it is a leaf.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use intl_pluralrules::{PluralCategory, PluralRuleType, PluralRules};
use serde::{Deserialize, Serialize};

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
    /// Italian.
    It,
    /// Dutch.
    Nl,
    /// Spanish.
    Es,
    /// Polish.
    Pl,
    /// Russian.
    Ru,
    /// Czech.
    Cs,
}

/// Every language, in the order the switch offers them: English, then the rest in the
/// printed rulebook's order, then the players' own rulebooks.
pub(crate) const LANGS: [Lang; 9] = [
    Lang::En,
    Lang::De,
    Lang::Fr,
    Lang::It,
    Lang::Nl,
    Lang::Es,
    Lang::Pl,
    Lang::Ru,
    Lang::Cs,
];

/// Each language's catalogue as written, by the index of [`LANGS`].
pub(crate) const SOURCES: [&str; 9] = [
    include_str!("../web/i18n/en.json"),
    include_str!("../web/i18n/de.json"),
    include_str!("../web/i18n/fr.json"),
    include_str!("../web/i18n/it.json"),
    include_str!("../web/i18n/nl.json"),
    include_str!("../web/i18n/es.json"),
    include_str!("../web/i18n/pl.json"),
    include_str!("../web/i18n/ru.json"),
    include_str!("../web/i18n/cs.json"),
];

/// A message of a catalogue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Message {
    /// One text, whatever the values.
    Text(String),
    /// A text for each plural category of the language (`one`, `few`, `many`, `other`),
    /// chosen by the value `count`; `other` is always there.
    Plural(BTreeMap<String, String>),
}

/// The catalogues, read once.
static CATALOGUES: LazyLock<Vec<HashMap<String, Message>>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|source| {
            serde_json::from_str(source)
                .expect("the catalogues are JSON objects of texts and plural texts")
        })
        .collect()
});

/// Each language's cardinal plural rules, by the index of [`LANGS`].
static PLURAL_RULES: LazyLock<Vec<PluralRules>> = LazyLock::new(|| {
    LANGS
        .iter()
        .map(|lang| {
            let id: unic_langid::LanguageIdentifier = lang
                .code()
                .parse()
                .expect("a language code is a language identifier");
            PluralRules::create(id, PluralRuleType::CARDINAL)
                .expect("CLDR has plural rules for every language we speak")
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
            Lang::It => "it",
            Lang::Nl => "nl",
            Lang::Es => "es",
            Lang::Pl => "pl",
            Lang::Ru => "ru",
            Lang::Cs => "cs",
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
    /// neither has it as a text (a plural message needs its count: [`Lang::plural`]).
    pub(crate) fn get(self, key: &str) -> Option<&'static str> {
        let text = |lang: Lang| match lang.catalogue().get(key) {
            Some(Message::Text(text)) => Some(text.as_str()),
            _ => None,
        };
        text(self).or_else(|| text(Lang::En))
    }

    /// The text of `key`; English's when this language lacks it (a test makes sure none
    /// does), the key itself when no catalogue has it (a mistake, shown rather than
    /// hidden).
    pub(crate) fn text(self, key: &str) -> &str {
        self.get(key).unwrap_or(key)
    }

    /// The text of `key` with each `{name}` replaced by its value in `values`.
    pub(crate) fn format(self, key: &str, values: &[(&str, &str)]) -> String {
        fill(self.text(key), values)
    }

    /// The plural message `key` for `count` things, in the form this language's rules
    /// choose for that number, with `{count}` and each `{name}` of `values` filled in.
    /// English's message when this language lacks the key, the key itself when no
    /// catalogue has it.
    pub(crate) fn plural(self, key: &str, count: u64, values: &[(&str, &str)]) -> String {
        let number = count.to_string();
        let mut all = vec![("count", number.as_str())];
        all.extend_from_slice(values);
        let form = |lang: Lang| match lang.catalogue().get(key) {
            Some(Message::Plural(forms)) => {
                let category = lang.category(count);
                forms.get(category).or_else(|| forms.get("other"))
            }
            _ => None,
        };
        let text = form(self)
            .or_else(|| form(Lang::En))
            .map_or(key, String::as_str);
        fill(text, &all)
    }

    /// The CLDR plural category of the whole number `count` in this language.
    pub(crate) fn category(self, count: u64) -> &'static str {
        let category = PLURAL_RULES[self.index()]
            .select(count)
            .unwrap_or(PluralCategory::OTHER);
        match category {
            PluralCategory::ZERO => "zero",
            PluralCategory::ONE => "one",
            PluralCategory::TWO => "two",
            PluralCategory::FEW => "few",
            PluralCategory::MANY => "many",
            PluralCategory::OTHER => "other",
        }
    }

    /// Its place in [`LANGS`] (and [`SOURCES`]): where tables by language keep its own.
    pub(crate) fn index(self) -> usize {
        LANGS.iter().position(|&l| l == self).unwrap_or_default()
    }

    /// Every key and message of this language's catalogue.
    pub(crate) fn catalogue(self) -> &'static HashMap<String, Message> {
        &CATALOGUES[self.index()]
    }
}

/// `text` with each `{name}` replaced by its value in `values`, in one pass: a value
/// that holds braces (a name a player gave) stays as it is.
fn fill(text: &str, values: &[(&str, &str)]) -> String {
    let mut filled = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let slot = rest[open + 1..].find('}').and_then(|close| {
            let name = &rest[open + 1..open + 1 + close];
            let value = values.iter().find(|(n, _)| *n == name)?.1;
            Some((value, open + close + 2))
        });
        match slot {
            Some((value, end)) => {
                filled.push_str(&rest[..open]);
                filled.push_str(value);
                rest = &rest[end..];
            }
            None => {
                filled.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    filled.push_str(rest);
    filled
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

    /// The slots of a form of a plural message, but `{count}`: a form for exactly one
    /// thing may say "a day" where the others say "{count} days".
    fn slots_but_count(text: &str) -> Vec<&str> {
        slots(text)
            .into_iter()
            .filter(|s| *s != "{count}")
            .collect()
    }

    /// The plural categories whole numbers fall in, in `lang`, with `other` (which
    /// fractions and newer rules fall back on): what each plural message of it has.
    fn categories(lang: Lang) -> Vec<&'static str> {
        let mut categories: Vec<&str> = (0..=1_000).map(|n| lang.category(n)).collect();
        categories.extend([lang.category(1_000_000), "other"]);
        categories.sort_unstable();
        categories.dedup();
        categories
    }

    #[test]
    fn every_language_has_every_key_with_the_same_values_and_markup() {
        let english = Lang::En.catalogue();
        for lang in LANGS {
            let catalogue = lang.catalogue();
            for (key, message) in english {
                let code = lang.code();
                let Some(translated) = catalogue.get(key) else {
                    panic!("{code}: the key {key} is missing");
                };
                match (message, translated) {
                    (Message::Text(text), Message::Text(translated)) => {
                        assert!(!translated.trim().is_empty(), "{code}: {key} is empty");
                        assert_eq!(
                            slots(translated),
                            slots(text),
                            "{code}: {key} does not keep the values and markup of English"
                        );
                    }
                    (Message::Plural(english), Message::Plural(forms)) => {
                        let wanted = categories(lang);
                        let have: Vec<&str> = forms.keys().map(String::as_str).collect();
                        assert_eq!(have, wanted, "{code}: the plural forms of {key}");
                        let other = &english["other"];
                        for (category, form) in forms {
                            assert!(!form.trim().is_empty(), "{code}: {key}.{category}");
                            assert_eq!(
                                slots_but_count(form),
                                slots_but_count(other),
                                "{code}: {key}.{category} does not keep English's values"
                            );
                        }
                    }
                    _ => panic!("{code}: {key} is a plural in one language only"),
                }
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
        assert_eq!(Lang::accepted("sv, fr;q=0.3"), Some(Lang::Fr));
        assert_eq!(Lang::accepted("FR-ca"), Some(Lang::Fr));
        assert_eq!(Lang::accepted("de;q=0, en;q=0.1"), Some(Lang::En));
        assert_eq!(Lang::accepted("sv, *;q=0.1"), None);
        assert_eq!(Lang::accepted(""), None);
        assert_eq!(Lang::accepted("es-MX,es;q=0.9"), Some(Lang::Es));
        assert_eq!(Lang::accepted("uk;q=0.9, ru;q=0.8"), Some(Lang::Ru));
        assert_eq!(Lang::accepted("cs-CZ"), Some(Lang::Cs));
        assert_eq!(Lang::accepted("pl, it;q=0.9"), Some(Lang::Pl));
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

    #[test]
    fn polish_and_russian_count_in_three_forms() {
        let days = |lang: Lang, n| lang.plural("clock.days", n, &[]);
        assert_eq!(days(Lang::Pl, 1), "1 dzień na ruch");
        assert_eq!(days(Lang::Pl, 2), "2 dni na ruch");
        assert_eq!(days(Lang::Pl, 5), "5 dni na ruch");
        assert_eq!(days(Lang::Pl, 22), "22 dni na ruch");
        let turns = |lang: Lang, n| lang.plural("mail.turns", n, &[]);
        assert_eq!(turns(Lang::Pl, 1), "1 ruch");
        assert_eq!(turns(Lang::Pl, 2), "2 ruchy");
        assert_eq!(turns(Lang::Pl, 5), "5 ruchów");
        assert_eq!(turns(Lang::Pl, 22), "22 ruchy");
        assert_eq!(days(Lang::Ru, 1), "1 день на ход");
        assert_eq!(days(Lang::Ru, 2), "2 дня на ход");
        assert_eq!(days(Lang::Ru, 5), "5 дней на ход");
        assert_eq!(days(Lang::Ru, 21), "21 день на ход");
        assert_eq!(days(Lang::Ru, 22), "22 дня на ход");
        assert_eq!(turns(Lang::Ru, 1), "1 ход");
        assert_eq!(turns(Lang::Ru, 2), "2 хода");
        assert_eq!(turns(Lang::Ru, 5), "5 ходов");
        assert_eq!(turns(Lang::Ru, 22), "22 хода");
        assert_eq!(turns(Lang::Cs, 1), "1 tah");
        assert_eq!(turns(Lang::Cs, 3), "3 tahy");
        assert_eq!(turns(Lang::Cs, 5), "5 tahů");
        assert_eq!(turns(Lang::En, 1), "1 turn");
        assert_eq!(turns(Lang::En, 22), "22 turns");
    }

    #[test]
    fn a_plural_form_fills_its_other_values_too() {
        assert_eq!(
            Lang::En.plural("tournament.format-rounds", 1, &[("format", "Swiss")]),
            "Swiss, 1 round"
        );
        assert_eq!(
            Lang::De.plural("player.rating", 3, &[("deviation", "80")]),
            "±80, 3 gewertete Partien"
        );
        // A form for exactly one thing may leave the number out.
        assert_eq!(Lang::En.plural("mail.days", 1, &[]), "a day");
        assert_eq!(Lang::En.plural("mail.days", 2, &[]), "2 days");
    }
}
