//! Rooms, their turns, chat and timers, and the archive.

use super::*;

#[tokio::test]
async fn a_room_reads_back_as_it_was_written() {
    let store = Store::empty().await;
    let (white, black) = (hash_token("w"), hash_token("b"));
    let kris = Player::of(account(&store, "Kris_Burm").await);
    let anna = Player {
        name: Some("Anna".into()),
        account: None,
    };
    store
        .create_room(NewRoom {
            variant: Variant::Basic,
            visibility: Visibility::Private,
            clock: Some([60_000, 2_000]),
            players: [kris.clone(), Player::default()],
            rated: true,
            ..new_room("r1", [Some(white), None])
        })
        .await
        .unwrap();
    assert!(
        store
            .take_seat("r1", 0, Color::Black, black, anna.clone())
            .await
            .unwrap()
    );
    assert!(
        !store
            .take_seat("r1", 0, Color::Black, white, Player::default())
            .await
            .unwrap(),
        "a seat is given out once"
    );
    let turns: Vec<Turn> = ["C4:C5,D5", "pass"].map(|t| t.parse().unwrap()).into();
    for (n, &turn) in turns.iter().enumerate() {
        let left = [60_000 - n as u64, 61_000];
        store
            .turn("r1", 0, n + 1, turn, Some(left), None, Vec::new())
            .await
            .unwrap();
    }
    let room = store.load("r1").await.unwrap().unwrap();
    assert_eq!(room.variant, Variant::Basic);
    assert_eq!(room.visibility, Visibility::Private);
    assert_eq!(room.seats, [Some(white), Some(black)]);
    assert_eq!(room.players, [kris.clone(), anna.clone()]);
    assert!(room.rated);
    let row = store.summary("r1").await.unwrap().unwrap();
    assert_eq!(
        (row.players, row.rated),
        ([kris.clone(), anna.clone()], true)
    );
    let record = store.record("r1").await.unwrap().unwrap();
    assert_eq!((record.players, record.rated), ([kris, anna], true));
    assert_eq!(room.incarnation, 1);
    assert_eq!(room.turns, turns);
    assert_eq!(room.clock, Some([60_000, 2_000]));
    assert_eq!(room.clocks_left, Some([59_999, 61_000]));
    assert_eq!(room.outcome, None);
    assert_eq!(store.load("r1").await.unwrap().unwrap().incarnation, 2);
    assert!(store.load("nope").await.unwrap().is_none());
    // The timed game's clock runs: it needs its timer after a restart.
    assert_eq!(store.with_timers().await.unwrap(), ["r1"]);
}

#[tokio::test]
async fn reads_change_nothing() {
    let store = Store::empty().await;
    store
        .create_room(new_room("r", [Some(hash_token("w")), None]))
        .await
        .unwrap();
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    store
        .turn("r", 0, 1, turn, None, None, Vec::new())
        .await
        .unwrap();
    for _ in 0..3 {
        let row = store.summary("r").await.unwrap().unwrap();
        assert_eq!(
            (row.taken, row.turns, row.outcome),
            ([true, false], 1, None)
        );
        let record = store.record("r").await.unwrap().unwrap();
        assert_eq!(record.turns, [turn]);
        assert_eq!(store.lobby(10).await.unwrap(), [row]);
    }
    assert_eq!(store.load("r").await.unwrap().unwrap().incarnation, 1);
    assert_eq!(store.summary("nope").await.unwrap(), None);
    assert_eq!(store.record("nope").await.unwrap(), None);
}

