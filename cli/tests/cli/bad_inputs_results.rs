//! Result lines that cannot be counted are bad lines wherever results are read: a line with
//! a negative token count or cost, or without a task id (missing or empty), is named by file
//! and line in `report`, `compare`, `merge` and `ledger add`, which process the rest and
//! exit 2 (docs/result-format.md).

use crate::common::{Output, proctor, run, write};
use std::path::{Path, PathBuf};

/// A result line of task `task`, attempt `attempt`, with the `cost` object given.
fn line(task: &str, attempt: u64, cost: &str) -> String {
    format!(
        "{{\"format\": \"proctor.result/1\", \"task\": \"{task}\", \"attempt\": {attempt}, \"label\": \"v1\", \"passed\": true, \"steps\": 1, \"task_digest\": \"sha256:suite\", \"cost\": {cost}}}\n"
    )
}

const COST: &str = "{\"usd\": \"0.25\", \"tokens\": 10, \"unpriced_calls\": 0, \"models\": [{\"role\": \"agent\", \"provider\": \"openai\", \"model\": \"m\", \"calls\": 1, \"input_tokens\": 6, \"output_tokens\": 4, \"usd\": \"0.25\"}]}";

/// A good line, then five bad ones (lines 2 to 6), then a good one.
fn results(dir: &Path, name: &str) -> PathBuf {
    let text = [
        line("good", 0, COST),
        "{\"format\": \"proctor.result/1\", \"task\": \"\", \"attempt\": 1, \"passed\": true}\n"
            .to_owned(),
        "{\"format\": \"proctor.result/1\", \"attempt\": 2, \"passed\": true}\n".to_owned(),
        line(
            "good",
            3,
            "{\"usd\": \"0.25\", \"tokens\": -5, \"unpriced_calls\": 0}",
        ),
        line(
            "good",
            4,
            &COST.replace("\"input_tokens\": 6", "\"input_tokens\": -6"),
        ),
        line(
            "good",
            5,
            "{\"usd\": \"-0.25\", \"tokens\": 10, \"unpriced_calls\": 0}",
        ),
        line("good", 1, COST),
    ]
    .concat();
    write(dir, name, &text)
}

/// Exit 2, and each bad line named with its file and line number.
fn assert_bad_lines_named(out: &Output, path: &Path) {
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let file = path.display();
    for (number, says) in [
        (2, "`task` is missing or empty"),
        (3, "`task` is missing or empty"),
        (4, "`tokens` is negative (-5)"),
        (5, "`input_tokens` is negative (-6)"),
        (6, "`cost.usd` is negative (-0.25)"),
    ] {
        let named = format!("{file}:{number}: ");
        let found = out
            .stderr
            .lines()
            .any(|l| l.contains(&named) && l.contains(says));
        assert!(found, "{named}... {says} not in:\n{}", out.stderr);
    }
    assert!(
        !out.stderr.contains(&format!("{file}:1:")),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains(&format!("{file}:7:")),
        "{}",
        out.stderr
    );
}

#[test]
fn report_names_bad_result_lines_and_summarises_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = results(dir.path(), "r.jsonl");
    let out = run(proctor()
        .arg("report")
        .arg(&path)
        .args(["--format", "json"]));
    assert_bad_lines_named(&out, &path);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(summary["attempts"], 2, "{summary}");
}

#[test]
fn compare_names_bad_result_lines_and_compares_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(
        dir.path(),
        "base.jsonl",
        &[line("good", 0, COST), line("good", 1, COST)].concat(),
    );
    let path = results(dir.path(), "new.jsonl");
    let out = run(proctor().arg("compare").arg(&base).arg(&path));
    assert_bad_lines_named(&out, &path);
    assert!(out.stdout.contains("good"), "{}", out.stdout);
}

#[test]
fn merge_names_bad_result_lines_and_merges_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = results(dir.path(), "shard.jsonl");
    let all = dir.path().join("all.jsonl");
    let out = run(proctor().arg("merge").arg(&path).arg("--out").arg(&all));
    assert_bad_lines_named(&out, &path);
    let merged = std::fs::read_to_string(&all).unwrap();
    assert_eq!(merged.lines().count(), 2, "{merged}");
}

#[test]
fn ledger_add_names_bad_result_lines_and_adds_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = results(dir.path(), "r.jsonl");
    let ledger = dir.path().join("ledger.csv");
    let out = run(proctor()
        .args(["ledger", "add"])
        .arg(&path)
        .arg("--ledger")
        .arg(&ledger));
    assert_bad_lines_named(&out, &path);
    let rows = std::fs::read_to_string(&ledger).unwrap();
    // The header and one row per good line's model.
    assert_eq!(rows.lines().count(), 3, "{rows}");
}
