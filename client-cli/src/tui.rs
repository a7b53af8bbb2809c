//! The terminal: raw mode and the alternate screen, always restored, and the event loop
//! joining keys, the connection and drawing.

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyEventKind};
use tokio::sync::mpsc;

use crate::app::App;
use crate::lobby::{Action, Lobby};
use crate::seats::{SeatBook, SeatRequest};
use crate::session::Session;
use punct_client::{Client, Entry};

/// The lobby on the terminal: lists the rooms, refreshed every few seconds, until the
/// user creates, joins or watches one, then that room's view. Seats are asked for as in
/// `seats` (its name and account; the room or settings come from the lobby).
pub async fn lobby(
    server: Client,
    book: Option<SeatBook>,
    seats: SeatRequest,
) -> anyhow::Result<()> {
    let mut keys = read_keys();
    let mut terminal = ratatui::init();
    let _restore = Restore;
    let mut lobby = Lobby::default();
    let mut refresh = tokio::time::interval(Duration::from_secs(5));
    loop {
        terminal.draw(|frame| crate::ui::render_lobby(&lobby, frame))?;
        let action = tokio::select! {
            _ = refresh.tick() => Some(Action::Refresh),
            Some(event) = keys.recv() => match event {
                Event::Key(key) if key.kind == KeyEventKind::Press => lobby.on_key(key),
                _ => None,
            },
        };
        if lobby.quit {
            return Ok(());
        }
        let request = match action {
            None => continue,
            Some(Action::Refresh) => {
                match server.lobby().await {
                    Ok(list) => {
                        lobby.set_rooms(list.rooms);
                        lobby.status.clear();
                    }
                    Err(e) => lobby.status = format!("{e:#}"),
                }
                continue;
            }
            Some(Action::Watch(room)) => {
                let entry = Entry::Watch { room };
                return room_view(&mut terminal, keys, server, entry, None).await;
            }
            Some(Action::Join(room)) => SeatRequest {
                room: Some(room),
                ..seats.clone()
            },
            Some(Action::Create(create)) => SeatRequest {
                create: Some(create),
                ..seats.clone()
            },
        };
        match crate::seats::obtain(&server, &request, book.as_ref()).await {
            Ok(seat) => {
                let entry = seat.entry();
                return room_view(&mut terminal, keys, server, entry, book.as_ref()).await;
            }
            // A room filled or gone since the list was fetched: say so, stay.
            Err(e) => lobby.status = format!("{e:#}"),
        }
    }
}

/// Restores the terminal when dropped, so an error return restores it too; the panic
/// hook installed by `ratatui::init` covers panics.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// The room view on the terminal until the user quits. When a rematch is made, a player
/// follows it into its room with the same seat token, recorded in `book`.
pub async fn room(server: Client, entry: Entry, book: Option<SeatBook>) -> anyhow::Result<()> {
    let keys = read_keys();
    let mut terminal = ratatui::init();
    let _restore = Restore;
    room_view(&mut terminal, keys, server, entry, book.as_ref()).await
}

/// Terminal events, read on a thread of their own: crossterm's reading blocks.
fn read_keys() -> mpsc::UnboundedReceiver<Event> {
    let (key_tx, keys) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = crossterm::event::read() {
            if key_tx.send(event).is_err() {
                return;
            }
        }
    });
    keys
}

/// The room view on an initialised terminal, until the user quits.
async fn room_view(
    terminal: &mut ratatui::DefaultTerminal,
    mut keys: mpsc::UnboundedReceiver<Event>,
    server: Client,
    mut entry: Entry,
    book: Option<&SeatBook>,
) -> anyhow::Result<()> {
    let mut link = punct_client::connect(server.clone(), entry.clone());
    let mut app = App::new();
    // Redraws the running clock between the server's messages.
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    while !app.quit {
        app.now = Instant::now();
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
            _ = tick.tick() => {}
        }
        if let (Some(next), Entry::Seat { token, .. }) = (app.rematch_room(), &entry) {
            let color = app.session().and_then(Session::color);
            let seat = crate::seats::rematch_seat(&server, next, color, token.as_deref(), book)?;
            entry = seat.entry();
            link = punct_client::connect(server.clone(), entry.clone());
            app = App::new();
        }
    }
    Ok(())
}
