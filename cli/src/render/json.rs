//! `--format json`: one object whose field names are DESIGN's metric names.

use proctor_core::summary::Summary;

pub fn render(summary: &Summary) -> String {
    let mut text = serde_json::to_string_pretty(summary).expect("a summary always serialises");
    text.push('\n');
    text
}
