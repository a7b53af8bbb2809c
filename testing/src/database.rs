//! The database a test's servers keep their rooms in: a SQLite file in a temporary
//! directory, or, with `PUNCT_TEST_DATABASE=postgres`, a fresh database on a PostgreSQL
//! server the tests start ([`Postgres`]). The same tests run on both.

use std::path::PathBuf;

use crate::Postgres;

/// Whether this run puts the tests' rooms in PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var("PUNCT_TEST_DATABASE").is_ok_and(|db| db == "postgres")
}

/// One test's database, empty at first.
pub enum Database {
    /// A SQLite file, removed with its directory when dropped.
    Sqlite {
        /// The directory that holds the file.
        _dir: tempfile::TempDir,
        /// The file.
        path: PathBuf,
    },
    /// A database of its own on the shared PostgreSQL server.
    Postgres(String),
}

impl Database {
    /// A new, empty database of the kind this run tests.
    #[allow(
        clippy::new_without_default,
        reason = "each call makes a database (a file, or one on the server): not a default value"
    )]
    pub fn new() -> Database {
        if on_postgres() {
            Database::postgres()
        } else {
            Database::sqlite()
        }
    }

    /// A new, empty SQLite file, whatever this run tests (the one a migration copies).
    pub fn sqlite() -> Database {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        Database::Sqlite { _dir: dir, path }
    }

    /// A new, empty PostgreSQL database, whatever this run tests (a cluster needs one).
    pub fn postgres() -> Database {
        Database::Postgres(Postgres::shared().database())
    }

    /// What `--database` (or `Config::database`) names it by.
    pub fn url(&self) -> String {
        match self {
            Database::Sqlite { path, .. } => path.display().to_string(),
            Database::Postgres(url) => url.clone(),
        }
    }

    /// Runs `sql` straight on the database, past any server; answers each row's columns
    /// as text (`None` for NULL).
    pub async fn query(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        match self {
            Database::Sqlite { path, .. } => {
                let db = rusqlite::Connection::open(path).unwrap();
                let mut statement = db.prepare(sql).unwrap();
                let columns = statement.column_count();
                statement
                    .query_map([], |row| {
                        (0..columns)
                            .map(|i| {
                                let value: rusqlite::types::Value = row.get(i)?;
                                Ok(match value {
                                    rusqlite::types::Value::Null => None,
                                    rusqlite::types::Value::Integer(n) => Some(n.to_string()),
                                    rusqlite::types::Value::Real(x) => Some(x.to_string()),
                                    rusqlite::types::Value::Text(text) => Some(text),
                                    rusqlite::types::Value::Blob(_) => Some("<blob>".into()),
                                })
                            })
                            .collect()
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
            Database::Postgres(url) => {
                let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                let connection = tokio::spawn(connection);
                // The simple protocol answers every value as text, whatever its type.
                let rows = client
                    .simple_query(sql)
                    .await
                    .unwrap()
                    .into_iter()
                    .filter_map(|message| match message {
                        tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                            (0..row.len())
                                .map(|i| row.get(i).map(str::to_owned))
                                .collect(),
                        ),
                        _ => None,
                    })
                    .collect();
                drop(client);
                connection.await.unwrap().unwrap();
                rows
            }
        }
    }
}
