//! `--format table`: aligned plain text for a terminal.

use super::numbers::{interval, rate, usd_at_least};
use super::reasons::{agent_columns, card_columns, reason_rows, top_reason};
use super::rows::{
    cost_per_success, count_rows, process_rows, safety_rows, scorecard_rows, variant_rows,
};
use proctor_core::summary::{Scorecards, Summary};
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

/// The widest a scorecard table may print: a terminal's common 120 columns.
pub const MAX_WIDTH: usize = 120;

/// [`columns`], with the columns after the first cut into blocks, one under the other, each
/// repeating the first column and fitting in `width` characters (a single column wider than
/// that stands alone).
pub fn columns_within(rows: &[Vec<String>], width: usize) -> String {
    let count = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..count)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let mut used = widths.first().copied().unwrap_or(0);
    for c in 1..count {
        match blocks.last_mut() {
            Some(block) if used + 2 + widths[c] <= width => block.push(c),
            _ => {
                blocks.push(vec![c]);
                used = widths[0];
            }
        }
        used += 2 + widths[c];
    }
    if blocks.is_empty() {
        return columns(rows);
    }
    let texts: Vec<String> = blocks
        .iter()
        .map(|block| {
            let cut: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    std::iter::once(&r[0])
                        .chain(block.iter().map(|&c| &r[c]))
                        .cloned()
                        .collect()
                })
                .collect();
            columns(&cut)
        })
        .collect();
    texts.join("\n")
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
        let top = top_reason(t);
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
    never_applied(&mut out, super::never_applied::lines(s));
    if !s.grid.is_empty() {
        let _ = writeln!(out);
        out.push_str(&columns(&super::grid::grid_rows(s)));
    }
    let _ = writeln!(out);
    out.push_str(&columns(&suite_rows(s)));
    out
}

/// The suite metrics of one summary, one row each.
fn suite_rows(s: &Summary) -> Vec<Vec<String>> {
    let k = s.k.map_or_else(|| "k".to_owned(), |k| k.to_string());
    let mut rows = count_rows(s);
    rows.extend(vec![
        vec![
            "pass rate".to_owned(),
            format!("{}  95% CI {}", rate(s.pass_rate), interval(s.pass_rate_ci)),
        ],
        vec!["cost per success".to_owned(), cost_per_success(s)],
        vec![
            "total cost".to_owned(),
            usd_at_least(s.total_cost.usd, s.unpriced_calls),
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
    rows.extend(safety_rows(s));
    rows
}

/// Every scorecard of a run: with one agent and nothing split or pooled, its summary as
/// [`render`] shows it; else one column per agent (and per group), the task × agent grid
/// and each agent's reasons per task. Pooled figures only when asked for.
pub fn render_cards(title: &str, cards: &Scorecards) -> String {
    if let ([only], None, None) = (cards.agents.as_slice(), cards.split, &cards.pooled) {
        return render(title, &only.summary);
    }
    let mut out = String::new();
    let _ = writeln!(out, "proctor {title}");
    let _ = writeln!(out);
    if let Some(pooled) = &cards.pooled {
        let _ = writeln!(out, "all agents pooled (--pool)");
        out.push_str(&columns(&suite_rows(pooled)));
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "one scorecard per agent");
    // Split, each agent is a block of its own (its groups beside it), so that two agents'
    // groups never make one table too wide to read.
    let tables: Vec<Vec<Vec<String>>> = match cards.split {
        None => vec![scorecard_rows(&card_columns(cards))],
        Some(_) => cards
            .agents
            .iter()
            .map(|agent| scorecard_rows(&agent_columns(agent)))
            .collect(),
    };
    let tables: Vec<String> = tables
        .iter()
        .map(|rows| columns_within(rows, MAX_WIDTH))
        .collect();
    out.push_str(&tables.join("\n"));
    let by_variant = variant_rows(cards);
    if !by_variant.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "by variant");
        out.push_str(&columns(&by_variant));
    }
    if cards.agents.len() > 1 {
        let _ = writeln!(out);
        out.push_str(&columns(&super::grid::cards_grid_rows(cards)));
    }
    let _ = writeln!(out);
    out.push_str(&columns(&reason_rows(cards)));
    never_applied(&mut out, super::never_applied::card_lines(cards));
    out
}

/// The rules that never applied, as a block of their own, when there are any.
fn never_applied(out: &mut String, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", super::never_applied::HEADING);
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}
