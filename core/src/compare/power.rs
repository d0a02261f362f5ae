//! How large a drop this comparison could have seen: the minimum detectable effect (MDE).
//!
//! An interval that straddles zero means little on its own: it may be narrow (no difference
//! worth worrying about) or so wide that a large drop would have gone unnoticed. The MDE puts a
//! number on that, so that a small Δ from few tasks reads "inconclusive", not "fine".

use super::ClusteredDifference;
use crate::stats::{t_critical_95, t_quantile_80};

/// The smallest true drop that this comparison's design would call a regression (95% interval
/// entirely below 0) with 80% power: (t₀.₉₇₅,df + t₀.₈₀,df)·SE, with df = n − 1.
///
/// Post hoc: it uses the observed SE as the SE of the design, so it describes this suite at
/// this number of tasks and attempts. `None` without an SE (a single task), and when the SE
/// is 0 (every task changed by the same amount): a spread of 0 is what these tasks happened
/// to show, not a design that detects any drop, and an MDE of 0 would say the latter.
pub fn minimum_detectable_effect(diff: &ClusteredDifference) -> Option<f64> {
    let se = diff.se.filter(|se| *se > 0.0)?;
    Some((t_critical_95(diff.df) + t_quantile_80(diff.df)) * se)
}

/// The number of tasks at which the MDE would shrink to `effect`, if per-task differences kept
/// the spread `sd`: the smallest n ≥ 2 with (t₀.₉₇₅,n−1 + t₀.₈₀,n−1)·sd/√n ≤ effect.
///
/// A planning figure ("about 600 tasks to detect a 0.05 drop"), not a promise: more attempts
/// per task also shrink `sd`. `None` when `sd` is 0 (any suite detects anything) or `effect`
/// is not positive.
pub fn tasks_to_detect(sd: f64, effect: f64) -> Option<u64> {
    if !(sd > 0.0 && effect > 0.0 && sd.is_finite() && effect.is_finite()) {
        return None;
    }
    let mde = |n: u64| (t_critical_95(n - 1) + t_quantile_80(n - 1)) * sd / (n as f64).sqrt();
    // The MDE falls with n; double to bracket the answer, then bisect.
    let mut high: u64 = 2;
    while mde(high) > effect {
        high = high.checked_mul(2)?;
    }
    let mut low = high / 2;
    if low < 2 {
        return Some(2);
    }
    // Invariant: mde(low) > effect ≥ mde(high).
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if mde(mid) > effect {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::difference::clustered_difference;

    #[test]
    fn design_example_could_only_see_large_drops() {
        let d = [-0.6, 0.0, -0.4, 0.0, 0.4, -0.8, 0.0, 0.0, 0.0, -0.6];
        let diff = clustered_difference(&d).unwrap();
        let mde = minimum_detectable_effect(&diff).unwrap();
        // (2.2622 + 0.8834) · 0.11926 = 0.3751.
        assert_eq!((mde * 1e4).round() / 1e4, 0.3751);
        let n = tasks_to_detect(diff.sd, 0.05).unwrap();
        let at =
            |n: u64| (t_critical_95(n - 1) + t_quantile_80(n - 1)) * diff.sd / (n as f64).sqrt();
        assert!(at(n) <= 0.05 && at(n - 1) > 0.05, "{n}");
        // Close to the normal approximation ((1.96 + 0.84)·SD/0.05)².
        assert!(
            (n as f64 - (2.8016 * diff.sd / 0.05).powi(2)).abs() < 10.0,
            "{n}"
        );
    }

    #[test]
    fn edges() {
        let one = clustered_difference(&[0.2]).unwrap();
        assert_eq!(minimum_detectable_effect(&one), None);
        let alike = clustered_difference(&[-0.2; 6]).unwrap();
        assert_eq!(alike.se, Some(0.0));
        assert_eq!(minimum_detectable_effect(&alike), None, "no spread, no MDE");
        assert_eq!(tasks_to_detect(0.0, 0.05), None);
        assert_eq!(tasks_to_detect(0.3, 0.0), None);
        // A huge effect is detectable with the fewest tasks that give a spread at all.
        assert_eq!(tasks_to_detect(0.01, 1.0), Some(2));
    }
}
