//! The exact sign-flip (paired permutation) test of the suite difference.

/// Largest number of tasks for which the exact p is computed: 2^20 sign patterns, a few
/// milliseconds. Above it the t interval carries the inference (docs/comparing.md: exact for n ≤ 20),
/// and the sign-flip distribution is close to normal anyway.
pub const SIGN_FLIP_MAX_TASKS: usize = 20;

/// Two-sided exact p that per-task differences `d` are symmetric around zero.
///
/// Under "no difference between versions" a task's old and new results are exchangeable, so
/// each d_i is as likely to be −d_i. The p-value is the share of the 2^n sign patterns whose
/// |Σ ±d_i| is at least the observed |Σ d_i|. It assumes no distribution for the d_i, which
/// with 5 attempts per task are lumpy multiples of 0.2 far from normal. Zero differences do not
/// change any sum and are skipped (the share is the same). With one attempt per task this is
/// exactly McNemar's exact test.
///
/// `None` when there are more than [`SIGN_FLIP_MAX_TASKS`] tasks; 1 when every difference is 0.
pub fn sign_flip_p(d: &[f64]) -> Option<f64> {
    if d.len() > SIGN_FLIP_MAX_TASKS {
        return None;
    }
    let values: Vec<f64> = d.iter().copied().filter(|v| *v != 0.0).collect();
    let m = values.len();
    let observed: f64 = values.iter().sum::<f64>().abs();
    // Sums of a few fractions carry rounding; patterns within this of the observed sum tie.
    let tolerance = 1e-9 * values.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
    // Walk the patterns in Gray-code order: each step flips one sign, so the sum updates in
    // O(1). Starting from all signs positive.
    let mut sum: f64 = values.iter().sum();
    let mut signs = vec![1.0f64; m];
    let mut extreme: u64 = 0;
    let patterns: u64 = 1 << m;
    for step in 0..patterns {
        if step > 0 {
            let bit = step.trailing_zeros() as usize;
            sum -= 2.0 * signs[bit] * values[bit];
            signs[bit] = -signs[bit];
        }
        if sum.abs() >= observed - tolerance {
            extreme += 1;
        }
    }
    Some(extreme as f64 / patterns as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_example() {
        // Non-zero differences in fifths: −3, −2, +2, −4, −3 (sum −10). Patterns with |sum| ≥ 10
        // put a positive sign on a subset summing to ≥ 12 or ≤ 2: 3 each way, 6 of 32.
        let d = [-0.6, 0.0, -0.4, 0.0, 0.4, -0.8, 0.0, 0.0, 0.0, -0.6];
        assert_eq!(sign_flip_p(&d), Some(6.0 / 32.0));
    }

    #[test]
    fn all_equal_signs_reach_the_smallest_p() {
        assert_eq!(sign_flip_p(&[-0.2; 6]), Some(2.0 / 64.0));
        assert_eq!(sign_flip_p(&[0.2, 0.4, 0.6]), Some(2.0 / 8.0));
    }

    #[test]
    fn nothing_changed_is_p_one() {
        assert_eq!(sign_flip_p(&[]), Some(1.0));
        assert_eq!(sign_flip_p(&[0.0; 20]), Some(1.0));
    }

    #[test]
    fn only_up_to_twenty_tasks() {
        assert!(sign_flip_p(&[0.2; 20]).is_some());
        assert_eq!(sign_flip_p(&[0.2; 21]), None);
    }

    #[test]
    fn brute_force_agrees() {
        // Every pattern enumerated independently, on uneven fractions.
        let d = [1.0 / 3.0, -0.5, 0.25, -2.0 / 3.0, 0.0, 0.75, -0.2];
        let observed: f64 = d.iter().sum::<f64>().abs();
        let n = d.len();
        let mut count = 0;
        for mask in 0u32..(1 << n) {
            let s: f64 = (0..n)
                .map(|i| if mask & (1 << i) != 0 { -d[i] } else { d[i] })
                .sum();
            if s.abs() >= observed - 1e-9 {
                count += 1;
            }
        }
        let want = f64::from(count) / f64::from(1u32 << n);
        assert!((sign_flip_p(&d).unwrap() - want).abs() < 1e-15);
    }
}
