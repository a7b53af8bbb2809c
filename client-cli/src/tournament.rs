//! Tournaments in the terminal: `punct tournaments` and `punct tournament show` as lines
//! of text, and finding a player's next game, which `punct tournament play` and
//! `punct bot --tournament` wait for (following the tournament over a WebSocket) and then
//! play like any other seat.

use std::collections::HashSet;
use std::time::Duration;

use punct_client::Client;
use punct_protocol::{
    ClientMessage, ServerMessage, TournamentFormat, TournamentGame, TournamentList,
    TournamentState, TournamentSummary, TournamentView,
};
use punct_rules::{Color, Outcome};

use crate::seats::SavedSeat;
use crate::ui::plain;

/// How long a player waiting for a pairing waits before following the tournament again,
/// after the connection that followed it failed.
pub const RETRY: Duration = Duration::from_secs(1);

/// `punct tournaments`: a heading and one line per tournament for each of upcoming,
/// running and finished; a hint when there are none at all.
pub fn list_lines(list: &TournamentList) -> Vec<String> {
    let sections = [
        ("upcoming", &list.upcoming),
        ("running", &list.running),
        ("finished", &list.finished),
    ];
    if sections
        .iter()
        .all(|(_, tournaments)| tournaments.is_empty())
    {
        return vec!["no tournaments".into()];
    }
    let mut lines = Vec::new();
    for (heading, tournaments) in sections {
        if tournaments.is_empty() {
            continue;
        }
        lines.push(format!("{heading}:"));
        lines.extend(tournaments.iter().map(|t| format!("  {}", summary_line(t))));
    }
    lines
}

/// `ID  NAME  FORMAT  VARIANT CONTROL  PLAYERS/MAX  STATE-OR-START`.
fn summary_line(t: &TournamentSummary) -> String {
    let when = match (t.state, t.ends_at) {
        (TournamentState::Upcoming, _) => format!("starts {}", start_text(t.starts_at)),
        (TournamentState::Running, Some(end)) => format!("until {}", start_text(end)),
        (TournamentState::Running, None) => format!("round {}", t.round),
        (state, _) => state.as_str().to_owned(),
    };
    format!(
        "{id}  {name:<24}  {format:<20}  {variant} {control:<10}  {players:>3}/{max:<4}  {when}",
        id = t.id,
        name = plain(&t.name),
        format = format_text(t),
        variant = t.variant.name(),
        control = control_text(t),
        players = t.players,
        max = t.max_players,
    )
}

/// The format, with a Swiss's rounds: `swiss, 5 rounds`.
fn format_text(t: &TournamentSummary) -> String {
    match t.rounds {
        Some(rounds) => format!("{}, {rounds} rounds", t.format.as_str()),
        None => t.format.as_str().to_owned(),
    }
}

/// The time control as `punct play --clock` takes it: `300+3`, `3d a move`, `no clock`.
fn control_text(t: &TournamentSummary) -> String {
    match t.clock {
        Some(clock) => match clock.days {
            Some(days) => format!("{days}d a move"),
            None => format!("{}+{}", clock.base, clock.increment),
        },
        None => "no clock".to_owned(),
    }
}

