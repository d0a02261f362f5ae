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
