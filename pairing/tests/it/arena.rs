//! The arena's scoring and its pool, step by step.

use std::time::Duration;

use punct_pairing::{Arena, ArenaError, Outcome, Pair, Status, arena_points};

use Outcome::{BlackWins, Draw, WhiteWins};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// The outcome in which `winner` (one of the pair) wins.
fn won_by(pair: Pair<char>, winner: char) -> Outcome {
    if pair.white == winner {
        WhiteWins
    } else {
        BlackWins
    }
}

#[test]
fn after_two_wins_in_a_row_each_further_win_scores_four_until_a_game_is_not_won() {
    // Alone together, with no wait for a rematch: a and b play each other again and again.
    let mut arena = Arena::new(Duration::ZERO);
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    // a: win 2, win 2, win 4 (on a streak), win 4, draw 1 (ends it), win 2, win 2,
    // win 4, loss 0 (ends it), win 2.
    let results = ['a', 'a', 'a', 'a', '=', 'a', 'a', 'a', 'b', 'a'];
    let mut scores = Vec::new();
    for (t, result) in results.into_iter().enumerate() {
        let pairs = arena.pair(secs(t as u64), &[]);
        assert_eq!(pairs.len(), 1);
        let outcome = if result == '=' {
            Draw
        } else {
            won_by(pairs[0], result)
        };
        arena
            .finish(pairs[0], outcome, secs(t as u64))
            .expect("a game in progress");
        scores.push(arena.player('a').expect("joined").score);
    }
    assert_eq!(scores, [2, 4, 8, 12, 13, 15, 17, 21, 21, 23]);
    // b: a draw (1) and one win (2), never two in a row.
    assert_eq!(arena.player('b').expect("joined").score, 3);
    assert_eq!(arena.standings(), [('a', 23), ('b', 3)]);
}

#[test]
fn a_draw_or_a_loss_scores_the_same_on_a_streak_or_off_it() {
    assert_eq!(
        [arena_points(0, 2), arena_points(1, 2), arena_points(2, 2)],
        [2, 2, 4]
    );
    assert_eq!(
        [arena_points(5, 1), arena_points(5, 0), arena_points(0, 1)],
        [1, 0, 1]
    );
}

#[test]
fn waiting_players_are_paired_with_the_closest_score() {
    let mut arena = Arena::new(secs(30));
    for p in ['a', 'b', 'c', 'd'] {
        arena.join(p, secs(0));
    }
    // a beats b, c beats d: a and c have 2, b and d 0.
    for pair in arena.pair(secs(0), &[]) {
        let winner = if pair.has('a') { 'a' } else { 'c' };
        arena
            .finish(pair, won_by(pair, winner), secs(1))
            .expect("in progress");
    }
    let mut pairs: Vec<(char, char)> = arena
        .pair(secs(1), &[])
        .iter()
        .map(|p| (p.white.min(p.black), p.white.max(p.black)))
        .collect();
    pairs.sort();
    assert_eq!(pairs, [('a', 'c'), ('b', 'd')]);
}

#[test]
fn the_opponent_just_played_is_not_met_again_while_someone_else_waits() {
    let mut arena = Arena::new(secs(30));
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    let first = arena.pair(secs(0), &[])[0];
    arena.finish(first, Draw, secs(10)).expect("in progress");
    // a and b wait alone: no rematch before both have waited 30 s.
    assert!(arena.pair(secs(20), &[]).is_empty());
    // c arrives: one of a and b plays c, the other waits on.
    arena.join('c', secs(25));
    let pairs = arena.pair(secs(25), &[]);
    assert_eq!(pairs.len(), 1);
    assert!(pairs[0].has('c'), "{pairs:?}");
}

#[test]
fn two_players_who_just_met_are_paired_again_once_both_have_waited_long_enough() {
    let mut arena = Arena::new(secs(30));
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    let first = arena.pair(secs(0), &[])[0];
    arena.finish(first, Draw, secs(10)).expect("in progress");
    assert!(arena.pair(secs(39), &[]).is_empty());
    let again = arena.pair(secs(40), &[]);
    assert_eq!(again.len(), 1);
    // Colours even out: who had White has Black.
    assert_eq!(
        again[0],
        Pair {
            white: first.black,
            black: first.white
        }
    );
}

#[test]
fn players_kept_apart_are_never_paired_however_long_they_wait() {
    // No wait for a rematch, so only the block keeps a and b apart.
    let mut arena = Arena::new(Duration::ZERO);
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    let apart = [('b', 'a')];
    assert!(arena.pair(secs(0), &apart).is_empty());
    assert!(arena.pair(secs(3600), &apart).is_empty());
    // c arrives: a plays c (a has waited as long as b and comes first), and b, whose
    // only other waiting partner is a, waits on.
    arena.join('c', secs(3600));
    let pairs = arena.pair(secs(3600), &apart);
    assert_eq!(pairs.len(), 1);
    assert!(pairs[0].has('a') && pairs[0].has('c'), "{pairs:?}");
    assert_eq!(
        arena.player('b').map(|p| p.status),
        Some(Status::Waiting(secs(0)))
    );
}

