//! The evaluation: how far each player is from a connection, measured as a shortest path
//! over the cells, plus the centre count when the standard game nears its end.
//!
//! A path for a player runs from one side of a pair to the opposite side. Entering a cell
//! costs 0 if the player's dot is on top there, 1 if the cell is empty, and
//! [`OPPONENT_COST`] if the opponent's dot is on top (covering it takes a jump). The
//! distances come from growing the region within each distance of a side a step at a
//! time, on bitboards laid out for shifting ([`Bits`]): every cell of a layer advances at
//! once, which is several times faster than a Dijkstra over single cells.

use punct_rules::{Cell, CellSet, Color, PIECES_PER_PLAYER, Position, Variant};

use crate::bits::{Bits, PAIRS};
use crate::node::{End, count_result};

/// Cost of a cell topped by the opponent: it can be covered, but only by a jump.
const OPPONENT_COST: u16 = 3;

/// Distances are capped here: a player walled off everywhere is simply far away.
const FAR: u16 = 60;

/// Layers kept for [`cells_on_paths`]: more than any path across can cost (17 cells of
/// at most [`OPPONENT_COST`]).
const MAX_LAYERS: usize = 64;

/// Weight of the best pair's distance, per cell.
const BEST_WEIGHT: i32 = 100;

/// Weight of the second-best pair: two ways to connect are better than one.
const SECOND_WEIGHT: i32 = 25;

/// The side to move is about one turn ahead of a static count.
const TEMPO: i32 = 50;

/// Weight of each visible dot a player shows more than the opponent, for the evaluation
/// that counts them ([`Judge::PRESENCE`]).
const PRESENCE_WEIGHT: i32 = 100;

/// How a level values positions.
///
/// Both judges count paths and the centre. [`Judge::PRESENCE`] also counts the dots on
/// show (a drop adds three, a move adds none, a jump hides the opponent's), which
/// predicts the winners of level-4 games better than paths alone, and judges the end by
/// the last drop more closely (see [`Judge::centre`] and the search's leaves): level 5
/// wins two games in three against level 4 for it (docs/ENGINE.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Judge {
    /// Per visible dot of difference.
    presence: i32,
    /// Whether the end by the last drop is judged by the leader's reserve (else by the
    /// smaller reserve) and exactly at the leaves.
    pub(crate) centre_end: bool,
}

impl Judge {
    /// Paths and the centre (levels up to 4, and the yardsticks).
    pub(crate) const PATHS: Judge = Judge {
        presence: 0,
        centre_end: false,
    };
    /// Paths, the centre and the dots on show.
    pub(crate) const PRESENCE: Judge = Judge {
        presence: PRESENCE_WEIGHT,
        centre_end: true,
    };

    /// The centre term for a lead of `centre` dots when the two players have
    /// `reserves` pieces left (the side to move's first).
    fn centre(self, variant: Variant, centre: i32, reserves: [i32; 2]) -> i32 {
        let left = if !self.centre_end {
            reserves[0].min(reserves[1])
        } else if centre > 0 {
            reserves[0]
        } else {
            reserves[1]
        };
        weight_for(variant, left) * centre
    }

    /// The presence term for the side to move, from the visible dots of the side to move
    /// and of the opponent. Black moves second, so Black to move after as many turns
    /// shows a piece less: that is not counted against them.
    fn presence(self, me: Color, visible: [i32; 2]) -> i32 {
        let second = if me == Color::Black { 3 } else { 0 };
        self.presence * (visible[0] - visible[1] + second)
    }
}

/// What the opponent's dots are to a path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Opponent {
    /// Passable at [`OPPONENT_COST`]: covering them takes a jump.
    Costly,
    /// Passable at the cost of an empty cell.
    Cheap,
    /// Not passable.
    Blocked,
}

/// The cells by what entering them costs one player: their own dots nothing, empty
/// cells 1, the opponent's dots as [`Opponent`] says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Terrain {
    /// Cost 0.
    free: Bits,
    /// Cost 1.
    step: Bits,
    /// Cost [`OPPONENT_COST`].
    costly: Bits,
}

