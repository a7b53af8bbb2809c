//! The evaluation: how far each player is from a connection, measured as a shortest path
//! over the cells, plus the centre count when the standard game nears its end.
//!
//! A path for a player runs from one side of a pair to the opposite side. Entering a cell
//! costs 0 if the player's dot is on top there, 1 if the cell is empty, and
//! [`OPPONENT_COST`] if the opponent's dot is on top (covering it takes a jump). The
//! distances come from a bucket-queue Dijkstra over the 211 cells, cheap enough to run a
//! dozen times per searched node.

use punct_rules::{CELL_COUNT, Cell, CellSet, Color, Direction, Position, Side, Variant};

/// Cost of a cell topped by the opponent: it can be covered, but only by a jump.
pub(crate) const OPPONENT_COST: u8 = 3;

/// The cost of a cell a path may not enter.
pub(crate) const BLOCKED: u8 = u8::MAX;

/// Distances are capped here: a player walled off everywhere is simply far away.
const FAR: u16 = 60;

/// Weight of the best pair's distance, per cell.
const BEST_WEIGHT: i32 = 100;

/// Weight of the second-best pair: two ways to connect are better than one.
const SECOND_WEIGHT: i32 = 25;

/// The side to move is about one turn ahead of a static count.
const TEMPO: i32 = 50;

/// Bucket capacity: every cell is pushed at most once per neighbour.
const QUEUE: usize = CELL_COUNT * 6 + 8;

/// The distance of every cell from a set of sources (each source's own cost counted).
pub(crate) type Distances = [u16; CELL_COUNT];

/// The cost of entering each cell for `color`.
pub(crate) fn costs(position: &Position, color: Color, opponent_cost: u8) -> [u8; CELL_COUNT] {
    let mut cost = [1u8; CELL_COUNT];
    for cell in position.visible(color) {
        cost[cell.index()] = 0;
    }
    for cell in position.visible(color.opponent()) {
        cost[cell.index()] = opponent_cost;
    }
    cost
}

/// Marks a missing neighbour in [`NEIGHBOURS`].
pub(crate) const NONE: u8 = u8::MAX;

/// The six neighbours of each cell by index, [`NONE`] off the board: the inner loop of
/// every distance computation, so a flat table rather than an iterator.
pub(crate) const NEIGHBOURS: [[u8; 6]; CELL_COUNT] = neighbour_table();

const fn neighbour_table() -> [[u8; 6]; CELL_COUNT] {
    let mut table = [[NONE; 6]; CELL_COUNT];
    let mut i = 0;
    while i < CELL_COUNT {
        if let Some(cell) = Cell::from_index(i) {
            let mut d = 0;
            while d < 6 {
                if let Some(n) = cell.step(Direction::ALL[d]) {
                    table[i][d] = n.index() as u8;
                }
                d += 1;
            }
        }
        i += 1;
    }
    table
}

/// Shortest distances from `sources` under `cost`: Dijkstra with a ring of buckets, since
/// every cost is at most 3 (or [`BLOCKED`]). With `target`, stops at the first target cell settled and
/// returns its distance (the distances of cells not yet settled are then unreliable);
/// gives up with `u16::MAX` once the distance passes `limit`.
fn dijkstra(
    cost: &[u8; CELL_COUNT],
    sources: CellSet,
    target: Option<CellSet>,
    limit: u16,
    dist: &mut Distances,
) -> u16 {
    let mut ring = [[0u8; QUEUE]; 4];
    let mut len = [0usize; 4];
    let mut pending = 0usize;
    for cell in sources {
        if cost[cell.index()] == BLOCKED {
            continue;
        }
        let d = cost[cell.index()] as u16;
        if d < dist[cell.index()] {
            dist[cell.index()] = d;
            let b = d as usize % 4;
            ring[b][len[b]] = cell.index() as u8;
            len[b] += 1;
            pending += 1;
        }
    }
    let mut d: u16 = 0;
    while pending > 0 && d <= limit {
        let b = d as usize % 4;
        let mut i = 0;
        while i < len[b] {
            let index = ring[b][i] as usize;
            i += 1;
            pending -= 1;
            if dist[index] != d {
                continue;
            }
            if let Some(target) = target
                && target.contains(Cell::from_index(index).expect("queued cells are on the board"))
            {
                return d;
            }
            for &n in &NEIGHBOURS[index] {
                if n == NONE || cost[n as usize] == BLOCKED {
                    continue;
                }
                let n = n as usize;
                let nd = d + cost[n] as u16;
                if nd < dist[n] {
                    dist[n] = nd;
                    let nb = nd as usize % 4;
                    ring[nb][len[nb]] = n as u8;
                    len[nb] += 1;
                    pending += 1;
                }
            }
        }
        len[b] = 0;
        d += 1;
    }
    u16::MAX
}

