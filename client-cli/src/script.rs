//! Scripted play and watching: events out as JSON lines, turns in from a list.
//!
//! Every line printed is one JSON object: each server message as the protocol writes it,
//! plus the client's own `seat`, `connected`, `disconnected` and `failed` lines.

use std::io::Write;
use std::time::Duration;

use anyhow::{Context, bail};
use punct_protocol::{ErrorCode, ServerMessage};
use punct_rules::Turn;
use serde_json::json;

use crate::seats::{SavedSeat, SeatBook};
use crate::session::{Session, Tracker};
use punct_client::{Client, Link, NetEvent};
use punct_protocol::Action;

/// Times a step answered `storage-failed` is sent again before the script gives up.
const STORAGE_RETRIES: u32 = 8;

/// The wait before sending a step again after its `n`th `storage-failed` (from 0):
/// 250 ms, doubling up to 4 s, so the eight tries span some 20 s, about what a cluster
/// takes to move a room (a few leases) or a database to come back after a restart.
fn storage_backoff(n: u32) -> Duration {
    Duration::from_millis(250u64 << n.min(4))
}

/// One line of a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Play this turn when it is our turn.
    Turn(Turn),
    /// A request without a turn (`resign`, `offer-draw`, `accept-draw`, `decline-draw`, `claim-win`),
    /// sent when it is our turn.
    Action(Action),
    /// `rematch`: once the game is over, ask for a rematch and go on in its room.
    Rematch,
}

/// Reads a script: one turn in notation or one of `resign`, `offer-draw`, `accept-draw`,
/// `decline-draw`, `claim-win`, `rematch` per line; blank lines and `#` comments are skipped.
pub fn parse_script(text: &str) -> anyhow::Result<Vec<Step>> {
    let mut steps = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let step = match line {
            "" => continue,
            "resign" => Step::Action(Action::Resign),
            "offer-draw" => Step::Action(Action::OfferDraw),
            "accept-draw" => Step::Action(Action::AcceptDraw),
            "decline-draw" => Step::Action(Action::DeclineDraw),
            "claim-win" => Step::Action(Action::ClaimWin),
            "rematch" => Step::Rematch,
            turn => Step::Turn(
                turn.parse()
                    .with_context(|| format!("script line {}: '{turn}'", number + 1))?,
            ),
        };
        steps.push(step);
    }
    Ok(steps)
}

/// Prints one JSON line.
pub fn print_line(out: &mut impl Write, value: &serde_json::Value) -> std::io::Result<()> {
    writeln!(out, "{value}")?;
    out.flush()
}

/// The seat line printed first by a scripted player or bot.
pub fn seat_line(seat: &SavedSeat) -> serde_json::Value {
    json!({"type": "seat", "room": seat.room, "color": seat.color, "token": seat.token})
}

/// An event as a JSON line.
pub fn event_line(event: &NetEvent) -> serde_json::Value {
    match event {
        NetEvent::Connected => json!({"type": "connected"}),
        NetEvent::Message(message) => serde_json::to_value(message).unwrap_or_default(),
        NetEvent::Disconnected(reason) => json!({"type": "disconnected", "reason": reason}),
        NetEvent::Failed(reason) => json!({"type": "failed", "reason": reason}),
    }
}

