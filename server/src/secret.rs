//! Random room ids and seat tokens from the operating system's generator.

/// Bytes of randomness in a seat token: 128 bits.
const TOKEN_BYTES: usize = 16;
/// Bytes of randomness in a room id: enough that a private room's id cannot be guessed.
const ROOM_ID_BYTES: usize = 10;

/// A fresh seat token: 128 random bits, hex-encoded.
pub(crate) fn token() -> String {
    hex(&random::<TOKEN_BYTES>())
}

/// A fresh room id: 80 random bits, hex-encoded.
pub(crate) fn room_id() -> String {
    hex(&random::<ROOM_ID_BYTES>())
}

/// A fair coin.
pub(crate) fn coin() -> bool {
    random::<1>()[0] & 1 == 1
}

/// Whether `a` and `b` are equal, taking the same time wherever they differ, so that
/// timing does not leak how much of a token was right.
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0; N];
    // The OS generator only fails on a broken system, where no secret can be made.
    getrandom::fill(&mut bytes).expect("the operating system's random generator works");
    bytes
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        text.push(DIGITS[(b >> 4) as usize] as char);
        text.push(DIGITS[(b & 15) as usize] as char);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bits_and_differ() {
        let (a, b) = (token(), token());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(same(a.as_bytes(), a.clone().as_bytes()));
        assert!(!same(a.as_bytes(), b.as_bytes()));
        assert!(!same(a.as_bytes(), &a.as_bytes()[1..]));
    }
}
