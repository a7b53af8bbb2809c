//! Rooms' chat in SQLite.

use punct_protocol::ChatLine;
use punct_rules::Color;
use rusqlite::{Connection, params};

use super::Sqlite;
use super::queries::stored;
use crate::store::model::{sql_ms, text};
use crate::store::{StoreError, sql};

impl Sqlite {
    /// Stores a line of `room`'s chat.
    pub(crate) async fn chat(&self, room: &str, line: &ChatLine) -> Result<(), StoreError> {
        let (room, line) = (room.to_owned(), line.clone());
        self.call(move |db| {
            db.execute(
                sql::INSERT_CHAT,
                params![
                    room,
                    text(&line.channel),
                    line.color.map(|color| text(&color)),
                    line.name,
                    line.text,
                    sql_ms(line.at)
                ],
            )?;
            Ok(())
        })
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
        self.call(move |db| {
            db.execute(&sql::set_mute(color), params![muted, room])?;
            Ok(())
        })
        .await
    }
}

/// Whether `room`'s White and Black muted their opponent.
pub(super) fn room_mutes(db: &Connection, room: &str) -> rusqlite::Result<[bool; 2]> {
    db.prepare_cached(sql::ROOM_MUTES)?
        .query_row(params![room], |row| Ok([row.get(0)?, row.get(1)?]))
}

/// `room`'s last lines of chat, oldest first.
pub(super) fn room_chat(db: &Connection, room: &str) -> rusqlite::Result<Vec<ChatLine>> {
    let mut lines = db
        .prepare_cached(sql::ROOM_CHAT)?
        .query_map(params![room], |row| {
            Ok(ChatLine {
                channel: stored(&row.get::<_, String>(0)?)?,
                color: row
                    .get::<_, Option<String>>(1)?
                    .map(|color| stored(&color))
                    .transpose()?,
                name: row.get(2)?,
                text: row.get(3)?,
                at: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    lines.reverse();
    Ok(lines)
}
