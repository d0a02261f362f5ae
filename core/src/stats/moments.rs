//! Mean and sample standard deviation.

/// Mean and sample standard deviation (n − 1 denominator, since the values are a sample of tasks
/// and the SD feeds a t interval). Empty → `None`; one value → SD 0.
///
/// Two passes (mean first, then squared deviations) rather than the sum-of-squares shortcut,
/// which loses all precision when the values are close together.
pub fn mean_sd(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() == 1 {
        return Some((mean, 0.0));
    }
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    Some((mean, (ss / (n - 1.0)).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_single() {
        assert_eq!(mean_sd(&[]), None);
        assert_eq!(mean_sd(&[0.25]), Some((0.25, 0.0)));
    }

    #[test]
    fn sample_sd_uses_n_minus_one() {
        let (m, sd) = mean_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(m, 5.0);
        // Population SD is 2; the sample SD is sqrt(32/7).
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn design_compare_check() {
        // docs/comparing.md: per-task differences of c/k, k = 5; SE = SD/sqrt(n) = 0.1193.
        let old = [5, 4, 3, 5, 2, 4, 1, 5, 0, 3];
        let new = [2, 4, 1, 5, 4, 0, 1, 5, 0, 0];
        let d: Vec<f64> = old
            .iter()
            .zip(new)
            .map(|(o, n)| (n as f64 - *o as f64) / 5.0)
            .collect();
        let (m, sd) = mean_sd(&d).unwrap();
        let se = sd / (d.len() as f64).sqrt();
        assert!((m - -0.2).abs() < 1e-12);
        assert_eq!((se * 1e4).round() / 1e4, 0.1193);
    }

    #[test]
    fn close_values_keep_precision() {
        let (m, sd) = mean_sd(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]).unwrap();
        assert_eq!(m, 1e9 + 2.0);
        assert!((sd - 1.0).abs() < 1e-9);
    }
}
