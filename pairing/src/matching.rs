//! Maximum matching in a general graph, fixed one pair at a time in order of priority.
//!
//! The arena pairs its pool this way: the players who may meet are the
//! edges of a graph; a maximum matching (Edmonds' blossom algorithm, augmenting paths
//! found by breadth-first search with blossoms shrunk to their base) says how many games
//! the round can have at most; then players are taken in order of priority, and each is
//! given the first opponent on their list of preference that still leaves a maximum
//! matching among everyone not yet fixed. Checking a choice costs at most two
//! augmenting-path searches, and usually none: a choice that is already the matching's
//! is kept as it is, and otherwise a path of one or three edges most often mends it.
//!
//! So the result is always a maximum matching (a perfect one whenever one exists), and
//! among those the one that serves the first player best, then the second, and so on.

use std::collections::VecDeque;

/// No vertex: an unmatched vertex's mate, a root's parent.
const NONE: usize = usize::MAX;

/// A graph with its current maximum matching, and the vertices already fixed.
pub(crate) struct Matcher {
    /// The graph's edges, as a list per vertex (searches walk them).
    adj: Vec<Vec<usize>>,
    /// The same edges as a matrix, row by row: whether two vertices may be matched.
    edge: Vec<bool>,
    /// Each vertex's mate in the current matching, or `NONE`.
    mate: Vec<usize>,
    /// Vertices fixed (paired for good, or left out): no longer part of the graph.
    fixed: Vec<bool>,
    /// The search's state, kept to avoid allocating per search.
    search: Search,
}

/// The state of one augmenting-path search (Edmonds), reset at its start.
struct Search {
    /// The vertex each odd vertex of the alternating tree was reached from.
    parent: Vec<usize>,
    /// The base of the blossom each vertex is in (itself when in none).
    base: Vec<usize>,
    /// Whether a vertex is even in the tree (it has been queued).
    even: Vec<bool>,
    /// Scratch marks: the path walked to a common ancestor; the bases of a new blossom.
    mark: Vec<bool>,
    /// Even vertices whose edges are still to be scanned.
    queue: VecDeque<usize>,
}

impl Matcher {
    /// The graph of `n` vertices with the given edges, and a maximum matching of it.
    pub(crate) fn new(n: usize, edges: impl IntoIterator<Item = (usize, usize)>) -> Matcher {
        let mut adj = vec![Vec::new(); n];
        let mut edge = vec![false; n * n];
        for (a, b) in edges {
            if a != b && !edge[a * n + b] {
                edge[a * n + b] = true;
                edge[b * n + a] = true;
                adj[a].push(b);
                adj[b].push(a);
            }
        }
        let mut matcher = Matcher {
            adj,
            edge,
            mate: vec![NONE; n],
            fixed: vec![false; n],
            search: Search {
                parent: vec![NONE; n],
                base: (0..n).collect(),
                even: vec![false; n],
                mark: vec![false; n],
                queue: VecDeque::new(),
            },
        };
        // A greedy start, then one search from every vertex still unmatched: a vertex
        // with no augmenting path now never gets one later (Edmonds), so this is maximum.
        for v in 0..n {
            if matcher.mate[v] == NONE
                && let Some(&w) = matcher.adj[v].iter().find(|&&w| matcher.mate[w] == NONE)
            {
                matcher.mate[v] = w;
                matcher.mate[w] = v;
            }
        }
        for v in 0..n {
            if matcher.mate[v] == NONE {
                matcher.augment_from(v);
            }
        }
        matcher
    }

    /// Whether `v` has been fixed (paired, or left out).
    pub(crate) fn is_fixed(&self, v: usize) -> bool {
        self.fixed[v]
    }

