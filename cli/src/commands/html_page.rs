//! `--html FILE` on the commands that grade (`run`, `grade`): the page is made from the
//! results file once the summary is printed.

use crate::commands::ledger::report::weekly_chart;
use crate::exit::infrastructure;
use crate::render::html::{self, ReportInput};
use proctor_core::summary::Summary;
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

    /// Writes the page to `page` when `--html` was given.
    pub fn write_page(
        &self,
        page: Option<&Path>,
        title: String,
        summary: &Summary,
        k: Option<u64>,
        suite: &Suite,
        ledger: Option<&Path>,
    ) -> anyhow::Result<()> {
        let (Some(page), Some(results)) = (page, &self.path) else {
            return Ok(());
        };
        let mut input = ReportInput::of_results(title, vec![results.clone()], summary, k);
        input.tasks = html::task_infos(suite);
        if let Some(ledger) = ledger {
            input.chart_svg = Some(weekly_chart(ledger)?);
        }
        html::write_file(page, &input)
    }
}
