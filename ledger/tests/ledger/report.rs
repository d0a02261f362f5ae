//! Reports over the fixture ledger (13 ISO weeks across the 2026/2027 boundary, two agent
//! versions), the chart, and re-pricing.

use crate::common::{root, test_prices};
use jiff::civil::date;
use proctor_ledger::book::{LedgerReader, append_rows};
use proctor_ledger::chart::render_chart;
use proctor_ledger::recost::recost;
use proctor_ledger::report::{
    GroupBy, Period, Report, ReportOptions, build_report, report_cells, report_columns,
    write_report_csv,
};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    root().join("fixtures/ledger/ledger.csv")
}

fn report_of(path: &Path, options: ReportOptions) -> Report {
    let mut reader = LedgerReader::open(path).unwrap();
    build_report(&mut reader, options).unwrap()
}

fn weekly(by: GroupBy) -> ReportOptions {
    ReportOptions {
        period: Period::Week,
        by,
        since: None,
        until: None,
    }
}

/// The report's rows as maps from column name to cell.
fn table(report: &Report) -> Vec<std::collections::BTreeMap<&'static str, String>> {
    let columns = report_columns(report);
    report
        .rows
        .iter()
        .map(|r| {
            columns
                .iter()
                .copied()
                .zip(report_cells(report, r))
                .collect()
        })
        .collect()
}

fn csv_text(report: &Report) -> String {
    let mut out = Vec::new();
    write_report_csv(report, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_committed_weekly_report_and_chart_are_current() {
    let report = report_of(&fixture(), weekly(GroupBy::label()));
    let csv = csv_text(&report);
    let svg = render_chart(&report);
    let dir = root().join("fixtures/ledger");
    if std::env::var_os("PROCTOR_UPDATE_FIXTURES").is_some() {
        std::fs::write(dir.join("weekly.csv"), &csv).unwrap();
        std::fs::write(dir.join("weekly.svg"), &svg).unwrap();
    }
    assert_eq!(
        csv,
        std::fs::read_to_string(dir.join("weekly.csv")).unwrap(),
        "run with PROCTOR_UPDATE_FIXTURES=1 to refresh"
    );
    assert_eq!(
        svg,
        std::fs::read_to_string(dir.join("weekly.svg")).unwrap()
    );
}

#[test]
fn weekly_rows_span_the_year_boundary_with_both_versions() {
    let rows = table(&report_of(&fixture(), weekly(GroupBy::label())));
    let periods: Vec<&str> = rows
        .iter()
        .filter(|r| r["label"] == "v1")
        .map(|r| r["period"].as_str())
        .collect();
    assert_eq!(
        periods,
        [
            "2026-W45", "2026-W46", "2026-W47", "2026-W48", "2026-W49", "2026-W50", "2026-W51",
            "2026-W52", "2026-W53", "2027-W01", "2027-W02", "2027-W03", "2027-W04"
        ]
    );
    let w53 = rows
        .iter()
        .find(|r| r["period"] == "2026-W53" && r["label"] == "v1")
        .unwrap();
    assert_eq!(
        (w53["period_start"].as_str(), w53["period_end"].as_str()),
        ("2026-12-28", "2027-01-03")
    );
    assert_eq!(rows.iter().filter(|r| r["label"] == "v2").count(), 8);
    for r in &rows {
        assert_eq!(
            r["runs"], "18",
            "six tasks, three attempts: judge rows do not add runs"
        );
    }
}

#[test]
fn zero_successes_leave_cost_per_success_empty_not_zero() {
    let rows = table(&report_of(&fixture(), weekly(GroupBy::label())));
    let broken = rows
        .iter()
        .find(|r| r["period"] == "2026-W50" && r["label"] == "v2")
        .unwrap();
    assert_eq!(broken["successes"], "0");
    assert_eq!(broken["success_rate"], "0");
    assert_eq!(broken["cost_per_success_usd"], "");
    assert!(
        !broken["total_cost_usd"].is_empty(),
        "the spend is still known"
    );
    assert!(!broken["cost_per_run_usd"].is_empty());
}

#[test]
fn a_price_change_inside_a_week_sums_both_prices() {
    let path = fixture();
    let text = std::fs::read_to_string(&path).unwrap();
    let ids: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| l.starts_with("2026-12-0") || l.starts_with("2026-12-1"))
        .filter(|l| {
            (l.as_bytes()[8] - b'0') * 10 + (l.as_bytes()[9] - b'0') >= 7
                && (l.as_bytes()[8] - b'0') * 10 + (l.as_bytes()[9] - b'0') <= 13
        })
        .filter(|l| l.contains(",v1,"))
        .filter_map(|l| l.split(',').nth(16))
        .filter(|id| id.contains("sonnet"))
        .collect();
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        [
            "anthropic/claude-sonnet-4-6@2026-02-17",
            "anthropic/claude-sonnet-4-6@2026-12-09"
        ],
        "2026-W50 holds calls at both prices"
    );
    // The weekly agent cost is the sum of the daily ones, whatever the price of each day.
    let week = report_of(&path, weekly(GroupBy::label()));
    let days = report_of(
        &path,
        ReportOptions {
            period: Period::Day,
            ..weekly(GroupBy::label())
        },
    );
    let sum: rust_decimal::Decimal = days
        .rows
        .iter()
        .filter(|r| {
            r.group.label == "v1" && r.start >= date(2026, 12, 7) && r.start <= date(2026, 12, 13)
        })
        .filter_map(|r| r.totals.agent_cost)
        .sum();
    let w50 = week
        .rows
        .iter()
        .find(|r| r.group.label == "v1" && r.start == date(2026, 12, 7))
        .unwrap();
    assert_eq!(w50.totals.agent_cost, Some(sum));
}

