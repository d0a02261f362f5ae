//! Summary renderers: one per format, behind one function, kept apart from the engine
//! so that on-disk formats and terminal output can change independently.

pub mod calibrate;
pub mod compare;
pub mod details;
mod grid;
pub mod json;
pub mod junit;
pub mod markdown;
mod numbers;
mod reasons;
mod rows;
pub mod table;

use proctor_core::summary::Scorecards;
use std::io::Write;

/// The text formats every summary can be printed in; each command maps its `--format` to
/// one, so that renderers depend on no command's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Table,
    Markdown,
    Json,
}

/// Prints every scorecard on stdout in the chosen shape.
pub fn print_scorecards(shape: Shape, title: &str, cards: &Scorecards) -> anyhow::Result<()> {
    let text = match shape {
        Shape::Table => table::render_cards(title, cards),
        Shape::Markdown => markdown::render_cards(title, cards),
        Shape::Json => json::render_cards(cards),
    };
    print_text(&text);
    Ok(())
}

/// Writes `text` to stdout. A closed pipe (`| head`) is not an error worth a non-zero exit.
pub fn print_text(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
