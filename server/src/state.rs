//! What every HTTP handler and WebSocket connection shares: the rooms, the tournaments,
//! the seeks, the accounts, the limits, and the shutdown signal.
//!
//! Must not import: `connection`, `api`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio::sync::{Semaphore, mpsc, watch};

use crate::accounts::Accounts;
use crate::cluster::Nodes;
use crate::config::Config;
use crate::endings::Endings;
use crate::limits::Addresses;
use crate::moderation::Moderation;
use crate::proxy::TrustedProxies;
use crate::registry::Registry;
use crate::seek::Seeks;
use crate::store::Store;
use crate::tournament::Tournaments;

/// What every handler shares. Cheap to clone.
#[derive(Clone)]
pub(crate) struct AppState {
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
    /// Turns true when the server shuts down.
    pub(crate) stop: watch::Receiver<bool>,
    /// Held by every connection until its last frame is written: the server's `run`
    /// returns once every clone is dropped.
    pub(crate) _running: mpsc::Sender<()>,
}

impl axum::extract::FromRef<AppState> for Arc<TrustedProxies> {
    fn from_ref(state: &AppState) -> Arc<TrustedProxies> {
        Arc::clone(&state.proxies)
    }
}

impl AppState {
    /// The state of a new server on `store`, its rooms placed by `nodes`; the sender
    /// stops it, and the receiver answers `None` once every connection has finished.
    pub(crate) fn new(
        config: Config,
        store: Store,
        nodes: Nodes,
    ) -> (AppState, watch::Sender<bool>, mpsc::Receiver<()>) {
        let (stop_tx, stop) = watch::channel(false);
        let (running, all_done) = mpsc::channel::<()>(1);
        // Connection ids are unique across a cluster: each node's carry its tag.
        let first = nodes.first_connection();
        let accounts = Accounts::new(
            store.clone(),
            config.session_lifetime,
            config.sign_ins_per_minute,
            config.sign_ins_per_account,
        );
        let rooms = Registry::new(&config, store, nodes);
        let tournaments = Tournaments::new(&config, rooms.clone());
        let endings = Endings::new(rooms.clone());
        let moderation = Moderation::new(Arc::clone(&accounts), rooms.clone(), endings.clone());
        let moderation = Arc::new(moderation);
        let seeks = Seeks::new(
            &config,
            rooms.clone(),
            Arc::clone(&accounts),
            Arc::clone(&moderation),
        );
        let state = AppState {
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
            stop,
            _running: running,
        };
        (state, stop_tx, all_done)
    }
}
