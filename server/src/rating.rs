//! Glicko-2 ratings of rated games, one rating per player and variant.
//!
//! Each rated game is a rating period of its own, as on Lichess, so a rating moves as
//! soon as the game ends. Before that period, each player's deviation grows by one
//! rating period for every whole day since their last rated game. The arithmetic is
//! `skillratings`' (its default configuration: tau 0.5, tolerance 0.000001).
//!
//! Everything here is a pure function of its arguments: no clock and no randomness,
//! because the server must rebuild every rating from the stored games and get the same
//! bits it stored. The same bits on the same platform, that is: `exp`, `ln` and `hypot`
//! come from the system's maths library, which elsewhere may round a last bit apart.

use std::collections::HashMap;

use punct_rules::{Color, Outcome, Variant};
use skillratings::Outcomes;
use skillratings::glicko2::{self, Glicko2Config, Glicko2Rating};

/// One rating period of inactivity, in milliseconds: a day.
const PERIOD_MS: i64 = 86_400_000;

/// A player's Glicko-2 rating in one variant, on the Glicko scale (1500 / 350 / 0.06 for
/// a newcomer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rating {
    /// The rating itself: the centre of what we believe the player's strength to be.
    pub(crate) rating: f64,
    /// How unsure that rating is (RD): one standard deviation, in rating points.
    pub(crate) deviation: f64,
    /// How erratic the player's results are: how fast the deviation grows with time.
    pub(crate) volatility: f64,
}

impl Rating {
    /// A player who has never played a rated game in this variant.
    pub(crate) const NEW: Rating = Rating {
        rating: 1500.0,
        deviation: MAX_DEVIATION,
        volatility: 0.06,
    };

    /// Provisional while the deviation is above 110 (as Lichess marks "?").
    pub(crate) fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_ABOVE
    }

    /// The deviation grown by inactivity: one Glicko-2 rating period per whole day
    /// between `since` and `at` (ms since the Unix epoch), never above 350. A clock that
    /// went backwards (`at` before `since`) counts as no time at all.
    pub(crate) fn decayed(self, since: i64, at: i64) -> Rating {
        let periods = at.saturating_sub(since).max(0) / PERIOD_MS;
        if periods == 0 {
            return self;
        }
        // skillratings decays one period at a time: phi' = hypot(phi, sigma), capped at
        // 350. Over n periods that is sqrt(phi^2 + n sigma^2), capped (the cap is reached
        // once and then holds), so one call with sigma * sqrt(n) does all n: the same
        // function of the inputs, in constant time even after years away. A test checks
        // it against the period-by-period loop.
        let widened = Glicko2Rating {
            volatility: self.volatility * (periods as f64).sqrt(),
            ..self.into()
        };
        Rating {
            deviation: glicko2::decay_deviation(&widened).deviation,
            ..self
        }
    }
}

