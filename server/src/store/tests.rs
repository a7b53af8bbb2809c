//! The store's behaviour, the same whichever database keeps it.

use punct_protocol::{ChatLine, TournamentState, Visibility};
use punct_rules::{Color, DrawReason, Outcome, Turn, Variant, WinReason};

use super::model::{RunningOut, StaleEnd};
use super::*;
use crate::clock::now;
use crate::lease::Lease;
use crate::secret::{TokenHash, hash_token};

fn new_room(id: &str, seats: [Option<TokenHash>; 2]) -> NewRoom {
    NewRoom {
        id: id.into(),
        variant: Variant::Standard,
        visibility: Visibility::Public,
        clock: None,
        days: None,
        seats,
        players: Default::default(),
        rated: false,
        computer: None,
    }
}

/// Registers an account named `username`.
async fn account(store: &Store, username: &str) -> Account {
    let id = crate::secret::uuid_v7();
    let new = NewAccount {
        id: id.clone(),
        username: username.into(),
        key: crate::accounts::username_key(username),
        lookalike: crate::accounts::lookalike_key(username),
        password: "not a real hash".into(),
        language: "en".into(),
    };
    assert!(store.create_account(new).await.unwrap());
    Account {
        id,
        username: username.into(),
    }
}

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
async fn a_node_without_its_lease_writes_nothing() {
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
    // Reads go on, and show nothing was written.
    assert_eq!(store.record("r1").await.unwrap().unwrap().turns, vec![turn]);
    assert!(store.summary("r2").await.unwrap().is_none());
}

/// A finished rated game between `white` and `black`, both of whom played a turn.
async fn rated_game(store: &Store, id: &str, white: &Account, black: &Account, winner: Color) {
    let seats = [
        Some(hash_token(&format!("{id}w"))),
        Some(hash_token(&format!("{id}b"))),
    ];
    store
        .create_room(NewRoom {
            players: [Player::of(white.clone()), Player::of(black.clone())],
            rated: true,
            ..new_room(id, seats)
        })
        .await
        .unwrap();
    for (n, turn) in ["C4:C5,D5", "J14:J15,K15"].into_iter().enumerate() {
        let turn = turn.parse().unwrap();
        store
            .turn(id, 0, n + 1, turn, None, None, Vec::new())
            .await
            .unwrap();
    }
    let resigned = Outcome::Win {
        winner,
        reason: WinReason::Resignation,
    };
    store.finish(id, 0, resigned, Vec::new()).await.unwrap();
}

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
async fn an_action_and_its_entry_are_written_together_and_the_log_cannot_change() {
    let store = Store::empty().await;
    let kris = account(&store, "Kris").await;
    let mod_ = account(&store, "Mod").await;
    let reporter = account(&store, "Rita").await;
    let report = NewReport {
        reporter: reporter.id.clone(),
        reported: Some(kris.id.clone()),
        chat_line: None,
        room: None,
        reason: "rude".into(),
    };
    let id = store.report(report).await.unwrap();
    assert_eq!(store.open_reports_by(&reporter.id).await.unwrap(), 1);
    assert_eq!(
        store.open_reports(10).await.unwrap()[0].reported.as_deref(),
        Some("Kris")
    );
    let until = now() + 60_000;
    let entry = NewEntry {
        moderator: Some(mod_.id.clone()),
        action: "mute",
        account: Some(kris.id.clone()),
        room: None,
        chat_line: None,
        report: Some(id.clone()),
        reason: "insults".into(),
        until: Some(until),
        role: None,
    };
    store.act(Sanction::Mute(Some(until)), entry).await.unwrap();
    let state = store.account_state(&kris.id).await.unwrap().unwrap();
    assert_eq!(state.muted_until, Some(until));
    assert!(store.open_reports(10).await.unwrap().is_empty(), "resolved");
    let resolved = store.report_by_id(&id).await.unwrap().unwrap();
    assert_eq!(resolved.resolved_by.as_deref(), Some("Mod"));
    let log = store.audit_log(i64::MAX, 10).await.unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(
        (
            log[0].action.as_str(),
            log[0].account.as_deref(),
            log[0].reason.as_str()
        ),
        ("mute", Some("Kris"), "insults")
    );
    assert_eq!(store.audit_of(&kris.id).await.unwrap(), log);

    // Nobody edits or deletes an entry, whatever the statement.
    for change in [
        "UPDATE audit_log SET reason = 'nothing'",
        "DELETE FROM audit_log",
    ] {
        let refused = store.execute_raw(change).await;
        assert!(refused.is_err(), "{change} was allowed");
    }
    assert_eq!(store.audit_log(i64::MAX, 10).await.unwrap(), log);

    // A ban ends every session; the sign-in addresses are kept hashed.
    let key = store.address_key().await.unwrap();
    assert_eq!(store.address_key().await.unwrap(), key, "made once");
    let address = crate::secret::hash_address(&key, "192.0.2.7".parse().unwrap());
    store.signed_in_from(&kris.id, address).await.unwrap();
    store.signed_in_from(&kris.id, address).await.unwrap();
    assert_eq!(store.sign_ins_of(&kris.id).await.unwrap().len(), 1);
    let token = hash_token("kris's session");
    store
        .create_session(token, &kris.id, now() + 60_000, None)
        .await
        .unwrap();
    let ban = NewEntry {
        moderator: Some(mod_.id.clone()),
        action: "ban",
        account: Some(kris.id.clone()),
        room: None,
        chat_line: None,
        report: None,
        reason: "again".into(),
        until: None,
        role: None,
    };
    store.act(Sanction::Ban(Some(now())), ban).await.unwrap();
    assert_eq!(store.session(token, now()).await.unwrap(), None);
    let state = store.account_state(&kris.id).await.unwrap().unwrap();
    assert!(state.banned_at.is_some());
}

