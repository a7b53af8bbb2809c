//! A small, fast, seedable random number generator (SplitMix64): enough for noise,
//! tie-breaks and random openings, and reproducible from a seed.

/// SplitMix64: one 64-bit word of state, every seed is fine.
#[derive(Clone, Debug)]
pub struct Rng {
    /// The state, advanced by a fixed odd constant at each draw.
    state: u64,
}

impl Rng {
    /// A generator started from `seed`.
    pub const fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0), with negligible bias for the small `n` used here.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "below(0) has no answer");
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// One element of `items`, `None` if it is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_sequence_and_values_stay_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(13) < 13);
            b.below(13);
        }
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[a.below(5)] = true;
        }
        assert!(
            seen.iter().all(|&s| s),
            "every value of a small range comes up"
        );
    }
}
