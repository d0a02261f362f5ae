//! Shards of one run (docs/cluster.md): attempts dealt evenly, each line naming its shard
//! and the run, `--shard auto` refusing what is not a scheduler's array, and an empty
//! shard saying so.

use crate::common::{proctor, results, root, run, write};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Ten tasks the minimal agent answers; two of them expect another answer, so they fail.
fn ten_tasks(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for i in 0..10 {
        let expected = if i % 4 == 3 { "x" } else { "" };
        text.push_str(&format!(
            "- id: t{i}\n  input: say w{i}{expected}\n  expected: w{i}\n"
        ));
    }
    write(dir, "tasks.yaml", &text)
}

fn minimal() -> String {
    format!(
        "python3 {}",
        root().join("fixtures/agents/minimal.py").display()
    )
}

/// `proctor run` of `tasks` with 4 attempts and `extra`, into `out`, with no scheduler's
/// variables in its environment.
fn run_into(tasks: &Path, out: &Path, extra: &[&str]) -> crate::common::Output {
    let mut cmd = proctor();
    cmd.args(["run", "--tasks"])
        .arg(tasks)
        .args([
            "--agent",
            &minimal(),
            "--attempts",
            "4",
            "--seed",
            "9",
            "--out",
        ])
        .arg(out)
        .args(extra);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_JOB_ID",
        "JOB_COMPLETION_INDEX",
    ] {
        cmd.env_remove(var);
    }
    run(&mut cmd)
}

/// What must be equal between shards and one run: each attempt's grade and seed.
fn graded(lines: &[Value]) -> BTreeSet<String> {
    lines
        .iter()
        .map(|l| {
            serde_json::json!([
                l["task"],
                l["attempt"],
                l["passed"],
                l["reasons"],
                l["seed"]
            ])
            .to_string()
        })
        .collect()
}

#[test]
fn forty_attempts_in_four_shards_are_ten_each_and_equal_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = ten_tasks(dir.path());
    let whole = dir.path().join("whole.jsonl");
    let o = run_into(&tasks, &whole, &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let whole = results(&whole);
    assert_eq!(whole.len(), 40);
    let mut sharded = Vec::new();
    let mut run_ids = BTreeSet::new();
    for i in 1..=4 {
        let out = dir.path().join(format!("shard{i}.jsonl"));
        let o = run_into(&tasks, &out, &["--shard", &format!("{i}/4")]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let lines = results(&out);
        // A hash of the task ids dealt these ten tasks unevenly; attempts are dealt evenly.
        assert_eq!(lines.len(), 10, "shard {i}/4");
        for line in &lines {
            assert_eq!(line["shard"], format!("{i}/4"));
            run_ids.insert(line["run_id"].as_str().unwrap().to_owned());
        }
        sharded.extend(lines);
    }
    // Shards given by hand, with the same command, name one run.
    assert_eq!(run_ids.len(), 1, "{run_ids:?}");
    assert!(run_ids.first().unwrap().starts_with("sharded-"));
    assert_eq!(graded(&sharded), graded(&whole));
    // An unsharded line has no shard, and a run id of its own.
    assert!(whole[0].get("shard").is_none());
    assert!(!run_ids.contains(whole[0]["run_id"].as_str().unwrap()));
}

#[test]
fn a_run_id_is_kept_by_resume_and_written_on_ledger_rows() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = ten_tasks(dir.path());
    let out = dir.path().join("r.jsonl");
    let ledger = dir.path().join("ledger.csv");
    let mut cmd = proctor();
    cmd.args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &minimal(), "--only", "t1", "--out"])
        .arg(&out);
    let o = run(&mut cmd);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let first = results(&out)[0]["run_id"].as_str().unwrap().to_owned();
    let o = run_into(
        &tasks,
        &out,
        &[
            "--only",
            "t1",
            "--resume",
            "--ledger",
            ledger.to_str().unwrap(),
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines = results(&out);
    assert_eq!(lines.len(), 4);
    assert!(
        lines.iter().all(|l| l["run_id"] == first.as_str()),
        "{lines:?}"
    );
    let rows = std::fs::read_to_string(&ledger).unwrap();
    let run_ids: BTreeSet<&str> = rows
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(run_ids, BTreeSet::from([first.as_str()]), "{rows}");
    // A given run id wins.
    let named = dir.path().join("named.jsonl");
    let o = run_into(&tasks, &named, &["--only", "t2", "--run-id", "nightly-41"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(results(&named).iter().all(|l| l["run_id"] == "nightly-41"));
    let o = run_into(&tasks, &named, &["--run-id", "two words"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("is not a run id"), "{}", o.stderr);
}

#[test]
fn an_empty_shard_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = ten_tasks(dir.path());
    let out = dir.path().join("s.jsonl");
    let o = run_into(&tasks, &out, &["--only", "t1", "--shard", "4/8"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(results(&out).len(), 1);
    let o = run_into(&tasks, &out, &["--only", "t1", "--shard", "5/8"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("proctor: shard 5/8 holds no attempts (4 attempts dealt among 8 shards)"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.is_empty(), "no scorecard: {}", o.stdout);
}

#[test]
fn shard_auto_reads_only_a_whole_array_and_says_what_it_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = ten_tasks(dir.path());
    let out = dir.path().join("a.jsonl");
    let o = run_into(&tasks, &out, &["--shard", "auto"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    insta::assert_snapshot!("shard_auto_outside_a_scheduler", o.stderr);
    // A single task resubmitted from an array sees an array of one: refused, not the
    // whole suite.
    let mut cmd = proctor();
    cmd.args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &minimal(), "--shard", "auto", "--out"])
        .arg(&out)
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "2")
        .env("SLURM_ARRAY_TASK_MAX", "2")
        .env("SLURM_ARRAY_TASK_COUNT", "1");
    let o = run(&mut cmd);
    assert_eq!(o.code, 2, "{}", o.stderr);
    insta::assert_snapshot!("shard_auto_resubmitted_slurm_task", o.stderr);
    let o = run_into(&tasks, &out, &["--shard", "2/4", "--shard-count", "4"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("--shard-count 4 goes with --shard auto"),
        "{}",
        o.stderr
    );
}
