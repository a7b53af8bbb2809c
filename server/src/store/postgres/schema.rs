//! Running the migrations (`store/schema.rs`) on PostgreSQL: a one-row table says how
//! many have run. They run in one transaction, under an advisory lock, so that nodes
//! starting together migrate once.

use tokio_postgres::Client;

use crate::store::error::StoreError;
use crate::store::schema::{self, LATEST, POSTGRES};

/// The advisory lock the migrations run under: `punct` in ASCII.
const LOCK: i64 = 0x0070_756e_6374;

/// How many migrations the first of PostgreSQL's own list stood for. Until both
/// databases shared one list, PostgreSQL's began with a single migration that made what
/// SQLite's first five do, and counted its versions from there; such a database says
/// so by an empty `numbering`.
const FIRST_OF_ITS_OWN: usize = 5;

/// Brings the schema of the database `client` is connected to up to date.
pub(super) async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS punct_schema (version INTEGER NOT NULL);
         ALTER TABLE punct_schema ADD COLUMN IF NOT EXISTS numbering TEXT;",
    )
    .await?;
    let version = tx
        .query_opt("SELECT version, numbering FROM punct_schema", &[])
        .await?
        .map_or(0, |row| {
            shared_version(row.get("version"), row.get("numbering"))
        });
    for (number, sql) in schema::pending(version, LATEST, &POSTGRES)? {
        tx.batch_execute(&sql).await?;
        tracing::info!(version = number, "database schema migrated");
    }
    let latest = i32::try_from(LATEST).expect("few migrations");
    tx.execute("DELETE FROM punct_schema", &[]).await?;
    tx.execute(
        "INSERT INTO punct_schema (version, numbering) VALUES ($1, 'shared')",
        &[&latest],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The version, in the shared list's numbers, of a database whose table holds
/// `version` and `numbering`.
fn shared_version(version: i32, numbering: Option<String>) -> usize {
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    match numbering {
        None if version > 0 => version.saturating_add(FIRST_OF_ITS_OWN - 1),
        _ => version,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_counted_in_postgresqls_own_list_is_read_in_the_shared_one() {
        assert_eq!(shared_version(0, None), 0);
        // The first of its own was the shared list's first five.
        assert_eq!(shared_version(1, None), 5);
        // The last server with a list of its own left 13, which is 17.
        assert_eq!(shared_version(13, None), 17);
        assert_eq!(shared_version(17, Some("shared".into())), 17);
        // Newer than any server: still newer, and refused.
        assert!(shared_version(999, None) > LATEST);
        assert_eq!(shared_version(-1, None), usize::MAX);
    }
}