/// Shortest distances from `sources` to every cell under `cost`.
pub(crate) fn spread(cost: &[u8; CELL_COUNT], sources: CellSet) -> Distances {
    let mut dist = [u16::MAX; CELL_COUNT];
    dijkstra(cost, sources, None, u16::MAX, &mut dist);
    dist
}

/// For each pair of opposite sides, the shortest path across under `cost`.
pub(crate) fn pair_distances(cost: &[u8; CELL_COUNT]) -> [u16; 3] {
    Side::PAIRS.map(|(a, b)| {
        let mut dist = [u16::MAX; CELL_COUNT];
        dijkstra(cost, a.cells(), Some(b.cells()), u16::MAX, &mut dist)
    })
}

/// The cells lying on some path across whose cost is at most `bound`, over all pairs.
pub(crate) fn cells_on_paths(cost: &[u8; CELL_COUNT], bound: u16) -> CellSet {
    let mut zone = CellSet::EMPTY;
    for (a, b) in Side::PAIRS {
        let mut probe = [u16::MAX; CELL_COUNT];
        if dijkstra(cost, a.cells(), Some(b.cells()), bound, &mut probe) > bound {
            continue;
        }
        let from_a = spread(cost, a.cells());
        let from_b = spread(cost, b.cells());
        for cell in Cell::all() {
            let i = cell.index();
            let through = from_a[i] as u32 + from_b[i] as u32 - cost[i] as u32;
            if through <= bound as u32 {
                zone.insert(cell);
            }
        }
    }
    zone
}

/// `set` and every neighbour of its cells.
pub(crate) fn dilate(set: CellSet) -> CellSet {
    let mut out = set;
    for cell in set {
        for n in cell.neighbours() {
            out.insert(n);
        }
    }
    out
}

/// Where the play is, for choosing which turns to look at.
pub(crate) struct Analysis {
    /// Per colour: cells on that player's near-shortest paths (their own dots included).
    pub(crate) zone: [CellSet; 2],
    /// Per colour: `zone` and its neighbours.
    pub(crate) near: [CellSet; 2],
    /// Per colour: cells not yet theirs through which one turn could connect them
    /// (empty when no single turn can): see [`win_zone`].
    pub(crate) win_zone: [CellSet; 2],
}

impl Analysis {
    /// Looks at both players' paths.
    pub(crate) fn new(position: &Position) -> Analysis {
        let per = |color: Color| {
            let cost = costs(position, color, OPPONENT_COST);
            let best = pair_distances(&cost).into_iter().min().unwrap_or(u16::MAX);
            let zone = cells_on_paths(&cost, best.saturating_add(2));
            (zone, dilate(zone), win_zone(position, color))
        };
        let (w, b) = (per(Color::White), per(Color::Black));
        Analysis {
            zone: [w.0, b.0],
            near: [w.1, b.1],
            win_zone: [w.2, b.2],
        }
    }
}

/// The cells not yet `color`'s through which a single turn could connect them. A turn
/// adds at most three visible dots to its mover and never uncovers one of theirs that
/// was not visible already; a drop or a move to the ground adds only empty cells, and a
/// jump at most two cells of any kind (its PÜNCT lands on the mover's own dot). So the
/// connecting path needs at most three empty cells and no opponent's dot, or at most two
/// cells not theirs of any kind.
pub(crate) fn win_zone(position: &Position, color: Color) -> CellSet {
    let on_ground = cells_on_paths(&costs(position, color, BLOCKED), 3);
    let by_jump = cells_on_paths(&costs(position, color, 1), 2);
    on_ground.union(by_jump).difference(position.visible(color))
}

