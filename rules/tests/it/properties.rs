//! Property tests over random games: generation and the legality check agree, refused
//! turns change nothing, notation round-trips, and the board stays consistent (pieces
//! counted, dots stacked, pieces supported, free pieces on top) after every turn.
//!
//! proptest draws a variant, a seed, a bias towards moves and a game length; the game
//! itself is played by a small deterministic generator seeded from the seed, so a failure
//! shrinks to a shorter game (or a plainer one, with less bias) that fails the same way.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use punct_rules::{
    CELL_COUNT, Cell, Chain, Color, Direction, Dot, Game, Kind, Outcome, PIECES_PER_PLAYER,
    PieceId, Placement, Position, Side, Turn, Variant, WinReason,
};

/// `fastrand`'s generator, seeded, with the draws the generator of turns needs.
struct Rng(fastrand::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n)
    }

    fn chance(&mut self, percent: u8) -> bool {
        self.0.u8(..100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn cell(&mut self) -> Cell {
        Cell::from_index(self.below(CELL_COUNT)).expect("an index below CELL_COUNT")
    }
}

/// What proptest draws: everything else follows from it.
#[derive(Clone, Debug)]
struct Plan {
    /// Which game.
    variant: Variant,
    /// Seeds the generators that pick the turns and the probes.
    seed: u64,
    /// Percentage of turns chosen among moves (half of them jumps) when there are any; 0
    /// is uniform over all legal turns. Uniform random games are mostly drops and end
    /// around turn 50 with few stacks; a bias towards moves makes long games with stacks
    /// and bridges.
    move_bias: u8,
    /// Turns to play at most (the game may end sooner).
    len: usize,
}

/// Plans of games of at most `max_len` turns.
fn plans(max_len: usize) -> impl Strategy<Value = Plan> {
    (
        prop_oneof![Just(Variant::Standard), Just(Variant::Basic)],
        any::<u64>(),
        0u8..=90,
        0..=max_len,
    )
        .prop_map(|(variant, seed, move_bias, len)| Plan {
            variant,
            seed,
            move_bias,
            len,
        })
}

/// Plays the game `plan` describes, calling `visit` on every game that stands on the way
/// (the start, after each turn, and the end) with a generator for probes. Probes use
/// their own generator so that what they draw never changes the game played.
fn play(
    plan: &Plan,
    mut visit: impl FnMut(&Game, &mut Rng) -> Result<(), TestCaseError>,
) -> Result<Game, TestCaseError> {
    let mut chooser = Rng::new(plan.seed);
    let mut prober = Rng::new(plan.seed ^ 0x5EED_0F9B_0BE5);
    let mut game = Game::new(plan.variant);
    visit(&game, &mut prober)?;
    while game.turns().len() < plan.len && !game.is_over() {
        let legal = game.legal_turns();
        let moves: Vec<Turn> = legal
            .iter()
            .copied()
            .filter(|t| matches!(t, Turn::Move { .. }))
            .collect();
        // Half the biased picks are jumps (the PÜNCT lands on a dot), which build stacks.
        let jumps: Vec<Turn> = moves
            .iter()
            .copied()
            .filter(|t| matches!(t, Turn::Move { to, .. } if game.position().height(*to) > 0))
            .collect();
        let turn = if !moves.is_empty() && chooser.chance(plan.move_bias) {
            if !jumps.is_empty() && chooser.chance(50) {
                chooser.pick(&jumps)
            } else {
                chooser.pick(&moves)
            }
        } else {
            chooser.pick(&legal)
        };
        game.play(turn)
            .map_err(|e| TestCaseError::fail(format!("generated turn {turn} refused: {e}")))?;
        visit(&game, &mut prober)?;
    }
    Ok(game)
}

/// A neighbour of `cell`, not `except`.
fn neighbour(rng: &mut Rng, cell: Cell, except: &[Cell]) -> Option<Cell> {
    let cells: Vec<Cell> = cell.neighbours().filter(|c| !except.contains(c)).collect();
    (!cells.is_empty()).then(|| rng.pick(&cells))
}

/// Two minor cells for a PÜNCT on `punct`: mostly shaped like some piece (next to the
/// PÜNCT, or one further on), sometimes anywhere. Given in random order.
fn minors(rng: &mut Rng, punct: Cell) -> Option<[Cell; 2]> {
    let first = neighbour(rng, punct, &[])?;
    let second = match rng.below(10) {
        0 => Some(rng.cell()).filter(|&c| c != punct && c != first),
        1..=4 => neighbour(rng, punct, &[first]),
        _ => neighbour(rng, first, &[punct]),
    }?;
    Some(if rng.chance(50) {
        [first, second]
    } else {
        [second, first]
    })
}

/// Two minor cells that fit `kind` with its PÜNCT on `punct`, in the order of the shape.
fn shaped_minors(rng: &mut Rng, kind: Kind, punct: Cell) -> Option<[Cell; 2]> {
    let orient = rng.below(usize::from(kind.orientations())) as u8;
    Placement::new(kind, punct, orient).map(Placement::minor_dots)
}

/// A turn that may or may not be legal: a drop anywhere, a move of one of the mover's
/// pieces (or from any cell) along a line or anywhere, or `pass`. Cells that hold dots
/// or lie under bridges are favoured, and so are shapes that fit, so that the refusals
/// are the subtle ones (landing, bridges) as well as the plain ones.
fn candidate(rng: &mut Rng, position: &Position) -> Turn {
    let busy: Vec<Cell> = Cell::all()
        .filter(|&c| position.top(c).is_some())
        .chain(
            position
                .pieces()
                .filter_map(|(id, _)| position.bridge_gap(id)),
        )
        .collect();
    let somewhere = |rng: &mut Rng| {
        if !busy.is_empty() && rng.chance(40) {
            let cell = rng.pick(&busy);
            neighbour(rng, cell, &[])
                .filter(|_| rng.chance(50))
                .unwrap_or(cell)
        } else {
            rng.cell()
        }
    };
    let own: Vec<(Cell, Kind)> = position
        .pieces()
        .filter(|(id, _)| id.color() == position.to_move())
        .map(|(id, p)| (p.placement.punct(), id.kind()))
        .collect();
    loop {
        let turn = match rng.below(10) {
            0..=3 => {
                let punct = somewhere(rng);
                let kind = rng_kind(rng);
                let minors = if rng.chance(50) {
                    shaped_minors(rng, kind, punct)
                } else {
                    minors(rng, punct)
                };
                minors.map(|minors| Turn::Drop { punct, minors })
            }
            4..=8 => {
                let (from, kind) = if !own.is_empty() && rng.chance(80) {
                    rng.pick(&own)
                } else {
                    (somewhere(rng), rng_kind(rng))
                };
                let to = match rng.below(10) {
                    0..=1 => from,
                    2..=3 => somewhere(rng),
                    _ => {
                        let ray: Vec<Cell> = from.ray(rng.pick(&Direction::ALL)).collect();
                        if ray.is_empty() { from } else { rng.pick(&ray) }
                    }
                };
                let minors = if rng.chance(60) {
                    shaped_minors(rng, kind, to)
                } else {
                    minors(rng, to)
                };
                minors.map(|minors| Turn::Move { from, to, minors })
            }
            _ => Some(Turn::Pass),
        };
        if let Some(turn) = turn {
            return turn;
        }
    }
}

fn rng_kind(rng: &mut Rng) -> Kind {
    rng.pick(&Kind::ALL)
}

/// Format-then-parse is the identity, in canonical form; lower case and the other minor
/// order read the same.
fn check_notation(turn: Turn) -> Result<(), TestCaseError> {
    let canonical = format!("{:?}", turn.canonical());
    let text = turn.to_string();
    let parsed: Turn = text
        .parse()
        .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(&format!("{parsed:?}"), &canonical);
    prop_assert_eq!(&parsed.to_string(), &text);
    let lower: Turn = text
        .to_lowercase()
        .parse()
        .map_err(|e| TestCaseError::fail(format!("{text} in lower case: {e}")))?;
    prop_assert_eq!(&format!("{lower:?}"), &canonical);
    let swapped = match turn {
        Turn::Drop {
            punct,
            minors: [a, b],
        } => format!("{punct}:{b},{a}"),
        Turn::Move {
            from,
            to,
            minors: [a, b],
        } => format!("{from}-{to}:{b},{a}"),
        Turn::Pass => "PASS".to_owned(),
    };
    let swapped: Turn = swapped
        .parse()
        .map_err(|e| TestCaseError::fail(format!("{swapped}: {e}")))?;
    prop_assert_eq!(&format!("{swapped:?}"), &canonical);
    Ok(())
}

/// The next dot below `level` in a stack (topmost first).
fn dot_below(stack: &[Dot], level: u8) -> Option<Dot> {
    stack.iter().find(|d| d.level < level).copied()
}

/// Whether `color`'s visible dots link opposite sides, found by a plain search over the
/// stacks: an oracle for `Position::is_connected` that shares none of its tables.
fn connected_by_search(stacks: &[Vec<Dot>], color: Color) -> bool {
    let visible = |c: Cell| {
        stacks[c.index()]
            .first()
            .is_some_and(|d| d.piece.color() == color)
    };
    Side::PAIRS.into_iter().any(|(from, to)| {
        let mut seen = vec![false; CELL_COUNT];
        let mut todo: Vec<Cell> = from.cells().into_iter().filter(|&c| visible(c)).collect();
        while let Some(cell) = todo.pop() {
            if seen[cell.index()] {
                continue;
            }
            seen[cell.index()] = true;
            if to.cells().contains(cell) {
                return true;
            }
            todo.extend(
                cell.neighbours()
                    .filter(|&n| visible(n) && !seen[n.index()]),
            );
        }
        false
    })
}

/// Everything that must hold of any position reached by legal play.
fn check_position(position: &Position) -> Result<(), TestCaseError> {
    // Each player's 18 pieces are in reserve or on the board, kind by kind.
    for color in Color::ALL {
        let reserve = position.reserve(color);
        prop_assert_eq!(
            usize::from(reserve.total()) + position.pieces_in_play(color),
            PIECES_PER_PLAYER
        );
        for kind in Kind::ALL {
            let in_play = position
                .pieces()
                .filter(|(id, _)| id.color() == color && id.kind() == kind)
                .count();
            prop_assert_eq!(
                usize::from(reserve.count(kind)) + in_play,
                usize::from(kind.count())
            );
        }
        // A piece in reserve is not free.
        for id in PieceId::all(color).filter(|&id| position.placed(id).is_none()) {
            prop_assert!(!position.is_free(id));
        }
    }

    let stacks: Vec<Vec<Dot>> = Cell::all().map(|c| position.stack(c)).collect();
    let in_play = position.pieces().count();
    // Every dot is in exactly one stack: three per piece, each in its own cell's stack.
    prop_assert_eq!(stacks.iter().map(Vec::len).sum::<usize>(), 3 * in_play);
    for cell in Cell::all() {
        let stack = &stacks[cell.index()];
        // No two dots at one level: levels fall strictly from the top, down to >= 1.
        prop_assert!(
            stack.windows(2).all(|w| w[0].level > w[1].level),
            "levels not strictly decreasing in {}: {:?}",
            cell,
            stack
        );
        prop_assert!(stack.iter().all(|d| d.level >= 1));
        // The incremental tables agree with the stacks.
        prop_assert_eq!(position.top(cell), stack.first().copied());
        prop_assert_eq!(position.height(cell), stack.first().map_or(0, |d| d.level));
        for color in Color::ALL {
            let shows = stack.first().is_some_and(|d| d.piece.color() == color);
            prop_assert_eq!(position.visible(color).contains(cell), shows);
        }
    }

    for (id, placed) in position.pieces() {
        let placement = placed.placement;
        let level = placed.level;
        prop_assert_eq!(placement.kind(), id.kind());
        for cell in placement.cells() {
            let own: Vec<&Dot> = stacks[cell.index()]
                .iter()
                .filter(|d| d.piece == id)
                .collect();
            prop_assert_eq!(own.len(), 1, "{:?} in {}", id, cell);
            // The piece's three dots share its one level.
            prop_assert_eq!(own[0].level, level);
            prop_assert_eq!(own[0].is_punct, cell == placement.punct());
        }

        // Support. A piece at level 1 has nothing under it. Above the ground, each dot
        // except a bridge's middle sits right on a dot one level down, and the PÜNCT on
        // one of its owner's: that dot's piece has been covered ever since, so frozen.
        // The middle of a bridgeable kind may hang over anything lower, or nothing.
        let middle = placement.bridge_middle();
        for cell in placement.cells() {
            let below = dot_below(&stacks[cell.index()], level);
            if level == 1 {
                prop_assert!(below.is_none(), "{:?} at level 1 over {:?}", id, below);
            } else if Some(cell) != middle {
                let below = below.ok_or_else(|| {
                    TestCaseError::fail(format!("{id:?} at level {level} over nothing in {cell}"))
                })?;
                prop_assert_eq!(below.level, level - 1, "{:?} in {}", id, cell);
                if cell == placement.punct() {
                    prop_assert_eq!(below.piece.color(), id.color(), "PÜNCT of {:?}", id);
                }
            }
        }
        // Only the end-PÜNCT kinds have a middle that may hang.
        prop_assert_eq!(middle.is_some(), id.kind().can_bridge());
        // A bridge is exactly a piece whose middle hangs.
        let gap = middle
            .filter(|&m| dot_below(&stacks[m.index()], level).map_or(0, |d| d.level) + 1 < level);
        prop_assert_eq!(position.bridge_gap(id), gap);
        prop_assert_eq!(position.is_bridge(id), gap.is_some());

        // Free exactly when each of its dots tops its cell.
        let on_top = placement
            .cells()
            .iter()
            .all(|c| stacks[c.index()].first().is_some_and(|d| d.piece == id));
        prop_assert_eq!(position.is_free(id), on_top, "{:?}", id);
    }

    for color in Color::ALL {
        prop_assert_eq!(
            position.is_connected(color),
            connected_by_search(&stacks, color),
            "{} connection",
            color
        );
        check_chain(position, &stacks, color)?;
    }
    Ok(())
}

/// A winning chain exists exactly when the colour is connected, and it is a real chain:
/// it starts on one side of a pair and ends on the other, every cell shows the colour
/// on top, each follows its predecessor as a neighbour, and none repeats.
fn check_chain(
    position: &Position,
    stacks: &[Vec<Dot>],
    color: Color,
) -> Result<(), TestCaseError> {
    let chain = position.winning_chain(color);
    prop_assert_eq!(chain.is_some(), position.is_connected(color));
    let Some(Chain {
        sides: [from, to],
        cells,
    }) = chain
    else {
        return Ok(());
    };
    prop_assert!(Side::PAIRS.contains(&(from, to)));
    prop_assert!(from.cells().contains(cells[0]));
    prop_assert!(
        to.cells()
            .contains(*cells.last().expect("a chain has cells"))
    );
    for &cell in &cells {
        let shows = stacks[cell.index()]
            .first()
            .is_some_and(|d| d.piece.color() == color);
        prop_assert!(shows, "{} in the chain does not show {}", cell, color);
    }
    for pair in cells.windows(2) {
        prop_assert!(
            pair[0].neighbours().any(|n| n == pair[1]),
            "{:?} not linked",
            pair
        );
    }
    let distinct: HashSet<Cell> = cells.iter().copied().collect();
    prop_assert_eq!(distinct.len(), cells.len());
    Ok(())
}

/// The game ends on a connection as RULES.md 4.1–4.2 say, and only then with a
/// connection.
fn check_outcome(game: &Game) -> Result<(), TestCaseError> {
    let position = game.position();
    let connected = |c: Color| position.is_connected(c);
    let Some(&last) = game.turns().last() else {
        prop_assert!(game.outcome().is_none());
        return Ok(());
    };
    let mover = position.to_move().opponent();
    match game.outcome() {
        Some(Outcome::Win {
            winner,
            reason: WinReason::Connection,
        }) => {
            prop_assert!(connected(winner));
            prop_assert!(winner == mover || !connected(mover));
        }
        _ => prop_assert!(
            !connected(Color::White) && !connected(Color::Black),
            "a connection after {} did not end the game",
            last
        ),
    }
    Ok(())
}

/// `count` random turns are legal exactly when generated, and those refused leave the
/// game and its position unchanged.
fn check_refusals(game: &Game, rng: &mut Rng, count: usize) -> Result<(), TestCaseError> {
    let legal: HashSet<Turn> = game.legal_turns().into_iter().collect();
    for _ in 0..count {
        let turn = candidate(rng, game.position());
        let verdict = game.is_legal(turn);
        prop_assert_eq!(
            legal.contains(&turn),
            verdict.is_ok(),
            "{} generated: {}, check: {:?}",
            turn,
            legal.contains(&turn),
            verdict
        );
        if !game.is_over() {
            prop_assert_eq!(game.position().is_legal(turn), verdict);
        }
        if verdict.is_ok() {
            continue;
        }
        let mut after = game.clone();
        prop_assert_eq!(after.play(turn).err(), verdict.err());
        prop_assert_eq!(after.position(), game.position());
        prop_assert_eq!(after.turns(), game.turns());
        prop_assert_eq!(after.outcome(), game.outcome());
        if !game.is_over() {
            let mut position = game.position().clone();
            prop_assert!(position.play(turn).is_err());
            prop_assert_eq!(&position, game.position());
        }
    }
    Ok(())
}

/// One proptest config for all: few cases, as each plays a whole game.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        // Shrinking replays games; a bound keeps a failure's report prompt.
        max_shrink_iters: 200,
        // Failures are reproduced from the printed plan; no regression files in the tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Every generated turn passes the legality check and can be played, and the list
    /// has no duplicates (each would be counted twice by perft).
    #[test]
    fn generated_turns_are_legal(plan in plans(250)) {
        play(&plan, |game, rng| {
            let legal = game.legal_turns();
            if game.is_over() {
                prop_assert!(legal.is_empty());
                return Ok(());
            }
            let distinct: HashSet<Turn> = legal.iter().copied().collect();
            prop_assert_eq!(distinct.len(), legal.len(), "duplicate turns");
            prop_assert_eq!(game.position().count_legal_turns(), legal.len());
            for &turn in &legal {
                if let Err(e) = game.is_legal(turn) {
                    return Err(TestCaseError::fail(format!("generated {turn} refused: {e}")));
                }
                let mut position = game.position().clone();
                prop_assert!(position.play(turn).is_ok(), "Position::play refused {}", turn);
                prop_assert_eq!(position.to_move(), game.to_move().opponent());
            }
            // Game::play also judges the end of the game; a sample is enough.
            for _ in 0..4 {
                let turn = rng.pick(&legal);
                let mut after = game.clone();
                prop_assert!(after.play(turn).is_ok(), "Game::play refused {}", turn);
                prop_assert_eq!(after.turns().last(), Some(&turn));
            }
            Ok(())
        })?;
    }

    /// Random turns are legal exactly when generated; refused ones change nothing.
    #[test]
    fn other_turns_are_refused_and_change_nothing(plan in plans(300)) {
        play(&plan, |game, rng| check_refusals(game, rng, 40))?;
    }

    /// Formatting then parsing a turn gives it back, legal or not.
    #[test]
    fn notation_round_trips(plan in plans(200)) {
        play(&plan, |game, rng| {
            let legal = game.legal_turns();
            for _ in 0..10 {
                if !legal.is_empty() {
                    check_notation(rng.pick(&legal))?;
                }
                check_notation(candidate(rng, game.position()))?;
            }
            Ok(())
        })?;
    }

    /// The board stays consistent after every turn.
    #[test]
    fn invariants_hold_after_every_turn(plan in plans(300)) {
        let mut turns_seen = 0;
        let game = play(&plan, |game, _| {
            prop_assert_eq!(game.turns().len(), turns_seen);
            turns_seen += 1;
            check_position(game.position())?;
            check_outcome(game)
        })?;
        prop_assert!(game.turns().len() <= plan.len);
    }
}

/// The perft records hold what random games rarely reach: level 3 stacks, bridges over
/// frozen dots, a player with one free piece. Every position on their way must pass the
/// same checks.
#[test]
fn record_positions_keep_invariants() -> Result<(), TestCaseError> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/records");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/records exists")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 4,
        "records went missing from {}",
        dir.display()
    );
    for (index, path) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(path).expect("a readable record");
        // Records name their variant in their first line, as `Game::record` writes it.
        let variant = if text.lines().next().is_some_and(|l| l.contains("basic")) {
            Variant::Basic
        } else {
            Variant::Standard
        };
        let mut rng = Rng::new(index as u64);
        let mut game = Game::new(variant);
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let turn: Turn = line.parse().expect("a turn in notation");
            game.play(turn)
                .map_err(|e| TestCaseError::fail(format!("{}: {line}: {e}", path.display())))?;
            check_position(game.position())?;
            check_outcome(&game)?;
            check_refusals(&game, &mut rng, 20)?;
        }
    }
    Ok(())
}
