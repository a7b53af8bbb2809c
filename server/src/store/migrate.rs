//! Copying a SQLite database into an empty PostgreSQL one (`punct-server migrate`), for
//! an operator who outgrows one machine.
//!
//! The rows go table by table, parents before children, with their ids, in one
//! transaction on the target: a copy cut off leaves the target empty, to be run again.
//! Columns are named, not numbered (the two schemas add them in different orders), and
//! each value is given the type PostgreSQL declares: SQLite keeps flags as 0 and 1.

use super::driver::{Conn, Value, corrupt};
use super::error::StoreError;
use super::sqlite::Sqlite;

/// Every table of the schema, each after the tables its foreign keys name.
const TABLES: [&str; 22] = [
    "server_keys",
    "accounts",
    "tournaments",
    "tournament_entries",
    "sign_ins",
    "blocks",
    "puzzles_solved",
    "puzzle_players",
    "puzzle_ratings",
    "puzzle_attempts",
    "sessions",
    "rooms",
    "turns",
    "chat",
    "tournament_pairings",
    "ratings",
    "rated_games",
    "rating_changes",
    "mail_outbox",
    "mail_links",
    "reports",
    "audit_log",
];

/// Most parameters in one `INSERT` (PostgreSQL takes at most 65,535).
const PARAMS_PER_INSERT: usize = 8_192;

/// What a migration copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    /// Tables copied (every table of the schema).
    pub tables: usize,
    /// Rows copied, in all tables.
    pub rows: usize,
    /// Games (rooms) among them, each checked to read back the same.
    pub games: usize,
}

/// A column of the target, as `information_schema` declares it.
struct Column {
    /// Its name.
    name: String,
    /// Its SQL type (`boolean`, `bigint`, `double precision`, …).
    data_type: String,
    /// Whether a sequence numbers it (`BIGSERIAL`): set past the copied ids after.
    serial: bool,
}

/// Copies every row `from` holds into the target `to` (a transaction on an empty
/// PostgreSQL database, whose schema is up to date), then moves its sequences past the
/// ids copied; answers how many rows.
pub(super) async fn copy(from: &Sqlite, to: &dyn Conn) -> Result<usize, StoreError> {
    let sqlite_tables = from
        .call(|db| {
            Box::pin(names(
                db,
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            ))
        })
        .await?;
    same_tables("the SQLite database", sqlite_tables)?;
    let postgres_tables = names(
        to,
        "SELECT table_name::text AS name FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
           AND table_name <> 'punct_schema'",
    )
    .await?;
    same_tables("the PostgreSQL database", postgres_tables)?;
    let held: Vec<String> = TABLES
        .iter()
        .zip(counts(to).await?)
        .filter(|(_, rows)| *rows > 0)
        .map(|(table, rows)| format!("{table} ({rows} rows)"))
        .collect();
    if !held.is_empty() {
        return Err(StoreError::NotCopied(format!(
            "the PostgreSQL database already holds data: {}; migrate only into an empty database",
            held.join(", ")
        )));
    }
    let mut copied = 0;
    for table in TABLES {
        let columns = columns(to, table).await?;
        let names = columns
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let select = format!("SELECT {names} FROM {table}");
        let rows = from
            .call(move |db| Box::pin(async move { db.query(&select, &[]).await }))
            .await?;
        copied += rows.len();
        let per_insert = (PARAMS_PER_INSERT / columns.len()).max(1);
        for chunk in rows.chunks(per_insert) {
            let params = chunk
                .iter()
                .flat_map(|row| columns.iter().map(move |column| (row, column)))
                .map(|(row, column)| typed(row.value(&column.name)?.clone(), column))
                .collect::<Result<Vec<_>, _>>()?;
            to.execute(&insert(table, &names, columns.len(), chunk.len()), &params)
                .await?;
        }
        for column in columns.iter().filter(|c| c.serial) {
            // The next id is past every id copied, as if the rows had been added here.
            let set = format!(
                "SELECT setval(pg_get_serial_sequence($1, $2),
                               COALESCE((SELECT MAX({name}) FROM {table}), 0) + 1, false)
                 AS next_id",
                name = column.name
            );
            to.query(&set, &[table.into(), column.name.as_str().into()])
                .await?;
        }
    }
    Ok(copied)
}

/// How many rows each table of [`TABLES`] holds, in its order.
pub(super) async fn counts(db: &dyn Conn) -> Result<Vec<usize>, StoreError> {
    let mut counts = Vec::with_capacity(TABLES.len());
    for table in TABLES {
        let sql = format!("SELECT COUNT(*) AS held FROM {table}");
        counts.push(db.query_one(&sql, &[]).await?.get("held")?);
    }
    Ok(counts)
}

