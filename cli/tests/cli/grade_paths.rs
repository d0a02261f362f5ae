//! `proctor grade` counts a log without building result lines when none is written. On a
//! log holding every outcome shape the readers accept (fixtures/varied), that path gives
//! the summary and the problems of the path that builds and writes every result line, on
//! any number of threads, and `report` over the written lines agrees with both.

use crate::common::{Output, proctor, run};
use std::path::Path;

const VARIED: [&str; 7] = [
    "grade",
    "--tasks",
    "fixtures/varied/tasks.yaml",
    "--outcomes",
    "fixtures/varied/outcomes.jsonl",
    "--label",
    "v1",
];

fn grade(extra: &[&str]) -> Output {
    run(proctor().args(VARIED).args(extra))
}

/// Lines the log holds that cannot be graded (the torn last line among them).
const SKIPPED: usize = 9;

#[test]
fn the_varied_log_holds_what_the_comparison_needs() {
    let log = std::fs::read_to_string(crate::common::root().join("fixtures/varied/outcomes.jsonl"))
        .unwrap();
    assert!(log.len() > 64 * 1024, "the log spans several chunks");
    assert!(!log.ends_with('\n'), "the last line is torn");
    let out = grade(&["--format", "json"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            // A line whose time cannot be read but which used nothing is graded, and
            // nothing is said of it: there was nothing to price.
            .contains(&format!("{SKIPPED} outcome lines skipped;")),
        "{}",
        out.stderr
    );
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let card = &summary["agents"]["v1"];
    // Every diagnosis bucket, safety violations, priced and unpriced usage.
    for bucket in [
        "error",
        "hit_cap",
        "looping",
        "graceful_giveup",
        "wrong_but_terminated",
    ] {
        assert!(
            card["diagnosis"][bucket].as_u64().unwrap() > 0,
            "{bucket}: {card}"
        );
    }
    assert!(card["safety_violations"].as_u64().unwrap() > 0, "{card}");
    assert!(card["unpriced_calls"].as_u64().unwrap() > 0, "{card}");
    assert!(card["cost_is_lower_bound"].as_bool().unwrap(), "{card}");
    // Without --out a line that repeats a reason given earlier in its chunk leaves out
    // the detail, which the summary takes from the first: the log repeats rule reasons
    // with details unlike the first, more than twice per 64 KiB chunk on average.
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("out.jsonl");
    grade(&["--out", results.to_str().unwrap()]);
    let mut first_detail = std::collections::HashMap::new();
    let mut other_details = 0;
    for line in std::fs::read_to_string(&results).unwrap().lines() {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        for check in line["checks"].as_array().unwrap() {
            let Some(reason) = check["failure"]
                .as_str()
                .filter(|r| r.starts_with("rule: "))
            else {
                continue;
            };
            let key = (line["task"].to_string(), reason.to_owned());
            let detail = check["detail"].to_string();
            if *first_detail.entry(key).or_insert_with(|| detail.clone()) != detail {
                other_details += 1;
            }
        }
    }
    assert!(
        other_details > 2 * log.len() / (64 * 1024),
        "{other_details}"
    );
}

#[test]
fn counting_without_result_lines_gives_the_summary_of_the_written_lines() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["json", "table"] {
        let out = dir.path().join(format!("{format}.jsonl"));
        let written = grade(&[
            "--format",
            format,
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(written.code, 2, "{}", written.stderr);
        for jobs in ["1", "2", "3"] {
            let counted = grade(&["--format", format, "--jobs", jobs]);
            assert_eq!(
                (&counted.stdout, &counted.stderr, counted.code),
                (&written.stdout, &written.stderr, written.code),
                "{format}, --jobs {jobs} without --out"
            );
            let threads_out = dir.path().join(format!("{format}_{jobs}.jsonl"));
            let threads = grade(&[
                "--format",
                format,
                "--jobs",
                jobs,
                "--out",
                threads_out.to_str().unwrap(),
            ]);
            assert_eq!(
                (&threads.stdout, &threads.stderr),
                (&written.stdout, &written.stderr),
                "{format}, --jobs {jobs} with --out"
            );
            assert!(
                without_run_time(&threads_out) == without_run_time(&out),
                "{format}: result lines of --jobs {jobs} differ from --jobs 1"
            );
        }
    }
    let results = dir.path().join("json.jsonl");
    let graded_lines = std::fs::read_to_string(&results).unwrap().lines().count();
    let log_lines = std::fs::read_to_string(crate::common::root().join(VARIED[4]))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(graded_lines, log_lines - SKIPPED);
    let reported = report(&results);
    let counted = grade(&["--format", "json"]);
    assert_eq!(reported.code, 0, "{}", reported.stderr);
    assert_eq!(
        reported.stdout, counted.stdout,
        "report of the written lines"
    );
}

/// The result lines, with the price time of lines that record no time of their own (the
/// time the command started) made the same.
fn without_run_time(results: &Path) -> String {
    let text = std::fs::read_to_string(results).unwrap();
    let mut kept = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(PRICED_AT) {
        let (before, after) = rest.split_at(at + PRICED_AT.len());
        kept.push_str(before);
        let end = after.find('"').unwrap();
        let time = &after[..end];
        // The log's own times are all in those four days of November 2026.
        kept.push_str(if time.starts_with("2026-11-2") {
            time
        } else {
            "(now)"
        });
        rest = &after[end..];
    }
    kept.push_str(rest);
    kept
}

const PRICED_AT: &str = "\"priced_at\":\"";

fn report(results: &Path) -> Output {
    // The varied log gives some attempt numbers twice, and grade counts every line.
    run(proctor()
        .arg("report")
        .arg(results)
        .args(["--format", "json", "--duplicates", "all"]))
}