    /// Fixes `v` with the first of `candidates` that keeps the matching maximum among the
    /// vertices not yet fixed, and returns it; or, when none does (or `v` has no
    /// neighbour left), leaves `v` out and returns `None`. Candidates that are fixed, are
    /// `v` or are not its neighbours are skipped.
    pub(crate) fn fix(
        &mut self,
        v: usize,
        candidates: impl IntoIterator<Item = usize>,
    ) -> Option<usize> {
        debug_assert!(!self.fixed[v]);
        let chosen = candidates
            .into_iter()
            .find(|&w| !self.fixed[w] && self.may_pair(v, w));
        self.fixed[v] = true;
        match chosen {
            Some(w) => self.fixed[w] = true,
            // Left out: its mate, if any, loses it, and the matching stays maximum
            // (a pairing for `v` was refused only when it would shrink the matching).
            None => {
                if let Some(m) = self.mate_of(v) {
                    self.mate[m] = NONE;
                    self.mate[v] = NONE;
                    self.augment_from(m);
                }
            }
        }
        chosen
    }

    /// Whether `v` and `w` (neither fixed) can be paired with the matching kept maximum.
    /// When they can, the matching now pairs them: another maximum matching, nothing
    /// fixed. When they cannot, nothing changes.
    pub(crate) fn may_pair(&mut self, v: usize, w: usize) -> bool {
        let n = self.mate.len();
        debug_assert!(!self.fixed[v] && !self.fixed[w]);
        v != w && self.edge[v * n + w] && self.try_pair(v, w)
    }

    /// `v`'s mate in the current matching.
    fn mate_of(&self, v: usize) -> Option<usize> {
        (self.mate[v] != NONE).then_some(self.mate[v])
    }

    /// Matches `v` with `w` if the matching of the vertices not fixed can stay as large;
    /// otherwise changes nothing.
    fn try_pair(&mut self, v: usize, w: usize) -> bool {
        let (mv, mw) = (self.mate_of(v), self.mate_of(w));
        if mv == Some(w) {
            return true;
        }
        // Take `v` and `w` out with their current mates, and pair them.
        self.fixed[v] = true;
        self.fixed[w] = true;
        for m in [mv, mw].into_iter().flatten() {
            self.mate[m] = NONE;
        }
        self.mate[v] = w;
        self.mate[w] = v;
        // Each of the old mates left alone costs one pair, unless an augmenting path
        // from one of them wins it back. Both alone: a path may join them (in a dense
        // graph, usually a short one), or each may find its own; one alone (the other
        // was unmatched, so the matching had room): the count is unchanged already.
        let kept = match (mv, mw) {
            (Some(a), Some(b)) => {
                self.short_path(a, b) || self.augment_from(a) || self.augment_from(b)
            }
            _ => true,
        };
        self.fixed[v] = false;
        self.fixed[w] = false;
        if !kept {
            // Put back the matching as it was: the failed searches changed nothing.
            let (a, b) = (mv.unwrap_or(NONE), mw.unwrap_or(NONE));
            self.mate[v] = a;
            self.mate[w] = b;
            if a != NONE {
                self.mate[a] = v;
            }
            if b != NONE {
                self.mate[b] = w;
            }
        }
        kept
    }

    /// Joins the unmatched vertices `a` and `b` by an augmenting path of one edge or of
    /// three (`a`, a pair `x`–`y`, `b`), if there is one: cheap to look for, and almost
    /// always there when most players may meet, which spares the full search.
    fn short_path(&mut self, a: usize, b: usize) -> bool {
        let n = self.mate.len();
        if self.edge[a * n + b] {
            self.mate[a] = b;
            self.mate[b] = a;
            return true;
        }
        let found = self.adj[a].iter().copied().find(|&x| {
            let y = self.mate[x];
            !self.fixed[x] && y != NONE && self.edge[y * n + b]
        });
        if let Some(x) = found {
            let y = self.mate[x];
            self.mate[a] = x;
            self.mate[x] = a;
            self.mate[y] = b;
            self.mate[b] = y;
        }
        found.is_some()
    }

