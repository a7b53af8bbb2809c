//! Accounts and what hangs on them: sessions, mail settings and the outbox, solved
//! puzzles, languages, and moderation.

use super::*;

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
    for (who, puzzle) in [
        (&anna, "stop-2"),
        (&anna, "connect-1"),
        (&anna, "stop-2"),
        (&bert, "centre-1"),
    ] {
        store.play_puzzle(&who.id, puzzle, true).await.unwrap();
    }
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
