//! A sum of floats that does not depend on the order of its terms.
//!
//! Float addition rounds at every step, so the same values summed in another order (files
//! given in another order, lines shuffled) can differ in the last bits, and a report's JSON
//! with them. Each term is added exactly instead, as an integer multiple of a power of two,
//! and rounded once at the end: the result is a function of the multiset of terms.

use std::collections::BTreeMap;

/// Sums f64 terms exactly; memory grows with the number of distinct binary exponents
/// (at most about 2,100), never with the number of terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderFreeSum {
    /// Per binary exponent e, the sum of the integer significands m of the terms m·2^e.
    /// |m| < 2^53, so an i128 holds 2^74 terms of one exponent.
    by_exponent: BTreeMap<i16, i128>,
    /// The sum of the infinite and NaN terms, which no order changes either.
    non_finite: f64,
    count: u64,
}

impl OrderFreeSum {
    /// The empty sum.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one term, exactly.
    pub fn add(&mut self, term: f64) {
        self.count += 1;
        if !term.is_finite() {
            self.non_finite += term;
            return;
        }
        if term == 0.0 {
            return;
        }
        let bits = term.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i16;
        let fraction = (bits & ((1 << 52) - 1)) as i128;
        let (significand, exponent) = match biased {
            0 => (fraction, -1074),
            _ => (fraction | (1 << 52), biased - 1075),
        };
        let signed = if term < 0.0 {
            -significand
        } else {
            significand
        };
        *self.by_exponent.entry(exponent).or_default() += signed;
    }

    /// Adds every term of `other`, exactly: the sum of two sums is the sum of their terms.
    pub fn absorb(&mut self, other: &OrderFreeSum) {
        self.count += other.count;
        self.non_finite += other.non_finite;
        for (&exponent, &significand) in &other.by_exponent {
            *self.by_exponent.entry(exponent).or_default() += significand;
        }
    }

    /// How many terms were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The sum: rounded once when every term fits one 128-bit integer at the smallest
    /// exponent (terms of similar size, as shares and rates are), else once per distinct
    /// exponent, smallest first. Either way a function of the terms, not of their order.
    pub fn sum(&self) -> f64 {
        let total = match self.exact() {
            Some((total, smallest)) => scaled(total as f64, smallest),
            None => self
                .by_exponent
                .iter()
                .map(|(&e, &m)| scaled(m as f64, e))
                .sum(),
        };
        total + self.non_finite
    }

    /// The mean of the terms; `None` when there are none. The exact sum is divided by the
    /// count and rounded once (docs/metrics.md#order): rounding the sum and then the
    /// quotient would be one last bit off for some terms, such as 1, 2/9 and 4/9.
    pub fn mean(&self) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        match self.exact() {
            Some((total, smallest)) if self.non_finite == 0.0 => {
                Some(divided_once(total, self.count, smallest))
            }
            _ => Some(self.sum() / self.count as f64),
        }
    }

    /// The exact sum as `total`·2^`exponent` (0·2^0 for no finite term), when every term
    /// fits one 128-bit integer at the smallest exponent.
    fn exact(&self) -> Option<(i128, i16)> {
        let Some(&smallest) = self.by_exponent.keys().next() else {
            return Some((0, 0));
        };
        let total = self.by_exponent.iter().try_fold(0i128, |total, (&e, &m)| {
            let shift = u32::try_from(e - smallest).ok()?;
            let scaled = m.checked_mul(1i128.checked_shl(shift)?)?;
            total.checked_add(scaled)
        })?;
        Some((total, smallest))
    }
}

/// `total`·2^`exponent` / `count`, rounded once to the nearest f64 (ties to even). The
/// quotient is taken with at least 55 significant bits and a sticky bit for any remainder,
/// so converting it rounds as the exact quotient would.
fn divided_once(total: i128, count: u64, exponent: i16) -> f64 {
    if total == 0 {
        return 0.0;
    }
    let bits = |x: u128| 128 - x.leading_zeros();
    let magnitude = total.unsigned_abs();
    let count = u128::from(count);
    // At most 55 + 64 = 119 bits, or the magnitude's own 128: the shift never overflows.
    let shift = (55 + bits(count)).saturating_sub(bits(magnitude));
    let numerator = magnitude << shift;
    // The sticky bit: set when the division left a remainder.
    let quotient = (numerator / count) | u128::from(!numerator.is_multiple_of(count));
    let exponent = i32::from(exponent) - shift as i32;
    let value = scaled_wide(quotient as f64, exponent);
    if total < 0 { -value } else { value }
}

