//! `proctor run --shard` in Slurm job arrays written by hand, on a real Slurm
//! (`scripts/slurm-up`; skipped without one unless `PROCTOR_REQUIRE_SLURM` is set): four
//! shards merged report what one unsharded run does; a shard cancelled, or stopped at its
//! time limit, leaves whole lines and `--resume` completes it (docs/cluster.md).

use crate::cluster_suite::{
    SHARDS, SLEEP, assert_lines_of, assert_merged_equals_unsharded,
    assert_same_attempts_as_unsharded, job_command, line_count, unsharded, whole_lines, work_dir,
};
use crate::slurm_jobs::{
    cluster_name, diagnostics, queued, records, sbatch, script, slurm, task_ends, wait_gone,
    wait_until,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Long enough for a few quick jobs behind other tests' jobs on a two-CPU node.
const QUICK: Duration = Duration::from_secs(300);

/// The array's script: each task runs the shard its index names (`--shard auto`) into
/// `shard-INDEX.jsonl`; `before` lines run first.
fn array_script(before: &[&str], extra: &[&str]) -> String {
    let mut args = vec!["--shard", "auto"];
    args.extend(extra);
    script(
        before,
        &job_command(&args),
        "--out \"shard-$SLURM_ARRAY_TASK_ID.jsonl\"",
    )
}

/// The shard files of an array of tasks 0 to 3.
fn shard_files(dir: &Path) -> Vec<PathBuf> {
    (0..SHARDS)
        .map(|i| dir.join(format!("shard-{i}.jsonl")))
        .collect()
}

/// Asserts how each task of an array ended, as `scontrol` shows it: `(JobState, ExitCode)`.
fn assert_task_ends(array: &str, dir: &Path, expected: &[(&str, &str)]) {
    let ends = task_ends(array);
    for (index, (state, code)) in expected.iter().enumerate() {
        assert_eq!(
            ends.get(&index.to_string()),
            Some(&(state.to_string(), code.to_string())),
            "array task {index}\n{}",
            diagnostics(array, dir)
        );
    }
}

/// Asserts how a job ended.
fn assert_job_end(job: &str, dir: &Path, state: &str, code: &str) {
    let record = &records(job)[0];
    assert_eq!(
        (record["JobState"].as_str(), record["ExitCode"].as_str()),
        (state, code),
        "{}",
        diagnostics(job, dir)
    );
}

/// Submits `--resume` of one shard as a job of its own, waits for it, and asserts that it
/// kept the lines already there and completed the shard's ten attempts.
fn resume_shard(dir: &Path, shard: &str, run_id: &str, out: &Path) {
    let kept = std::fs::read_to_string(out).unwrap();
    let out_arg = out.display().to_string();
    let words = job_command(&[
        "--shard", shard, "--run-id", run_id, "--resume", "--out", &out_arg,
    ]);
    let job = sbatch(
        dir,
        "resume.sbatch",
        &script(&[], &words, ""),
        &[],
        &[(SLEEP, "0")],
    );
    wait_gone(&job, QUICK, dir);
    assert_job_end(&job, dir, "COMPLETED", "0:0");
    let text = std::fs::read_to_string(out).unwrap();
    assert!(
        text.starts_with(&kept),
        "--resume changed the lines it found"
    );
    let lines = whole_lines(out);
    assert_eq!(lines.len(), 10, "{}", diagnostics(&job, dir));
    assert_lines_of(&lines, shard, run_id);
    assert_same_attempts_as_unsharded(&lines);
}

#[test]
fn an_array_of_four_shards_merges_to_the_unsharded_report() {
    if !slurm() {
        return;
    }
    let dir = work_dir("array");
    let dir = dir.path();
    let array = sbatch(
        dir,
        "shards.sbatch",
        &array_script(&[], &[]),
        &["--array=0-3"],
        &[(SLEEP, "0")],
    );
    unsharded();
    wait_gone(&array, QUICK, dir);
    assert_task_ends(&array, dir, &[("COMPLETED", "0:0"); SHARDS]);
    let run_id = format!("slurm:{}:{array}", cluster_name());
    let shards = shard_files(dir);
    for (i, path) in shards.iter().enumerate() {
        let lines = whole_lines(path);
        assert_eq!(lines.len(), 10, "{}", path.display());
        assert_lines_of(&lines, &format!("{}/{SHARDS}", i + 1), &run_id);
    }
    assert_merged_equals_unsharded(&shards, dir);
}

/// `scancel` of one array task while its agents run: proctor exits 130 (as Slurm shows it),
/// its finished attempts are whole lines, and a job resuming that shard completes it.
#[test]
fn a_cancelled_array_task_resumes_to_the_unsharded_report() {
    if !slurm() {
        return;
    }
    let dir = work_dir("cancel");
    let dir = dir.path();
    // Task 2 (shard 3/4) takes two seconds an attempt, one at a time; the others are quick.
    let slow = format!("[ \"$SLURM_ARRAY_TASK_ID\" = 2 ] && export {SLEEP}=2");
    let array = sbatch(
        dir,
        "shards.sbatch",
        &array_script(&[&slow], &["--jobs", "1"]),
        &["--array=0-3"],
        &[(SLEEP, "0")],
    );
    let out = dir.join("shard-2.jsonl");
    // An array task that ended early has failed: stop waiting then too.
    let task = format!("{array}_2");
    wait_until("shard 3/4 to finish 3 attempts", QUICK, &array, dir, || {
        line_count(&out) >= 3 || !queued(&task)
    });
    assert!(line_count(&out) >= 3, "{}", diagnostics(&array, dir));
    let cancelled = std::process::Command::new("scancel")
        .arg(&task)
        .status()
        .unwrap();
    assert!(cancelled.success());
    unsharded();
    wait_gone(&array, QUICK, dir);
    let done = ("COMPLETED", "0:0");
    assert_task_ends(&array, dir, &[done, done, ("CANCELLED", "130:0"), done]);
    let stopped = whole_lines(&out).len();
    assert!((3..10).contains(&stopped), "{stopped} lines after scancel");
    let run_id = format!("slurm:{}:{array}", cluster_name());
    resume_shard(dir, "3/4", &run_id, &out);
    assert_merged_equals_unsharded(&shard_files(dir), dir);
}

/// A shard that needs more than its job's time limit (ten attempts of fifteen seconds, one
/// at a time, in one minute, which Slurm enforces some seconds late): Slurm's SIGTERM makes
/// proctor exit 130 (`TIMEOUT`, `ExitCode=130:0`), every line it wrote is whole, and a job
/// resuming the shard completes it.
#[test]
fn a_shard_past_its_time_limit_exits_130_and_resumes() {
    if !slurm() {
        return;
    }
    let dir = work_dir("time-limit");
    let dir = dir.path();
    let run_id = "time-limit-test";
    let words = job_command(&[
        "--shard",
        "2/4",
        "--run-id",
        run_id,
        "--jobs",
        "1",
        "--out",
        "shard.jsonl",
    ]);
    let job = sbatch(
        dir,
        "slow.sbatch",
        &script(&[], &words, ""),
        &["--time=1"],
        &[(SLEEP, "15")],
    );
    unsharded();
    wait_gone(&job, Duration::from_secs(420), dir);
    assert_job_end(&job, dir, "TIMEOUT", "130:0");
    let out = dir.join("shard.jsonl");
    let stopped = whole_lines(&out).len();
    assert!(
        (1..10).contains(&stopped),
        "{stopped} lines at the time limit"
    );
    resume_shard(dir, "2/4", run_id, &out);
}
