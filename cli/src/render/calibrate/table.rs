//! `--format table`: the [`Content`] of a calibration in aligned columns, a blank line
//! between sections.

use super::super::table::columns;
use super::content::{Block, Content, Item};
use proctor_core::calibrate::Calibration;
use std::fmt::Write;

/// Reasoning longer than this is cut in the table; JSON and markdown carry it whole.
const REASONING_CHARS: usize = 300;

pub fn render(c: &Calibration) -> String {
    let content = Content::of(c);
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", content.command, content.inputs.join(" "));
    for (at, section) in content.sections.iter().enumerate() {
        if at > 0 {
            let _ = writeln!(out);
        }
        if let Some(title) = &section.title {
            let listed = matches!(section.blocks.first(), Some(Block::Items(_)));
            let _ = writeln!(out, "{title}{}", if listed { ":" } else { "" });
        }
        for block in &section.blocks {
            block_text(&mut out, block);
        }
    }
    out
}

fn block_text(out: &mut String, block: &Block) {
    match block {
        Block::Lines(lines) => {
            for line in lines {
                let _ = writeln!(out, "{line}");
            }
        }
        Block::Rates(rates) => out.push_str(&columns(
            &rates
                .iter()
                .map(|r| {
                    let cells = [r.name, &r.value, &r.interval, &r.says];
                    cells.map(str::to_owned).to_vec()
                })
                .collect::<Vec<_>>(),
        )),
        Block::Matrix(rows) => out.push_str(&columns(rows)),
        Block::Rows(rows) => out.push_str(&columns(
            &rows
                .iter()
                .map(|(name, value)| vec![name.clone(), value.clone()])
                .collect::<Vec<_>>(),
        )),
        Block::Warning(warning) => {
            let _ = writeln!(out, "warning: {warning}");
        }
        Block::Items(items) => {
            for item in items {
                item_text(out, item);
            }
        }
    }
}

fn item_text(out: &mut String, item: &Item) {
    match (item.kind, &item.verdicts) {
        (Some(kind), Some(verdicts)) => {
            let _ = writeln!(out, "  {kind}  {}  {verdicts}", item.name);
            let _ = writeln!(out, "      {}", cut(&item.text));
        }
        _ => {
            let _ = writeln!(out, "  {}  {}", item.name, cut(&item.text));
        }
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= REASONING_CHARS {
        text.to_owned()
    } else {
        let kept: String = text.chars().take(REASONING_CHARS).collect();
        format!("{kept}…")
    }
}
