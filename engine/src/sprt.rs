//! How strong one player is against another, from their games: the score with its 95%
//! interval, the Elo difference, and the sequential probability ratio test (SPRT) that
//! stops a match once it has decided between two Elo differences.
//!
//! The test is fishtest's generalised SPRT on game results (a win 1, a draw ½, a loss
//! 0): for each hypothesis, the distribution of results nearest to the observed one
//! whose expected score is that hypothesis's (found by its Lagrange multiplier), and the
//! log-likelihood ratio of the games under the two. Unlike the normal approximation,
//! it stays sound for a run of wins alone: twelve straight wins weigh as they would in
//! a test of coin tosses. A count of none is taken as a thousandth, as fishtest does, so
//! that no result has a probability of zero.

/// Wins, draws and losses of one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Results {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// The two hypotheses and the errors allowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative, above `elo0`.
    pub elo1: f64,
    /// The chance allowed of accepting `elo1` when `elo0` holds.
    pub alpha: f64,
    /// The chance allowed of accepting `elo0` when `elo1` holds.
    pub beta: f64,
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The difference is `elo0` or less, as far as the test can tell.
    AcceptElo0,
    /// The difference is `elo1` or more.
    AcceptElo1,
    /// Not yet decided: play on.
    Continue,
}

/// The score a player of `elo` more than the opponent expects (the logistic curve).
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that expects `score` (infinite at 0 and 1).
pub fn elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The value of a result for the player, and how many times it came.
type Counted = [(f64, f64); 3];

impl Results {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The results as values and counts, none counted as a thousandth.
    fn counted(&self) -> Counted {
        let count = |n: u32| if n == 0 { 1e-3 } else { f64::from(n) };
        [
            (0.0, count(self.losses)),
            (0.5, count(self.draws)),
            (1.0, count(self.wins)),
        ]
    }

    /// The mean score, and the variance of one game's score.
    fn moments(&self) -> (f64, f64) {
        let counted = self.counted();
        let n: f64 = counted.iter().map(|(_, c)| c).sum();
        let mean = counted.iter().map(|(v, c)| v * c).sum::<f64>() / n;
        let variance = counted
            .iter()
            .map(|(v, c)| c * (v - mean).powi(2))
            .sum::<f64>()
            / n;
        (mean, variance)
    }

    /// The score (wins and half the draws, over the games) and its 95% interval, by the
    /// normal approximation; `None` before the first game.
    pub fn score(&self) -> Option<(f64, f64, f64)> {
        if self.games() == 0 {
            return None;
        }
        let score = (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games());
        let (_, variance) = self.moments();
        let half = 1.959_964 * (variance / f64::from(self.games())).sqrt();
        Some((score, (score - half).max(0.0), (score + half).min(1.0)))
    }

    /// The log-likelihood ratio of these games for a difference of `elo1` against one of
    /// `elo0`: positive when they speak for `elo1`.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        let counted = self.counted();
        let n: f64 = counted.iter().map(|(_, c)| c).sum();
        let observed = counted.map(|(v, c)| (v, c / n));
        let nearest0 = nearest(&observed, expected_score(elo0));
        let nearest1 = nearest(&observed, expected_score(elo1));
        let per_game: f64 = observed
            .iter()
            .zip(nearest0.iter().zip(&nearest1))
            .map(|(&(_, p), (&q0, &q1))| p * (q1 / q0).ln())
            .sum();
        f64::from(self.games()) * per_game
    }
}

impl Sprt {
    /// The log-likelihood ratio below which `elo0` is accepted, and the one above which
    /// `elo1` is (Wald's bounds).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// What `results` decide.
    pub fn verdict(&self, results: &Results) -> Verdict {
        let llr = results.llr(self.elo0, self.elo1);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::AcceptElo1
        } else if llr <= lower {
            Verdict::AcceptElo0
        } else {
            Verdict::Continue
        }
    }
}

