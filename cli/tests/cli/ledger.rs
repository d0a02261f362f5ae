//! `proctor ledger` and the cost options of `proctor grade`: prices, the ledger file,
//! weekly reports and charts, re-pricing, and bad input.

use crate::common::{Output, proctor, root, run, write};
use std::path::Path;

const REFUNDS: [&str; 7] = [
    "grade",
    "--tasks",
    "fixtures/refunds/tasks.yaml",
    "--outcomes",
    "fixtures/refunds/outcomes.jsonl",
    "--workdir",
    "fixtures/refunds/workdir",
];

fn grade(extra: &[&str]) -> Output {
    run(proctor().args(REFUNDS).args(extra))
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn grade_prices_every_result_and_the_ledger_takes_each_row_once() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.jsonl");
    let ledger = dir.path().join("l.csv");
    let out = grade(&[
        "--label",
        "v1",
        "--out",
        results.to_str().unwrap(),
        "--ledger",
        ledger.to_str().unwrap(),
        "--prices",
        "fixtures/prices/test.toml",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("added 18 rows"), "{}", out.stderr);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(summary["unpriced_calls"], 0);
    assert_eq!(summary["cost_per_success"]["usd"], "0.019038025");
    assert_eq!(summary["cost_per_success"]["agent_usd"], "0.019038025");
    assert_eq!(
        summary["cost_per_success"]["judge_usd"],
        serde_json::Value::Null
    );
    let first: serde_json::Value = serde_json::from_str(&lines(&results)[0]).unwrap();
    assert_eq!(
        first["cost"]["priced_at"], "2026-11-23T09:01:00Z",
        "the outcome's timestamp"
    );
    assert_eq!(first["cost"]["usd"], "0.0087");
    assert_eq!(
        first["cost"]["models"][0]["price_id"],
        "anthropic/claude-sonnet-4-6@2026-02-17"
    );
    let rows = lines(&ledger);
    assert_eq!(rows.len(), 19);
    assert!(rows[0].starts_with("recorded_at,run_id,suite,label,task,attempt,passed,role,provider,model,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens,cost_usd,price_id"));
    assert!(rows[1].starts_with("2026-11-23T09:01:00Z,"), "{}", rows[1]);
    assert!(rows[1].contains(",refunds,v1,refund_eligible,0,true,agent,anthropic,claude-sonnet-4-6,1840,0,0,212,0,0.0087,"));
    let again = run(proctor()
        .args(["ledger", "add"])
        .arg(&results)
        .arg("--ledger")
        .arg(&ledger));
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("added 0 rows") && again.stderr.contains("18 already there"),
        "{}",
        again.stderr
    );
    assert_eq!(lines(&ledger).len(), 19);
}

#[test]
fn a_litellm_price_file_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let prices = write(
        dir.path(),
        "prices.json",
        r#"{"claude-sonnet-4-6": {"litellm_provider": "anthropic", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06},
            "gpt-5-mini": {"litellm_provider": "openai", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}}"#,
    );
    let out = grade(&["--prices", prices.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let s: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    // 37,207 + 2,048 input and 3,638 output tokens at $1 / $2 per million, over 8 successes.
    assert_eq!(s["total_cost"]["usd"], "0.046531");
}

#[test]
fn the_weekly_report_and_chart_of_the_fixture_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("weekly.csv");
    let svg = dir.path().join("weekly.svg");
    let out = run(proctor()
        .args([
            "ledger",
            "report",
            "--ledger",
            "fixtures/ledger/ledger.csv",
            "--period",
            "week",
            "--by",
            "label",
            "--out",
        ])
        .arg(&csv)
        .arg("--chart")
        .arg(&svg));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let root = root();
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        std::fs::read_to_string(root.join("fixtures/ledger/weekly.csv")).unwrap()
    );
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        chart,
        std::fs::read_to_string(root.join("fixtures/ledger/weekly.svg")).unwrap()
    );
    assert!(chart.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    for outside in ["<script", "<image", "href", "@import", "url("] {
        assert!(!chart.contains(outside), "the chart refers to {outside}");
    }
    // To standard output, filtered and by month.
    let monthly = run(proctor().args([
        "ledger",
        "report",
        "--ledger",
        "fixtures/ledger/ledger.csv",
        "--period",
        "month",
        "--by",
        "",
        "--since",
        "2027-01-01",
    ]));
    assert_eq!(monthly.code, 0, "{}", monthly.stderr);
    let rows: Vec<&str> = monthly.stdout.lines().collect();
    assert_eq!(rows.len(), 2, "{}", monthly.stdout);
    assert!(
        rows[1].starts_with("2027-01,2027-01-01,2027-01-31,,"),
        "{}",
        rows[1]
    );
}

