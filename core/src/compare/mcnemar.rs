//! McNemar's exact test, for one attempt per task (docs/comparing.md: only when k = 1).

use crate::stats::binomial_cdf;
use serde::Serialize;

/// The discordant tasks and the exact two-sided p.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct McNemar {
    /// Passed with OLD, failed with NEW (McNemar's b).
    pub regressed: u64,
    /// Failed with OLD, passed with NEW (McNemar's c).
    pub fixed: u64,
    /// Exact two-sided p of `regressed` against `fixed`.
    pub p: f64,
}

/// Exact McNemar: given b + c discordant tasks, b ~ Binomial(b + c, 1/2) under no change;
/// p = min(1, 2·P(X ≤ min(b, c))). Exact rather than the χ² form, which is poor at the handful
/// of discordant tasks a suite has. No discordant task gives 1.
pub fn mcnemar(regressed: u64, fixed: u64) -> McNemar {
    let discordant = regressed + fixed;
    let p = if discordant == 0 {
        1.0
    } else {
        (2.0 * binomial_cdf(regressed.min(fixed), discordant, 0.5)).min(1.0)
    };
    McNemar {
        regressed,
        fixed,
        p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_values() {
        // b = 1, c = 6: 2·(1 + 7)/128 = 0.125.
        assert_eq!(mcnemar(1, 6).p, 0.125);
        // b = 10, c = 2: 2·(1 + 12 + 66)/4096 = 0.0386 (R: binom.test(2, 12)$p.value).
        assert!((mcnemar(10, 2).p - 158.0 / 4096.0).abs() < 1e-15);
        // b = 0, c = 5: 2/32.
        assert_eq!(mcnemar(0, 5).p, 0.0625);
    }

    #[test]
    fn balanced_or_no_discordance_is_p_one() {
        assert_eq!(mcnemar(0, 0).p, 1.0);
        assert_eq!(mcnemar(3, 3).p, 1.0);
        assert_eq!(mcnemar(1, 0).p, 1.0);
    }
}