#[tokio::test]
async fn a_turn_numbered_twice_is_refused_and_the_rest_of_its_batch_stands() {
    let store = Store::empty().await;
    store
        .create_room(new_room("r", [Some([0; 32]), None]))
        .await
        .unwrap();
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    store
        .turn("r", 0, 1, turn, None, None, Vec::new())
        .await
        .unwrap();
    let outcome = Outcome::Draw {
        reason: DrawReason::Repetition,
    };
    let (again, finish) = tokio::join!(
        store.turn("r", 0, 1, turn, None, None, Vec::new()),
        store.finish("r", 0, outcome, Vec::new())
    );
    assert!(again.is_err(), "{again:?}");
    finish.unwrap();
    let room = store.load("r").await.unwrap().unwrap();
    assert_eq!(room.turns, [turn]);
    assert_eq!((room.clock, room.clocks_left), (None, None));
    assert_eq!(room.outcome, Some(outcome));
    assert!(store.lobby(10).await.unwrap().is_empty());
}

#[tokio::test]
async fn computer_rooms_need_a_timer_only_while_the_computer_is_to_move() {
    let store = Store::empty().await;
    let seats = [Some(hash_token("w")), Some(hash_token("b"))];
    for (id, color) in [("c-white", Color::White), ("c-black", Color::Black)] {
        store
            .create_room(NewRoom {
                computer: Some((color, 3)),
                ..new_room(id, seats)
            })
            .await
            .unwrap();
    }
    // A timed game whose first turn is not played: no clock runs yet.
    store
        .create_room(NewRoom {
            clock: Some([60_000, 0]),
            ..new_room("timed", seats)
        })
        .await
        .unwrap();
    assert_eq!(store.with_timers().await.unwrap(), ["c-white"]);
}

#[tokio::test]
async fn stale_rooms_are_found_and_expired_unless_loaded_since() {
    let store = Store::empty().await;
    let w = Some(hash_token("w"));
    let b = Some(hash_token("b"));
    // Named in alphabetical order: some are made in the same millisecond.
    store
        .create_room(new_room("a-open", [w, None]))
        .await
        .unwrap();
    store
        .create_room(new_room("b-played", [w, b]))
        .await
        .unwrap();
    store
        .create_room(new_room("c-loaded", [w, b]))
        .await
        .unwrap();
    store
        .create_room(NewRoom {
            computer: Some((Color::White, 2)),
            ..new_room("d-computer", [w, b])
        })
        .await
        .unwrap();
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    store
        .turn("b-played", 0, 1, turn, None, None, Vec::new())
        .await
        .unwrap();
    // Nothing is stale yet.
    assert!(store.stale(0, 0, now()).await.unwrap().is_empty());
    std::thread::sleep(std::time::Duration::from_millis(5));
    let later = now();
    let stale = store.stale(later, later, later).await.unwrap();
    let ids: Vec<(&str, StaleEnd)> = stale.iter().map(|s| (s.id.as_str(), s.end)).collect();
    let abandoned_by = |loser: Color| {
        StaleEnd::Finish(Outcome::Win {
            winner: loser.opponent(),
            reason: WinReason::Abandonment,
        })
    };
    assert_eq!(
        ids,
        [
            ("a-open", StaleEnd::Expire),
            ("b-played", abandoned_by(Color::Black)),
            ("c-loaded", abandoned_by(Color::White)),
        ],
        "the computer is to move in its room: it plays on"
    );
    // A room loaded since it was found is left alone.
    store.load("c-loaded").await.unwrap();
    assert_eq!(store.expire(stale, false).await.unwrap(), 2);
    assert!(store.summary("a-open").await.unwrap().is_none());
    assert!(store.record("a-open").await.unwrap().is_none());
    let played = store.summary("b-played").await.unwrap().unwrap();
    assert_eq!(
        played.outcome,
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Abandonment
        })
    );
    assert_eq!(
        store.summary("c-loaded").await.unwrap().unwrap().outcome,
        None
    );
}

