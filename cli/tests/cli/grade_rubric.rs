//! `grade` of a suite with rubric tasks and no judge: the other tasks are graded, the rubric
//! tasks' runs are ungraded as `run --no-judge` marks them, and a note says how to judge them.

use crate::common::{grade_log, proctor, run, write};
use serde_json::Value;

const TASKS: &str = "- id: poem\n  input: write\n  rubric: PASS if it rhymes\n\
                     - id: sum\n  input: 2+2\n  expected: \"4\"\n";
const LOG: &str = "{\"task\": \"poem\", \"status\": \"final\", \"answer\": \"roses\"}\n\
                   {\"task\": \"sum\", \"status\": \"final\", \"answer\": \"4\"}\n";

#[test]
fn without_a_judge_the_other_tasks_are_graded_and_rubric_tasks_listed_ungraded() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", TASKS);
    let log = write(dir.path(), "log.jsonl", LOG);
    let out = dir.path().join("r.jsonl");
    let o = run(grade_log(&tasks, &log).arg("--out").arg(&out));
    // As `run --no-judge`: results, not an error.
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("no judge is configured")
            && o.stderr.contains("`poem`")
            && o.stderr.contains("--judge-model"),
        "{}",
        o.stderr
    );
    let row = |task: &str| {
        o.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{task} ")))
            .unwrap_or_else(|| panic!("no row for {task}: {}", o.stdout))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // task, attempts, passed, ungraded
    assert_eq!(row("poem")[..4], ["poem", "1", "0", "1"]);
    assert!(
        row("poem").join(" ").contains("judge error: not judged"),
        "{}",
        o.stdout
    );
    assert_eq!(row("sum")[..4], ["sum", "1", "1", "0"]);
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let poem = lines.iter().find(|l| l["task"] == "poem").unwrap();
    let sum = lines.iter().find(|l| l["task"] == "sum").unwrap();
    // Missing data is never a pass: the same marking as `run --no-judge`.
    assert_eq!(poem["passed"], Value::Null, "{poem}");
    assert_eq!(
        poem["reasons"],
        serde_json::json!(["judge error: not judged (--no-judge)"])
    );
    assert_eq!(sum["passed"], true, "{sum}");
}

#[test]
fn an_explicit_no_judge_grades_the_same_without_the_note() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", TASKS);
    let log = write(dir.path(), "log.jsonl", LOG);
    let o = run(proctor()
        .args(["grade", "--no-judge", "--format", "json", "--tasks"])
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stderr.contains("no judge is configured"), "{}", o.stderr);
    let s: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        (s["passed"].as_u64(), s["ungraded"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn traces_of_a_rubric_task_without_a_judge_are_ungraded_too() {
    let o = run(proctor().args([
        "grade",
        "--tasks",
        "fixtures/traces/rubric.yaml",
        "--traces",
        "fixtures/traces/current.jsonl",
        "--format",
        "json",
    ]));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("no judge is configured"), "{}", o.stderr);
    let s: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        (s["ungraded"].as_u64(), s["passed"].as_u64()),
        (Some(1), Some(0))
    );
}
