//! `proctor merge` checks the shards it joins (docs/merging.md): a shard no file holds, a
//! shard two files hold (or one file given twice), shards of different counts or runs;
//! `--partial` accepts those, never a conflict; a rerun that differs only in its timings is a
//! duplicate, not a conflict; and the top shards of a run with fewer units than shards are
//! empty, not missing. The result files are written by hand, as shards write them.

use crate::common::{Output, proctor, results, run, write};
use serde_json::{Value, json};
use std::path::Path;

/// A result line of label `v1` made by shard `shard` of run `run`.
fn line(task: &str, attempt: u64, shard: &str, run: &str) -> Value {
    json!({
        "format": "proctor.result/1",
        "task": task,
        "attempt": attempt,
        "label": "v1",
        "passed": true,
        "timings": {"started_at": "2026-12-07T10:00:00Z", "duration_ms": 1200},
        "task_digest": "sha256:suite",
        "run_id": run,
        "shard": shard,
    })
}

/// The same line with another field set, e.g. other `timings`.
fn with(mut line: Value, field: &str, value: Value) -> Value {
    line[field] = value;
    line
}

/// Writes `lines` as a result file `name` in `dir`.
fn file(dir: &Path, name: &str, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    write(dir, name, &text);
}

/// `proctor merge FILES... --out all.jsonl OPTIONS` in `dir`, so messages name the files
/// as given.
fn merge(dir: &Path, files: &[&str], options: &[&str]) -> Output {
    run(proctor()
        .current_dir(dir)
        .arg("merge")
        .args(files)
        .args(["--out", "all.jsonl"])
        .args(options))
}

/// Tasks `a` and `b`, two attempts each, dealt to four shards as a run deals them: attempt
/// 0 of `a` and `b` to shards 1 and 2, attempt 1 of each to shards 3 and 4.
fn four_shards(dir: &Path, run: &str) {
    let units = [("a", 0), ("b", 0), ("a", 1), ("b", 1)];
    for (i, (task, attempt)) in units.into_iter().enumerate() {
        let shard = format!("{}/4", i + 1);
        file(
            dir,
            &format!("s{}.jsonl", i + 1),
            &[line(task, attempt, &shard, run)],
        );
    }
}

