//! The Swiss system: pairing the next round from the rounds played.
//!
//! # The absolute rules
//!
//! A pairing never breaks these; when no pairing keeps them all, [`pair_round`] says so
//! ([`SwissError::NoPairing`]) rather than bend one.
//!
//! - Nobody meets the same opponent twice.
//! - Nobody meets a player they must be kept apart from (the caller's `avoid`: one of
//!   them has blocked the other, say). Such a pair is treated as one that has met.
//! - Nobody gets the same colour three games in a row.
//! - A player's whites and blacks never differ by more than 2. The first move is worth a
//!   lot in PÜNCT, so the balance is kept tight.
//! - With an odd number of players, exactly one has the bye (worth a win, see
//!   [`standings`](crate::standings)), and nobody has it twice.
//! - Everyone else plays.
//!
//! Colours are those of games in the history, forfeits included: a forfeited game
//! counts as met and as a colour had, which is stricter than needed and never looser.
//!
//! # What the pairing prefers
//!
//! Within those rules, players are ranked by score, then by the order they were given in
//! (their rating, say), and each in turn, from the top, is given the opponent they
//! prefer among those still unpaired, provided the rest can still all be paired:
//!
//! 1. the closest score: their own score group first, and in it an opponent who leaves
//!    the rest of the group as many games within it as it can have, so that nobody
//!    floats who need not; when the group cannot pair everyone (an odd number, or
//!    players who have met), those left over float down to the next group;
//! 2. colours that both players prefer (alternating, or evening out their balance);
//! 3. within the score group, the Dutch order: the top half meets the bottom half, 1st
//!    against the first of the bottom half, and so on.
//!
//! The bye is settled first: it goes to the lowest-ranked player who has not had one and
//! whose bye leaves everyone else pairable.
//!
//! # The search
//!
//! Who may meet whom (not met nor kept apart, and a colour for each that keeps the
//! rules) is a graph, and a round is a perfect matching of it (the bye is one more
//! vertex, joined to those who may have it). A maximum matching (Edmonds' blossom
//! algorithm) finds whether one exists, then each choice above is checked to leave a
//! perfect matching of the rest (`matching`); a second matching, of the score group
//! alone, says which choices keep the most games within it. So a pairing is found
//! whenever one exists, however far players must float, in about O(n²) for n players
//! in practice (the searches are short when almost everyone may meet almost everyone)
//! and O(n⁴) at worst.
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
use crate::matching::Matcher;

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
///     bye: None,
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
        for game in &round.games {
            let (white, black) = (index.get(&game.pair.white), index.get(&game.pair.black));
            for (seat, color) in [(white, Color::White), (black, Color::Black)] {
                if let Some(&i) = seat {
                    entrants[i].score += game.outcome.half_points(color);
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
    let edges = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .filter(|&(a, b)| may_meet(a, b))
        .chain(bye.into_iter().flat_map(|b| {
            (0..n)
                .filter(|&i| !entrants[i].had_bye)
                .map(move |i| (i, b))
        }));
    let mut matcher = Matcher::new(n + bye.map_or(0, |_| 1), edges);
    if !matcher.is_perfect() {
        return Err(SwissError::NoPairing);
    }

    let bye = bye.map(|b| {
        let p = matcher
            .fix(b, order.iter().rev().copied())
            .expect("a perfect matching gives the bye to someone");
        entrants[p].id
    });

    let mut pairs = Vec::with_capacity(n / 2);
    let mut remaining: Vec<usize> = order.clone();
    let mut group: Option<Group> = None;
    for &p in &order {
        remaining.retain(|&i| !matcher.is_fixed(i));
        if matcher.is_fixed(p) {
            continue;
        }
        let score = entrants[p].score;
        let group = match group.take() {
            Some(g) if g.score == score => group.insert(g),
            _ => group.insert(Group::new(score, &remaining, &entrants, may_meet)),
        };
        let (ranked, inside) = preferences(&entrants, &remaining);
        let (within, below) = ranked.split_at(inside);
        // Within the group, first those who leave the rest of it as many games as it can
        // have; then the others of the group; then the groups below. Asked lazily: the
        // first is almost always the one.
        let (mut next, mut refused, mut retried) = (0, Vec::new(), 0);
        let candidates = std::iter::from_fn(|| {
            while let Some(&q) = within.get(next) {
                next += 1;
                if group.may_pair(p, q) {
                    return Some(q);
                }
                refused.push(q);
            }
            retried += 1;
            refused.get(retried - 1).copied()
        });
        let q = matcher
            .fix(p, candidates.chain(below.iter().copied()))
            .expect("a perfect matching pairs everyone");
        group.settle(p, q);
        pairs.push(colors_for(&entrants[p], &entrants[q], pairs.len()));
    }
    Ok(Pairing { pairs, bye })
}

/// The score group being paired, and the matching among its players alone: it tells
/// which choices leave the rest of the group as many games within it as it can have, so
/// that nobody floats out of it who need not.
struct Group {
    /// The group's score.
    score: u32,
    /// Each player's index in `matcher`, `usize::MAX` for those outside the group.
    local: Vec<usize>,
    /// Who may meet whom within the group, kept in step with the whole round's matching.
    matcher: Matcher,
}

impl Group {
    /// The group of the players of `remaining` with `score`.
    fn new<P>(
        score: u32,
        remaining: &[usize],
        entrants: &[Entrant<P>],
        may_meet: impl Fn(usize, usize) -> bool,
    ) -> Group {
        let members: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| entrants[i].score == score)
            .collect();
        let mut local = vec![usize::MAX; entrants.len()];
        for (l, &i) in members.iter().enumerate() {
            local[i] = l;
        }
        let edges = (0..members.len())
            .flat_map(|a| (a + 1..members.len()).map(move |b| (a, b)))
            .filter(|&(a, b)| may_meet(members[a], members[b]));
        let matcher = Matcher::new(members.len(), edges);
        Group {
            score,
            local,
            matcher,
        }
    }

    /// Whether `p` and `q`, both of the group, can meet and leave the rest of it as many
    /// games within it as before.
    fn may_pair(&mut self, p: usize, q: usize) -> bool {
        self.matcher.may_pair(self.local[p], self.local[q])
    }

    /// Takes `p` and its opponent `q` out of the group, wherever `q` is from.
    fn settle(&mut self, p: usize, q: usize) {
        let (lp, lq) = (self.local[p], self.local[q]);
        if lq == usize::MAX {
            self.matcher.fix(lp, []);
        } else if self.matcher.fix(lp, [lq]).is_none() {
            self.matcher.fix(lq, []);
        }
    }
}

/// The opponents the top player of `remaining` (everyone unpaired, ranked) prefers, best
/// first: nearest score, then fewest colour preferences denied, then the Dutch order;
/// and how many of them, at the front, are of its own score group.
fn preferences<P>(entrants: &[Entrant<P>], remaining: &[usize]) -> (Vec<usize>, usize) {
    let (&p, others) = remaining
        .split_first()
        .expect("the player is among the remaining");
    let score = entrants[p].score;
    // The rest of `p`'s score group: those ranked right after it with its score.
    let group = others
        .iter()
        .take_while(|&&q| entrants[q].score == score)
        .count();
    // Dutch: `p`, the first of the top half, meets the first of the bottom half; then
    // the players below that, then those above it (nearest first). The top half is
    // ⌊(group + 1) / 2⌋ strong with `p`, so the bottom half starts at this index among
    // the others.
    let middle = group.div_ceil(2).saturating_sub(1);
    let dutch = |j: usize| {
        if j >= group {
            j
        } else if j >= middle {
            j - middle
        } else {
            group + middle - j
        }
    };
    let mut ranked: Vec<(u32, u8, usize, usize)> = others
        .iter()
        .enumerate()
        .map(|(j, &q)| {
            let denied = match (
                entrants[p].colors.preference(),
                entrants[q].colors.preference(),
            ) {
                (Some((a, sa)), Some((b, sb))) if a == b => sa.min(sb) as u8 + 1,
                _ => 0,
            };
            (score.abs_diff(entrants[q].score), denied, dutch(j), q)
        })
        .collect();
    ranked.sort_unstable();
    (ranked.into_iter().map(|(.., q)| q).collect(), group)
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
