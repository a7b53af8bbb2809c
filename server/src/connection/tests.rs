//! The connection as a whole: a client that never reads, the writer gathering frames,
//! the size of a waiting connection, and a member that falls behind its room.

use std::pin::Pin;
use std::task::{Context, Poll};

use punct_protocol::{CreateRoom, Role, SeatChoice, ServerMessage};
use punct_rules::{Color, Game, Variant};
use tokio::sync::{broadcast, mpsc};

use super::membership::follows;
use super::outbound;
use super::state::{Connection, Entry, Membership};
use super::*;
use crate::cluster::Nodes;
use crate::config::Config;
use crate::room::testing::Drive;
use crate::services::Services;
use crate::store::Player;
use crate::store::Store;

/// A client that sends what the test gives it and never reads: its socket never
/// takes a byte.
struct StalledSocket {
    /// The frames the client sends.
    incoming: mpsc::UnboundedReceiver<Message>,
}

impl Stream for StalledSocket {
    type Item = Result<Message, axum::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.incoming.poll_recv(cx).map(|frame| frame.map(Ok))
    }
}

impl Sink<Message> for StalledSocket {
    type Error = axum::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Pending
    }

    fn start_send(self: Pin<&mut Self>, _: Message) -> Result<(), Self::Error> {
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Pending
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Pending
    }
}

#[tokio::test]
async fn a_spectator_that_never_reads_is_dropped_and_the_players_go_on() {
    let config = Config {
        outbound_queue: 4,
        ..Config::default()
    };
    let services = Services::start(&config, Store::empty().await, Nodes::Alone);
    let (state, _all_done) = AppState::new(config, &services);
    let white = state
        .rooms
        .create(
            CreateRoom {
                color: SeatChoice::White,
                ..CreateRoom::default()
            },
            Player::default(),
        )
        .await
        .unwrap();
    let room = state.rooms.enter(&white.room).await.unwrap();
    let black = room.take_seat(Player::default()).await.unwrap().unwrap();
    let (alice, bob) = (1001, 1002);
    room.join(alice, white.token, None, true)
        .await
        .unwrap()
        .unwrap();
    room.join(bob, black.token, None, true)
        .await
        .unwrap()
        .unwrap();

    // Sam says hello and watches, then reads nothing.
    let (sam, incoming) = mpsc::unbounded_channel();
    let hello = r#"{"type":"hello","id":1,"version":1}"#;
    let watch = format!(r#"{{"type":"watch","id":2,"room":"{}"}}"#, white.room);
    sam.send(Message::Text(hello.into())).unwrap();
    sam.send(Message::Text(watch.into())).unwrap();
    let ticket = state.endings.open(7, None, None).await;
    let connection = tokio::spawn(serve(
        StalledSocket { incoming },
        7,
        state.clone(),
        None,
        Lang::En,
        ticket,
    ));
    while room.status().unwrap().spectators == 0 {
        tokio::task::yield_now().await;
    }

    // The players play on; every turn is accepted at once.
    let mut game = Game::new(Variant::Standard);
    for (n, conn) in [alice, bob, alice, bob, alice, bob].into_iter().enumerate() {
        let turn = game.legal_turns()[n * 31];
        game.play(turn).unwrap();
        assert!(room.play(conn, turn).await.unwrap().is_ok());
    }
    assert_eq!(game.to_move(), Color::White);

    // Sam's queue overflowed: the connection ended by itself and left the room.
    tokio::time::timeout(Duration::from_secs(5), connection)
        .await
        .expect("the stalled connection is dropped")
        .unwrap();
    let _ = room.record().await.unwrap();
    assert_eq!(room.status().unwrap().spectators, 0);
    drop(sam);
}

/// Every connection's task holds its future for its whole life, most of it waiting:
/// what a frame or an event sets off is boxed, so that the wait stays small.
#[tokio::test]
async fn a_connection_task_is_small_while_it_waits() {
    let (state, _all_done) = AppState::new(
        Config::default(),
        &Services::start(&Config::default(), Store::empty().await, Nodes::Alone),
    );
    let (_client, incoming) = mpsc::unbounded_channel();
    let ticket = state.endings.open(7, None, None).await;
    let task = serve(StalledSocket { incoming }, 7, state, None, Lang::En, ticket);
    let size = std::mem::size_of_val(&task);
    // Ten kilobytes when the requests' futures were inline (debug build); what is
    // left is the waits themselves: the socket, the room's, the tournament's and the
    // seek pool's events, the ping and the stop.
    assert!(size <= 2560, "a connection's future takes {size} bytes");
}

#[test]
fn an_event_follows_the_last_or_starts_a_later_incarnation() {
    let (first, second) = (1 << 32, 2 << 32);
    assert!(follows(first + 4, first + 5));
    assert!(!follows(first + 4, first + 6), "one was lost");
    assert!(
        follows(first + 4, second + 1),
        "the room was loaded again elsewhere"
    );
    assert!(
        !follows(first + 4, second + 2),
        "the first of the new load was lost"
    );
    assert!(follows(second, second + 1), "a snapshot before any event");
}

#[tokio::test]
async fn a_member_that_fell_behind_gets_a_fresh_snapshot() {
    let (state, _all_done) = AppState::new(
        Config::default(),
        &Services::start(&Config::default(), Store::empty().await, Nodes::Alone),
    );
    let granted = state
        .rooms
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap();
    let room = state.rooms.enter(&granted.room).await.unwrap();
    let joined = room.watch(9, None).await.unwrap();
    let (out, mut queue) = outbound::queue(8);
    let ticket = state.endings.open(9, None, None).await;
    let mut connection = Connection {
        id: 9,
        state: state.clone(),
        out,
        greeted: true,
        legal_turns: true,
        account: None,
        lang: Lang::En,
        limits: MessageLimits::new(1.0, Instant::now()),
        room: Some(Membership {
            handle: room.clone(),
            entry: Entry::Watch,
            role: joined.role,
            events: joined.events,
            last_seq: 0,
        }),
        following: None,
        seeking: None,
        ticket,
    };
    let lagged = Err(broadcast::error::RecvError::Lagged(3));
    assert!(connection.on_room(lagged).await.is_ok());
    let Some(Message::Text(text)) = queue.recv().await else {
        panic!("expected a text frame");
    };
    let message: ServerMessage = serde_json::from_str(text.as_str()).unwrap();
    assert!(
        matches!(
            message,
            ServerMessage::Snapshot { id: None, you: Role::Spectator, ref room } if room.spectators == 1
        ),
        "{message:?}"
    );
}

/// A socket that takes every frame at once and writes down what it was asked to do.
#[derive(Default)]
struct RecordingSocket {
    /// `send N`, `flush` and `close`, in order.
    done: Vec<String>,
}

impl Sink<Message> for &mut RecordingSocket {
    type Error = axum::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn start_send(self: Pin<&mut Self>, frame: Message) -> Result<(), Self::Error> {
        let text = frame.into_text()?;
        self.get_mut().done.push(format!("send {}", text.as_str()));
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().done.push("flush".into());
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().done.push("close".into());
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn frames_waiting_together_are_flushed_once() {
    let (out, queue) = outbound::queue(8);
    for n in 0..3 {
        out.try_send(Message::Text(n.to_string().into())).unwrap();
    }
    drop(out);
    let mut socket = RecordingSocket::default();
    write(&mut socket, queue).await;
    assert_eq!(
        socket.done,
        ["send 0", "send 1", "send 2", "flush", "close"]
    );
}
