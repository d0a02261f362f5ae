//! The interval type shared by every confidence interval, and the usual normal quantile.

/// A closed interval [low, high].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

/// 95% two-sided normal quantile (the 0.975 quantile of the standard normal), spelled out so
/// that every interval in a report uses the same value.
pub const Z95: f64 = 1.959963984540054;
