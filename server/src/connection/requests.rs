//! What a connection does with what it hears: the loop over the socket's frames and
//! everything else it waits on, the rate limits, and each request, answered here or
//! passed to the part that handles it.

use std::sync::Arc;

use axum::extract::ws::Message;
use futures_util::{Stream, StreamExt};
use punct_protocol::{
    ClientMessage, ErrorCode, PROTOCOL_VERSION, RequestId, SeekGame, Seq, ServerMessage,
};
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::end::{End, shutting_down};
use super::following::from_tournament;
use super::membership::from_room;
use super::seeking::{self, Told, from_pool};
use super::state::{Connection, Entry};
use crate::cluster::{Closed, Reply};
use crate::errors;
use crate::errors::Refused;
use crate::limits::{Kind, Verdict};
use crate::room::{Key, Mismatch, Request, Rooms, Talk};
use crate::seek::{self, Ask};

impl Connection {
    /// Serves the client until the connection ends; answers why.
    pub(super) async fn run<R>(&mut self, stream: &mut R) -> End
    where
        R: Stream<Item = Result<Message, axum::Error>> + Unpin,
    {
        let config = Arc::clone(&self.state.config);
        let mut stop = self.state.services.shutdown.clone();
        // Boxed once: inline, waiting for it would make every connection's task larger.
        let mut ended = Box::pin(self.ticket.ended());
        let mut ping =
            tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_heard = Instant::now();
        loop {
            // What a frame or an event sets off is boxed: entering a room, asking it and
            // resyncing are futures of kilobytes, and inline they would make every
            // connection's task that large for its whole life, waiting or not.
            let step = tokio::select! {
                frame = stream.next() => {
                    last_heard = Instant::now();
                    Box::pin(self.on_frame(frame)).await
                }
                news = from_room(&mut self.room) => Box::pin(self.on_room(news)).await,
                news = from_tournament(&mut self.following) => Box::pin(self.on_tournament(news)).await,
                news = from_pool(&mut self.seeking) => Box::pin(self.on_pool(news)).await,
                _ = ping.tick() => {
                    if last_heard.elapsed() > config.idle_timeout {
                        Err(End::Idle)
                    } else {
                        self.push(Message::Ping(Default::default()))
                    }
                }
                () = stop.wait() => {
                    let _ = self.send(&shutting_down(self.lang));
                    Err(End::Shutdown)
                }
                () = &mut ended => {
                    let code = ErrorCode::SessionEnded;
                    let message = errors::message(code, self.lang).into();
                    let _ = self.send(&ServerMessage::Bye { code, message });
                    Err(End::SessionEnded)
                }
            };
            if let Err(end) = step {
                return end;
            }
        }
    }

    async fn on_frame(&mut self, frame: Option<Result<Message, axum::Error>>) -> Result<(), End> {
        match frame {
            None | Some(Ok(Message::Close(_))) => Err(End::ClientClosed),
            Some(Err(error)) => {
                let error = error.into_inner();
                match error.downcast_ref::<tungstenite::Error>() {
                    Some(tungstenite::Error::Capacity(_)) => {
                        let max = self.state.config.max_message_bytes;
                        let _ = self.error(
                            None,
                            ErrorCode::MessageTooLarge,
                            format!("messages are limited to {max} bytes"),
                        );
                        Err(End::TooLarge)
                    }
                    Some(tungstenite::Error::Utf8(_)) => {
                        let _ = self.error(None, ErrorCode::Malformed, "text frames must be UTF-8");
                        Err(End::NotUtf8)
                    }
                    _ => Err(End::Broken(error.to_string())),
                }
            }
            Some(Ok(Message::Text(text))) => match ClientMessage::decode(text.as_str()) {
                Ok(request) => {
                    if self.admit(Kind::of(&request), request.type_name(), Some(request.id()))? {
                        self.on_request(request).await
                    } else {
                        Ok(())
                    }
                }
                Err(e) => {
                    if self.admit(Kind::Invalid, "invalid", e.id)? {
                        self.error(e.id, e.code, e.message)
                    } else {
                        Ok(())
                    }
                }
            },
            Some(Ok(Message::Binary(_))) => {
                if self.admit(Kind::Invalid, "invalid", None)? {
                    self.error(None, ErrorCode::Malformed, "messages are JSON text frames")
                } else {
                    Ok(())
                }
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                self.admit(Kind::Control, "control", None).map(drop)
            }
        }
    }

