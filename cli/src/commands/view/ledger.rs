//! The ledger's cost per success for the history charts (`--ledger`): a day's row per suite
//! and label, as `proctor ledger report --period day --by suite,label` prints it
//! (docs/viewing.md#history).

use crate::ledger_file::report::read_report;
use proctor_ledger::report::{GroupBy, Period, ReportOptions, USD_DECIMALS, rounded};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The series of a ledger, or the error reading it, as the page shows it.
pub fn series(ledger: &Path) -> Value {
    let options = ReportOptions {
        period: Period::Day,
        by: GroupBy {
            label: true,
            model: false,
            suite: true,
        },
        since: None,
        until: None,
    };
    let report = match read_report(ledger, options) {
        Ok(report) => report,
        Err(e) => {
            return json!({"source": ledger.display().to_string(), "series": [], "error": format!("{e:#}")});
        }
    };
    let mut series: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
    for row in &report.rows {
        let cost = row.totals.cost_per_success();
        let text = rounded(cost, USD_DECIMALS);
        series
            .entry((row.group.suite.clone(), row.group.label.clone()))
            .or_default()
            .push(json!({
                "when": row.start.to_string(),
                "cost_per_success": if text.is_empty() { "-".to_owned() } else { format!("${text}") },
                "cost": cost.and_then(|c| c.to_string().parse::<f64>().ok()),
                "lower_bound": row.totals.unpriced_calls > 0,
            }));
    }
    json!({
        "source": ledger.display().to_string(),
        "series": series
            .into_iter()
            .map(|((suite, agent), points)| json!({"suite": suite, "agent": agent, "points": points}))
            .collect::<Vec<_>>(),
    })
}
