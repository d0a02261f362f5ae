//! Krippendorff's α for nominal data: agreement among any number of raters, each unit rated
//! by any subset of them, corrected for chance from the pooled use of the categories.

use std::collections::BTreeMap;

/// α = 1 − D_o / D_e over `units`, each the values its raters gave (in any order).
///
/// Units with fewer than two values cannot be paired and are left out, as in Krippendorff's
/// definition. `None` when fewer than two values remain pairable or when every pairable value
/// is the same category (D_e = 0: no variation to agree about).
pub fn krippendorff_alpha<T: Ord>(units: &[Vec<T>]) -> Option<f64> {
    // Disagreeing pairs within units, each unit weighted 1 / (m_u − 1).
    let mut disagreement = 0.0;
    let mut totals: BTreeMap<&T, f64> = BTreeMap::new();
    for unit in units.iter().filter(|u| u.len() >= 2) {
        let mut counts: BTreeMap<&T, f64> = BTreeMap::new();
        for value in unit {
            *counts.entry(value).or_default() += 1.0;
        }
        let m = unit.len() as f64;
        disagreement += counts.values().map(|c| c * (m - c)).sum::<f64>() / (m - 1.0);
        for (value, count) in counts {
            *totals.entry(value).or_default() += count;
        }
    }
    let n: f64 = totals.values().sum();
    let expected = n * n - totals.values().map(|c| c * c).sum::<f64>();
    if n < 2.0 || expected <= 0.0 {
        return None;
    }
    Some(1.0 - (n - 1.0) * disagreement / expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn krippendorffs_own_example_nominal() {
        // Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers,
        // 12 units, missing values; nominal α = 0.743.
        let units: Vec<Vec<u8>> = vec![
            vec![1, 1, 1],
            vec![2, 2, 3, 2],
            vec![3, 3, 3, 3],
            vec![3, 3, 3, 3],
            vec![2, 2, 2, 2],
            vec![1, 2, 3, 4],
            vec![4, 4, 4, 4],
            vec![1, 1, 2, 1],
            vec![2, 2, 2, 2],
            vec![5, 5, 5],
            vec![1, 1],
            vec![3],
        ];
        let alpha = krippendorff_alpha(&units).unwrap();
        assert_eq!((alpha * 1000.0).round() / 1000.0, 0.743);
    }

    #[test]
    fn perfect_agreement_is_one_and_no_variation_is_undefined() {
        assert_eq!(
            krippendorff_alpha(&[vec![true, true], vec![false, false, false]]),
            Some(1.0)
        );
        assert_eq!(krippendorff_alpha(&[vec![true, true], vec![true]]), None);
        assert_eq!(krippendorff_alpha::<bool>(&[vec![true], vec![false]]), None);
    }

    #[test]
    fn two_raters_binary_matches_the_closed_form() {
        // For two raters and no missing values, α = 1 − (2N − 1) D / (n_P n_F) with D the
        // number of disagreeing units and n_P, n_F the pooled counts over 2N values.
        let units = vec![
            vec![true, true],
            vec![true, false],
            vec![false, false],
            vec![false, false],
            vec![true, true],
        ];
        let (d, np, nf) = (1.0, 5.0, 5.0);
        let expected = 1.0 - (2.0 * 5.0 - 1.0) * d / (np * nf);
        let alpha = krippendorff_alpha(&units).unwrap();
        assert!((alpha - expected).abs() < 1e-12, "{alpha} vs {expected}");
    }
}
