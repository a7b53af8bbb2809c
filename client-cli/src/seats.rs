//! The seat file: the seat tokens this user holds, so that a player can come back to a
//! game after closing the program.
//!
//! A JSON array of `{"server","room","color","token"}` objects, at `$PUNCT_SEATS`, else
//! `$XDG_DATA_HOME/punct/seats.json`, else `~/.local/share/punct/seats.json`. A seat the
//! signed-in account holds needs no token: it is taken again by signing in.

use std::path::{Path, PathBuf};

use anyhow::Context;
use punct_client::Entry;
use punct_protocol::{CreateRoom, TakeSeat};
use punct_rules::Color;
use serde::{Deserialize, Serialize};

/// One seat held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSeat {
    /// The server, as `http://host:port`.
    pub server: String,
    /// The room's id.
    pub room: String,
    /// The seat's colour.
    pub color: Color,
    /// The secret seat token; none for a seat entered with the account that holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl SavedSeat {
    /// How a connection enters this seat.
    pub fn entry(&self) -> Entry {
        Entry::Seat {
            room: self.room.clone(),
            token: self.token.clone(),
        }
    }
}

/// The seat file at a path.
#[derive(Clone, Debug)]
pub struct SeatBook {
    /// Where the file is (it need not exist yet).
    path: PathBuf,
}

impl SeatBook {
    /// The seat file at `path`.
    pub fn at(path: impl Into<PathBuf>) -> SeatBook {
        SeatBook { path: path.into() }
    }

