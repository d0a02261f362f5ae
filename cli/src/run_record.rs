//! The run record (`proctor.run/1`): what `proctor run` writes beside its results file
//! `R`, as `R.run.json`, so that a viewer can tell how many attempts the run planned,
//! which task file it used and where it keeps sandboxes (docs/result-format.md, "The run
//! record").
//!
//! The record is a hint written by whoever wrote the folder: it is read within bounds
//! (a regular file of at most [`LARGEST`] bytes, in its format) and trusted no further.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The format every record names.
pub const FORMAT: &str = "proctor.run/1";

/// The largest record [`read`] reads; a larger file is not one.
pub const LARGEST: u64 = 64 * 1024;

/// One invocation of `proctor run` on a results file (docs/result-format.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Always [`FORMAT`].
    pub format: String,
    /// The run id written on the run's result lines.
    pub run_id: String,
    /// The results file's name (no folder): the record lies beside it.
    pub results: String,
    /// The absolute path of `--tasks`.
    pub tasks: String,
    /// The agents' labels, as result lines carry them, in the order the run has them;
    /// `None` for an agent whose lines carry no label.
    pub agents: Vec<Option<String>>,
    /// The attempts this invocation's plan holds for its shard, those already done under
    /// `--resume` included.
    pub planned: u64,
    /// Readable result lines already in the results file when this invocation started
    /// (0 without `--resume`).
    pub done_at_start: u64,
    /// When this invocation started, RFC 3339 in UTC.
    pub started_at: String,
    /// `I/N` of a sharded run.
    pub shard: Option<String>,
    /// The absolute path of the `--keep` folder.
    pub keep: Option<String>,
    /// The process id of the `proctor run` that wrote the record.
    pub pid: u32,
}

/// `R.run.json` beside the results file `R`.
pub fn record_path(results: &Path) -> PathBuf {
    let mut name = results
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".run.json");
    results.with_file_name(name)
}

/// Writes the record of `results` whole: into `R.run.json.partial`, then moved over
/// `R.run.json`, so a reader never sees half of one.
pub fn write(results: &Path, record: &RunRecord) -> std::io::Result<()> {
    let path = record_path(results);
    let partial = crate::results_file::partial_path(&path);
    let mut text = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    text.push(b'\n');
    let written = std::fs::write(&partial, &text).and_then(|()| std::fs::rename(&partial, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

/// The record beside `results`, when there is one that reads: a regular file (a link is
/// not followed, a FIFO not waited on), at most [`LARGEST`] bytes, JSON of [`FORMAT`].
/// Anything else is `None`.
pub fn read(results: &Path) -> Option<RunRecord> {
    let path = record_path(results);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > LARGEST {
        return None;
    }
    // Checked again as it is opened: a link or FIFO swapped in meanwhile is refused too.
    let text = proctor_core::agent_file::read_bounded(&path, LARGEST).ok()?;
    let record: RunRecord = serde_json::from_slice(&text).ok()?;
    (record.format == FORMAT).then_some(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> RunRecord {
        RunRecord {
            format: FORMAT.to_owned(),
            run_id: "20261207-205910-abcd".to_owned(),
            results: "r.jsonl".to_owned(),
            tasks: "/suite/tasks.yaml".to_owned(),
            agents: vec![Some("plain".to_owned()), None],
            planned: 12,
            done_at_start: 3,
            started_at: "2026-12-07T20:59:10Z".to_owned(),
            shard: Some("2/4".to_owned()),
            keep: None,
            pid: 4242,
        }
    }

    #[test]
    fn the_record_lies_beside_the_results() {
        assert_eq!(
            record_path(Path::new("/a/b/r.jsonl")),
            Path::new("/a/b/r.jsonl.run.json")
        );
        assert_eq!(
            record_path(Path::new("r.jsonl")),
            Path::new("r.jsonl.run.json")
        );
    }

    #[test]
    fn a_written_record_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("r.jsonl");
        assert_eq!(read(&results), None);
        write(&results, &record()).unwrap();
        assert_eq!(read(&results), Some(record()));
        assert!(!dir.path().join("r.jsonl.run.json.partial").exists());
        // Rewritten whole.
        let resumed = RunRecord {
            done_at_start: 7,
            ..record()
        };
        write(&results, &resumed).unwrap();
        assert_eq!(read(&results), Some(resumed));
        let text = std::fs::read_to_string(record_path(&results)).unwrap();
        assert!(text.starts_with(r#"{"format":"proctor.run/1","#), "{text}");
    }

    #[test]
    fn a_record_out_of_bounds_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("r.jsonl");
        let path = record_path(&results);
        let good = serde_json::to_string(&record()).unwrap();
        // Too large, though it starts as a good record.
        let mut huge = good.clone();
        huge.push_str(&" ".repeat(LARGEST as usize));
        std::fs::write(&path, &huge).unwrap();
        assert_eq!(read(&results), None);
        // Another format, or not JSON.
        let other = good.replace("proctor.run/1", "proctor.run/2");
        std::fs::write(&path, other).unwrap();
        assert_eq!(read(&results), None);
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(read(&results), None);
        // A link to a good record is not followed.
        let elsewhere = dir.path().join("elsewhere.json");
        std::fs::write(&elsewhere, &good).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert_eq!(read(&results), None);
        // A FIFO, which nobody writes: not waited on.
        std::fs::remove_file(&path).unwrap();
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(read(&results), None);
        // A folder.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert_eq!(read(&results), None);
    }
}
