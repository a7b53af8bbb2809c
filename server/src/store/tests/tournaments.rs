//! Tournaments, their entries and their rounds.

use super::*;

fn new_tournament(id: &str, creator: &Account) -> NewTournament {
    NewTournament {
        id: id.into(),
        name: "Autumn Swiss".into(),
        format: punct_protocol::TournamentFormat::Swiss,
        variant: Variant::Standard,
        clock: Some(punct_protocol::TimeControl::clock(300, 3)),
        rated: true,
        starts_at: 1_000,
        ends_at: None,
        rounds: Some(3),
        min_players: 2,
        max_players: 16,
        creator: creator.id.clone(),
    }
}

#[tokio::test]
async fn a_tournament_its_entries_and_its_state_read_back() {
    let store = Store::empty().await;
    let ada = account(&store, "ada").await;
    let bo = account(&store, "bo").await;
    store
        .create_tournament(new_tournament("t1", &ada))
        .await
        .unwrap();
    let read = store.tournament("t1").await.unwrap().unwrap();
    assert_eq!(read.name, "Autumn Swiss");
    assert_eq!(read.creator, "ada");
    assert_eq!(read.clock, Some(punct_protocol::TimeControl::clock(300, 3)));
    assert_eq!((read.rounds, read.players, read.round), (Some(3), 0, 0));
    assert!(read.rated);
    assert_eq!(read.state, TournamentState::Upcoming);
    assert!(store.tournament("t2").await.unwrap().is_none());

    store.enter("t1", &ada.id).await.unwrap();
    // Entries are listed in the order they were made, to the millisecond.
    std::thread::sleep(std::time::Duration::from_millis(2));
    store.enter("t1", &bo.id).await.unwrap();
    assert_eq!(store.tournament("t1").await.unwrap().unwrap().players, 2);
    assert!(store.withdraw("t1", &bo.id).await.unwrap());
    assert!(!store.withdraw("t1", &bo.id).await.unwrap(), "once");
    let entries = store.entries("t1").await.unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].account, ada);
    assert!(entries[0].withdrawn_at.is_none() && entries[1].withdrawn_at.is_some());
    assert_eq!(store.tournament("t1").await.unwrap().unwrap().players, 1);
    // Entering again after withdrawing undoes the withdrawal.
    store.enter("t1", &bo.id).await.unwrap();
    assert!(store.entries("t1").await.unwrap()[1].withdrawn_at.is_none());
    // Leaving before the start takes the entry away.
    assert!(store.leave("t1", &bo.id).await.unwrap());
    assert!(!store.leave("t1", &bo.id).await.unwrap());
    assert_eq!(store.entries("t1").await.unwrap().len(), 1);

    // Due once its start has come; listed by state.
    assert!(store.tournaments_due(999).await.unwrap().is_empty());
    assert_eq!(store.tournaments_due(1_000).await.unwrap(), ["t1"]);
    let upcoming = store
        .tournaments_in(TournamentState::Upcoming, 10)
        .await
        .unwrap();
    assert_eq!(upcoming.len(), 1);
    store
        .set_tournament_state("t1", TournamentState::Finished)
        .await
        .unwrap();
    assert!(store.tournaments_due(i64::MAX).await.unwrap().is_empty());
    let finished = store
        .tournaments_in(TournamentState::Finished, 10)
        .await
        .unwrap();
    assert_eq!(finished[0].state, TournamentState::Finished);
}

#[tokio::test]
async fn a_round_is_stored_with_its_rooms_once_and_its_results_are_the_rooms() {
    let store = Store::empty().await;
    let [ada, bo, cy] = [
        account(&store, "ada").await,
        account(&store, "bo").await,
        account(&store, "cy").await,
    ];
    store
        .create_tournament(new_tournament("t", &ada))
        .await
        .unwrap();
    let game = |id: &str, white: &Account, black: &Account| NewPairing {
        room: Some(NewRoom {
            players: [Player::of(white.clone()), Player::of(black.clone())],
            ..new_room(id, [Some(hash_token(id)), Some(hash_token(id))])
        }),
        white: white.id.clone(),
        black: Some(black.id.clone()),
    };
    let bye = |player: &Account| NewPairing {
        room: None,
        white: player.id.clone(),
        black: None,
    };
    store
        .pair_round("t", 1, vec![game("g1", &ada, &bo), bye(&cy)])
        .await
        .unwrap();
    // The same round again (a director restarted half-way, say) stores nothing: not
    // even its new room.
    let again = store
        .pair_round("t", 1, vec![game("g2", &cy, &ada), bye(&bo)])
        .await;
    assert!(again.is_err());
    assert!(store.summary("g2").await.unwrap().is_none());

    let pairings = store.pairings("t").await.unwrap();
    assert_eq!(pairings.len(), 2);
    assert_eq!(
        (
            pairings[0].round,
            pairings[0].board,
            pairings[0].room.as_deref()
        ),
        (1, 1, Some("g1"))
    );
    assert_eq!(pairings[0].black.as_ref(), Some(&bo));
    assert_eq!(pairings[0].outcome, None);
    assert_eq!(
        (pairings[1].white.clone(), pairings[1].black.clone()),
        (cy, None)
    );
    assert_eq!(store.tournament("t").await.unwrap().unwrap().round, 1);

    // The room knows its tournament; its end is the pairing's result.
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded.tournament.as_deref(), Some("t"));
    let outcome = Outcome::Win {
        winner: Color::Black,
        reason: WinReason::Resignation,
    };
    store
        .finish("g1", loaded.incarnation, outcome, Vec::new())
        .await
        .unwrap();
    assert_eq!(store.pairings("t").await.unwrap()[0].outcome, Some(outcome));
}