#[tokio::test]
async fn a_correspondence_game_ends_when_the_days_run_out_and_not_before() {
    const DAY: i64 = 86_400_000;
    let store = Store::empty().await;
    let seats = [Some(hash_token("w")), Some(hash_token("b"))];
    let one_day = |id: &str| NewRoom {
        clock: Some([86_400_000, 0]),
        days: Some(1),
        ..new_room(id, seats)
    };
    store.create_room(one_day("a-unplayed")).await.unwrap();
    store.create_room(one_day("b-waiting")).await.unwrap();
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    let left = [86_400_000; 2];
    store
        .turn("b-waiting", 0, 1, turn, Some(left), None, Vec::new())
        .await
        .unwrap();
    let waiting = store.summary("b-waiting").await.unwrap().unwrap();
    assert_eq!(waiting.clock, Some(punct_protocol::TimeControl::days(1)));
    let (at, stored_left) = waiting.last_turn.expect("a timed turn was played");
    assert_eq!(stored_left, left);
    let eighteen_hours = 18 * 3_600_000;
    assert_eq!(waiting.time_left(at + DAY / 4), Some(eighteen_hours));
    // A moment before Black's day is out, long after the abandonment expiry: only the
    // game whose clock never started is abandoned; the other is the clock's to end.
    let stale = store.stale(0, at + 30 * DAY, at + DAY - 1).await.unwrap();
    let ids: Vec<(&str, StaleEnd)> = stale.iter().map(|s| (s.id.as_str(), s.end)).collect();
    assert_eq!(
        ids,
        [(
            "a-unplayed",
            StaleEnd::Finish(Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Abandonment,
            })
        )]
    );
    let stale = store.stale(0, 0, at + DAY).await.unwrap();
    let on_time = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Time,
    };
    let ids: Vec<(&str, StaleEnd)> = stale.iter().map(|s| (s.id.as_str(), s.end)).collect();
    assert_eq!(ids, [("b-waiting", StaleEnd::Finish(on_time))]);
    assert_eq!(store.expire(stale, false).await.unwrap(), 1);
    let over = store.summary("b-waiting").await.unwrap().unwrap();
    assert_eq!((over.outcome, over.time_left(at)), (Some(on_time), None));
}

#[tokio::test]
async fn turns_taken_back_are_gone_and_the_clocks_are_those_given() {
    let store = Store::empty().await;
    let seats = [Some(hash_token("w")), Some(hash_token("b"))];
    store
        .create_room(NewRoom {
            clock: Some([60_000, 0]),
            ..new_room("r", seats)
        })
        .await
        .unwrap();
    let turns: Vec<Turn> = ["C4:C5,D5", "J14:J15,K15", "A3:A2,A4"]
        .map(|t| t.parse().unwrap())
        .into();
    for (n, &turn) in turns.iter().enumerate() {
        let left = [50_000 - n as u64, 50_000];
        store
            .turn("r", 0, n + 1, turn, Some(left), None, Vec::new())
            .await
            .unwrap();
    }
    // White's last turn and Black's reply are taken back; nobody's time comes back.
    store
        .take_back("r", 0, 1, Some([40_000, 45_000]))
        .await
        .unwrap();
    let room = store.load("r").await.unwrap().unwrap();
    assert_eq!(room.turns, turns[..1]);
    assert_eq!(room.clocks_left, Some([40_000, 45_000]));
    // The game goes on at the next number, and an earlier incarnation writes nothing.
    store
        .turn("r", 1, 2, turns[2], None, None, Vec::new())
        .await
        .unwrap();
    let fenced = store.take_back("r", 0, 0, None).await;
    assert!(matches!(fenced, Err(StoreError::Fenced)), "{fenced:?}");
    assert_eq!(
        store.record("r").await.unwrap().unwrap().turns,
        [turns[0], turns[2]]
    );
}

#[tokio::test]
async fn only_a_room_with_a_free_seat_and_no_end_is_cancelled() {
    let store = Store::empty().await;
    store
        .create_room(new_room("open", [Some(hash_token("w")), None]))
        .await
        .unwrap();
    let both = [Some(hash_token("w")), Some(hash_token("b"))];
    store.create_room(new_room("full", both)).await.unwrap();
    assert!(!store.cancel("full", 0).await.unwrap());
    assert!(store.record("full").await.unwrap().is_some());
    // An earlier incarnation's cancel is fenced, the running one's deletes.
    assert_eq!(store.load("open").await.unwrap().unwrap().incarnation, 1);
    let fenced = store.cancel("open", 0).await;
    assert!(matches!(fenced, Err(StoreError::Fenced)), "{fenced:?}");
    assert!(store.cancel("open", 1).await.unwrap());
    assert!(store.record("open").await.unwrap().is_none());
    assert!(store.load("open").await.unwrap().is_none());
}