/// `x`·2^`exponent`, in two steps so that neither power of two leaves f64's range.
fn scaled(x: f64, exponent: i16) -> f64 {
    scaled_wide(x, i32::from(exponent))
}

/// [`scaled`] for an exponent a quotient's shift has moved below i16's range.
fn scaled_wide(x: f64, exponent: i32) -> f64 {
    let half = exponent / 2;
    x * 2f64.powi(half) * 2f64.powi(exponent - half)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_of_the_terms_does_not_change_the_sum() {
        let terms = [
            0.1,
            0.2,
            0.3,
            1.0 / 3.0,
            1.0 / 7.0,
            0.7,
            2.5e-300,
            1e10,
            -1e-20,
        ];
        let sum = |order: &[usize]| {
            let mut s = OrderFreeSum::new();
            for &at in order {
                s.add(terms[at]);
            }
            s.sum()
        };
        let forward: Vec<usize> = (0..terms.len()).collect();
        let mut backward = forward.clone();
        backward.reverse();
        assert_eq!(sum(&forward).to_bits(), sum(&backward).to_bits());
        // Rounded once: the exact sum of the three is nearest to 0.6.
        assert_eq!(sum(&[2, 0, 1]), 0.6);
        // Plain float addition differs with the order here.
        assert_ne!((0.1 + 0.2) + 0.3, (0.3 + 0.2) + 0.1);
    }

    #[test]
    fn exact_values_stay_exact_and_the_mean_counts_zeros() {
        let mut s = OrderFreeSum::new();
        for term in [0.5, 0.25, -0.125, 0.0, 5e-324] {
            s.add(term);
        }
        assert_eq!(s.sum(), 0.625 + 5e-324);
        assert_eq!(s.count(), 5);
        assert_eq!(OrderFreeSum::new().mean(), None);
        let mut one = OrderFreeSum::new();
        one.add(0.0);
        assert_eq!(one.mean(), Some(0.0));
    }

    #[test]
    fn the_mean_is_rounded_once() {
        // Step efficiencies 1/1, 2/9 and 4/9: the exact mean 0.5555… is nearest to
        // 0.5555555555555556; the rounded sum divided by 3 is one last bit below.
        let terms = [1.0, 2.0 / 9.0, 4.0 / 9.0];
        let mut s = OrderFreeSum::new();
        terms.iter().for_each(|&t| s.add(t));
        assert_eq!(s.sum() / 3.0, 0.5555555555555555);
        assert_eq!(s.mean(), Some(0.5555555555555556));
        let mut negative = OrderFreeSum::new();
        terms.iter().for_each(|&t| negative.add(-t));
        assert_eq!(negative.mean(), Some(-0.5555555555555556));
        // Exact quotients stay exact; far-apart terms still give their mean.
        let mut halves = OrderFreeSum::new();
        [0.25, 0.75].iter().for_each(|&t| halves.add(t));
        assert_eq!(halves.mean(), Some(0.5));
        let mut wide = OrderFreeSum::new();
        [1e300, 5e-324].iter().for_each(|&t| wide.add(t));
        assert_eq!(wide.mean(), Some(5e299));
    }

    #[test]
    fn the_mean_is_the_nearest_float_to_the_exact_mean() {
        // Means of three shares o/s (s up to 12), checked in exact integers: the terms
        // and the mean are multiples of 2^-64 in [0, 1], so scaled by 2^64 they are
        // integers, and n·mean is compared with the sum of the terms.
        let shares: Vec<f64> = (1..=12u32)
            .flat_map(|s| (0..=s).map(move |o| f64::from(o) / f64::from(s)))
            .collect();
        let scale = |v: f64| (v * 2f64.powi(64)) as u128;
        let mut checked = 0;
        for a in shares.iter().step_by(3) {
            for b in shares.iter().step_by(5) {
                for c in shares.iter().step_by(7) {
                    let terms = [*a, *b, *c];
                    let mut s = OrderFreeSum::new();
                    terms.iter().for_each(|&t| s.add(t));
                    let mean = s.mean().unwrap();
                    let sum: u128 = terms.iter().map(|&t| scale(t)).sum();
                    let error = |x: f64| sum.abs_diff(3 * scale(x));
                    let up = f64::from_bits(mean.to_bits() + 1);
                    let down = f64::from_bits(mean.to_bits().saturating_sub(1));
                    assert!(
                        error(mean) <= error(up) && error(mean) <= error(down),
                        "{terms:?}: {mean}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
