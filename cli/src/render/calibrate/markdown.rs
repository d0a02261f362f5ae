//! `--format markdown`: the [`Content`] of a calibration fit for a pull-request comment,
//! titled sections as fourth-level headings, named values as tables, lines as one paragraph.

use super::content::{Block, Content, Item};
use crate::render::markdown::table;
use proctor_core::calibrate::Calibration;
use std::fmt::Write;

pub fn render(c: &Calibration) -> String {
    let content = Content::of(c);
    let mut out = String::new();
    let _ = writeln!(out, "### {}", content.command);
    for (at, section) in content.sections.iter().enumerate() {
        if let Some(title) = &section.title {
            let _ = writeln!(out);
            let _ = writeln!(out, "#### {}", capitalised(title));
        }
        for block in &section.blocks {
            let _ = writeln!(out);
            // The inputs close the first paragraph, as the table's first line opens it.
            let inputs = (at == 0).then(|| content.inputs.join(", "));
            block_text(&mut out, block, inputs);
        }
    }
    out
}

fn block_text(out: &mut String, block: &Block, inputs: Option<String>) {
    match block {
        Block::Lines(lines) => {
            let mut text = lines
                .iter()
                .map(|l| capitalised(l))
                .collect::<Vec<_>>()
                .join(". ");
            if let Some(inputs) = inputs {
                let _ = write!(text, " ({inputs})");
            }
            let _ = writeln!(out, "{text}.");
        }
        Block::Rates(rates) => {
            let said: Vec<String> = rates
                .iter()
                .map(|r| format!("**{} {}** ({}): {}.", r.name, r.value, r.interval, r.says))
                .collect();
            let _ = writeln!(out, "{}", said.join(" "));
        }
        Block::Matrix(rows) => {
            let bold = rows.iter().enumerate().map(|(i, row)| {
                let mut row = row.clone();
                if i > 0 {
                    row[0] = format!("**{}**", row[0]);
                }
                row
            });
            out.push_str(&table(&bold.collect::<Vec<_>>()));
        }
        Block::Rows(rows) => {
            let mut all = vec![vec!["metric".to_owned(), "value".to_owned()]];
            all.extend(
                rows.iter()
                    .map(|(name, value)| vec![name.clone(), value.clone()]),
            );
            out.push_str(&table(&all));
        }
        Block::Warning(warning) => {
            let _ = writeln!(out, "> **Warning:** {warning}");
        }
        Block::Items(items) => {
            for item in items {
                let _ = writeln!(out, "{}", item_text(item));
            }
        }
    }
}

fn item_text(item: &Item) -> String {
    match (item.kind, &item.verdicts) {
        (Some(kind), Some(verdicts)) => {
            format!("- **{kind}** `{}`: {verdicts}. {}", item.name, item.text)
        }
        _ => format!("- `{}`: {}", item.name, item.text),
    }
}

/// The first letter in upper case: titles and sentences start a line in Markdown.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
