//! Where a submitted run's files go, beside its `--out` (docs/cluster.md): for `R.jsonl`,
//! the shards write `R.shard-I-of-N.jsonl`, the merge `R.jsonl`, and the job scripts and
//! their logs live in `R.slurm/`.

use crate::exit::bail_input;
use std::path::{Component, Path, PathBuf};

/// The files of one submitted run, every path absolute and UTF-8 (they are written into
/// scripts).
#[derive(Debug)]
pub struct Layout {
    /// The folder submit ran in: the jobs run there, so RUN-ARGS' relative paths hold.
    pub submit_dir: String,
    /// The merged results, `--out` made absolute.
    pub merged: String,
    /// The folder of the scripts and logs.
    pub jobs_dir: String,
    /// Shard I's file is `shard_prefix`, I, then `shard_suffix` (`-of-N.jsonl`).
    shard_prefix: String,
    shard_suffix: String,
    /// Shards, N.
    pub count: u64,
}

impl Layout {
    pub fn new(submit_dir: &Path, out: &Path, count: u64) -> anyhow::Result<Layout> {
        let merged = lexically_clean(&submit_dir.join(out));
        let (Some(parent), Some(name)) = (merged.parent(), merged.file_name()) else {
            bail_input!("--out {}: not a file name", out.display());
        };
        if !parent.is_dir() {
            bail_input!(
                "--out {}: the folder {} does not exist",
                out.display(),
                parent.display()
            );
        }
        let name = utf8(Path::new(name))?;
        let (stem, extension) = match name.rsplit_once('.') {
            Some((stem, extension)) if !stem.is_empty() => (stem, format!(".{extension}")),
            _ => (name, String::new()),
        };
        let parent = utf8(parent)?.trim_end_matches('/').to_owned();
        Ok(Layout {
            submit_dir: utf8(submit_dir)?.to_owned(),
            merged: utf8(&merged)?.to_owned(),
            jobs_dir: format!("{parent}/{stem}.slurm"),
            shard_prefix: format!("{parent}/{stem}.shard-"),
            shard_suffix: format!("-of-{count}{extension}"),
            count,
        })
    }

    /// Shard `index`'s results (1-based).
    pub fn shard_file(&self, index: impl std::fmt::Display) -> String {
        format!("{}{index}{}", self.shard_prefix, self.shard_suffix)
    }

    /// What comes before and after the shard's number in its file's name.
    pub fn shard_file_around(&self) -> (&str, &str) {
        (&self.shard_prefix, &self.shard_suffix)
    }

    pub fn shards_script(&self) -> String {
        format!("{}/shards.sbatch", self.jobs_dir)
    }

    pub fn merge_script(&self) -> String {
        format!("{}/merge.sbatch", self.jobs_dir)
    }

    /// Shard I's log, as Slurm's `--output` pattern (`%a`: the array task's number).
    pub fn shard_log_pattern(&self) -> String {
        format!("{}/shard-%a.log", escape_percent(&self.jobs_dir))
    }

    pub fn merge_log_pattern(&self) -> String {
        format!("{}/merge.log", escape_percent(&self.jobs_dir))
    }
}

/// `path` without its `.` parts (`/a/./b` is `/a/b`); `..` stays, as the file system
/// decides what it means.
fn lexically_clean(path: &Path) -> PathBuf {
    path.components()
        .filter(|part| *part != Component::CurDir)
        .collect()
}

/// Slurm reads `%` in `--output` as the start of a pattern; `%%` is a `%`.
fn escape_percent(text: &str) -> String {
    text.replace('%', "%%")
}

fn utf8(path: &Path) -> anyhow::Result<&str> {
    match path.to_str() {
        // `#SBATCH` lines take a path in double quotes, and no quote inside it.
        Some(text) if !text.contains(['\n', '"']) => Ok(text),
        _ => bail_input!(
            "{}: job scripts need paths in UTF-8 without newlines or double quotes",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_puts_shards_scripts_and_logs_beside_the_merged_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let layout = Layout::new(dir.path(), Path::new("./r.jsonl"), 3).unwrap();
        assert_eq!(layout.merged, format!("{root}/r.jsonl"));
        assert_eq!(layout.shard_file(2), format!("{root}/r.shard-2-of-3.jsonl"));
        assert_eq!(
            layout.shards_script(),
            format!("{root}/r.slurm/shards.sbatch")
        );
        assert_eq!(
            layout.shard_log_pattern(),
            format!("{root}/r.slurm/shard-%a.log")
        );
        let bare = Layout::new(dir.path(), Path::new("results"), 2).unwrap();
        assert_eq!(bare.shard_file(1), format!("{root}/results.shard-1-of-2"));
        assert_eq!(bare.jobs_dir, format!("{root}/results.slurm"));
    }

    #[test]
    fn layout_refuses_a_folder_that_does_not_exist() {
        let dir = tempfile::tempdir().unwrap();
        let error = Layout::new(dir.path(), Path::new("no/r.jsonl"), 2).unwrap_err();
        assert!(error.to_string().contains("does not exist"), "{error}");
    }
}