impl Terrain {
    /// The board as `color` crosses it.
    pub(crate) fn new(position: &Position, color: Color, opponent: Opponent) -> Terrain {
        let free = Bits::from(position.visible(color));
        let theirs = Bits::from(position.visible(color.opponent()));
        let empty = Bits::board().and_not(free).and_not(theirs);
        match opponent {
            Opponent::Costly => Terrain {
                free,
                step: empty,
                costly: theirs,
            },
            Opponent::Cheap => Terrain {
                free,
                step: empty.or(theirs),
                costly: Bits::EMPTY,
            },
            Opponent::Blocked => Terrain {
                free,
                step: empty,
                costly: Bits::EMPTY,
            },
        }
    }
}

/// The cells within each distance of a set of sources, one distance after another: the
/// `d`-th layer holds every cell whose cheapest path from a source, counting each cell
/// entered (the source's own cost included), costs at most `d`. Growing the previous
/// layers by a step replaces a Dijkstra over single cells.
struct Reach<'a> {
    terrain: &'a Terrain,
    sources: Bits,
    /// The next layer's distance.
    d: u16,
    /// The last three layers, each with the sources, grown a step: the cells a path
    /// could enter next, from distances `d − 1`, `d − 2` and `d − 3`.
    grown: [Bits; 3],
    /// The last layer.
    last: Bits,
    /// Layers in a row that added nothing.
    still: u8,
}