/// A rating as players read it: whole points.
pub(crate) fn shown(rating: f64) -> u32 {
    rating.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// The deviation of a newcomer, and the most inactivity can bring anyone back to.
const MAX_DEVIATION: f64 = 350.0;

/// Above this deviation a rating is marked provisional.
pub(crate) const PROVISIONAL_ABOVE: f64 = 110.0;

impl From<Rating> for Glicko2Rating {
    fn from(rating: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(rating: Glicko2Rating) -> Rating {
        Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

/// A player's standing before a game: their rating and when they last played a rated
/// game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Standing {
    /// Their rating after their last rated game in this variant ([`Rating::NEW`] if none).
    pub(crate) rating: Rating,
    /// When that game ended, in ms since the Unix epoch; `None` if there was none, so
    /// nothing has decayed.
    pub(crate) last_rated_at: Option<i64>,
}

impl Standing {
    /// A player who has never played a rated game in the variant.
    pub(crate) const NEW: Standing = Standing {
        rating: Rating::NEW,
        last_rated_at: None,
    };

    /// The rating as it stands at `at`, inactivity included.
    pub(crate) fn at(&self, at: i64) -> Rating {
        match self.last_rated_at {
            Some(since) => self.rating.decayed(since, at),
            None => self.rating,
        }
    }
}

/// The result of a rated game, from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Score {
    /// White won (by the rules, resignation, time or abandonment).
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Neither did.
    Draw,
}

/// White's and Black's ratings after a rated game that ended at `at` (ms since the Unix
/// epoch): each first decayed for inactivity since their last rated game, then one
/// Glicko-2 rating period holding only this game.
pub(crate) fn rate(white: &Standing, black: &Standing, score: Score, at: i64) -> [Rating; 2] {
    let outcome = match score {
        Score::WhiteWins => Outcomes::WIN,
        Score::BlackWins => Outcomes::LOSS,
        Score::Draw => Outcomes::DRAW,
    };
    // `glicko2` rates both players from their ratings before the game, each as one
    // period with the other as the only opponent: the paper's update, done twice.
    let (white, black) = glicko2::glicko2(
        &white.at(at).into(),
        &black.at(at).into(),
        &outcome,
        &Glicko2Config::new(),
    );
    [white.into(), black.into()]
}

impl Score {
    /// The score of a finished game.
    pub(crate) fn of(outcome: Outcome) -> Score {
        match outcome {
            Outcome::Win {
                winner: Color::White,
                ..
            } => Score::WhiteWins,
            Outcome::Win {
                winner: Color::Black,
                ..
            } => Score::BlackWins,
            Outcome::Draw { .. } => Score::Draw,
        }
    }
}

/// What a rated game did to one player's rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Change {
    /// Before the game, inactivity included.
    pub(crate) before: Rating,
    /// After it.
    pub(crate) after: Rating,
}

impl Change {
    /// White's and Black's changes from a game that ended in `outcome` at `at`, between
    /// players who stood as `standings` said.
    pub(crate) fn of_game(standings: [Standing; 2], outcome: Outcome, at: i64) -> [Change; 2] {
        let [white, black] = standings;
        let [white_after, black_after] = rate(&white, &black, Score::of(outcome), at);
        [
            Change {
                before: white.at(at),
                after: white_after,
            },
            Change {
                before: black.at(at),
                after: black_after,
            },
        ]
    }
}

/// What a player's first result of a puzzle did to both ratings: the puzzle is rated as
/// the player's opponent in a game the player wins by solving it, as Lichess rates
/// puzzles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PuzzleChange {
    /// The player's rating, before (inactivity included) and after.
    pub(crate) player: Change,
    /// The puzzle's rating after.
    pub(crate) puzzle: Rating,
}

impl PuzzleChange {
    /// The ratings after a player who stood as `player` `solved` (or failed) a puzzle
    /// rated `puzzle` at `at`. A puzzle's strength does not fade while nobody plays it,
    /// so only the player's deviation grows with time.
    pub(crate) fn of(player: Standing, puzzle: Rating, solved: bool, at: i64) -> PuzzleChange {
        let puzzle = Standing {
            rating: puzzle,
            last_rated_at: None,
        };
        let score = if solved {
            Score::WhiteWins
        } else {
            Score::BlackWins
        };
        let [after, puzzle] = rate(&player, &puzzle, score, at);
        PuzzleChange {
            player: Change {
                before: player.at(at),
                after,
            },
            puzzle,
        }
    }
}

/// Every player's rating in every variant, built by replaying rated games in the order
/// they were rated: how ratings are rebuilt from the archive.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    /// Each (account, variant)'s standing and rated games.
    table: HashMap<(String, Variant), (Standing, u32)>,
}

