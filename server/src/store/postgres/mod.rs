//! PostgreSQL, for a cluster of servers sharing one database.
//!
//! Two connections. The writer is a task that owns one: it takes whatever writes are
//! waiting, runs them in one transaction (their statements sent back to back, not one
//! round trip each) and answers them all once it is committed: a group commit, as
//! SQLite's thread does. Should one of them fail, the transaction is rolled back and
//! each write is tried alone, so one bad write undoes only itself. The reader serves
//! reads (and loads, which are one statement each) without a transaction.
//!
//! Either connection, once lost, is made again at the next request (with a short wait
//! between tries); requests meanwhile fail with a storage error and change nothing.

mod accounts;
mod chat;
mod queries;
mod ratings;
mod schema;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::histogram::Histogram;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio_postgres::{Client, Config, NoTls};

pub(crate) use queries::Write;

use super::StoreError;
use queries::Written;

/// Most writes in one transaction.
const MAX_BATCH: usize = 512;

/// The wait between two tries to connect.
const RECONNECT_WAIT: Duration = Duration::from_millis(500);

/// A cheap handle on the database.
#[derive(Clone, Debug)]
pub(crate) struct Postgres {
    /// Where writes go, each with where its answer goes.
    writes: mpsc::UnboundedSender<(Write, oneshot::Sender<Result<Written, StoreError>>)>,
    /// The connection reads use.
    reader: Arc<Reader>,
}

/// The reading connection, made again when lost.
#[derive(Debug)]
struct Reader {
    /// How to connect.
    pub(super) config: Config,
    /// The connection now, if it is up.
    client: Mutex<Option<Arc<Client>>>,
}

impl Postgres {
    /// Connects to the database at `url` (`postgres://…`), brings its schema up to date
    /// and starts the writer, which times each commit into `commits`.
    pub(crate) async fn open(url: &str, commits: Histogram) -> Result<Postgres, StoreError> {
        let config: Config = url.parse()?;
        let mut client = connect(&config).await?;
        schema::migrate(&mut client).await?;
        let (writes, inbox) = mpsc::unbounded_channel();
        tokio::spawn(write(config.clone(), client, inbox, commits));
        let reader = Arc::new(Reader {
            client: Mutex::new(Some(Arc::new(connect(&config).await?))),
            config,
        });
        Ok(Postgres { writes, reader })
    }

    /// Runs `write` in the next transaction; answers once that is committed.
    async fn write(&self, write: Write) -> Result<Written, StoreError> {
        let (answer, answered) = oneshot::channel();
        self.writes
            .send((write, answer))
            .map_err(|_| StoreError::Stopped)?;
        answered.await.map_err(|_| StoreError::Stopped)?
    }

    /// The reading connection, made again if it was lost.
    async fn reader(&self) -> Result<Arc<Client>, StoreError> {
        let mut client = self.reader.client.lock().await;
        if let Some(up) = client.as_ref().filter(|c| !c.is_closed()) {
            return Ok(Arc::clone(up));
        }
        *client = None;
        let up = Arc::new(connect(&self.reader.config).await?);
        *client = Some(Arc::clone(&up));
        Ok(up)
    }

    /// Answers once the database has run a query.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.reader().await?.execute("SELECT 1", &[]).await?;
        Ok(())
    }
}

/// A connection to the database, its messages handled by a task of its own.
pub(super) async fn connect(config: &Config) -> Result<Client, StoreError> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!("database connection lost: {e}");
        }
    });
    Ok(client)
}

/// The writer: commits whatever writes are waiting in one transaction, then answers them.
async fn write(
    config: Config,
    client: Client,
    mut inbox: mpsc::UnboundedReceiver<(Write, oneshot::Sender<Result<Written, StoreError>>)>,
    commits: Histogram,
) {
    let mut client = Some(client);
    while let Some(first) = inbox.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match inbox.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let (writes, answers): (Vec<Write>, Vec<_>) = batch.into_iter().unzip();
        if client.as_ref().is_none_or(Client::is_closed) {
            client = match connect(&config).await {
                Ok(up) => Some(up),
                Err(e) => {
                    let down: Arc<dyn std::error::Error + Send + Sync> = Arc::new(e);
                    for answer in answers {
                        let _ = answer.send(Err(StoreError::Commit(Arc::clone(&down))));
                    }
                    tokio::time::sleep(RECONNECT_WAIT).await;
                    continue;
                }
            };
        }
        let up = client.as_mut().expect("connected above");
        let started = std::time::Instant::now();
        let results = queries::commit(up, &writes).await;
        commits.observe(started.elapsed().as_secs_f64());
        for (answer, result) in answers.into_iter().zip(results) {
            let _ = answer.send(result);
        }
    }
}