/// Refuses a copy whose tables hold other numbers of rows (`copied`) than the original's
/// (`counts`), as [`counts`] answers them.
pub(super) fn same_counts(counts: &[usize], copied: &[usize]) -> Result<(), StoreError> {
    let differ: Vec<String> = TABLES
        .iter()
        .zip(counts.iter().zip(copied))
        .filter(|(_, (count, copy))| count != copy)
        .map(|(table, (count, copy))| format!("{table} ({count} rows, {copy} copied)"))
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(StoreError::NotCopied(format!(
            "the copy differs: {}",
            differ.join(", ")
        )))
    }
}

/// Every room's id, in order.
pub(super) async fn rooms(db: &dyn Conn) -> Result<Vec<String>, StoreError> {
    names(db, "SELECT id AS name FROM rooms ORDER BY id").await
}

/// The column `name` of the rows of `sql`, as text.
async fn names(db: &dyn Conn, sql: &str) -> Result<Vec<String>, StoreError> {
    db.query(sql, &[])
        .await?
        .iter()
        .map(|row| row.get("name"))
        .collect()
}

/// Refuses a database (`which`) whose tables are not [`TABLES`]: a table added to the
/// schema but not here would be left behind.
fn same_tables(which: &str, mut tables: Vec<String>) -> Result<(), StoreError> {
    tables.sort();
    let mut known = TABLES.map(str::to_owned).to_vec();
    known.sort();
    if tables == known {
        Ok(())
    } else {
        Err(StoreError::NotCopied(format!(
            "{which} has the tables {tables:?}, not those this server copies ({known:?})"
        )))
    }
}

/// The columns of `table` in the target, in their order.
async fn columns(to: &dyn Conn, table: &str) -> Result<Vec<Column>, StoreError> {
    to.query(
        "SELECT column_name::text AS name, data_type::text AS data_type,
                COALESCE(column_default LIKE 'nextval(%', false) AS serial
         FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1
         ORDER BY ordinal_position",
        &[table.into()],
    )
    .await?
    .iter()
    .map(|row| {
        Ok(Column {
            name: row.get("name")?,
            data_type: row.get("data_type")?,
            serial: row.get("serial")?,
        })
    })
    .collect()
}

/// `INSERT INTO table (names) VALUES (…), (…)` for `rows` rows of `width` columns.
fn insert(table: &str, names: &str, width: usize, rows: usize) -> String {
    let values = (0..rows)
        .map(|row| {
            let params = (1..=width)
                .map(|at| format!("${}", row * width + at))
                .collect::<Vec<_>>()
                .join(", ");
            format!("({params})")
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!("INSERT INTO {table} ({names}) VALUES {values}")
}

/// A value SQLite answered, as `column` of the target takes it: SQLite keeps a flag as
/// the integer 0 or 1, and may answer a whole `REAL` as an integer.
fn typed(value: Value, column: &Column) -> Result<Value, StoreError> {
    Ok(match (value, column.data_type.as_str()) {
        (Value::Int(0), "boolean") => Value::Bool(false),
        (Value::Int(1), "boolean") => Value::Bool(true),
        (Value::Int(n), "boolean") => {
            return Err(corrupt(format!("{n} in the flag {}", column.name)));
        }
        (Value::Int(n), "double precision" | "real") => Value::Real(n as f64),
        (value, _) => value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_rows_go_in_one_insert_with_their_placeholders_in_order() {
        assert_eq!(
            insert("t", "a, b", 2, 2),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"
        );
    }

    #[test]
    fn flags_become_booleans_and_whole_reals_reals() {
        let column = |data_type: &str| Column {
            name: "c".into(),
            data_type: data_type.into(),
            serial: false,
        };
        let flag = column("boolean");
        assert_eq!(typed(Value::Int(1), &flag).unwrap(), Value::Bool(true));
        assert_eq!(typed(Value::Int(0), &flag).unwrap(), Value::Bool(false));
        assert_eq!(typed(Value::Null, &flag).unwrap(), Value::Null);
        assert!(typed(Value::Int(2), &flag).is_err());
        let real = column("double precision");
        assert_eq!(typed(Value::Int(1500), &real).unwrap(), Value::Real(1500.0));
        let big = column("bigint");
        assert_eq!(typed(Value::Int(7), &big).unwrap(), Value::Int(7));
    }
}