impl Ledger {
    /// Rates the next game: `accounts` (White's, Black's) played `variant`, ending in
    /// `outcome` at `at`.
    pub(crate) fn rate(
        &mut self,
        accounts: [&str; 2],
        variant: Variant,
        outcome: Outcome,
        at: i64,
    ) -> [Change; 2] {
        let standing = |account: &str| {
            self.table
                .get(&(account.to_owned(), variant))
                .map_or(Standing::NEW, |(standing, _)| *standing)
        };
        let changes = Change::of_game(accounts.map(standing), outcome, at);
        for (account, change) in accounts.into_iter().zip(changes) {
            let entry = self
                .table
                .entry((account.to_owned(), variant))
                .or_insert((Standing::NEW, 0));
            entry.0 = Standing {
                rating: change.after,
                last_rated_at: Some(at),
            };
            entry.1 += 1;
        }
        changes
    }

    /// Every (account, variant), with its standing and rated games.
    pub(crate) fn into_entries(self) -> impl Iterator<Item = ((String, Variant), (Standing, u32))> {
        self.table.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's Glicko-2 (`punct-testing`), on this module's ratings.
    mod paper {
        use punct_testing::glicko2::{self, Glicko, Period};

        use super::Rating;

        fn glicko(rating: Rating) -> Glicko {
            Glicko {
                rating: rating.rating,
                deviation: rating.deviation,
                volatility: rating.volatility,
            }
        }

        pub(super) fn rating(glicko: Glicko) -> Rating {
            Rating {
                rating: glicko.rating,
                deviation: glicko.deviation,
                volatility: glicko.volatility,
            }
        }

        pub(super) fn period(player: Rating, games: &[(Rating, f64)]) -> Period {
            let games: Vec<(Glicko, f64)> = games.iter().map(|&(o, s)| (glicko(o), s)).collect();
            glicko2::period(glicko(player), &games)
        }

        pub(super) fn idle(player: Rating, periods: i64) -> Rating {
            rating(glicko2::idle(glicko(player), periods))
        }
    }

    /// Some instant well after the epoch, where the tests' games are played.
    const T0: i64 = 1_750_000_000_000;
    const HOUR: i64 = 3_600_000;
    const DAY: i64 = PERIOD_MS;

    fn rating(rating: f64, deviation: f64, volatility: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility,
        }
    }

    #[test]
    fn the_independent_implementation_reproduces_the_papers_worked_example() {
        let player = rating(1500.0, 200.0, 0.06);
        let games = [
            (rating(1400.0, 30.0, 0.06), 1.0),
            (rating(1550.0, 100.0, 0.06), 0.0),
            (rating(1700.0, 300.0, 0.06), 0.0),
        ];
        let period = paper::period(player, &games);
        let after = period.rating();

        // The paper works out v and Δ from E values rounded to three places, which
        // moves them in the fourth (exactly, v = 1.77898 and Δ = -0.48394).
        assert!((period.v - 1.7785).abs() < 0.001, "v = {}", period.v);
        assert!(
            (period.delta + 0.4834).abs() < 0.001,
            "Δ = {}",
            period.delta
        );
        // The results, to the digits the paper prints.
        assert!((period.mu + 0.2069).abs() < 0.00005, "μ' = {}", period.mu);
        assert!((period.phi - 0.8722).abs() < 0.00005, "φ' = {}", period.phi);
        // The paper prints σ' = 0.05999, cutting off 0.0599960 rather than rounding it.
        assert!(
            (0.05999..0.06000).contains(&period.sigma),
            "σ' = {}",
            period.sigma
        );
        // r' = 1464.06 in the paper is 173.7178 × μ' + 1500 with μ' already rounded to
        // four places, which alone moves it by up to 0.009 (exactly, r' = 1464.0507).
        assert!(
            (after.rating - 1464.06).abs() < 0.01,
            "r' = {}",
            after.rating
        );
        assert!(
            (after.deviation - 151.52).abs() < 0.005,
            "RD' = {}",
            after.deviation
        );
    }

