//! Arbitrary turns from positions reached by arbitrary legal play. The input is read as
//! a variant byte, then steps: an even control byte plays the legal turn picked by the
//! next two bytes (to reach deep positions); an odd one reads up to 23 bytes of text as
//! a turn and tries it. Parsing never panics, a parsed turn prints and parses back to
//! itself, it is accepted exactly when the generator lists it, and a refused turn
//! leaves the game as it was.
#![no_main]

use libfuzzer_sys::fuzz_target;
use punct_rules::{Game, Turn, Variant};

fuzz_target!(|data: &[u8]| {
    let Some((&variant, mut rest)) = data.split_first() else {
        return;
    };
    let variant = if variant & 1 == 0 {
        Variant::Standard
    } else {
        Variant::Basic
    };
    let mut game = Game::new(variant);
    while let Some((&control, tail)) = rest.split_first() {
        rest = tail;
        let legal = game.legal_turns();
        if control & 1 == 0 {
            let Some((index, tail)) = rest.split_first_chunk::<2>() else {
                return;
            };
            rest = tail;
            if legal.is_empty() {
                return;
            }
            let turn = legal[usize::from(u16::from_le_bytes(*index)) % legal.len()];
            game.play(turn).expect("a generated turn is legal");
        } else {
            let (text, tail) = rest.split_at(usize::from(control >> 3).min(rest.len()));
            rest = tail;
            let Ok(turn) = String::from_utf8_lossy(text).parse::<Turn>() else {
                continue;
            };
            assert_eq!(turn.to_string().parse::<Turn>(), Ok(turn));
            let before = game.record();
            match game.play(turn) {
                Ok(_) => assert!(legal.contains(&turn), "{turn} accepted, not generated"),
                Err(why) => {
                    assert!(!legal.contains(&turn), "{turn} generated, refused: {why}");
                    assert_eq!(game.record(), before, "a refused turn changed the game");
                }
            }
        }
    }
});
