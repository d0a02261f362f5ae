//! `--format html` and `--html FILE`: one self-contained page to read results in a browser.
//!
//! The page opens from disk and makes no request: its style and script are written here and
//! inlined, its data is embedded as escaped JSON (see [`embed`]), and a content security
//! policy allows only those inline parts, by hash. The numbers it shows are the ones
//! `--format json` prints, computed here in Rust and embedded; the script only lays them out.
//! Agent text is shown with `textContent`, never parsed as markup. The same input gives the
//! same bytes: nothing depends on the time or on hash order.

mod attempts;
mod bound;
mod embed;
mod end_state;
mod page;

pub use attempts::Grouping;
pub use end_state::EndStateDir;
#[cfg(test)]
pub(crate) use page::FORBIDDEN_IN_SCRIPTS;

use crate::exit::infrastructure;
use proctor_core::task::Suite;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a task contributes to the page: what the agent was asked and its tags.
#[derive(Debug, Clone, Serialize)]
pub struct TaskInfo {
    pub input: String,
    pub tags: Vec<String>,
}

/// Everything a page is made from.
#[derive(Debug)]
pub struct ReportInput {
    /// The command that made the report, shown as the page's title.
    pub title: String,
    /// The result files, read once more to embed every attempt.
    pub results: Vec<PathBuf>,
    pub grouping: Grouping,
    /// The summary as `--format json` prints it, when the command prints one.
    pub summary: Option<Value>,
    /// The comparison as `compare --format json` prints it.
    pub comparison: Option<Value>,
    /// Inputs and tags by task id, when the task files are at hand.
    pub tasks: BTreeMap<String, TaskInfo>,
    /// The ledger's cost-per-success chart (SVG), with `--ledger`.
    pub chart_svg: Option<String>,
    /// The k of pass@k for the per-agent scorecards.
    pub k: Option<u64>,
    /// Kept sandboxes, to list each attempt's files.
    pub end_states: Option<EndStateDir>,
    /// Which line of an attempt written twice the page takes (`--duplicates`).
    pub duplicates: crate::duplicates::Duplicates,
}

impl ReportInput {
    /// A report of result files with the summary a command computed from them (the value
    /// `--format json` prints), grouped by label; tasks and the chart are added by the caller
    /// when it has them.
    pub fn of_results(
        title: String,
        results: Vec<PathBuf>,
        summary: Value,
        k: Option<u64>,
    ) -> ReportInput {
        ReportInput {
            title,
            results,
            grouping: Grouping::ByLabel,
            summary: Some(summary),
            comparison: None,
            tasks: BTreeMap::new(),
            chart_svg: None,
            k,
            end_states: None,
            // The results of `run` and `grade` hold one line per attempt (their --out is
            // locked, --resume skips what is done); `report` sets its own `--duplicates`.
            duplicates: crate::duplicates::Duplicates::First,
        }
    }
}

/// Inputs and tags of every task of a suite.
pub fn task_infos(suite: &Suite) -> BTreeMap<String, TaskInfo> {
    suite
        .tasks
        .iter()
        .map(|t| {
            let info = TaskInfo {
                input: t.input.clone(),
                tags: t.tags.clone(),
            };
            (t.id.clone(), info)
        })
        .collect()
}

/// The page's content security policy, for a server that sends it as a header.
pub fn policy() -> String {
    page::policy()
}

/// Writes the page to `out`, its summary made by `late` while the attempts are written
/// (`proctor view` streams a page so).
pub fn write_with_late_summary(
    out: &mut dyn Write,
    input: &ReportInput,
    late: impl FnOnce() -> anyhow::Result<Value> + Send,
) -> anyhow::Result<()> {
    page::write_page_with(out, input, Some(late))
}

/// Writes the page to `out`.
pub fn write(out: &mut dyn Write, input: &ReportInput) -> anyhow::Result<()> {
    page::write_page(out, input)
}

/// Writes the page to a file, creating its folder, and says where on stderr.
pub fn write_file(path: &Path, input: &ReportInput) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            crate::exit::infrastructure(format!("{}: cannot create folder", parent.display()), e)
        })?;
    }
    let file = std::fs::File::create(path).map_err(|e| {
        crate::exit::infrastructure(
            format!("{}: cannot write the HTML report", path.display()),
            e,
        )
    })?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    write(&mut out, input)?;
    out.flush().map_err(|e| infrastructure(path.display(), e))?;
    eprintln!("proctor: wrote the HTML report {}", path.display());
    Ok(())
}
