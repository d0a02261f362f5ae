//! Binomial tail probabilities, for exact tests on small counts (McNemar's test).

/// P(X ≤ `x`) for X ~ Binomial(`n`, `p`), `p` in [0, 1].
///
/// Summed term by term, each term from the previous by the ratio (n − i)/(i + 1) · p/(1 − p),
/// so that no binomial coefficient overflows; in log space once (1 − p)^n would underflow
/// (n in the thousands). Exact tests on paired counts
/// need the tail to a few ulps where a normal approximation is off by whole percents.
/// `x ≥ n` gives exactly 1.
pub fn binomial_cdf(x: u64, n: u64, p: f64) -> f64 {
    if x >= n || p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    let odds = p / (1.0 - p);
    let first = match i32::try_from(n) {
        Ok(n) => (1.0 - p).powi(n),
        Err(_) => 0.0,
    };
    if first.is_normal() {
        // Plain products while (1 − p)^n is representable: exact for small counts at p = 1/2.
        let (mut term, mut sum) = (first, first);
        for i in 0..x {
            term *= (n - i) as f64 / (i + 1) as f64 * odds;
            sum += term;
        }
        return sum.min(1.0);
    }
    let log_odds = odds.ln();
    let mut log_term = n as f64 * (-p).ln_1p();
    let mut sum = log_term.exp();
    for i in 0..x {
        log_term += ((n - i) as f64 / (i + 1) as f64).ln() + log_odds;
        sum += log_term.exp();
    }
    sum.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C(n, i) / 2^n summed directly with integers, for small n.
    fn exact_half(x: u64, n: u64) -> f64 {
        let mut c: u128 = 1;
        let mut sum: u128 = 0;
        for i in 0..=x {
            if i > 0 {
                c = c * u128::from(n - i + 1) / u128::from(i);
            }
            sum += c;
        }
        sum as f64 / 2f64.powi(n as i32)
    }

    #[test]
    fn matches_integer_sums_at_one_half() {
        for n in 1..=60 {
            for x in 0..n {
                let (got, want) = (binomial_cdf(x, n, 0.5), exact_half(x, n));
                assert!((got - want).abs() <= 1e-13 * want.max(1e-300), "{x}/{n}");
            }
        }
    }

    #[test]
    fn textbook_values() {
        // P(X ≤ 2), X ~ Bin(12, 1/2) = 79/4096.
        assert!((binomial_cdf(2, 12, 0.5) - 79.0 / 4096.0).abs() < 1e-15);
        // P(X ≤ 1), X ~ Bin(10, 0.3) = 0.7^10 + 10·0.3·0.7^9.
        let want = 0.7f64.powi(10) + 3.0 * 0.7f64.powi(9);
        assert!((binomial_cdf(1, 10, 0.3) - want).abs() < 1e-15);
    }

    #[test]
    fn edges() {
        assert_eq!(binomial_cdf(5, 5, 0.5), 1.0);
        assert_eq!(binomial_cdf(9, 5, 0.5), 1.0);
        assert_eq!(binomial_cdf(0, 5, 0.0), 1.0);
        assert_eq!(binomial_cdf(4, 5, 1.0), 0.0);
        assert_eq!(binomial_cdf(0, 3, 0.5), 0.125);
    }

    #[test]
    fn large_n_stays_finite() {
        // Symmetry: P(X ≤ n/2 − 1) = (1 − P(X = n/2)) / 2 for even n at p = 1/2.
        let p = binomial_cdf(4999, 10_000, 0.5);
        assert!(p.is_finite() && p > 0.49 && p < 0.5, "{p}");
        assert!(binomial_cdf(10, 10_000, 0.5) < 1e-300);
    }
}
