//! What ends at once when a session or an account does: every WebSocket the session
//! opened, and for a banned or deleted account every one playing its seats with their
//! tokens, is told `bye` `session-ended` and closed; a deleted account's name and lines
//! leave the rooms held in memory. On this node at once, and on every other node of a
//! cluster when it hears the news over NATS.
//!
//! The database has the ending first (the session deleted, the ban or deletion stored);
//! only then is it told. A connection is written down ([`Ticket`]) before it looks at
//! the database, so that one whose session or seat's account ended in between sees it
//! there, and one opened later is refused by the database itself.
//!
//! Must not import: `moderation`, `state`, `connection`, `api`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use punct_protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::clock::now;
use crate::cluster::{ConnId, NodeTag};
use crate::errors::Refused;
use crate::registry::Registry;
use crate::secret::{TokenHash, hash_token};
use crate::services::Services;
use crate::store::{AccountId, Store};

/// The topic nodes tell each other endings on.
const TOPIC: &str = "endings";

/// What ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Ended {
    /// One session was signed out.
    Session(TokenHash),
    /// Every session of `account` but `keep`: signed out everywhere, a password reset,
    /// or a new password (which keeps the session that set it).
    Sessions {
        /// The account.
        account: AccountId,
        /// The session that stays, if one does.
        keep: Option<TokenHash>,
    },
    /// The account was banned, or deleted: its sessions ended, and its seats are no
    /// longer played with their tokens.
    Account {
        /// The account.
        account: AccountId,
        /// The name a deleted account shows from now on (`deleted player N`).
        deleted_as: Option<String>,
    },
}

/// An ending as nodes tell each other.
#[derive(Serialize, Deserialize)]
struct Told {
    /// The node that told it, which has dealt with it already.
    from: NodeTag,
    /// What ended.
    ended: Ended,
}

/// The WebSockets open on this node, by what ends them. Cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Endings {
    /// What every clone shares.
    shared: Arc<Shared>,
}

/// What every clone, and every ticket, shares.
#[derive(Debug)]
struct Shared {
    /// Every connection open here.
    open: Mutex<HashMap<ConnId, Open>>,
    /// Where a session or a seat's account is looked up.
    store: Store,
    /// The rooms, told when an account is deleted.
    rooms: Registry,
}

/// One open connection, as far as endings go.
#[derive(Debug)]
struct Open {
    /// The session its upgrade was signed in with.
    session: Option<TokenHash>,
    /// That session's account.
    account: Option<AccountId>,
    /// The account of the seat it joined with a token, if the seat has one.
    seat: Option<AccountId>,
    /// Turned true when it is to end.
    end: watch::Sender<bool>,
}

impl Open {
    /// Whether `ended` ends this connection.
    fn ends_with(&self, ended: &Ended) -> bool {
        match ended {
            Ended::Session(token) => self.session.as_ref() == Some(token),
            Ended::Sessions { account, keep } => {
                self.account.as_ref() == Some(account) && self.session != *keep
            }
            Ended::Account { account, .. } => {
                self.account.as_ref() == Some(account) || self.seat.as_ref() == Some(account)
            }
        }
    }
}