    /// Counts a frame of `kind` (of type `name` in `/metrics`) against the rate limits:
    /// true to serve it; false once the client has been told `rate-limited` and the
    /// frame is to be skipped; the end of a connection that keeps flooding.
    fn admit(
        &mut self,
        kind: Kind,
        name: &'static str,
        id: Option<RequestId>,
    ) -> Result<bool, End> {
        let metrics = &self.state.services.metrics;
        metrics.message(name);
        let verdict = self.limits.check(kind, Instant::now());
        if verdict == Verdict::Pass {
            return Ok(true);
        }
        metrics.rate_limited(kind.label());
        let message = format!("too many {} messages: slow down", kind.label());
        if verdict == Verdict::Close {
            let _ = self.send(&ServerMessage::Bye {
                code: ErrorCode::RateLimited,
                message,
            });
            return Err(End::Flood);
        }
        self.error(id, ErrorCode::RateLimited, message)?;
        Ok(false)
    }

    async fn on_request(&mut self, request: ClientMessage) -> Result<(), End> {
        if !self.greeted {
            return match request {
                ClientMessage::Hello {
                    id,
                    version,
                    legal_turns,
                } if version == PROTOCOL_VERSION => {
                    self.greeted = true;
                    self.legal_turns = legal_turns;
                    self.send(&ServerMessage::Welcome {
                        id,
                        version: PROTOCOL_VERSION,
                    })
                }
                ClientMessage::Hello { id, version, .. } => {
                    self.error(
                        Some(id),
                        ErrorCode::UnsupportedVersion,
                        format!(
                            "this server speaks protocol version {PROTOCOL_VERSION}, not {version}"
                        ),
                    )?;
                    Err(End::WrongVersion)
                }
                other => self.error(
                    Some(other.id()),
                    ErrorCode::HelloRequired,
                    format!(
                        r#"say hello first: {{"type":"hello","id":1,"version":{PROTOCOL_VERSION}}}"#
                    ),
                ),
            };
        }
        match request {
            ClientMessage::Hello { id, .. } => self.error(
                Some(id),
                ErrorCode::DuplicateHello,
                "this connection has said hello already",
            ),
            ClientMessage::Join { .. } | ClientMessage::Watch { .. } if self.room.is_some() => {
                let code = ErrorCode::AlreadyJoined;
                self.error(Some(request.id()), code, errors::message(code, self.lang))
            }
            ClientMessage::Join {
                id,
                room,
                token,
                since,
            } => {
                let key = match (token, &self.account) {
                    (Some(token), _) => {
                        // A seat belongs to its account: the connection ends with it,
                        // and a banned or deleted account's seat is no longer played.
                        if let Err(Refused { code, message, .. }) =
                            self.ticket.join_seat(&room, &token).await
                        {
                            return self.error(Some(id), code, message);
                        }
                        Key::Token(token)
                    }
                    (None, Some(account)) => Key::Account(account.id.clone()),
                    (None, None) => {
                        let code = ErrorCode::SignInRequired;
                        return self.error(Some(id), code, errors::message(code, self.lang));
                    }
                };
                // A player who takes a seat is no longer looking for a game.
                self.cancel_seek();
                self.enter(Some(id), &room, Entry::Seat { key }, since)
                    .await
            }
            ClientMessage::Watch { id, room, since } => {
                self.enter(Some(id), &room, Entry::Watch, since).await
            }
            ClientMessage::Chat { id, text } => {
                // A muted account's line is refused before it reaches the room, whether
                // it speaks signed in or in the seat it holds (by its token).
                let signed_in = self.account.as_ref().map(|a| a.id.clone());
                let seat = self
                    .ticket
                    .seat()
                    .filter(|seat| Some(seat) != signed_in.as_ref());
                for account in signed_in.iter().chain(&seat) {
                    if let Err(Refused { code, message, .. }) =
                        self.state.moderation.may_chat(account).await
                    {
                        let message = errors::told(code, message, self.lang);
                        return self.error(Some(id), code, &message);
                    }
                }
                let name = self.account.as_ref().map(|a| a.username.clone());
                let account = self.account.as_ref().map(|a| a.id.clone());
                self.talk(
                    id,
                    Talk::Say {
                        name,
                        account,
                        text,
                    },
                )
                .await
            }
            ClientMessage::Mute { id, muted } => self.talk(id, Talk::Mute(muted)).await,
            ClientMessage::Follow { id, tournament } => self.follow(Some(id), tournament).await,
            ClientMessage::Unfollow { id } => {
                self.following = None;
                self.send(&ServerMessage::Ack { id, seq: 0 })
            }
            ClientMessage::Seek {
                id,
                variant,
                clock,
                rated,
                range,
                name,
                guest,
            } => {
                let game = SeekGame {
                    variant,
                    clock,
                    rated,
                };
                let ask = Ask {
                    game,
                    range,
                    name,
                    guest,
                };
                self.seek(id, ask).await
            }
            ClientMessage::CancelSeek { id } => {
                self.cancel_seek();
                self.send(&ServerMessage::Ack { id, seq: 0 })
            }
            other => {
                let id = other.id();
                let action = other.action().expect("every other request is an action");
                let Some(membership) = &self.room else {
                    let code = ErrorCode::NotJoined;
                    return self.error(Some(id), code, errors::message(code, self.lang));
                };
                let conn = self.id;
                let act = |retry| Request::Act {
                    conn,
                    action,
                    retry,
                };
                let mut answer = done(membership.handle.ask(act(false)).await);
                if answer == Err(Closed) {
                    // The room moved under the request: follow it, then ask again (the
                    // first may have been done before the answer was lost).
                    self.reenter().await?;
                    if let Some(membership) = &self.room {
                        answer = done(membership.handle.ask(act(true)).await);
                    }
                }
                self.answer(id, answer)
            }
        }
    }

