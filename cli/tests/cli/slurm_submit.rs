//! `proctor submit slurm` end to end on a real Slurm (`scripts/slurm-up`; skipped without one
//! unless `PROCTOR_REQUIRE_SLURM` is set): it writes the array's and the merge job's scripts
//! beside `--out`, submits both, and once the merge job has run `--out` holds what one
//! unsharded run reports (docs/cluster.md).

use crate::cluster_suite::{
    SHARDS, SLEEP, assert_lines_of, local_proctor, report, run_args, unsharded, whole_lines,
    work_dir,
};
use crate::common::run;
use crate::slurm_jobs::{Job, diagnostics, records, slurm, task_ends, wait_gone};
use std::path::Path;
use std::time::Duration;

/// The job ids `submit` prints on its first line, `submitted shards 1-N as job ARRAY and
/// their merge as job MERGE (...)`: the numbers after the word `job`.
fn job_ids(stdout: &str) -> (Job, Job) {
    let first = stdout.lines().next().unwrap_or_default();
    let words: Vec<&str> = first.split_whitespace().collect();
    let ids: Vec<&str> = words
        .windows(2)
        .filter(|pair| pair[0] == "job" && pair[1].chars().all(|c| c.is_ascii_digit()))
        .map(|pair| pair[1])
        .collect();
    match ids[..] {
        [array, merge] => (Job(array.to_owned()), Job(merge.to_owned())),
        _ => panic!("submit's first line does not name two jobs: {stdout}"),
    }
}

/// The run id `submit` prints on its line `run id: ID`.
fn printed_run_id(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("run id: "))
        .unwrap_or_else(|| panic!("submit prints no run id: {stdout}"))
        .trim()
        .to_owned()
}

/// Asserts that a job ended as `state` with exit code `code`.
fn assert_ended(job: &str, dir: &Path, state: &str, code: &str) {
    for record in records(job) {
        assert_eq!(
            (record["JobState"].as_str(), record["ExitCode"].as_str()),
            (state, code),
            "job {job}\n{}",
            diagnostics(job, dir)
        );
    }
}

#[test]
fn submit_slurm_runs_the_shards_and_merges_them() {
    if !slurm() {
        return;
    }
    let dir = work_dir("submit");
    let dir = dir.path();
    let out = dir.join("R.jsonl");
    let output = run(local_proctor()
        .args(["submit", "slurm", "--shards", "4"])
        // Little memory: the node's default is all of it, which runs one shard at a time.
        .args(["--sbatch", "--mem=500M", "--sbatch", "--time=10", "--"])
        // RUN-ARGS: what follows `proctor run`.
        .args(&run_args()[1..])
        .arg("--out")
        .arg(&out)
        .env(SLEEP, "0"));
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
    let (array, merge) = job_ids(&output.stdout);
    let run_id = printed_run_id(&output.stdout);
    assert!(
        output.stdout.contains(&out.display().to_string()),
        "submit does not say where the merged results go: {}",
        output.stdout
    );
    for script in ["shards.sbatch", "merge.sbatch"] {
        assert!(
            dir.join("R.slurm").join(script).is_file(),
            "no R.slurm/{script}"
        );
    }
    unsharded();
    wait_gone(&merge, Duration::from_secs(420), dir);
    assert_ended(&merge, dir, "COMPLETED", "0:0");
    let ends = task_ends(&array);
    assert_eq!(ends.len(), SHARDS, "{}", diagnostics(&array, dir));
    for (index, end) in ends {
        let expected = ("COMPLETED".to_owned(), "0:0".to_owned());
        assert_eq!(
            end,
            expected,
            "array task {index}\n{}",
            diagnostics(&array, dir)
        );
    }
    for i in 1..=SHARDS {
        let lines = whole_lines(&dir.join(format!("R.shard-{i}-of-{SHARDS}.jsonl")));
        assert_eq!(lines.len(), 10, "shard {i}\n{}", diagnostics(&array, dir));
        assert_lines_of(&lines, &format!("{i}/{SHARDS}"), &run_id);
    }
    assert_eq!(report(&out), unsharded().report);
}