impl<'a> Reach<'a> {
    fn new(terrain: &'a Terrain, sources: Bits) -> Reach<'a> {
        Reach {
            terrain,
            sources,
            d: 0,
            grown: [Bits::EMPTY; 3],
            last: Bits::EMPTY,
            still: 0,
        }
    }

    /// The next layer, or `None` once no layer can add a cell: nothing was added for
    /// more layers than the dearest cell costs (the first layers may be empty when every
    /// source is dear).
    fn next_layer(&mut self) -> Option<Bits> {
        if self.still > OPPONENT_COST as u8 {
            return None;
        }
        let t = self.terrain;
        let seeds = self
            .last
            .or(self.sources.and(t.free))
            .or(self.grown[0].and(t.step))
            .or(self.grown[2].and(t.costly));
        let (layer, grown) = seeds.flood(t.free);
        self.still = if layer == self.last {
            self.still + 1
        } else {
            0
        };
        self.grown = [self.sources.or(grown), self.grown[0], self.grown[1]];
        self.last = layer;
        self.d += 1;
        Some(layer)
    }

    /// The cheapest cost of a path to a cell of `target`, or `u16::MAX` if there is
    /// none costing at most `limit`.
    fn distance_to(mut self, target: Bits, limit: u16) -> u16 {
        while self.d <= limit {
            let d = self.d;
            match self.next_layer() {
                Some(layer) if layer.intersects(target) => return d,
                Some(_) => {}
                None => break,
            }
        }
        u16::MAX
    }
}

/// For each pair of opposite sides, the cheapest path across `terrain`.
pub(crate) fn pair_distances(terrain: &Terrain) -> [u16; 3] {
    PAIRS.map(|(a, b)| Reach::new(terrain, a).distance_to(b, u16::MAX))
}

/// The cells lying on some path across `terrain` whose cost is at most `bound`, over all
/// pairs.
pub(crate) fn cells_on_paths(terrain: &Terrain, bound: u16) -> CellSet {
    let bound = usize::from(bound).min(MAX_LAYERS - 1);
    let mut zone = Bits::EMPTY;
    for &(a, b) in PAIRS.iter() {
        let mut from_a = [Bits::EMPTY; MAX_LAYERS];
        if !layers(terrain, a, &mut from_a[..=bound]).intersects(b) {
            continue;
        }
        let mut from_b = [Bits::EMPTY; MAX_LAYERS];
        layers(terrain, b, &mut from_b[..=bound]);
        // A cell costing `k` lies on such a path when its distances from both sides,
        // each counting the cell itself, add up to at most `bound + k`.
        for (k, class) in [(0, terrain.free), (1, terrain.step), (3, terrain.costly)] {
            for x in k..=bound {
                zone = zone.or(from_a[x].and(from_b[bound + k - x]).and(class));
            }
        }
    }
    zone.into()
}

/// Fills `out` with the first layers of the reach from `sources` (a layer past the last
/// that grew repeats it), answering the last.
fn layers(terrain: &Terrain, sources: Bits, out: &mut [Bits]) -> Bits {
    let mut reach = Reach::new(terrain, sources);
    let mut last = Bits::EMPTY;
    for slot in out.iter_mut() {
        if let Some(layer) = reach.next_layer() {
            last = layer;
        }
        *slot = last;
    }
    last
}

/// `set` and every neighbour of its cells.
pub(crate) fn dilate(set: CellSet) -> CellSet {
    Bits::from(set).grow().into()
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
            let terrain = Terrain::new(position, color, Opponent::Costly);
            let best = pair_distances(&terrain)
                .into_iter()
                .min()
                .unwrap_or(u16::MAX);
            let zone = cells_on_paths(&terrain, best.saturating_add(2));
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
    let on_ground = cells_on_paths(&Terrain::new(position, color, Opponent::Blocked), 3);
    let by_jump = cells_on_paths(&Terrain::new(position, color, Opponent::Cheap), 2);
    on_ground.union(by_jump).difference(position.visible(color))
}

/// A player's distance to a connection, as a score: the best pair counts most, the second
/// best a little.
fn path_value(distances: [u16; 3]) -> i32 {
    let mut d = distances.map(|x| x.min(FAR) as i32);
    d.sort_unstable();
    BEST_WEIGHT * d[0] + SECOND_WEIGHT * d[1]
}

/// The static value of `position` for the side to move, as `judge` sees it: positive is
/// good for them.
pub(crate) fn evaluate(position: &Position, judge: Judge) -> i32 {
    let me = position.to_move();
    let distances = |color| pair_distances(&Terrain::new(position, color, Opponent::Costly));
    let centre = position.centre_count(me) as i32 - position.centre_count(me.opponent()) as i32;
    let visible = [me, me.opponent()].map(|c| position.visible(c).len() as i32);
    let reserves = [me, me.opponent()].map(|c| i32::from(position.reserve(c).total()));
    value(
        distances(me),
        distances(me.opponent()),
        judge.centre(position.variant(), centre, reserves),
    ) + judge.presence(me, visible)
}

/// The value for the side to move, from both players' distances across (theirs, then
/// the opponent's) and the centre term: the formula [`evaluate`] and
/// [`AfterDrop::value`] share, before the presence term.
fn value(mine: [u16; 3], theirs: [u16; 3], centre: i32) -> i32 {
    path_value(theirs) - path_value(mine) + TEMPO + centre
}

/// What [`evaluate`] needs to value the positions one drop of the side to move away
/// without playing them: a drop only puts three of the mover's dots on empty cells, so
/// only the two players' terrains and the centre count change. The search values dozens
/// of drops at every node and keeps a few.
pub(crate) struct AfterDrop {
    /// The board as the mover crosses it.
    mover: Terrain,
    /// The board as the opponent crosses it.
    opponent: Terrain,
    /// The central dots of the mover and of the opponent.
    centre: [i32; 2],
    /// The visible dots of the mover and of the opponent.
    visible: [i32; 2],
    /// How the positions are valued.
    judge: Judge,
    /// The pieces left to the mover and to the opponent.
    reserves: [i32; 2],
    /// Whether a drop is the mover's last piece, which ends the game (RULES.md 4.3).
    last: bool,
    /// The side to move.
    me: Color,
    /// The game played.
    variant: Variant,
}

/// A drop valued without playing it.
pub(crate) enum DropValue {
    /// The game goes on; the value for the mover.
    Goes(i32),
    /// The game ends.
    Ends(End),
}

impl AfterDrop {
    pub(crate) fn new(position: &Position, judge: Judge) -> AfterDrop {
        let me = position.to_move();
        let them = me.opponent();
        let reserves = [me, them].map(|c| i32::from(position.reserve(c).total()));
        AfterDrop {
            mover: Terrain::new(position, me, Opponent::Costly),
            opponent: Terrain::new(position, them, Opponent::Costly),
            centre: [me, them].map(|c| position.centre_count(c) as i32),
            visible: [me, them].map(|c| position.visible(c).len() as i32),
            judge,
            reserves,
            last: position.pieces_in_play(me) + 1 == PIECES_PER_PLAYER,
            me,
            variant: position.variant(),
        }
    }