/// A start time, in milliseconds since the epoch, as UTC: `2026-11-27 10:30:00 UTC`.
fn start_text(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The calendar date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `punct tournament show`: the tournament, its standings, and every round's games
/// with their rooms and results.
pub fn show_lines(view: &TournamentView) -> Vec<String> {
    let t = &view.summary;
    let mut lines = vec![
        format!("{}  ({})", plain(&t.name), t.id),
        format!(
            "{}, {} {}{}, by {}",
            format_text(t),
            t.variant.name(),
            control_text(t),
            if t.rated { ", rated" } else { "" },
            plain(&t.creator)
        ),
        match (t.state, t.ends_at) {
            (TournamentState::Upcoming, None) => format!("starts {}", start_text(t.starts_at)),
            (TournamentState::Upcoming, Some(end)) => format!(
                "starts {}, ends {}",
                start_text(t.starts_at),
                start_text(end)
            ),
            (TournamentState::Running, Some(end)) => {
                format!(
                    "running until {}, {} games paired",
                    start_text(end),
                    t.round
                )
            }
            (TournamentState::Running, None) => format!("running, round {}", t.round),
            (state, _) => state.as_str().to_owned(),
        },
        format!(
            "{} of {} players (at least {})",
            t.players, t.max_players, t.min_players
        ),
    ];
    let withdrawn: HashSet<&str> = view
        .entries
        .iter()
        .filter(|e| e.withdrawn)
        .map(|e| e.player.as_str())
        .collect();
    lines.push(String::new());
    if view.standings.is_empty() {
        lines.push("players:".into());
        for entry in view.entries.iter().filter(|e| !e.withdrawn) {
            lines.push(format!("  {}", plain(&entry.player)));
        }
    } else {
        lines.push(format!(
            "{:>3}  {:<24}  {:>5}  {:>8}  {:>8}  {:>5}",
            "#", "player", "score", "buchholz", "s-b", "games"
        ));
        for (place, row) in view.standings.iter().enumerate() {
            let name = match withdrawn.contains(row.player.as_str()) {
                true => format!("{} (withdrawn)", plain(&row.player)),
                false => plain(&row.player),
            };
            lines.push(format!(
                "{:>3}  {name:<24}  {:>5}  {:>8}  {:>8}  {:>5}",
                place + 1,
                row.score,
                row.buchholz.map_or_else(String::new, |b| b.to_string()),
                row.sonneborn_berger
                    .map_or_else(String::new, |s| s.to_string()),
                row.games,
            ));
        }
    }
    // An arena's "rounds" are the times its pool was paired.
    let label = match t.format {
        TournamentFormat::Arena => "pairing",
        _ => "round",
    };
    for round in &view.pairings {
        lines.push(String::new());
        lines.push(format!("{label} {}:", round.round));
        for (board, game) in round.games.iter().enumerate() {
            lines.push(format!("  {:>3}. {}", board + 1, game_text(game)));
        }
        if let Some(resting) = &round.resting {
            lines.push(format!("       {}  rests", plain(resting)));
        }
    }
    lines
}

/// `anna - bert  1-0  ROOM`, or `cleo  bye`.
fn game_text(game: &TournamentGame) -> String {
    let Some(black) = &game.black else {
        return format!("{}  bye", plain(&game.white));
    };
    let result = match game.outcome {
        Some(Outcome::Win {
            winner: Color::White,
            ..
        }) => "1-0",
        Some(Outcome::Win { .. }) => "0-1",
        Some(Outcome::Draw { .. }) => "1/2",
        None => "...",
    };
    format!(
        "{} - {}  {result}  {}",
        plain(&game.white),
        plain(black),
        game.room.as_deref().unwrap_or("")
    )
}

/// What a player of a tournament has to do now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Play the game in this seat.
    Play(SavedSeat),
    /// Wait: the tournament has not started, or the player's game of this round is over
    /// (or a bye) and the next round is not paired yet.
    Wait,
    /// Nothing more: the tournament is over, or the player is not (or no longer) in it.
    Done,
}

