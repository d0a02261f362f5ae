//! `proctor ledger add R.jsonl... --ledger L.csv`.

use crate::args::AddArgs;
use crate::ledger_file::error::ledger_error;
use crate::problems::Problems;
use crate::results_file::for_each_result;
use jiff::Timestamp;
use proctor_ledger::book::{AppendReport, LedgerBatch, RowContext, rows_of_result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

pub fn run(args: AddArgs) -> anyhow::Result<()> {
    let mut problems = Problems::default();
    let report = append_results(
        &args.results,
        &args.ledger,
        args.suite.as_deref(),
        args.run_id.as_deref(),
        &mut problems,
    )?;
    eprintln!(
        "proctor: added {} rows to {} ({} already there)",
        report.added,
        args.ledger.display(),
        report.duplicates
    );
    problems.into_result("result lines")
}

/// Appends the rows of result files to `ledger` in one locked batch; unreadable result
/// lines go to `problems` and the rest is added.
pub fn append_results(
    results: &[PathBuf],
    ledger: &Path,
    suite: Option<&str>,
    run_id: Option<&str>,
    problems: &mut Problems,
) -> anyhow::Result<AppendReport> {
    let mut batch = LedgerBatch::new().map_err(ledger_error)?;
    for path in results {
        // A line's own run id (every shard of one run shares it) comes before the file's.
        let file_run_id = match run_id {
            Some(id) => id.to_owned(),
            None => file_digest(path)?,
        };
        let fallback_time = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| Timestamp::try_from(t).ok())
            .unwrap_or_else(Timestamp::now);
        for_each_result(
            std::slice::from_ref(path),
            |_, line| {
                let suite = suite.map_or_else(|| short_digest(&line.task_digest), str::to_owned);
                let run_id = match (run_id, &line.run_id) {
                    (None, Some(own)) => own,
                    _ => &file_run_id,
                };
                let ctx = RowContext {
                    run_id,
                    suite: &suite,
                    fallback_time,
                };
                for row in rows_of_result(&line, &ctx) {
                    batch.push(&row).map_err(ledger_error)?;
                }
                Ok(())
            },
            |bad| problems.report(bad.to_string()),
        )?;
    }
    batch.commit(ledger).map_err(ledger_error)
}

/// The first 12 hex digits of a task-file digest (`sha256:…`).
fn short_digest(digest: &str) -> String {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    hex.chars().take(12).collect()
}

/// 12 hex digits of the file's SHA-256: the same results give the same run id.
fn file_digest(path: &Path) -> anyhow::Result<String> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| crate::exit::bad_input!("{}: cannot read results: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| crate::exit::bad_input!("{}: cannot read results: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    let hex: String = hasher
        .finalize()
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(hex)
}