#[test]
fn merge_names_a_missing_shard_and_how_to_run_it_again() {
    let dir = tempfile::tempdir().unwrap();
    four_shards(dir.path(), "slurm:ci:41");
    let output = merge(dir.path(), &["s1.jsonl", "s2.jsonl", "s4.jsonl"], &[]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
    assert_eq!(
        results(&dir.path().join("all.jsonl")).len(),
        3,
        "the merged file is still written"
    );
}

#[test]
fn merge_names_a_missing_top_shard_that_the_attempts_show() {
    let dir = tempfile::tempdir().unwrap();
    four_shards(dir.path(), "slurm:ci:41");
    let shards = ["s1.jsonl", "s2.jsonl", "s3.jsonl"];
    let output = merge(dir.path(), &shards, &["--attempts", "2"]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
}

#[test]
fn merge_partial_accepts_a_missing_shard_and_writes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    four_shards(dir.path(), "slurm:ci:41");
    let shards = ["s1.jsonl", "s2.jsonl", "s4.jsonl"];
    let output = merge(dir.path(), &shards, &["--partial"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
    let merged = results(&dir.path().join("all.jsonl"));
    let shards: Vec<&str> = merged
        .iter()
        .map(|l| l["shard"].as_str().unwrap())
        .collect();
    assert_eq!(shards, ["1/4", "2/4", "4/4"]);
}

#[test]
fn merge_names_a_file_given_twice_as_a_doubled_shard() {
    let dir = tempfile::tempdir().unwrap();
    four_shards(dir.path(), "r1");
    let files = ["s1.jsonl", "s2.jsonl", "s3.jsonl", "s4.jsonl", "s2.jsonl"];
    let output = merge(dir.path(), &files, &[]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
    assert_eq!(results(&dir.path().join("all.jsonl")).len(), 4);
}

#[test]
fn merge_names_a_shard_that_two_files_hold() {
    let dir = tempfile::tempdir().unwrap();
    four_shards(dir.path(), "r1");
    let copy = std::fs::read_to_string(dir.path().join("s3.jsonl")).unwrap();
    write(dir.path(), "s3-copy.jsonl", &copy);
    let files = [
        "s1.jsonl",
        "s2.jsonl",
        "s3.jsonl",
        "s3-copy.jsonl",
        "s4.jsonl",
    ];
    let output = merge(dir.path(), &files, &[]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
}

#[test]
fn merge_refuses_shards_of_different_counts() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "a.jsonl", &[line("a", 0, "1/2", "r1")]);
    file(dir.path(), "b.jsonl", &[line("b", 0, "2/2", "r1")]);
    file(dir.path(), "c.jsonl", &[line("c", 0, "3/3", "r1")]);
    let output = merge(dir.path(), &["a.jsonl", "b.jsonl", "c.jsonl"], &[]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
}

#[test]
fn merge_refuses_shards_of_different_runs() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "a.jsonl", &[line("a", 0, "1/2", "k8s:nightly")]);
    file(dir.path(), "b.jsonl", &[line("b", 0, "2/2", "k8s:weekly")]);
    let output = merge(dir.path(), &["a.jsonl", "b.jsonl"], &[]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
}

#[test]
fn merge_refuses_results_of_no_shard_among_shards() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "a.jsonl", &[line("a", 0, "1/1", "r1")]);
    let unsharded = with(line("b", 0, "", "r2"), "shard", Value::Null);
    file(dir.path(), "b.jsonl", &[unsharded]);
    let output = merge(dir.path(), &["a.jsonl", "b.jsonl"], &[]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("results of no shard mixed with shards: b.jsonl (1 result)"),
        "{}",
        output.stderr
    );
}

/// Files of no shard: an attempt run twice, the second time in `b.jsonl` with `second`
/// changed in its line.
fn rerun(dir: &Path, field: &str, second: Value) {
    let attempts = [line("t", 0, "", "r1"), line("t", 1, "", "r1")];
    let attempts = attempts.map(|l| with(l, "shard", Value::Null));
    file(dir, "a.jsonl", &attempts);
    file(dir, "b.jsonl", &[with(attempts[1].clone(), field, second)]);
}

#[test]
fn merge_keeps_a_timing_only_rerun_as_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let timings = json!({"started_at": "2026-12-07T11:00:00Z", "duration_ms": 900});
    rerun(dir.path(), "timings", timings);
    let output = merge(dir.path(), &["a.jsonl", "b.jsonl"], &[]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
    let merged = results(&dir.path().join("all.jsonl"));
    assert_eq!(merged.len(), 2);
    assert_eq!(
        merged[1]["timings"]["duration_ms"], 1200,
        "the first is kept"
    );
}

#[test]
fn merge_still_refuses_a_rerun_with_another_result_even_with_partial() {
    let dir = tempfile::tempdir().unwrap();
    rerun(dir.path(), "passed", json!(false));
    let output = merge(dir.path(), &["a.jsonl", "b.jsonl"], &["--partial"]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
}

#[test]
fn merge_partial_accepts_a_shard_run_again_with_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    four_shards(dir.path(), "r1");
    let second = json!({"started_at": "2026-12-07T12:00:00Z", "duration_ms": 800});
    let again = with(line("b", 0, "2/4", "r1"), "timings", second);
    file(dir.path(), "s2-again.jsonl", &[again]);
    let files = [
        "s1.jsonl",
        "s2.jsonl",
        "s2-again.jsonl",
        "s3.jsonl",
        "s4.jsonl",
    ];
    let output = merge(dir.path(), &files, &["--partial"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
}

#[test]
fn merge_takes_the_top_shards_of_a_small_run_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    // Two tasks, one attempt, four shards: shards 3 and 4 got nothing and wrote no line.
    file(dir.path(), "s1.jsonl", &[line("a", 0, "1/4", "r1")]);
    file(dir.path(), "s2.jsonl", &[line("b", 0, "2/4", "r1")]);
    write(dir.path(), "s3.jsonl", "");
    write(dir.path(), "s4.jsonl", "");
    let files = ["s1.jsonl", "s2.jsonl", "s3.jsonl", "s4.jsonl"];
    let output = merge(dir.path(), &files, &["--attempts", "1"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    insta::assert_snapshot!(output.stderr);
    // Asked for two attempts, the run had four units: shards 3 and 4 are missing.
    let output = merge(dir.path(), &files, &["--attempts", "2"]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("missing shard 3/4") && output.stderr.contains("missing shard 4/4"),
        "{}",
        output.stderr
    );
}

#[test]
fn merge_refuses_a_shard_field_that_is_not_i_of_n() {
    let dir = tempfile::tempdir().unwrap();
    file(
        dir.path(),
        "a.jsonl",
        &[line("a", 0, "1/1", "r1"), line("b", 0, "2/1", "r1")],
    );
    let output = merge(dir.path(), &["a.jsonl"], &["--partial"]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("skipped a.jsonl:2: `shard` \"2/1\" is not I/N"),
        "{}",
        output.stderr
    );
    assert_eq!(results(&dir.path().join("all.jsonl")).len(), 1);
}