fn lock(shared: &Shared) -> MutexGuard<'_, HashMap<ConnId, Open>> {
    // No code that holds the lock can panic half-way through a change.
    shared.open.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Endings {
    /// The endings of the connections of a server with `services` and `rooms`, which
    /// hears those told by the other nodes of its cluster.
    pub(crate) fn new(services: &Services, rooms: Registry) -> Endings {
        let endings = Endings {
            shared: Arc::new(Shared {
                open: Mutex::new(HashMap::new()),
                store: services.store.clone(),
                rooms,
            }),
        };
        let nodes = &services.nodes;
        let (tag, heard) = (nodes.tag(), endings.clone());
        nodes.hear_all(TOPIC, move |news| {
            match serde_json::from_slice::<Told>(&news) {
                Ok(told) if told.from != tag => heard.here(&told.ended),
                Ok(_) => {}
                Err(e) => tracing::warn!("news of an ending that cannot be read: {e}"),
            }
        });
        endings
    }

    /// Ends what `ended` ends, here and on every other node. The database has it
    /// already.
    pub(crate) async fn end(&self, ended: Ended) {
        self.here(&ended);
        let nodes = self.shared.rooms.nodes();
        let told = Told {
            from: nodes.tag(),
            ended,
        };
        let news = serde_json::to_vec(&told).expect("an ending serialises");
        nodes.tell_all(TOPIC, news).await;
    }

    /// Ends what `ended` ends on this node, telling no other: for what each node finds
    /// for itself.
    pub(crate) fn here(&self, ended: &Ended) {
        let mut closed = 0;
        for open in lock(&self.shared).values() {
            if open.ends_with(ended) {
                open.end.send_replace(true);
                closed += 1;
            }
        }
        if closed > 0 {
            tracing::info!(
                connections = closed,
                "closing the connections of an ended session or account"
            );
        }
        if let Ended::Account {
            account,
            deleted_as: Some(name),
        } = ended
        {
            self.shared.rooms.forget(account, name);
        }
    }

    /// Writes down connection `conn`, signed in with `session` to `account` (both or
    /// neither), until its ticket is dropped; then looks whether the session ended
    /// meanwhile (the ticket is then ended already).
    pub(crate) async fn open(
        &self,
        conn: ConnId,
        session: Option<TokenHash>,
        account: Option<AccountId>,
    ) -> Ticket {
        let (end, ended) = watch::channel(false);
        lock(&self.shared).insert(
            conn,
            Open {
                session,
                account,
                seat: None,
                end,
            },
        );
        let ticket = Ticket {
            conn,
            shared: Arc::clone(&self.shared),
            ended,
        };
        if let Some(token) = session {
            // A database that cannot answer leaves the connection open: the upgrade's
            // check found the session a moment ago.
            if let Ok(None) = self.shared.store.session(token, now()).await {
                ticket.end();
            }
        }
        ticket
    }
}

/// A connection written down for its endings; dropped when it closes.
#[derive(Debug)]
pub(crate) struct Ticket {
    /// The connection.
    conn: ConnId,
    /// Where it is written down.
    shared: Arc<Shared>,
    /// Turns true when the connection is to end.
    ended: watch::Receiver<bool>,
}

impl Ticket {
    /// Completes when the connection is to end.
    pub(crate) fn ended(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut ended = self.ended.clone();
        async move {
            // The sender lives as long as the ticket: it cannot be gone while anyone
            // waits, and if it were, nothing would end the connection.
            if ended.wait_for(|&ended| ended).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// The connection is to end now.
    fn end(&self) {
        if let Some(open) = lock(&self.shared).get(&self.conn) {
            open.end.send_replace(true);
        }
    }

    /// The account whose seat the connection joined with a token, if it has one.
    pub(crate) fn seat(&self) -> Option<AccountId> {
        lock(&self.shared)
            .get(&self.conn)
            .and_then(|open| open.seat.clone())
    }

    /// The connection is about to join room `room` with seat token `token`: from now on
    /// it ends with the seat's account. Refused, before it joins, when that account
    /// was banned (`banned`) or deleted (`bad-token`).
    pub(crate) async fn join_seat(&self, room: &str, token: &str) -> Result<(), Refused> {
        let account = seat_account(&self.shared.store, room, token).await?;
        if let Some(open) = lock(&self.shared).get_mut(&self.conn) {
            open.seat = account;
        }
        Ok(())
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        lock(&self.shared).remove(&self.conn);
    }
}

/// The account of the seat of room `room` whose token is `token`, if it has one, so
/// long as the seat may still act; refused when that account was banned (`banned`) or
/// deleted (`bad-token`). A seat belongs to its account, whatever presents its token.
pub(crate) async fn seat_account(
    store: &Store,
    room: &str,
    token: &str,
) -> Result<Option<AccountId>, Refused> {
    let Some(account) = store.seat_account(room, hash_token(token)).await? else {
        return Ok(None);
    };
    match store.account_ended(&account).await? {
        Some((true, _)) => Err(Refused::new(
            ErrorCode::Banned,
            "a moderator banned the account that holds this seat".to_owned(),
        )),
        Some((_, true)) => Err(Refused::new(
            ErrorCode::BadToken,
            "the account that held this seat was deleted".to_owned(),
        )),
        _ => Ok(Some(account)),
    }
}
