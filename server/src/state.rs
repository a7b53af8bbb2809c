//! What every HTTP handler and WebSocket connection shares: the server's services (the
//! store, the metrics, the mail), the actors' facades (rooms, tournaments, seeks), the
//! accounts, the limits, and the shutdown signal.
//!
//! Must not import: `connection`, `api`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio::sync::{Semaphore, mpsc};

use crate::accounts::Accounts;
use crate::config::Config;
use crate::endings::Endings;
use crate::limits::Addresses;
use crate::moderation::Moderation;
use crate::proxy::TrustedProxies;
use crate::registry::Registry;
use crate::seek::Seeks;
use crate::services::Services;
use crate::tournament::Tournaments;

/// What every handler shares: one pointer, so that each connection's future, which
/// holds it for the connection's whole life, stays small. Cheap to clone.
#[derive(Clone)]
pub(crate) struct AppState(Arc<Shared>);

/// What [`AppState`] points to.
pub(crate) struct Shared {
    /// The store, the nodes, the metrics, the mail, the computer and the stop.
    pub(crate) services: Services,
    /// Every room.
    pub(crate) rooms: Registry,
    /// Every tournament.
    pub(crate) tournaments: Tournaments,
    /// The seeks of quick pairing.
    pub(crate) seeks: Seeks,
    /// Limits and timings.
    pub(crate) config: Arc<Config>,
    /// One permit per open WebSocket connection.
    pub(crate) connections: Arc<Semaphore>,
    /// Accounts and sessions.
    pub(crate) accounts: Arc<Accounts>,
    /// Roles, reports, moderators' actions.
    pub(crate) moderation: Arc<Moderation>,
    /// The connections open here, closed when their session or account ends.
    pub(crate) endings: Endings,
    /// Connections and new rooms by client address.
    pub(crate) addresses: Arc<Addresses>,
    /// Whose word is taken for a client's address.
    pub(crate) proxies: Arc<TrustedProxies>,
    /// The next connection's id.
    pub(crate) next_connection: Arc<AtomicU64>,
    /// Held by every connection until its last frame is written: the server's `run`
    /// returns once the last [`AppState`] is dropped.
    pub(crate) _running: mpsc::Sender<()>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl axum::extract::FromRef<AppState> for Arc<TrustedProxies> {
    fn from_ref(state: &AppState) -> Arc<TrustedProxies> {
        Arc::clone(&state.proxies)
    }
}

impl AppState {
    /// The state of a new server with `services` (whose stop stops it); the receiver
    /// answers `None` once every connection has finished.
    pub(crate) fn new(config: Config, services: &Services) -> (AppState, mpsc::Receiver<()>) {
        let (running, all_done) = mpsc::channel::<()>(1);
        // Connection ids are unique across a cluster: each node's carry its tag.
        let first = services.nodes.first_connection();
        let store = services.store.clone();
        let accounts = Accounts::new(
            store.clone(),
            config.session_lifetime,
            config.sign_ins_per_minute,
            config.sign_ins_per_account,
        );
        let rooms = Registry::new(&config, services);
        let tournaments = Tournaments::new(&config, services, rooms.clone());
        let endings = Endings::new(services, rooms.clone());
        let moderation = Moderation::new(
            store.clone(),
            Arc::clone(&accounts),
            rooms.clone(),
            endings.clone(),
        );
        let moderation = Arc::new(moderation);
        let seeks = Seeks::new(
            &config,
            services,
            rooms.clone(),
            Arc::clone(&accounts),
            Arc::clone(&moderation),
        );
        let state = AppState(Arc::new(Shared {
            services: services.clone(),
            tournaments,
            seeks,
            moderation,
            endings,
            accounts,
            rooms,
            connections: Arc::new(Semaphore::new(config.max_connections)),
            addresses: Addresses::new(&config),
            proxies: Arc::new(TrustedProxies::new(&config.trusted_proxies)),
            config: Arc::new(config),
            next_connection: Arc::new(AtomicU64::new(first)),
            _running: running,
        }));
        (state, all_done)
    }
}
