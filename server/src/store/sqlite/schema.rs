//! Running the migrations (`store/schema.rs`) on SQLite: `PRAGMA user_version` says how
//! many have run, and it is set in the same transaction as the migrations it counts.

use rusqlite::Connection;

use crate::store::error::StoreError;
use crate::store::schema::{self, SQLITE};

/// Brings the schema of `db` to version `to` (the latest, but for tests of a database
/// left by an older server), in one transaction.
pub(super) fn migrate(db: &mut Connection, to: usize) -> Result<(), StoreError> {
    let tx = db.transaction()?;
    let version: u32 =
        tx.pragma_query_value(None, "user_version", |row| row.get("user_version"))?;
    let pending = schema::pending(usize::try_from(version).unwrap_or(usize::MAX), to, &SQLITE)?;
    let Some(&(last, _)) = pending.last() else {
        return Ok(());
    };
    for (number, sql) in &pending {
        tx.execute_batch(sql)?;
        tracing::info!(version = number, "database schema migrated");
    }
    tx.pragma_update(
        None,
        "user_version",
        u32::try_from(last).expect("few migrations"),
    )?;
    tx.commit()?;
    Ok(())
}
