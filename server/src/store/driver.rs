//! The seam between the queries and the databases: a connection that runs a statement or
//! answers rows ([`Conn`]), with parameters and columns as one small [`Value`] type.
//!
//! Every query is written once, against `&dyn Conn`; each database implements `Conn`
//! (`sqlite/`, `postgres/`). Statements are written in PostgreSQL's SQL, which SQLite
//! also reads but for two spellings its driver rewrites: placeholders (`$1`) and row
//! locks (`FOR SHARE`, `FOR UPDATE`).
//!
//! The futures are boxed so that `Conn` is object-safe. SQLite's are ready when made
//! (each statement runs when it is called), so its thread finishes a query in one poll.

use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::error::StoreError;
use super::model::from_text;
use crate::secret::TokenHash;

/// What a connection, or work on one, answers in time.
pub(super) type Answer<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

/// A parameter of a statement, or a column of a row.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    /// SQL's `NULL`.
    Null,
    /// An integer, whatever its width in the database.
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes (a token's hash).
    Bytes(Vec<u8>),
    /// A boolean (an integer, 0 or 1, in SQLite).
    Bool(bool),
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Int(n.into())
    }
}

impl From<u8> for Value {
    fn from(n: u8) -> Value {
        Value::Int(n.into())
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Real(x)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_owned())
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::Text(s.clone())
    }
}

impl From<TokenHash> for Value {
    fn from(hash: TokenHash) -> Value {
        Value::Bytes(hash.to_vec())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}

/// The parameters of a statement, each converted to a [`Value`].
macro_rules! params {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::driver::Value::from($value)),*]
    };
}
pub(super) use params;

/// The names of a query's columns, in their order: made once per query and shared by
/// each of its rows, so that a row costs no allocation for them.
pub(super) type ColumnNames = Arc<[Box<str>]>;

/// A row as the database answered it, its values read by their columns' names: the SQL
/// that lists them may change their order, or add some, without changing what is read.
#[derive(Debug)]
pub(super) struct Row {
    /// The names of the columns, shared with the other rows of the query.
    names: ColumnNames,
    /// The values, in the order of `names`.
    values: Vec<Value>,
}

impl Row {
    /// A row of `values`, the columns of a query named by `names`.
    pub(super) fn new(names: ColumnNames, values: Vec<Value>) -> Row {
        Row { names, values }
    }

    /// The value of column `name`. A row without one, or with two (a join listing two
    /// `id`s, neither renamed), is a fault of the query: which value was meant, only
    /// its SQL could say.
    pub(super) fn value(&self, name: &str) -> Result<&Value, StoreError> {
        let mut named = self
            .names
            .iter()
            .zip(&self.values)
            .filter(|(column, _)| ***column == *name);
        match (named.next(), named.next()) {
            (Some((_, value)), None) => Ok(value),
            (None, _) => Err(corrupt(format!("the row has no column named {name}"))),
            (Some(_), Some(_)) => Err(corrupt(format!("the row has several columns named {name}"))),
        }
    }

    /// Column `name`, read as a `T`; a value of another type is a corrupt database.
    pub(super) fn get<T: Column>(&self, name: &str) -> Result<T, StoreError> {
        let value = self.value(name)?;
        T::read(value).ok_or_else(|| {
            corrupt(format!(
                "column {name} holds {value:?}, not {}",
                std::any::type_name::<T>()
            ))
        })
    }

    /// Column `name`, a value written by `model::text` (a colour, a variant, an outcome).
    pub(super) fn stored<T: serde::de::DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<T, StoreError> {
        let text: String = self.get(name)?;
        from_text(&text).map_err(|e| StoreError::Corrupt(Box::new(e)))
    }

    /// Column `name` as [`Row::stored`] reads it, or `None` for `NULL`.
    pub(super) fn stored_opt<T: serde::de::DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<Option<T>, StoreError> {
        let text: Option<String> = self.get(name)?;
        text.map(|text| from_text(&text))
            .transpose()
            .map_err(|e| StoreError::Corrupt(Box::new(e)))
    }
}

/// A model read from a row by its columns' names: written once for every query that
/// answers it, whatever order each lists the columns in.
pub(super) trait FromRow: Sized {
    /// The model that `row` holds.
    fn from_row(row: &Row) -> Result<Self, StoreError>;
}

