//! The Swiss system: pairing the next round from the rounds played.
//!
//! # The absolute rules
//!
//! A pairing never breaks these; when no pairing keeps them all, [`pair_round`] says so
//! ([`SwissError::NoPairing`]) rather than bend one.
//!
//! - Nobody meets the same opponent twice (C.04.3 C.1).
//! - Nobody meets a player they must be kept apart from (the caller's `avoid`: one of
//!   them has blocked the other, say). Such a pair is treated as one that has met.
//! - Nobody gets the same colour three games in a row.
//! - A player's whites and blacks never differ by more than 2. The first move is worth a
//!   lot in PÜNCT, so the balance is kept tight. These two are stricter than C.3, which
//!   only keeps apart two players with the same absolute preference and lets the
//!   final round's topscorers break them (C.8, C.9).
//! - With an odd number of players, exactly one has the bye (worth a win, see
//!   [`standings`](crate::standings)), and nobody has it twice (C.2).
//! - Everyone else plays.
//!
//! Colours are those of games in the history, forfeits included: a forfeited game
//! counts as met and as a colour had, which is stricter than needed and never looser.
//!
//! # What the pairing prefers
//!
//! Players are ranked by score, then by the order they were given in (their rating,
//! say): C.04.3 A.2. A score group is the players of one score. Among the pairings
//! that keep the absolute rules, the round is the one that costs least, costs compared
//! in this order, each summed over the round:
//!
//! 1. the bye: it goes to the lowest score that leaves everyone else pairable, and in
//!    it to the lowest-ranked player (C.04.1.c: the player left unpaired in the last
//!    bracket);
//! 2. the floaters: how many pairs cross score groups (quality criterion C.5, "maximize
//!    the number of pairs", that is "minimize the number of downfloaters");
//! 3. the score differences of those pairs (C.6, "minimize the PSD", A.8);
//! 4. colour preferences denied: one for each pair of players who want the same colour,
//!    two when both want it strongly or more (C.10, C.11; the preferences of A.6);
//! 5. the Dutch order: within a group, the top half meets the bottom half, the first of
//!    one against the first of the other (B.3), each step away from that (a
//!    transposition, D.1) costing one, a pair from the same half (an exchange, D.2)
//!    more; a floater comes from the bottom of its group and meets the top of the one
//!    below.
//!
//! The article numbers are those of the FIDE Handbook, C.04.3 FIDE (Dutch) System as
//! approved in 2016 and in force from 2017 until 31 January 2026. The Dutch system
//! pairs bracket by bracket from the top, and minimizes floaters and score differences
//! one bracket at a time; this minimizes them over the whole round at once. So a
//! leader who can meet nobody in their group may float two groups down when that spares
//! two other groups a floater each, where the Dutch would float them one group and make
//! the groups below float in turn.
//!
//! # The search
//!
//! Who may meet whom (not met nor kept apart, and a colour for each that keeps the
//! rules) is a graph, the bye one more vertex joined to those who may have it; each
//! edge weighs what its pair costs, the five counts folded into one integer (each
//! count's total over a round stays below the radix it is multiplied by, so the order
//! of the sums is the lexicographic one). A round is then a perfect matching of least
//! weight: Edmonds' weighted blossom algorithm finds it (`weighted`), in O(n³) at worst.
//! In an event of more than 64 players, a pair from different score groups is an edge
//! only when the two are at most 32 places apart in the ranking (players of one group
//! may all meet): the round is the cheapest of those, and the whole graph is tried
//! only when that leaves no pairing at all. A round of 1,000 players takes about a
//! second so (see the benchmark).
//!
//! # When a round cannot be paired
//!
//! Only when no pairing keeps the rules, which the tests check by trying every pairing
//! of up to 10 players, pairs kept apart included. With 8 players or more still in and
//! none kept apart, every round up to half their number has paired in the property
//! tests; without the colour rules it always would (an even number of players who may
//! each still meet half the others can all be paired, by Dirac's theorem).

use std::collections::BTreeMap;
use std::fmt;

use crate::game::{Color, Pair, Pairing, Round};
use crate::weighted::max_weight_perfect;

/// How far apart in the ranking (places) two players of different score groups may
/// be and still be paired, in a first try, in an event larger than twice this.
const WINDOW: usize = 32;

/// Why no round could be paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SwissError<P> {
    /// A player was listed twice.
    DuplicatePlayer(P),
    /// No pairing of the players keeps every absolute rule: too many have met or must
    /// be kept apart, or the colours they must have cannot be matched, or (with an odd
    /// number) everyone who could take the bye has had it.
    NoPairing,
}

