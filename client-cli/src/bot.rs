//! `punct bot`: the engine plays a seat online.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use punct_engine::{Engine, Limits};
use punct_rules::{Game, Turn};

use crate::script::{event_line, print_line};
use crate::session::Tracker;
use punct_client::{Link, NetEvent};
use punct_protocol::Action;

/// Plays the seat of `link` with `engine`, `per_turn` per turn, printing every event as
/// a JSON line, until the game ends.
pub async fn run(
    mut link: Link,
    engine: Engine,
    per_turn: Duration,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let engine = Arc::new(engine);
    let mut tracker = Tracker::default();
    // The search running, with the number of turns it was started at and its stop flag.
    let mut thinking: Option<(
        usize,
        Arc<AtomicBool>,
        tokio::task::JoinHandle<Option<Turn>>,
    )> = None;
    // The number of turns played when the bot last sent a turn: it waits for that turn to
    // come back instead of thinking again.
    let mut sent_at: Option<usize> = None;
    loop {
        tokio::select! {
            event = link.events.recv() => {
                let Some(event) = event else { bail!("the connection has ended") };
                print_line(out, &event_line(&event))?;
                tracker.absorb(&event)?;
                match event {
                    NetEvent::Failed(reason) => bail!("{reason}"),
                    // A turn lost with the connection is chosen and sent again.
                    NetEvent::Connected => sent_at = None,
                    _ => {}
                }
            }
            chosen = async { (&mut thinking.as_mut().expect("guarded").2).await }, if thinking.is_some() => {
                let (started_at, _, _) = thinking.take().expect("guarded");
                let turn = chosen.context("the engine panicked")?;
                let current = tracker.session.as_ref().map(|s| s.game.turns().len());
                // The room may have moved on meanwhile (a reconnect that resumed late):
                // a turn for an older position is thrown away and the bot thinks again.
                if let (Some(turn), Some(current)) = (turn, current)
                    && current == started_at && tracker.my_turn()
                {
                    let number = u32::try_from(current + 1).ok();
                    link.requests.send(Action::Play { turn, number }.into()).context("the connection has ended")?;
                    sent_at = Some(current);
                }
            }
        }
        if tracker.is_over() {
            if let Some((_, stop, _)) = &thinking {
                stop.store(true, Ordering::Relaxed);
            }
            return Ok(());
        }
        let Some(session) = tracker.session.as_ref() else {
            continue;
        };
        let at = session.game.turns().len();
        if thinking.is_none() && tracker.my_turn() && sent_at != Some(at) {
            let game: Game = session.game.clone();
            let stop = Arc::new(AtomicBool::new(false));
            let limits = Limits::within(per_turn).with_stop(stop.clone());
            let engine = engine.clone();
            let task = tokio::task::spawn_blocking(move || {
                engine.think(&game, &limits).map(|choice| choice.turn)
            });
            thinking = Some((at, stop, task));
        }
    }
}
