//! Maximum-weight matching of greatest cardinality in a general graph: Edmonds' weighted
//! blossom algorithm, primal-dual, in O(n³).
//!
//! The Swiss pairs with it: every pair that may meet is an edge weighted by how good the
//! pair is, and the best round is the matching of greatest weight among those that pair
//! everyone. The structure follows the classic formulation (Galil, "Efficient algorithms
//! for finding maximum matching in graphs", 1986): vertices and blossoms carry dual
//! variables; each stage grows alternating trees from the unmatched vertices over tight
//! edges (zero slack), shrinks odd cycles into blossoms, and when it is stuck moves the
//! duals by the largest step that keeps every slack non-negative, until an augmenting
//! path appears or no vertex can gain a mate. Weights are integers, and so are the
//! duals (see [`max_weight_perfect`] for why halving a slack stays exact).

/// No vertex, edge end or blossom.
const NONE: usize = usize::MAX;

/// Labels of top-level blossoms in an alternating tree.
const FREE: u8 = 0;
/// An outer vertex: at even distance from a tree's root.
const OUTER: u8 = 1;
/// An inner vertex: at odd distance.
const INNER: u8 = 2;
/// A mark on outer blossoms while two tree paths are walked to their common ancestor.
const MARKED: u8 = 4;

/// The search's whole state. Vertices are `0..n`; blossoms `n..2n`. Edge `k` has ends
/// `2k` (its first vertex) and `2k + 1` (its second); `end ^ 1` is the other end.
struct Search<'a> {
    n: usize,
    edges: &'a [(usize, usize, i128)],
    /// The vertex at each edge end.
    endpoint: Vec<usize>,
    /// For each vertex, the ends of its edges that are away from it.
    neighbours: Vec<Vec<usize>>,
    /// For each vertex, the far end of its matched edge.
    mate: Vec<usize>,
    /// Each top-level blossom's label (and its base vertex's).
    label: Vec<u8>,
    /// The edge end through which a blossom (or vertex) got its label.
    label_end: Vec<usize>,
    /// The top-level blossom each vertex is in.
    in_blossom: Vec<usize>,
    /// Each blossom's parent blossom.
    parent: Vec<usize>,
    /// Each non-trivial blossom's sub-blossoms, in cycle order from the base.
    children: Vec<Vec<usize>>,
    /// Each blossom's base vertex.
    base: Vec<usize>,
    /// Each non-trivial blossom's edge ends joining its children around the cycle.
    child_ends: Vec<Vec<usize>>,
    /// The least-slack edge to another outer blossom (for an outer blossom) or to an
    /// outer blossom (for a free vertex).
    best_edge: Vec<usize>,
    /// For an outer blossom, its least-slack edge to each other outer blossom.
    best_edges: Vec<Option<Vec<usize>>>,
    /// Blossom numbers free to be used.
    unused: Vec<usize>,
    /// The dual variables: of vertices, then of blossoms.
    dual: Vec<i128>,
    /// Edges known to have zero slack in this stage.
    allowed: Vec<bool>,
    /// Outer vertices whose edges are still to be scanned.
    queue: Vec<usize>,
}

