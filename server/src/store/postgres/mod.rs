//! PostgreSQL, for a cluster of servers sharing one database, and its driver.
//!
//! Connections come from a pool. Reads, loads, accounts and chat take one for their
//! statements (each commits alone); rating takes one for a transaction of its own, under
//! an advisory lock every node takes, so that games are rated one at a time across the
//! cluster.
//!
//! A room's writes go to the writer, a task that takes whatever writes are waiting, runs
//! them in one transaction on one connection (their statements sent back to back, not
//! one round trip each) and answers them all once it is committed: a group commit, as
//! SQLite's thread does. Should one of them fail, the transaction is rolled back and
//! each write is tried alone, so one bad write undoes only itself.
//!
//! A connection, once lost, is dropped by the pool and made again at the next request
//! (the writer waits a moment between tries); requests meanwhile fail with a storage
//! error and change nothing.

mod schema;
#[cfg(test)]
mod tests;

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod};
use futures_util::future::join_all;
use prometheus_client::metrics::histogram::Histogram;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Config, NoTls};

use super::driver::{Answer, ColumnNames, Conn, Grouped, Row, Value};
use super::error::StoreError;

/// Most writes in one transaction.
const MAX_BATCH: usize = 512;

/// Most connections a node holds: the writer's, and reads and ratings beside it. (A
/// cluster of N nodes holds up to N times this many of the server's `max_connections`.)
const POOL_SIZE: usize = 16;

/// The wait between two tries to connect.
const RECONNECT_WAIT: Duration = Duration::from_millis(500);

/// How long opening a connection's socket may take (unless the URL says
/// `connect_timeout`): a request needing a new connection to a database cut off fails,
/// a storage error, rather than waiting for TCP to give up on the handshake, minutes
/// later.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The advisory lock rating runs under: `rating` in ASCII.
const RATING_LOCK: i64 = 0x7261_7469_6e67;

/// A write, and where its answer goes.
type Queued = (Box<dyn Grouped>, oneshot::Sender<Result<usize, StoreError>>);

/// A cheap handle on the database.
#[derive(Clone, Debug)]
pub(crate) struct Postgres {
    /// Where writes go, each with where its answer goes.
    writes: mpsc::UnboundedSender<Queued>,
    /// The connections everything but the writes use.
    pool: Pool,
}

impl Postgres {
    /// Connects to the database at `url` (`postgres://…`), brings its schema up to date
    /// and starts the writer, which times each commit into `commits`.
    pub(crate) async fn open(url: &str, commits: Histogram) -> Result<Postgres, StoreError> {
        let mut config: Config = url.parse()?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection is checked (is it closed?) as it is taken, not with a query.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .build()
            .map_err(|e| StoreError::Pool(Box::new(e)))?;
        let mut client = pool.get().await?;
        schema::migrate(&mut client).await?;
        drop(client);
        let (writes, inbox) = mpsc::unbounded_channel();
        tokio::spawn(write(pool.clone(), inbox, commits));
        Ok(Postgres { writes, pool })
    }

    /// Runs `write` in the next transaction; answers once that is committed.
    pub(super) async fn write(&self, write: Box<dyn Grouped>) -> Result<usize, StoreError> {
        let (answer, answered) = oneshot::channel();
        self.writes
            .send((write, answer))
            .map_err(|_| StoreError::Stopped)?;
        answered.await.map_err(|_| StoreError::Stopped)?
    }

    /// Runs `work` on a connection of the pool, each statement committing alone.
    pub(super) async fn call<T>(
        &self,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T>,
    ) -> Result<T, StoreError> {
        let client = self.pool.get().await?;
        work(&client).await
    }

    /// Runs `work` in a transaction of its own; with `rating_lock`, one that holds the
    /// rating lock: no other node rates meanwhile.
    pub(super) async fn transaction<T>(
        &self,
        rating_lock: bool,
        work: impl for<'a> FnOnce(&'a dyn Conn) -> Answer<'a, T>,
    ) -> Result<T, StoreError> {
        let mut client = self.pool.get().await?;
        // Dropped before its commit (an error, or a caller gone), it is rolled back.
        let tx = client.transaction().await?;
        if rating_lock {
            GenericClient::execute(&tx, "SELECT pg_advisory_xact_lock($1)", &[&RATING_LOCK])
                .await?;
        }
        let done = work(&tx).await?;
        tx.commit().await?;
        Ok(done)
    }
}

/// The writer: commits whatever writes are waiting in one transaction, then answers them.
async fn write(pool: Pool, mut inbox: mpsc::UnboundedReceiver<Queued>, commits: Histogram) {
    while let Some(first) = inbox.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match inbox.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let (writes, answers): (Vec<Box<dyn Grouped>>, Vec<_>) = batch.into_iter().unzip();
        let mut client = match pool.get().await {
            Ok(client) => client,
            Err(e) => {
                let down: Arc<dyn Error + Send + Sync> = Arc::new(e);
                for answer in answers {
                    let _ = answer.send(Err(StoreError::Commit(Arc::clone(&down))));
                }
                tokio::time::sleep(RECONNECT_WAIT).await;
                continue;
            }
        };
        let started = std::time::Instant::now();
        let results = commit(&mut client, &writes).await;
        commits.observe(started.elapsed().as_secs_f64());
        for (answer, result) in answers.into_iter().zip(results) {
            let _ = answer.send(result);
        }
    }
}

