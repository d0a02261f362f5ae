//! Weeks whose cost leaves some calls unpriced are drawn as lower bounds, and the legend
//! explains the mark only on a chart that has one.

use super::render_chart;
use crate::report::{GroupBy, GroupKey, Period, Report, ReportOptions, ReportRow, Totals};
use jiff::civil::date;
use rust_decimal::Decimal;

/// A week of v1 with 4 runs, 2 successes, $1 of priced calls and `unpriced` calls.
fn week(start: jiff::civil::Date, unpriced: u64) -> ReportRow {
    ReportRow {
        start,
        group: GroupKey {
            label: "v1".into(),
            ..GroupKey::default()
        },
        totals: Totals {
            runs: 4,
            successes: 2,
            agent_cost: Some(Decimal::ONE),
            unpriced_calls: unpriced,
            ..Totals::default()
        },
    }
}

fn chart(unpriced: [u64; 3]) -> String {
    let starts = [date(2026, 11, 2), date(2026, 11, 9), date(2026, 11, 16)];
    render_chart(&Report {
        options: ReportOptions {
            period: Period::Week,
            by: GroupBy::label(),
            since: None,
            until: None,
        },
        rows: starts
            .iter()
            .zip(unpriced)
            .map(|(start, n)| week(*start, n))
            .collect(),
    })
}

#[test]
fn a_week_with_unpriced_calls_is_a_hollow_point_and_the_legend_says_why() {
    let svg = chart([0, 3, 0]);
    // One hollow point in the cost panel, and the legend's sample of it.
    assert_eq!(
        svg.matches(r#"data-lower-bound="true""#).count(),
        2,
        "{svg}"
    );
    assert!(svg.contains(">lower bound: some calls</text>"), "{svg}");
    assert!(svg.contains(">unpriced</text>"), "{svg}");
    // The other weeks' cost points, and every success-rate point, stay filled.
    assert_eq!(
        svg.matches(r##"r="3.2" fill="#0072B2""##).count(),
        5,
        "{svg}"
    );
}

#[test]
fn the_latest_cost_in_the_legend_says_it_is_at_least() {
    assert!(chart([0, 0, 2]).contains("latest: ≥ $0.5 per success"));
    assert!(chart([2, 0, 0]).contains("latest: $0.5 per success"));
}

#[test]
fn a_chart_without_unpriced_calls_has_no_lower_bound_mark() {
    let svg = chart([0, 0, 0]);
    assert!(!svg.contains("lower-bound"), "{svg}");
    assert!(!svg.contains("lower bound"), "{svg}");
}
