//! Rooms' chat in PostgreSQL: one statement each, on the reading connection (a line is
//! not part of the game, and needs no room fence).

use punct_protocol::ChatLine;
use punct_rules::Color;
use tokio_postgres::GenericClient;

use super::Postgres;
use super::queries::stored;
use crate::store::model::{sql_ms, text};
use crate::store::{StoreError, sql};

impl Postgres {
    /// Stores a line of `room`'s chat.
    pub(crate) async fn chat(&self, room: &str, line: &ChatLine) -> Result<(), StoreError> {
        let db = self.reader().await?;
        db.execute(
            sql::INSERT_CHAT,
            &[
                &room,
                &text(&line.channel),
                &line.color.map(|color| text(&color)),
                &line.name,
                &line.text,
                &sql_ms(line.at),
            ],
        )
        .await?;
        Ok(())
    }

    /// Records whether `color`'s player in `room` mutes the opponent.
    pub(crate) async fn mute(
        &self,
        room: &str,
        color: Color,
        muted: bool,
    ) -> Result<(), StoreError> {
        let db = self.reader().await?;
        db.execute(&sql::set_mute(color), &[&muted, &room]).await?;
        Ok(())
    }
}

/// Whether `room`'s White and Black muted their opponent.
pub(super) async fn room_mutes(
    db: &impl GenericClient,
    room: &str,
) -> Result<[bool; 2], StoreError> {
    let row = db.query_one(sql::ROOM_MUTES, &[&room]).await?;
    Ok([row.get(0), row.get(1)])
}

/// `room`'s last lines of chat, oldest first.
pub(super) async fn room_chat(
    db: &impl GenericClient,
    room: &str,
) -> Result<Vec<ChatLine>, StoreError> {
    let mut lines = db
        .query(sql::ROOM_CHAT, &[&room])
        .await?
        .iter()
        .map(|row| {
            Ok(ChatLine {
                channel: stored(row.get(0))?,
                color: row.get::<_, Option<&str>>(1).map(stored).transpose()?,
                name: row.get(2),
                text: row.get(3),
                at: u64::try_from(row.get::<_, i64>(4)).unwrap_or(0),
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    lines.reverse();
    Ok(lines)
}