/// The perfect matching of the `n` vertices of greatest total weight, as each vertex's
/// mate; `None` when no matching pairs every vertex. `edges` are `(a, b, weight)`, with
/// `a != b`, each pair once.
///
/// It starts from a greedy matching rather than an empty one: each vertex's dual is the
/// weight of its heaviest edge (so no slack is negative), and every edge that is both
/// ends' heaviest is matched at once. In a Swiss almost every player's best opponent
/// has them as their best too, so the stages left are few. Starting so is sound only
/// because the matching sought is perfect: the duals of vertices left unmatched need
/// not be equal then.
pub(crate) fn max_weight_perfect(n: usize, edges: &[(usize, usize, i128)]) -> Option<Vec<usize>> {
    // Doubled, every weight is even, and so is every starting dual: all the vertices
    // left unmatched then keep duals of one parity (each step moves them all alike), so
    // every slack between two outer vertices stays even and halving it stays exact.
    let doubled: Vec<(usize, usize, i128)> = edges.iter().map(|&(a, b, w)| (a, b, 2 * w)).collect();
    let edges = &doubled[..];
    let endpoint: Vec<usize> = (0..2 * edges.len())
        .map(|p| {
            let (a, b, _) = edges[p / 2];
            if p % 2 == 0 { a } else { b }
        })
        .collect();
    let mut neighbours = vec![Vec::new(); n];
    let mut dual = vec![i128::MIN; 2 * n];
    for (k, &(a, b, w)) in edges.iter().enumerate() {
        neighbours[a].push(2 * k + 1);
        neighbours[b].push(2 * k);
        dual[a] = dual[a].max(w);
        dual[b] = dual[b].max(w);
    }
    for d in &mut dual {
        if *d == i128::MIN {
            *d = 0;
        }
    }
    let mut s = Search {
        n,
        edges,
        endpoint,
        neighbours,
        mate: vec![NONE; n],
        label: vec![FREE; 2 * n],
        label_end: vec![NONE; 2 * n],
        in_blossom: (0..n).collect(),
        parent: vec![NONE; 2 * n],
        children: vec![Vec::new(); 2 * n],
        base: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
        child_ends: vec![Vec::new(); 2 * n],
        best_edge: vec![NONE; 2 * n],
        best_edges: vec![None; 2 * n],
        unused: (n..2 * n).collect(),
        dual,
        allowed: vec![false; edges.len()],
        queue: Vec::new(),
    };
    for v in 0..n {
        if s.mate[v] != NONE {
            continue;
        }
        // Lowered to the least dual that keeps every slack of `v` non-negative, `v`
        // has a tight edge; it is matched along it when its other end is free.
        let least = s.neighbours[v]
            .iter()
            .map(|&p| s.edges[p / 2].2 * 2 - s.dual[s.endpoint[p]])
            .max();
        if let Some(least) = least {
            s.dual[v] = least;
        }
        let tight = s.neighbours[v]
            .iter()
            .copied()
            .find(|&p| s.mate[s.endpoint[p]] == NONE && s.slack(p / 2) == 0);
        if let Some(p) = tight {
            s.mate[v] = p;
            s.mate[s.endpoint[p]] = p ^ 1;
        }
    }
    let unmatched = s.mate.iter().filter(|&&m| m == NONE).count();
    for _ in 0..unmatched / 2 {
        if !s.stage() {
            break;
        }
    }
    (0..n)
        .map(|v| (s.mate[v] != NONE).then(|| s.endpoint[s.mate[v]]))
        .collect()
}

