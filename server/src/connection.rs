//! One WebSocket connection: reads requests, talks to its room's actor, and forwards the
//! room's events, and those of the tournament it follows.
//!
//! The socket is split in two. A writer task drains a bounded queue into the socket; the
//! connection loop `select!`s over the socket's frames, the room's events, the followed
//! tournament's, the takeover signal, the keep-alive timer and shutdown, and never waits
//! for the socket to accept data: it only puts messages on the queue. A client that does not read lets its queue
//! fill up and is then dropped, so it can never hold up anyone else.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, close_code};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use punct_protocol::{
    ClientMessage, ErrorCode, PROTOCOL_VERSION, RequestId, Role, SeekGame, Seq, ServerMessage,
    TournamentRound, TournamentState,
};
use punct_rules::Color;
use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::accounts::Refused;
use crate::cluster::{Closed, ConnId, Reply};
use crate::endings::Ticket;
use crate::errors;
use crate::i18n::Lang;
use crate::limits::{Kind, MessageLimits, Verdict};
use crate::room::{
    Entered, Event, Key, Mismatch, Refusal, Request, RoomHandle, Rooms, Start, Talk,
};
use crate::seek::{self, Ask};
use crate::state::AppState;
use crate::store::Account;
use crate::tournament;

mod seeking;

use seeking::{Seeking, Told, from_pool};

/// How long a closing connection's writer may take to flush its last messages.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a connection ended; its kebab-case name labels `/metrics`.
#[derive(Debug, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
enum End {
    /// The client closed it or went away.
    ClientClosed,
    /// The socket failed.
    Broken(String),
    /// The client sent a frame over the size limit.
    TooLarge,
    /// The client sent a text frame that is not UTF-8.
    #[strum(serialize = "not-utf8")]
    NotUtf8,
    /// The client speaks another protocol version.
    WrongVersion,
    /// Another connection took over this one's seat.
    Replaced,
    /// Nothing was heard from the client for too long.
    Idle,
    /// The client did not read what was sent to it quickly enough.
    TooSlow,
    /// The client went on sending faster than its rate limits after being told.
    Flood,
    /// The room closed: its creator cancelled it.
    RoomClosed,
    /// The room could not be reached, though it may live on: it closed under the
    /// connection and could not be entered again, or it never answered a request.
    RoomUnreachable,
    /// The server is shutting down.
    Shutdown,
    /// Its session ended, or the account of its seat was banned or deleted.
    SessionEnded,
}

impl End {
    /// The close frame to send, if the socket can still take one.
    fn close_frame(&self) -> Option<CloseFrame> {
        let (code, reason) = match self {
            End::ClientClosed | End::Broken(_) | End::TooSlow => return None,
            End::TooLarge => (close_code::SIZE, "message too large"),
            End::Flood => (close_code::POLICY, "too many messages"),
            End::NotUtf8 => (close_code::INVALID, "text frame not UTF-8"),
            End::WrongVersion => (close_code::PROTOCOL, "unsupported protocol version"),
            End::Replaced => (close_code::NORMAL, "seat taken over"),
            End::Idle => (close_code::AWAY, "idle"),
            End::RoomClosed => (close_code::NORMAL, "room closed"),
            // Not 1000, which says the room is gone for good: the client comes back.
            End::RoomUnreachable => (close_code::AGAIN, "room unreachable"),
            End::Shutdown => (close_code::AWAY, "server shutting down"),
            End::SessionEnded => (close_code::NORMAL, "session ended"),
        };
        Some(CloseFrame {
            code,
            reason: reason.into(),
        })
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            End::ClientClosed => f.write_str("closed by the client"),
            End::Broken(e) => write!(f, "socket error: {e}"),
            End::TooLarge => f.write_str("message too large"),
            End::NotUtf8 => f.write_str("text frame not UTF-8"),
            End::WrongVersion => f.write_str("unsupported protocol version"),
            End::Replaced => f.write_str("seat taken over by another connection"),
            End::Idle => f.write_str("idle for too long"),
            End::TooSlow => f.write_str("outbound queue full: the client does not read"),
            End::Flood => f.write_str("went on sending over the rate limits"),
            End::RoomClosed => f.write_str("room closed"),
            End::RoomUnreachable => f.write_str("room unreachable: try again"),
            End::Shutdown => f.write_str("server shutting down"),
            End::SessionEnded => f.write_str("its session or its seat's account ended"),
        }
    }
}

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
    connection
        .state
        .rooms
        .context()
        .metrics
        .disconnect((&end).into());
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
/// gone out.
async fn write<K: Sink<Message> + Unpin>(mut sink: K, mut queue: outbound::Receiver) {
    while let Some(message) = queue.recv().await {
        let closing = matches!(message, Message::Close(_));
        if sink.send(message).await.is_err() || closing {
            break;
        }
    }
    let _ = sink.close().await;
}

