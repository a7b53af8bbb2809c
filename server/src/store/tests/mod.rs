//! The store's behaviour, the same whichever database keeps it.

use super::rooms::StaleEnd;
use super::timers::RunningOut;
use super::*;
use crate::clock::now;
use crate::lease::Lease;
use crate::secret::{TokenHash, hash_token};
use punct_protocol::{ChatLine, TournamentState, Visibility};
use punct_rules::{Color, DrawReason, Outcome, Turn, Variant, WinReason};

mod accounts;
mod puzzles;
mod ratings;
mod rooms;
mod tournaments;

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
