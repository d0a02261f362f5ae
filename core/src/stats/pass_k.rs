//! pass@k and pass^k: the chance that k attempts drawn from a task's n contain some pass, or
//! only passes.
//!
//! Both are ratios of binomial coefficients, which overflow u64 and even f64 long before n
//! reaches realistic attempt counts. They are computed as products of factors in [0, 1]
//! instead, which cannot overflow and lose at most a few ulps per factor.

use super::StatsError;

/// Rejects counts for which neither metric is defined.
fn check(n: u64, c: u64, k: u64) -> Result<(), StatsError> {
    if k == 0 {
        return Err(StatsError::ZeroK);
    }
    if c > n {
        return Err(StatsError::SuccessesExceedTrials { c, n });
    }
    if k > n {
        return Err(StatsError::KTooLarge { k, n });
    }
    Ok(())
}

/// Unbiased pass@k (Chen et al. 2021): 1 − C(n−c, k)/C(n, k), the chance that k of the n
/// attempts, drawn without replacement, include at least one pass. Unbiased where the naive
/// 1 − (1 − c/n)^k is not.
///
/// Computed as 1 − ∏_{i=n−c+1}^{n} (1 − k/i). Is exactly 1 when n − c < k (every draw holds a
/// pass). Error when k > n, k == 0 or c > n.
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Result<f64, StatsError> {
    check(n, c, k)?;
    if n - c < k {
        return Ok(1.0);
    }
    let kf = k as f64;
    let miss_all: f64 = (n - c + 1..=n).map(|i| 1.0 - kf / i as f64).product();
    Ok(1.0 - miss_all)
}

/// pass^k (τ-bench): C(c, k)/C(n, k), the chance that k attempts drawn without replacement all
/// pass; it measures reliability where pass@k measures reach.
///
/// Computed as ∏_{i=0}^{k−1} (c − i)/(n − i). Is exactly 0 when c < k. Error when k > n,
/// k == 0 or c > n.
pub fn pass_hat_k(n: u64, c: u64, k: u64) -> Result<f64, StatsError> {
    check(n, c, k)?;
    if c < k {
        return Ok(0.0);
    }
    Ok((0..k).map(|i| (c - i) as f64 / (n - i) as f64).product())
}

/// Mean over tasks of pass@k from (n, c) pairs: the suite's pass@k, each task weighing the
/// same however many attempts it has. Tasks with n == 0 (all attempts ungraded) are skipped;
/// `None` if none remain. The first invalid task is an error.
pub fn mean_pass_at_k(tasks: &[(u64, u64)], k: u64) -> Result<Option<f64>, StatsError> {
    mean_over_tasks(tasks, k, pass_at_k)
}

/// Mean over tasks of pass^k from (n, c) pairs, with the same skipping as [`mean_pass_at_k`].
pub fn mean_pass_hat_k(tasks: &[(u64, u64)], k: u64) -> Result<Option<f64>, StatsError> {
    mean_over_tasks(tasks, k, pass_hat_k)
}