#[test]
fn unpriced_calls_are_counted_and_grouping_by_model_shows_them() {
    let by = "label,model".parse().unwrap();
    let rows = table(&report_of(&fixture(), weekly(by)));
    let preview = rows
        .iter()
        .find(|r| r["model"] == "claude-haiku-5-preview")
        .unwrap();
    assert_eq!(preview["period"], "2026-W51");
    assert_eq!(
        preview["agent_cost_usd"], "",
        "nothing priced: unknown, not 0"
    );
    assert_eq!(preview["total_cost_usd"], "");
    assert_ne!(preview["unpriced_calls"], "0");
    let judge = rows.iter().find(|r| r["model"] == "gpt-5-mini").unwrap();
    assert_eq!(judge["agent_cost_usd"], "");
    assert!(!judge["judge_cost_usd"].is_empty());
    assert_eq!(
        report_columns(&report_of(&fixture(), weekly(by)))[..6],
        [
            "period",
            "period_start",
            "period_end",
            "label",
            "model",
            "runs"
        ]
    );
}

#[test]
fn since_until_months_and_days() {
    let options = ReportOptions {
        period: Period::Month,
        by: GroupBy::default(),
        since: Some(date(2026, 12, 1)),
        until: Some(date(2027, 1, 1)),
    };
    let rows = table(&report_of(&fixture(), options));
    let months: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["period"].as_str(),
                r["period_start"].as_str(),
                r["period_end"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        months,
        [
            ("2026-12", "2026-12-01", "2026-12-31"),
            ("2027-01", "2027-01-01", "2027-01-31")
        ]
    );
    assert_eq!(rows[0]["label"], "", "not grouped by label");
    let new_year = report_of(
        &fixture(),
        ReportOptions {
            period: Period::Day,
            ..options
        },
    );
    assert!(new_year.rows.iter().all(|r| r.start <= date(2027, 1, 1)));
}

#[test]
fn repricing_the_fixture_with_its_own_prices_changes_nothing() {
    // The fixture's costs were computed by a Python script with its own decimal code.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("again.csv");
    let mut reader = LedgerReader::open(&fixture()).unwrap();
    let file = std::fs::File::create(&out).unwrap();
    let summary = recost(&mut reader, &test_prices(), file, &out).unwrap();
    assert_eq!(summary.rows, 504);
    assert_eq!(summary.changed, 0);
    assert!(summary.unpriced > 0, "the preview model stays unpriced");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(fixture()).unwrap()
    );
}

#[test]
fn repricing_with_a_corrected_price_changes_only_that_model() {
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("fix.toml");
    std::fs::write(
        &prices,
        "[[price]]\nprovider = \"openai\"\nmodel = \"gpt-5-mini\"\neffective = 2025-08-07\ninput = \"0.5\"\ncache_read = \"0.05\"\noutput = \"4\"\n",
    )
    .unwrap();
    let mut table = test_prices();
    table.override_with(proctor_ledger::prices::load_price_file(&prices).unwrap());
    let out = dir.path().join("fixed.csv");
    let mut reader = LedgerReader::open(&fixture()).unwrap();
    let summary = recost(
        &mut reader,
        &table,
        std::fs::File::create(&out).unwrap(),
        &out,
    )
    .unwrap();
    let judge_rows = std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .filter(|l| l.contains(",judge,"))
        .count() as u64;
    assert_eq!(summary.changed, judge_rows);
    let before = report_of(&fixture(), weekly(GroupBy::default()));
    let after = report_of(&out, weekly(GroupBy::default()));
    for (b, a) in before.rows.iter().zip(&after.rows) {
        assert_eq!(a.totals.agent_cost, b.totals.agent_cost);
        assert_eq!(
            a.totals.judge_cost.unwrap(),
            b.totals.judge_cost.unwrap() * rust_decimal::Decimal::TWO
        );
    }
}

#[test]
fn rows_appended_in_any_order_count_each_attempt_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    let mut reader = LedgerReader::open(&fixture()).unwrap();
    let mut rows = Vec::new();
    while let Some(raw) = reader.next_row().unwrap() {
        rows.push(raw.to_row().unwrap());
    }
    // Judge rows first, then agent rows: an attempt's rows are no longer together.
    rows.sort_by_key(|r| r.role);
    rows.reverse();
    append_rows(&path, &rows).unwrap();
    let shuffled = report_of(&path, weekly(GroupBy::label()));
    let original = report_of(&fixture(), weekly(GroupBy::label()));
    assert_eq!(shuffled.rows, original.rows);
}

#[test]
fn an_empty_ledger_gives_an_empty_report_and_a_chart_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    std::fs::write(&path, proctor_ledger::book::LEDGER_COLUMNS.join(",") + "\n").unwrap();
    let report = report_of(&path, weekly(GroupBy::label()));
    assert!(report.rows.is_empty());
    assert!(render_chart(&report).contains("No ledger rows"));
}