/// A connection's state.
struct Connection {
    /// Names this connection to its room.
    id: ConnId,
    /// The rooms, the limits and the shutdown signal.
    state: AppState,
    /// The writer's queue.
    out: outbound::Sender,
    /// How fast the client may send.
    limits: MessageLimits,
    /// Whether the client has said `hello` with the right version.
    greeted: bool,
    /// Whether the client wants the legal turns when it is its turn to play.
    legal_turns: bool,
    /// The account the connection is signed in to, by the upgrade request's session.
    account: Option<Account>,
    /// The language its messages for people are in: the upgrade request's.
    lang: Lang,
    /// The room joined, if any.
    room: Option<Membership>,
    /// The tournament followed, if any.
    following: Option<Following>,
    /// The open seek, if any. Boxed: most connections never seek, and each holds its
    /// state for its whole life.
    seeking: Option<Box<Seeking>>,
    /// What ends the connection with its session, or its seat's account.
    ticket: Ticket,
}

/// A tournament a connection follows.
struct Following {
    /// Its id.
    tournament: String,
    /// Its director's events.
    events: broadcast::Receiver<Arc<tournament::Event>>,
    /// Whether it was over when last heard of: its director closing then is no news.
    over: bool,
}

/// A connection's place in a room. (No `Debug`: it holds a seat token.)
struct Membership {
    /// The room's actor.
    handle: RoomHandle,
    /// How the connection entered, to enter again the same way if the room moves.
    entry: Entry,
    /// Who the connection is there.
    role: Role,
    /// The room's events.
    events: broadcast::Receiver<Arc<Event>>,
    /// The last room event this connection has passed on: where it resumes if the room
    /// moves (to another node, or is loaded again after it was fenced).
    last_seq: Seq,
}

/// How a connection entered its room.
#[derive(Clone)]
enum Entry {
    /// As the player of the seat this token, or this connection's account, holds.
    Seat {
        /// The seat token (kept only in memory), or the account.
        key: Key,
    },
    /// As a spectator.
    Watch,
}

impl Connection {
    async fn run<R>(&mut self, stream: &mut R) -> End
    where
        R: Stream<Item = Result<Message, axum::Error>> + Unpin,
    {
        let config = Arc::clone(&self.state.config);
        let mut stop = self.state.stop.clone();
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
                () = stopping(&mut stop) => {
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
        let metrics = &self.state.rooms.context().metrics;
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
                        if let Err(Refused(code, message)) =
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
                    if let Err(Refused(code, message)) =
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
            Err(Refused(code, message)) => return self.error(Some(id), code, message),
        };
        self.seeking = None;
        let told = seeking::ask(&seeks, Some(id), seek, token, self.lang).await;
        self.heard(told)
    }

