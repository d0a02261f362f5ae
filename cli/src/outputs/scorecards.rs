//! The scorecards printed on stdout, in `--format`.

use super::AttemptSink;
use crate::args::Format;
use crate::render::{self, Shape};
use proctor_core::summary::Scorecards;

/// Prints the scorecards of every attempt.
#[derive(Debug)]
pub struct ScorecardsOut(Shape);

impl ScorecardsOut {
    pub fn new(format: Format) -> ScorecardsOut {
        ScorecardsOut(match format {
            Format::Table => Shape::Table,
            Format::Markdown => Shape::Markdown,
            Format::Json => Shape::Json,
        })
    }
}

impl AttemptSink for ScorecardsOut {
    fn present(&mut self, title: &str, cards: &Scorecards) -> anyhow::Result<()> {
        crate::exit::print(&render::scorecards(self.0, title, cards))
    }
}
