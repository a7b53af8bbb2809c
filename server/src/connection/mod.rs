//! One WebSocket connection: reads requests, talks to its room's actor, and forwards the
//! room's events, those of the tournament it follows, and its seek's.
//!
//! The socket is split in two. A writer task drains a bounded queue into the socket; the
//! connection loop `select!`s over the socket's frames, the room's events, the followed
//! tournament's, the seek pool's, the session's end, the keep-alive timer and shutdown,
//! and never waits for the socket to accept data: it only puts messages on the queue. A
//! client that does not read lets its queue fill up and is then dropped, so it can never
//! hold up anyone else.
//!
//! # Layout
//!
//! - this file: [`serve`], a connection's whole life, and the writer.
//! - `state`: [`Connection`](state::Connection), what a connection holds, and how it
//!   queues what it sends; `outbound`: that queue.
//! - `requests`: the loop, the rate limits, and each request.
//! - `membership`: entering a room and passing on its events.
//! - `following`: the tournament followed. `seeking`: the seek.
//! - `end`: why a connection ends, and its close frame.
//!
//! Must not import: `api`.

mod end;
mod following;
mod membership;
mod outbound;
mod requests;
mod seeking;
mod state;
#[cfg(test)]
mod tests;

use std::time::Duration;

use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::time::Instant;

use crate::cluster::ConnId;
use crate::endings::Ticket;
use crate::i18n::Lang;
use crate::limits::MessageLimits;
use crate::room::Request;
use crate::state::AppState;
use crate::store::Account;

use end::End;
use state::Connection;

/// How long a closing connection's writer may take to flush its last messages.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// Serves one upgraded socket until it ends, or its `ticket` ends it.
pub(crate) async fn serve<S>(
    socket: S,
    id: ConnId,
    state: AppState,
    account: Option<Account>,
    lang: Lang,
    ticket: Ticket,
) where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Send + 'static,
{
    let (sink, mut stream) = socket.split();
    let (out, queue) = outbound::queue(state.config.outbound_queue.max(1));
    let mut writer = tokio::spawn(write(sink, queue));
    tracing::info!("connected");
    let mut connection = Connection {
        id,
        limits: MessageLimits::new(state.config.message_rate_scale, Instant::now()),
        state,
        out,
        greeted: false,
        legal_turns: true,
        account,
        lang,
        room: None,
        following: None,
        seeking: None,
        ticket,
    };
    let end = connection.run(&mut stream).await;
    connection.cancel_seek();
    connection.state.services.metrics.disconnect((&end).into());
    if let Some(membership) = &connection.room {
        membership.handle.tell(Request::Leave { conn: id });
    }
    match &end {
        End::TooSlow | End::Broken(_) | End::Flood => tracing::warn!(reason = %end, "disconnected"),
        _ => tracing::info!(reason = %end, "disconnected"),
    }
    if let Some(frame) = end.close_frame() {
        let _ = connection.out.try_send(Message::Close(Some(frame)));
    }
    // The writer ends once its queue is closed. `run` waits for the state's guard: it is
    // let go only after the writer has written its last frame (the `bye` and the close
    // frame when shutting down), or given up.
    let Connection { state, out, .. } = connection;
    drop(out);
    let deadline = Instant::now() + FLUSH_TIMEOUT;
    if matches!(end, End::Flood) {
        // A flooder has frames in flight: closing with them unread would reset the TCP
        // connection and could destroy the `bye` on its way. Read and drop them until
        // the client answers the close.
        let _ = tokio::time::timeout_at(deadline, async {
            while let Some(Ok(frame)) = stream.next().await {
                if matches!(frame, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
    if tokio::time::timeout_at(deadline, &mut writer)
        .await
        .is_err()
    {
        writer.abort();
    }
    drop(state);
}

/// Drains the outbound queue into the socket until the queue closes or a close frame has
/// gone out. The frames waiting together (a mover's ack and its `turn_played`) go out in
/// one write: each write to a socket is a system call and a TCP segment.
async fn write<K: Sink<Message> + Unpin>(mut sink: K, mut queue: outbound::Receiver) {
    'queue: while let Some(first) = queue.recv().await {
        let mut next = Some(first);
        while let Some(message) = next {
            let closing = matches!(message, Message::Close(_));
            if sink.feed(message).await.is_err() {
                break 'queue;
            }
            if closing {
                let _ = sink.flush().await;
                break 'queue;
            }
            next = queue.try_recv();
        }
        if sink.flush().await.is_err() {
            break;
        }
    }
    let _ = sink.close().await;
}
