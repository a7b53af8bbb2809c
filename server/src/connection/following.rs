//! The tournament a connection follows: its views and rounds passed on, and a player's
//! own game in each round.

use std::sync::Arc;

use axum::extract::ws::Message;
use punct_protocol::{RequestId, ServerMessage, TournamentRound, TournamentState};
use punct_rules::Color;
use tokio::sync::broadcast;

use super::end::End;
use super::state::{Connection, Following};
use crate::errors;
use crate::tournament;

impl Connection {
    /// Follows tournament `tournament` (in place of any other), for request `id` (none
    /// when following again after missing events): sends it as it stands, then, to a
    /// player of it, the game they have not finished.
    pub(super) async fn follow(
        &mut self,
        id: Option<RequestId>,
        tournament: String,
    ) -> Result<(), End> {
        match self.state.tournaments.follow(&tournament).await {
            Ok((view, events)) => {
                let over = matches!(
                    view.summary.state,
                    TournamentState::Finished | TournamentState::Cancelled
                );
                let last = view.pairings.last().cloned();
                self.following = Some(Following {
                    tournament: tournament.clone(),
                    events,
                    over,
                });
                self.send(&ServerMessage::Tournament {
                    id,
                    tournament: Box::new(view),
                })?;
                match last {
                    Some(round) => self.your_game(&tournament, &round, true),
                    None => Ok(()),
                }
            }
            Err(code) => {
                self.following = None;
                match id {
                    Some(id) => self.error(Some(id), code, errors::message(code, self.lang)),
                    None => Ok(()),
                }
            }
        }
    }

    /// Tells a signed-in player of `round` their game in it (only one not over, if
    /// `unfinished`).
    fn your_game(
        &self,
        tournament: &str,
        round: &TournamentRound,
        unfinished: bool,
    ) -> Result<(), End> {
        let Some(account) = &self.account else {
            return Ok(());
        };
        for game in &round.games {
            let (Some(room), Some(black)) = (&game.room, &game.black) else {
                continue;
            };
            if unfinished && game.outcome.is_some() {
                continue;
            }
            let (color, opponent) = if game.white == account.username {
                (Color::White, black)
            } else if *black == account.username {
                (Color::Black, &game.white)
            } else {
                continue;
            };
            self.send(&ServerMessage::TournamentGame {
                tournament: tournament.to_owned(),
                round: round.round,
                room: room.clone(),
                color,
                opponent: opponent.clone(),
            })?;
        }
        Ok(())
    }

    /// Passes on what the followed tournament's director tells; follows it again after
    /// missing some, or once it closed (it is loaded again) unless it was over.
    pub(super) async fn on_tournament(
        &mut self,
        news: Result<Arc<tournament::Event>, broadcast::error::RecvError>,
    ) -> Result<(), End> {
        let Some(following) = &mut self.following else {
            return Ok(());
        };
        let tournament = following.tournament.clone();
        match news {
            Ok(event) => match &*event {
                tournament::Event::Changed { over, json } => {
                    following.over = *over;
                    self.push(Message::Text(json.clone()))
                }
                tournament::Event::Paired(round) => {
                    self.send(&ServerMessage::TournamentRound {
                        tournament: tournament.clone(),
                        round: round.clone(),
                    })?;
                    self.your_game(&tournament, round, false)
                }
            },
            Err(broadcast::error::RecvError::Closed) if following.over => {
                self.following = None;
                Ok(())
            }
            Err(_) => self.follow(None, tournament).await,
        }
    }
}

/// What the followed tournament has for this connection next; never, when it follows
/// none.
pub(super) async fn from_tournament(
    following: &mut Option<Following>,
) -> Result<Arc<tournament::Event>, broadcast::error::RecvError> {
    match following {
        Some(following) => following.events.recv().await,
        None => std::future::pending().await,
    }
}