/// Runs `writes` in one transaction; answers each write's result. If any fails, the
/// transaction is rolled back and each is run alone, so that one undoes only itself.
async fn commit(
    client: &mut deadpool_postgres::Client,
    writes: &[Box<dyn Grouped>],
) -> Vec<Result<usize, StoreError>> {
    if let Ok(results) = together(client, writes).await {
        return results;
    }
    let mut results = Vec::with_capacity(writes.len());
    for write in writes {
        let alone = together(client, std::slice::from_ref(write)).await;
        results.push(alone.map_or_else(Err, |mut one| one.remove(0)));
    }
    results
}

/// Runs `writes` in one transaction. Fails (and rolls back) if a statement failed or the
/// commit did; a write refused as fenced is its own answer, and fails nothing else.
async fn together(
    client: &mut deadpool_postgres::Client,
    writes: &[Box<dyn Grouped>],
) -> Result<Vec<Result<usize, StoreError>>, StoreError> {
    let tx = client.transaction().await?;
    // Polled together, the writes' statements go out back to back on the connection.
    let mut results = join_all(writes.iter().map(|write| write.run(&tx))).await;
    if let Some(failed) = results
        .iter()
        .position(|r| r.as_ref().is_err_and(|e| !matches!(e, StoreError::Fenced)))
    {
        tx.rollback().await?;
        let failure = results.swap_remove(failed);
        return Err(failure.expect_err("the write found to have failed"));
    }
    match tx.commit().await {
        Ok(()) => Ok(results),
        Err(e) => Err(StoreError::Commit(Arc::new(e))),
    }
}

/// Runs `sql` on `client` (a pooled connection or a transaction on one), its statement
/// prepared once per connection.
async fn execute(
    client: &impl GenericClient,
    sql: &str,
    params: &[Value],
) -> Result<u64, StoreError> {
    let statement = client.prepare_cached(sql).await?;
    Ok(client.execute_raw(&statement, params).await?)
}

/// Answers the rows of `sql` on `client`, as [`execute`] runs it.
async fn query(
    client: &impl GenericClient,
    sql: &str,
    params: &[Value],
) -> Result<Vec<Row>, StoreError> {
    let statement = client.prepare_cached(sql).await?;
    let rows = client.query(&statement, &as_params(params)).await?;
    let names: ColumnNames = statement
        .columns()
        .iter()
        .map(|column| Box::from(column.name()))
        .collect();
    rows.iter()
        .map(|row| {
            let values = (0..names.len())
                .map(|at| row.try_get::<_, Value>(at))
                .collect::<Result<_, _>>()?;
            Ok(Row::new(Arc::clone(&names), values))
        })
        .collect()
}

/// `params` as tokio-postgres takes them.
fn as_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|value| value as _).collect()
}

/// Implements [`Conn`] for a pooled connection and for a transaction on one alike.
macro_rules! conn {
    ($($client:ty),*) => {$(
        impl Conn for $client {
            fn execute<'a>(
                &'a self,
                sql: &'a str,
                params: &'a [Value],
            ) -> Answer<'a, u64> {
                Box::pin(execute(self, sql, params))
            }

            fn query<'a>(
                &'a self,
                sql: &'a str,
                params: &'a [Value],
            ) -> Answer<'a, Vec<Row>> {
                Box::pin(query(self, sql, params))
            }
        }
    )*};
}

conn!(
    deadpool_postgres::Client,
    deadpool_postgres::Transaction<'_>
);

/// A value goes into a column of whatever width or kind it is declared: an integer into
/// `SMALLINT`, `INTEGER` or `BIGINT` (refused if it does not fit), a number into `REAL`
/// or `DOUBLE PRECISION`. A value of another kind than its column's is refused.
impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(n) => match *ty {
                Type::INT2 => checked(i16::try_from(*n)?, ty, out),
                Type::INT4 => checked(i32::try_from(*n)?, ty, out),
                _ => checked(*n, ty, out),
            },
            Value::Real(x) if *ty == Type::FLOAT4 => checked(*x as f32, ty, out),
            Value::Real(x) => checked(*x, ty, out),
            Value::Text(s) => checked(s.as_str(), ty, out),
            Value::Bytes(b) => checked(b.as_slice(), ty, out),
            Value::Bool(b) => checked(*b, ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Which Rust type writes the column is chosen from it, in `to_sql`.
        true
    }

    to_sql_checked!();
}

/// Writes `value` into a column of type `ty`, if its type is one that column takes.
fn checked<T: ToSql>(
    value: T,
    ty: &Type,
    out: &mut BytesMut,
) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
    if T::accepts(ty) {
        value.to_sql(ty, out)
    } else {
        Err(format!("a {} for a column of type {ty}", std::any::type_name::<T>()).into())
    }
}

/// A column is read by its declared type.
impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, Box<dyn Error + Sync + Send>> {
        Ok(match *ty {
            Type::BOOL => Value::Bool(bool::from_sql(ty, raw)?),
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::BYTEA => Value::Bytes(<&[u8]>::from_sql(ty, raw)?.to_vec()),
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                Value::Text(<&str>::from_sql(ty, raw)?.to_owned())
            }
            _ => return Err(format!("a column of type {ty}, which the store never reads").into()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Value, Box<dyn Error + Sync + Send>> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}
