//! The game: turns, resignations, draws, claims and rematches; the clock running out;
//! the computer's turns. Every change is stored before it counts, and a storage failure
//! makes the room wait before it tries again on its own.

use std::time::Duration;

use punct_protocol::{Action, ErrorCode, Seq, ServerMessage};
use punct_rules::{Color, DrawReason, Game, IllegalTurn, Outcome, Turn, WinReason};
use tokio::time::Instant;

use super::setup::Fresh;
use super::state::Room;
use crate::clock::{Clock, millis};
use crate::cluster::ConnId;
use crate::computer::Chosen;
use crate::errors::Refused;
use crate::services::GameEnded;
use crate::store::{Notice, StoreError, to_move};
use crate::views::rating_changes;

impl Room {
    /// The result, once the game is over on the board or off it.
    pub(super) fn outcome(&self) -> Option<Outcome> {
        self.ending.or(self.game.outcome())
    }

    /// `result` of a write to the store: a failure is logged, counted and refused, and
    /// makes the room hold back what it would store on its own.
    pub(super) fn stored<T>(&mut self, result: Result<T, StoreError>) -> Result<T, Refused> {
        match result {
            Ok(value) => {
                self.retry.succeeded();
                Ok(value)
            }
            Err(StoreError::Fenced) => {
                // Another node runs the room now: this one stops, and the request is
                // made again there by the member who asked.
                self.fenced = true;
                Err(Refused::new(
                    ErrorCode::StorageFailed,
                    "the room moved to another server; nothing changed, try again",
                ))
            }
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "storing failed");
                self.context.services.metrics.storage_failed();
                self.retry.failed(Instant::now());
                Err(Refused::new(
                    ErrorCode::StorageFailed,
                    "the server could not store this; nothing changed, try again",
                ))
            }
        }
    }

    /// Whether `action` of `color` is what last happened in the game: the last turn, and
    /// its own (the opponent is to move after it, even once the game is over), or its
    /// resignation.
    fn done_before(&self, color: Color, action: Action) -> bool {
        match action {
            Action::Play { turn, .. } => {
                self.game.turns().last() == Some(&turn) && self.game.to_move() == color.opponent()
            }
            Action::Resign => {
                self.ending
                    == Some(Outcome::Win {
                        winner: color.opponent(),
                        reason: WinReason::Resignation,
                    })
            }
            _ => false,
        }
    }

    /// When the running clock runs out, while the game goes on (later if storing failed
    /// lately).
    pub(super) fn flag_falls(&self) -> Option<Instant> {
        let deadline = self.clock.as_ref()?.deadline()?;
        if self.outcome().is_some() {
            return None;
        }
        Some(
            self.retry
                .until()
                .map_or(deadline, |until| until.max(deadline)),
        )
    }

    /// Ends the game if the running clock has run out; refused only if that could not
    /// be stored.
    pub(super) async fn end_if_flagged(&mut self) -> Result<(), Refused> {
        let flagged = self.clock.as_ref().and_then(|c| c.flagged(Instant::now()));
        match flagged {
            Some(loser) if self.outcome().is_none() => {
                let outcome = Outcome::Win {
                    winner: loser.opponent(),
                    reason: WinReason::Time,
                };
                self.end(outcome).await.map(drop)
            }
            _ => Ok(()),
        }
    }

    /// The mail a turn or an end causes in a correspondence game (none if mail is not
    /// sent): to the player to move in `game` after `turn` (number `number`), or, once
    /// it is over, to both; only to those who do not have the game open. Their accounts
    /// say in the database whether they take it.
    fn mail(&self, game: &Game, turn: Option<(Turn, usize)>) -> Vec<(Color, Notice)> {
        let correspondence = self.clock.as_ref().and_then(|c| c.control().days);
        let Some(days) = correspondence.filter(|_| self.context.services.mail.enabled()) else {
            return Vec::new();
        };
        let away = |color: Color| self.seats[color as usize].holder.is_none();
        match turn.filter(|_| game.outcome().is_none()) {
            Some((turn, number)) => {
                let to_move = game.to_move();
                let mover = &self.seats[to_move.opponent() as usize].player;
                let notice = Notice::YourMove {
                    opponent: mover.view().name.unwrap_or_else(|| "a guest".to_owned()),
                    turn: turn.to_string(),
                    number,
                    days,
                };
                away(to_move)
                    .then_some((to_move, notice))
                    .into_iter()
                    .collect()
            }
            None => [Color::White, Color::Black]
                .into_iter()
                .filter(|&color| away(color))
                .map(|color| (color, Notice::GameOver))
                .collect(),
        }
    }

    /// Plays `turn` for the player of `color`.
    async fn play_as(&mut self, color: Color, turn: Turn) -> Result<Seq, Refused> {
        // A flag that has fallen ends the game first; if that cannot be stored, nothing
        // is played.
        self.end_if_flagged().await?;
        if self.outcome().is_some() {
            return Err(Refused::illegal(IllegalTurn::GameOver));
        }
        if self.game.to_move() != color {
            return Err(Refused::new(
                ErrorCode::NotYourTurn,
                format!("it is {}'s turn", self.game.to_move()),
            ));
        }
        // The turn is applied to a copy and stored; only then does it count.
        let mut next = self.game.clone();
        let outcome = next.play(turn).map_err(Refused::illegal)?;
        let number = next.turns().len();
        let now = Instant::now();
        let clock = self.clock.clone().map(|mut clock| {
            clock.punch(color, now);
            if outcome.is_some() {
                clock.stop(now);
            }
            clock
        });
        let left = clock.as_ref().map(|c| c.left_ms(now));
        let mail = self.mail(&next, Some((turn, number)));
        let mailing = !mail.is_empty();
        let stored = self
            .context
            .services
            .store
            .turn(
                &self.id,
                self.incarnation,
                number,
                turn,
                left,
                outcome,
                mail,
            )
            .await;
        self.stored(stored)?;
        if mailing {
            self.context.services.mail.wake();
        }
        self.game = next;
        self.clock = clock;
        if self.draw_offer == Some(color) {
            // An offer lapses when its maker plays on.
            self.draw_offer = None;
        }
        // A takeback request lapses with any turn: it named the turns before this one.
        self.takeback_offer = None;
        let to_move = self.game.to_move();
        tracing::debug!(%turn, number, "turn played");
        // Nobody to send the list to, or a client that finds the turns itself: skip the
        // largest cost of a turn. A player who comes back gets the list then.
        let your_turn = (outcome.is_none() && self.wants_lists(to_move))
            .then(|| (to_move, self.game.legal_turns()));
        let clock = self.clock.as_ref().map(|c| c.view(now));
        self.history.forget_legal_turns();
        let seq = self.history.publish(
            |seq| ServerMessage::TurnPlayed {
                seq,
                turn,
                by: color,
                number,
                to_move,
                clock,
            },
            your_turn,
        );
        if let Some(outcome) = outcome {
            tracing::info!(%outcome, "game over");
            self.history
                .publish(|seq| ServerMessage::GameOver { seq, outcome }, None);
            self.tell_tournament();
            self.rate().await;
        }
        Ok(seq)
    }

    /// Plays `turn` for the player of `color` as turn `number`: acknowledged without
    /// playing anything if that player played it already as that number (the answer was
    /// lost on the way), refused if that number is taken by another turn or not due yet.
    async fn play_numbered(
        &mut self,
        color: Color,
        turn: Turn,
        number: u32,
    ) -> Result<Seq, Refused> {
        let played = self.game.turns().len();
        let number = usize::try_from(number).unwrap_or(usize::MAX);
        if number == played + 1 {
            return self.play_as(color, turn).await;
        }
        let earlier = number
            .checked_sub(1)
            .and_then(|before| Some((self.game.turns().get(before)?, to_move(before))));
        match earlier {
            Some((&done, by)) if done == turn && by == color => Ok(self.history.seq()),
            Some(_) => Err(Refused::new(
                ErrorCode::NotYourTurn,
                format!("turn {number} has been played already: {played} turns are"),
            )),
            None => Err(Refused::new(
                ErrorCode::NotYourTurn,
                format!("turn {number} is not due: {played} turns have been played"),
            )),
        }
    }

    /// Does `action` for the player on `conn`; `retry` if the player asks again after
    /// the room moved, when the first request may have been done already.
    pub(super) async fn act(
        &mut self,
        conn: ConnId,
        action: Action,
        retry: bool,
    ) -> Result<Seq, Refused> {
        let color = self.player(conn)?;
        if retry && self.done_before(color, action) {
            return Ok(self.history.seq());
        }
        let offer_from_opponent = self.draw_offer == Some(color.opponent());
        match action {
            Action::Play { turn, number } => match number {
                Some(number) => self.play_numbered(color, turn, number).await,
                None => self.play_as(color, turn).await,
            },
            Action::Rematch => self.rematch(color).await,
            _ if self.outcome().is_some() => {
                Err(Refused::new(ErrorCode::GameOver, "the game is over"))
            }
            Action::Resign => {
                let outcome = Outcome::Win {
                    winner: color.opponent(),
                    reason: WinReason::Resignation,
                };
                self.end(outcome).await
            }
            Action::OfferDraw if self.draw_offer.is_some() => Err(Refused::new(
                ErrorCode::NoDrawOffer,
                "a draw offer stands already",
            )),
            Action::OfferDraw => {
                self.draw_offer = Some(color);
                let seq = self
                    .history
                    .publish(|seq| ServerMessage::DrawOffered { seq, by: color }, None);
                if let Some(computer) = self.computer.as_ref().map(|c| c.color) {
                    // The engine plays every game out.
                    self.draw_offer = None;
                    self.history.publish(
                        |seq| ServerMessage::DrawDeclined { seq, by: computer },
                        None,
                    );
                }
                Ok(seq)
            }
            Action::AcceptDraw | Action::DeclineDraw if !offer_from_opponent => Err(Refused::new(
                ErrorCode::NoDrawOffer,
                "the opponent has no draw offer standing",
            )),
            Action::AcceptDraw => {
                let outcome = Outcome::Draw {
                    reason: DrawReason::Agreement,
                };
                self.end(outcome).await
            }
            Action::DeclineDraw => {
                self.draw_offer = None;
                Ok(self
                    .history
                    .publish(|seq| ServerMessage::DrawDeclined { seq, by: color }, None))
            }
            Action::Takeback => self.ask_takeback(color).await,
            Action::AcceptTakeback | Action::DeclineTakeback
                if self.takeback_offer != Some(color.opponent()) =>
            {
                Err(Refused::new(
                    ErrorCode::NoTakebackOffer,
                    "the opponent has no takeback request standing",
                ))
            }
            Action::AcceptTakeback => self.take_back(color.opponent()).await,
            Action::DeclineTakeback => {
                self.takeback_offer = None;
                Ok(self.history.publish(
                    |seq| ServerMessage::TakebackDeclined { seq, by: color },
                    None,
                ))
            }
            Action::ClaimWin => match self.claim_in(color.opponent()) {
                Some(Duration::ZERO) => {
                    let outcome = Outcome::Win {
                        winner: color,
                        reason: WinReason::Abandonment,
                    };
                    self.end(outcome).await
                }
                Some(left) => Err(Refused::new(
                    ErrorCode::NotClaimable,
                    format!(
                        "the opponent may still come back for {} s",
                        left.as_millis().div_ceil(1000)
                    ),
                )),
                None if self.clock.as_ref().is_some_and(Clock::is_correspondence) => {
                    Err(Refused::new(
                        ErrorCode::NotClaimable,
                        "a correspondence game is won on time, not by the opponent's absence",
                    ))
                }
                None => Err(Refused::new(
                    ErrorCode::NotClaimable,
                    "the opponent is connected",
                )),
            },
        }
    }

    /// How many turns a takeback asked for by `color` undoes: their last turn, and the
    /// opponent's reply if it was made; `None` when they have played no turn.
    fn takeback_length(&self, color: Color) -> Option<usize> {
        let undone = if self.game.to_move() == color { 2 } else { 1 };
        (self.game.turns().len() >= undone).then_some(undone)
    }

    /// `color`'s player asks the opponent to take back their last turn. The computer
    /// accepts at once (it plays no rated game; it declines only when the takeback
    /// cannot be stored): it stops thinking about the position taken back, and thinks
    /// again once it is to move.
    async fn ask_takeback(&mut self, color: Color) -> Result<Seq, Refused> {
        let unavailable = |why: &str| Err(Refused::new(ErrorCode::TakebackUnavailable, why));
        match self.takeback_offer {
            Some(asker) if asker == color => return unavailable("your request stands already"),
            Some(_) => return unavailable("the opponent's request stands: answer it first"),
            None => {}
        }
        if self.takeback_length(color).is_none() {
            return unavailable("you have played no turn to take back");
        }
        self.takeback_offer = Some(color);
        let seq = self.history.publish(
            |seq| ServerMessage::TakebackOffered { seq, by: color },
            None,
        );
        if let Some(computer) = self.computer.as_ref().map(|c| c.color) {
            self.thinking = None;
            if let Err(refusal) = self.take_back(color).await {
                // Not stored: the computer declines, so that the player may ask again.
                tracing::error!(code = %refusal.code, "the computer's takeback was refused");
                self.takeback_offer = None;
                self.history.publish(
                    |seq| ServerMessage::TakebackDeclined { seq, by: computer },
                    None,
                );
            }
        }
        Ok(seq)
    }

    /// Takes back the last turn of `by` (and the reply to it), as its opponent accepted:
    /// the game is replayed without them, stored, then announced. Nobody's time comes
    /// back; the clock of `by`, to move again, runs.
    async fn take_back(&mut self, by: Color) -> Result<Seq, Refused> {
        let undone = self
            .takeback_length(by)
            .expect("a request stands only while its turns can be taken back");
        let played = self.game.turns().len() - undone;
        let game = Game::replay(self.game.variant(), &self.game.turns()[..played])
            .expect("turns played before are legal again");
        let to_move = game.to_move();
        let now = Instant::now();
        let clock = self.clock.clone().map(|mut clock| {
            clock.take_back(to_move, played, now);
            clock
        });
        let left = clock.as_ref().map(|c| c.left_ms(now));
        let stored = self
            .context
            .services
            .store
            .take_back(&self.id, self.incarnation, played, left)
            .await;
        self.stored(stored)?;
        self.game = game;
        self.clock = clock;
        self.takeback_offer = None;
        tracing::info!(undone, played, "turns taken back");
        let your_turn = self
            .wants_lists(to_move)
            .then(|| (to_move, self.game.legal_turns()));
        let clock = self.clock.as_ref().map(|c| c.view(now));
        self.history.forget_legal_turns();
        Ok(self.history.publish(
            |seq| ServerMessage::TakenBack {
                seq,
                by,
                number: played,
                to_move,
                clock,
            },
            your_turn,
        ))
    }

    /// After the game: `color`'s player asks for a rematch; once both have, it is made in
    /// a new room like this one, where each player's token holds the other colour. The
    /// new room is only stored: it runs once someone enters it.
    async fn rematch(&mut self, color: Color) -> Result<Seq, Refused> {
        let unavailable = |why: &str| Err(Refused::new(ErrorCode::RematchUnavailable, why));
        if self.outcome().is_none() {
            return unavailable("the game is not over");
        }
        if self.rematch.is_some() {
            return unavailable("the rematch has been made");
        }
        match self.rematch_offer {
            Some(asked) if asked == color => {
                return unavailable("your request stands; the opponent has not asked yet");
            }
            Some(_) => {}
            None => {
                self.rematch_offer = Some(color);
                let seq = self
                    .history
                    .publish(|seq| ServerMessage::RematchOffered { seq, by: color }, None);
                return match self.computer.as_ref().map(|c| c.color) {
                    // The computer always takes a rematch.
                    Some(computer) => Box::pin(self.rematch(computer)).await.map(|_| seq),
                    None => Ok(seq),
                };
            }
        }
        let [white, black] = self.seats.each_ref().map(|seat| seat.token);
        let [white_player, black_player] = self.seats.each_ref().map(|seat| seat.player.clone());
        let computer = self
            .computer
            .as_ref()
            .map(|c| (c.color.opponent(), c.level));
        // Colours swap; the computer's seat gets a fresh token in the new room.
        let fresh = Fresh::new(
            self.game.variant(),
            self.visibility,
            self.clock.as_ref().map(Clock::control),
            [black, white],
            [black_player, white_player],
            computer,
            self.rated,
        );
        let stored = self
            .context
            .services
            .store
            .create_room(fresh.stored())
            .await;
        self.stored(stored).map_err(|refusal| Refused {
            message: "the rematch could not be made; try again".into(),
            ..refusal
        })?;
        tracing::info!(rematch = %fresh.id, "rematch made");
        self.rematch_offer = None;
        self.rematch = Some(fresh.id.clone());
        Ok(self.history.publish(
            |seq| ServerMessage::Rematch {
                seq,
                room: fresh.id,
            },
            None,
        ))
    }

    /// Ends the game off the board: stores the result, then announces it.
    pub(super) async fn end(&mut self, outcome: Outcome) -> Result<Seq, Refused> {
        let mail = self.mail(&self.game, None);
        let mailing = !mail.is_empty();
        let stored = self
            .context
            .services
            .store
            .finish(&self.id, self.incarnation, outcome, mail)
            .await;
        self.stored(stored)?;
        if mailing {
            self.context.services.mail.wake();
        }
        self.ending = Some(outcome);
        self.draw_offer = None;
        self.takeback_offer = None;
        if let Some(clock) = &mut self.clock {
            clock.stop(Instant::now());
        }
        tracing::info!(%outcome, "game over");
        let seq = self
            .history
            .publish(|seq| ServerMessage::GameOver { seq, outcome }, None);
        self.tell_tournament();
        self.rate().await;
        Ok(seq)
    }

    /// Once a tournament's game is over (and stored): tells its director, through
    /// whoever started the room. Nobody listening loses nothing: the director reads
    /// results from the store too.
    fn tell_tournament(&self) {
        if let Some(tournament) = &self.tournament {
            let _ = self.context.services.game_ends.send(GameEnded {
                room: self.id.clone(),
                tournament: tournament.clone(),
            });
        }
    }

    /// Once a rated game is over: rates it, and tells everyone what it did. Should the
    /// database fail, the registry's sweep rates the game later (and the players see it
    /// on their pages, not here).
    async fn rate(&mut self) {
        if !self.rated {
            return;
        }
        match self.context.services.store.rate_game(&self.id).await {
            Ok(Some(rated)) => {
                let changes = rating_changes(&rated);
                self.ratings = Some(changes.clone());
                self.history
                    .publish(|seq| ServerMessage::Ratings { seq, changes }, None);
            }
            // Aborted (a side never played), or rated already.
            Ok(None) => {}
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "rating the game failed; the sweep will try again");
            }
        }
    }

    /// Starts the computer thinking if it is to move and is not thinking yet (nor
    /// waiting after a storage failure); stops it once the game is over.
    pub(super) fn think_if_due(&mut self) {
        let Some(computer) = &self.computer else {
            return;
        };
        if self.outcome().is_some() {
            self.thinking = None;
        } else if self.thinking.is_none()
            && self.game.to_move() == computer.color
            && self.retry.until().is_none()
        {
            let thinking =
                self.context
                    .services
                    .computers
                    .think(computer, &self.game, self.clock.clone());
            self.thinking = Some(thinking);
        }
    }

    /// Plays the turn the computer chose, as a player's turn is played.
    pub(super) async fn computer_plays(&mut self, chosen: Chosen) {
        self.thinking = None;
        let (Some(computer), Some(choice)) = (&self.computer, chosen.choice) else {
            return;
        };
        let turn = choice.turn;
        tracing::debug!(
            %turn,
            depth = choice.depth,
            nodes = choice.nodes,
            waited_ms = millis(chosen.waited),
            budget_ms = millis(chosen.budget),
            "the computer chose"
        );
        let played = self.play_as(computer.color, turn).await;
        self.context
            .services
            .metrics
            .turn(played.as_ref().err().map(|refusal| refusal.code));
        if let Err(refusal) = played {
            // Only a storage failure can refuse it: it is tried again after a wait.
            tracing::error!(%turn, code = %refusal.code, "the computer's turn was refused");
        }
    }
}
