//! Each room's chat and who muted whom, written once for both databases.

use punct_protocol::ChatLine;
use punct_rules::Color;

use super::db::Store;
use super::driver::{Conn, FromRow, Row, corrupt, params};
use super::error::StoreError;
use super::model::{AccountId, sql_ms, text};

impl Store {
    /// Stores a line of `room`'s chat, said by `account`'s player if signed in.
    pub(crate) async fn chat(
        &self,
        room: &str,
        line: &ChatLine,
        account: Option<String>,
    ) -> Result<u64, StoreError> {
        let (room, line) = (room.to_owned(), line.clone());
        self.owned(move |db| {
            Box::pin(async move { chat(db, &room, &line, account.as_deref()).await })
        })
        .await
    }

    /// Every room in which `account` took a seat, oldest first.
    pub(crate) async fn rooms_of(&self, account: &str) -> Result<Vec<String>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { rooms_of(db, &account).await }))
            .await
    }

    /// Every line of chat `account` said, oldest first, each with its room.
    pub(crate) async fn chat_of(
        &self,
        account: &str,
    ) -> Result<Vec<(String, ChatLine)>, StoreError> {
        let account = account.to_owned();
        self.db
            .run(move |db| Box::pin(async move { chat_of(db, &account).await }))
            .await
    }

    /// Records whether `color`'s player in `room` mutes the opponent.
    pub(crate) async fn mute(
        &self,
        room: &str,
        color: Color,
        muted: bool,
    ) -> Result<(), StoreError> {
        let room = room.to_owned();
        self.owned(move |db| Box::pin(async move { mute(db, &room, color, muted).await }))
            .await
    }
}

/// Stores a line of `room`'s chat, said by `account`'s player if signed in; answers
/// its id.
async fn chat(
    db: &dyn Conn,
    room: &str,
    line: &ChatLine,
    account: Option<&str>,
) -> Result<u64, StoreError> {
    let values = params![
        room,
        text(&line.channel),
        line.color.map(|color| text(&color)),
        line.name.as_deref(),
        &line.text,
        sql_ms(line.at),
        account,
    ];
    let rows = db.query(INSERT_CHAT, values).await?;
    let row = rows
        .first()
        .ok_or_else(|| corrupt("no id for a line of chat"))?;
    Ok(u64::try_from(row.get::<i64>("id")?).unwrap_or(0))
}

/// Records whether `color`'s player in `room` mutes the opponent.
async fn mute(db: &dyn Conn, room: &str, color: Color, muted: bool) -> Result<(), StoreError> {
    db.execute(&set_mute_sql(color), params![muted, room])
        .await?;
    Ok(())
}

/// Every room in which `account` took a seat, oldest first.
async fn rooms_of(db: &dyn Conn, account: &str) -> Result<Vec<String>, StoreError> {
    let rows = db.query(ROOMS_OF, params![account]).await?;
    rows.iter().map(|row| row.get("id")).collect()
}

/// Every line of chat `account` said, oldest first, each with its room.
async fn chat_of(db: &dyn Conn, account: &str) -> Result<Vec<(String, ChatLine)>, StoreError> {
    let rows = db.query(CHAT_OF, params![account]).await?;
    rows.iter()
        .map(|row| Ok((row.get("room")?, ChatLine::from_row(row)?)))
        .collect()
}

/// A line of chat read from its columns: channel, colour, name, text, when (`at`), its
/// id, whether removed.
impl FromRow for ChatLine {
    fn from_row(row: &Row) -> Result<ChatLine, StoreError> {
        Ok(ChatLine {
            channel: row.stored("channel")?,
            color: row.stored_opt("color")?,
            name: row.get("name")?,
            text: row.get("text")?,
            at: u64::try_from(row.get::<i64>("at")?).unwrap_or(0),
            line: u64::try_from(row.get::<i64>("id")?).ok(),
            removed: row.get("removed")?,
        })
    }
}

/// `room`'s last lines of chat, oldest first, each with its speaker's account.
pub(super) async fn room_chat(
    db: &dyn Conn,
    room: &str,
) -> Result<Vec<(ChatLine, Option<AccountId>)>, StoreError> {
    let mut lines = db
        .query(ROOM_CHAT, params![room])
        .await?
        .iter()
        .map(|row| Ok((ChatLine::from_row(row)?, row.get("account")?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    lines.reverse();
    Ok(lines)
}

/// A line of room `$1`'s chat: channel, the speaker's colour and name, text, when, the
/// speaker's account. Answers the line's id.
const INSERT_CHAT: &str = "INSERT INTO chat (room, channel, color, name, text, at, account)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

/// Room `$1`'s last hundred lines of chat, newest first: channel, colour, name, text
/// (empty once removed), when, id, removed, the speaker's account.
const ROOM_CHAT: &str =
    "SELECT channel, color, name, CASE WHEN removed THEN '' ELSE text END AS text, at, id,
            removed, account
     FROM chat WHERE room = $1 ORDER BY id DESC LIMIT 100";

/// Records whether `color`'s player mutes the opponent (`$1`) in room `$2`.
fn set_mute_sql(color: punct_rules::Color) -> String {
    format!("UPDATE rooms SET {color}_mutes = $1 WHERE id = $2")
}

/// Every room in which account `$1` took a seat, oldest first.
const ROOMS_OF: &str = "SELECT id FROM rooms WHERE white_account = $1 OR black_account = $1
     ORDER BY created_at, id";

/// Account `$1`'s lines of chat, oldest first: room, channel, colour, name, text, when,
/// id, removed.
const CHAT_OF: &str = "SELECT room, channel, color, name, text, at, id, removed FROM chat
     WHERE account = $1 ORDER BY id";