#[tokio::test]
async fn a_writer_of_an_earlier_incarnation_is_fenced() {
    let store = Store::empty().await;
    let seats = [Some(hash_token("w")), None];
    store.create_room(new_room("r", seats)).await.unwrap();
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    // The room runs as incarnation 0; another node loads it (incarnation 1).
    assert_eq!(store.load("r").await.unwrap().unwrap().incarnation, 1);
    let fenced = store.turn("r", 0, 1, turn, None, None, Vec::new()).await;
    assert!(matches!(fenced, Err(StoreError::Fenced)), "{fenced:?}");
    let outcome = Outcome::Draw {
        reason: DrawReason::Agreement,
    };
    let fenced = store.finish("r", 0, outcome, Vec::new()).await;
    assert!(matches!(fenced, Err(StoreError::Fenced)), "{fenced:?}");
    let fenced = store
        .take_seat("r", 0, Color::Black, hash_token("b"), Player::default())
        .await;
    assert!(matches!(fenced, Err(StoreError::Fenced)), "{fenced:?}");
    // Nothing of it was kept; the new incarnation writes.
    let record = store.record("r").await.unwrap().unwrap();
    assert_eq!((record.turns.len(), record.outcome), (0, None));
    store
        .turn("r", 1, 1, turn, None, None, Vec::new())
        .await
        .unwrap();
    assert_eq!(store.record("r").await.unwrap().unwrap().turns, [turn]);
}

#[tokio::test]
async fn a_node_without_its_lease_writes_nothing_an_actor_owns() {
    let held = Lease::renewable();
    held.extend(std::time::Instant::now() + std::time::Duration::from_secs(60));
    let store = Store::empty().await.with_lease(held.clone());
    store.create_room(new_room("r1", [None; 2])).await.unwrap();
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    store
        .turn("r1", 0, 1, turn, None, None, Vec::new())
        .await
        .unwrap();

    held.give_up();
    let refused = store
        .turn("r1", 0, 2, "pass".parse().unwrap(), None, None, Vec::new())
        .await;
    assert!(matches!(refused, Err(StoreError::Fenced)), "{refused:?}");
    assert!(matches!(
        store.create_room(new_room("r2", [None; 2])).await,
        Err(StoreError::Fenced)
    ));
    assert!(matches!(store.load("r1").await, Err(StoreError::Fenced)));
    let line = ChatLine {
        channel: punct_protocol::Channel::Players,
        color: Some(Color::White),
        name: None,
        text: "still here?".into(),
        at: 1,
        line: None,
        removed: false,
    };
    assert!(matches!(
        store.chat("r1", &line, None).await,
        Err(StoreError::Fenced)
    ));
    assert!(matches!(
        store.mute("r1", Color::Black, true).await,
        Err(StoreError::Fenced)
    ));
    // Reads go on, and show nothing was written.
    assert_eq!(store.record("r1").await.unwrap().unwrap().turns, vec![turn]);
    assert!(store.summary("r2").await.unwrap().is_none());
    // What no actor owns is no node's to lose: an account is still made.
    account(&store, "Kris_Burm").await;
}

