//! Round robins on Berger tables: everyone meets everyone, once per cycle.
//!
//! The players are numbered 1 to n in the order given (the draw). With an odd n a dummy,
//! n + 1, joins them; whoever meets the dummy rests that round ([`RobinRound::resting`]:
//! no game and no points, unlike a Swiss bye). With N the even count, there are N − 1 rounds, and in round r:
//!
//! - players i and j (both below N) meet when i + j ≡ r + 1 (mod N − 1), the one with
//!   the lower number taking White when j − i is odd, Black when it is even;
//! - player N meets the player i with 2i ≡ r + 1 (mod N − 1), taking Black in odd
//!   rounds and White in even ones.
//!
//! These are FIDE's Berger tables (round 1 of six players: 1–6, 2–5, 3–4). Every pair
//! meets once, and nobody's whites and blacks differ by more than one. A double round
//! robin plays the same tables again with the colours swapped, so every pair meets once
//! with each colour.

use crate::game::Pair;

/// How many times everyone meets everyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cycles {
    /// Once.
    Single,
    /// Twice, the second time with colours swapped.
    Double,
}

/// One round of a round robin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RobinRound<P> {
    /// The games of the round.
    pub pairs: Vec<Pair<P>>,
    /// Who meets the dummy, with an odd number of players: they sit the round out and
    /// score nothing for it. In the standings this is not a bye: record the round with
    /// `bye: None`.
    pub resting: Option<P>,
}

/// Every round of a round robin of `players` (in the order of the draw), first to last.
///
/// ```
/// use punct_pairing::{Cycles, Pair, berger};
/// let rounds = berger(&["ann", "bob", "cid"], Cycles::Single);
/// assert_eq!(rounds.len(), 3);
/// // Three players: the dummy makes four, and ann meets it first.
/// assert_eq!(rounds[0].resting, Some("ann"));
/// assert_eq!(rounds[0].pairs, [Pair { white: "bob", black: "cid" }]);
/// ```
pub fn berger<P: Copy>(players: &[P], cycles: Cycles) -> Vec<RobinRound<P>> {
    let n = players.len();
    if n < 2 {
        return Vec::new();
    }
    // Numbers from 1; `None` is the dummy.
    let count = n + n % 2;
    let player = |number: usize| players.get(number - 1).copied();
    let modulus = count - 1;
    // i + j ≡ r + 1, with residues written 1..=modulus.
    let partner = |i: usize, r: usize| (r + 1 + modulus - i % modulus - 1) % modulus + 1;
    let first: Vec<Vec<(usize, usize)>> = (1..=modulus)
        .map(|r| {
            let mut games = Vec::with_capacity(count / 2);
            for i in 1..count {
                let j = partner(i, r);
                if j == i {
                    games.insert(0, if r % 2 == 0 { (count, i) } else { (i, count) });
                } else if i < j {
                    games.push(if (j - i) % 2 == 1 { (i, j) } else { (j, i) });
                }
            }
            games
        })
        .collect();
    let swapped = first
        .iter()
        .map(|games| games.iter().map(|&(w, b)| (b, w)).collect());
    let cycles: Vec<Vec<(usize, usize)>> = match cycles {
        Cycles::Single => first,
        Cycles::Double => first.iter().cloned().chain(swapped).collect(),
    };
    cycles
        .into_iter()
        .map(|games| {
            let mut round = RobinRound {
                pairs: Vec::with_capacity(count / 2),
                resting: None,
            };
            for (white, black) in games {
                match (player(white), player(black)) {
                    (Some(white), Some(black)) => round.pairs.push(Pair { white, black }),
                    (Some(resting), None) | (None, Some(resting)) => round.resting = Some(resting),
                    (None, None) => unreachable!("the dummy is one player"),
                }
            }
            round
        })
        .collect()
}
