//! The terminal: raw mode and the alternate screen, always restored, and the event loop
//! joining keys, the connection and drawing.

use crossterm::event::{Event, KeyEventKind};
use tokio::sync::mpsc;

use crate::app::App;
use crate::net::{self, Entry, Server};
use crate::seats::SeatBook;

/// The lobby is not built yet: say how to get into a room instead.
pub async fn lobby(server: Server, _book: Option<SeatBook>) -> anyhow::Result<()> {
    anyhow::bail!(
        "the lobby is not built yet: use `punct play --server {server} --create standard` \
         or `--room ID` (GET {server}/api/rooms lists the rooms)"
    )
}

/// Restores the terminal when dropped, so an error return restores it too; the panic
/// hook installed by `ratatui::init` covers panics.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// The room view on the terminal until the user quits.
pub async fn room(server: Server, entry: Entry) -> anyhow::Result<()> {
    let mut link = net::connect(server, entry);
    // Keys are read on a thread of their own: crossterm's reading blocks.
    let (key_tx, mut keys) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = crossterm::event::read() {
            if key_tx.send(event).is_err() {
                return;
            }
        }
    });
    let mut terminal = ratatui::init();
    let _restore = Restore;
    let mut app = App::new();
    while !app.quit {
        terminal.draw(|frame| crate::ui::render(&app, frame))?;
        tokio::select! {
            event = link.events.recv() => match event {
                Some(event) => app.on_net(&event),
                // The connection ended for good: say why after the screen is restored.
                None => anyhow::bail!("{}", app.status),
            },
            Some(event) = keys.recv() => {
                if let Event::Key(key) = event
                    && key.kind == KeyEventKind::Press
                    && let Some(request) = app.on_key(key)
                {
                    let _ = link.requests.send(request);
                }
            }
        }
    }
    Ok(())
}
