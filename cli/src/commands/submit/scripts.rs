//! The two job scripts of `proctor submit slurm` (docs/cluster.md): the array of shards and
//! the merge that runs after it, whatever its tasks ended in.

use super::resources::shard_resources;
use super::shell_quote::quote;
use super::submission::Submission;

/// The array script: task I runs `proctor run --shard I/N --resume` into shard I's file.
///
/// The shard's number is `$SLURM_ARRAY_TASK_ID` given as `I/N`, not `--shard auto`, so that
/// `sbatch --array=3` of this file alone still runs shard 3 of N; `--resume` lets a requeued
/// or rerun shard complete its file instead of starting it over; `exec` makes proctor the
/// job's process, so Slurm's SIGTERM (scancel, the time limit) reaches it and it keeps its
/// finished lines, where a shell in between would be killed and proctor SIGKILLed after it.
pub fn shards_script(submission: &Submission) -> String {
    let layout = &submission.layout;
    let count = layout.count;
    let mut options = vec![
        format!("--job-name={}", job_name(submission)),
        format!("--array=1-{count}"),
        "--requeue".to_owned(),
        format!("--chdir={}", sbatch_value(&layout.submit_dir)),
        format!("--output={}", sbatch_value(&layout.shard_log_pattern())),
        "--open-mode=append".to_owned(),
    ];
    options.extend(shard_resources(
        submission.run.jobs,
        submission.run.max_memory,
    ));
    options.extend(submission.extra.iter().cloned());
    let (before, after) = layout.shard_file_around();
    let mut words = vec![quote(&submission.proctor), "run".to_owned()];
    for (at, word) in submission.run.words.iter().enumerate() {
        words.push(match at == submission.run.out_at {
            true => format!("{}\"$shard\"{}", quote(before), quote(after)),
            false => quote(word),
        });
    }
    words.extend([
        "--shard".to_owned(),
        format!("\"$shard/{count}\""),
        "--run-id".to_owned(),
        "\"$run_id\"".to_owned(),
        "--resume".to_owned(),
    ]);
    let mut script = header(
        &options,
        &[
            "The shards of `proctor submit slurm` (docs/cluster.md): array task I runs shard I/N.",
            &format!(
                "Run shard I again (it completes its file): sbatch --array=I {}",
                layout.shards_script()
            ),
        ],
    );
    script.push_str(&format!(
        ": \"${{SLURM_ARRAY_TASK_ID:?submit this file with sbatch}}\"\n\
         shard=$SLURM_ARRAY_TASK_ID\n\
         run_id={run_id}\n\
         echo \"$(date -u +%Y-%m-%dT%H:%M:%SZ) shard $shard/{count} of run $run_id starts \
         (job ${{SLURM_JOB_ID:-?}}, restart ${{SLURM_RESTART_COUNT:-0}})\"\n\
         # exec: Slurm's SIGTERM reaches proctor, which keeps its finished lines (exit 130).\n\
         exec {}\n",
        words.join(" "),
        run_id = quote(&submission.run_id),
    ));
    script
}

/// The merge script: fails naming the shards that wrote no file (and how to run each
/// again), else becomes `proctor merge`, which checks every task and attempt is there.
pub fn merge_script(submission: &Submission) -> String {
    let layout = &submission.layout;
    let count = layout.count;
    let options = [
        format!("--job-name={}-merge", job_name(submission)),
        format!("--chdir={}", sbatch_value(&layout.submit_dir)),
        format!("--output={}", sbatch_value(&layout.merge_log_pattern())),
        "--open-mode=append".to_owned(),
    ];
    let options: Vec<String> = options
        .into_iter()
        .chain(submission.extra.iter().cloned())
        .collect();
    let mut merge = vec![quote(&submission.proctor), "merge".to_owned()];
    merge.extend((1..=count).map(|index| quote(&layout.shard_file(index))));
    merge.extend(["--out".to_owned(), quote(&layout.merged)]);
    merge.extend(["--attempts".to_owned(), submission.run.attempts.to_string()]);
    // With --only the shards ran some tasks of the file: merge cannot tell which, so it
    // checks the attempts of the tasks it sees and not the file's list (docs/cluster.md).
    if !submission.run.only {
        merge.extend([
            "--tasks".to_owned(),
            quote(&submission.run.tasks.to_string_lossy()),
        ]);
        if !submission.run.variants.is_empty() {
            merge.push("--variants".to_owned());
            merge.extend(submission.run.variants.iter().map(|v| quote(v)));
        }
    }
    let (before, after) = layout.shard_file_around();
    let mut script = header(
        &options,
        &[
            "The merge of `proctor submit slurm` (docs/cluster.md): runs after the shards, \
             however they ended.",
            &format!(
                "Merge again once shards are run again: sbatch {}",
                layout.merge_script()
            ),
        ],
    );
    script.push_str(&format!(
        "shards_script={shards_script}\n\
         merge_script={merge_script}\n\
         missing=\n\
         i=1\n\
         while [ \"$i\" -le {count} ]; do\n\
         \x20 if [ ! -e {before}\"$i\"{after} ]; then\n\
         \x20   echo \"shard $i/{count} wrote no results; run it again with: sbatch --array=$i $shards_script\" >&2\n\
         \x20   missing=\"$missing $i\"\n\
         \x20 fi\n\
         \x20 i=$((i + 1))\n\
         done\n\
         if [ -n \"$missing\" ]; then\n\
         \x20 echo \"not merged: no results from shard(s)$missing of {count}; once they have run, merge with: sbatch $merge_script\" >&2\n\
         \x20 exit 1\n\
         fi\n\
         echo \"$(date -u +%Y-%m-%dT%H:%M:%SZ) merging the files of shards 1-{count}; if merge names missing shards, \
         run each again with: sbatch --array=I $shards_script, then: sbatch $merge_script\"\n\
         exec {merge}\n",
        // The variables hold the paths as they are typed back into a shell.
        shards_script = quote(&quote(&layout.shards_script())),
        merge_script = quote(&quote(&layout.merge_script())),
        before = quote(before),
        after = quote(after),
        merge = merge.join(" "),
    ));
    script
}

/// `#!/bin/sh`, comment lines, then one `#SBATCH` line per option: sbatch reads them up to
/// the first command.
fn header(options: &[String], comments: &[&str]) -> String {
    let mut text = "#!/bin/sh\n".to_owned();
    for comment in comments {
        text.push_str(&format!("# {comment}\n"));
    }
    for option in options {
        text.push_str(&format!("#SBATCH {option}\n"));
    }
    text
}

/// The jobs' name in `squeue`: proctor and the results' name, in characters every Slurm
/// tool prints plainly.
fn job_name(submission: &Submission) -> String {
    let stem = submission
        .run
        .out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = stem
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "-_.".contains(c) {
            true => c,
            false => '_',
        })
        .collect();
    format!("proctor-{clean}")
}

/// A value of an `#SBATCH` line: sbatch splits the line at spaces unless the value is in
/// double quotes (paths have none, see layout.rs).
fn sbatch_value(value: &str) -> String {
    match value.contains(char::is_whitespace) || value.contains('\'') {
        true => format!("\"{value}\""),
        false => value.to_owned(),
    }
}
