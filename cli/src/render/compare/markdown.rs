//! `--format markdown`: a pull-request comment. The verdict and the changed tasks come first;
//! the full per-task table folds away under `<details>`.

use super::{
    attack_rows, attempts, counts, metric_rows, notes, ordered, power_line, side_name, signed,
    tests_line, verdict_line,
};
use crate::render::markdown::{cell, table};
use proctor_core::compare::{Change, Comparison, PairedTask};
use std::fmt::Write;

/// Inline code that survives backticks in the text.
fn code(text: &str) -> String {
    let text = cell(text);
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

fn task_rows<'a>(tasks: impl Iterator<Item = &'a PairedTask>) -> Vec<Vec<String>> {
    let mut rows = vec![
        ["task", "old", "new", "Δ", "change", "Fisher p"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for t in tasks {
        rows.push(vec![
            code(&t.task),
            counts(t.old.passed, t.old.graded),
            counts(t.new.passed, t.new.graded),
            signed(Some(t.delta)),
            t.change.as_str().to_owned(),
            format!("{:.4}", t.fisher_p),
        ]);
    }
    rows
}

fn list(list: &[String]) -> String {
    if list.is_empty() {
        "none".to_owned()
    } else {
        list.iter().map(|t| code(t)).collect::<Vec<_>>().join(", ")
    }
}

pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### proctor compare: {}", c.verdict);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "**{}** against **{}** on {} tasks, {}.",
        cell(&side_name(&c.new.file, c.new.label.as_deref())),
        cell(&side_name(&c.old.file, c.old.label.as_deref())),
        c.tasks,
        attempts(c)
    );
    let _ = writeln!(out);
    let ci = c.delta.ci.map_or_else(
        || "no interval".to_owned(),
        |i| format!("95% CI [{:.4}, {:.4}]", i.low, i.high),
    );
    let _ = writeln!(
        out,
        "**Δ pass rate {}** ({ci}). Verdict: **{}**. {}. {}.",
        signed(Some(c.delta.estimate)),
        verdict_line(c),
        capitalise(&power_line(c)),
        capitalise(&tests_line(c))
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "- **Regressed ({}):** {}",
        c.regressed.len(),
        list(&c.regressed)
    );
    let _ = writeln!(out, "- **Fixed ({}):** {}", c.fixed.len(), list(&c.fixed));
    let _ = writeln!(out, "- **Tied ({}):** {}", c.tied.len(), list(&c.tied));
    let changed: Vec<&PairedTask> = ordered(c)
        .into_iter()
        .filter(|t| t.change != Change::Tied)
        .collect();
    if !changed.is_empty() {
        let _ = writeln!(out);
        out.push_str(&table(&task_rows(changed.into_iter())));
    }
    let _ = writeln!(out);
    out.push_str(&table(&metric_rows(c)));
    let attacks = attack_rows(c);
    if !attacks.is_empty() {
        let _ = writeln!(out);
        out.push_str(&table(&attacks));
    }
    let notes: Vec<String> = notes(c)
        .iter()
        .map(|n| format!("> {}\n", cell(n)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out);
        out.push_str(&notes.join(">\n"));
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "<details><summary>All {} tasks</summary>\n", c.tasks);
    out.push_str(&table(&task_rows(ordered(c).into_iter())));
    let _ = writeln!(out, "\n</details>");
    out
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