impl<P: fmt::Debug> fmt::Display for SwissError<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwissError::DuplicatePlayer(p) => write!(f, "player {p:?} is listed twice"),
            SwissError::NoPairing => f.write_str("no pairing keeps every absolute rule"),
        }
    }
}

impl<P: fmt::Debug> std::error::Error for SwissError<P> {}

/// How much a player wants a colour, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    /// Colours even: alternate from the last game.
    Mild,
    /// One colour more than the other: even it out.
    Strong,
    /// The other colour would break a rule.
    Absolute,
}

/// A player's colours so far, as far as the rules and the preferences need them.
#[derive(Clone, Copy, Debug, Default)]
struct Colors {
    /// Whites minus blacks.
    balance: i32,
    /// The colour of the last game.
    last: Option<Color>,
    /// The colour of the last two games, when they were the same.
    twice: Option<Color>,
}

impl Colors {
    /// Adds the colour of the next game played.
    fn push(&mut self, color: Color) {
        self.twice = (self.last == Some(color)).then_some(color);
        self.last = Some(color);
        self.balance += match color {
            Color::White => 1,
            Color::Black => -1,
        };
    }

    /// Whether the player may take `color` next without breaking a rule.
    fn allows(&self, color: Color) -> bool {
        let balance = match color {
            Color::White => self.balance + 1,
            Color::Black => self.balance - 1,
        };
        self.twice != Some(color) && balance.abs() <= 2
    }

    /// The colour the player would like next, and how much; none before their first game.
    fn preference(&self) -> Option<(Color, Strength)> {
        for color in [Color::White, Color::Black] {
            if !self.allows(color.opponent()) {
                return Some((color, Strength::Absolute));
            }
        }
        if self.balance > 0 {
            Some((Color::Black, Strength::Strong))
        } else if self.balance < 0 {
            Some((Color::White, Strength::Strong))
        } else {
            self.last.map(|last| (last.opponent(), Strength::Mild))
        }
    }
}

/// What the pairing knows of one player.
struct Entrant<P> {
    /// Who.
    id: P,
    /// Points so far, in half-points.
    score: u32,
    /// Their colours.
    colors: Colors,
    /// Whether they have had the bye already.
    had_bye: bool,
}

