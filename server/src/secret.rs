//! Room ids and seat tokens, from the operating system's random generator, and the
//! hashes the database keeps of secrets.

use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// Bytes of randomness in a seat token: 128 bits.
const TOKEN_BYTES: usize = 16;

/// A fresh seat token: 128 random bits, hex-encoded. A secret, not an id: nothing in it
/// tells when or where it was made.
pub(crate) fn token() -> String {
    hex(&random::<TOKEN_BYTES>())
}

/// The SHA-256 of a seat token or a session's secret: what the database keeps instead
/// of the secret.
pub(crate) type TokenHash = [u8; 32];

/// Hashes a seat token or a session's secret.
pub(crate) fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// A fresh 256-bit key (the key of the hashes of sign-in addresses).
pub(crate) fn random_key() -> TokenHash {
    random()
}

/// The hash of `address` under `key`: the same address gives the same hash, and the
/// hash tells nothing of the address to whoever lacks the key (an IPv4 address unkeyed
/// would be found by trying all 2^32).
pub(crate) fn hash_address(key: &TokenHash, address: std::net::IpAddr) -> TokenHash {
    let mut hasher = Sha256::new();
    hasher.update(key);
    hasher.update(address.to_string().as_bytes());
    hasher.finalize().into()
}

/// A fresh room id: a [`uuid_v7`]. (Rooms made before these ids keep their 20-hex-digit
/// ids: an id is any string the database has.)
pub(crate) fn room_id() -> String {
    uuid_v7()
}

/// A fresh salt for a password hash: 128 random bits.
pub(crate) fn salt() -> [u8; TOKEN_BYTES] {
    random()
}

/// A fresh id for something a database keys on (a room, an account): a UUIDv7, written
/// hyphenated in lower case. Its first 48 bits are the time in milliseconds, so ids sort
/// by age and a database index on them stays compact; the other 74 bits it may carry are
/// random (no counter), so a private room's id cannot be guessed from another's. Any
/// node may make one.
pub(crate) fn uuid_v7() -> String {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    uuid::Builder::from_unix_timestamp_millis(millis, &random())
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// When an id made by [`uuid_v7`] was made, to the millisecond; `None` for any other id
/// (a room made before those ids).
pub(crate) fn made_at(id: &str) -> Option<SystemTime> {
    let uuid = uuid::Uuid::try_parse(id)
        .ok()
        .filter(|uuid| uuid.get_version_num() == 7)?;
    let (seconds, nanos) = uuid.get_timestamp()?.to_unix();
    Some(UNIX_EPOCH + std::time::Duration::new(seconds, nanos))
}

/// A fresh tag for a node of a cluster: 24 random bits, never zero (a single server's
/// connections count from zero, with no tag).
pub(crate) fn node_tag() -> u32 {
    let [a, b, c] = random::<3>();
    u32::from_be_bytes([0, a, b, c]).max(1)
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

pub(crate) fn hex(bytes: &[u8]) -> String {
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
    use uuid::Uuid;

    use super::*;

    #[test]
    fn room_ids_are_uuids_of_version_7_made_now() {
        let (a, b) = (room_id(), room_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        let id = Uuid::parse_str(&a).unwrap();
        assert_eq!(id.get_version_num(), 7);
        let (seconds, _) = id.get_timestamp().unwrap().to_unix();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(now.abs_diff(seconds) <= 1);
        // Time-ordered: a later id sorts after.
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(room_id() > a);
    }

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