    /// Withdraws this connection's seek, if any.
    fn cancel_seek(&mut self) {
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

    /// Follows tournament `tournament` (in place of any other), for request `id` (none
    /// when following again after missing events): sends it as it stands, then, to a
    /// player of it, the game they have not finished.
    async fn follow(&mut self, id: Option<RequestId>, tournament: String) -> Result<(), End> {
        match self.state.tournaments.follow(&tournament).await {
            Ok((view, events)) => {
                let over = matches!(
                    view.summary.state,
                    TournamentState::Finished | TournamentState::Cancelled
                );
                let last = view.pairings.last().cloned();
                self.following = Some(Following {
                    tournament: tournament.clone(),
                    events,
                    over,
                });
                self.send(&ServerMessage::Tournament {
                    id,
                    tournament: Box::new(view),
                })?;
                match last {
                    Some(round) => self.your_game(&tournament, &round, true),
                    None => Ok(()),
                }
            }
            Err(code) => {
                self.following = None;
                match id {
                    Some(id) => self.error(Some(id), code, errors::message(code, self.lang)),
                    None => Ok(()),
                }
            }
        }
    }

    /// Tells a signed-in player of `round` their game in it (only one not over, if
    /// `unfinished`).
    fn your_game(
        &self,
        tournament: &str,
        round: &TournamentRound,
        unfinished: bool,
    ) -> Result<(), End> {
        let Some(account) = &self.account else {
            return Ok(());
        };
        for game in &round.games {
            let (Some(room), Some(black)) = (&game.room, &game.black) else {
                continue;
            };
            if unfinished && game.outcome.is_some() {
                continue;
            }
            let (color, opponent) = if game.white == account.username {
                (Color::White, black)
            } else if *black == account.username {
                (Color::Black, &game.white)
            } else {
                continue;
            };
            self.send(&ServerMessage::TournamentGame {
                tournament: tournament.to_owned(),
                round: round.round,
                room: room.clone(),
                color,
                opponent: opponent.clone(),
            })?;
        }
        Ok(())
    }

    /// Passes on what the followed tournament's director tells; follows it again after
    /// missing some, or once it closed (it is loaded again) unless it was over.
    async fn on_tournament(
        &mut self,
        news: Result<Arc<tournament::Event>, broadcast::error::RecvError>,
    ) -> Result<(), End> {
        let Some(following) = &mut self.following else {
            return Ok(());
        };
        let tournament = following.tournament.clone();
        match news {
            Ok(event) => match &*event {
                tournament::Event::Changed { over, json } => {
                    following.over = *over;
                    self.push(Message::Text(json.clone()))
                }
                tournament::Event::Paired(round) => {
                    self.send(&ServerMessage::TournamentRound {
                        tournament: tournament.clone(),
                        round: round.clone(),
                    })?;
                    self.your_game(&tournament, round, false)
                }
            },
            Err(broadcast::error::RecvError::Closed) if following.over => {
                self.following = None;
                Ok(())
            }
            Err(_) => self.follow(None, tournament).await,
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
        answer: Result<Result<Seq, Refusal>, Closed>,
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

    /// Enters room `room` as `entry` says, coming back after event `since` if given, and
    /// sends where the connection's view starts. `id` is the client's request: without
    /// one (the room moved under the connection) a snapshot goes unasked, and missed
    /// events simply follow.
    async fn enter(
        &mut self,
        id: Option<RequestId>,
        room: &str,
        entry: Entry,
        since: Option<Seq>,
    ) -> Result<(), End> {
        let (conn, lists) = (self.id, self.legal_turns);
        // Loaded on every entry, so that a block made or lifted since counts once the
        // member comes back; the room keeps it only while the member is in.
        let blocks = match &self.account {
            Some(account) => match self.state.accounts.blocks(account).await {
                Ok(blocks) => blocks.into_iter().map(|block| block.account.id).collect(),
                Err(Refused(code, _)) => return self.not_entered(id, code),
            },
            None => Vec::new(),
        };
        let request = match &entry {
            Entry::Seat { key } => Request::Join {
                conn,
                key: key.clone(),
                since,
                lists,
                blocks,
            },
            Entry::Watch => Request::Watch {
                conn,
                since,
                blocks,
            },
        };
        let (handle, joined, events) = match self.state.rooms.ask(room, &request).await {
            Ok((handle, reply)) => match reply.answer.entered() {
                Ok(Ok(joined)) => (handle, joined, reply.events),
                Ok(Err(code)) => return self.not_entered(id, code),
                Err(Mismatch) => return self.not_entered(id, ErrorCode::StorageFailed),
            },
            Err(code) => return self.not_entered(id, code),
        };
        tracing::Span::current().record("room", handle.id());
        let role = joined.role;
        let last_seq = match &joined.start {
            Start::Snapshot(snapshot) => snapshot.seq,
            Start::Resumed { missed, since, .. } => {
                missed.iter().rev().find_map(|e| e.seq).unwrap_or(*since)
            }
        };
        self.room = Some(Membership {
            handle,
            entry,
            role,
            events,
            last_seq,
        });
        match joined.start {
            Start::Snapshot(snapshot) => {
                tracing::info!(?role, "entered room");
                self.send(&ServerMessage::Snapshot {
                    id,
                    you: role,
                    room: *snapshot,
                })
            }
            Start::Resumed {
                since,
                missed,
                your_turn,
                players,
                spectators,
                chat,
            } => {
                tracing::info!(?role, since, missed = missed.len(), "came back to the room");
                if let Some(id) = id {
                    self.send(&ServerMessage::Resumed {
                        id,
                        you: role,
                        since,
                        players: *players,
                        spectators,
                        chat,
                    })?;
                }
                missed
                    .iter()
                    .try_for_each(|event| self.forward(event, role))?;
                your_turn.map_or(Ok(()), |json| self.push(Message::Text(json)))
            }
        }
    }

    /// Answers request `id` (none: the connection was entering again after its room
    /// moved) that the room was not entered, for `code`. A node that is stopping (it
    /// lost its lease) says goodbye at once: the client comes back on another. A room
    /// gone from the database was cancelled; any other refusal of a member coming back
    /// leaves a room that lives on, which the client is told to try again.
    fn not_entered(&self, id: Option<RequestId>, code: ErrorCode) -> Result<(), End> {
        match (code, id) {
            (ErrorCode::ShuttingDown, _) => {
                let _ = self.send(&shutting_down(self.lang));
                Err(End::Shutdown)
            }
            (_, Some(id)) => self.error(Some(id), code, errors::message(code, self.lang)),
            (ErrorCode::NoSuchRoom, None) => Err(End::RoomClosed),
            (_, None) => Err(End::RoomUnreachable),
        }
    }

    /// The room closed under this connection (it moved to another node, or was fenced):
    /// enters it again where it is now, resuming after the last event passed on.
    async fn reenter(&mut self) -> Result<(), End> {
        let Some(membership) = self.room.take() else {
            return Ok(());
        };
        tracing::info!("the room moved: entering it again");
        let room = membership.handle.id().to_owned();
        self.enter(None, &room, membership.entry, Some(membership.last_seq))
            .await
    }

    /// Queues a room event, and the legal turns that come with it if they are this
    /// connection's to know.
    fn forward(&self, event: &Event, role: Role) -> Result<(), End> {
        self.push(Message::Text(event.json.clone()))?;
        match event.your_turn_for(role.color()) {
            Some(json) => self.push(Message::Text(json)),
            None => Ok(()),
        }
    }

    async fn on_room(
        &mut self,
        news: Result<Arc<Event>, broadcast::error::RecvError>,
    ) -> Result<(), End> {
        let Some(membership) = &mut self.room else {
            return Ok(());
        };
        match news {
            Ok(event) => match event.replaced {
                Some(conn) if conn == self.id => {
                    let _ = self.push(Message::Text(event.json.clone()));
                    Err(End::Replaced)
                }
                Some(_) => Ok(()),
                // A line of a chat this member does not hear.
                None if !event.hearers.hear(self.id, membership.role) => Ok(()),
                None => match event.seq {
                    // Passed on already: a room relayed from another node may deliver an
                    // event both in what the member got on entering and after it.
                    Some(seq) if seq <= membership.last_seq => Ok(()),
                    // An event was lost on the way from another node: start afresh.
                    Some(seq) if !follows(membership.last_seq, seq) => self.resync(1).await,
                    seq => {
                        if let Some(seq) = seq {
                            membership.last_seq = seq;
                        }
                        let role = membership.role;
                        self.forward(&event, role)
                    }
                },
            },
            Err(broadcast::error::RecvError::Lagged(missed)) => self.resync(missed).await,
            Err(broadcast::error::RecvError::Closed) => self.reenter().await,
        }
    }

    /// A fresh snapshot, after the connection missed `missed` events.
    async fn resync(&mut self, missed: u64) -> Result<(), End> {
        let Some(membership) = &mut self.room else {
            return Ok(());
        };
        tracing::info!(missed, "fell behind the room: resyncing");
        self.state.rooms.context().metrics.lagged();
        let resynced = membership
            .handle
            .ask(Request::Resync { conn: self.id })
            .await;
        let resynced = resynced.map(|reply| (reply.answer.entered(), reply.events));
        match resynced {
            Ok((
                Ok(Ok(Entered {
                    role,
                    start: Start::Snapshot(snapshot),
                })),
                events,
            )) => {
                membership.events = events;
                membership.last_seq = snapshot.seq;
                self.send(&ServerMessage::Snapshot {
                    id: None,
                    you: role,
                    room: *snapshot,
                })
            }
            Ok((Ok(Err(_)), _)) => {
                let _ = self.send(&ServerMessage::Bye {
                    code: ErrorCode::SeatTakenOver,
                    message: errors::message(ErrorCode::SeatTakenOver, self.lang).into(),
                });
                Err(End::Replaced)
            }
            // A resync always answers a snapshot; anything else is a bug (logged), and
            // the member enters again.
            Ok(_) | Err(Closed) => self.reenter().await,
        }
    }

    fn error(
        &self,
        id: Option<RequestId>,
        code: ErrorCode,
        message: impl Into<String>,
    ) -> Result<(), End> {
        let message = errors::told(code, message.into(), self.lang);
        self.send(&ServerMessage::error(id, code, message))
    }

    fn send(&self, message: &ServerMessage) -> Result<(), End> {
        let json = serde_json::to_string(message).expect("server messages serialise");
        self.push(Message::Text(json.into()))
    }

    /// Queues a frame for the writer without waiting.
    fn push(&self, message: Message) -> Result<(), End> {
        self.out.try_send(message).map_err(|e| match e {
            outbound::Refused::Full => End::TooSlow,
            outbound::Refused::Closed => End::Broken("the socket stopped taking data".into()),
        })
    }
}

/// Whether event `seq` comes right after event `last`: the next of the same
/// incarnation of the room (the high half), or the first of a later one (a relay may
/// pass on the events of the node that took the room over before it closes).
fn follows(last: Seq, seq: Seq) -> bool {
    seq == last + 1 || (seq >> 32 > last >> 32 && seq & u64::from(u32::MAX) == 1)
}

/// The goodbye of a server that is stopping, to a reader of `lang`.
fn shutting_down(lang: Lang) -> ServerMessage {
    ServerMessage::Bye {
        code: ErrorCode::ShuttingDown,
        message: errors::message(ErrorCode::ShuttingDown, lang).into(),
    }
}

/// What the room answered an `Act` or a `Talk`.
fn done(reply: Result<Reply<Rooms>, Closed>) -> Result<Result<Seq, Refusal>, Closed> {
    // A room answering another request's answer is a bug (logged): the client tries again.
    reply.map(|reply| {
        reply.answer.done().unwrap_or_else(|Mismatch| {
            Err(Refusal::new(
                ErrorCode::StorageFailed,
                "the server failed; try again",
            ))
        })
    })
}

/// Completes when the server shuts down (or the signal's sender is gone).
async fn stopping(stop: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stop.wait_for(|&stopping| stopping).await;
}

/// What the followed tournament has for this connection next; never, when it follows
/// none.
async fn from_tournament(
    following: &mut Option<Following>,
) -> Result<Arc<tournament::Event>, broadcast::error::RecvError> {
    match following {
        Some(following) => following.events.recv().await,
        None => std::future::pending().await,
    }
}

/// What the room has for this connection next; never, outside a room.
async fn from_room(
    room: &mut Option<Membership>,
) -> Result<Arc<Event>, broadcast::error::RecvError> {
    match room {
        Some(membership) => membership.events.recv().await,
        None => std::future::pending().await,
    }
}

/// A connection's queue of frames for its writer, bounded.
///
/// Every connection has one, and it is empty most of the time. tokio's channel sets
/// aside room for 32 frames, about 2 KiB with its own state, from the moment it is
/// made; this queue holds only the frames waiting, and gives back the room a burst took
/// once it is drained.
mod outbound {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

    use axum::extract::ws::Message;
    use tokio::sync::Notify;

    /// Room for frames that a drained queue keeps.
    pub(super) const KEPT: usize = 4;

    /// Why a frame was not queued.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) enum Refused {
        /// As many frames wait as the queue holds.
        Full,
        /// The writer is gone.
        Closed,
    }

    /// What the two ends share.
    struct Shared {
        /// The frames and the ends' state.
        queue: Mutex<Queue>,
        /// Wakes the writer: a frame was queued, or the sender is gone.
        ready: Notify,
    }

    /// The frames waiting, and which end is gone.
    struct Queue {
        /// Oldest first.
        frames: VecDeque<Message>,
        /// Most frames waiting at once.
        capacity: usize,
        /// The connection let go of its end: the writer ends once the queue is drained.
        sender_gone: bool,
        /// The writer ended: nothing more is taken.
        writer_gone: bool,
    }

    fn lock(shared: &Shared) -> MutexGuard<'_, Queue> {
        // No code that holds the lock can panic half-way through a change.
        shared.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A queue of at most `capacity` frames.
    pub(super) fn queue(capacity: usize) -> (Sender, Receiver) {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                frames: VecDeque::new(),
                capacity,
                sender_gone: false,
                writer_gone: false,
            }),
            ready: Notify::new(),
        });
        (Sender(Arc::clone(&shared)), Receiver(shared))
    }

    /// The connection's end.
    pub(super) struct Sender(Arc<Shared>);

    impl Sender {
        /// Queues `frame` without waiting.
        pub(super) fn try_send(&self, frame: Message) -> Result<(), Refused> {
            let mut queue = lock(&self.0);
            if queue.writer_gone {
                return Err(Refused::Closed);
            }
            if queue.frames.len() >= queue.capacity {
                return Err(Refused::Full);
            }
            queue.frames.push_back(frame);
            drop(queue);
            self.0.ready.notify_one();
            Ok(())
        }
    }

    impl Drop for Sender {
        fn drop(&mut self) {
            lock(&self.0).sender_gone = true;
            self.0.ready.notify_one();
        }
    }

    /// The writer's end.
    pub(super) struct Receiver(Arc<Shared>);

    impl Receiver {
        /// The next frame; none once the sender is gone and every frame is taken.
        pub(super) async fn recv(&mut self) -> Option<Message> {
            loop {
                {
                    let mut queue = lock(&self.0);
                    if let Some(frame) = queue.frames.pop_front() {
                        if queue.frames.is_empty() && queue.frames.capacity() > KEPT {
                            queue.frames.shrink_to(KEPT);
                        }
                        return Some(frame);
                    }
                    if queue.sender_gone {
                        return None;
                    }
                }
                // A frame queued since the lock was let go left a permit: no wake-up is
                // lost.
                self.0.ready.notified().await;
            }
        }

        /// Room set aside for frames (for tests).
        #[cfg(test)]
        pub(super) fn room(&self) -> usize {
            lock(&self.0).frames.capacity()
        }
    }

    impl Drop for Receiver {
        fn drop(&mut self) {
            let mut queue = lock(&self.0);
            queue.writer_gone = true;
            queue.frames.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use punct_protocol::{CreateRoom, SeatChoice};
    use punct_rules::{Color, Game, Variant};
    use tokio::sync::mpsc;

    use super::*;
    use crate::cluster::Nodes;
    use crate::config::Config;
    use crate::room::testing::Drive;
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
        let (state, _stop, _all_done) = AppState::new(config, Store::empty().await, Nodes::Alone);
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
        let (state, _stop, _all_done) =
            AppState::new(Config::default(), Store::empty().await, Nodes::Alone);
        let (_client, incoming) = mpsc::unbounded_channel();
        let ticket = state.endings.open(7, None, None).await;
        let task = serve(StalledSocket { incoming }, 7, state, None, Lang::En, ticket);
        let size = std::mem::size_of_val(&task);
        // Ten kilobytes when the requests' futures were inline (debug build); what is
        // left is the waits themselves: the socket, the room's, the tournament's and the
        // seek pool's events, the ping and the stop.
        assert!(size <= 2560, "a connection's future takes {size} bytes");
    }

    fn text(n: usize) -> Message {
        Message::Text(n.to_string().into())
    }

    #[tokio::test]
    async fn the_writer_gets_every_frame_in_order_then_the_end() {
        let (out, mut queue) = outbound::queue(8);
        for n in 0..3 {
            out.try_send(text(n)).unwrap();
        }
        drop(out);
        for n in 0..3 {
            assert_eq!(queue.recv().await, Some(text(n)));
        }
        assert_eq!(queue.recv().await, None);
    }

    #[tokio::test]
    async fn a_writer_waiting_wakes_for_the_next_frame() {
        let (out, mut queue) = outbound::queue(8);
        let writer = tokio::spawn(async move { queue.recv().await });
        tokio::task::yield_now().await;
        out.try_send(text(7)).unwrap();
        assert_eq!(writer.await.unwrap(), Some(text(7)));
    }

    #[test]
    fn a_full_queue_refuses_and_keeps_what_it_has() {
        let (out, queue) = outbound::queue(2);
        out.try_send(text(1)).unwrap();
        out.try_send(text(2)).unwrap();
        assert_eq!(out.try_send(text(3)), Err(outbound::Refused::Full));
        drop(queue);
        assert_eq!(out.try_send(text(4)), Err(outbound::Refused::Closed));
    }

    #[tokio::test]
    async fn a_drained_queue_gives_back_the_room_of_a_burst() {
        let (out, mut queue) = outbound::queue(256);
        assert_eq!(queue.room(), 0, "nothing set aside before the first frame");
        for n in 0..200 {
            out.try_send(text(n)).unwrap();
        }
        assert!(queue.room() >= 200);
        for _ in 0..200 {
            queue.recv().await.unwrap();
        }
        assert!(queue.room() <= outbound::KEPT, "{} kept", queue.room());
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
        let (state, _stop, _all_done) =
            AppState::new(Config::default(), Store::empty().await, Nodes::Alone);
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
}