/// Pairs the next round of a Swiss.
///
/// `players` are those to pair: everyone still in the tournament, in their initial
/// order (best first; ties in score are ranked by it). `rounds` are every round played,
/// first to last, including games of players who have since withdrawn: the round paired
/// is the one after them. `avoid` lists the pairs who must never meet, each in either
/// order (a block between two accounts, whoever blocked whom); pairs naming someone not
/// in `players` are ignored, so a block with a player who withdrew may stay in the list.
/// The pairs are listed from board 1 (the top scores) down.
///
/// ```
/// use punct_pairing::{Game, Outcome, Pair, Round, pair_round};
/// let first = pair_round(&[1, 2, 3, 4], &[], &[])?;
/// // Round 1: the top half meets the bottom half, colours alternating down the boards.
/// assert_eq!(first.pairs, [Pair { white: 1, black: 3 }, Pair { white: 4, black: 2 }]);
/// let played = Round {
///     games: first.pairs.iter().map(|&pair| Game { pair, outcome: Outcome::WhiteWins }).collect(),
///     ..Round::default()
/// };
/// // Round 2: the winners (1 and 4) meet, and so do the losers; each gets the other colour
/// // if they can, and the higher-ranked player has their way when both cannot.
/// let rounds = [played];
/// let second = pair_round(&[1, 2, 3, 4], &rounds, &[])?;
/// assert_eq!(second.pairs, [Pair { white: 4, black: 1 }, Pair { white: 2, black: 3 }]);
/// // Had 3 blocked 2, the losers could not meet, nor then the winners: each winner
/// // meets the loser they have not played.
/// let apart = pair_round(&[1, 2, 3, 4], &rounds, &[(3, 2)])?;
/// assert_eq!(apart.pairs, [Pair { white: 2, black: 1 }, Pair { white: 3, black: 4 }]);
/// # Ok::<_, punct_pairing::SwissError<u32>>(())
/// ```
pub fn pair_round<P: Copy + Ord>(
    players: &[P],
    rounds: &[Round<P>],
    avoid: &[(P, P)],
) -> Result<Pairing<P>, SwissError<P>> {
    let mut index = BTreeMap::new();
    for (i, &p) in players.iter().enumerate() {
        if index.insert(p, i).is_some() {
            return Err(SwissError::DuplicatePlayer(p));
        }
    }
    let n = players.len();
    let mut entrants: Vec<Entrant<P>> = players
        .iter()
        .map(|&id| Entrant {
            id,
            score: 0,
            colors: Colors::default(),
            had_bye: false,
        })
        .collect();
    // Who may never be paired: those who have met, and those kept apart.
    let mut barred = vec![false; n * n];
    for round in rounds {
        // A game under way counts as met and as colours had, and scores nothing yet.
        let games = round.games.iter().map(|g| (g.pair, Some(g.outcome)));
        for (pair, outcome) in games.chain(round.unfinished.iter().map(|&p| (p, None))) {
            let (white, black) = (index.get(&pair.white), index.get(&pair.black));
            for (seat, color) in [(white, Color::White), (black, Color::Black)] {
                if let Some(&i) = seat {
                    entrants[i].score += outcome.map_or(0, |o| o.half_points(color));
                    entrants[i].colors.push(color);
                }
            }
            if let (Some(&w), Some(&b)) = (white, black) {
                barred[w * n + b] = true;
                barred[b * n + w] = true;
            }
        }
        if let Some(&i) = round.bye.as_ref().and_then(|p| index.get(p)) {
            entrants[i].score += 2;
            entrants[i].had_bye = true;
        }
    }
    for (a, b) in avoid {
        if let (Some(&a), Some(&b)) = (index.get(a), index.get(b)) {
            barred[a * n + b] = true;
            barred[b * n + a] = true;
        }
    }

    // Ranked: score, then the initial order.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(entrants[i].score), i));

    let may_meet = |a: usize, b: usize| {
        let (ca, cb) = (entrants[a].colors, entrants[b].colors);
        !barred[a * n + b]
            && ((ca.allows(Color::White) && cb.allows(Color::Black))
                || (ca.allows(Color::Black) && cb.allows(Color::White)))
    };
    // The bye is vertex `n` when there is one to give.
    let bye = (n % 2 == 1).then_some(n);
    let vertices = n + bye.map_or(0, |_| 1);
    let costs = Costs::new(&entrants, &order, vertices);
    let rank = &costs.rank;
    let pair_with = |window: usize| {
        let mut edges: Vec<(usize, usize, i128)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| {
                let near =
                    entrants[a].score == entrants[b].score || rank[a].abs_diff(rank[b]) <= window;
                near && may_meet(a, b)
            })
            .map(|(a, b)| (a, b, costs.worst - costs.of(a, b)))
            .collect();
        if let Some(b) = bye {
            let may_have = (0..n).filter(|&i| !entrants[i].had_bye);
            edges.extend(may_have.map(|i| (i, b, costs.worst - costs.of(i, b))));
        }
        max_weight_perfect(vertices, &edges)
    };
    // The cheapest round among those that pair everyone: costs are lexicographic, and
    // the greatest weight of `worst − cost` over perfect matchings is the least cost.
    let window = if n > 2 * WINDOW { WINDOW } else { n };
    let mates = pair_with(window)
        .or_else(|| (window < n).then(|| pair_with(n)).flatten())
        .ok_or(SwissError::NoPairing)?;
    let bye = bye.map(|b| entrants[mates[b]].id);
    let rank = &costs.rank;
    let mut games: Vec<(usize, usize)> = (0..n)
        .map(|a| (a, mates[a]))
        .filter(|&(a, b)| b < n && rank[a] < rank[b])
        .collect();
    // Board 1 first: the pair with the higher score, then the higher-ranked player.
    games.sort_by_key(|&(a, b)| {
        let top = entrants[a].score.max(entrants[b].score);
        (std::cmp::Reverse(top), rank[a])
    });
    let pairs = games
        .iter()
        .enumerate()
        .map(|(board, &(a, b))| colors_for(&entrants[a], &entrants[b], board))
        .collect();
    Ok(Pairing { pairs, bye })
}

/// What a pair costs, as the pairing weighs it: five counts compared in order (see the
/// module's documentation), summed over the round's pairs and folded into one integer
/// whose order is the lexicographic order of the five sums.
struct Costs<'a, P> {
    /// The players.
    entrants: &'a [Entrant<P>],
    /// Each player's place in the ranking (score, then the initial order).
    rank: Vec<usize>,
    /// Each player's place in their score group, and the group's size.
    in_group: Vec<(usize, usize)>,
    /// The lowest score.
    lowest: u32,
    /// The number of vertices (players, and the bye).
    vertices: usize,
    /// Each count's total over a round stays below its radix, so that a lower count
    /// never outweighs a higher one.
    radix: Radix,
    /// More than any pair costs: weights are `worst − cost`, all positive.
    worst: i128,
}

/// The radices of the counts below the first.
struct Radix {
    floats: i128,
    difference: i128,
    colours: i128,
    order: i128,
}

