//! `--format markdown`: tables fit for a pull-request comment.

use super::details::with_detail;
use super::grid::{cards_grid_rows, grid_rows};
use super::numbers::{MISSING, interval, rate, usd_at_least};
use super::reasons::{card_columns, reason_rows};
use super::rows::{count_rows, process_rows, safety_rows, scorecard_rows, variant_rows};
use proctor_core::summary::{Scorecards, Summary};
use std::fmt::Write;

/// Escapes a table cell: pipes would split it, newlines would end the row.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A markdown table; the first row is the header.
pub fn table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
        if i == 0 {
            let _ = writeln!(out, "|{}", "---|".repeat(row.len()));
        }
    }
    out
}

/// Markdown for every scorecard, laid out as [`super::table::render_cards`] lays out text.
pub fn render_cards(title: &str, cards: &Scorecards) -> String {
    if let ([only], None, None) = (cards.agents.as_slice(), cards.split, &cards.pooled) {
        return render(title, &only.summary);
    }
    let mut out = String::new();
    let _ = writeln!(out, "### proctor {}", cell(title));
    let _ = writeln!(out);
    if let Some(pooled) = &cards.pooled {
        let _ = writeln!(out, "**All agents pooled** (--pool)");
        let _ = writeln!(out);
        out.push_str(&table(&scorecard_rows(&[("pooled".to_owned(), pooled)])));
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "**One scorecard per agent**");
    let _ = writeln!(out);
    out.push_str(&table(&scorecard_rows(&card_columns(cards))));
    let by_variant = variant_rows(cards);
    if !by_variant.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "**By variant**");
        let _ = writeln!(out);
        out.push_str(&table(&by_variant));
    }
    if cards.agents.len() > 1 {
        let _ = writeln!(out);
        out.push_str(&table(&cards_grid_rows(cards)));
    }
    let _ = writeln!(out);
    out.push_str(&table(&reason_rows(cards)));
    never_applied(&mut out, super::never_applied::card_lines(cards));
    out
}

/// The rules that never applied, as a list under its heading, when there are any.
fn never_applied(out: &mut String, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "**{}**", cell(super::never_applied::HEADING));
    let _ = writeln!(out);
    for line in lines {
        let _ = writeln!(out, "- {}", cell(&line));
    }
}

pub fn render(title: &str, s: &Summary) -> String {
    let k = s.k.map_or_else(|| "k".to_owned(), |k| k.to_string());
    let mut out = String::new();
    let _ = writeln!(out, "### proctor {}", cell(title));
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "**Pass rate {}** (95% CI {}), {} of {} graded attempts; cost per success {}; aborted share {}.",
        rate(s.pass_rate),
        interval(s.pass_rate_ci),
        s.passed,
        s.passed + s.failed,
        super::rows::cost_per_success(s),
        rate(s.aborted_share)
    );
    let _ = writeln!(out);
    let mut rows = vec![vec![
        "task".to_owned(),
        "attempts".to_owned(),
        "passed".to_owned(),
        "ungraded".to_owned(),
        "pass rate".to_owned(),
        "95% CI".to_owned(),
        format!("pass^{k}"),
        "reasons".to_owned(),
    ]];
    for t in &s.per_task {
        let reasons: Vec<String> = t
            .reasons
            .iter()
            .map(|r| {
                format!(
                    "`{}` x{}",
                    with_detail(&r.reason, r.detail.as_deref()),
                    r.count
                )
            })
            .collect();
        rows.push(vec![
            t.task.clone(),
            t.attempts.to_string(),
            t.passed.to_string(),
            t.ungraded.to_string(),
            rate(t.pass_rate),
            interval(t.pass_rate_ci),
            rate(t.pass_hat_k),
            reasons.join("<br>"),
        ]);
    }
    out.push_str(&table(&rows));
    never_applied(&mut out, super::never_applied::lines(s));
    if !s.grid.is_empty() {
        let _ = writeln!(out);
        out.push_str(&table(&grid_rows(s)));
    }
    let _ = writeln!(out);
    let mut rows = vec![vec!["metric".to_owned(), "value".to_owned()]];
    rows.extend(count_rows(s));
    rows.extend(vec![
        vec!["pass@1".to_owned(), rate(s.pass_at_1)],
        vec![
            "first-attempt pass rate".to_owned(),
            rate(s.first_attempt_pass_rate),
        ],
        vec![format!("pass@{k}"), rate(s.pass_at_k)],
        vec![format!("pass^{k}"), rate(s.pass_hat_k)],
        vec!["always pass".to_owned(), rate(s.always_pass)],
        vec![
            "total cost".to_owned(),
            usd_at_least(s.total_cost.usd, s.unpriced_calls),
        ],
        vec![
            "cost per success (tokens)".to_owned(),
            s.cost_per_success
                .tokens
                .map_or_else(|| MISSING.to_owned(), |t| format!("{t:.0}")),
        ],
    ]);
    rows.extend(process_rows(s));
    rows.extend(safety_rows(s));
    out.push_str(&table(&rows));
    out
}