/// A stored value that does not read back: the database was changed by hand or damaged.
pub(super) fn corrupt(why: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StoreError {
    StoreError::Corrupt(why.into())
}

/// A Rust type a column reads as.
pub(super) trait Column: Sized {
    /// The value as this type, if it is one.
    fn read(value: &Value) -> Option<Self>;
}

impl Column for i64 {
    fn read(value: &Value) -> Option<i64> {
        match value {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }
}

impl Column for u32 {
    fn read(value: &Value) -> Option<u32> {
        u32::try_from(i64::read(value)?).ok()
    }
}

impl Column for u8 {
    fn read(value: &Value) -> Option<u8> {
        u8::try_from(i64::read(value)?).ok()
    }
}

/// A count of rows (`COUNT(*)`).
impl Column for usize {
    fn read(value: &Value) -> Option<usize> {
        usize::try_from(i64::read(value)?).ok()
    }
}

impl Column for f64 {
    fn read(value: &Value) -> Option<f64> {
        match value {
            Value::Real(x) => Some(*x),
            // A whole number may come back as an integer (ratings are far below 2^53).
            Value::Int(n) => Some(*n as f64),
            _ => None,
        }
    }
}

impl Column for bool {
    fn read(value: &Value) -> Option<bool> {
        match value {
            Value::Bool(b) => Some(*b),
            Value::Int(0) => Some(false),
            Value::Int(1) => Some(true),
            _ => None,
        }
    }
}

impl Column for String {
    fn read(value: &Value) -> Option<String> {
        match value {
            Value::Text(s) => Some(s.clone()),
            _ => None,
        }
    }
}

impl Column for TokenHash {
    fn read(value: &Value) -> Option<TokenHash> {
        match value {
            Value::Bytes(bytes) => TokenHash::try_from(bytes.as_slice()).ok(),
            _ => None,
        }
    }
}

impl<T: Column> Column for Option<T> {
    fn read(value: &Value) -> Option<Option<T>> {
        match value {
            Value::Null => Some(None),
            other => T::read(other).map(Some),
        }
    }
}

/// A write made in a group commit, beside others (a room's: `rooms::Write`). It may run
/// twice, in the group's transaction and, if that fails, alone, so it runs by
/// reference. It answers how many rows it changed.
pub(super) trait Grouped: Send + Sync {
    /// Makes the change on `db`, inside the open transaction.
    fn run<'a>(&'a self, db: &'a dyn Conn) -> Answer<'a, usize>;
}

/// A connection (or a transaction on one) that the queries run on.
pub(super) trait Conn: Send + Sync {
    /// Runs `sql` with `params`; answers how many rows it changed.
    fn execute<'a>(&'a self, sql: &'a str, params: &'a [Value]) -> Answer<'a, u64>;

    /// Runs `sql` with `params`; answers the rows it returned.
    fn query<'a>(&'a self, sql: &'a str, params: &'a [Value]) -> Answer<'a, Vec<Row>>;
}

impl dyn Conn + '_ {
    /// The first row `sql` returns, if any.
    pub(super) async fn query_opt(
        &self,
        sql: &str,
        params: &[Value],
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params).await?.into_iter().next())
    }

    /// The row `sql` returns; none is a corrupt database.
    pub(super) async fn query_one(&self, sql: &str, params: &[Value]) -> Result<Row, StoreError> {
        self.query_opt(sql, params)
            .await?
            .ok_or_else(|| corrupt(format!("no row where one is kept: {sql}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `columns`, each a name and its value.
    fn row(columns: Vec<(&str, Value)>) -> Row {
        let (names, values): (Vec<&str>, Vec<Value>) = columns.into_iter().unzip();
        Row::new(names.into_iter().map(Box::from).collect(), values)
    }

    #[test]
    fn columns_read_their_own_type_and_refuse_others() {
        let row = row(vec![
            ("one", Value::Int(1)),
            ("nothing", Value::Null),
            ("color", Value::Text("white".into())),
            ("many", Value::Int(300)),
            ("hash", Value::Bytes(vec![7; 32])),
        ]);
        assert!(row.get::<bool>("one").unwrap());
        assert_eq!(row.get::<f64>("one").unwrap(), 1.0);
        assert_eq!(row.get::<Option<i64>>("nothing").unwrap(), None);
        assert_eq!(
            row.stored::<punct_rules::Color>("color").unwrap(),
            punct_rules::Color::White
        );
        assert_eq!(
            row.stored_opt::<punct_rules::Color>("nothing").unwrap(),
            None
        );
        assert_eq!(row.get::<TokenHash>("hash").unwrap(), [7; 32]);
        assert!(matches!(row.get::<u8>("many"), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            row.get::<String>("one"),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            row.get::<bool>("many"),
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn a_column_the_row_lacks_is_an_error_that_names_it() {
        let row = row(vec![("id", Value::Text("a".into()))]);
        let missing = row.get::<String>("username").unwrap_err();
        assert!(matches!(missing, StoreError::Corrupt(_)), "{missing}");
        assert!(missing.to_string().contains("username"), "{missing}");
        let missing = row.stored_opt::<punct_rules::Color>("color").unwrap_err();
        assert!(missing.to_string().contains("color"), "{missing}");
    }

    #[test]
    fn a_name_two_columns_share_is_refused_rather_than_read_from_either() {
        let row = row(vec![
            ("id", Value::Text("mail".into())),
            ("id", Value::Text("account".into())),
        ]);
        let ambiguous = row.get::<String>("id").unwrap_err();
        assert!(
            ambiguous.to_string().contains("several columns named id"),
            "{ambiguous}"
        );
    }
}