    /// Searches for an augmenting path from the unmatched vertex `root` among the
    /// vertices not fixed, and applies it if there is one.
    fn augment_from(&mut self, root: usize) -> bool {
        match self.find_path(root) {
            Some(end) => {
                let mut v = end;
                while v != NONE {
                    let pv = self.search.parent[v];
                    let next = self.mate[pv];
                    self.mate[v] = pv;
                    self.mate[pv] = v;
                    v = next;
                }
                true
            }
            None => false,
        }
    }

    /// Edmonds' search: grows an alternating tree from `root`, shrinking each odd cycle
    /// (blossom) into its base, until it reaches an unmatched vertex (returned, with
    /// `parent` leading back to the root) or runs out of edges.
    fn find_path(&mut self, root: usize) -> Option<usize> {
        let n = self.mate.len();
        let s = &mut self.search;
        s.parent.fill(NONE);
        s.even.fill(false);
        for (v, base) in s.base.iter_mut().enumerate() {
            *base = v;
        }
        s.queue.clear();
        s.even[root] = true;
        s.queue.push_back(root);
        while let Some(v) = self.search.queue.pop_front() {
            for i in 0..self.adj[v].len() {
                let to = self.adj[v][i];
                let s = &self.search;
                if self.fixed[to] || s.base[v] == s.base[to] || self.mate[v] == to {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && s.parent[self.mate[to]] != NONE) {
                    // `to` is even too: the edge closes a blossom.
                    let base = self.common_base(v, to);
                    self.search.mark.fill(false);
                    self.mark_path(v, base, to);
                    self.mark_path(to, base, v);
                    let s = &mut self.search;
                    for u in 0..n {
                        if s.mark[s.base[u]] {
                            s.base[u] = base;
                            if !s.even[u] {
                                s.even[u] = true;
                                s.queue.push_back(u);
                            }
                        }
                    }
                } else if self.search.parent[to] == NONE {
                    self.search.parent[to] = v;
                    if self.mate[to] == NONE {
                        return Some(to);
                    }
                    let next = self.mate[to];
                    self.search.even[next] = true;
                    self.search.queue.push_back(next);
                }
            }
        }
        None
    }

