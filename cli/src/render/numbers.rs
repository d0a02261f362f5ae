//! Number formatting shared by the text renderers: fixed decimals so output is stable,
//! and a dash for values that do not exist (never a misleading 0).

use proctor_core::stats::Interval;
use rust_decimal::Decimal;

pub const MISSING: &str = "-";

pub fn rate(value: Option<f64>) -> String {
    value.map_or_else(|| MISSING.to_owned(), |v| format!("{v:.4}"))
}

pub fn interval(value: Option<Interval>) -> String {
    value.map_or_else(
        || MISSING.to_owned(),
        |i| format!("[{:.4}, {:.4}]", i.low, i.high),
    )
}

/// Tokens per success, whole: `3154.5` is `3154` (ties to even, as every figure here).
pub fn tokens(value: Option<f64>) -> String {
    value.map_or_else(|| MISSING.to_owned(), |t| format!("{t:.0}"))
}

pub fn one_decimal(value: Option<f64>) -> String {
    value.map_or_else(|| MISSING.to_owned(), |v| format!("{v:.1}"))
}

/// USD rounded to 6 decimals, only here on output.
pub fn usd(value: Option<Decimal>) -> String {
    value.map_or_else(
        || MISSING.to_owned(),
        |v| format!("${}", v.round_dp(6).normalize()),
    )
}

/// USD that may miss unpriced calls: `≥ $0.0105, 1 unpriced call` when some were unpriced
/// (the figure covers the priced calls only), the plain figure otherwise.
pub fn usd_at_least(value: Option<Decimal>, unpriced_calls: u64) -> String {
    let calls = if unpriced_calls == 1 { "call" } else { "calls" };
    match (value, unpriced_calls) {
        (value, 0) => usd(value),
        (Some(_), n) => format!("≥ {}, {n} unpriced {calls}", usd(value)),
        (None, n) => format!("{MISSING}, {n} unpriced {calls}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_with_unpriced_calls_is_shown_as_a_lower_bound() {
        let priced = Some(Decimal::new(105, 4));
        assert_eq!(usd_at_least(priced, 1), "≥ $0.0105, 1 unpriced call");
        assert_eq!(usd_at_least(priced, 0), "$0.0105");
        assert_eq!(usd_at_least(None, 2), "-, 2 unpriced calls");
    }
}
