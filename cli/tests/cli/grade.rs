//! `proctor grade` and `proctor report`: output snapshots in every format, exit codes,
//! and bad input that is reported without losing the rest.

use crate::common::{Output, grade_log, proctor, run, write};
use assert_cmd::Command;
use std::path::Path;

const REFUNDS: [&str; 5] = [
    "grade",
    "--tasks",
    "fixtures/refunds/tasks.yaml",
    "--outcomes",
    "fixtures/refunds/outcomes.jsonl",
];

fn grade_refunds(extra: &[&str]) -> Output {
    run(proctor()
        .args(REFUNDS)
        .args(["--workdir", "fixtures/refunds/workdir"])
        .args(extra))
}

#[test]
fn grade_table() {
    let out = grade_refunds(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn grade_json() {
    let out = grade_refunds(&["--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(summary["passed"], 8);
    assert_eq!(summary["attempts"], 18);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn grade_markdown() {
    let out = grade_refunds(&["--format", "markdown"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

/// Grades the refund log into a temporary results file and returns its folder.
fn refund_results() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let graded = grade_refunds(&["--out", out.to_str().unwrap(), "--label", "v1"]);
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    dir
}

fn report(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::cargo_bin("proctor").unwrap();
    cmd.current_dir(dir)
        .arg("report")
        .arg("results.jsonl")
        .args(args);
    run(&mut cmd)
}

#[test]
fn result_lines_carry_grade_outcome_and_digest() {
    let dir = refund_results();
    let text = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 18);
    for line in &lines {
        assert_eq!(line["format"], "proctor.result/1");
        assert_eq!(line["label"], "v1");
        assert!(line["task_digest"].as_str().unwrap().starts_with("sha256:"));
    }
    let lucky = &lines[1];
    assert_eq!(lucky["task"], "refund_eligible");
    assert_eq!(lucky["passed"], false);
    insta::assert_json_snapshot!(lucky);
    // Attempts without a number are numbered per task in file order.
    let lookups: Vec<u64> = lines
        .iter()
        .filter(|l| l["task"] == "refund_lookup_only")
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(lookups, vec![0, 1, 2]);
}

#[test]
fn report_in_every_format() {
    let dir = refund_results();
    for format in ["table", "json", "markdown", "junit"] {
        let out = report(dir.path(), &["--format", format]);
        assert_eq!(out.code, 0, "{format}: {}", out.stderr);
        insta::assert_snapshot!(format!("report_{format}"), out.stdout);
    }
}

#[test]
fn report_equals_grade_summary() {
    let dir = refund_results();
    let graded = grade_refunds(&["--format", "json", "--label", "v1"]);
    let reported = report(dir.path(), &["--format", "json"]);
    assert_eq!(graded.stdout, reported.stdout);
}

#[test]
fn design_example_pass_rate_one_third() {
    let out = run(proctor().args([
        "grade",
        "--tasks",
        "fixtures/arithmetic/tasks.json",
        "--outcomes",
        "fixtures/arithmetic/outcomes.jsonl",
        "--format",
        "json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let s: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (s["passed"].as_u64(), s["attempts"].as_u64()),
        (Some(1), Some(3))
    );
    let reasons: Vec<String> = s["per_task"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["reasons"].to_string())
        .collect();
    assert_eq!(
        reasons,
        vec![
            "[]",
            r#"[{"reason":"forbidden tool: rm","count":1,"detail":"called at step 3"}]"#,
            r#"[{"reason":"error: KeyError","count":1,"detail":"'divisor'"}]"#
        ]
    );
}

#[test]
fn min_pass_rate_gates_with_exit_one() {
    let fails = grade_refunds(&["--min-pass-rate", "0.5"]);
    assert_eq!(fails.code, 1);
    assert!(
        fails
            .stderr
            .contains("pass rate 0.4444 is below --min-pass-rate 0.5"),
        "{}",
        fails.stderr
    );
    assert!(
        fails.stdout.contains("pass rate"),
        "the summary is still printed"
    );
    let holds = grade_refunds(&["--min-pass-rate", "0.4"]);
    assert_eq!(holds.code, 0);
    let dir = refund_results();
    assert_eq!(report(dir.path(), &["--min-pass-rate", "0.9"]).code, 1);
    let bad = grade_refunds(&["--min-pass-rate", "1.5"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn malformed_task_file_exits_2_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: ok\n  input: x\n  expected: y\n- id: typo\n  input: x\n  forbiden_tools: [rm]\n",
    );
    let log = write(
        dir.path(),
        "log.jsonl",
        "{\"task\": \"ok\", \"status\": \"final\", \"answer\": \"y\"}\n",
    );
    let out = run(proctor()
        .arg("grade")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log));
    assert_eq!(out.code, 2);
    let expected = format!(
        "{}:6: task `typo`: unknown field `forbiden_tools`",
        tasks.display()
    );
    assert!(out.stderr.contains(&expected), "{}", out.stderr);
}

#[test]
fn bad_outcome_lines_are_reported_and_the_rest_graded() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: a\n  input: x\n  expected: y\n",
    );
    let log = write(
        dir.path(),
        "log.jsonl",
        concat!(
            "{\"task\": \"a\", \"status\": \"final\", \"answer\": \"y\"}\n",
            "{\"task\": \"a\", \"status\": \"final\", \"answer\": \n",
            "{\"task\": \"ghost\", \"status\": \"final\"}\n",
            "{\"task\": \"a\", \"status\": \"finished\"}\n",
            "[1, 2]\n",
            "{\"status\": \"final\"}\n",
            "{\"task\": \"a\", \"status\": \"final\", \"answer\": \"no\", \"usage\": {\"input_tokens\": -3, \"output_tokens\": 1}}\n",
            "{\"task\": \"a\", \"status\": \"final\", \"answer\": \"Y.\"}\n",
        ),
    );
    let results = dir.path().join("r.jsonl");
    let out = run(proctor()
        .arg("grade")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log)
        .arg("--out")
        .arg(&results)
        .args(["--format", "json"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let log_name = log.display().to_string();
    for expected in [
        format!("{log_name}:2: invalid JSON"),
        format!("{log_name}:3: task `ghost` is not in the suite"),
        format!("{log_name}:4: field `status`: unknown status \"finished\""),
        format!("{log_name}:5: expected a JSON object, found a list"),
        format!("{log_name}:6: no task key"),
        format!("{log_name}:7: task `a`: usage not priced: usage[0]"),
    ] {
        assert!(
            out.stderr.contains(&expected),
            "missing {expected:?} in\n{}",
            out.stderr
        );
    }
    assert!(
        // Line 7 is graded and written, its unreadable usage counted unpriced: not skipped.
        out.stderr
            .contains("5 outcome lines skipped; 1 attempt written with a problem said above"),
        "{}",
        out.stderr
    );
    let written = std::fs::read_to_string(&results).unwrap();
    assert_eq!(
        written.lines().count(),
        3,
        "lines 1, 7 and 8 are graded and kept"
    );
    let s: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (s["passed"].as_u64(), s["failed"].as_u64()),
        (Some(2), Some(1))
    );
}

#[test]
fn rubric_tasks_without_a_judge_are_ungraded() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: poem\n  input: write\n  rubric: PASS if it rhymes\n",
    );
    let log = write(
        dir.path(),
        "log.jsonl",
        "{\"task\": \"poem\", \"status\": \"final\", \"answer\": \"roses\"}\n",
    );
    // Without a judge, the rubric task's runs are ungraded (cli/tests/cli/grade_rubric.rs).
    let noted = run(proctor()
        .arg("grade")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log));
    assert_eq!(noted.code, 0, "{}", noted.stderr);
    assert!(
        noted.stderr.contains("task `poem`") && noted.stderr.contains("--judge-model"),
        "{}",
        noted.stderr
    );
    let ungraded = run(proctor()
        .arg("grade")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log)
        .args(["--no-judge", "--format", "json", "--min-pass-rate", "0"]));
    assert_eq!(ungraded.code, 1, "nothing graded never meets a gate");
    let s: serde_json::Value = serde_json::from_str(&ungraded.stdout).unwrap();
    assert_eq!(
        (s["ungraded"].as_u64(), s["passed"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(s["pass_rate"], serde_json::Value::Null);
}

#[test]
fn report_refuses_newer_lines_and_keeps_the_rest() {
    let dir = refund_results();
    let path = dir.path().join("results.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"format\": \"proctor.result/2\", \"task\": \"x\", \"passed\": true}\n");
    std::fs::write(&path, text).unwrap();
    let out = report(dir.path(), &["--format", "json"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("results.jsonl:19: format \"proctor.result/2\" is newer"),
        "{}",
        out.stderr
    );
    let s: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(s["attempts"], 18);
}

#[test]
fn k_larger_than_attempts_is_an_error() {
    let out = grade_refunds(&["--k", "4"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("k = 4"), "{}", out.stderr);
    let ok = grade_refunds(&["--k", "2", "--format", "json"]);
    let s: serde_json::Value = serde_json::from_str(&ok.stdout).unwrap();
    assert_eq!(s["k"], 2);
}

/// A log may give any attempt and step count: the largest attempt leaves no number for an
/// unnumbered line after it, and steps too many to sum make the summary refuse, naming the
/// attempt that overflowed and what did.
#[test]
fn attempts_and_steps_at_the_limit_of_their_numbers_are_reported_not_wrapped() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- {id: t, input: x, max_tool_calls: 5}\n",
    );
    let max = u64::MAX;
    // Two lines of task `t`, the first with `field` at the largest number.
    let log = |field: &str, second: &str| {
        let text = format!(
            "{{\"task\": \"t\", \"status\": \"final\", \"{field}\": {max}}}\n\
             {{\"task\": \"t\", \"status\": \"final\"{second}}}\n"
        );
        write(dir.path(), &format!("{field}.jsonl"), &text)
    };
    let grade = |log: &Path, extra: &[&Path]| run(grade_log(&tasks, log).args(extra));

    let out_file = dir.path().join("out.jsonl");
    let out = grade(&log("attempt", ""), &[Path::new("--out"), &out_file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let attempts: Vec<u64> = std::fs::read_to_string(&out_file)
        .unwrap()
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["attempt"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(attempts, [max, max]);

    let out = grade(&log("steps", ", \"steps\": 1"), &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "cannot summarise the results: task `t` attempt 1: its cost, token or step count \
             makes the total overflow"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn missing_files_are_bad_input() {
    let out = run(proctor().args([
        "grade",
        "--tasks",
        "nope.yaml",
        "--outcomes",
        "fixtures/refunds/outcomes.jsonl",
    ]));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("nope.yaml"), "{}", out.stderr);
    let out = run(proctor().args(["report", "missing.jsonl"]));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("missing.jsonl"), "{}", out.stderr);
}

/// A log of several chunks, graded on several threads, on one, and in order (as with a
/// judge or --workdir), gives the same results, summary and problems.
#[test]
fn threads_keep_the_log_order_and_number_attempts_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        concat!(
            "- id: a\n  input: x\n  expected: y\n",
            "- id: b\n  input: x\n  max_tool_calls: 1\n",
        ),
    );
    let mut log = Vec::new();
    for n in 0..3000 {
        let line = match n % 7 {
            // No attempt: numbered per task in file order.
            0..=2 => format!(
                r#"{{"task": "a", "status": "final", "answer": "{}", "timestamp": "2026-03-01T00:00:00Z", "usage": {{"provider": "anthropic", "model": "claude-sonnet-4-6", "input_tokens": {n}, "output_tokens": 5}}}}"#,
                if n % 2 == 0 { "y" } else { "n" }
            ),
            3 => format!(
                r#"{{"task": "b", "attempt": {}, "trajectory": [["t", {n}]], "timestamp": "2026-03-01T00:00:00Z"}}"#,
                n / 7
            ),
            4 if n % 5 == 0 => "{\"task\": \"ghost\"}".to_owned(),
            5 if n % 11 == 0 => String::from_utf8_lossy(b"{\"task\": \"a\"}").into_owned() + "\u{0}",
            _ => r#"{"task_id": "b", "run": 0, "trajectory": [["t", 1], ["t", 2]], "recorded_at": "2026-03-02T00:00:00Z"}"#.to_owned(),
        };
        log.extend_from_slice(line.as_bytes());
        log.push(b'\n');
        if n == 20 {
            log.extend_from_slice(b"{\"task\": \"a\", \"answer\": \"\xff\"}\n\n");
        }
    }
    let log_path = dir.path().join("log.jsonl");
    std::fs::write(&log_path, &log).unwrap();
    assert!(log.len() > 4 * 64 * 1024, "the log spans several chunks");

    let grade = |name: &str, extra: &[&str]| {
        let results = dir.path().join(name);
        let out = run(proctor()
            .arg("grade")
            .arg("--tasks")
            .arg(&tasks)
            .arg("--outcomes")
            .arg(&log_path)
            .arg("--out")
            .arg(&results)
            .args(["--format", "json"])
            .args(extra));
        assert_eq!(out.code, 2, "bad lines were skipped: {}", out.stderr);
        (out, std::fs::read_to_string(results).unwrap())
    };
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (threads, threads_text) = grade("threads.jsonl", &["--jobs", "3"]);
    let (one, one_text) = grade("one.jsonl", &["--jobs", "1"]);
    let (in_order, in_order_text) =
        grade("in_order.jsonl", &["--workdir", empty.to_str().unwrap()]);
    assert_eq!(threads_text, one_text);
    assert_eq!(threads_text, in_order_text);
    assert_eq!(
        (&threads.stdout, &threads.stderr),
        (&one.stdout, &one.stderr)
    );
    assert_eq!(
        (&threads.stdout, &threads.stderr),
        (&in_order.stdout, &in_order.stderr)
    );
    assert!(
        threads.stderr.contains(":22: not UTF-8 text"),
        "{}",
        threads.stderr
    );
    // Without --out no result line is built, and the summary and problems are the same.
    for jobs in ["1", "3"] {
        let unwritten = run(proctor()
            .arg("grade")
            .arg("--tasks")
            .arg(&tasks)
            .arg("--outcomes")
            .arg(&log_path)
            .args(["--format", "json", "--jobs", jobs]));
        assert_eq!(
            (&unwritten.stdout, &unwritten.stderr, unwritten.code),
            (&threads.stdout, &threads.stderr, 2),
            "--jobs {jobs} without --out"
        );
    }

    // Attempts of `a` are 0, 1, 2, ... in file order; `b` keeps the attempts it gave.
    let lines: Vec<serde_json::Value> = threads_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let a_attempts: Vec<u64> = lines
        .iter()
        .filter(|l| l["task"] == "a")
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(a_attempts, (0..a_attempts.len() as u64).collect::<Vec<_>>());
    let b_given: Vec<u64> = lines
        .iter()
        .filter(|l| l["task"] == "b" && l["trajectory"].as_array().unwrap().len() == 1)
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(b_given, (0..b_given.len() as u64).collect::<Vec<_>>());
    let first_a = &lines.iter().find(|l| l["task"] == "a").unwrap();
    assert_eq!(first_a["cost"]["priced_at"], "2026-03-01T00:00:00Z");
}

#[test]
fn an_attempt_whose_kept_sandbox_is_missing_is_not_graded_against_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: t\n  input: Do not refund.\n  verify:\n    - {file_absent: refunds.json}\n",
    );
    let log = write(
        dir.path(),
        "outcomes.jsonl",
        "{\"task\": \"t\", \"attempt\": 0, \"status\": \"final\", \"answer\": \"done\"}\n\
         {\"task\": \"t\", \"attempt\": 1, \"status\": \"final\", \"answer\": \"done\"}\n",
    );
    // Attempt 0 refunded; attempt 1's sandbox was never kept. The folder's root holds no
    // refunds.json, so grading attempt 1 there would pass it.
    let keep = dir.path().join("keep");
    std::fs::create_dir_all(keep.join("t/0")).unwrap();
    write(&keep.join("t/0"), "refunds.json", "{}");
    let out = dir.path().join("results.jsonl");
    let graded = run(&mut crate::common::grade_kept(&tasks, &log, &keep, &out));
    assert_eq!(graded.code, 2, "{}", graded.stderr);
    let missing = keep.join("t/1");
    assert!(
        graded.stderr.contains(&format!(
            "outcomes.jsonl:2: attempt 1 of task `t` not graded: its kept sandbox {} is missing",
            missing.display()
        )),
        "{}",
        graded.stderr
    );
    let lines = crate::common::results(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["attempt"], 0);
    assert_eq!(lines[0]["passed"], false);
}
