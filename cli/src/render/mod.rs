//! Summary renderers: one per format, behind one function, kept apart from the engine
//! so that on-disk formats and terminal output can change independently.

pub mod calibrate;
pub mod compare;
pub mod details;
mod grid;
pub mod json;
pub mod junit;
pub mod markdown;
mod never_applied;
pub mod numbers;
mod reasons;
mod rows;
pub mod shown;
pub mod table;

use proctor_core::summary::Scorecards;

/// The text formats every summary can be printed in; each command maps its `--format` to
/// one, so that renderers depend on no command's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Table,
    Markdown,
    Json,
}

/// Every scorecard in the chosen shape; the caller prints it (renderers write nothing).
pub fn scorecards(shape: Shape, title: &str, cards: &Scorecards) -> String {
    match shape {
        Shape::Table => table::render_cards(title, cards),
        Shape::Markdown => markdown::render_cards(title, cards),
        Shape::Json => json::render_cards(cards),
    }
}
