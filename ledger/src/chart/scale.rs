//! Axis scales: "nice" tick steps (1, 2, 2.5 or 5 times a power of ten) and labels.

/// Ticks from 0 to at least `max`: (step, top).
pub(crate) fn nice_ticks(max: f64, target: usize) -> (f64, f64) {
    if !(max.is_finite() && max > 0.0) {
        return (1.0, 1.0);
    }
    let raw = max / target.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw * 0.999_999)
        .unwrap_or(10.0 * power);
    let top = (max / step).ceil().max(1.0) * step;
    (step, top)
}

/// Decimals needed to tell ticks `step` apart.
pub(crate) fn decimals_for(step: f64) -> usize {
    let mut decimals = 0;
    let mut scaled = step;
    while decimals < 8 && (scaled - scaled.round()).abs() > 1e-9 * scaled.abs().max(1.0) {
        scaled *= 10.0;
        decimals += 1;
    }
    decimals
}

/// A USD tick label: `$0.05`, `$1.25`, `$10`.
pub(crate) fn usd_label(value: f64, decimals: usize) -> String {
    format!("${value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_nice_and_cover_the_maximum() {
        assert_eq!(nice_ticks(0.087, 5), (0.02, 0.1));
        assert_eq!(nice_ticks(1.0, 5), (0.2, 1.0));
        assert_eq!(nice_ticks(11.0, 5), (2.5, 12.5));
        assert_eq!(nice_ticks(0.0, 5), (1.0, 1.0));
        let (step, top) = nice_ticks(0.0123, 4);
        assert!((step - 0.005).abs() < 1e-12 && (top - 0.015).abs() < 1e-12);
    }

    #[test]
    fn labels_show_enough_decimals() {
        assert_eq!(decimals_for(0.02), 2);
        assert_eq!(decimals_for(2.5), 1);
        assert_eq!(decimals_for(5.0), 0);
        assert_eq!(usd_label(0.04, 2), "$0.04");
    }
}