/// Plays `steps` with `seat`, printing every event, until the game ends or the steps run
/// out (then it returns at once). A step is sent only when it is our turn and the
/// previous one is answered, so two scripts can play each other in any timing. A step
/// the rules refuse is an error before it is sent. A `rematch` step waits for the game
/// to end, asks, and once the rematch is made goes on in its room with the same token
/// (printing its seat line and recording it in `book`). A step answered `storage-failed`
/// (nothing changed: the server could not store it, or its room was moving to another
/// server) is sent again after a pause, up to [`STORAGE_RETRIES`] times; any other
/// refusal ends the script with an error.
pub async fn play(
    server: &Client,
    mut seat: SavedSeat,
    book: Option<&SeatBook>,
    steps: &[Step],
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut link = punct_client::connect(server.clone(), seat.entry());
    let mut tracker = Tracker::default();
    let mut next = 0;
    // The step sent and not yet done, with the number of turns played when it was sent.
    // A turn is done once the room shows it (its `turn_played` follows the `ack`), so the
    // next step never races it; another request is done at its `ack`, a rematch when
    // the rematch is made.
    let mut waiting: Option<(Step, usize)> = None;
    // The `storage-failed` answers to the step being tried, one after another.
    let mut storage_failures = 0;
    while let Some(event) = link.events.recv().await {
        print_line(out, &event_line(&event))?;
        tracker.absorb(&event)?;
        let turns = tracker.session.as_ref().map_or(0, |s| s.game.turns().len());
        match &event {
            NetEvent::Failed(reason) => bail!("{reason}"),
            NetEvent::Message(ServerMessage::Error {
                id: Some(_),
                code: ErrorCode::StorageFailed,
                ..
            }) if waiting.is_some() && storage_failures < STORAGE_RETRIES => {
                // Nothing changed: the same step goes again below.
                tokio::time::sleep(storage_backoff(storage_failures)).await;
                storage_failures += 1;
                waiting = None;
            }
            NetEvent::Message(ServerMessage::Error {
                id: Some(_),
                code,
                message,
                ..
            }) => {
                bail!(
                    "the server refused script step {}: {message} ({code})",
                    next + 1
                )
            }
            NetEvent::Message(ServerMessage::Ack { .. }) => {
                storage_failures = 0;
                if let Some((Step::Action(_), _)) = waiting {
                    waiting = None;
                    next += 1;
                }
            }
            // A request lost with the connection is sent again.
            NetEvent::Connected => {
                if let Some((Step::Action(_) | Step::Rematch, _)) = waiting {
                    waiting = None;
                }
            }
            _ => {}
        }
        if let Some((Step::Turn(_), sent_at)) = waiting {
            if turns > sent_at {
                waiting = None;
                next += 1;
            } else if matches!(event, NetEvent::Connected) {
                waiting = None;
            }
        }
        let rematch = tracker.session.as_ref().and_then(|s| s.rematch.clone());
        if tracker.is_over() {
            match (steps.get(next), rematch) {
                (Some(Step::Rematch), Some(room)) => {
                    // The colour the room gave, which a seat from `--token` only guesses.
                    let color = tracker.session.as_ref().and_then(Session::color);
                    seat = crate::seats::rematch_seat(
                        server,
                        &room,
                        color,
                        seat.token.as_deref(),
                        book,
                    )?;
                    print_line(out, &seat_line(&seat))?;
                    link = punct_client::connect(server.clone(), seat.entry());
                    tracker = Tracker::default();
                    waiting = None;
                    next += 1;
                }
                (Some(Step::Rematch), None) if waiting.is_none() => {
                    waiting = Some((Step::Rematch, turns));
                    link.requests
                        .send(Action::Rematch.into())
                        .context("the connection has ended")?;
                }
                (Some(Step::Rematch), None) => {}
                _ => return Ok(()),
            }
            continue;
        }
        if waiting.is_some() || !tracker.my_turn() {
            continue;
        }
        let request = match steps.get(next) {
            None => return Ok(()),
            // It waits for the game to end.
            Some(Step::Rematch) => continue,
            Some(&Step::Turn(turn)) => {
                let game = &tracker.session.as_ref().context("no room yet")?.game;
                game.is_legal(turn).with_context(|| {
                    format!(
                        "script step {} ({turn}) is illegal after turn {turns}",
                        next + 1
                    )
                })?;
                let number = u32::try_from(game.turns().len() + 1).ok();
                Action::Play { turn, number }
            }
            Some(&Step::Action(request)) => request,
        };
        waiting = Some((steps[next], turns));
        link.requests
            .send(request.into())
            .context("the connection has ended")?;
    }
    bail!("the connection has ended")
}

/// Prints every event of a room until the game ends.
pub async fn watch(mut link: Link, out: &mut impl Write) -> anyhow::Result<()> {
    let mut tracker = Tracker::default();
    while let Some(event) = link.events.recv().await {
        print_line(out, &event_line(&event))?;
        tracker.absorb(&event)?;
        if let NetEvent::Failed(reason) = event {
            bail!("{reason}");
        }
        if tracker.is_over() {
            return Ok(());
        }
    }
    bail!("the connection has ended")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_the_server_could_not_store_goes_again_for_some_twenty_seconds() {
        let waits: Vec<Duration> = (0..STORAGE_RETRIES).map(storage_backoff).collect();
        assert_eq!(waits[0], Duration::from_millis(250));
        assert_eq!(waits[1], Duration::from_millis(500));
        assert_eq!(*waits.last().unwrap(), Duration::from_secs(4));
        let total: Duration = waits.iter().sum();
        assert!((Duration::from_secs(15)..=Duration::from_secs(25)).contains(&total));
    }

    #[test]
    fn scripts_read_turns_requests_and_comments() {
        let steps =
            parse_script("# white\nc4:d5,c5\n\nresign  # gives up\npass\nrematch\n").unwrap();
        assert_eq!(
            steps,
            [
                Step::Turn("C4:C5,D5".parse().unwrap()),
                Step::Action(Action::Resign),
                Step::Turn(Turn::Pass),
                Step::Rematch,
            ]
        );
        let error = parse_script("C4:C5,D5\nZ99:A1,A2\n").unwrap_err();
        assert!(
            format!("{error:#}").starts_with("script line 2: 'Z99:A1,A2'"),
            "{error:#}"
        );
    }
}
