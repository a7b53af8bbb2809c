//! Puzzle ratings: a player's first result of a puzzle rates both, as a game.

use punct_testing::glicko2::{self, Glicko};

use super::*;
use crate::rating::{Rating, Standing};
use crate::store::PuzzlePlayed;

/// `rating` as the paper's implementation (`punct-testing`) takes it.
fn glicko(rating: Rating) -> Glicko {
    Glicko {
        rating: rating.rating,
        deviation: rating.deviation,
        volatility: rating.volatility,
    }
}

/// The paper's rating after one period in which `player` scored `score` against
/// `opponent`: what the store must have computed, up to rounding.
fn paper(player: Rating, opponent: Rating, score: f64) -> Rating {
    let after = glicko2::period(glicko(player), &[(glicko(opponent), score)]).rating();
    Rating {
        rating: after.rating,
        deviation: after.deviation,
        volatility: after.volatility,
    }
}

/// `ours` and the paper's `theirs` differ by rounding only (see `rating.rs`'s tests: a
/// wrong formula or score moves them by far more than 1e-12).
fn assert_close(ours: Rating, theirs: Rating, what: &str) {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    assert!(
        close(ours.rating, theirs.rating)
            && close(ours.deviation, theirs.deviation)
            && close(ours.volatility, theirs.volatility),
        "{what}: {ours:?} stored, {theirs:?} by the paper"
    );
}

/// Puzzle `id`'s stored rating, if it was ever rated.
async fn puzzle(store: &Store, id: &str) -> Option<Rating> {
    let ratings = store.puzzle_ratings().await.unwrap();
    ratings.into_iter().find(|(p, _)| p == id).map(|(_, r)| r)
}

#[tokio::test]
async fn the_first_result_of_a_puzzle_rates_player_and_puzzle_and_a_second_changes_nothing() {
    let store = Store::empty().await;
    let (anna, bert) = (account(&store, "anna").await, account(&store, "bert").await);
    assert_eq!(puzzle(&store, "stop-2").await, None, "unplayed: no row");
    assert_eq!(
        store.puzzle_player(&anna.id).await.unwrap().standing.rating,
        Rating::NEW
    );

    // Anna solves it: she wins against the puzzle.
    let played = store.play_puzzle(&anna.id, "stop-2", true).await.unwrap();
    assert!(played.rated);
    assert_eq!(played.change.player.before, Rating::NEW);
    assert_close(
        played.change.player.after,
        paper(Rating::NEW, Rating::NEW, 1.0),
        "anna",
    );
    assert_close(
        played.change.puzzle,
        paper(Rating::NEW, Rating::NEW, 0.0),
        "the puzzle",
    );
    assert!(played.change.player.after.rating > 1500.0 && played.change.puzzle.rating < 1500.0);
    let anna_after = store.puzzle_player(&anna.id).await.unwrap().standing;
    assert_eq!(anna_after.rating, played.change.player.after, "stored");
    assert!(anna_after.last_rated_at.is_some());
    let puzzle_after = puzzle(&store, "stop-2").await.unwrap();
    assert_eq!(puzzle_after, played.change.puzzle, "stored");

    // Anna again, failing this time: nothing changes, and it stays solved.
    let again = store.play_puzzle(&anna.id, "stop-2", false).await.unwrap();
    assert_eq!(
        again,
        PuzzlePlayed {
            rated: false,
            change: crate::rating::PuzzleChange {
                player: crate::rating::Change {
                    before: anna_after.rating,
                    after: anna_after.rating,
                },
                puzzle: puzzle_after,
            },
        }
    );
    assert_eq!(
        store.puzzle_player(&anna.id).await.unwrap().standing,
        anna_after
    );
    assert_eq!(puzzle(&store, "stop-2").await, Some(puzzle_after));
    assert_eq!(store.solved_of(&anna.id).await.unwrap(), ["stop-2"]);

    // Bert fails it first, then solves it: the failure alone is rated (from the puzzle's
    // rating Anna left), and the solve is kept.
    let failed = store.play_puzzle(&bert.id, "stop-2", false).await.unwrap();
    assert!(failed.rated);
    assert_close(
        failed.change.player.after,
        paper(Rating::NEW, puzzle_after, 0.0),
        "bert",
    );
    assert_close(
        failed.change.puzzle,
        paper(puzzle_after, Rating::NEW, 1.0),
        "the puzzle, beating bert",
    );
    assert!(failed.change.player.after.rating < 1500.0);
    assert!(failed.change.puzzle.rating > puzzle_after.rating);
    assert!(store.solved_of(&bert.id).await.unwrap().is_empty());
    let solved = store.play_puzzle(&bert.id, "stop-2", true).await.unwrap();
    assert!(!solved.rated);
    assert_eq!(solved.change.player.after, failed.change.player.after);
    assert_eq!(solved.change.puzzle, failed.change.puzzle);
    assert_eq!(store.solved_of(&bert.id).await.unwrap(), ["stop-2"]);

    // Anna's next puzzle starts from where her first left her.
    let next = store
        .play_puzzle(&anna.id, "connect-1", false)
        .await
        .unwrap();
    assert!(next.rated);
    assert_close(
        next.change.player.after,
        paper(anna_after.rating, Rating::NEW, 0.0),
        "anna's second puzzle",
    );
    assert_eq!(puzzle(&store, "stop-2").await, Some(failed.change.puzzle));
}

#[tokio::test]
async fn a_puzzle_finished_twice_at_once_is_rated_once() {
    let store = Store::empty().await;
    let anna = account(&store, "anna").await;
    let (a, b) = tokio::join!(
        store.play_puzzle(&anna.id, "stop-1", true),
        store.play_puzzle(&anna.id, "stop-1", false)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.rated ^ b.rated, "{a:?} {b:?}");
    let rated = if a.rated { a } else { b };
    let stored = store.puzzle_player(&anna.id).await.unwrap().standing.rating;
    assert_eq!(stored, rated.change.player.after);
    assert_eq!(puzzle(&store, "stop-1").await, Some(rated.change.puzzle));
}

#[tokio::test]
async fn the_best_streak_is_the_longest_and_goes_with_the_account() {
    let store = Store::empty().await;
    let anna = account(&store, "anna").await;
    assert_eq!(store.end_streak(&anna.id, 3).await.unwrap(), 3);
    assert_eq!(store.end_streak(&anna.id, 2).await.unwrap(), 3, "shorter");
    let player = store.puzzle_player(&anna.id).await.unwrap();
    assert_eq!((player.standing, player.best_streak), (Standing::NEW, 3));

    // A rated puzzle keeps the streak, and a streak keeps the rating.
    let played = store.play_puzzle(&anna.id, "stop-1", true).await.unwrap();
    assert_eq!(store.puzzle_player(&anna.id).await.unwrap().best_streak, 3);
    assert_eq!(store.end_streak(&anna.id, 5).await.unwrap(), 5);
    let player = store.puzzle_player(&anna.id).await.unwrap();
    assert_eq!(player.standing.rating, played.change.player.after);

    store.delete_account(&anna.id).await.unwrap();
    let player = store.puzzle_player(&anna.id).await.unwrap();
    assert_eq!((player.standing, player.best_streak), (Standing::NEW, 0));
    // The puzzle's rating stays: others' results were rated from it.
    assert_eq!(puzzle(&store, "stop-1").await, Some(played.change.puzzle));
}
