//! Rated games and the ratings they change.

use super::*;
use crate::rating::Standing;
use crate::store::driver::{FromRow, params};

#[tokio::test]
async fn a_rated_game_is_rated_once_and_a_rebuild_finds_the_same_ratings() {
    let store = Store::empty().await;
    let (kris, anna) = (account(&store, "Kris").await, account(&store, "Anna").await);
    rated_game(&store, "g1", &kris, &anna, Color::White).await;
    rated_game(&store, "g2", &anna, &kris, Color::White).await;
    assert_eq!(store.unrated_games().await.unwrap(), ["g1", "g2"]);

    let [white, black] = store.rate_game("g1").await.unwrap().expect("rated");
    assert_eq!(
        (white.username.as_str(), black.username.as_str()),
        ("Kris", "Anna")
    );
    assert!(white.change.after.rating > white.change.before.rating);
    assert!(black.change.after.rating < black.change.before.rating);
    assert_eq!(store.rate_game("g1").await.unwrap(), None, "rated once");
    // Two games rated at once are rated one after the other, on top of each other.
    let (g2, again) = tokio::join!(store.rate_game("g2"), store.rate_game("g2"));
    let rated = [g2.unwrap(), again.unwrap()];
    assert_eq!(rated.iter().flatten().count(), 1, "{rated:?}");
    assert!(store.unrated_games().await.unwrap().is_empty());

    let room = store.load("g1").await.unwrap().unwrap();
    assert_eq!(room.ratings, Some([white.clone(), black.clone()]));
    let page = store
        .player(&crate::accounts::username_key("Kris"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.account, kris);
    assert_eq!(page.history.len(), 2);
    assert_eq!(page.results.len(), 2);
    let [(variant, standing, games)] = page.ratings.try_into().unwrap();
    assert_eq!((variant, games), (Variant::Standard, 2));
    let leaders = store.leaders(Variant::Standard, 1_000.0, 10).await.unwrap();
    let names: Vec<&str> = leaders.iter().map(|(name, ..)| name.as_str()).collect();
    assert_eq!(names.len(), 2);
    assert!(
        leaders
            .iter()
            .any(|(name, s, n)| name == "Kris" && *s == standing && *n == 2)
    );

    // Replaying the rated games in their order gives every rating again.
    assert_eq!(store.rebuild_ratings().await.unwrap(), 2);
    assert_eq!(
        store.leaders(Variant::Standard, 1_000.0, 10).await.unwrap(),
        leaders
    );
    let room = store.load("g1").await.unwrap().unwrap();
    assert_eq!(room.ratings, Some([white, black]));
}

/// `account`'s standing in its one variant, read from the row `sql` selects of `ratings`.
async fn standing_by(store: &Store, sql: &'static str, account: &str) -> Standing {
    let account = account.to_owned();
    store
        .db
        .run(move |db| {
            Box::pin(async move {
                let row = db.query_one(sql, params![&account]).await?;
                Standing::from_row(&row)
            })
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn a_model_reads_the_same_whatever_order_its_columns_are_selected_in() {
    let store = Store::empty().await;
    let (kris, anna) = (account(&store, "Kris").await, account(&store, "Anna").await);
    rated_game(&store, "g1", &kris, &anna, Color::White).await;
    store.rate_game("g1").await.unwrap().expect("rated");
    // Four numbers, three of one type: read by position, columns listed in another
    // order would be read into each other's places without an error.
    let listed = standing_by(
        &store,
        "SELECT rating, deviation, volatility, last_rated_at FROM ratings WHERE account = $1",
        &kris.id,
    )
    .await;
    let permuted = standing_by(
        &store,
        "SELECT last_rated_at, games, volatility, rating, deviation FROM ratings
         WHERE account = $1",
        &kris.id,
    )
    .await;
    assert_eq!(permuted, listed);
    let page = store
        .player(&crate::accounts::username_key("Kris"))
        .await
        .unwrap()
        .unwrap();
    let [(_, shown, _)] = page.ratings.try_into().unwrap();
    assert_eq!(listed, shown, "as the player's page reads it");
    assert!(listed.rating.rating > 1_500.0 && listed.last_rated_at.is_some());
}