    /// The ratings of four players after each game of a sequence, by [`rate`] and by the
    /// paper, must agree.
    ///
    /// Both do the same arithmetic in a different order (skillratings uses fused
    /// multiply-adds and `hypot`, and [`Rating::decayed`] its closed form where the
    /// paper goes period by period), and their volatility iterations take the same
    /// steps, so they differ by rounding only: at most 2e-15 relative here. 1e-12
    /// leaves room for rounding to pile up, while a wrong formula, the score taken from
    /// the wrong side or a day of decay too many or too few moves some value by 1e-4
    /// relative or more.
    #[test]
    fn rate_agrees_with_the_paper_over_a_sequence_of_games() {
        use Score::*;
        // (end of the game, white, black, score)
        let games: [(i64, usize, usize, Score); 14] = [
            (T0, 0, 1, WhiteWins),
            (T0 + HOUR, 2, 3, Draw),
            (T0 + 2 * HOUR, 1, 2, BlackWins),
            (T0 + 3 * HOUR, 3, 0, WhiteWins),
            // Under a day since their last games: no decay.
            (T0 + 20 * HOUR, 0, 2, Draw),
            (T0 + 3 * DAY, 1, 3, WhiteWins),
            (T0 + 3 * DAY + HOUR, 0, 1, BlackWins),
            // Player 2 away for 30 days and a half.
            (T0 + 31 * DAY + 8 * HOUR, 2, 0, WhiteWins),
            (T0 + 31 * DAY + 9 * HOUR, 3, 2, Draw),
            (T0 + 32 * DAY, 1, 0, Draw),
            // Player 3 away long enough for the deviation to reach the cap of 350.
            (T0 + 1200 * DAY, 3, 1, BlackWins),
            (T0 + 1200 * DAY + HOUR, 2, 3, BlackWins),
            (T0 + 1201 * DAY, 0, 3, WhiteWins),
            (T0 + 1201 * DAY + HOUR, 0, 3, Draw),
        ];
        let new = Standing {
            rating: Rating::NEW,
            last_rated_at: None,
        };
        let mut ours = [new; 4];
        let mut theirs = [new; 4];
        let mut capped = 0;

        for (n, &(at, white, black, score)) in games.iter().enumerate() {
            let [w, b] = rate(&ours[white], &ours[black], score, at);
            ours[white] = Standing {
                rating: w,
                last_rated_at: Some(at),
            };
            ours[black] = Standing {
                rating: b,
                last_rated_at: Some(at),
            };

            let before = |standing: &Standing| match standing.last_rated_at {
                Some(since) => paper::idle(standing.rating, (at - since) / DAY),
                None => standing.rating,
            };
            let (w, b) = (before(&theirs[white]), before(&theirs[black]));
            // Newcomers start at 350; count the returns from a long absence.
            capped += [(white, w), (black, b)]
                .iter()
                .filter(|(p, r)| theirs[*p].last_rated_at.is_some() && r.deviation == 350.0)
                .count();
            let white_score = match score {
                WhiteWins => 1.0,
                BlackWins => 0.0,
                Draw => 0.5,
            };
            theirs[white] = Standing {
                rating: paper::rating(paper::period(w, &[(b, white_score)]).rating()),
                last_rated_at: Some(at),
            };
            theirs[black] = Standing {
                rating: paper::rating(paper::period(b, &[(w, 1.0 - white_score)]).rating()),
                last_rated_at: Some(at),
            };

            for player in [white, black] {
                let (ours, theirs) = (ours[player].rating, theirs[player].rating);
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
                assert!(
                    close(ours.rating, theirs.rating)
                        && close(ours.deviation, theirs.deviation)
                        && close(ours.volatility, theirs.volatility),
                    "game {n}, player {player}: {ours:?} by skillratings, {theirs:?} by the paper"
                );
            }
        }

        // The sequence did what it was written for: the long absences reached the cap,
        // and the games moved ratings well away from where they began.
        assert_eq!(
            capped, 4,
            "everyone comes back from the long break at the cap"
        );
        assert!(
            ours.iter()
                .any(|s| (s.rating.rating - 1500.0).abs() > 100.0)
        );
    }

