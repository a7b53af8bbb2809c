//! Choosing a turn: the greedy players and the alpha-beta search, with the tactics every
//! level above the first shares (take a win, stop a threat, never uncover a loss).
//!
//! Positions have thousands of legal turns, nearly all of them drops that change nothing
//! that matters, so every node looks at a few candidates only: turns are first scored
//! cheaply by the cells they touch (on or beside either player's shortest paths, on the
//! cells through which either player could connect at once), the best few are played
//! and evaluated, and the best of those are searched. Immediate wins are found exactly
//! at every node, leaves included, so the search sees a threat one turn beyond its depth.

use std::collections::HashMap;

use punct_rules::{CELL_COUNT, Cell, Color, Game, Position, Turn};

use crate::Rng;
use crate::connect::{Groups, drop_connects};
use crate::eval::{AfterDrop, Analysis, DropValue, Judge, centre_weight, evaluate, win_zone};
use crate::node::{End, landing_cells, last_drop_end, origin_cells, play};
use crate::{Limits, random_index};

/// The value of a won game, less the number of plies it takes.
const WIN: i32 = 1_000_000;

/// Scores beyond this are wins or losses found by the search.
const DECIDED: i32 = WIN - 1_000;

/// Turns evaluated at the root before the best are searched.
const ROOT_POOL: usize = 150;

/// Extra candidates a node tries when all of its first candidates lose.
const WIDENING: usize = 24;

/// Defences a thorough node keeps from the moves and jumps past the first [`WIDENING`].
const FAR_DEFENCES: usize = 3;

/// Size of the transposition table, in entries (a power of two).
const TT_SIZE: usize = 1 << 16;

/// How a level plays.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Plan {
    /// A uniformly random legal turn.
    Random,
    /// The best evaluated turn one ply ahead.
    Greedy {
        /// Each turn's value is disturbed by up to this much, either way.
        noise: i32,
        /// Whether to take immediate wins first and refuse turns that let the opponent
        /// connect at once.
        tactics: bool,
    },
    /// Alpha-beta search.
    Search {
        /// Deepest iteration, in plies.
        max_depth: u32,
        /// Candidates searched at the root.
        root_width: usize,
        /// Candidates searched at every other node.
        width: usize,
        /// How positions are valued.
        judge: Judge,
        /// Whether a node whose candidates all lose looks for a defence among every move
        /// and jump that may block, not only among the first [`WIDENING`] turns.
        thorough: bool,
    },
}

/// What the engine decided, with what it knows about it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Choice {
    /// The turn to play.
    pub turn: Turn,
    /// Its value for the mover: positive is good, ±1,000,000 less the plies to the end
    /// for a forced result.
    pub score: i32,
    /// Depth of the last completed search iteration, in plies (0 for the greedy players).
    pub depth: u32,
    /// Positions looked at.
    pub nodes: u64,
    /// The line the search expects: the turn, then the best replies it found, as far
    /// as its table remembers them (the turn alone for the greedy players).
    pub line: Vec<Turn>,
}

impl Choice {
    /// For a result the search found forced, the plies to the end: positive when the
    /// mover wins, negative when it loses.
    pub fn forced_end(&self) -> Option<i32> {
        (self.score.abs() > DECIDED).then(|| self.score.signum() * (WIN - self.score.abs()))
    }
}

/// A turn played out of a position, ready to be judged or searched.
struct Child {
    /// The turn.
    turn: Turn,
    /// The position after it.
    position: Position,
    /// The end of the game it brings about.
    end: Option<End>,
    /// Its value for the player who chose it, from the evaluation or the end.
    value: i32,
}

