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
        let Some(&smallest) = self.by_exponent.keys().next() else {
            return self.non_finite;
        };
        let exact = self.by_exponent.iter().try_fold(0i128, |total, (&e, &m)| {
            let shift = u32::try_from(e - smallest).ok()?;
            let scaled = m.checked_mul(1i128.checked_shl(shift)?)?;
            total.checked_add(scaled)
        });
        let total = match exact {
            Some(total) => scaled(total as f64, smallest),
            None => self
                .by_exponent
                .iter()
                .map(|(&e, &m)| scaled(m as f64, e))
                .sum(),
        };
        total + self.non_finite
    }

    /// The mean of the terms; `None` when there are none.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum() / self.count as f64)
    }
}

/// `x`·2^`exponent`, in two steps so that neither power of two leaves f64's range.
fn scaled(x: f64, exponent: i16) -> f64 {
    let half = i32::from(exponent) / 2;
    x * 2f64.powi(half) * 2f64.powi(i32::from(exponent) - half)
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
}