/// A player's distance to a connection, as a score: the best pair counts most, the second
/// best a little.
fn path_value(distances: [u16; 3]) -> i32 {
    let mut d = distances.map(|x| x.min(FAR) as i32);
    d.sort_unstable();
    BEST_WEIGHT * d[0] + SECOND_WEIGHT * d[1]
}

/// The static value of `position` for the side to move: positive is good for them.
pub(crate) fn evaluate(position: &Position) -> i32 {
    let me = position.to_move();
    let opponent = me.opponent();
    let mine = path_value(pair_distances(&costs(position, me, OPPONENT_COST)));
    let theirs = path_value(pair_distances(&costs(position, opponent, OPPONENT_COST)));
    theirs - mine + TEMPO + centre_term(position, me)
}

/// Near the end of the standard game the centre count decides it: weigh the central dots
/// more the fewer pieces are left to drop.
fn centre_term(position: &Position, me: Color) -> i32 {
    let diff = position.centre_count(me) as i32 - position.centre_count(me.opponent()) as i32;
    centre_weight(position) * diff
}

/// What a dot in the central hexagon is worth now: nothing in the basic game or while both
/// players have more than ten pieces to drop, then rising to more than a cell of path
/// length when the last drop is near.
pub(crate) fn centre_weight(position: &Position) -> i32 {
    if position.variant() != Variant::Standard {
        return 0;
    }
    let left = position
        .reserve(Color::White)
        .total()
        .min(position.reserve(Color::Black).total()) as i32;
    if left > 10 {
        return 0;
    }
    12 * (11 - left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use punct_rules::{Game, Variant};

    fn game(script: &str) -> Game {
        Game::from_record(Variant::Standard, &script.replace(' ', "\n")).unwrap()
    }

    #[test]
    fn empty_board_is_seventeen_cells_across_every_pair() {
        let p = Position::new(Variant::Standard);
        assert_eq!(
            pair_distances(&costs(&p, Color::White, OPPONENT_COST)),
            [17; 3]
        );
    }

    #[test]
    fn own_dots_shorten_the_path_and_opponent_dots_lengthen_it() {
        let g = game("A8:B9,C10 G2:H2,H3");
        let p = g.position();
        let white = pair_distances(&costs(p, Color::White, OPPONENT_COST));
        assert_eq!(white[0], 14, "west-east: three dots on the way");
        let black = pair_distances(&costs(p, Color::Black, OPPONENT_COST));
        assert!(black.iter().all(|&d| d <= 17));
        assert!(evaluate(p) > 0, "White to move and ahead");
    }

    #[test]
    fn every_connecting_turn_touches_the_win_zone() {
        use crate::node::{landing_cells, play};
        use crate::{Engine, Level, Rng};
        use std::time::Duration;
        // Games that head for connections: mostly a hurried greedy player, sometimes a
        // random turn, so that moves and jumps come up too.
        let greedy = Engine::new(Level::Greedy);
        let mut rng = Rng::with_seed(3);
        let mut connecting = 0;
        for variant in [Variant::Standard, Variant::Basic, Variant::Standard] {
            let mut game = Game::new(variant);
            while !game.is_over() {
                let position = game.position();
                let mover = position.to_move();
                let zone = win_zone(position, mover);
                let turns = game.legal_turns();
                for &turn in &turns {
                    if play(position, turn).0.is_connected(mover) {
                        connecting += 1;
                        let cells = landing_cells(turn).unwrap();
                        assert!(
                            cells.iter().any(|&c| zone.contains(c)),
                            "{turn} connects outside the zone in\n{}",
                            game.record()
                        );
                    }
                }
                let turn = if rng.usize(..3) == 0 {
                    *rng.choice(&turns).unwrap()
                } else {
                    greedy.choose(&game, Duration::from_millis(1)).unwrap()
                };
                game.play(turn).unwrap();
            }
        }
        assert!(
            connecting >= 20,
            "the games come near connections: {connecting}"
        );
    }

    #[test]
    fn win_zone_is_empty_far_from_a_connection() {
        let g = game("A8:B9,C10 G2:H2,H3");
        assert!(win_zone(g.position(), Color::White).is_empty());
    }
}