/// Chooses a turn for the side to move in `game`, which must not be over: the best
/// found, or with a `margin` above 0, one of those that score less than `margin` below
/// it, drawn from `rng`.
pub(crate) fn choose(
    game: &Game,
    plan: Plan,
    margin: i32,
    limits: &Limits,
    rng: &mut Rng,
) -> Choice {
    let turns = game.legal_turns();
    assert!(
        !turns.is_empty(),
        "choose is only asked while the game goes on"
    );
    let only = |turn| Choice {
        turn,
        score: 0,
        depth: 0,
        nodes: 1,
        line: vec![turn],
    };
    if turns.len() == 1 {
        return only(turns[0]);
    }
    let position = game.position();
    match plan {
        Plan::Random => only(turns[random_index(rng, turns.len())]),
        Plan::Greedy { noise, tactics } => {
            let history = history(game);
            Searcher::new(limits, &history, 0, Judge::PATHS).greedy(
                position,
                &turns,
                Greedy {
                    noise,
                    tactics,
                    margin,
                },
                rng,
            )
        }
        Plan::Search {
            max_depth,
            root_width,
            width,
            judge,
            thorough,
        } => {
            let history = history(game);
            let mut turns = turns;
            if margin > 0 {
                // Turns that look alike to the cheap ordering, such as a turn's mirror
                // images, keep their order: shuffled, each game searches its own few of
                // them, so that a deep search still finds other turns as good.
                shuffle(&mut turns, rng);
            }
            let mut searcher = Searcher::new(limits, &history, width, judge);
            searcher.thorough = thorough;
            searcher.table = vec![None; TT_SIZE];
            let depth = limits.max_depth(max_depth);
            searcher.root(position, &turns, depth, root_width, Vary { margin, rng })
        }
    }
}

/// Puts `turns` in an order drawn from `rng`, the same on every platform.
fn shuffle(turns: &mut [Turn], rng: &mut Rng) {
    for last in (1..turns.len()).rev() {
        turns.swap(last, random_index(rng, last + 1));
    }
}

/// How a greedy player values and picks.
#[derive(Clone, Copy)]
struct Greedy {
    /// See [`Plan::Greedy`].
    noise: i32,
    /// See [`Plan::Greedy`].
    tactics: bool,
    /// See [`choose`].
    margin: i32,
}

/// How the root varies its choice: see [`choose`].
struct Vary<'r> {
    /// How far below the best a turn may score and still be chosen.
    margin: i32,
    /// Where the choice is drawn from.
    rng: &'r mut Rng,
}

/// One of `near`, turns with their scores, drawn from `rng`: a turn `d` below `best`
/// is weighted `margin - d`, so the better are chosen more often. Every score must be
/// above `best - margin`.
fn draw_near(near: &[(Turn, i32)], best: i32, margin: i32, rng: &mut Rng) -> (Turn, i32) {
    let weight = |score: i32| u32::try_from(margin - (best - score)).expect("within the margin");
    let total: u32 = near.iter().map(|&(_, s)| weight(s)).sum();
    let mut left = rng.u32(..total);
    for &(turn, score) in near {
        if left < weight(score) {
            return (turn, score);
        }
        left -= weight(score);
    }
    unreachable!("the draw is below the total of the weights")
}

/// How many times each position of the game has stood, by hash.
fn history(game: &Game) -> HashMap<u64, u32> {
    let mut position = Position::new(game.variant());
    let mut counts = HashMap::new();
    *counts.entry(position.hash()).or_insert(0) += 1;
    for &turn in game.turns() {
        position
            .play(turn)
            .expect("the game's turns were legal when played");
        *counts.entry(position.hash()).or_insert(0) += 1;
    }
    counts
}

/// A transposition-table entry.
#[derive(Clone, Copy)]
struct Entry {
    /// The full position hash, to tell apart positions sharing a slot.
    key: u64,
    /// The best turn found, tried first next time.
    best: Option<Turn>,
    /// The score, with decided scores made relative to this node.
    score: i32,
    /// The depth it was searched to.
    depth: u32,
    /// Whether `score` is exact, a lower or an upper bound.
    bound: Bound,
}

/// What an alpha-beta score tells.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// The true score.
    Exact,
    /// At least this (the search was cut off by beta).
    Lower,
    /// At most this (every turn failed low).
    Upper,
}

/// The state of one search.
struct Searcher<'a> {
    /// When to stop.
    limits: &'a Limits,
    /// Positions of the game so far, to score a third repetition as a draw.
    history: &'a HashMap<u64, u32>,
    /// The transposition table, keyed by position hash (empty for the greedy players).
    table: Vec<Option<Entry>>,
    /// Positions visited.
    nodes: u64,
    /// Candidates searched at each node below the root.
    width: usize,
    /// How positions are valued.
    judge: Judge,
    /// Set once the time is up: every score after that is meaningless.
    aborted: bool,
    /// Whether some position of the game has stood twice, so that a turn may draw by
    /// repetition.
    repetitions_possible: bool,
    /// See [`Plan::Search`].
    thorough: bool,
}

