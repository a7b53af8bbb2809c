//! Quick pairing ("Play now"): players ask for a game (a seek) and two who want the same
//! game meet at once in a new room. The seeks of a whole cluster wait in one pool, an
//! actor of `cluster` like a room or a tournament's director (`kind`), so a seek made on
//! any node meets one made on any other, and the pool moves when its node dies.
//!
//! # Layout
//!
//! - this file: [`Seeks`], what connections ask: seeking (after checking who may seek
//!   what), cancelling, listing the open seeks.
//! - `protocol`: [`Request`], [`Answer`] and [`Event`], the pool's whole interface.
//! - `pool`: the actor: the open seeks, how two meet, expiry.
//! - `kind`: the pool as a kind of actor.
//!
//! Must not import: `connection`, `api`.

mod kind;
mod pool;
mod protocol;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use punct_protocol::{ErrorCode, SeekGame, SeekList};
use tokio::sync::broadcast;

use crate::accounts::Accounts;
use crate::cluster::{ConnId, Limits, Placement, Unavailable, Whereabouts};
use crate::config::Config;
use crate::errors;
use crate::i18n::Lang;
use crate::moderation::Moderation;
use crate::rating::Rating;
use crate::registry::Registry;
use crate::secret;
use crate::services::Services;
use crate::store::{Account, Player, Store};

use crate::errors::Refused;
use kind::Pools;
use protocol::POOL;
pub(crate) use protocol::{Answer, Event, NewSeek, Pairing};

/// Requests the pool's inbox holds before senders wait.
const REQUEST_QUEUE: usize = 1024;

/// Longest key a guest's client may keep.
const LONGEST_GUEST_KEY: usize = 64;

/// What a client asks for when it seeks.
#[derive(Clone, Debug)]
pub(crate) struct Ask {
    /// The game.
    pub(crate) game: SeekGame,
    /// For a rated seek: how far the opponent's rating may be.
    pub(crate) range: Option<u32>,
    /// The name a guest plays under.
    pub(crate) name: Option<String>,
    /// The key a guest's client keeps.
    pub(crate) guest: Option<String>,
}

/// A cheap, cloneable handle on the seek pool.
#[derive(Clone, Debug)]
pub(crate) struct Seeks {
    /// Where the pool runs, and how it is reached.
    placement: Placement<Pools>,
    /// Where ratings and blocks are read.
    store: Store,
    /// Names guests give.
    accounts: Arc<Accounts>,
    /// Who may play rated games.
    moderation: Arc<Moderation>,
}

impl Seeks {
    /// The pool of the server's `services`, making its rooms in `rooms`.
    pub(crate) fn new(
        config: &Config,
        services: &Services,
        rooms: Registry,
        accounts: Arc<Accounts>,
        moderation: Arc<Moderation>,
    ) -> Seeks {
        let limits = Limits {
            max: 1,
            queue: REQUEST_QUEUE,
            events: config.room_event_buffer,
            patience: config.cluster_lease * 3,
        };
        Seeks {
            placement: Placement::new(
                Pools { registry: rooms },
                services.nodes.clone(),
                limits,
                services.shutdown.clone(),
            ),
            store: services.store.clone(),
            accounts,
            moderation,
        }
    }

    /// The seek of connection `conn`, signed in to `account` or not, as the pool takes
    /// it, and the seat token its connection keeps; refused when it may not seek `ask`.
    pub(crate) async fn prepare(
        &self,
        conn: ConnId,
        account: Option<&Account>,
        ask: Ask,
        lang: Lang,
    ) -> Result<(NewSeek, String), Refused> {
        let refused = |code: ErrorCode| Refused::new(code, errors::message(code, lang).to_owned());
        if let Some(why) = ask.game.clock.refusal() {
            return Err(Refused::new(ErrorCode::BadRequest, why));
        }
        let (player, rating, blocks) = match account {
            Some(account) => {
                if ask.game.rated {
                    self.moderation.may_play_rated(account).await?;
                }
                let read = async {
                    let record = self.store.player(&account.username).await?;
                    let blocks = self.store.blocks_of(&account.id).await?;
                    Ok::<_, crate::store::StoreError>((record, blocks))
                };
                let (record, blocks) = read.await.map_err(|e| {
                    let error: &dyn std::error::Error = &e;
                    tracing::error!(error, "database: a seeker's rating and blocks");
                    refused(ErrorCode::StorageFailed)
                })?;
                let rating = record
                    .and_then(|r| r.ratings.into_iter().find(|(v, ..)| *v == ask.game.variant))
                    .map_or(Rating::NEW.rating, |(_, standing, _)| {
                        standing.rating.rating
                    });
                let blocks = blocks.into_iter().map(|b| b.account.id).collect();
                (Player::of(account.clone()), Some(rating), blocks)
            }
            None if ask.game.rated => return Err(refused(ErrorCode::SignInRequired)),
            None => {
                let name = match &ask.name {
                    Some(name) => Some(self.accounts.check_name(name).await?),
                    None => None,
                };
                let player = Player {
                    name,
                    account: None,
                };
                (player, None, Vec::new())
            }
        };
        let guest = if account.is_some() { None } else { ask.guest };
        if guest
            .as_ref()
            .is_some_and(|key| key.is_empty() || key.len() > LONGEST_GUEST_KEY)
        {
            return Err(Refused::new(
                ErrorCode::BadRequest,
                "a guest key has 1 to 64 characters".to_owned(),
            ));
        }
        let token = secret::token();
        let seek = NewSeek {
            seek: secret::uuid_v7(),
            conn,
            game: ask.game,
            player,
            guest,
            rating,
            range: ask.range,
            blocks,
            seat: secret::hash_token(&token),
        };
        Ok((seek, token))
    }

    /// Puts `seek` in the pool: its answer, and the pool's events from then on.
    pub(crate) async fn seek(
        &self,
        seek: &NewSeek,
    ) -> Result<(Answer, broadcast::Receiver<Arc<Event>>), ErrorCode> {
        let request = protocol::Request::Seek(Box::new(seek.clone()));
        let (_, reply) = self
            .placement
            .ask(POOL, &request)
            .await
            .map_err(|e| e.code::<Pools>())?;
        Ok((reply.answer, reply.events))
    }

    /// Ends connection `conn`'s seek, if it has one.
    pub(crate) fn cancel(&self, conn: ConnId) {
        if let Some(pool) = self.placement.running(POOL) {
            pool.tell(protocol::Request::Cancel { conn });
        }
    }

    /// Every open seek, oldest first, wherever the pool runs.
    pub(crate) async fn list(&self) -> SeekList {
        let mut seeks: Vec<_> = self.placement.statuses().into_iter().flatten().collect();
        seeks.extend(
            self.placement
                .statuses_everywhere()
                .await
                .into_iter()
                .flatten(),
        );
        seeks.sort_by(|a, b| a.seek.cmp(&b.seek));
        seeks.dedup_by(|a, b| a.seek == b.seek);
        SeekList { seeks }
    }

    /// Where the pool runs, as an operator asks; loads nothing.
    pub(crate) async fn whereabouts(&self) -> Result<Whereabouts, ErrorCode> {
        let whereabouts = self.placement.whereabouts(POOL).await;
        whereabouts.map_err(|e| e.code::<Pools>())
    }

    /// Loads the pool here unless a live node runs it.
    pub(crate) async fn restore(&self) -> Result<usize, Unavailable> {
        self.placement.restore().await
    }
}