impl Search<'_> {
    fn slack(&self, k: usize) -> i128 {
        let (a, b, w) = self.edges[k];
        self.dual[a] + self.dual[b] - 2 * w
    }

    /// The vertices inside blossom `b`.
    fn leaves(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![b];
        while let Some(t) = stack.pop() {
            if t < self.n {
                out.push(t);
            } else {
                stack.extend(self.children[t].iter().rev());
            }
        }
        out
    }

    /// Labels `w`'s top-level blossom `t` (reached through end `p`), and, for an inner
    /// one, its base's mate outer.
    fn assign_label(&mut self, w: usize, t: u8, p: usize) {
        let b = self.in_blossom[w];
        self.label[w] = t;
        self.label[b] = t;
        self.label_end[w] = p;
        self.label_end[b] = p;
        self.best_edge[w] = NONE;
        self.best_edge[b] = NONE;
        if t == OUTER {
            let leaves = self.leaves(b);
            self.queue.extend(leaves);
        } else {
            let base = self.base[b];
            let m = self.mate[base];
            self.assign_label(self.endpoint[m], OUTER, m ^ 1);
        }
    }

    /// Walks up from `v` and `w` (both outer) towards their roots: the base of the new
    /// blossom where the paths meet, or `NONE` when they reach two roots (an augmenting
    /// path).
    fn scan_blossom(&mut self, mut v: usize, mut w: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        while v != NONE || w != NONE {
            let mut b = self.in_blossom[v];
            if self.label[b] & MARKED != 0 {
                base = self.base[b];
                break;
            }
            path.push(b);
            self.label[b] = OUTER | MARKED;
            if self.label_end[b] == NONE {
                v = NONE;
            } else {
                v = self.endpoint[self.label_end[b]];
                b = self.in_blossom[v];
                v = self.endpoint[self.label_end[b]];
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = OUTER;
        }
        base
    }

    /// Shrinks the cycle closed by edge `k` through `base` into a new outer blossom.
    fn add_blossom(&mut self, base: usize, k: usize) {
        let (v, w, _) = self.edges[k];
        let bb = self.in_blossom[base];
        let (mut bv, mut bw) = (self.in_blossom[v], self.in_blossom[w]);
        let b = self.unused.pop().expect("at most n blossoms at once");
        self.base[b] = base;
        self.parent[b] = NONE;
        self.parent[bb] = b;
        let mut path = Vec::new();
        let mut ends = Vec::new();
        while bv != bb {
            self.parent[bv] = b;
            path.push(bv);
            ends.push(self.label_end[bv]);
            let v = self.endpoint[self.label_end[bv]];
            bv = self.in_blossom[v];
        }
        path.push(bb);
        path.reverse();
        ends.reverse();
        ends.push(2 * k);
        while bw != bb {
            self.parent[bw] = b;
            path.push(bw);
            ends.push(self.label_end[bw] ^ 1);
            let w = self.endpoint[self.label_end[bw]];
            bw = self.in_blossom[w];
        }
        self.label[b] = OUTER;
        self.label_end[b] = self.label_end[bb];
        self.dual[b] = 0;
        for v in self.leaves_of(&path) {
            if self.label[self.in_blossom[v]] == INNER {
                self.queue.push(v);
            }
            self.in_blossom[v] = b;
        }
        // The least-slack edge from the new blossom to each other outer blossom.
        let mut best_to = vec![NONE; 2 * self.n];
        for &child in &path {
            let lists: Vec<Vec<usize>> = match self.best_edges[child].take() {
                Some(list) => vec![list],
                None => self
                    .leaves(child)
                    .into_iter()
                    .map(|v| self.neighbours[v].iter().map(|p| p / 2).collect())
                    .collect(),
            };
            for list in lists {
                for k in list {
                    let (i, j, _) = self.edges[k];
                    let j = if self.in_blossom[j] == b { i } else { j };
                    let bj = self.in_blossom[j];
                    if bj != b
                        && self.label[bj] == OUTER
                        && (best_to[bj] == NONE || self.slack(k) < self.slack(best_to[bj]))
                    {
                        best_to[bj] = k;
                    }
                }
            }
            self.best_edge[child] = NONE;
        }
        let list: Vec<usize> = best_to.into_iter().filter(|&k| k != NONE).collect();
        self.best_edge[b] = NONE;
        for &k in &list {
            if self.best_edge[b] == NONE || self.slack(k) < self.slack(self.best_edge[b]) {
                self.best_edge[b] = k;
            }
        }
        self.best_edges[b] = Some(list);
        self.children[b] = path;
        self.child_ends[b] = ends;
    }

    fn leaves_of(&self, blossoms: &[usize]) -> Vec<usize> {
        blossoms.iter().flat_map(|&b| self.leaves(b)).collect()
    }

    /// Undoes blossom `b`: its children become top-level. Mid-stage (`end_stage` false)
    /// an inner blossom's children are relabelled so that the tree stays alternating.
    fn expand_blossom(&mut self, b: usize, end_stage: bool) {
        let children = self.children[b].clone();
        for &s in &children {
            self.parent[s] = NONE;
            if s < self.n {
                self.in_blossom[s] = s;
            } else if end_stage && self.dual[s] == 0 {
                self.expand_blossom(s, end_stage);
            } else {
                for v in self.leaves(s) {
                    self.in_blossom[v] = s;
                }
            }
        }
        if !end_stage && self.label[b] == INNER {
            let len = children.len() as isize;
            let at = |j: isize| ((j % len + len) % len) as usize;
            let entry = self.in_blossom[self.endpoint[self.label_end[b] ^ 1]];
            let mut j = children
                .iter()
                .position(|&c| c == entry)
                .expect("the entry child is a child") as isize;
            let (step, trick): (isize, usize) = if j & 1 == 1 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let ends = self.child_ends[b].clone();
            let mut p = self.label_end[b];
            while j != 0 {
                let q = ends[at(j - trick as isize)];
                self.label[self.endpoint[p ^ 1]] = FREE;
                self.label[self.endpoint[q ^ trick ^ 1]] = FREE;
                self.assign_label(self.endpoint[p ^ 1], INNER, p);
                self.allowed[q / 2] = true;
                j += step;
                p = ends[at(j - trick as isize)] ^ trick;
                self.allowed[p / 2] = true;
                j += step;
            }
            let bv = children[at(j)];
            let e = self.endpoint[p ^ 1];
            self.label[e] = INNER;
            self.label[bv] = INNER;
            self.label_end[e] = p;
            self.label_end[bv] = p;
            self.best_edge[bv] = NONE;
            j += step;
            while children[at(j)] != entry {
                let bv = children[at(j)];
                if self.label[bv] == OUTER {
                    j += step;
                    continue;
                }
                if let Some(v) = self.leaves(bv).into_iter().find(|&v| self.label[v] != FREE) {
                    self.label[v] = FREE;
                    let m = self.mate[self.base[bv]];
                    self.label[self.endpoint[m]] = FREE;
                    self.assign_label(v, INNER, self.label_end[v]);
                }
                j += step;
            }
        }
        self.label[b] = FREE;
        self.label_end[b] = NONE;
        self.children[b].clear();
        self.child_ends[b].clear();
        self.base[b] = NONE;
        self.best_edges[b] = None;
        self.best_edge[b] = NONE;
        self.unused.push(b);
    }

    /// Flips the matching along the even path inside blossom `b` from its base to `v`,
    /// which becomes its base.
    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.parent[t] != b {
            t = self.parent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.children[b].len() as isize;
        let at = |j: isize| ((j % len + len) % len) as usize;
        let i = self.children[b]
            .iter()
            .position(|&c| c == t)
            .expect("t is a child of b");
        let mut j = i as isize;
        let (step, trick): (isize, usize) = if j & 1 == 1 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += step;
            let t = self.children[b][at(j)];
            let p = self.child_ends[b][at(j - trick as isize)] ^ trick;
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p]);
            }
            j += step;
            let t = self.children[b][at(j)];
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = p ^ 1;
            self.mate[self.endpoint[p ^ 1]] = p;
        }
        self.children[b].rotate_left(i);
        self.child_ends[b].rotate_left(i);
        self.base[b] = self.base[self.children[b][0]];
    }

    /// Flips the matching along the augmenting path through edge `k`.
    fn augment_matching(&mut self, k: usize) {
        let (v, w, _) = self.edges[k];
        for (mut s, mut p) in [(v, 2 * k + 1), (w, 2 * k)] {
            loop {
                let bs = self.in_blossom[s];
                if bs >= self.n {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = p;
                if self.label_end[bs] == NONE {
                    break;
                }
                let t = self.endpoint[self.label_end[bs]];
                let bt = self.in_blossom[t];
                s = self.endpoint[self.label_end[bt]];
                let j = self.endpoint[self.label_end[bt] ^ 1];
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.label_end[bt];
                p = self.label_end[bt] ^ 1;
            }
        }
    }

    /// One stage: grows the trees until the matching gains a pair (true) or cannot.
    fn stage(&mut self) -> bool {
        let n = self.n;
        self.label.fill(FREE);
        self.best_edge.fill(NONE);
        for b in n..2 * n {
            self.best_edges[b] = None;
        }
        self.allowed.fill(false);
        self.queue.clear();
        for v in 0..n {
            if self.mate[v] == NONE && self.label[self.in_blossom[v]] == FREE {
                self.assign_label(v, OUTER, NONE);
            }
        }
        loop {
            while let Some(v) = self.queue.pop() {
                for i in 0..self.neighbours[v].len() {
                    let p = self.neighbours[v][i];
                    let k = p / 2;
                    let w = self.endpoint[p];
                    if self.in_blossom[v] == self.in_blossom[w] {
                        continue;
                    }
                    let mut slack = 0;
                    if !self.allowed[k] {
                        slack = self.slack(k);
                        if slack <= 0 {
                            self.allowed[k] = true;
                        }
                    }
                    let bw = self.in_blossom[w];
                    if self.allowed[k] {
                        if self.label[bw] == FREE {
                            self.assign_label(w, INNER, p ^ 1);
                        } else if self.label[bw] == OUTER {
                            let base = self.scan_blossom(v, w);
                            if base != NONE {
                                self.add_blossom(base, k);
                            } else {
                                self.augment_matching(k);
                                return self.end_stage();
                            }
                        } else if self.label[w] == FREE {
                            self.label[w] = INNER;
                            self.label_end[w] = p ^ 1;
                        }
                    } else if self.label[bw] == OUTER {
                        let b = self.in_blossom[v];
                        if self.best_edge[b] == NONE || slack < self.slack(self.best_edge[b]) {
                            self.best_edge[b] = k;
                        }
                    } else if self.label[w] == FREE
                        && (self.best_edge[w] == NONE || slack < self.slack(self.best_edge[w]))
                    {
                        self.best_edge[w] = k;
                    }
                }
            }
            // Stuck: the largest step of the duals that keeps every slack non-negative.
            // Greatest cardinality is wanted, so the vertex duals (type 1) only bound
            // the step when nothing else does.
            let mut step: Option<(i128, u8, usize)> = None;
            let better = |d: i128, kind: u8, at: usize, step: &mut Option<(i128, u8, usize)>| {
                if step.is_none_or(|(best, ..)| d < best) {
                    *step = Some((d, kind, at));
                }
            };
            for v in 0..n {
                if self.label[self.in_blossom[v]] == FREE && self.best_edge[v] != NONE {
                    better(
                        self.slack(self.best_edge[v]),
                        2,
                        self.best_edge[v],
                        &mut step,
                    );
                }
            }
            for b in 0..2 * n {
                if self.parent[b] == NONE
                    && self.label[b] == OUTER
                    && self.best_edge[b] != NONE
                    && (b < n || self.base[b] != NONE)
                {
                    better(
                        self.slack(self.best_edge[b]) / 2,
                        3,
                        self.best_edge[b],
                        &mut step,
                    );
                }
            }
            for b in n..2 * n {
                if self.base[b] != NONE && self.parent[b] == NONE && self.label[b] == INNER {
                    better(self.dual[b], 4, b, &mut step);
                }
            }
            let (delta, kind, at) = step.unwrap_or_else(|| {
                let least = (0..n).map(|v| self.dual[v]).min().unwrap_or(0);
                (least.max(0), 1, NONE)
            });
            for v in 0..n {
                match self.label[self.in_blossom[v]] {
                    OUTER => self.dual[v] -= delta,
                    INNER => self.dual[v] += delta,
                    _ => {}
                }
            }
            for b in n..2 * n {
                if self.base[b] != NONE && self.parent[b] == NONE {
                    match self.label[b] {
                        OUTER => self.dual[b] += delta,
                        INNER => self.dual[b] -= delta,
                        _ => {}
                    }
                }
            }
            match kind {
                1 => return false,
                2 => {
                    self.allowed[at] = true;
                    let (mut i, j, _) = self.edges[at];
                    if self.label[self.in_blossom[i]] == FREE {
                        i = j;
                    }
                    self.queue.push(i);
                }
                3 => {
                    self.allowed[at] = true;
                    self.queue.push(self.edges[at].0);
                }
                _ => self.expand_blossom(at, false),
            }
        }
    }

    /// After an augmentation: outer blossoms whose dual fell to zero are undone.
    fn end_stage(&mut self) -> bool {
        for b in self.n..2 * self.n {
            if self.parent[b] == NONE
                && self.base[b] != NONE
                && self.label[b] == OUTER
                && self.dual[b] == 0
            {
                self.expand_blossom(b, true);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::max_weight_perfect;

    /// The greatest (pairs, weight) over every matching, by trying them all: the heaviest
    /// perfect matching's weight when the pairs are half the vertices.
    fn brute_force(
        n: usize,
        edges: &[(usize, usize, i128)],
        free: &mut Vec<bool>,
    ) -> (usize, i128) {
        let Some(v) = (0..n).find(|&v| free[v]) else {
            return (0, 0);
        };
        free[v] = false;
        let mut best = brute_force(n, edges, free);
        for &(a, b, w) in edges {
            let other = if a == v {
                b
            } else if b == v {
                a
            } else {
                continue;
            };
            if free[other] {
                free[other] = false;
                let (pairs, weight) = brute_force(n, edges, free);
                best = best.max((pairs + 1, weight + w));
                free[other] = true;
            }
        }
        free[v] = true;
        best
    }

    #[test]
    fn on_random_small_graphs_the_perfect_matching_found_is_the_heaviest() {
        let mut rng = fastrand::Rng::with_seed(42);
        let mut perfect = 0;
        for _ in 0..6000 {
            let n = rng.usize(1..=10);
            let density = rng.u8(20..100);
            let heavy = rng.bool();
            let edges: Vec<(usize, usize, i128)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect::<Vec<_>>()
                .into_iter()
                .filter_map(|(a, b)| {
                    let w = if heavy {
                        rng.i128(0..1_000_000_000_000)
                    } else {
                        rng.i128(0..6)
                    };
                    (rng.u8(..100) < density).then_some((a, b, w))
                })
                .collect();
            let mut free = vec![true; n];
            let (most, heaviest) = brute_force(n, &edges, &mut free);
            let Some(mates) = max_weight_perfect(n, &edges) else {
                assert!(2 * most < n, "a perfect matching exists: {edges:?}");
                continue;
            };
            assert_eq!(2 * most, n, "{edges:?}");
            let mut weight = 0;
            for (v, &m) in mates.iter().enumerate() {
                assert_eq!(mates[m], v, "{edges:?}");
                if v < m {
                    let e = edges
                        .iter()
                        .find(|e| (e.0, e.1) == (v, m) || (e.0, e.1) == (m, v))
                        .expect("matched along an edge");
                    weight += e.2;
                }
            }
            perfect += 1;
            assert_eq!(weight, heaviest, "{edges:?}");
        }
        assert!(
            perfect > 1000,
            "only {perfect} graphs had a perfect matching"
        );
    }
}
