//! Fisher's exact test for a 2×2 table: are two pass rates from few attempts different?

/// Two-sided Fisher exact p for passes/failures of two groups: `(passed_a, failed_a)` against
/// `(passed_b, failed_b)`.
///
/// Conditions on both margins; the p-value is the total probability of the tables no more
/// likely than the observed one (the usual two-sided definition, as in R's `fisher.test`, with
/// the same 1e-7 relative tolerance so that tables tied in probability count as tied). Used for
/// one task's attempts under two versions, where counts of 5 or 10 make a normal test
/// meaningless. A group with no attempts, or no passes or no failures at all, gives 1.
pub fn fisher_exact(passed_a: u64, failed_a: u64, passed_b: u64, failed_b: u64) -> f64 {
    let row_a = passed_a + failed_a;
    let row_b = passed_b + failed_b;
    let passes = passed_a + passed_b;
    let total = row_a + row_b;
    if row_a == 0 || row_b == 0 || passes == 0 || passes == total {
        return 1.0;
    }
    let ln_fact = ln_factorials(total);
    let ln_choose =
        |n: u64, k: u64| ln_fact[n as usize] - ln_fact[k as usize] - ln_fact[(n - k) as usize];
    let ln_p = |x: u64| ln_choose(row_a, x) + ln_choose(row_b, passes - x);
    let low = passes.saturating_sub(row_b);
    let high = passes.min(row_a);
    let observed = ln_p(passed_a);
    let threshold = observed + (1e-7f64).ln_1p();
    // Normalised by the sum over all tables rather than trusting it to be 1, as R does: the
    // probabilities' rounding then cancels, and a table at the mode gets exactly 1. Scaled by
    // the most likely table so that no term overflows or underflows wholesale.
    let logs: Vec<f64> = (low..=high).map(ln_p).collect();
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (mut tail, mut all) = (0.0, 0.0);
    for l in logs {
        let p = (l - top).exp();
        all += p;
        if l <= threshold {
            tail += p;
        }
    }
    let p = tail / all;
    p.min(1.0)
}

/// ln(i!) for i in 0..=n, by running sums (exact enough for n in the hundreds of thousands).
fn ln_factorials(n: u64) -> Vec<f64> {
    let mut table = Vec::with_capacity(n as usize + 1);
    let mut acc = 0.0;
    table.push(acc);
    for i in 1..=n {
        acc += (i as f64).ln();
        table.push(acc);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round4(x: f64) -> f64 {
        (x * 1e4).round() / 1e4
    }

    #[test]
    fn reference_values() {
        // Checked against R's fisher.test(matrix(c(a, b, c, d), 2, byrow = TRUE)).
        // 4/5 against 0/5: the two most extreme tables, 2 · 5/210.
        assert!((fisher_exact(4, 1, 0, 5) - 10.0 / 210.0).abs() < 1e-12);
        assert_eq!(round4(fisher_exact(5, 0, 0, 5)), 0.0079);
        // Lady tasting tea: 3 of 4 right in each direction, p = 0.4857.
        assert_eq!(round4(fisher_exact(3, 1, 1, 3)), 0.4857);
        // 1/9 against 11/3 (Wikipedia's example): p = 0.002759.
        assert!((fisher_exact(1, 9, 11, 3) - 0.002759).abs() < 1e-6);
    }

    #[test]
    fn equal_rates_give_one() {
        assert_eq!(round4(fisher_exact(3, 2, 3, 2)), 1.0);
        assert_eq!(fisher_exact(5, 0, 5, 0), 1.0);
        assert_eq!(fisher_exact(0, 0, 2, 3), 1.0);
    }

    #[test]
    fn symmetric_in_groups_and_outcomes() {
        let p = fisher_exact(7, 3, 2, 8);
        assert!((fisher_exact(2, 8, 7, 3) - p).abs() < 1e-15);
        assert!((fisher_exact(3, 7, 8, 2) - p).abs() < 1e-15);
    }

    #[test]
    fn one_attempt_each_is_never_significant() {
        assert_eq!(fisher_exact(1, 0, 0, 1), 1.0);
    }

    #[test]
    fn large_counts_stay_finite() {
        // 2/C(600, 300) ≈ 1.5e-179: far out in the tail, yet no overflow on the way.
        let p = fisher_exact(300, 0, 0, 300);
        assert!(p > 1e-180 && p < 1e-178, "{p}");
        // Beyond f64's range the p underflows to 0, never NaN.
        assert_eq!(fisher_exact(2000, 0, 0, 2000), 0.0);
        assert_eq!(fisher_exact(1000, 1000, 1000, 1000), 1.0);
    }
}