    /// Says something in the room's chat, or mutes, for request `id`.
    async fn talk(&mut self, id: RequestId, talk: Talk) -> Result<(), End> {
        let Some(membership) = &self.room else {
            let code = ErrorCode::NotJoined;
            return self.error(Some(id), code, errors::message(code, self.lang));
        };
        let request = Request::Talk {
            conn: self.id,
            talk,
        };
        let answer = done(membership.handle.ask(request).await);
        self.answer(id, answer)
    }

    /// Acknowledges request `id` with the sequence number of the event it caused, or
    /// passes on why the room refused it.
    fn answer(
        &mut self,
        id: RequestId,
        answer: Result<Result<Seq, Refused>, Closed>,
    ) -> Result<(), End> {
        match answer {
            Ok(Ok(seq)) => self.send(&ServerMessage::Ack { id, seq }),
            Ok(Err(refusal)) => {
                let message = match (&refusal.rule, &refusal.args) {
                    (Some(rule), Some(args)) => {
                        errors::illegal(rule, args, refusal.message, self.lang)
                    }
                    _ => errors::told(refusal.code, refusal.message, self.lang),
                };
                self.send(&ServerMessage::Error {
                    id: Some(id),
                    code: refusal.code,
                    rule: refusal.rule,
                    args: refusal.args,
                    message,
                })
            }
            Err(Closed) => Err(End::RoomUnreachable),
        }
    }

    /// Seeks `ask` for request `id`, in place of any earlier seek of this connection.
    async fn seek(&mut self, id: RequestId, ask: Ask) -> Result<(), End> {
        if self.room.is_some() {
            let code = ErrorCode::AlreadyJoined;
            return self.error(Some(id), code, errors::message(code, self.lang));
        }
        let seeks = self.state.seeks.clone();
        let prepared = seeks
            .prepare(self.id, self.account.as_ref(), ask, self.lang)
            .await;
        let (seek, token) = match prepared {
            Ok(prepared) => prepared,
            Err(Refused { code, message, .. }) => return self.error(Some(id), code, message),
        };
        self.seeking = None;
        let told = seeking::ask(&seeks, Some(id), seek, token, self.lang).await;
        self.heard(told)
    }

    /// Withdraws this connection's seek, if any.
    pub(super) fn cancel_seek(&mut self) {
        if self.seeking.take().is_some() {
            self.state.seeks.cancel(self.id);
        }
    }

    /// Passes on what the pool says of this connection's seek.
    async fn on_pool(
        &mut self,
        news: Result<Arc<seek::Event>, broadcast::error::RecvError>,
    ) -> Result<(), End> {
        let Some(open) = self.seeking.take() else {
            return Ok(());
        };
        let seeks = self.state.seeks.clone();
        let told = seeking::news(open, news, &seeks, self.lang).await;
        self.heard(told)
    }

    /// Keeps the seek while it stays open, and tells the client what came of it.
    fn heard(&mut self, told: Told) -> Result<(), End> {
        self.seeking = told.open;
        match told.message {
            Some(message) => self.send(&message),
            None => Ok(()),
        }
    }
}

/// What the room answered an `Act` or a `Talk`.
fn done(reply: Result<Reply<Rooms>, Closed>) -> Result<Result<Seq, Refused>, Closed> {
    // A room answering another request's answer is a bug (logged): the client tries again.
    reply.map(|reply| {
        reply.answer.done().unwrap_or_else(|Mismatch| {
            Err(Refused::new(
                ErrorCode::StorageFailed,
                "the server failed; try again",
            ))
        })
    })
}
