//! Several lines for one position, for the analysis board: the engine's own choice, then
//! the best of the other turns, each with its score and the line the search expects.
//!
//! The search proves one turn best and cuts the rest off, so it does not rank the others.
//! Here the other turns are first valued one ply deep, as the search's own judge values
//! them, and the most promising few are each searched one ply less deep than the choice
//! was: close to what a search of them from the root would say, for a fraction of the
//! root's cost (the root searches many candidates).

use punct_rules::{Game, Turn};

use crate::eval::{Judge, evaluate};
use crate::node::play;
use crate::search::{Choice, Plan};
use crate::{Engine, Limits, plan};

/// Turns other than the choice searched for the further lines.
const POOL: usize = 6;

/// Up to `count` lines (at least one) for the side to move in `game` (none once it is over): the
/// engine's choice as [`Engine::think`] gives it, then the best others, best first.
/// Each choice's `score` is for the side to move in `game`, its `line` starts with its
/// turn. Half of the time `limits` allow goes to the first line, the rest shared among
/// the others; a depth limit applies to the first, the others one ply less.
pub fn lines(engine: &Engine, game: &Game, limits: &Limits, count: usize) -> Vec<Choice> {
    let Some(best) = engine.think(game, &limits.part(2)) else {
        return Vec::new();
    };
    if count <= 1 {
        return vec![best];
    }
    let judge = match plan(engine.level()) {
        Plan::Search { judge, .. } => judge,
        _ => Judge::PATHS,
    };
    let position = game.position();
    // The other turns that leave the game going, by their value one ply ahead. (One
    // that ends it is a win the search takes itself, or a loss or draw no line shows.)
    let mut others: Vec<(i32, Turn)> = game
        .legal_turns()
        .into_iter()
        .filter(|&turn| turn != best.turn)
        .filter_map(|turn| match play(position, turn) {
            (next, None) => Some((-evaluate(&next, judge), turn)),
            (_, Some(_)) => None,
        })
        .collect();
    others.sort_by_key(|&(value, _)| std::cmp::Reverse(value));
    others.truncate(POOL);
    let depth = best.depth.saturating_sub(1).max(1);
    let mut searched: Vec<Choice> = Vec::with_capacity(others.len());
    for (i, &(_, turn)) in others.iter().enumerate() {
        let mut after = game.clone();
        after.play(turn).expect("a legal turn");
        let limits = Limits {
            depth: Some(depth),
            ..limits.part(u32::try_from(others.len() - i).expect("a few turns"))
        };
        let reply = engine.think(&after, &limits).expect("the game goes on");
        searched.push(Choice {
            turn,
            score: lengthened(-reply.score, reply.forced_end().is_some()),
            depth: reply.depth + 1,
            nodes: reply.nodes,
            line: [turn].into_iter().chain(reply.line).collect(),
        });
    }
    searched.sort_by_key(|c| std::cmp::Reverse(c.score));
    searched.truncate(count - 1);
    [best].into_iter().chain(searched).collect()
}

/// A reply's score seen one ply earlier: a forced result is one ply further off.
fn lengthened(score: i32, forced: bool) -> i32 {
    if forced {
        score - score.signum()
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use punct_rules::{Game, Variant};

    use super::lines;
    use crate::{Engine, Level, Limits};

    #[test]
    fn the_first_line_is_the_engines_choice_and_the_others_differ() {
        let mut game = Game::new(Variant::Standard);
        for turn in ["C4:C5,D5", "P15:O14,Q16"] {
            game.play(turn.parse().unwrap()).unwrap();
        }
        let engine = Engine::new(Level::strongest());
        let found = lines(&engine, &game, &Limits::depth(2), 3);
        let choice = engine.think(&game, &Limits::depth(2)).unwrap();
        assert_eq!(found.len(), 3);
        assert_eq!(found[0], choice);
        assert_ne!(found[1].turn, found[0].turn);
        assert_ne!(found[2].turn, found[1].turn);
        assert!(found[1].score >= found[2].score);
        for line in &found {
            assert_eq!(line.line[0], line.turn);
            let mut replay = game.clone();
            for &turn in &line.line {
                replay.play(turn).unwrap();
            }
        }
    }

    #[test]
    fn one_line_asked_is_the_choice_alone() {
        let engine = Engine::new(Level::strongest());
        let game = Game::new(Variant::Basic);
        let found = lines(&engine, &game, &Limits::depth(1), 1);
        assert_eq!(found, vec![engine.think(&game, &Limits::depth(1)).unwrap()]);
    }
}
