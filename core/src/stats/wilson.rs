//! Wilson score interval for a binomial proportion.

use super::Interval;

/// Wilson score interval for `successes` out of `trials` at normal quantile `z` (> 0).
///
/// Wilson rather than the textbook normal ("Wald") interval because agent suites are small and
/// pass rates often sit at 0 or 1, where Wald collapses to a zero-width interval; Wilson stays
/// inside [0, 1] and keeps sensible coverage there.
///
/// `trials == 0` gives `None` (no data, no interval), as does `successes > trials`, for which no
/// proportion exists. At `successes == 0` the low bound is exactly 0.0 and at
/// `successes == trials` the high bound is exactly 1.0, so reports never show `-0.0000` or
/// `0.9999…` for a bound that is exact.
pub fn wilson(successes: u64, trials: u64, z: f64) -> Option<Interval> {
    if trials == 0 || successes > trials {
        return None;
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let low = if successes == 0 {
        0.0
    } else {
        (center - half).clamp(0.0, 1.0)
    };
    let high = if successes == trials {
        1.0
    } else {
        (center + half).clamp(0.0, 1.0)
    };
    Some(Interval { low, high })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;

    fn round4(x: f64) -> f64 {
        (x * 1e4).round() / 1e4
    }

    #[test]
    fn design_check_40_of_50() {
        let ci = wilson(40, 50, Z95).unwrap();
        assert_eq!((round4(ci.low), round4(ci.high)), (0.6696, 0.8876));
    }

    #[test]
    fn design_check_0_of_20() {
        let ci = wilson(0, 20, Z95).unwrap();
        assert_eq!(ci.low, 0.0);
        assert!(ci.low.is_sign_positive());
        assert_eq!(round4(ci.high), 0.1611);
    }

    #[test]
    fn all_successes_reach_exactly_one() {
        let ci = wilson(20, 20, Z95).unwrap();
        assert_eq!(ci.high, 1.0);
        assert_eq!(round4(ci.low), round4(1.0 - 0.1611));
    }

    #[test]
    fn no_trials_or_impossible_counts_give_none() {
        assert_eq!(wilson(0, 0, Z95), None);
        assert_eq!(wilson(3, 2, Z95), None);
    }
}
