//! `--format table`: aligned plain text for a terminal.

use super::numbers::{MISSING, interval, rate, usd};
use super::rows::{count_rows, process_rows};
use proctor_core::summary::Summary;
use std::fmt::Write;

/// Lays out rows as left-aligned columns two spaces apart.
pub fn columns(rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..rows.first().map_or(0, Vec::len))
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if c + 1 < row.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count()));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

pub fn render(title: &str, s: &Summary) -> String {
    let mut out = String::new();
    let k = s.k.map_or_else(|| "k".to_owned(), |k| k.to_string());
    let _ = writeln!(out, "proctor {title}");
    let _ = writeln!(out);
    let mut rows = vec![vec![
        "task".to_owned(),
        "attempts".to_owned(),
        "passed".to_owned(),
        "ungraded".to_owned(),
        "pass rate".to_owned(),
        "95% CI".to_owned(),
        format!("pass^{k}"),
        "top reason".to_owned(),
    ]];
    for t in &s.per_task {
        let top = t
            .reasons
            .first()
            .map_or_else(String::new, |r| format!("{} (x{})", r.reason, r.count));
        rows.push(vec![
            t.task.clone(),
            t.attempts.to_string(),
            t.passed.to_string(),
            t.ungraded.to_string(),
            rate(t.pass_rate),
            interval(t.pass_rate_ci),
            rate(t.pass_hat_k),
            top,
        ]);
    }
    out.push_str(&columns(&rows));
    if !s.grid.is_empty() {
        let _ = writeln!(out);
        out.push_str(&columns(&super::markdown::grid_rows(s)));
    }
    let _ = writeln!(out);
    let tokens = s
        .cost_per_success
        .tokens
        .map_or_else(|| MISSING.to_owned(), |t| format!("{t:.0}"));
    let mut rows = count_rows(s);
    rows.extend(vec![
        vec![
            "pass rate".to_owned(),
            format!("{}  95% CI {}", rate(s.pass_rate), interval(s.pass_rate_ci)),
        ],
        vec![
            "cost per success".to_owned(),
            format!(
                "{} (agent {}, judge {}; {} unpriced calls), {tokens} tokens",
                usd(s.cost_per_success.usd),
                usd(s.cost_per_success.agent_usd),
                usd(s.cost_per_success.judge_usd),
                s.unpriced_calls
            ),
        ],
        vec!["aborted share".to_owned(), rate(s.aborted_share)],
        vec!["pass@1".to_owned(), rate(s.pass_at_1)],
        vec![
            "first-attempt pass rate".to_owned(),
            rate(s.first_attempt_pass_rate),
        ],
        vec![
            format!("pass@{k} / pass^{k}"),
            format!("{} / {}  (k = {k})", rate(s.pass_at_k), rate(s.pass_hat_k)),
        ],
        vec!["always pass".to_owned(), rate(s.always_pass)],
    ]);
    rows.extend(process_rows(s));
    out.push_str(&columns(&rows));
    out
}