/// What `me` has to do in `view`, on `server`, given the rooms played already: the
/// first game of theirs, round by round, that is neither over nor played; else wait
/// while they are in a tournament not over.
pub fn next(view: &TournamentView, server: &str, me: &str, played: &HashSet<String>) -> Next {
    let entered = view
        .entries
        .iter()
        .any(|e| e.player.eq_ignore_ascii_case(me) && !e.withdrawn);
    let game = view
        .pairings
        .iter()
        .flat_map(|round| &round.games)
        .filter(|g| g.outcome.is_none())
        .filter_map(|g| Some((g, g.room.as_ref()?, g.black.as_ref()?)))
        .find(|(g, room, black)| {
            !played.contains(*room)
                && (g.white.eq_ignore_ascii_case(me) || black.eq_ignore_ascii_case(me))
        });
    // A game of theirs not over is played whatever the tournament's state: an arena's
    // time may be up while it is under way (it counts when it ends), and a player who
    // paused an arena plays out the game they were in.
    match (game, view.summary.state) {
        (Some((g, room, _)), _) => Next::Play(SavedSeat {
            server: server.to_owned(),
            room: room.clone(),
            color: if g.white.eq_ignore_ascii_case(me) {
                Color::White
            } else {
                Color::Black
            },
            token: None,
        }),
        (_, TournamentState::Upcoming | TournamentState::Running) if entered => Next::Wait,
        _ => Next::Done,
    }
}

/// Follows tournament `id` (`PROTOCOL.md`, `follow`) until `me` has a game to play
/// (`Some`) or nothing more to do (`None`). The answer to `follow` is the whole
/// tournament, so a connection lost is made again and misses nothing; a refusal (no
/// such tournament) is final.
pub async fn wait_for_game(
    server: &Client,
    id: &str,
    me: &str,
    played: &HashSet<String>,
) -> anyhow::Result<Option<SavedSeat>> {
    loop {
        match follow(server, id, me, played).await {
            Ok(answer) => return Ok(answer),
            Err(
                e @ (punct_client::Error::Rejected { .. }
                | punct_client::Error::Refused {
                    status: 400..=499, ..
                }),
            ) => return Err(e.into()),
            Err(_) => tokio::time::sleep(RETRY).await,
        }
    }
}

