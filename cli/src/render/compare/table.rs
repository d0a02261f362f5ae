//! `--format table`: aligned plain text for a terminal.

use super::{
    attack_rows, attempts, counts, metric_rows, names, notes, ordered, power_line, side_name,
    signed, tests_line, verdict_line,
};
use crate::render::table::columns;
use proctor_core::compare::Comparison;
use std::fmt::Write;

/// How many task names a regressed/fixed/tied line shows before counting the rest.
const SHOWN: usize = 20;

pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "proctor compare {} -> {}",
        side_name(&c.old.file, c.old.label.as_deref()),
        side_name(&c.new.file, c.new.label.as_deref())
    );
    let _ = writeln!(out, "{} tasks, {}", c.tasks, attempts(c));
    let _ = writeln!(out);
    let mut rows = vec![
        ["task", "old", "new", "Δ", "change", "Fisher p"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for t in ordered(c) {
        rows.push(vec![
            t.task.clone(),
            counts(t.old.passed, t.old.graded),
            counts(t.new.passed, t.new.graded),
            signed(Some(t.delta)),
            t.change.as_str().to_owned(),
            format!("{:.4}", t.fisher_p),
        ]);
    }
    out.push_str(&columns(&rows));
    let _ = writeln!(out);
    let lists: Vec<Vec<String>> = [
        ("regressed", &c.regressed),
        ("fixed", &c.fixed),
        ("tied", &c.tied),
    ]
    .into_iter()
    .map(|(what, list)| {
        vec![
            format!("{what} ({})", list.len()),
            if list.is_empty() {
                "-".to_owned()
            } else {
                names(list, SHOWN)
            },
        ]
    })
    .collect();
    out.push_str(&columns(&lists));
    let _ = writeln!(out);
    out.push_str(&columns(&metric_rows(c)));
    let attacks = attack_rows(c);
    if !attacks.is_empty() {
        let _ = writeln!(out);
        out.push_str(&columns(&attacks));
    }
    let _ = writeln!(out);
    out.push_str(&columns(&[
        vec!["verdict".to_owned(), verdict_line(c)],
        vec!["power".to_owned(), power_line(c)],
        vec!["tests".to_owned(), tests_line(c)],
    ]));
    let notes = notes(c);
    if !notes.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "notes");
        for note in notes {
            let _ = writeln!(out, "- {note}");
        }
    }
    out
}
