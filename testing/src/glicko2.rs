//! Glicko-2 written straight from Glickman's "Example of the Glicko-2 system" (steps 1
//! to 8), for checking a rating system against the paper rather than against itself: it
//! shares no code with the server's ratings, nor with the crate they are built on.

use std::f64::consts::PI;

/// A rating on the Glicko scale: rating, deviation (RD) and volatility.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko {
    /// The rating.
    pub rating: f64,
    /// The deviation.
    pub deviation: f64,
    /// The volatility.
    pub volatility: f64,
}

/// The factor between the Glicko scale and the Glicko-2 scale (step 2).
const SCALE: f64 = 173.7178;
/// The system constant: how much the volatility may change (step 1).
const TAU: f64 = 0.5;
/// The convergence tolerance of the volatility iteration (step 5).
const EPSILON: f64 = 0.000_001;

/// The outcome of one rating period on the Glicko-2 scale, with the
/// intermediate quantities the paper prints for its example.
pub struct Period {
    /// Estimated variance of the rating from the games alone (step 3).
    pub v: f64,
    /// Estimated improvement (step 4).
    pub delta: f64,
    /// New rating, Glicko-2 scale (step 7).
    pub mu: f64,
    /// New deviation, Glicko-2 scale (step 7).
    pub phi: f64,
    /// New volatility (step 5).
    pub sigma: f64,
}

impl Period {
    /// Back on the Glicko scale (step 8).
    pub fn rating(&self) -> Glicko {
        Glicko {
            rating: SCALE * self.mu + 1500.0,
            deviation: SCALE * self.phi,
            volatility: self.sigma,
        }
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

fn e(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// One rating period in which `player` met each opponent once, scoring 1, 0.5
/// or 0 against each.
pub fn period(player: Glicko, games: &[(Glicko, f64)]) -> Period {
    // Step 2: onto the Glicko-2 scale.
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;
    let opponents: Vec<(f64, f64, f64)> = games
        .iter()
        .map(|(o, s)| ((o.rating - 1500.0) / SCALE, o.deviation / SCALE, *s))
        .collect();

    // Steps 3 and 4.
    let mut inverse_v = 0.0;
    let mut improvement = 0.0;
    for &(mu_j, phi_j, s_j) in &opponents {
        let e_j = e(mu, mu_j, phi_j);
        inverse_v += g(phi_j) * g(phi_j) * e_j * (1.0 - e_j);
        improvement += g(phi_j) * (s_j - e_j);
    }
    let v = 1.0 / inverse_v;
    let delta = v * improvement;

    // Step 5: the new volatility, by the Illinois algorithm.
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex)
            / (2.0 * (phi * phi + v + ex) * (phi * phi + v + ex))
            - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    while (big_b - big_a).abs() > EPSILON {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    let new_sigma = (big_a / 2.0).exp();

    // Step 6: the pre-period deviation.
    let phi_star = (phi * phi + new_sigma * new_sigma).sqrt();

    // Step 7: the new deviation and rating.
    let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let new_mu = mu + new_phi * new_phi * improvement;

    Period {
        v,
        delta,
        mu: new_mu,
        phi: new_phi,
        sigma: new_sigma,
    }
}

/// `periods` rating periods without a game: the paper's rule for a player who
/// did not compete (step 6 alone, with the old volatility), one period at a
/// time. Capped at an RD of 350, which is not in the Glicko-2 paper but is
/// Glicko's cap and the one our module promises.
pub fn idle(player: Glicko, periods: i64) -> Glicko {
    let mut phi = player.deviation / SCALE;
    for _ in 0..periods {
        phi = (phi * phi + player.volatility * player.volatility).sqrt();
    }
    Glicko {
        deviation: (phi * SCALE).min(350.0),
        ..player
    }
}
