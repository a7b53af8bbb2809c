//! A connection's seek: asking the pool, what to tell the client of what the pool says
//! of this seek, and seeking again, unasked, when the pool moves or this connection
//! missed its news. The connection sends what these answer.

use std::sync::Arc;

use punct_protocol::{RequestId, SeekEnd, ServerMessage};
use tokio::sync::broadcast;

use crate::errors;
use crate::i18n::Lang;
use crate::seek::{Answer, Event, NewSeek, Pairing, Seeks};

/// A connection's open seek. (No `Debug`: it holds a seat token.)
pub(super) struct Seeking {
    /// The seek, as the pool has it: sent again as it is when the pool moves.
    seek: NewSeek,
    /// The token of the seat the seek's room will give this connection.
    token: String,
    /// The pool's events.
    events: broadcast::Receiver<Arc<Event>>,
}

/// What came of a seek: what to tell the client, if anything, and the seek while it
/// stays open.
pub(super) struct Told {
    /// The message for the client.
    pub(super) message: Option<ServerMessage>,
    /// The seek, still waiting.
    pub(super) open: Option<Box<Seeking>>,
}

/// Asks the pool `seek`, whose seat token is `token`, for request `id` (none when
/// seeking again unasked).
pub(super) async fn ask(
    seeks: &Seeks,
    id: Option<RequestId>,
    seek: NewSeek,
    token: String,
    lang: Lang,
) -> Told {
    let closed = |message| Told {
        message,
        open: None,
    };
    match seeks.seek(&seek).await {
        Ok((Answer::Waiting { expires_at }, events)) => {
            let message = id.map(|id| ServerMessage::Seeking {
                id,
                seek: seek.seek.clone(),
                expires_at,
            });
            let open = Some(Box::new(Seeking {
                seek,
                token,
                events,
            }));
            Told { message, open }
        }
        Ok((Answer::Paired(pairing), _)) => closed(paired(id, &seek.seek, &token, &pairing)),
        Ok((Answer::Refused(code), _)) | Err(code) => closed(Some(match id {
            Some(id) => {
                ServerMessage::error(Some(id), code, errors::message(code, lang).to_owned())
            }
            // A seek the pool cannot take again is over; the client sees it end.
            None => ServerMessage::SeekEnded {
                seek: seek.seek,
                reason: SeekEnd::Expired,
            },
        })),
    }
}

/// What the pool's `news` means for the connection's open seek `seeking`: it met
/// another, ran out, or (the pool moved, or this connection missed some news) it is
/// asked again.
pub(super) async fn news(
    seeking: Box<Seeking>,
    news: Result<Arc<Event>, broadcast::error::RecvError>,
    seeks: &Seeks,
    lang: Lang,
) -> Told {
    let mine = &seeking.seek.seek;
    match news {
        Ok(event) => match &*event {
            Event::Paired(pairings) => match pairings.iter().find(|p| p.side_of(mine).is_some()) {
                Some(pairing) => Told {
                    message: paired(None, mine, &seeking.token, pairing),
                    open: None,
                },
                None => Told {
                    message: None,
                    open: Some(seeking),
                },
            },
            Event::Expired { seek } if seek == mine => Told {
                message: Some(ServerMessage::SeekEnded {
                    seek: seek.clone(),
                    reason: SeekEnd::Expired,
                }),
                open: None,
            },
            _ => Told {
                message: None,
                open: Some(seeking),
            },
        },
        Err(_) => {
            tracing::debug!(seek = %mine, "seeking again");
            let Seeking { seek, token, .. } = *seeking;
            ask(seeks, None, seek, token, lang).await
        }
    }
}

/// What tells the client that seek `seek` met another in `pairing`.
fn paired(
    id: Option<RequestId>,
    seek: &str,
    token: &str,
    pairing: &Pairing,
) -> Option<ServerMessage> {
    let (color, opponent) = pairing.side_of(seek)?;
    Some(ServerMessage::Paired {
        id,
        seek: seek.to_owned(),
        room: pairing.room.clone(),
        token: token.to_owned(),
        color,
        opponent: opponent.clone(),
    })
}

/// What the pool has for this connection next; never, when it does not seek.
pub(super) async fn from_pool(
    seeking: &mut Option<Box<Seeking>>,
) -> Result<Arc<Event>, broadcast::error::RecvError> {
    match seeking {
        Some(seeking) => seeking.events.recv().await,
        None => std::future::pending().await,
    }
}
