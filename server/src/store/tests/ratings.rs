//! Rated games and the ratings they change.

use super::*;

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