impl<'a> Searcher<'a> {
    /// A search without a transposition table yet.
    fn new(
        limits: &'a Limits,
        history: &'a HashMap<u64, u32>,
        width: usize,
        judge: Judge,
    ) -> Searcher<'a> {
        Searcher {
            limits,
            history,
            table: Vec::new(),
            nodes: 0,
            width,
            judge,
            aborted: false,
            repetitions_possible: history.values().any(|&n| n >= 2),
            thorough: false,
        }
    }

    /// Whether the search must stop, checked often but not at every node.
    fn out_of_time(&mut self) -> bool {
        if !self.aborted && self.nodes.is_multiple_of(16) && self.limits.expired() {
            self.aborted = true;
        }
        self.aborted
    }

    /// Plays `turn` and values the result for the player who chose it.
    fn child(&self, position: &Position, turn: Turn, ply: u32) -> Child {
        let mover = position.to_move();
        let (next, end) = play(position, turn);
        let value = match end {
            Some(end) => end_score(end, mover, ply + 1),
            None if self.repeats(&next) => 0,
            None => -evaluate(&next, self.judge),
        };
        Child {
            turn,
            position: next,
            end,
            value,
        }
    }

    /// Whether `position` would stand for the third time.
    fn repeats(&self, position: &Position) -> bool {
        self.history.get(&position.hash()).copied().unwrap_or(0) >= 2
    }

    /// The one-ply players: every turn evaluated (most promising first, until the time
    /// is up), the best taken, or one of those near it.
    fn greedy(
        &mut self,
        position: &Position,
        turns: &[Turn],
        Greedy {
            noise,
            tactics,
            margin,
        }: Greedy,
        rng: &mut Rng,
    ) -> Choice {
        let analysis = Analysis::new(position);
        if tactics && let Some(turn) = winning_turn(position, turns, &analysis) {
            return Choice {
                turn,
                score: WIN - 1,
                depth: 1,
                nodes: 1,
                line: vec![turn],
            };
        }
        let ordered = order_cheaply(position, turns, &analysis, turns.len(), None);
        let mut children = Vec::with_capacity(ordered.len());
        for turn in ordered {
            if children.len() >= 16 && self.limits.expired() {
                break;
            }
            let mut child = self.child(position, turn, 0);
            if noise > 0 && child.end.is_none() {
                child.value += rng.i32(-noise..=noise);
            }
            // Ties are broken at random.
            child.value = child.value * 16 + rng.i32(0..16);
            children.push(child);
        }
        self.nodes = children.len() as u64;
        children.sort_by_key(|c| std::cmp::Reverse(c.value));
        let opponent = position.to_move().opponent();
        let pick = if tactics {
            // Refuse turns after which the opponent connects, checking the best first for
            // as long as the time allows.
            children
                .iter()
                .enumerate()
                .take_while(|&(i, _)| i < 2 || !self.limits.expired())
                .find(|(_, c)| !loses_at_once(c, opponent))
                .map_or(0, |(i, _)| i)
        } else {
            0
        };
        let mut chosen = &children[pick];
        let best = chosen.value / 16;
        if margin > 0 && best.abs() <= DECIDED {
            // The turns after the pick that score nearly as well; one of them, unless
            // it lets the opponent connect (which only the pick was checked for).
            let near: Vec<(Turn, i32)> = children[pick..]
                .iter()
                .map(|c| (c.turn, c.value / 16))
                .take_while(|&(_, value)| value > best - margin)
                .collect();
            let (turn, _) = draw_near(&near, best, margin, rng);
            let other = children[pick..]
                .iter()
                .find(|c| c.turn == turn)
                .expect("drawn from these");
            if !tactics || !loses_at_once(other, opponent) {
                chosen = other;
            }
        }
        Choice {
            turn: chosen.turn,
            score: chosen.value / 16,
            depth: 0,
            nodes: self.nodes,
            line: vec![chosen.turn],
        }
    }

    /// The root of the alpha-beta search: tactics first, then iterative deepening; last,
    /// with a margin, one of the turns of the last complete iteration that scored nearly
    /// its best, if a later, partial one did not overturn that best.
    fn root(
        &mut self,
        position: &Position,
        turns: &[Turn],
        max_depth: u32,
        root_width: usize,
        vary: Vary<'_>,
    ) -> Choice {
        let mover = position.to_move();
        let analysis = Analysis::new(position);
        if let Some(turn) = winning_turn(position, turns, &analysis) {
            return Choice {
                turn,
                score: WIN - 1,
                depth: 1,
                nodes: 1,
                line: vec![turn],
            };
        }
        // The root affords a static look at many more turns than it searches.
        let mut children = self.expand(position, turns, &analysis, ROOT_POOL, None, 0);
        children.truncate(root_width);
        let threats = analysis.win_zone[mover.opponent() as usize];
        if !threats.is_empty() {
            // The opponent may connect next turn: look at every turn that puts a dot on
            // the cells they would need (or lifts a piece from there), and keep those
            // after which they cannot.
            let mut blocks: Vec<Child> = turns
                .iter()
                .filter(|&&t| may_block(position, t, threats))
                .filter(|&&t| children.iter().all(|c| c.turn != t))
                .map(|&t| self.child(position, t, 0))
                .collect();
            blocks.append(&mut children);
            blocks.sort_by_key(|c| std::cmp::Reverse(c.value));
            // Checking costs a generation of the opponent's turns each: stop after a
            // third of the time, so that some is left to search.
            let quota = self.limits.part(3);
            // Known safe turns first, then those not checked; known losers last.
            let mut verdict = vec![1u8; blocks.len()];
            let mut safe = 0;
            for (child, verdict) in blocks.iter().zip(verdict.iter_mut()) {
                if safe >= root_width || self.limits.expired() || (safe > 0 && quota.expired()) {
                    break;
                }
                if loses_at_once(child, mover.opponent()) {
                    *verdict = 2;
                } else {
                    *verdict = 0;
                    safe += 1;
                }
            }
            let mut verdicts = verdict.into_iter();
            let mut ranked: Vec<(u8, Child)> = blocks
                .into_iter()
                .map(|c| (verdicts.next().unwrap_or(1), c))
                .collect();
            // The sort is stable: within a verdict, best value first as before.
            ranked.sort_by_key(|(v, _)| *v);
            blocks = ranked.into_iter().map(|(_, c)| c).collect();
            blocks.truncate(root_width);
            children = blocks;
        }
        self.nodes += children.len() as u64;
        let mut best = Choice {
            turn: children[0].turn,
            score: children[0].value,
            depth: 0,
            nodes: self.nodes,
            line: Vec::new(),
        };
        let mut hope = (best.score >= -DECIDED).then_some(best.turn);
        // The near-best turns of the last complete iteration, best first.
        let mut near: Vec<(Turn, i32)> = Vec::new();
        for depth in 1..=max_depth {
            let mut alpha = -WIN - 1;
            let mut scores = Vec::with_capacity(children.len());
            for child in &children {
                // Searched with the window lowered by the margin, a turn that scores
                // nearly the best gets its exact score, not a bound.
                let floor = alpha.saturating_sub(vary.margin).max(-WIN - 1);
                let score = match child.end {
                    Some(_) => child.value,
                    None if self.repeats(&child.position) => 0,
                    None => -self.search_child(child, depth - 1, 1, -WIN - 1, -floor),
                };
                if self.aborted {
                    break;
                }
                scores.push(score);
                alpha = alpha.max(score);
            }
            // A partial iteration still counts: its first turn is the previous best, and
            // any turn that beat it did so with an exact score.
            if let Some((i, &score)) = scores
                .iter()
                .enumerate()
                .max_by_key(|&(i, &s)| (s, std::cmp::Reverse(i)))
            {
                best = Choice {
                    turn: children[i].turn,
                    score,
                    depth: if self.aborted { best.depth } else { depth },
                    nodes: self.nodes,
                    line: Vec::new(),
                };
                if score >= -DECIDED {
                    hope = Some(best.turn);
                }
            }
            if self.aborted || best.score.abs() > DECIDED {
                break;
            }
            // Next iteration: best first, the rest by this iteration's scores.
            let mut order: Vec<(i32, usize)> =
                scores.iter().enumerate().map(|(i, &s)| (s, i)).collect();
            order.sort_by_key(|&(s, i)| (std::cmp::Reverse(s), i));
            near = order
                .iter()
                .take_while(|&&(s, _)| s > best.score - vary.margin)
                .map(|&(s, i)| (children[i].turn, s))
                .collect();
            let mut slots: Vec<Option<Child>> = children.into_iter().map(Some).collect();
            children = order
                .into_iter()
                .map(|(_, i)| slots[i].take().expect("each child is moved once"))
                .collect();
        }
        if best.score < -DECIDED
            && let Some(turn) = hope
        {
            // Lost against best play as far as the search sees, which it may not see
            // right, having pruned: resist with the best turn of the deepest iteration
            // that still had hope, rather than any turn at all.
            best.turn = turn;
        }
        if vary.margin > 0
            && best.score.abs() <= DECIDED
            && let Some(&(top, score)) = near.first()
            && top == best.turn
        {
            (best.turn, best.score) = draw_near(&near, score, vary.margin, vary.rng);
        }
        best.nodes = self.nodes;
        best.line = self.line(position, best.turn, best.depth);
        best
    }

    /// `turn` and the replies the table holds as best after it, up to `depth` plies in
    /// all: what the search expects to follow.
    fn line(&self, position: &Position, turn: Turn, depth: u32) -> Vec<Turn> {
        let mut line = vec![turn];
        let (mut position, mut end) = play(position, turn);
        while end.is_none() && line.len() < depth as usize {
            let key = position.hash();
            let stored = self.table[(key as usize) & (TT_SIZE - 1)]
                .filter(|e| e.key == key)
                .and_then(|e| e.best);
            // A stored turn is legal unless two positions share all 64 bits of a hash.
            let Some(next) = stored.filter(|&t| position.is_legal(t).is_ok()) else {
                break;
            };
            line.push(next);
            (position, end) = play(&position, next);
        }
        line
    }

    /// Negamax alpha-beta: the value of `position` for its side to move.
    fn negamax(
        &mut self,
        position: &Position,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        if depth == 0 {
            return self.leaf(position, ply, evaluate(position, self.judge));
        }
        let key = position.hash();
        let slot = (key as usize) & (TT_SIZE - 1);
        let mut hint = None;
        if let Some(entry) = self.table[slot].filter(|e| e.key == key) {
            hint = entry.best;
            if entry.depth >= depth {
                let score = from_table(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }
        let turns = position.legal_turns();
        if turns == [Turn::Pass] {
            let child = self.child(position, Turn::Pass, ply);
            return match child.end {
                Some(_) => child.value,
                None => -self.negamax(&child.position, depth - 1, ply + 1, -beta, -alpha),
            };
        }
        let analysis = Analysis::new(position);
        if winning_turn(position, &turns, &analysis).is_some()
            || (self.judge.centre_end
                && last_drop_end(position, || turns.iter().any(|t| t.is_drop()))
                    == Some(End::Win(position.to_move())))
        {
            return WIN - ply as i32 - 1;
        }
        let mut children = self.expand(position, &turns, &analysis, self.width, hint, ply);
        let original_alpha = alpha;
        let mut best = -WIN - 1;
        let mut best_turn = None;
        let mut searched = 0;
        let mut widened = false;
        while searched < children.len() {
            let child = &children[searched];
            searched += 1;
            let score = match child.end {
                Some(_) => child.value,
                None if self.repeats(&child.position) => 0,
                None => -self.search_child(child, depth - 1, ply + 1, -beta, -alpha),
            };
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_turn = Some(child.turn);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
            if searched == children.len() && best < -DECIDED && !widened {
                // Every candidate loses: before believing it, try the other turns that
                // put a dot where the opponent would connect, or lift one from there, and
                // those that repeat a position twice seen (a draw). A loss found only
                // because the defence was pruned away would mislead every node above.
                widened = true;
                let threats = analysis.win_zone[position.to_move().opponent() as usize];
                let untried = |t: &Turn| children.iter().all(|c| c.turn != *t);
                let blocks: Vec<Turn> = turns
                    .iter()
                    .copied()
                    .filter(|t| may_block(position, *t, threats) && untried(t))
                    .collect();
                let limit = if self.thorough {
                    blocks.len()
                } else {
                    WIDENING
                };
                let mut more = order_cheaply(position, &blocks, &analysis, limit, None);
                let far = if self.thorough {
                    let rest = more.split_off(WIDENING.min(more.len()));
                    self.far_defences(position, rest, ply)
                } else {
                    Vec::new()
                };
                if self.repetitions_possible {
                    let draws: Vec<Turn> = turns
                        .iter()
                        .copied()
                        .filter(|t| {
                            untried(t) && !more.contains(t) && self.repeats(&play(position, *t).0)
                        })
                        .collect();
                    more.extend(draws);
                }
                children.extend(more.into_iter().map(|t| self.child(position, t, ply)));
                children.extend(far);
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best <= original_alpha {
            Bound::Upper
        } else {
            Bound::Exact
        };
        self.table[slot] = Some(Entry {
            key,
            best: best_turn,
            score: to_table(best, ply),
            depth,
            bound,
        });
        best
    }

    /// Up to [`FAR_DEFENCES`] of the moves and jumps among `blocks` after which the
    /// opponent cannot connect at once, played. Ranked by the cells they land on, a move
    /// that lifts a piece off the opponent's path or a jump that covers their dot may
    /// come hundreds of turns down, behind drops that fill the same cells: checking
    /// each costs a generation of the opponent's turns, but only at a node that seems
    /// lost, where a missed defence is a false win for every node above.
    fn far_defences(&self, position: &Position, blocks: Vec<Turn>, ply: u32) -> Vec<Child> {
        let attacker = position.to_move().opponent();
        let mut found = Vec::new();
        for turn in blocks.into_iter().filter(|t| !t.is_drop()) {
            if found.len() >= FAR_DEFENCES || self.limits.expired() {
                break;
            }
            let (next, end) = play(position, turn);
            let holds = match end {
                Some(End::Win(winner)) => winner != attacker,
                Some(End::Draw) => true,
                None => {
                    let zone = win_zone(&next, attacker);
                    zone.is_empty() || !can_win_now(&next, zone)
                }
            };
            if holds {
                found.push(self.child(position, turn, ply));
            }
        }
        found
    }

    /// [`Searcher::negamax`] of a child, whose static value is known already.
    fn search_child(&mut self, child: &Child, depth: u32, ply: u32, alpha: i32, beta: i32) -> i32 {
        if depth == 0 {
            self.nodes += 1;
            // The child's value was for the player who chose it; the leaf is valued for
            // the side to move in it.
            self.leaf(&child.position, ply, -child.value)
        } else {
            self.negamax(&child.position, depth, ply, alpha, beta)
        }
    }

    /// A leaf whose static value is `value`: a win in one for the side to move is seen
    /// exactly, and for a judge of the centre's end so is the last drop (a win, or a
    /// draw to fall back on); otherwise the value stands.
    fn leaf(&mut self, position: &Position, ply: u32, value: i32) -> i32 {
        let me = position.to_move();
        let zone = win_zone(position, me);
        if !zone.is_empty() && can_win_now(position, zone) {
            return WIN - ply as i32 - 1;
        }
        if !self.judge.centre_end {
            return value;
        }
        match last_drop_end(position, || {
            position.legal_turns().iter().any(|t| t.is_drop())
        }) {
            Some(End::Win(winner)) if winner == me => WIN - ply as i32 - 1,
            Some(End::Draw) => value.max(0),
            _ => value,
        }
    }

    /// The `width` most promising turns of `position`, played and sorted best first, the
    /// transposition table's `hint` ahead of all. Drops are valued without playing them
    /// (most turns are drops), and only those kept are played.
    fn expand(
        &self,
        position: &Position,
        turns: &[Turn],
        analysis: &Analysis,
        width: usize,
        hint: Option<Turn>,
        ply: u32,
    ) -> Vec<Child> {
        let pool = order_cheaply(position, turns, analysis, (width * 3).max(12), hint);
        let after = AfterDrop::new(position, self.judge);
        let mover = position.to_move();
        // A drop's position is left out until the drop is kept.
        let mut valued: Vec<(Turn, Option<Played>, i32)> = Vec::with_capacity(pool.len());
        for turn in pool {
            // Out of time, the most promising few will do.
            if valued.len() >= width && self.limits.expired() {
                break;
            }
            match (turn, landing_cells(turn)) {
                (Turn::Drop { .. }, Some(cells)) => {
                    let value = match after.value(cells) {
                        DropValue::Goes(value) => value,
                        DropValue::Ends(end) => end_score(end, mover, ply + 1),
                    };
                    valued.push((turn, None, value));
                }
                _ => {
                    let child = self.child(position, turn, ply);
                    valued.push((child.turn, Some((child.position, child.end)), child.value));
                }
            }
        }
        valued.sort_by_key(|&(turn, _, value)| (Some(turn) != hint, std::cmp::Reverse(value)));
        valued.truncate(width.max(1));
        valued
            .into_iter()
            .map(|(turn, played, value)| {
                let (position, end) = played.unwrap_or_else(|| play(position, turn));
                Child {
                    turn,
                    position,
                    end,
                    value,
                }
            })
            .collect()
    }
}

/// A position after a turn, with the end of the game it brings about.
type Played = (Position, Option<End>);

/// The value of a finished game for `player`, `ply` plies from the root.
fn end_score(end: End, player: Color, ply: u32) -> i32 {
    match end {
        End::Win(winner) if winner == player => WIN - ply as i32,
        End::Win(_) => -(WIN - ply as i32),
        End::Draw => 0,
    }
}

/// A decided score made relative to the node storing it.
fn to_table(score: i32, ply: u32) -> i32 {
    if score > DECIDED {
        score + ply as i32
    } else if score < -DECIDED {
        score - ply as i32
    } else {
        score
    }
}

/// A stored decided score made relative to the root again.
fn from_table(score: i32, ply: u32) -> i32 {
    if score > DECIDED {
        score - ply as i32
    } else if score < -DECIDED {
        score + ply as i32
    } else {
        score
    }
}

/// Whether `turn` puts a dot on a cell of `cells`.
fn touches(turn: Turn, cells: punct_rules::CellSet) -> bool {
    landing_cells(turn).is_some_and(|l| l.iter().any(|&c| cells.contains(c)))
}

/// Whether `turn` may stop the opponent connecting through `threats`, their win zone: it
/// puts a dot there, or it lifts a piece from there, which changes the heights their
/// jump would need.
fn may_block(position: &Position, turn: Turn, threats: punct_rules::CellSet) -> bool {
    touches(turn, threats)
        || origin_cells(position, turn).is_some_and(|o| o.iter().any(|&c| threats.contains(c)))
}

/// A turn that connects the side to move at once, if there is one.
pub(crate) fn winning_turn(
    position: &Position,
    turns: &[Turn],
    analysis: &Analysis,
) -> Option<Turn> {
    let mover = position.to_move();
    let zone = analysis.win_zone[mover as usize];
    if zone.is_empty() {
        return None;
    }
    first_win(position, turns.iter().copied(), zone)
}

/// The first of `turns` that connects the side to move at once; `zone` is their
/// [`win_zone`], which every such turn touches.
fn first_win(
    position: &Position,
    turns: impl Iterator<Item = Turn>,
    zone: punct_rules::CellSet,
) -> Option<Turn> {
    let mover = position.to_move();
    let groups = Groups::new(position, mover);
    turns.filter(|&t| touches(t, zone)).find(|&t| {
        if t.is_drop() {
            drop_connects(&groups, t)
        } else {
            play(position, t).1 == Some(End::Win(mover))
        }
    })
}

/// Whether the side to move can connect at once; `zone` is their [`win_zone`].
fn can_win_now(position: &Position, zone: punct_rules::CellSet) -> bool {
    first_win(position, position.legal_turns().into_iter(), zone).is_some()
}

/// Whether `child` loses for its chooser: it uncovers the opponent's connection, or the
/// `opponent` can connect on their next turn.
fn loses_at_once(child: &Child, opponent: Color) -> bool {
    match child.end {
        Some(End::Win(winner)) => winner == opponent,
        Some(End::Draw) => false,
        None => {
            let zone = win_zone(&child.position, opponent);
            !zone.is_empty() && can_win_now(&child.position, zone)
        }
    }
}

/// Up to `limit` turns, most promising first by the cells they touch, `hint` always
/// among them.
fn order_cheaply(
    position: &Position,
    turns: &[Turn],
    analysis: &Analysis,
    limit: usize,
    hint: Option<Turn>,
) -> Vec<Turn> {
    let me = position.to_move() as usize;
    let them = 1 - me;
    let mine = position.visible(position.to_move());
    let theirs = position.visible(position.to_move().opponent());
    let centre = centre_weight(position);
    // What a dot landing on each cell is worth: a turn's score is the sum over the cells
    // it lands on, so the table is made once and every turn reads three entries.
    let mut gain = [0i32; CELL_COUNT];
    for cell in Cell::all().filter(|&c| !mine.contains(c)) {
        let mut s = 0;
        if analysis.win_zone[me].contains(cell) {
            s += 60;
        }
        if analysis.win_zone[them].contains(cell) {
            s += 50;
        }
        if analysis.zone[me].contains(cell) {
            s += 10;
        } else if analysis.near[me].contains(cell) {
            s += 2;
        }
        if analysis.zone[them].contains(cell) {
            // Covering their dot on their path cuts it.
            s += if theirs.contains(cell) { 14 } else { 8 };
        } else if analysis.near[them].contains(cell) {
            s += 2;
        }
        if centre > 0 && cell.is_central() {
            // Near the end of the standard game, the central hexagon is worth moving to.
            s += if theirs.contains(cell) {
                centre / 4
            } else {
                centre / 8
            };
        }
        gain[cell.index()] = s;
    }
    let score = |turn: Turn| -> i32 {
        let Some(landing) = landing_cells(turn) else {
            return 0;
        };
        let mut s: i32 = landing.iter().map(|c| gain[c.index()]).sum();
        if let Some(origin) = origin_cells(position, turn) {
            for cell in origin.into_iter().filter(|c| !landing.contains(c)) {
                if analysis.zone[me].contains(cell) {
                    s -= 10;
                }
                if cell.is_central() {
                    s -= centre / 8;
                }
            }
        }
        s
    };
    let mut scored: Vec<(i32, usize)> = turns
        .iter()
        .enumerate()
        .map(|(i, &t)| (if Some(t) == hint { i32::MAX } else { score(t) }, i))
        .collect();
    let limit = limit.min(scored.len());
    if limit < scored.len() {
        scored.select_nth_unstable_by_key(limit, |&(s, i)| (std::cmp::Reverse(s), i));
        scored.truncate(limit);
    }
    scored.sort_unstable_by_key(|&(s, i)| (std::cmp::Reverse(s), i));
    scored.into_iter().map(|(_, i)| turns[i]).collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use punct_rules::Variant;

    use super::*;

    /// White to move after Black's jump A8-D11 must cover Black's dot at C8 with a jump
    /// of their own: of 2,942 turns it is the one after which Black cannot connect, and
    /// by the cells it lands on it ranks 609th of the 799 turns that may block.
    const ONE_DEFENCE: &str = "O9:P10,P11 D12:D11,E12 F10:E10,G10 K5:K4,L4 B9:C9,D9 \
        I6:H6,J6 I12:H11,J12 E8:D8,F8 L12:K12,M12 F6:F7,G6 M11:N11,O11 A8:B8,C8 \
        P9:P8,Q10 A8-D11:D9,D10";

    #[test]
    fn a_thorough_node_finds_the_defence_far_down_the_list() {
        let record = ONE_DEFENCE
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("\n");
        let game = Game::from_record(Variant::Standard, &record).unwrap();
        let history = HashMap::new();
        let limits = Limits::within(Duration::from_secs(600));
        let value = |thorough| {
            let mut searcher = Searcher::new(&limits, &history, 12, Judge::PRESENCE);
            searcher.table = vec![None; TT_SIZE];
            searcher.thorough = thorough;
            searcher.negamax(game.position(), 1, 0, -WIN - 1, WIN + 1)
        };
        assert!(value(false) < -DECIDED, "the first candidates all lose");
        assert!(value(true).abs() < DECIDED, "the jump onto C8 holds");
    }
}
