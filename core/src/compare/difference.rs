//! The suite difference with a task-clustered standard error (docs/comparing.md).

use crate::stats::{Interval, mean_sd, t_critical_95};
use serde::Serialize;

/// Mean of per-task differences with its spread and 95% t interval.
///
/// Clustering by task means the unit is the task, not the attempt: the per-task differences
/// d_i are the observations, Δ = mean(d), SE = SD(d)/√n, and the interval is Δ ± t₀.₉₇₅,ₙ₋₁·SE.
/// Pooling attempts instead would treat 5 correlated attempts of one task as 5 independent
/// draws and report an interval far too narrow.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusteredDifference {
    /// Tasks (clusters).
    pub n: u64,
    /// Δ, the mean of the per-task differences.
    pub estimate: f64,
    /// Sample SD of the per-task differences (n − 1 denominator).
    pub sd: f64,
    /// SD/√n; `None` for a single task, where no spread can be estimated.
    pub se: Option<f64>,
    /// n − 1.
    pub df: u64,
    /// t₀.₉₇₅ with `df` degrees of freedom; `None` with `se`.
    pub t_critical: Option<f64>,
    /// Δ ± t·SE, clipped to [−1, 1] where every difference of two shares lies; `None` with `se`.
    pub ci: Option<Interval>,
}

/// The clustered difference of per-task differences `d`; `None` when `d` is empty.
pub fn clustered_difference(d: &[f64]) -> Option<ClusteredDifference> {
    let (mean, sd) = mean_sd(d)?;
    // Differences equal as fractions can differ in their last bits as floats (0.8 − 1.0 and
    // 0.6 − 0.8): their spread is 0, not 1e-17, so that a point interval (and what the
    // reports say about it) does not depend on rounding. Distinct shares of any realistic
    // number of attempts differ by far more than this tolerance.
    let sd = if d.iter().all(|x| (x - d[0]).abs() <= 1e-12) {
        0.0
    } else {
        sd
    };
    let n = d.len() as u64;
    let df = n - 1;
    // `+ 0.0` turns a −0.0 (mean of −0.0s) into 0.0, which reports never show as "-0.0000".
    let estimate = mean + 0.0;
    if n < 2 {
        return Some(ClusteredDifference {
            n,
            estimate,
            sd,
            se: None,
            df,
            t_critical: None,
            ci: None,
        });
    }
    let se = sd / (n as f64).sqrt();
    let t = t_critical_95(df);
    let ci = Interval {
        low: (estimate - t * se).max(-1.0) + 0.0,
        high: (estimate + t * se).min(1.0) + 0.0,
    };
    Some(ClusteredDifference {
        n,
        estimate,
        sd,
        se: Some(se),
        df,
        t_critical: Some(t),
        ci: Some(ci),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round4(x: f64) -> f64 {
        (x * 1e4).round() / 1e4
    }

    #[test]
    fn equal_differences_have_no_spread_whatever_their_last_bits() {
        let d = [0.8 - 1.0, 0.6 - 0.8, 0.8 - 1.0, 0.6 - 0.8];
        assert_ne!(d[0], d[1], "the floats differ");
        let c = clustered_difference(&d).unwrap();
        assert_eq!((c.sd, c.se), (0.0, Some(0.0)));
        let ci = c.ci.unwrap();
        assert_eq!((ci.low, ci.high), (c.estimate, c.estimate));
    }

    #[test]
    fn design_check() {
        // docs/comparing.md: c_old=[5,4,3,5,2,4,1,5,0,3], c_new=[2,4,1,5,4,0,1,5,0,0], k=5
        // → Δ −0.2000, SE 0.1193, t₉ interval [−0.4698, 0.0698].
        let old = [5, 4, 3, 5, 2, 4, 1, 5, 0, 3];
        let new = [2, 4, 1, 5, 4, 0, 1, 5, 0, 0];
        let d: Vec<f64> = old
            .iter()
            .zip(new)
            .map(|(o, n)| n as f64 / 5.0 - *o as f64 / 5.0)
            .collect();
        let diff = clustered_difference(&d).unwrap();
        assert_eq!(round4(diff.estimate), -0.2);
        assert_eq!(round4(diff.se.unwrap()), 0.1193);
        assert_eq!(diff.df, 9);
        let ci = diff.ci.unwrap();
        assert_eq!((round4(ci.low), round4(ci.high)), (-0.4698, 0.0698));
    }

    #[test]
    fn no_tasks_and_one_task() {
        assert_eq!(clustered_difference(&[]), None);
        let one = clustered_difference(&[-0.4]).unwrap();
        assert_eq!((one.n, one.estimate, one.se, one.ci), (1, -0.4, None, None));
    }

    #[test]
    fn identical_differences_collapse_the_interval() {
        let same = clustered_difference(&[0.0, 0.0, 0.0]).unwrap();
        assert_eq!(
            same.ci,
            Some(Interval {
                low: 0.0,
                high: 0.0
            })
        );
        assert!(same.ci.unwrap().low.is_sign_positive());
        assert!(
            clustered_difference(&[-0.0, -0.0])
                .unwrap()
                .estimate
                .is_sign_positive()
        );
    }

    #[test]
    fn interval_is_clipped_to_possible_differences() {
        let wide = clustered_difference(&[-1.0, 1.0]).unwrap();
        assert_eq!(
            wide.ci,
            Some(Interval {
                low: -1.0,
                high: 1.0
            })
        );
    }
}