#[test]
fn recost_writes_a_new_ledger_and_never_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("again.csv");
    let done = run(proctor()
        .args([
            "ledger",
            "recost",
            "--ledger",
            "fixtures/ledger/ledger.csv",
            "--prices",
            "fixtures/prices/test.toml",
            "--out",
        ])
        .arg(&out));
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert!(
        done.stderr.contains("re-priced 504 rows") && done.stderr.contains("0 changed"),
        "{}",
        done.stderr
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(root().join("fixtures/ledger/ledger.csv")).unwrap()
    );
    let in_place = run(proctor().args([
        "ledger",
        "recost",
        "--ledger",
        "fixtures/ledger/ledger.csv",
        "--prices",
        "fixtures/prices/test.toml",
        "--out",
        "fixtures/ledger/ledger.csv",
    ]));
    assert_eq!(in_place.code, 2);
    assert!(
        in_place.stderr.contains("never rewrites history in place"),
        "{}",
        in_place.stderr
    );
}

#[test]
fn bad_price_files_and_ledger_rows_exit_2_naming_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let prices = write(
        dir.path(),
        "p.toml",
        "[[price]]\nprovider = \"anthropic\"\nmodel = \"m\"\neffective = 2026-01-01\ninput = -3\noutput = 1\n",
    );
    let out = grade(&["--prices", prices.to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(&format!(
            "{}:5:9: `input`: expected a non-negative decimal",
            prices.display()
        )),
        "{}",
        out.stderr
    );

    let ledger = dir.path().join("l.csv");
    let text = std::fs::read_to_string(root().join("fixtures/ledger/ledger.csv")).unwrap();
    let mut rows: Vec<String> = text.lines().map(str::to_owned).collect();
    rows[3] = rows[3].replacen(
        ",agent,anthropic,claude-sonnet-4-6,",
        ",agent,anthropic,claude-sonnet-4-6,-",
        1,
    );
    std::fs::write(&ledger, rows.join("\n") + "\n").unwrap();
    let out = run(proctor()
        .args(["ledger", "report", "--ledger"])
        .arg(&ledger));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(&format!(
            "{}:4:11: input_tokens: expected a non-negative integer, found \"-",
            ledger.display()
        )),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "no partial report");

    rows[3] = text
        .lines()
        .nth(3)
        .unwrap()
        .replace("proctor.ledger/1", "proctor.ledger/9");
    std::fs::write(&ledger, rows.join("\n") + "\n").unwrap();
    let out = run(proctor()
        .args(["ledger", "report", "--ledger"])
        .arg(&ledger));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("\"proctor.ledger/9\" is newer than this proctor reads"),
        "{}",
        out.stderr
    );
    let added = run(proctor()
        .args(["ledger", "add", "fixtures/ledger/ledger.csv", "--ledger"])
        .arg(&ledger));
    assert_eq!(added.code, 2, "{}", added.stderr);
}

#[test]
fn an_unreadable_timestamp_leaves_usage_unpriced_and_says_so() {
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
            "{\"task\": \"a\", \"timestamp\": \"last tuesday\", \"status\": \"final\", \"answer\": \"y\", ",
            "\"usage\": {\"provider\": \"anthropic\", \"model\": \"claude-sonnet-4-6\", \"input_tokens\": 10, \"output_tokens\": 1}}\n",
            "{\"task\": \"a\", \"status\": \"final\", \"answer\": \"y\", ",
            "\"usage\": {\"provider\": \"anthropic\", \"model\": \"mystery-1\", \"input_tokens\": 10, \"output_tokens\": 1}}\n",
        ),
    );
    let out = run(proctor()
        .arg("grade")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log)
        .args(["--format", "json"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains(":1: task `a`: usage not priced: field `timestamp`"),
        "{}",
        out.stderr
    );
    let s: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(s["unpriced_calls"], 2, "the bad time and the unknown model");
    assert_eq!(
        s["cost_per_success"]["usd"],
        serde_json::Value::Null,
        "unknown, never 0"
    );
    assert_eq!(s["total_cost"]["tokens"], 22);
}