    /// The drop of the side to move on `cells` (empty now), as [`evaluate`] would value
    /// the position after it for the mover.
    pub(crate) fn value(&self, cells: [Cell; 3]) -> DropValue {
        let dots: Bits = cells.into_iter().collect();
        let mover = Terrain {
            free: self.mover.free.or(dots),
            step: self.mover.step.and_not(dots),
            costly: self.mover.costly,
        };
        let mine = pair_distances(&mover);
        let central = cells.iter().filter(|c| c.is_central()).count() as i32;
        if mine.contains(&0) {
            return DropValue::Ends(End::Win(self.me));
        }
        if self.last {
            let mut centre = [(self.centre[0] + central) as usize, self.centre[1] as usize];
            if self.me == Color::Black {
                centre.reverse();
            }
            return DropValue::Ends(count_result(self.variant, centre));
        }
        let opponent = Terrain {
            free: self.opponent.free,
            step: self.opponent.step.and_not(dots),
            costly: self.opponent.costly.or(dots),
        };
        // The position after the drop is the opponent's to move: its value for them,
        // negated.
        let centre = self.centre[1] - (self.centre[0] + central);
        let visible = [self.visible[1], self.visible[0] + 3];
        DropValue::Goes(
            -value(
                pair_distances(&opponent),
                mine,
                self.judge.centre(
                    self.variant,
                    centre,
                    [self.reserves[1], self.reserves[0] - 1],
                ),
            ) - self.judge.presence(self.me.opponent(), visible),
        )
    }
}

/// What a dot in the central hexagon is worth now: near the end of the standard game
/// the centre count decides it.
pub(crate) fn centre_weight(position: &Position) -> i32 {
    let left = position
        .reserve(Color::White)
        .total()
        .min(position.reserve(Color::Black).total());
    weight_for(position.variant(), i32::from(left))
}

/// What a central dot is worth when the player with fewer pieces to drop has `left`:
/// nothing in the basic game or while more than ten are left, then rising to more than a
/// cell of path length when the last drop is near.
fn weight_for(variant: Variant, left: i32) -> i32 {
    match variant {
        Variant::Standard if left <= 10 => 12 * (11 - left),
        Variant::Standard | Variant::Basic => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use punct_rules::{Cell, Game, Side, Variant};
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, HashMap};

    fn game(script: &str) -> Game {
        Game::from_record(Variant::Standard, &script.replace(' ', "\n")).unwrap()
    }

    #[test]
    fn empty_board_is_seventeen_cells_across_every_pair() {
        let p = Position::new(Variant::Standard);
        assert_eq!(
            pair_distances(&Terrain::new(&p, Color::White, Opponent::Costly)),
            [17; 3]
        );
    }

    #[test]
    fn own_dots_shorten_the_path_and_opponent_dots_lengthen_it() {
        let g = game("A8:B9,C10 G2:H2,H3");
        let p = g.position();
        let white = pair_distances(&Terrain::new(p, Color::White, Opponent::Costly));
        assert_eq!(white[0], 14, "west-east: three dots on the way");
        let black = pair_distances(&Terrain::new(p, Color::Black, Opponent::Costly));
        assert!(black.iter().all(|&d| d <= 17));
        assert!(evaluate(p, Judge::PATHS) > 0, "White to move and ahead");
    }

    #[test]
    fn every_connecting_turn_touches_the_win_zone() {
        use crate::Rng;
        use crate::node::{landing_cells, play};
        // Games that head for connections: mostly the best of a few random turns for the
        // mover's path (no clock, so the games are the same on any machine), sometimes a
        // random turn, so that moves and jumps come up too.
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
                let sample = if rng.usize(..3) == 0 { 1 } else { 40 };
                let turn = (0..sample)
                    .map(|_| *rng.choice(&turns).unwrap())
                    .min_by_key(|&t| {
                        let next = play(position, t).0;
                        pair_distances(&Terrain::new(&next, mover, Opponent::Costly))
                            .into_iter()
                            .min()
                    })
                    .unwrap();
                game.play(turn).unwrap();
            }
        }
        assert!(
            connecting >= 100,
            "the games come near connections: {connecting}"
        );
    }

    /// What entering `cell` costs `color` in the old, cell-by-cell terms (`None`:
    /// impassable): the oracle's view of a [`Terrain`].
    fn cost(position: &Position, color: Color, opponent: Opponent, cell: Cell) -> Option<u32> {
        if position.visible(color).contains(cell) {
            Some(0)
        } else if !position.visible(color.opponent()).contains(cell) {
            Some(1)
        } else {
            match opponent {
                Opponent::Costly => Some(3),
                Opponent::Cheap => Some(1),
                Opponent::Blocked => None,
            }
        }
    }

    /// Distances from `sources` to every cell by a plain Dijkstra with a binary heap.
    fn oracle_distances(
        position: &Position,
        color: Color,
        opponent: Opponent,
        sources: CellSet,
    ) -> HashMap<Cell, u32> {
        let mut dist = HashMap::new();
        let mut heap = BinaryHeap::new();
        for cell in sources {
            if let Some(c) = cost(position, color, opponent, cell) {
                heap.push(Reverse((c, cell)));
            }
        }
        while let Some(Reverse((d, cell))) = heap.pop() {
            if dist.contains_key(&cell) {
                continue;
            }
            dist.insert(cell, d);
            for n in cell.neighbours() {
                if let (false, Some(c)) =
                    (dist.contains_key(&n), cost(position, color, opponent, n))
                {
                    heap.push(Reverse((d + c, n)));
                }
            }
        }
        dist
    }

    #[test]
    fn layers_agree_with_a_plain_dijkstra() {
        use crate::Rng;
        let mut rng = Rng::with_seed(11);
        let mut checked = 0;
        for variant in [Variant::Standard, Variant::Basic, Variant::Standard] {
            let mut game = Game::new(variant);
            while !game.is_over() {
                let position = game.position();
                for color in [Color::White, Color::Black] {
                    for opponent in [Opponent::Costly, Opponent::Cheap, Opponent::Blocked] {
                        let terrain = Terrain::new(position, color, opponent);
                        let pairs = Side::PAIRS.map(|(a, b)| {
                            (
                                oracle_distances(position, color, opponent, a.cells()),
                                oracle_distances(position, color, opponent, b.cells()),
                                b.cells(),
                            )
                        });
                        let expected = pairs.each_ref().map(|(from_a, _, b)| {
                            b.iter()
                                .filter_map(|c| from_a.get(&c).copied())
                                .min()
                                .map_or(u16::MAX, |d| d as u16)
                        });
                        assert_eq!(
                            pair_distances(&terrain),
                            expected,
                            "{opponent:?}\n{}",
                            game.record()
                        );
                        for bound in [
                            2,
                            3,
                            expected
                                .iter()
                                .copied()
                                .min()
                                .unwrap_or(0)
                                .saturating_add(2),
                        ] {
                            let mut zone = CellSet::EMPTY;
                            for ((from_a, from_b, _), &across) in pairs.iter().zip(&expected) {
                                if across > bound {
                                    continue;
                                }
                                for cell in Cell::all() {
                                    if let (Some(a), Some(b), Some(c)) = (
                                        from_a.get(&cell),
                                        from_b.get(&cell),
                                        cost(position, color, opponent, cell),
                                    ) && a + b - c <= u32::from(bound)
                                    {
                                        zone.insert(cell);
                                    }
                                }
                            }
                            assert_eq!(
                                cells_on_paths(&terrain, bound),
                                zone,
                                "bound {bound}, {opponent:?}\n{}",
                                game.record()
                            );
                        }
                        checked += 1;
                    }
                }
                // Mostly drops, with moves and jumps when they come: stacks and covered
                // dots make the three kinds of terrain differ.
                let turns = game.legal_turns();
                let moves: Vec<_> = turns.iter().filter(|t| !t.is_drop()).collect();
                let turn = match rng.choice(&moves) {
                    Some(&&m) if rng.bool() => m,
                    _ => *rng.choice(&turns).unwrap(),
                };
                game.play(turn).unwrap();
            }
        }
        assert!(checked > 300, "checked {checked}");
    }

    #[test]
    fn drops_valued_unplayed_agree_with_drops_played() {
        use crate::Rng;
        use crate::node::{End, landing_cells, play};
        let mut rng = Rng::with_seed(21);
        let (mut drops, mut ends) = (0, 0);
        for variant in [Variant::Standard, Variant::Basic] {
            for _ in 0..3 {
                let mut game = Game::new(variant);
                while !game.is_over() {
                    let position = game.position();
                    let turns = game.legal_turns();
                    for judge in [Judge::PATHS, Judge::PRESENCE] {
                        let after = AfterDrop::new(position, judge);
                        for &turn in turns.iter().filter(|t| t.is_drop()).step_by(7) {
                            let (next, end) = play(position, turn);
                            let expected = match end {
                                Some(end) => Err(end),
                                None => Ok(-evaluate(&next, judge)),
                            };
                            let got = match after.value(landing_cells(turn).unwrap()) {
                                DropValue::Goes(value) => Ok(value),
                                DropValue::Ends(end) => Err(end),
                            };
                            assert_eq!(got, expected, "{judge:?}: {turn} after\n{}", game.record());
                            drops += 1;
                            ends += usize::from(matches!(expected, Err(End::Win(_) | End::Draw)));
                        }
                    }
                    let turn = *rng.choice(&turns).unwrap();
                    game.play(turn).unwrap();
                }
            }
        }
        assert!(drops > 2000 && ends > 20, "{drops} drops, {ends} ending");
    }

    #[test]
    fn presence_counts_the_dots_on_show_and_not_the_second_move() {
        use crate::Rng;
        let mut rng = Rng::with_seed(5);
        // The same judge but for the dots on show.
        let blind = Judge {
            presence: 0,
            ..Judge::PRESENCE
        };
        let mut game = Game::new(Variant::Standard);
        let mut uneven = 0;
        while !game.is_over() {
            let position = game.position();
            let me = position.to_move();
            let shown = |c| position.visible(c).len() as i32;
            let presence = evaluate(position, Judge::PRESENCE) - evaluate(position, blind);
            if position.pieces().all(|(piece, _)| position.is_free(piece))
                && position.pieces_in_play(me) + usize::from(me == Color::Black)
                    == position.pieces_in_play(me.opponent())
            {
                // Drops alone, as many for each side as the turn order allows: level.
                assert_eq!(presence, 0, "\n{}", game.record());
            } else {
                uneven += 1;
            }
            let second = if me == Color::Black { 3 } else { 0 };
            assert_eq!(
                presence,
                PRESENCE_WEIGHT * (shown(me) - shown(me.opponent()) + second),
                "\n{}",
                game.record()
            );
            let turns = game.legal_turns();
            let moves: Vec<_> = turns.iter().filter(|t| !t.is_drop()).collect();
            let turn = match rng.choice(&moves) {
                Some(&&m) if rng.usize(..3) == 0 => m,
                _ => *rng.choice(&turns).unwrap(),
            };
            game.play(turn).unwrap();
        }
        assert!(uneven > 5, "moves and jumps came up: {uneven}");
    }

    #[test]
    fn win_zone_is_empty_far_from_a_connection() {
        let g = game("A8:B9,C10 G2:H2,H3");
        assert!(win_zone(g.position(), Color::White).is_empty());
    }
}
