//! The language the server is asked to speak to this terminal, for the messages of its
//! refusals (an illegal turn names its cell in it): `--lang`, else the locale's
//! `LC_ALL`, `LC_MESSAGES` and `LANG`, in POSIX's order. The client's own words stay
//! English.

/// The `Accept-Language` value for `chosen` (`--lang`, as given) or, without it, for
/// the locale whose variables `var` reads; none for the `C` or `POSIX` locale, or when
/// nothing is set.
///
/// ```
/// use punct_cli::language::accept_language;
///
/// let locale = |name: &str| (name == "LANG").then(|| "pl_PL.UTF-8".to_owned());
/// assert_eq!(accept_language(None, locale).as_deref(), Some("pl-PL"));
/// assert_eq!(accept_language(Some("ru"), locale).as_deref(), Some("ru"));
/// ```
pub fn accept_language(
    chosen: Option<&str>,
    var: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    if let Some(chosen) = chosen {
        return Some(chosen.to_owned());
    }
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .into_iter()
        .filter_map(var)
        .find(|value| !value.is_empty())?;
    // `ll_CC.charset@modifier`: the language and country are what a server weighs.
    let tag = locale.split(['.', '@']).next().unwrap_or_default();
    match tag {
        "" | "C" | "POSIX" => None,
        tag => Some(tag.replace('_', "-")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A locale of these variables and values.
    fn locale(set: &[(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        let set = set.to_vec();
        move |name| {
            set.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_locale_is_read_in_posix_order() {
        let all = locale(&[
            ("LC_ALL", "cs_CZ.UTF-8"),
            ("LC_MESSAGES", "de_DE"),
            ("LANG", "fr_FR"),
        ]);
        assert_eq!(accept_language(None, all).as_deref(), Some("cs-CZ"));
        let messages = locale(&[
            ("LC_ALL", ""),
            ("LC_MESSAGES", "de_DE@euro"),
            ("LANG", "fr_FR"),
        ]);
        assert_eq!(accept_language(None, messages).as_deref(), Some("de-DE"));
        let lang = locale(&[("LANG", "es_ES.UTF-8")]);
        assert_eq!(accept_language(None, lang).as_deref(), Some("es-ES"));
    }

    #[test]
    fn the_c_locale_and_none_ask_for_nothing() {
        assert_eq!(accept_language(None, locale(&[("LANG", "C.UTF-8")])), None);
        assert_eq!(accept_language(None, locale(&[("LC_ALL", "POSIX")])), None);
        assert_eq!(accept_language(None, locale(&[])), None);
    }

    #[test]
    fn the_flag_wins_over_the_locale() {
        let lang = locale(&[("LANG", "es_ES.UTF-8")]);
        assert_eq!(accept_language(Some("it"), lang).as_deref(), Some("it"));
    }
}