    #[test]
    fn decay_takes_the_deviation_up_to_350_and_never_above() {
        let settled = rating(1720.0, 60.0, 0.06);
        let idle_for = |days: i64| settled.decayed(T0, T0 + days * DAY);
        assert!(idle_for(30).deviation > idle_for(0).deviation);
        assert!(idle_for(30).deviation > idle_for(29).deviation);
        assert!(idle_for(30).deviation < 350.0);
        assert_eq!(idle_for(10_000).deviation, 350.0);
        // Only the deviation moves.
        assert_eq!(idle_for(30).rating, settled.rating);
        assert_eq!(idle_for(30).volatility, settled.volatility);
        // A newcomer is already at the cap.
        assert_eq!(Rating::NEW.decayed(T0, T0 + 30 * DAY), Rating::NEW);
        // Decades from the epoch do not overflow or hang.
        assert_eq!(settled.decayed(0, i64::MAX).deviation, 350.0);
    }

    #[test]
    fn decay_counts_whole_days_only() {
        let settled = rating(1720.0, 60.0, 0.06);
        assert_eq!(settled.decayed(T0, T0), settled);
        assert_eq!(settled.decayed(T0, T0 + DAY - 1), settled);
        assert_ne!(settled.decayed(T0, T0 + DAY), settled);
        assert_eq!(
            settled.decayed(T0, T0 + 2 * DAY - 1),
            settled.decayed(T0, T0 + DAY)
        );
        // A clock that went backwards is no time at all.
        assert_eq!(settled.decayed(T0, T0 - 5 * DAY), settled);
    }

    /// The closed form in [`Rating::decayed`] is what skillratings' own decay does when
    /// applied once per period.
    #[test]
    fn decay_matches_skillratings_period_by_period() {
        for start in [
            rating(1500.0, 45.0, 0.06),
            rating(2100.0, 120.0, 0.0599),
            rating(1300.0, 300.0, 0.09),
        ] {
            let mut step: Glicko2Rating = start.into();
            for days in 1..=400 {
                step = glicko2::decay_deviation(&step);
                let closed = start.decayed(T0, T0 + days * DAY).deviation;
                assert!(
                    (closed - step.deviation).abs() <= 1e-9 * step.deviation,
                    "{start:?} after {days} days: {closed} in closed form, {} by periods",
                    step.deviation
                );
            }
        }
    }

    #[test]
    fn a_deviation_above_110_is_provisional() {
        assert!(Rating::NEW.provisional());
        assert!(rating(1500.0, 110.1, 0.06).provisional());
        assert!(!rating(1500.0, 110.0, 0.06).provisional());
        assert!(!rating(1500.0, 100.0, 0.06).provisional());
    }

    #[test]
    fn rate_gives_the_same_bits_every_time() {
        let white = Standing {
            rating: rating(1612.25, 87.5, 0.05991),
            last_rated_at: Some(T0 - 17 * DAY - 5),
        };
        let black = Standing {
            rating: rating(1544.0, 140.0, 0.0603),
            last_rated_at: Some(T0 - 2 * HOUR),
        };
        for score in [Score::WhiteWins, Score::BlackWins, Score::Draw] {
            let bits = |ratings: [Rating; 2]| {
                ratings.map(|r| [r.rating, r.deviation, r.volatility].map(f64::to_bits))
            };
            let first = bits(rate(&white, &black, score, T0));
            let second = bits(rate(&white, &black, score, T0));
            assert_eq!(first, second);
        }
    }

    #[test]
    fn a_win_moves_the_players_apart_and_a_draw_between_equals_moves_nobody() {
        let even = Standing {
            rating: rating(1500.0, 80.0, 0.06),
            last_rated_at: Some(T0),
        };
        let [white, black] = rate(&even, &even, Score::WhiteWins, T0);
        assert!(white.rating > 1500.0 && black.rating < 1500.0);
        let [white, black] = rate(&even, &even, Score::BlackWins, T0);
        assert!(white.rating < 1500.0 && black.rating > 1500.0);
        let [white, black] = rate(&even, &even, Score::Draw, T0);
        assert!((white.rating - 1500.0).abs() < 1e-9 && (black.rating - 1500.0).abs() < 1e-9);
    }
}