/// One connection's following of tournament `id`, until `me` has a game to play or
/// nothing more to do.
async fn follow(
    server: &Client,
    id: &str,
    me: &str,
    played: &HashSet<String>,
) -> Result<Option<SavedSeat>, punct_client::Error> {
    let base = server.server().to_string();
    let mut connection = server.connect().await?;
    connection.hello(false).await?;
    connection
        .send(|request| ClientMessage::Follow {
            id: request,
            tournament: id.to_owned(),
        })
        .await?;
    loop {
        let view = match connection.recv().await? {
            ServerMessage::Tournament { tournament, .. } => *tournament,
            // A round paired: the tournament as it is now says whose game is whose.
            ServerMessage::TournamentRound { .. } => server.tournament(id).await?,
            ServerMessage::Error { code, message, .. } => {
                return Err(punct_client::Error::Rejected { code, message });
            }
            _ => continue,
        };
        match next(&view, &base, me, played) {
            Next::Play(seat) => return Ok(Some(seat)),
            Next::Done => return Ok(None),
            Next::Wait => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use punct_protocol::{StandingRow, TournamentEntry, TournamentRound, TournamentSummary};
    use punct_rules::{Variant, WinReason};

    use super::*;

    fn view(state: TournamentState, games: Vec<TournamentGame>) -> TournamentView {
        TournamentView {
            summary: TournamentSummary {
                id: "t1".into(),
                name: "Friday\u{1b}[31m Swiss".into(),
                format: TournamentFormat::Swiss,
                variant: Variant::Standard,
                clock: None,
                rated: false,
                starts_at: 1_790_000_000_000,
                ends_at: None,
                rounds: Some(2),
                min_players: 2,
                max_players: 8,
                creator: "anna".into(),
                state,
                players: 3,
                round: 1,
            },
            entries: ["anna", "bert", "cleo"]
                .map(|p| TournamentEntry {
                    player: p.into(),
                    withdrawn: false,
                })
                .to_vec(),
            standings: vec![StandingRow {
                player: "anna".into(),
                score: 1.0,
                buchholz: Some(0.5),
                sonneborn_berger: Some(0.0),
                games: 1,
            }],
            pairings: vec![TournamentRound {
                round: 1,
                games,
                resting: None,
            }],
        }
    }

    fn game(room: &str, white: &str, black: Option<&str>, over: bool) -> TournamentGame {
        TournamentGame {
            room: black.map(|_| room.into()),
            white: white.into(),
            black: black.map(Into::into),
            outcome: over.then_some(Outcome::Win {
                winner: Color::White,
                reason: WinReason::Resignation,
            }),
        }
    }

    #[test]
    fn a_player_plays_their_unfinished_game_with_their_colour() {
        let view = view(
            TournamentState::Running,
            vec![
                game("r1", "anna", Some("bert"), false),
                game("", "cleo", None, false),
            ],
        );
        let played = HashSet::new();
        let Next::Play(seat) = next(&view, "http://s", "BERT", &played) else {
            panic!("bert has a game");
        };
        assert_eq!((seat.room.as_str(), seat.color), ("r1", Color::Black));
        assert_eq!(seat.token, None, "entered by the account");
        assert_eq!(
            next(&view, "http://s", "cleo", &played),
            Next::Wait,
            "a bye"
        );
        assert_eq!(next(&view, "http://s", "dirk", &played), Next::Done);
        let played = HashSet::from(["r1".to_owned()]);
        assert_eq!(next(&view, "http://s", "anna", &played), Next::Wait);
    }

    #[test]
    fn a_game_over_is_not_played_and_a_finished_tournament_ends_the_wait() {
        let running = view(
            TournamentState::Running,
            vec![game("r1", "anna", Some("bert"), true)],
        );
        assert_eq!(
            next(&running, "http://s", "anna", &HashSet::new()),
            Next::Wait
        );
        let finished = view(TournamentState::Finished, running.pairings[0].games.clone());
        assert_eq!(
            next(&finished, "http://s", "anna", &HashSet::new()),
            Next::Done
        );
        // An arena's time is up while a game is under way: it is still played.
        let late = view(
            TournamentState::Finished,
            vec![game("r2", "anna", Some("bert"), false)],
        );
        let Next::Play(seat) = next(&late, "http://s", "anna", &HashSet::new()) else {
            panic!("anna's game is still to be played");
        };
        assert_eq!(seat.room, "r2");
        let upcoming = view(TournamentState::Upcoming, Vec::new());
        assert_eq!(
            next(&upcoming, "http://s", "anna", &HashSet::new()),
            Next::Wait
        );
    }

    #[test]
    fn the_text_shows_standings_and_results_and_strips_control_characters() {
        let view = view(
            TournamentState::Running,
            vec![
                game("r1", "anna", Some("bert"), true),
                game("", "cleo", None, false),
            ],
        );
        let text = show_lines(&view).join("\n");
        assert!(text.starts_with("Friday[31m Swiss  (t1)"), "{text}");
        assert!(text.contains("swiss, 2 rounds, standard no clock, by anna"));
        assert!(text.contains("  1  anna                          1       0.5         0      1"));
        assert!(text.contains("    1. anna - bert  1-0  r1"));
        assert!(text.contains("    2. cleo  bye"));
        assert!(!text.contains('\u{1b}'));
        let list = TournamentList {
            upcoming: Vec::new(),
            running: vec![view.summary.clone()],
            finished: Vec::new(),
        };
        assert_eq!(list_lines(&list)[0], "running:");
        assert!(list_lines(&list)[1].ends_with("round 1"));
        assert_eq!(start_text(1_790_000_000_000), "2026-09-21 14:13:20 UTC");
    }

    #[test]
    fn a_round_robins_resting_player_is_shown_under_the_round() {
        let mut view = view(
            TournamentState::Running,
            vec![game("r1", "anna", Some("bert"), false)],
        );
        view.pairings[0].resting = Some("cleo".into());
        let text = show_lines(&view).join("\n");
        assert!(
            text.contains("    1. anna - bert  ...  r1\n       cleo  rests"),
            "{text}"
        );
    }
}
