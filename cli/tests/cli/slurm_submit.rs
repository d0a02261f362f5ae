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

/// The job ids `submit` prints: the array's, then the merge job's, each the first number after
/// the word that names it.
fn job_ids(stdout: &str) -> (String, String) {
    let after = |word: &str| {
        let words: Vec<&str> = stdout.split_whitespace().collect();
        let at = words
            .iter()
            .position(|w| w.to_lowercase().contains(word))
            .unwrap_or_else(|| panic!("submit names no {word} job: {stdout}"));
        words[at..]
            .iter()
            .map(|w| w.trim_matches(|c: char| !c.is_ascii_digit()))
            .find(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
            .unwrap_or_else(|| panic!("no job id after `{word}`: {stdout}"))
            .to_owned()
    };
    (after("array"), after("merge"))
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
        .args(["--sbatch", "--mem=500M", "--sbatch", "--time=10"])
        .args(["--sbatch", "--job-name=proctor-test", "--"])
        .args(run_args())
        .arg("--out")
        .arg(&out)
        .env(SLEEP, "0"));
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
    let (array, merge) = job_ids(&output.stdout);
    let (array, merge) = (Job(array), Job(merge));
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
    for (index, end) in task_ends(&array) {
        let expected = ("COMPLETED".to_owned(), "0:0".to_owned());
        assert_eq!(
            end,
            expected,
            "array task {index}\n{}",
            diagnostics(&array, dir)
        );
    }
    let mut run_ids = Vec::new();
    for i in 1..=SHARDS {
        let lines = whole_lines(&dir.join(format!("R.shard-{i}-of-{SHARDS}.jsonl")));
        assert_eq!(lines.len(), 10, "shard {i}\n{}", diagnostics(&array, dir));
        let run_id = lines[0]["run_id"].as_str().unwrap().to_owned();
        assert_lines_of(&lines, &format!("{i}/{SHARDS}"), &run_id);
        run_ids.push(run_id);
    }
    run_ids.dedup();
    assert_eq!(
        run_ids.len(),
        1,
        "the shards name different runs: {run_ids:?}"
    );
    assert_eq!(report(&out), unsharded().report);
}
