//! `--html FILE` on the commands that grade (`run`, `grade`, `judge`): the page is made
//! from the results file once the summary is printed.

use super::AttemptSink;
use crate::exit::infrastructure;
use crate::html::{self, EndStateDir, ReportInput};
use crate::ledger_file::report::weekly_chart;
use proctor_core::summary::Scorecards;
use proctor_core::task::Suite;
use std::path::{Path, PathBuf};

/// Where results are written: `--out`, or with `--html` and no `--out` a temporary file that
/// lives as long as this value, since the page is made from the written results.
#[derive(Debug)]
pub struct ResultsFile {
    pub path: Option<PathBuf>,
    _scratch: Option<tempfile::NamedTempFile>,
}

impl ResultsFile {
    pub fn new(out: Option<&Path>, html: Option<&Path>) -> anyhow::Result<ResultsFile> {
        if let (Some(out), Some(html)) = (out, html)
            && out == html
        {
            crate::exit::bail_input!(
                "--out and --html both name {}: the page would replace the results",
                out.display()
            );
        }
        let scratch = match (html, out) {
            (Some(_), None) => Some(
                tempfile::NamedTempFile::new().map_err(|e| infrastructure("temporary file", e))?,
            ),
            _ => None,
        };
        let path = out
            .map(Path::to_owned)
            .or_else(|| scratch.as_ref().map(|f| f.path().to_owned()));
        Ok(ResultsFile {
            path,
            _scratch: scratch,
        })
    }
}

/// The page (`--html`), written once the results file is whole.
#[derive(Debug)]
pub struct PageOut<'a> {
    pub file: ResultsFile,
    /// `--html FILE`.
    pub page: Option<&'a Path>,
    /// `--k`.
    pub k: Option<u64>,
    pub options: PageOptions<'a>,
}

impl AttemptSink for PageOut<'_> {
    fn present(&mut self, title: &str, cards: &Scorecards) -> anyhow::Result<()> {
        let (Some(page), Some(results)) = (self.page, &self.file.path) else {
            return Ok(());
        };
        let options = &self.options;
        let mut summary = crate::render::json::cards_value(cards);
        crate::render::shown::add_shown(&mut summary, cards);
        let mut input =
            ReportInput::of_results(title.to_owned(), vec![results.clone()], summary, self.k);
        input.tasks = html::task_infos(options.suite);
        if let Some(ledger) = options.ledger {
            input.chart_svg = Some(weekly_chart(ledger)?);
        }
        input.end_states = options
            .kept
            .map(|(dir, is_end_state)| EndStateDir::new(dir, is_end_state, Some(options.suite)));
        html::write_file(page, &input)
    }
}

/// What a grading command adds to its page.
#[derive(Debug, Clone, Copy)]
pub struct PageOptions<'a> {
    pub suite: &'a Suite,
    /// `--ledger`, for the cost chart.
    pub ledger: Option<&'a Path>,
    /// Kept sandboxes, and whether the folder itself is an end state (`grade --workdir`).
    pub kept: Option<(&'a Path, bool)>,
}