fn mean_over_tasks(
    tasks: &[(u64, u64)],
    k: u64,
    metric: fn(u64, u64, u64) -> Result<f64, StatsError>,
) -> Result<Option<f64>, StatsError> {
    if k == 0 {
        return Err(StatsError::ZeroK);
    }
    let mut sum = 0.0;
    let mut count = 0u64;
    for &(n, c) in tasks.iter().filter(|(n, _)| *n > 0) {
        sum += metric(n, c, k)?;
        count += 1;
    }
    Ok((count > 0).then(|| sum / count as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round4(x: f64) -> f64 {
        (x * 1e4).round() / 1e4
    }

    #[test]
    fn design_checks_pass_at_k() {
        assert_eq!(round4(pass_at_k(10, 3, 2).unwrap()), 0.5333);
        assert_eq!(round4(pass_at_k(10, 3, 5).unwrap()), 0.9167);
    }

    #[test]
    fn design_checks_pass_hat_k() {
        assert_eq!(round4(pass_hat_k(10, 3, 2).unwrap()), 0.0667);
        assert_eq!(round4(pass_hat_k(10, 7, 3).unwrap()), 0.2917);
    }

    #[test]
    fn k_larger_than_n_is_an_error() {
        let e = || StatsError::KTooLarge { k: 5, n: 3 };
        assert_eq!(pass_at_k(3, 1, 5), Err(e()));
        assert_eq!(pass_hat_k(3, 1, 5), Err(e()));
        assert_eq!(
            StatsError::KTooLarge { k: 5, n: 3 }.to_string(),
            "k = 5 is larger than the 3 attempts of a task"
        );
    }

    #[test]
    fn zero_k_and_too_many_successes_are_errors() {
        assert_eq!(pass_at_k(3, 1, 0), Err(StatsError::ZeroK));
        assert_eq!(pass_hat_k(3, 1, 0), Err(StatsError::ZeroK));
        let e = || StatsError::SuccessesExceedTrials { c: 4, n: 3 };
        assert_eq!(pass_at_k(3, 4, 1), Err(e()));
        assert_eq!(pass_hat_k(3, 4, 1), Err(e()));
    }

    #[test]
    fn pass_at_k_is_one_when_every_draw_holds_a_pass() {
        // n - c = 2 < k = 3.
        assert_eq!(pass_at_k(10, 8, 3), Ok(1.0));
        assert_eq!(pass_at_k(5, 5, 1), Ok(1.0));
        assert_eq!(pass_at_k(5, 0, 5), Ok(0.0));
    }

    #[test]
    fn pass_hat_k_is_zero_when_too_few_passes() {
        assert_eq!(pass_hat_k(10, 2, 3), Ok(0.0));
        assert_eq!(pass_hat_k(5, 5, 5), Ok(1.0));
    }

    #[test]
    fn k_of_one_is_the_plain_pass_rate() {
        assert!((pass_at_k(7, 3, 1).unwrap() - 3.0 / 7.0).abs() < 1e-15);
        assert!((pass_hat_k(7, 3, 1).unwrap() - 3.0 / 7.0).abs() < 1e-15);
    }

    #[test]
    fn large_n_stays_finite_and_accurate() {
        // C(10^6, 500) overflows f64; the product form does not.
        // pass^2 with c = n/2: (n/2)(n/2 - 1) / (n(n - 1)).
        let n = 1_000_000u64;
        let exact = (n / 2) as f64 * (n / 2 - 1) as f64 / (n as f64 * (n - 1) as f64);
        assert!((pass_hat_k(n, n / 2, 2).unwrap() - exact).abs() < 1e-15);
        let p = pass_at_k(n, 1000, 500).unwrap();
        assert!(p.is_finite() && p > 0.39 && p < 0.40, "{p}");
    }

    #[test]
    fn means_skip_empty_tasks() {
        let tasks = [(10, 3), (0, 0), (10, 7)];
        let m = mean_pass_hat_k(&tasks, 3).unwrap().unwrap();
        let expected = (pass_hat_k(10, 3, 3).unwrap() + pass_hat_k(10, 7, 3).unwrap()) / 2.0;
        assert_eq!(m, expected);
        let m = mean_pass_at_k(&tasks, 2).unwrap().unwrap();
        let expected = (pass_at_k(10, 3, 2).unwrap() + pass_at_k(10, 7, 2).unwrap()) / 2.0;
        assert_eq!(m, expected);
        assert_eq!(mean_pass_at_k(&[(0, 0)], 1), Ok(None));
        assert_eq!(mean_pass_hat_k(&[], 1), Ok(None));
    }

    #[test]
    fn means_report_the_first_bad_task() {
        assert_eq!(
            mean_pass_at_k(&[(10, 3), (3, 1)], 5),
            Err(StatsError::KTooLarge { k: 5, n: 3 })
        );
        assert_eq!(mean_pass_hat_k(&[], 0), Err(StatsError::ZeroK));
    }
}