#[test]
fn a_third_player_kept_apart_from_both_does_not_stop_a_rematch() {
    let mut arena = Arena::new(secs(30));
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    let first = arena.pair(secs(0), &[])[0];
    arena.finish(first, Draw, secs(10)).expect("in progress");
    // c waits too, but may play neither: a and b are as good as alone.
    arena.join('c', secs(10));
    let apart = [('c', 'a'), ('b', 'c')];
    assert!(arena.pair(secs(39), &apart).is_empty());
    let again = arena.pair(secs(40), &apart);
    assert_eq!(again.len(), 1);
    assert!(again[0].has('a') && again[0].has('b'), "{again:?}");
    // Kept apart from only one of them, c would play the other instead.
    let mut arena = Arena::new(secs(30));
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    let first = arena.pair(secs(0), &[])[0];
    arena.finish(first, Draw, secs(10)).expect("in progress");
    arena.join('c', secs(10));
    let pairs = arena.pair(secs(40), &[('c', 'a')]);
    assert_eq!(pairs.len(), 1);
    assert!(pairs[0].has('b') && pairs[0].has('c'), "{pairs:?}");
}

#[test]
fn a_block_moves_a_player_to_the_next_closest_score() {
    let mut arena = Arena::new(secs(30));
    for p in ['a', 'b', 'c', 'd'] {
        arena.join(p, secs(0));
    }
    // a beats b, c beats d: a and c have 2, b and d 0; a and c are kept apart.
    for pair in arena.pair(secs(0), &[]) {
        let winner = if pair.has('a') { 'a' } else { 'c' };
        arena
            .finish(pair, won_by(pair, winner), secs(1))
            .expect("in progress");
    }
    let mut pairs: Vec<(char, char)> = arena
        .pair(secs(1), &[('a', 'c')])
        .iter()
        .map(|p| (p.white.min(p.black), p.white.max(p.black)))
        .collect();
    pairs.sort();
    // a, first, would meet b, whom it just played: it meets d, and c meets b.
    assert_eq!(pairs, [('a', 'd'), ('b', 'c')]);
}

#[test]
fn a_paused_player_leaves_the_pool_now_or_after_the_game_and_comes_back_on_joining() {
    let mut arena = Arena::new(Duration::ZERO);
    for p in ['a', 'b', 'c'] {
        arena.join(p, secs(0));
    }
    arena.pause('c').expect("joined");
    let pair = arena.pair(secs(0), &[])[0];
    assert!(!pair.has('c'));
    // a pauses during the game: when it ends, a is out and b waits.
    arena.pause('a').expect("joined");
    arena.finish(pair, Draw, secs(5)).expect("in progress");
    assert_eq!(arena.player('a').map(|p| p.status), Some(Status::Paused));
    assert_eq!(
        arena.player('b').map(|p| p.status),
        Some(Status::Waiting(secs(5)))
    );
    assert!(arena.pair(secs(6), &[]).is_empty());
    arena.join('c', secs(7));
    assert_eq!(arena.pair(secs(7), &[]).len(), 1);
    assert_eq!(arena.player('a').map(|p| p.status), Some(Status::Paused));
}

#[test]
fn a_result_only_counts_for_a_game_in_progress_with_those_colours() {
    let mut arena = Arena::new(Duration::ZERO);
    arena.join('a', secs(0));
    arena.join('b', secs(0));
    assert_eq!(arena.pause('z'), Err(ArenaError::UnknownPlayer('z')));
    let pair = arena.pair(secs(0), &[])[0];
    let swapped = Pair {
        white: pair.black,
        black: pair.white,
    };
    assert_eq!(
        arena.finish(swapped, Draw, secs(1)),
        Err(ArenaError::NotPlaying(swapped))
    );
    arena.finish(pair, Draw, secs(1)).expect("in progress");
    assert_eq!(
        arena.finish(pair, Draw, secs(2)),
        Err(ArenaError::NotPlaying(pair))
    );
    assert_eq!(arena.player('a').map(|p| p.score), Some(1));
}

#[test]
fn an_arena_rebuilt_from_its_games_pairs_as_the_one_that_played_them() {
    // The director's arena plays four games; one rebuilt from them (resumed, then
    // finished, in order) holds the same records and pairs the pool the same way.
    let players = ['a', 'b', 'c', 'd'];
    let mut played = Arena::new(secs(30));
    for p in players {
        played.join(p, secs(0));
    }
    let mut games = Vec::new();
    for t in 0..2 {
        for pair in played.pair(secs(t), &[]) {
            let outcome = won_by(pair, pair.black);
            played.finish(pair, outcome, secs(t)).expect("in a game");
            games.push((pair, outcome, t));
        }
    }
    let mut rebuilt = Arena::new(secs(30));
    for p in players {
        rebuilt.join(p, secs(0));
    }
    for &(pair, outcome, t) in &games {
        rebuilt.resume(pair).expect("both joined");
        rebuilt.finish(pair, outcome, secs(t)).expect("resumed");
    }
    for p in players {
        assert_eq!(rebuilt.player(p), played.player(p), "{p}");
    }
    assert_eq!(rebuilt.pair(secs(5), &[]), played.pair(secs(5), &[]));
    // A game under way keeps its players out of the pool.
    let mut busy = Arena::new(secs(30));
    for p in players {
        busy.join(p, secs(0));
    }
    busy.resume(Pair {
        white: 'c',
        black: 'a',
    })
    .expect("both joined");
    let pairs = busy.pair(secs(1), &[]);
    assert_eq!(
        pairs,
        [Pair {
            white: 'b',
            black: 'd'
        }]
    );
    assert_eq!(
        busy.resume(Pair {
            white: 'a',
            black: 'z'
        }),
        Err(ArenaError::UnknownPlayer('z'))
    );
}
