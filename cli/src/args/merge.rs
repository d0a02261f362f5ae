//! `proctor merge` (docs/merging.md).

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Result files to join (e.g. one per shard).
    #[arg(required = true, value_name = "R.jsonl")]
    pub results: Vec<PathBuf>,
    /// The merged file.
    #[arg(long, value_name = "ALL.jsonl")]
    pub out: PathBuf,
    /// The task files the shards ran, to list tasks with no result at all.
    #[arg(long, value_name = "T")]
    pub tasks: Option<PathBuf>,
    /// Attempts each task should have, to list missing ones beyond the highest seen.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub attempts: Option<u64>,
    /// The `--variants` the shards ran (all, none or names), so that variants they did not
    /// run are not listed as missing.
    #[arg(long, value_name = "none|all|NAME", num_args = 1.., requires = "tasks")]
    pub variants: Vec<String>,
    /// Accept shards or attempts that are missing or doubled: they are still named and the
    /// file is written, but the merge exits 0, saying it is partial. Conflicting results and
    /// unreadable lines still exit 2 (docs/merging.md).
    #[arg(long)]
    pub partial: bool,
}