#[tokio::test]
async fn one_failing_write_of_a_batch_undoes_only_itself() {
    let store = Store::empty().await;
    let seats = [Some(hash_token("w")), Some(hash_token("b"))];
    for id in ["a", "b", "c"] {
        store.create_room(new_room(id, seats)).await.unwrap();
    }
    assert_eq!(store.load("c").await.unwrap().unwrap().incarnation, 1);
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    store
        .turn("a", 0, 1, turn, None, None, Vec::new())
        .await
        .unwrap();
    // Sent together, so that they are committed together where the database can.
    let (a, b, c, fenced) = tokio::join!(
        store.turn("a", 0, 1, turn, None, None, Vec::new()),
        store.turn("b", 0, 1, turn, None, None, Vec::new()),
        store.turn("c", 1, 1, turn, None, None, Vec::new()),
        store.turn("c", 0, 2, turn, None, None, Vec::new()),
    );
    assert!(a.is_err(), "a turn's number is unique: {a:?}");
    assert!(matches!(fenced, Err(StoreError::Fenced)), "{fenced:?}");
    b.unwrap();
    c.unwrap();
    for id in ["a", "b", "c"] {
        assert_eq!(
            store.record(id).await.unwrap().unwrap().turns,
            [turn],
            "{id}"
        );
    }
}

#[tokio::test]
async fn chat_and_mutes_come_back_with_the_room() {
    let store = Store::empty().await;
    store
        .create_room(new_room("r", [Some(hash_token("w")), None]))
        .await
        .unwrap();
    let line = |text: &str, at: u64| ChatLine {
        channel: punct_protocol::Channel::Players,
        color: Some(Color::White),
        name: Some("Kris".into()),
        text: text.into(),
        at,
        line: None,
        removed: false,
    };
    let first = store.chat("r", &line("hello", 1), None).await.unwrap();
    let second = store.chat("r", &line("again", 2), None).await.unwrap();
    assert!(second > first, "lines are numbered in order");
    store.mute("r", Color::Black, true).await.unwrap();
    let numbered = |text, at, id| ChatLine {
        line: Some(id),
        ..line(text, at)
    };
    let room = store.load("r").await.unwrap().unwrap();
    assert_eq!(
        room.chat,
        [
            (numbered("hello", 1, first), None),
            (numbered("again", 2, second), None)
        ]
    );
    assert_eq!(room.muted, [false, true]);

    // A removed line comes back removed, its text gone from the room.
    let entry = NewEntry {
        moderator: None,
        action: "remove_line",
        account: None,
        room: Some("r".into()),
        chat_line: Some(first),
        report: None,
        reason: "spam".into(),
        until: None,
        role: None,
    };
    store.act(Sanction::RemoveLine(first), entry).await.unwrap();
    let room = store.load("r").await.unwrap().unwrap();
    let removed = ChatLine {
        text: String::new(),
        removed: true,
        ..numbered("hello", 1, first)
    };
    assert_eq!(room.chat[0], (removed, None));
}

#[tokio::test]
async fn the_archive_pages_through_finished_public_games_newest_first() {
    let store = Store::empty().await;
    let (kris, anna) = (account(&store, "Kris").await, account(&store, "Anna").await);
    rated_game(&store, "g1", &kris, &anna, Color::White).await;
    std::thread::sleep(std::time::Duration::from_millis(2));
    rated_game(&store, "g2", &anna, &kris, Color::Black).await;
    store
        .create_room(new_room("open", [Some(hash_token("w")), None]))
        .await
        .unwrap();
    let page = store.archive(None, 1, None).await.unwrap();
    assert_eq!(
        page.iter().map(|g| g.room.as_str()).collect::<Vec<_>>(),
        ["g2"]
    );
    assert_eq!((page[0].turns, page[0].rated), (2, true));
    let after = ArchiveCursor {
        finished_at: i64::try_from(page[0].finished_at).unwrap(),
        room: page[0].room.clone(),
    };
    let next = store.archive(Some(after), 10, None).await.unwrap();
    assert_eq!(
        next.iter().map(|g| g.room.as_str()).collect::<Vec<_>>(),
        ["g1"]
    );
    let of_kris = store.archive(None, 10, Some(kris.id)).await.unwrap();
    assert_eq!(of_kris.len(), 2);
    assert!(
        store
            .archive(None, 10, Some("nobody".into()))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.games_of(&anna.id).await.unwrap(), []);
}