    /// The base of the nearest blossom containing both `a` and `b` in the tree: the
    /// first base on `b`'s way to the root that is also on `a`'s.
    fn common_base(&mut self, mut a: usize, mut b: usize) -> usize {
        let s = &mut self.search;
        s.mark.fill(false);
        loop {
            a = s.base[a];
            s.mark[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = s.parent[self.mate[a]];
        }
        loop {
            b = s.base[b];
            if s.mark[b] {
                return b;
            }
            b = s.parent[self.mate[b]];
        }
    }

    /// Marks the blossoms on the way from `v` down to the blossom's `base`, and points
    /// their odd vertices back across the closing edge (towards `child`), so that a path
    /// through the new blossom can be followed either way round.
    fn mark_path(&mut self, mut v: usize, base: usize, mut child: usize) {
        let s = &mut self.search;
        while s.base[v] != base {
            let m = self.mate[v];
            s.mark[s.base[v]] = true;
            s.mark[s.base[m]] = true;
            s.parent[v] = child;
            child = m;
            v = s.parent[m];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Matcher, NONE};

    /// Whether every vertex not yet fixed is matched.
    fn is_perfect(matcher: &Matcher) -> bool {
        (0..matcher.mate.len()).all(|v| matcher.fixed[v] || matcher.mate[v] != NONE)
    }

    #[test]
    fn an_odd_cycle_with_a_tail_is_matched_in_full() {
        // A triangle 0-1-2 with a tail on each corner: only 0-4, 1-5, 2-3 covers all.
        let matcher = Matcher::new(6, [(0, 1), (1, 2), (2, 0), (2, 3), (0, 4), (1, 5)]);
        assert_eq!(
            (matcher.mate[0], matcher.mate[1], matcher.mate[2]),
            (4, 5, 3)
        );
        assert!(is_perfect(&matcher));
    }

    #[test]
    fn fixing_keeps_the_matching_perfect_by_refusing_a_choice_that_strands_someone() {
        // A path 0-1-2-3: 1 would like 2, but then 0 and 3 have nobody.
        let mut matcher = Matcher::new(4, [(0, 1), (1, 2), (2, 3)]);
        assert!(is_perfect(&matcher));
        assert_eq!(matcher.fix(1, [2, 0]), Some(0));
        assert_eq!(matcher.fix(2, [3]), Some(3));
        assert!(is_perfect(&matcher));
    }

    #[test]
    fn may_pair_says_whether_a_pair_keeps_the_matching_maximum_and_fixes_nothing() {
        let mut matcher = Matcher::new(4, [(0, 1), (1, 2), (2, 3)]);
        assert!(!matcher.may_pair(1, 2));
        assert!(!matcher.may_pair(0, 2), "not an edge");
        assert!(matcher.may_pair(2, 3));
        assert!(is_perfect(&matcher) && !matcher.is_fixed(2));
        assert_eq!((matcher.mate[0], matcher.mate[2]), (1, 3));
    }

    #[test]
    fn a_vertex_with_no_partner_left_is_left_out() {
        let mut matcher = Matcher::new(3, [(0, 1), (1, 2)]);
        assert_eq!(matcher.fix(0, [1]), Some(1));
        assert_eq!(matcher.fix(2, [0, 1]), None);
        assert!(matcher.is_fixed(2));
    }

    /// The size of a maximum matching of a small graph, by trying everything.
    fn brute_force(n: usize, edge: &dyn Fn(usize, usize) -> bool, free: &mut Vec<bool>) -> usize {
        let Some(v) = (0..n).find(|&v| free[v]) else {
            return 0;
        };
        free[v] = false;
        let mut best = brute_force(n, edge, free);
        for w in v + 1..n {
            if free[w] && edge(v, w) {
                free[w] = false;
                best = best.max(1 + brute_force(n, edge, free));
                free[w] = true;
            }
        }
        free[v] = true;
        best
    }

    #[test]
    fn on_random_small_graphs_each_vertex_gets_its_first_choice_that_keeps_the_matching_maximum() {
        let mut rng = fastrand::Rng::with_seed(34);
        for _ in 0..1500 {
            let n = rng.usize(1..=10);
            let density = rng.u8(10..90);
            let edges: Vec<(usize, usize)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|_| rng.u8(..100) < density)
                .collect();
            let has = |a: usize, b: usize| edges.contains(&(a.min(b), a.max(b)));
            let mut free = vec![true; n];
            let best = brute_force(n, &has, &mut free);
            let mut matcher = Matcher::new(n, edges.iter().copied());
            let matched = (0..n).filter(|&v| matcher.mate[v] != NONE).count();
            assert_eq!(matched, 2 * best, "edges {edges:?}");
            // Fix in a random order with random preferences: each vertex gets the first
            // candidate with which the rest can still be matched as much as before.
            let mut order: Vec<usize> = (0..n).collect();
            rng.shuffle(&mut order);
            let mut pairs = 0;
            for &v in &order {
                if matcher.is_fixed(v) {
                    continue;
                }
                let mut prefs: Vec<usize> = (0..n).collect();
                rng.shuffle(&mut prefs);
                let most = brute_force(n, &has, &mut free);
                free[v] = false;
                let expected = prefs.iter().copied().find(|&w| {
                    free[w] && has(v, w) && {
                        free[w] = false;
                        let rest = brute_force(n, &has, &mut free);
                        free[w] = true;
                        rest + 1 == most
                    }
                });
                let chosen = matcher.fix(v, prefs);
                assert_eq!(chosen, expected, "edges {edges:?}, vertex {v}");
                if let Some(w) = chosen {
                    free[w] = false;
                    pairs += 1;
                }
            }
            assert_eq!(pairs, best, "edges {edges:?}, order {order:?}");
        }
    }
}
