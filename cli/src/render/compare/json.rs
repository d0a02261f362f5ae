//! `--format json`: the whole comparison, every number, snake_case names.

use proctor_core::compare::Comparison;

pub fn render(c: &Comparison) -> String {
    let mut text = serde_json::to_string_pretty(c).expect("a comparison always serialises");
    text.push('\n');
    text
}
