//! Chance-corrected agreement between the judge and the humans: Cohen's κ, PABAK and Gwet's
//! AC1. Three numbers because κ is known to drop when one class is rare even for a good judge
//! (the "kappa paradox"); PABAK and AC1 are the usual answers to that, and a reader who sees
//! all three can tell prevalence from disagreement.

use super::Confusion;

/// Observed agreement p_o; `None` for an empty matrix.
fn observed(c: &Confusion) -> Option<f64> {
    let n = c.n();
    (n > 0).then(|| c.agreements() as f64 / n as f64)
}

/// Cohen's κ = (p_o − p_e) / (1 − p_e), with p_e from each rater's own marginals.
///
/// `None` when p_e = 1 (both raters used one and the same class), where κ is 0/0. It is
/// symmetric in the raters and in the classes.
pub fn cohen_kappa(c: &Confusion) -> Option<f64> {
    let po = observed(c)?;
    let n = c.n() as f64;
    let pe = (c.human_pass() as f64 * c.judge_pass() as f64
        + c.human_fail() as f64 * c.judge_fail() as f64)
        / (n * n);
    (pe < 1.0).then(|| (po - pe) / (1.0 - pe))
}

/// Prevalence- and bias-adjusted κ: 2 p_o − 1, κ with chance agreement fixed at 1/2.
pub fn pabak(c: &Confusion) -> Option<f64> {
    observed(c).map(|po| 2.0 * po - 1.0)
}

/// Gwet's AC1 for two raters and two classes: chance agreement 2π(1 − π), π the mean of the
/// two raters' PASS shares. It stays near p_o when one class is rare, where κ collapses.
pub fn gwet_ac1(c: &Confusion) -> Option<f64> {
    let po = observed(c)?;
    let n = c.n() as f64;
    let pi = (c.human_pass() as f64 + c.judge_pass() as f64) / (2.0 * n);
    let pe = 2.0 * pi * (1.0 - pi);
    // pe ≤ 1/2 always, so the denominator is never 0.
    Some((po - pe) / (1.0 - pe))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round4(x: Option<f64>) -> f64 {
        (x.unwrap() * 1e4).round() / 1e4
    }

    #[test]
    fn design_check_40_10_5_45() {
        let c = Confusion::new(40, 10, 5, 45);
        assert_eq!(round4(cohen_kappa(&c)), 0.7000);
        assert_eq!(round4(gwet_ac1(&c)), 0.7007);
        assert_eq!(round4(pabak(&c)), 0.7000);
    }

    #[test]
    fn design_check_85_5_8_2() {
        let c = Confusion::new(85, 5, 8, 2);
        assert_eq!(round4(cohen_kappa(&c)), 0.1667);
        // Where κ collapses, PABAK and AC1 stay near the raw agreement of 0.87.
        assert_eq!(round4(pabak(&c)), 0.7400);
        assert_eq!(round4(gwet_ac1(&c)), 0.8461);
    }

    #[test]
    fn perfect_agreement_and_its_undefined_corner() {
        assert_eq!(cohen_kappa(&Confusion::new(3, 0, 0, 7)), Some(1.0));
        assert_eq!(cohen_kappa(&Confusion::new(3, 0, 0, 0)), None);
        assert_eq!(pabak(&Confusion::new(3, 0, 0, 0)), Some(1.0));
        assert_eq!(gwet_ac1(&Confusion::new(3, 0, 0, 0)), Some(1.0));
        assert_eq!(cohen_kappa(&Confusion::default()), None);
        assert_eq!(gwet_ac1(&Confusion::default()), None);
    }

    #[test]
    fn a_judge_that_always_passes_has_kappa_zero() {
        assert_eq!(cohen_kappa(&Confusion::new(6, 0, 4, 0)), Some(0.0));
    }
}
