//! `proctor submit slurm` end to end on a real Slurm (`scripts/slurm-up`; skipped without one
//! unless `PROCTOR_REQUIRE_SLURM` is set): it writes the array's and the merge job's scripts
//! beside `--out`, submits both, and once the merge job has run `--out` holds what one
//! unsharded run reports; a shard cancelled midway is completed by the commands it printed
//! to run a shard again and merge again (docs/cluster.md).

use crate::cluster_suite::{
    SHARDS, SLEEP, assert_lines_of, line_count, local_proctor, report, run_args, unsharded,
    whole_lines, work_dir,
};
use crate::common::{Output, run};
use crate::slurm_jobs::{
    Job, diagnostics, queued, records, slurm, task_ends, wait_gone, wait_until,
};
use std::path::Path;
use std::time::Duration;

/// Long enough for a few quick jobs behind other tests' jobs on a two-CPU node.
const QUICK: Duration = Duration::from_secs(300);

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

/// `proctor submit slurm --shards 4` of the suite into `out`, each attempt sleeping `sleep`
/// seconds, `extra` added to the arguments of `proctor run`.
fn submit(out: &Path, sleep: &str, extra: &[&str]) -> Output {
    run(local_proctor()
        .args(["submit", "slurm", "--shards", "4"])
        // Little memory: the node's default is all of it, which runs one shard at a time.
        .args(["--sbatch", "--mem=500M", "--sbatch", "--time=10", "--"])
        // RUN-ARGS: what follows `proctor run`.
        .args(&run_args()[1..])
        .args(extra)
        .arg("--out")
        .arg(out)
        .env(SLEEP, sleep))
}

/// Runs a `sbatch` command `submit` printed, its placeholder `from` replaced by `to`, with
/// `env` added; returns the job it submitted.
fn printed_sbatch(stdout: &str, from: &str, to: &str, env: &[(&str, &str)]) -> Job {
    let line = stdout
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("sbatch ") && line.contains(from))
        .unwrap_or_else(|| panic!("submit prints no `sbatch ... {from}` line: {stdout}"));
    let command = line.replace(from, to);
    let out = std::process::Command::new("sh")
        .args(["-c", &command])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{command}: {said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `Submitted batch job ID`
    let id = said.split_whitespace().last().unwrap_or_default();
    assert!(id.parse::<u64>().is_ok(), "{command}: {said}");
    Job(id.to_owned())
}

#[test]
fn submit_slurm_runs_the_shards_and_merges_them() {
    if !slurm() {
        return;
    }
    let dir = work_dir("submit");
    let dir = dir.path();
    let out = dir.join("R.jsonl");
    let output = submit(&out, "0", &[]);
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

/// A shard cancelled while it runs: the merge job, which runs however the shards ended,
/// fails (exit 2, attempts missing); the two commands `submit` printed to run a shard again
/// and merge again complete the run.
#[test]
fn submit_slurm_completes_a_cancelled_shard_with_the_commands_it_printed() {
    if !slurm() {
        return;
    }
    let dir = work_dir("submit-rerun");
    let dir = dir.path();
    let out = dir.join("R.jsonl");
    // A second an attempt, one at a time: about fifteen seconds a shard.
    let output = submit(&out, "1", &["--jobs", "1"]);
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
    let (array, merge) = job_ids(&output.stdout);
    let shard = dir.join("R.shard-2-of-4.jsonl");
    let task = format!("{array}_2");
    wait_until("shard 2/4 to finish 2 attempts", QUICK, &array, dir, || {
        line_count(&shard) >= 2 || !queued(&task)
    });
    assert!(line_count(&shard) >= 2, "{}", diagnostics(&array, dir));
    let cancelled = std::process::Command::new("scancel").arg(&task).status();
    assert!(cancelled.unwrap().success());
    unsharded();
    wait_gone(&merge, QUICK, dir);
    assert_ended(&merge, dir, "FAILED", "2:0");
    let log = std::fs::read_to_string(dir.join("R.slurm/merge.log")).unwrap();
    assert!(
        log.contains("missing"),
        "the merge names no missing attempts: {log}"
    );
    let kept = std::fs::read_to_string(&shard).unwrap();
    assert!(whole_lines(&shard).len() < 10, "shard 2/4 was not cut");
    let again = printed_sbatch(&output.stdout, "--array=I", "--array=2", &[(SLEEP, "0")]);
    let merge_again = printed_sbatch(
        &output.stdout,
        "afterany:JOBID",
        &format!("afterany:{again}"),
        &[],
    );
    wait_gone(&merge_again, QUICK, dir);
    assert_ended(&again, dir, "COMPLETED", "0:0");
    assert_ended(&merge_again, dir, "COMPLETED", "0:0");
    assert!(std::fs::read_to_string(&shard).unwrap().starts_with(&kept));
    assert_eq!(whole_lines(&shard).len(), 10);
    assert_eq!(report(&out), unsharded().report);
}
