//! The suite the cluster tests shard (`fixtures/cluster/tasks.yaml`, ten tasks, four attempts
//! each, answered by `fixtures/agents/sum_agent.py`), the folders they work in, and what they
//! compare against: the report of the same suite run unsharded (docs/result-format.md,
//! `run_id` and `shard`).

use crate::common::{Output, proctor, results, root, run};
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Attempts of the suite: ten tasks, four attempts each.
const ATTEMPTS: usize = 40;
/// Four shards of the forty attempts hold ten each.
pub const SHARDS: usize = 4;
/// The variable `sum_agent.py` sleeps by, in seconds per attempt (passed with `--pass-env`).
pub const SLEEP: &str = "SUM_AGENT_SLEEP";

/// `proctor`, as a path a job script can run.
fn proctor_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("proctor")
}

/// `proctor run` of the suite, every path absolute (a job runs it from its own folder), the
/// same seed everywhere; add `--out` and the shard.
pub fn run_args() -> Vec<String> {
    let fixture = |path: &str| root().join(path).display().to_string();
    [
        "run".to_owned(),
        "--tasks".to_owned(),
        fixture("fixtures/cluster/tasks.yaml"),
        "--attempts".to_owned(),
        "4".to_owned(),
        "--seed".to_owned(),
        "7".to_owned(),
        "--agent".to_owned(),
        format!("python3 {}", fixture("fixtures/agents/sum_agent.py")),
        "--pass-env".to_owned(),
        SLEEP.to_owned(),
    ]
    .into()
}

/// A fresh folder for one test under the target folder, outside the home folder and `/tmp`
/// as a suite on a server is (a job works in the folder it was submitted from); removed when
/// dropped.
pub fn work_dir(test: &str) -> tempfile::TempDir {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cluster-tests");
    std::fs::create_dir_all(&parent).unwrap();
    tempfile::Builder::new()
        .prefix(&format!("{test}-"))
        .tempdir_in(parent)
        .unwrap()
}

/// Takes away what would tell proctor it runs as a shard of a scheduler's job: a test run
/// inside a Slurm job, or a Kubernetes pod, must not be read as one. `SLURM_CONF` stays: it
/// names the cluster's configuration, which `sbatch` may need, not a job.
fn outside_any_scheduler(cmd: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let name_text = name.to_string_lossy();
        if name_text.starts_with("SLURM_") && name_text != "SLURM_CONF" {
            cmd.env_remove(name);
        }
    }
    cmd.env_remove("JOB_COMPLETION_INDEX")
        .env_remove("JOB_NAME")
}

/// `proctor` outside any scheduler.
pub fn local_proctor() -> Command {
    let mut cmd = proctor();
    outside_any_scheduler(&mut cmd);
    cmd
}

/// `proctor report FILE --format json`, parsed.
pub fn report(path: &Path) -> Value {
    let output = run(local_proctor()
        .arg("report")
        .arg(path)
        .args(["--format", "json"]));
    assert_eq!(
        output.code,
        0,
        "report of {}: {}",
        path.display(),
        output.stderr
    );
    serde_json::from_str(&output.stdout).unwrap()
}

/// The suite run once, unsharded, with no sleep: its lines and its report, what every
/// sharded run of it must give too.
pub struct Unsharded {
    pub lines: Vec<Value>,
    pub report: Value,
}

/// The unsharded run, made once per test process.
pub fn unsharded() -> &'static Unsharded {
    static RUN: OnceLock<Unsharded> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = work_dir("unsharded");
        let out = dir.path().join("whole.jsonl");
        let output = run(local_proctor()
            .args(run_args())
            .arg("--out")
            .arg(&out)
            .env_remove(SLEEP));
        assert_eq!(output.code, 0, "the unsharded run: {}", output.stderr);
        let lines = results(&out);
        assert_eq!(lines.len(), ATTEMPTS);
        Unsharded {
            lines,
            report: report(&out),
        }
    })
}

/// What must agree between an attempt of a sharded run and the same attempt unsharded.
fn essence(line: &Value) -> String {
    serde_json::json!([
        line["task"],
        line["attempt"],
        line["seed"],
        line["passed"],
        line["answer"],
        line["reasons"]
    ])
    .to_string()
}

/// Asserts that each of a shard's lines is the unsharded run's line for that attempt.
pub fn assert_same_attempts_as_unsharded(lines: &[Value]) {
    let whole: std::collections::BTreeSet<String> = unsharded().lines.iter().map(essence).collect();
    for line in lines {
        assert!(
            whole.contains(&essence(line)),
            "the unsharded run has no attempt like {line}"
        );
    }
}

/// The words of a job script's command: this `proctor` running the suite, then `extra`.
pub fn job_command(extra: &[&str]) -> Vec<String> {
    let mut words = vec![proctor_path().display().to_string()];
    words.extend(run_args());
    words.extend(extra.iter().map(|w| w.to_string()));
    words
}

/// `proctor merge` of shard files into `out`, checked against the suite's forty attempts.
fn merge(shards: &[PathBuf], out: &Path) -> Output {
    let tasks = root().join("fixtures/cluster/tasks.yaml");
    run(local_proctor()
        .arg("merge")
        .args(shards)
        .arg("--out")
        .arg(out)
        .arg("--tasks")
        .arg(tasks)
        .args(["--attempts", "4"]))
}

/// Merges the shard files and asserts that the merged report is the unsharded run's.
pub fn assert_merged_equals_unsharded(shards: &[PathBuf], dir: &Path) {
    let merged = dir.join("merged.jsonl");
    let output = merge(shards, &merged);
    assert_eq!(output.code, 0, "merge: {}", output.stderr);
    assert_eq!(results(&merged).len(), ATTEMPTS);
    assert_eq!(
        report(&merged),
        unsharded().report,
        "the merged shards do not report what the unsharded run does"
    );
}

/// Every line of a results file, each a whole JSON object ending in a newline: a shard
/// stopped by a signal leaves no torn line.
pub fn whole_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "{} ends in a torn line: {text:?}",
        path.display()
    );
    text.lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}: a line is no JSON ({e}): {line}", path.display()))
        })
        .collect()
}

/// Asserts that every line of a shard names the shard and the run.
pub fn assert_lines_of(lines: &[Value], shard: &str, run_id: &str) {
    for line in lines {
        assert_eq!(line["shard"], shard, "{line}");
        assert_eq!(line["run_id"], run_id, "{line}");
    }
}

/// Counts the lines of a file that may not exist yet.
pub fn line_count(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}