#[tokio::test]
async fn accounts_sessions_and_mail_settings_read_back() {
    let store = Store::empty().await;
    let kris = account(&store, "Kris").await;
    let taken = NewAccount {
        id: crate::secret::uuid_v7(),
        username: "KRIS".into(),
        key: crate::accounts::username_key("KRIS"),
        lookalike: crate::accounts::lookalike_key("KRIS"),
        password: "x".into(),
        language: "de".into(),
    };
    assert!(
        !store.create_account(taken).await.unwrap(),
        "the key is taken"
    );
    let key = crate::accounts::username_key("Kris");
    let (found, password) = store.account_by_key(&key).await.unwrap().unwrap();
    assert_eq!(
        (found, password.as_str()),
        (kris.clone(), "not a real hash")
    );

    let token = hash_token("session");
    store
        .create_session(token, &kris.id, now() + 60_000, None)
        .await
        .unwrap();
    assert_eq!(
        store.session(token, now()).await.unwrap(),
        Some(kris.clone())
    );
    assert_eq!(store.session(token, now() + 60_000).await.unwrap(), None);
    store.end_session(token).await.unwrap();
    assert_eq!(store.session(token, now()).await.unwrap(), None);

    let settings = MailSettings {
        email: Some("kris@example.org".into()),
        mode: punct_protocol::NotifyMode::Digest,
        unsubscribe: Some("secret".into()),
    };
    store
        .set_mail_settings(&kris.id, settings.clone())
        .await
        .unwrap();
    assert_eq!(
        store.mail_settings(&kris.id).await.unwrap(),
        Some(settings.clone())
    );
    assert_eq!(
        store.digests_due(now()).await.unwrap(),
        std::slice::from_ref(&kris)
    );
    assert!(store.queue_digest(&kris.id, now(), now()).await.unwrap());
    assert!(
        !store.queue_digest(&kris.id, 0, now()).await.unwrap(),
        "queued once"
    );
    assert!(store.digests_due(0).await.unwrap().is_empty());
    // The digest waits in the outbox, to be written as it is sent.
    let queued = store
        .claim_mail("node", std::time::Duration::from_secs(60), 10)
        .await
        .unwrap();
    let notices: Vec<_> = queued.iter().map(|m| (&m.notice, &m.account)).collect();
    assert_eq!(notices, [(&Notice::Digest, &kris)]);
    // A change keeps the secret: links already mailed still work.
    let each = MailSettings {
        mode: punct_protocol::NotifyMode::Each,
        unsubscribe: Some("another".into()),
        ..settings.clone()
    };
    store.set_mail_settings(&kris.id, each).await.unwrap();
    let kept = store.mail_settings(&kris.id).await.unwrap().unwrap();
    assert_eq!(kept.unsubscribe.as_deref(), Some("secret"));
    assert!(store.unsubscribe_known("secret").await.unwrap());
    assert!(!store.unsubscribe_known("another").await.unwrap());
    assert!(store.unsubscribe("secret").await.unwrap());
    assert!(!store.unsubscribe("nobody's").await.unwrap());
    let off = store.mail_settings(&kris.id).await.unwrap().unwrap();
    assert_eq!(off.mode, punct_protocol::NotifyMode::Off);
    assert_eq!(store.mail_settings("nobody").await.unwrap(), None);
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

#[tokio::test]
async fn mail_is_queued_with_its_turn_claimed_once_and_given_back_unsent() {
    let store = Store::empty().await;
    let (kris, anna) = (account(&store, "Kris").await, account(&store, "Anna").await);
    let mut settings = MailSettings {
        email: Some("anna@example.org".into()),
        mode: punct_protocol::NotifyMode::Each,
        unsubscribe: Some("anna's".into()),
    };
    store
        .set_mail_settings(&anna.id, settings.clone())
        .await
        .unwrap();
    store
        .create_room(NewRoom {
            days: Some(3),
            clock: Some([3 * 86_400_000, 0]),
            players: [Player::of(kris.clone()), Player::of(anna.clone())],
            ..new_room("r", [Some(hash_token("w")), Some(hash_token("b"))])
        })
        .await
        .unwrap();
    let notice = |number| Notice::YourMove {
        opponent: "Kris".into(),
        turn: "C4:C5,D5".into(),
        number,
        days: 3,
    };
    // Kris takes no mail: nothing is queued for him.
    let mail = vec![(Color::Black, notice(1)), (Color::White, notice(1))];
    let turn: Turn = "C4:C5,D5".parse().unwrap();
    store.turn("r", 0, 1, turn, None, None, mail).await.unwrap();
    // A turn refused (fenced) queues nothing.
    let fenced = store.turn("r", 7, 2, turn, None, None, vec![(Color::Black, notice(2))]);
    assert!(matches!(fenced.await, Err(StoreError::Fenced)));

    // Two claims at once (two nodes) share the mail out: one each, never both.
    let lease = std::time::Duration::from_secs(60);
    let (a, b) = tokio::join!(
        store.claim_mail("a", lease, 10),
        store.claim_mail("b", lease, 10)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.len() + b.len(), 1, "{a:?} {b:?}");
    let (claim, claimed) = if a.is_empty() { ("b", b) } else { ("a", a) };
    assert_eq!(claimed[0].notice, notice(1));
    assert_eq!(
        (claimed[0].account.id.as_str(), claimed[0].room.as_str()),
        (anna.id.as_str(), "r")
    );
    assert_eq!(claimed[0].settings, settings);
    assert!(store.claim_mail("c", lease, 10).await.unwrap().is_empty());

    // Given back, it is claimed again; failed, it waits its time; done, it is gone.
    store.release_mail(claim, now()).await.unwrap();
    let again = store.claim_mail("c", lease, 10).await.unwrap();
    assert_eq!(again[0].id, claimed[0].id);
    store
        .mail_failed(&again[0].id, "451".into(), now() + 60_000)
        .await
        .unwrap();
    assert!(store.claim_mail("d", lease, 10).await.unwrap().is_empty());
    store
        .mail_failed(&again[0].id, "451".into(), 0)
        .await
        .unwrap();
    let retried = store.claim_mail("d", lease, 10).await.unwrap();
    assert_eq!(retried[0].attempts, 2);
    store.mail_done(&retried[0].id, None).await.unwrap();
    assert!(store.claim_mail("e", lease, 10).await.unwrap().is_empty());
    // Sent, it is kept while its game goes on: later mail is checked against it.
    assert_eq!(store.prune_mail(now() + 1).await.unwrap(), 0);

    // The end of the game goes to digest players too, not to those with mail off.
    settings.mode = punct_protocol::NotifyMode::Digest;
    store.set_mail_settings(&anna.id, settings).await.unwrap();
    let over = [Color::White, Color::Black].map(|c| (c, Notice::GameOver));
    let outcome = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Resignation,
    };
    store.finish("r", 0, outcome, over.to_vec()).await.unwrap();
    let claimed = store.claim_mail("f", lease, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(
        (&claimed[0].notice, &claimed[0].account),
        (&Notice::GameOver, &anna)
    );

    // Once the game is over, mail sent before a time is forgotten; mail not sent yet
    // never is.
    assert_eq!(store.prune_mail(0).await.unwrap(), 0, "nothing that old");
    assert_eq!(store.prune_mail(now() + 1).await.unwrap(), 1, "the turn's");
    store.mail_done(&claimed[0].id, None).await.unwrap();
    assert_eq!(store.mail_backlog().await.unwrap().0, 0);
    assert_eq!(store.prune_mail(now() + 1).await.unwrap(), 1, "the end's");

    // Two nodes sweeping at once queue a reminder once (on PostgreSQL, over two
    // connections of the pool).
    for number in 2..22 {
        let due = RunningOut {
            room: "r".into(),
            color: Color::Black,
            notice: Notice::TimeRunningOut {
                number,
                deadline: 1,
            },
        };
        let (a, b) = tokio::join!(store.remind(due.clone()), store.remind(due));
        assert!(a.unwrap() ^ b.unwrap(), "turn {number}: queued once");
    }
    assert_eq!(store.mail_backlog().await.unwrap().0, 20);
}

#[tokio::test]
async fn solved_puzzles_are_kept_once_each_per_account_and_go_with_it() {
    let store = Store::empty().await;
    let anna = account(&store, "anna").await;
    let bert = account(&store, "bert").await;
    store.solve(&anna.id, "stop-2").await.unwrap();
    store.solve(&anna.id, "connect-1").await.unwrap();
    store.solve(&anna.id, "stop-2").await.unwrap();
    store.solve(&bert.id, "centre-1").await.unwrap();
    assert_eq!(
        store.solved_of(&anna.id).await.unwrap(),
        ["connect-1", "stop-2"]
    );
    assert_eq!(store.solved_of(&bert.id).await.unwrap(), ["centre-1"]);

    store.delete_account(&anna.id).await.unwrap();
    assert!(store.solved_of(&anna.id).await.unwrap().is_empty());
    assert_eq!(store.solved_of(&bert.id).await.unwrap(), ["centre-1"]);
}

#[tokio::test]
async fn an_account_keeps_the_language_it_registered_with_until_changed() {
    let store = Store::empty().await;
    let kris = account(&store, "Kris").await;
    let key = crate::accounts::username_key("kris");
    assert_eq!(
        store.language_by_key(&key).await.unwrap(),
        Some(Some("en".into()))
    );
    store.set_language(&kris.id, "nl").await.unwrap();
    assert_eq!(
        store.language_by_key(&key).await.unwrap(),
        Some(Some("nl".into()))
    );
    assert_eq!(store.language_by_key("nobody").await.unwrap(), None);
}

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
