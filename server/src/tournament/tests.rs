//! The director against a real store, with time paused: what it does without being
//! told, and two directors of one tournament at once.

use std::time::Duration;

use punct_protocol::{TournamentFormat, TournamentView};
use punct_rules::{DrawReason, Outcome, Variant};

use super::Tournaments;
use crate::clock::now;
use crate::cluster::Nodes;
use crate::config::Config;
use crate::registry::Registry;
use crate::services::Services;
use crate::store::{Account, NewAccount, NewTournament, Store};

/// Tournaments on `store`, as one server has them.
fn server(store: &Store) -> Tournaments {
    let config = Config::default();
    let services = Services::start(&config, store.clone(), Nodes::Alone);
    Tournaments::new(&config, &services, Registry::new(&config, &services))
}

/// Accounts `p1` to `p{count}`.
async fn accounts(store: &Store, count: usize) -> Vec<Account> {
    let mut made = Vec::new();
    for n in 1..=count {
        let username = format!("p{n}");
        let id = crate::secret::uuid_v7();
        let new = NewAccount {
            id: id.clone(),
            username: username.clone(),
            key: crate::accounts::username_key(&username),
            lookalike: crate::accounts::lookalike_key(&username),
            password: "not a real hash".into(),
            language: "en".into(),
        };
        assert!(store.create_account(new).await.unwrap());
        made.push(Account { id, username });
    }
    made
}

/// A Swiss of `rounds` rounds starting `starts_in` milliseconds from now, stored with
/// `players` entered, as another node would have made it: no director runs it yet. (Made
/// through a director, the paused clock could pass its start while the entries wait for
/// the store's thread.)
async fn stored_swiss(store: &Store, players: &[Account], rounds: u32, starts_in: i64) -> String {
    let id = crate::secret::uuid_v7();
    let stored = NewTournament {
        id: id.clone(),
        name: "Swiss".into(),
        format: TournamentFormat::Swiss,
        variant: Variant::Standard,
        clock: None,
        rated: false,
        starts_at: now() + starts_in,
        ends_at: None,
        rounds: Some(rounds),
        min_players: 2,
        max_players: 16,
        creator: players[0].id.clone(),
    };
    store.create_tournament(stored).await.unwrap();
    for player in players {
        store.enter(&id, &player.id).await.unwrap();
    }
    id
}

/// A Swiss of `rounds` rounds starting in a second, that `players` have joined, and
/// `servers` servers on `store` made after it, the first running its director. (Made
/// before, their sweeps for tournaments due, which the paused clock runs whenever every
/// task waits for the store's thread, would load it half entered.)
async fn swiss(
    store: &Store,
    players: &[Account],
    rounds: u32,
    servers: usize,
) -> (String, Vec<Tournaments>) {
    let id = stored_swiss(store, players, rounds, 1000).await;
    let servers: Vec<Tournaments> = (0..servers).map(|_| server(store)).collect();
    let entered = servers[0].view(&id).await.unwrap().summary.players;
    assert_eq!(entered as usize, players.len());
    (id, servers)
}

/// Ends every game of `view`'s last round in the store alone, as the sweep ends a game
/// nobody came back to, or as a room whose node died before it could tell: no director
/// is told.
async fn end_quietly(store: &Store, view: &TournamentView) {
    let round = view.pairings.last().unwrap();
    for room in round.games.iter().filter_map(|g| g.room.as_deref()) {
        let loaded = store.load(room).await.unwrap().unwrap();
        let draw = Outcome::Draw {
            reason: DrawReason::Agreement,
        };
        store
            .finish(room, loaded.incarnation, draw, Vec::new())
            .await
            .unwrap();
    }
}

/// Lets the paused clock run in small steps until round `round` of tournament `id` is
/// stored, for at most ten of the directors' polls. (The paused clock jumps to the next
/// timer whenever every task waits for the store's thread: small steps keep a director
/// that is talking to the store from being passed by many polls at once.)
async fn paired(store: &Store, id: &str, round: u32) {
    let step = Duration::from_millis(100);
    for _ in 0..(10 * super::director::POLL.as_millis() / step.as_millis()) {
        let stored = store.pairings(id).await.unwrap();
        if stored.iter().any(|p| p.round >= round) {
            return;
        }
        tokio::time::sleep(step).await;
    }
    panic!("round {round} was never paired");
}

#[tokio::test(start_paused = true)]
async fn a_result_nobody_told_the_director_reaches_it_at_its_next_poll() {
    let store = Store::empty().await;
    let players = accounts(&store, 4).await;
    let (id, servers) = swiss(&store, &players, 2, 1).await;
    let tournaments = &servers[0];
    paired(&store, &id, 1).await;
    let first = tournaments.view(&id).await.unwrap();
    assert_eq!(first.summary.round, 1);
    end_quietly(&store, &first).await;
    paired(&store, &id, 2).await;
    let second = tournaments.view(&id).await.unwrap();
    assert_eq!(second.summary.round, 2, "paired from what the store says");
    assert!(second.pairings[0].games.iter().all(|g| g.outcome.is_some()));
}

#[tokio::test(start_paused = true)]
async fn two_directors_of_one_tournament_store_each_round_once() {
    // Two servers on one database, each running the tournament's director (as two nodes
    // might for a moment around a failover).
    let store = Store::empty().await;
    let players = accounts(&store, 6).await;
    let (id, servers) = swiss(&store, &players, 2, 2).await;
    let (here, there) = (&servers[0], &servers[1]);
    assert_eq!(there.view(&id).await.unwrap().summary.players, 6);
    for round in 1..=2u32 {
        paired(&store, &id, round).await;
        let stored = store.pairings(&id).await.unwrap();
        assert_eq!(
            stored.len(),
            3 * round as usize,
            "round {round} stored once"
        );
        // Each director has read the round as stored (the one refused too) by its next
        // poll at the latest.
        let mut views = Vec::new();
        for _ in 0..3 {
            views = vec![
                here.view(&id).await.unwrap(),
                there.view(&id).await.unwrap(),
            ];
            if views.iter().all(|v| v.summary.round == round) {
                break;
            }
            tokio::time::sleep(super::director::POLL).await;
        }
        assert_eq!(
            views[0].pairings, views[1].pairings,
            "both follow the round stored"
        );
        assert_eq!(views[0].summary.round, round);
        end_quietly(&store, &views[0]).await;
    }
    let rooms: std::collections::HashSet<_> = store
        .pairings(&id)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.room)
        .collect();
    assert_eq!(rooms.len(), 6, "every game has a room of its own");
}

#[tokio::test(start_paused = true)]
async fn a_tournament_nobody_asks_for_is_loaded_as_its_start_comes_near() {
    let store = Store::empty().await;
    let players = accounts(&store, 1).await;
    // Stored by another node, which has stopped since; within a sweep's period of the
    // wall clock, which paused time leaves still.
    let id = stored_swiss(&store, &players, 1, 20_000).await;
    let tournaments = server(&store);
    tokio::time::sleep(Duration::from_secs(29)).await;
    assert!(tournaments.placement.running(&id).is_none(), "nobody asked");
    // The directors' kind looks for those due every 30 s: this one is loaded, to start
    // on time by its own timer.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for _ in 0..100 {
        if tournaments.placement.running(&id).is_some() {
            return;
        }
        // The load reads the store on its thread, in real time, which paused time
        // does not wait for.
        let wait = || std::thread::sleep(Duration::from_millis(10));
        tokio::task::spawn_blocking(wait).await.unwrap();
    }
    panic!("the sweep did not load the director");
}
