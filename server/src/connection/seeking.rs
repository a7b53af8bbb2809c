//! A connection's seek: asking the pool, passing on what it says of this seek, and
//! seeking again, unasked, when the pool moves or this connection missed its news.

use std::sync::Arc;

use punct_protocol::{ErrorCode, RequestId, SeekEnd, ServerMessage};
use tokio::sync::broadcast;

use super::{Connection, End};
use crate::accounts::Refused;
use crate::errors;
use crate::seek::{Answer, Ask, Event, NewSeek, Pairing};

/// A connection's open seek. (No `Debug`: it holds a seat token.)
pub(super) struct Seeking {
    /// The seek, as the pool has it: sent again as it is when the pool moves.
    seek: NewSeek,
    /// The token of the seat the seek's room will give this connection.
    token: String,
    /// The pool's events.
    events: broadcast::Receiver<Arc<Event>>,
}

impl Connection {
    /// Seeks `ask` for request `id`, in place of any earlier seek of this connection.
    pub(super) async fn seek(&mut self, id: RequestId, ask: Ask) -> Result<(), End> {
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
            Err(Refused(code, message)) => {
                let message = errors::told(code, message, self.lang);
                return self.error(Some(id), code, &message);
            }
        };
        self.seeking = None;
        self.ask_pool(Some(id), seek, token).await
    }

    /// Withdraws this connection's seek, if any.
    pub(super) fn cancel_seek(&mut self) {
        if self.seeking.take().is_some() {
            self.state.seeks.cancel(self.id);
        }
    }

    /// Asks the pool `seek` (for request `id`, or again unasked) and tells the client
    /// what came of it.
    async fn ask_pool(
        &mut self,
        id: Option<RequestId>,
        seek: NewSeek,
        token: String,
    ) -> Result<(), End> {
        match self.state.seeks.seek(&seek).await {
            Ok((Answer::Waiting { expires_at }, events)) => {
                let seek_id = seek.seek.clone();
                self.seeking = Some(Seeking {
                    seek,
                    token,
                    events,
                });
                match id {
                    Some(id) => self.send(&ServerMessage::Seeking {
                        id,
                        seek: seek_id,
                        expires_at,
                    }),
                    None => Ok(()),
                }
            }
            Ok((Answer::Paired(pairing), _)) => self.paired(id, &seek.seek, &token, &pairing),
            Ok((Answer::Refused(code), _)) | Err(code) => match id {
                Some(id) => self.error(Some(id), code, errors::message(code, self.lang)),
                // A seek the pool cannot take again is over; the client sees it end.
                None => self.send(&ServerMessage::SeekEnded {
                    seek: seek.seek,
                    reason: SeekEnd::Expired,
                }),
            },
        }
    }

    /// Tells the client that seek `seek` met another, in `pairing`.
    fn paired(
        &mut self,
        id: Option<RequestId>,
        seek: &str,
        token: &str,
        pairing: &Pairing,
    ) -> Result<(), End> {
        self.seeking = None;
        let Some((color, opponent)) = pairing.side_of(seek) else {
            return Ok(());
        };
        self.send(&ServerMessage::Paired {
            id,
            seek: seek.to_owned(),
            room: pairing.room.clone(),
            token: token.to_owned(),
            color,
            opponent: opponent.clone(),
        })
    }

    /// Passes on what the pool tells of this connection's seek; seeks again when the
    /// pool closed (its node went away) or this connection missed some of its news.
    pub(super) async fn on_pool(
        &mut self,
        news: Result<Arc<Event>, broadcast::error::RecvError>,
    ) -> Result<(), End> {
        let Some(seeking) = &self.seeking else {
            return Ok(());
        };
        let mine = seeking.seek.seek.clone();
        match news {
            Ok(event) => match &*event {
                Event::Paired(pairing) if pairing.side_of(&mine).is_some() => {
                    let token = seeking.token.clone();
                    self.paired(None, &mine, &token, pairing)
                }
                Event::Expired { seek } if *seek == mine => {
                    self.seeking = None;
                    self.send(&ServerMessage::SeekEnded {
                        seek: mine,
                        reason: SeekEnd::Expired,
                    })
                }
                _ => Ok(()),
            },
            Err(_) => {
                let Some(Seeking { seek, token, .. }) = self.seeking.take() else {
                    return Ok(());
                };
                tracing::debug!(seek = %seek.seek, "seeking again");
                self.ask_pool(None, seek, token).await
            }
        }
    }
}

/// What the pool has for this connection next; never, when it does not seek.
pub(super) async fn from_pool(
    seeking: &mut Option<Seeking>,
) -> Result<Arc<Event>, broadcast::error::RecvError> {
    match seeking {
        Some(seeking) => seeking.events.recv().await,
        None => std::future::pending().await,
    }
}
