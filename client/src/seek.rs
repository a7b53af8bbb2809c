//! Quick pairing: seek a game over a WebSocket of its own and wait until someone meets
//! the seek (`seek` in protocol/PROTOCOL.md). A connection lost while waiting is made
//! again and the seek with it, so a server or node going away costs the seeker nothing.

use std::time::Duration;

use punct_protocol::{ClientMessage, Player, SeekGame, ServerMessage};
use punct_rules::Color;

use crate::{Client, Error};

/// The longest wait before seeking again after losing the connection.
const MOST_BACK_OFF: Duration = Duration::from_secs(5);

/// Who a seek met: the room made for them, this player's seat in it, and the opponent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paired {
    /// The room's id.
    pub room: String,
    /// The secret seat token of this player's seat.
    pub token: String,
    /// The colour this player has.
    pub color: Color,
    /// Who holds the other seat.
    pub opponent: Player,
}

/// What a seeker asks for besides the game: a guest's name and the key its client keeps
/// so that its own seeks never meet (both ignored on a signed-in client), and for a rated
/// game how far the opponent's rating may be.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeekOptions {
    /// The name to play under, when not signed in.
    pub name: Option<String>,
    /// The key that tells this player's seeks apart from others', when not signed in.
    pub guest: Option<String>,
    /// For a rated seek: the farthest the opponent's rating may be, either way.
    pub range: Option<u32>,
}

/// Seeks `game` on `client`'s server until someone meets it: the seat it was given, or
/// `None` if the seek ran out first. A refusal (a rated seek not signed in, say) is an
/// error; a lost connection is made again with the seek.
pub async fn seek(
    client: &Client,
    game: SeekGame,
    options: &SeekOptions,
) -> Result<Option<Paired>, Error> {
    let mut back_off = Duration::from_millis(250);
    loop {
        match seek_once(client, game, options).await {
            Err(e) if lost(&e) => {
                tokio::time::sleep(back_off).await;
                back_off = (back_off * 2).min(MOST_BACK_OFF);
            }
            done => return done,
        }
    }
}

/// Whether `e` lost the connection (or never had one): worth seeking again.
fn lost(e: &Error) -> bool {
    matches!(
        e,
        Error::WebSocket(_) | Error::Closed(_) | Error::Timeout(_)
    ) || e.is_for_now()
}

/// One connection's seek, until it is met, ends, is refused or the connection is lost.
async fn seek_once(
    client: &Client,
    game: SeekGame,
    options: &SeekOptions,
) -> Result<Option<Paired>, Error> {
    let mut socket = client.connect().await?;
    socket.hello(false).await?;
    let mut answer = socket
        .request(|id| ClientMessage::Seek {
            id,
            variant: game.variant,
            clock: game.clock,
            rated: game.rated,
            range: options.range,
            name: options.name.clone(),
            guest: options.guest.clone(),
        })
        .await?;
    loop {
        match answer {
            ServerMessage::Seeking { .. } => {}
            ServerMessage::Paired {
                room,
                token,
                color,
                opponent,
                ..
            } => {
                let _ = socket.close().await;
                return Ok(Some(Paired {
                    room,
                    token,
                    color,
                    opponent,
                }));
            }
            ServerMessage::SeekEnded { .. } => return Ok(None),
            ServerMessage::Error { code, message, .. } => {
                return Err(Error::Rejected { code, message });
            }
            // Anything else (a `bye` comes before the close) is no news of the seek.
            _ => {}
        }
        answer = socket.recv().await?;
    }
}