    /// The default seat file (see the module documentation); `None` without a home.
    pub fn default_path() -> Option<PathBuf> {
        let env = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        env("PUNCT_SEATS").or_else(|| {
            env("XDG_DATA_HOME")
                .or_else(|| env("HOME").map(|home| home.join(".local/share")))
                .map(|data| data.join("punct/seats.json"))
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every seat in the file; none when it does not exist.
    pub fn load(&self) -> anyhow::Result<Vec<SavedSeat>> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("the seat file {} is not valid", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", self.path.display())),
        }
    }

    /// The seat held in `room` on `server`, if any.
    pub fn find(&self, server: &str, room: &str) -> anyhow::Result<Option<SavedSeat>> {
        Ok(self
            .load()?
            .into_iter()
            .find(|s| s.server == server && s.room == room))
    }

    /// Records a seat, replacing any other for the same room. The file is written whole
    /// to a temporary file and renamed, so a crash never leaves half a file.
    pub fn save(&self, seat: SavedSeat) -> anyhow::Result<()> {
        let mut seats = self.load()?;
        seats.retain(|s| !(s.server == seat.server && s.room == seat.room));
        seats.push(seat);
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let temp = self.path.with_extension("json.tmp");
        std::fs::write(&temp, serde_json::to_string_pretty(&seats)?)
            .with_context(|| format!("cannot write {}", temp.display()))?;
        std::fs::rename(&temp, &self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// How a player gets a seat from the command line.
#[derive(Clone, Debug, Default)]
pub struct SeatRequest {
    /// Join this room (with `token`, a saved token, or by taking its free seat).
    pub room: Option<String>,
    /// The seat token, when known.
    pub token: Option<String>,
    /// Create a room instead, with these settings.
    pub create: Option<CreateRoom>,
    /// The name to play under in a room created or a seat taken, for a player who is not
    /// signed in.
    pub name: Option<String>,
    /// The account the client is signed in to: a seat it holds is entered without a
    /// token.
    pub account: Option<String>,
}

/// Gets a seat as asked: creates a room, uses the given token, a token from the seat
/// book, the seat the signed-in account holds, or takes the room's free seat. New seats
/// are recorded in the book.
pub async fn obtain(
    server: &punct_client::Client,
    request: &SeatRequest,
    book: Option<&SeatBook>,
) -> anyhow::Result<SavedSeat> {
    let name = server.server().to_string();
    let granted = match (&request.create, &request.room, &request.token) {
        (Some(create), None, None) => {
            let create = CreateRoom {
                name: request.name.clone(),
                ..create.clone()
            };
            server.create_room(&create).await?
        }
        (None, Some(room), Some(token)) => {
            // The colour is learnt from the snapshot; White is only a placeholder.
            let color = book
                .map(|b| b.find(&name, room))
                .transpose()?
                .flatten()
                .map_or(Color::White, |s| s.color);
            return Ok(SavedSeat {
                server: name,
                room: room.clone(),
                color,
                token: Some(token.clone()),
            });
        }
        (None, Some(room), None) => {
            if let Some(saved) = book.map(|b| b.find(&name, room)).transpose()?.flatten() {
                return Ok(saved);
            }
            if let Some(color) = account_seat(server, room, request.account.as_deref()).await? {
                return Ok(SavedSeat {
                    server: name,
                    room: room.clone(),
                    color,
                    token: None,
                });
            }
            let take = TakeSeat {
                name: request.name.clone(),
            };
            server.take_seat_as(room, &take).await?
        }
        _ => anyhow::bail!("give either --create, or --room (with or without --token)"),
    };
    let seat = SavedSeat {
        server: name,
        room: granted.room,
        color: granted.color,
        token: Some(granted.token),
    };
    if let Some(book) = book {
        book.save(seat.clone())?;
    }
    Ok(seat)
}

/// The seat `account` holds in `room`, if it holds one.
async fn account_seat(
    server: &punct_client::Client,
    room: &str,
    account: Option<&str>,
) -> anyhow::Result<Option<Color>> {
    let Some(account) = account else {
        return Ok(None);
    };
    let summary = server.room(room).await?;
    Ok(Color::ALL.into_iter().find(|&color| {
        summary
            .players
            .get(color)
            .player
            .account
            .as_deref()
            .is_some_and(|holder| holder.eq_ignore_ascii_case(account))
    }))
}

/// The seat of a rematch: the same token (or account) in the new room, with the other
/// colour (the server swaps them). A seat with a token is recorded in the book, so
/// `--room` finds it again.
pub fn rematch_seat(
    server: &punct_client::Client,
    room: &str,
    old_color: Option<Color>,
    token: Option<&str>,
    book: Option<&SeatBook>,
) -> anyhow::Result<SavedSeat> {
    let seat = SavedSeat {
        server: server.server().to_string(),
        room: room.to_owned(),
        // Only a placeholder without the old colour: the snapshot tells.
        color: old_color.map_or(Color::White, Color::opponent),
        token: token.map(str::to_owned),
    };
    if let (Some(book), Some(_)) = (book, &seat.token) {
        book.save(seat.clone())?;
    }
    Ok(seat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_seat_is_found_again_and_replaced_per_room() {
        let dir = tempfile::tempdir().unwrap();
        let book = SeatBook::at(dir.path().join("nested/seats.json"));
        assert_eq!(book.find("http://h:1", "r1").unwrap(), None);
        let seat = |room: &str, token: &str| SavedSeat {
            server: "http://h:1".into(),
            room: room.into(),
            color: Color::Black,
            token: Some(token.into()),
        };
        book.save(seat("r1", "old")).unwrap();
        book.save(seat("r2", "other")).unwrap();
        book.save(seat("r1", "new")).unwrap();
        assert_eq!(
            book.find("http://h:1", "r1").unwrap(),
            Some(seat("r1", "new"))
        );
        assert_eq!(book.find("http://elsewhere:1", "r1").unwrap(), None);
        assert_eq!(book.load().unwrap().len(), 2);
    }

    #[test]
    fn a_damaged_seat_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seats.json");
        std::fs::write(&path, "{not json").unwrap();
        let error = SeatBook::at(&path).load().unwrap_err();
        assert!(format!("{error:#}").contains("is not valid"), "{error:#}");
    }
}