impl<'a, P> Costs<'a, P> {
    fn new(entrants: &'a [Entrant<P>], order: &[usize], vertices: usize) -> Self {
        let n = entrants.len();
        let mut rank = vec![0; n];
        let mut in_group = vec![(0, 0); n];
        let mut start = 0;
        while start < order.len() {
            let score = entrants[order[start]].score;
            let size = order[start..]
                .iter()
                .take_while(|&&i| entrants[i].score == score)
                .count();
            for (at, &i) in order[start..start + size].iter().enumerate() {
                rank[i] = start + at;
                in_group[i] = (at, size);
            }
            start += size;
        }
        let lowest = entrants.iter().map(|e| e.score).min().unwrap_or(0);
        let highest = entrants.iter().map(|e| e.score).max().unwrap_or(0);
        let v = vertices as i128;
        let spread = i128::from(highest - lowest);
        // At most v / 2 pairs, each with one float, a score difference of at most
        // `spread`, 2 colour preferences denied, and an order of at most 2v.
        let radix = Radix {
            floats: v + 1,
            difference: v * spread + 1,
            colours: v + 1,
            order: v * v + 1,
        };
        let mut costs = Costs {
            entrants,
            rank,
            in_group,
            lowest,
            vertices,
            radix,
            worst: 0,
        };
        costs.worst = costs.fold([(spread + 1) * v, 1, spread, 2, 2 * v]) + 1;
        costs
    }

    /// The five counts (the bye's place, floats, score difference, colours, order) as
    /// one number.
    fn fold(&self, [bye, floats, difference, colours, order]: [i128; 5]) -> i128 {
        let r = &self.radix;
        (((bye * r.floats + floats) * r.difference + difference) * r.colours + colours) * r.order
            + order
    }

    /// What pairing `a` with `b` costs (`b` may be the bye's vertex).
    fn of(&self, a: usize, b: usize) -> i128 {
        let n = self.entrants.len();
        if b >= n {
            // The bye: to the lowest score, and in it to the lowest-ranked player.
            let above = i128::from(self.entrants[a].score - self.lowest);
            let from_bottom = (self.vertices - 1 - self.rank[a]) as i128;
            return self.fold([above * self.vertices as i128 + from_bottom, 0, 0, 0, 0]);
        }
        let (a, b) = if self.rank[a] < self.rank[b] {
            (a, b)
        } else {
            (b, a)
        };
        let (ea, eb) = (&self.entrants[a], &self.entrants[b]);
        let difference = ea.score - eb.score;
        let colours = match (ea.colors.preference(), eb.colors.preference()) {
            // One of them is denied their colour; and a strong one, if both are strong.
            (Some((ca, sa)), Some((cb, sb))) if ca == cb => {
                1 + u32::from(sa.min(sb) >= Strength::Strong)
            }
            _ => 0,
        };
        let ((pa, group), (pb, _)) = (self.in_group[a], self.in_group[b]);
        let half = group / 2;
        let order = if difference > 0 {
            // A floater: from the bottom of its group to the top of the one it meets.
            (group - 1 - pa) + pb
        } else if pa < half && pb >= half {
            // The Dutch order (C.04.3 B.3, D.1): the top half meets the bottom half,
            // 1st against the first of the bottom half, and so on; the further from
            // that, the dearer.
            (pb - half).abs_diff(pa)
        } else {
            // Two of the same half: only when no pairing across the halves will do
            // (an exchange, D.2).
            group + (pb - pa).abs_diff(half)
        };
        self.fold([
            0,
            i128::from(difference > 0),
            i128::from(difference),
            i128::from(colours),
            order as i128,
        ])
    }
}

/// The colours of `a` (the higher ranked) and `b` on board `board` (0 is board 1): the
/// only choice the rules allow; else both preferences if they differ; else the
/// stronger one; else the higher-ranked player's; and between two players with no
/// games yet, White for the higher-ranked on boards 1, 3, 5…, Black on 2, 4, 6…
fn colors_for<P: Copy>(a: &Entrant<P>, b: &Entrant<P>, board: usize) -> Pair<P> {
    let a_may = |c: Color| a.colors.allows(c) && b.colors.allows(c.opponent());
    let a_color = if !a_may(Color::White) {
        Color::Black
    } else if !a_may(Color::Black) {
        Color::White
    } else {
        match (a.colors.preference(), b.colors.preference()) {
            (Some((ca, _)), None) => ca,
            (None, Some((cb, _))) => cb.opponent(),
            (Some((ca, sa)), Some((cb, sb))) if ca == cb && sb > sa => cb.opponent(),
            (Some((ca, _)), Some(_)) => ca,
            (None, None) if board.is_multiple_of(2) => Color::White,
            (None, None) => Color::Black,
        }
    };
    match a_color {
        Color::White => Pair {
            white: a.id,
            black: b.id,
        },
        Color::Black => Pair {
            white: b.id,
            black: a.id,
        },
    }
}
