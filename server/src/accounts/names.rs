//! The keys usernames and names are compared by: two that share a key pass for each
//! other.

/// What no two usernames may share, and what a name is compared with them by: its
/// letters and digits in lower case, each character from outside ASCII first read as the
/// one it is mistaken for (its confusable skeleton, UTS #39: Cyrillic `а` is `a`, Greek
/// `Κ` is `K`). ASCII is left as it is, where the skeleton would make `I` an `l`.
pub(crate) fn username_key(text: &str) -> String {
    let mut key = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            key.push(c);
        } else {
            key.extend(unicode_security::skeleton(c.encode_utf8(&mut [0; 4])));
        }
    }
    key.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// What no two usernames may share either, and what a name may not share with any
/// username: its [`username_key`] with every character that passes for a letter read as
/// that letter ([`LOOKALIKES`]).
pub(crate) fn lookalike_key(text: &str) -> String {
    username_key(text)
        .chars()
        .map(|c| {
            LOOKALIKES
                .iter()
                .find(|(like, _)| *like == c)
                .map_or(c, |&(_, letter)| letter)
        })
        .collect()
}

/// Characters read as the Latin letter they pass for, after the confusable skeleton and
/// lower case of [`username_key`]. Conservative: only a character that stands in for
/// one letter and no other, so `2`, `4`, `6`, `7` and `9` (each read as more than one
/// letter, or as none) stay digits.
/// - The digits of leetspeak that read as one letter only.
/// - The small capitals (IPA's and the phonetic extensions), which the skeleton leaves
///   as they are and which Cyrillic lower case maps onto (`в` is `ʙ`, `н` is `ʜ`).
/// - `ƅ` (tone six), the skeleton of Cyrillic `ь`.
const LOOKALIKES: [(char, char); 22] = [
    ('0', 'o'),
    ('1', 'l'),
    ('3', 'e'),
    ('5', 's'),
    ('8', 'b'),
    ('ᴀ', 'a'),
    ('ʙ', 'b'),
    ('ᴅ', 'd'),
    ('ᴇ', 'e'),
    ('ꜰ', 'f'),
    ('ɢ', 'g'),
    ('ʜ', 'h'),
    ('ᴊ', 'j'),
    ('ĸ', 'k'),
    ('ʟ', 'l'),
    ('ʍ', 'm'),
    ('ɴ', 'n'),
    ('ᴘ', 'p'),
    ('ꞯ', 'q'),
    ('ʀ', 'r'),
    ('ᴛ', 't'),
    ('ƅ', 'b'),
];
