//! Critical values of Student's t distribution.

use super::Z95;

/// Two-sided 95% critical values (0.975 quantiles) for df = 1..=30, to 12 decimals.
const T95: [f64; 30] = [
    12.706204736175,
    4.302652729749,
    3.182446305284,
    2.776445105198,
    2.570581835636,
    2.446911851145,
    2.364624251593,
    2.306004135204,
    2.262157162798,
    2.228138851986,
    2.200985160092,
    2.178812829667,
    2.160368656463,
    2.144786687918,
    2.131449545560,
    2.119905299221,
    2.109815577833,
    2.100922040241,
    2.093024054408,
    2.085963447266,
    2.079613844728,
    2.073873067904,
    2.068657610419,
    2.063898561628,
    2.059538552753,
    2.055529438643,
    2.051830516480,
    2.048407141795,
    2.045229642133,
    2.042272456301,
];

/// Two-sided Student t critical value for 95% with `df` degrees of freedom.
///
/// Used instead of [`Z95`] when an interval rests on few units (compare's per-task differences,
/// n tasks → df = n − 1): with 10 tasks the normal quantile would understate the width by 15%.
///
/// A table for df 1..=30; above it the Cornish–Fisher expansion of the t quantile around the
/// normal one (Abramowitz & Stegun 26.7.5) to the 1/df⁴ term, which is within 3e-8 there.
/// `df == 0` (a single task: no spread can be estimated) gives infinity, an unbounded interval.
pub fn t_critical_95(df: u64) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T95[df as usize - 1],
        _ => cornish_fisher(Z95, df as f64),
    }
}

/// t quantile from the normal quantile `z` for `v` degrees of freedom.
fn cornish_fisher(z: f64, v: f64) -> f64 {
    let z2 = z * z;
    let g1 = z * (z2 + 1.0) / 4.0;
    let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::mean_sd;

    fn round4(x: f64) -> f64 {
        (x * 1e4).round() / 1e4
    }

    #[test]
    fn brief_check_values() {
        assert_eq!(round4(t_critical_95(9)), 2.2622);
        assert_eq!(round4(t_critical_95(1)), 12.7062);
        assert_eq!(round4(t_critical_95(30)), 2.0423);
        assert_eq!(round4(t_critical_95(100)), 1.9840);
    }

    #[test]
    fn approximation_matches_reference_values_above_the_table() {
        // 0.975 quantiles computed with arbitrary precision (regularized incomplete beta).
        for (df, t) in [
            (31, 2.039513446),
            (40, 2.021075390),
            (60, 2.000297822),
            (120, 1.979930405),
            (1000, 1.962339081),
        ] {
            assert!((t_critical_95(df) - t).abs() < 1e-7, "df = {df}");
        }
        assert!((t_critical_95(u64::MAX) - Z95).abs() < 1e-12);
    }

    #[test]
    fn approximation_joins_the_table_smoothly() {
        // At df = 30 the expansion is already within 1e-7 of the table.
        assert!((cornish_fisher(Z95, 30.0) - T95[29]).abs() < 1e-7);
    }

    #[test]
    fn decreasing_in_df_and_no_df_is_unbounded() {
        assert_eq!(t_critical_95(0), f64::INFINITY);
        for df in 1..200 {
            assert!(t_critical_95(df + 1) < t_critical_95(df), "df = {df}");
        }
    }

    #[test]
    fn design_compare_interval() {
        // docs/comparing.md: Δ −0.2000, SE 0.1193, t₉ interval [−0.4698, 0.0698].
        let d = [-0.6, 0.0, -0.4, 0.0, 0.4, -0.8, 0.0, 0.0, 0.0, -0.6];
        let (m, sd) = mean_sd(&d).unwrap();
        let half = t_critical_95(d.len() as u64 - 1) * sd / (d.len() as f64).sqrt();
        assert_eq!((round4(m - half), round4(m + half)), (-0.4698, 0.0698));
    }
}