/// The distribution over the values of `observed` (value, probability) with expected
/// value `mean` that is nearest to it (the most likely for those games): each
/// probability `p / (1 + λ (value − mean))`, with `λ` the root, found by bisection, of
/// `Σ p (value − mean) / (1 + λ (value − mean))`, which falls as `λ` rises.
fn nearest(observed: &Counted, mean: f64) -> [f64; 3] {
    let gap = |lambda: f64| -> f64 {
        observed
            .iter()
            .map(|&(v, p)| p * (v - mean) / (1.0 + lambda * (v - mean)))
            .sum()
    };
    // Every denominator is positive for λ strictly between these (values are 0 to 1).
    let (mut low, mut high) = (-1.0 / (1.0 - mean), 1.0 / mean);
    for _ in 0..200 {
        let middle = (low + high) / 2.0;
        if gap(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    let lambda = (low + high) / 2.0;
    observed.map(|(v, p)| p / (1.0 + lambda * (v - mean)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(wins: u32, draws: u32, losses: u32) -> Results {
        Results {
            wins,
            draws,
            losses,
        }
    }

    fn close(a: f64, b: f64, within: f64) -> bool {
        (a - b).abs() <= within
    }

    #[test]
    fn scores_and_elo_follow_the_logistic_curve() {
        assert!(close(expected_score(0.0), 0.5, 1e-12));
        // 400 Elo: ten to one.
        assert!(close(expected_score(400.0), 10.0 / 11.0, 1e-12));
        assert!(close(elo(0.75), 190.848, 1e-3));
        assert!(close(elo(expected_score(-123.0)), -123.0, 1e-9));
    }

    #[test]
    fn the_score_has_a_95_percent_interval() {
        // 60-20-20: a score of 0.7; one game's variance is
        // (60·0.3² + 20·0.2² + 20·0.7²)/100 = 0.16, so the interval is
        // 0.7 ± 1.96·√(0.16/100) = 0.7 ± 0.0784.
        let (score, low, high) = results(60, 20, 20).score().unwrap();
        assert!(close(score, 0.7, 1e-12));
        assert!(
            close(low, 0.6216, 1e-4) && close(high, 0.7784, 1e-4),
            "{low} {high}"
        );
        assert_eq!(Results::default().score(), None);
    }

    #[test]
    fn the_llr_matches_values_worked_by_hand() {
        // 60-20-20 (probabilities 0.2, 0.2, 0.6 of a loss, a draw, a win) for 50 Elo
        // against 0. For s0 = 0.5, λ = 1 solves the equation: q0 = (0.2/0.5, 0.2/1,
        // 0.6/1.5) = (0.4, 0.2, 0.4), which sums to 1 with mean 0.5. For s1 =
        // 1/(1 + 10^-0.125) = 0.571463, λ = 0.66812 (Newton's method by hand) gives
        // q1 = (0.32352, 0.21003, 0.46645). So the LLR is
        // 100·(0.2 ln(0.32352/0.4) + 0.2 ln(0.21003/0.2) + 0.6 ln(0.46645/0.4))
        // = 100·(−0.042432 + 0.009786 + 0.092214) = 5.957. (The normal approximation,
        // N(s1 − s0)(2s − s0 − s1)/(2σ²) = 100·0.071463·0.328537/0.32, says 7.337.)
        let llr = results(60, 20, 20).llr(0.0, 50.0);
        assert!(close(llr, 5.957, 0.002), "{llr}");
        // Nothing but wins is a coin-tossing test: each win adds ln(s1/s0), with
        // s1 = 1/(1 + 10^-0.25) = 0.640065 for 100 Elo, so ln(1.28013) = 0.24696.
        let llr = results(12, 0, 0).llr(0.0, 100.0);
        assert!(close(llr, 12.0 * 0.24696, 0.01), "{llr}");
        // Even games speak against a difference.
        assert!(results(50, 0, 50).llr(0.0, 50.0) < 0.0);
        assert_eq!(Results::default().llr(0.0, 50.0), 0.0);
    }

    #[test]
    fn the_test_decides_at_walds_bounds() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 100.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // ln(0.05/0.95) and ln(0.95/0.05): ∓2.944.
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944, 1e-3) && close(upper, 2.944, 1e-3));
        // Eleven straight wins weigh 11·0.24696 = 2.717, twelve 2.964.
        assert_eq!(sprt.verdict(&results(11, 0, 0)), Verdict::Continue);
        assert_eq!(sprt.verdict(&results(12, 0, 0)), Verdict::AcceptElo1);
        assert_eq!(sprt.verdict(&results(40, 0, 40)), Verdict::AcceptElo0);
    }
}