#[test]
fn two_processes_appending_at_once_lose_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("l.csv");
    // Two result files with different attempts, added at the same time, five times over.
    let mut files = Vec::new();
    for (n, label) in ["v1", "v2"].into_iter().enumerate() {
        let lines: Vec<String> = (0..300)
            .map(|i| format!(
                "{{\"format\": \"proctor.result/1\", \"task\": \"t{}\", \"attempt\": {i}, \"label\": \"{label}\", \"passed\": true, \"cost\": {{\"priced_at\": \"2026-11-23T09:00:00Z\"}}}}",
                n
            ))
            .collect();
        files.push(write(
            dir.path(),
            &format!("{label}.jsonl"),
            &(lines.join("\n") + "\n"),
        ));
    }
    let bin = assert_cmd::cargo::cargo_bin("proctor");
    for _ in 0..5 {
        let children: Vec<_> = files
            .iter()
            .map(|f| {
                std::process::Command::new(&bin)
                    .args(["ledger", "add"])
                    .arg(f)
                    .arg("--ledger")
                    .arg(&ledger)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut child in children {
            assert!(child.wait().unwrap().success());
        }
    }
    let rows = lines(&ledger);
    assert_eq!(
        rows.len(),
        601,
        "a header and 600 rows: none lost, none twice"
    );
    assert!(
        rows[1..].iter().all(|r| r.ends_with(",proctor.ledger/1")),
        "whole rows only"
    );
}

#[test]
fn result_lines_are_the_same_with_or_without_a_ledger() {
    // Graded lines hand their cost per model to the ledger only when there is one; the
    // results file must not notice.
    let dir = tempfile::tempdir().unwrap();
    let graded = |name: &str, with_ledger: bool| {
        let results = dir.path().join(format!("{name}.jsonl"));
        let ledger = dir.path().join(format!("{name}.csv"));
        let mut command = proctor();
        command.args([
            "grade",
            "--tasks",
            "fixtures/refunds/tasks.yaml",
            "--outcomes",
            "fixtures/refunds/outcomes.jsonl",
            "--prices",
            "fixtures/prices/test.toml",
            "--out",
            results.to_str().unwrap(),
        ]);
        if with_ledger {
            command.arg("--ledger").arg(&ledger);
        }
        let out = run(&mut command);
        assert_eq!(out.code, 0, "{}", out.stderr);
        // Lines without a time of their own are priced at the command's start.
        lines(&results)
            .into_iter()
            .map(|line| {
                let mut value: serde_json::Value = serde_json::from_str(&line).unwrap();
                value["cost"]["priced_at"].take();
                value
            })
            .collect::<Vec<_>>()
    };
    let plain = graded("plain", false);
    let with_ledger = graded("with_ledger", true);
    assert!(plain.iter().any(|line| line["cost"]["models"].is_array()));
    assert_eq!(plain, with_ledger);
}

#[test]
fn a_ledger_that_is_not_utf8_exits_2_naming_file_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("l.csv");
    let mut bytes = std::fs::read(root().join("fixtures/ledger/ledger.csv")).unwrap();
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    // "refunds" in the first row's suite cell becomes "r\xe9funds" (Latin-1).
    let suite = header
        + bytes[header..]
            .windows(7)
            .position(|w| w == b"refunds")
            .unwrap();
    bytes[suite + 1] = 0xe9;
    std::fs::write(&ledger, &bytes).unwrap();
    let out = run(proctor()
        .args(["ledger", "report", "--ledger"])
        .arg(&ledger));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "{}:2:3: not UTF-8 at byte {}; ledger files must be UTF-8",
            ledger.display(),
            suite + 1
        )),
        "{}",
        out.stderr
    );
}

/// Huge amounts overflow sums: an exit-2 error naming the row, never a panic or a
/// saturated total.
#[test]
fn overflowing_costs_and_tokens_exit_2_naming_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.jsonl");
    let line = |attempt: u64| {
        format!(
            r#"{{"format":"proctor.result/1","task":"t","attempt":{attempt},"passed":true,"reasons":[],"status":"final","answer":"x","cost":{{"usd":"79228162514264337593543950335","tokens":1}}}}"#
        )
    };
    std::fs::write(&results, format!("{}\n{}\n", line(0), line(1))).unwrap();
    let out = run(proctor().arg("report").arg(&results));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("task `t` attempt 1: its cost, token or step count makes the total overflow"),
        "{}",
        out.stderr
    );

    let ledger = dir.path().join("l.csv");
    let text = std::fs::read_to_string(root().join("fixtures/ledger/ledger.csv")).unwrap();
    let mut rows: Vec<String> = text.lines().map(str::to_owned).collect();
    for row in rows.iter_mut().skip(1).take(2) {
        let mut cells: Vec<String> = row.split(',').map(str::to_owned).collect();
        cells[10] = u64::MAX.to_string();
        *row = cells.join(",");
    }
    std::fs::write(&ledger, rows.join("\n") + "\n").unwrap();
    let out = run(proctor()
        .args(["ledger", "report", "--ledger"])
        .arg(&ledger));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "{}:3:11: input_tokens: the period's total overflows here",
            ledger.display()
        )),
        "{}",
        out.stderr
    );
}
