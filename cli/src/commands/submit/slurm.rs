//! `proctor submit slurm`: writes the array and merge scripts beside the results, submits
//! them with sbatch, and says how to watch and rerun (docs/cluster.md).

use super::sbatch::sbatch;
use super::scripts::{merge_script, shards_script};
use super::shell_quote::quote;
use super::submission::Submission;
use crate::args::SlurmArgs;
use crate::exit::infrastructure;
use std::os::unix::fs::PermissionsExt;

pub fn run(args: SlurmArgs) -> anyhow::Result<()> {
    let submission = Submission::new(&args)?;
    let shards = shards_script(&submission);
    let merge = merge_script(&submission);
    let layout = &submission.layout;
    let (shards_path, merge_path) = (layout.shards_script(), layout.merge_script());
    if args.dry_run {
        return crate::exit::print(&format!(
            "# {shards_path}\n{shards}\n# {merge_path}\n{merge}\n\
             # submit runs (JOBID: the id the first sbatch prints):\n\
             sbatch --parsable {}\n\
             sbatch --parsable --dependency=afterany:JOBID {}\n",
            quote(&shards_path),
            quote(&merge_path),
        ));
    }
    notes(&submission);
    std::fs::create_dir_all(&layout.jobs_dir)
        .map_err(|e| infrastructure(format!("{}: cannot make the folder", layout.jobs_dir), e))?;
    write_script(&shards_path, &shards)?;
    write_script(&merge_path, &merge)?;
    let array = sbatch(&[], &shards_path)?;
    // afterany, not afterok: a shard Slurm marks failed (a requeue, an agent over --mem)
    // may still have written every line; the merge checks what is there.
    let merge_job =
        sbatch(&[format!("--dependency=afterany:{array}")], &merge_path).map_err(|e| {
            e.context(format!(
                "the shards are job {array}, but their merge was not submitted; \
                 submit it with: sbatch --dependency=afterany:{array} {}",
                quote(&merge_path)
            ))
        })?;
    crate::exit::print(&submitted(&submission, &array, &merge_job))
}

/// What stdout says after submitting: the jobs, the files, how to watch and rerun.
fn submitted(submission: &Submission, array: &str, merge_job: &str) -> String {
    let layout = &submission.layout;
    let count = layout.count;
    let (before, after) = layout.shard_file_around();
    // The `*` stays outside the quotes, for the shell to expand.
    let shard_files = format!("{}*{}", quote(before), quote(after));
    let logs = format!("{}/shard-*.log", quote(&layout.jobs_dir));
    format!(
        "submitted shards 1-{count} as job {array} and their merge as job {merge_job} \
         (it runs when the shards end, however they end)\n\
         run id: {run_id}\n\
         merged results: {merged}\n\
         watch:\n\
         \x20 squeue -j {array},{merge_job}\n\
         \x20 proctor report {shard_files}\n\
         \x20 tail -f {logs}\n\
         run shard I again (it completes its file), then the merge:\n\
         \x20 sbatch --array=I {shards}\n\
         \x20 sbatch --dependency=afterany:JOBID {merge}\n",
        run_id = submission.run_id,
        merged = quote(&layout.merged),
        shards = quote(&layout.shards_script()),
        merge = quote(&layout.merge_script()),
    )
}

/// What the user may not expect, on stderr before submitting.
fn notes(submission: &Submission) {
    let layout = &submission.layout;
    if submission.run.jobs.is_none() && submission.run.max_memory.is_some() {
        eprintln!(
            "proctor: note: --max-memory without --jobs: the shards ask Slurm for its default \
             CPUs and memory; give --jobs J to ask for J CPUs and J × the memory"
        );
    }
    let earlier: Vec<u64> = (1..=layout.count)
        .filter(|index| std::path::Path::new(&layout.shard_file(index)).exists())
        .collect();
    if !earlier.is_empty() {
        eprintln!(
            "proctor: note: shard files of an earlier run exist (shards {earlier:?}): \
             the shards resume them; delete them to start over"
        );
    }
}

/// A job script, executable (0755), replacing one an earlier submit wrote.
fn write_script(path: &str, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).map_err(|e| infrastructure(format!("{path}: cannot write"), e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| infrastructure(format!("{path}: cannot make it executable"), e))
}
