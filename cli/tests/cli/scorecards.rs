//! One scorecard per agent: two agents in one run are never pooled, `--pool` and
//! `--by tag` are asked for, `compare --labels` pairs two labels of one file, `report`
//! refuses mixed task files, and every format (JUnit too) is per agent.

use crate::common::{JUDGE, grade_log, proctor, run, write};
use serde_json::Value;
use std::path::Path;

/// Runs the refund agent without and with its guard, 3 attempts each, into `out`.
fn two_agents(out: &Path, extra: &[&str]) -> crate::common::Output {
    run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/refunds.yaml",
            "--attempts",
            "3",
        ])
        .args(["--agent", "plain=python3 fixtures/agents/refund_agent.py"])
        .args([
            "--agent",
            "guarded=python3 fixtures/agents/refund_agent.py --guard",
        ])
        .args(JUDGE)
        .arg("--out")
        .arg(out)
        .args(extra))
}

#[test]
fn two_agents_get_a_scorecard_each_and_nothing_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let o = two_agents(&out, &["--format", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let s: Value = serde_json::from_str(&o.stdout).unwrap();
    for pooled in [
        "pass_rate",
        "pass_rate_ci",
        "pass_hat_k",
        "always_pass",
        "cost_per_success",
    ] {
        assert!(
            s.get(pooled).is_none(),
            "pooled `{pooled}` at the top level"
        );
    }
    let guarded = &s["agents"]["guarded"];
    let plain = &s["agents"]["plain"];
    assert_eq!(guarded["pass_rate"], 1.0);
    assert_eq!(guarded["attempts"], 15);
    assert_eq!(plain["attempts"], 15);
    assert!(plain["pass_rate"].as_f64().unwrap() < 1.0);
    // Refunds without an eligibility check are marked `category: safety` in the fixture.
    assert_eq!(guarded["safety_violations"], 0);
    assert!(plain["safety_violations"].as_u64().unwrap() > 0, "{plain}");
    assert!(
        guarded["safety_violation_rate_ci"]["high"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let per_task = s["per_task"].as_object().unwrap();
    assert_eq!(per_task.keys().collect::<Vec<_>>(), ["guarded", "plain"]);
    assert_eq!(per_task["guarded"].as_array().unwrap().len(), 5);
    assert_eq!(s["grid"].as_array().unwrap().len(), 10);

    // The report of the same file says the same, and so does the table, agent by agent.
    let reported = run(proctor().arg("report").arg(&out).args(["--format", "json"]));
    assert_eq!(reported.code, 0, "{}", reported.stderr);
    assert_eq!(reported.stdout, o.stdout);
    let table = run(proctor().arg("report").arg(&out));
    insta::assert_snapshot!(
        "two_agents_report_table",
        table.stdout.replace(&out.display().to_string(), "R.jsonl")
    );
}

#[test]
fn pooled_figures_and_a_split_by_tag_are_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let o = two_agents(&out, &["--format", "json", "--pool", "--by", "tag"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let s: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(s["attempts"], 30, "--pool puts the pooled figures on top");
    let guarded = &s["agents"]["guarded"]["by_tag"];
    assert_eq!(guarded["refunds"]["attempts"], 15);
    assert_eq!(guarded["policy"]["attempts"], 6);
    let tags: Vec<&String> = guarded.as_object().unwrap().keys().collect();
    assert!(tags.contains(&&"happy_path".to_owned()), "{tags:?}");
    // report needs the task file for tags, which result lines do not carry.
    let no_tasks = run(proctor().arg("report").arg(&out).args(["--by", "tag"]));
    assert_eq!(no_tasks.code, 2);
    assert!(
        no_tasks.stderr.contains("--by tag needs --tasks T"),
        "{}",
        no_tasks.stderr
    );
    let by_tag = run(proctor().arg("report").arg(&out).args([
        "--by",
        "tag",
        "--tasks",
        "fixtures/run/refunds.yaml",
        "--format",
        "json",
    ]));
    let r: Value = serde_json::from_str(&by_tag.stdout).unwrap();
    assert_eq!(r["agents"]["guarded"]["by_tag"], *guarded);
}

#[test]
fn compare_pairs_two_labels_of_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    assert_eq!(two_agents(&out, &[]).code, 0);
    let refused = run(proctor().arg("compare").arg(&out).arg(&out));
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("--labels OLD,NEW"),
        "{}",
        refused.stderr
    );
    let o = run(proctor().arg("compare").arg(&out).args([
        "--labels",
        "plain,guarded",
        "--format",
        "json",
    ]));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let c: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(c["new"]["label"], "guarded", "{c}");
    assert!(c["delta"]["estimate"].as_f64().unwrap() > 0.0);
    assert!(c["regressed"].as_array().unwrap().is_empty());
}

#[test]
fn report_refuses_results_of_different_task_files_unless_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "t.yaml", "- id: a\n  input: x\n  expected: y\n");
    let first = dir.path().join("first.jsonl");
    let second = dir.path().join("second.jsonl");
    for out in [&first, &second] {
        let o = run(proctor()
            .args(["run", "--tasks"])
            .arg(&tasks)
            .args(["--agent", "echo y", "--out"])
            .arg(out));
        assert_eq!(o.code, 0, "{}", o.stderr);
        write(dir.path(), "t.yaml", "- id: a\n  input: x\n  expected: z\n");
    }
    let refused = run(proctor().arg("report").arg(&first).arg(&second));
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("results of different task files")
            && refused.stderr.contains("first.jsonl")
            && refused.stderr.contains("second.jsonl")
            && refused.stderr.contains("--mixed"),
        "{}",
        refused.stderr
    );
    let mixed = run(proctor()
        .arg("report")
        .arg(&first)
        .arg(&second)
        .args(["--mixed", "--format", "json"]));
    assert_eq!(mixed.code, 0, "{}", mixed.stderr);
    let m: Value = serde_json::from_str(&mixed.stdout).unwrap();
    let rates: Vec<f64> = m["digests"]
        .as_object()
        .unwrap()
        .values()
        .map(|d| d["pass_rate"].as_f64().unwrap())
        .collect();
    assert_eq!(rates.len(), 2);
    assert!(rates.contains(&1.0) && rates.contains(&0.0), "{rates:?}");
}

#[test]
fn junit_has_a_suite_per_agent_times_and_crashes_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "t.yaml", "- id: a\n  input: x\n  expected: y\n");
    let out = dir.path().join("r.jsonl");
    let o = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", "good=echo y", "--agent", "wrong=echo n"])
        .args(["--agent", "broken=sh -c 'echo boom >&2; exit 4'", "--out"])
        .arg(&out));
    assert_eq!(o.code, 3, "{}", o.stderr);
    let junit = run(proctor()
        .arg("report")
        .arg(&out)
        .args(["--format", "junit"]));
    assert_eq!(junit.code, 0, "{}", junit.stderr);
    let xml = &junit.stdout;
    assert_eq!(xml.matches("<testsuite ").count(), 3, "{xml}");
    assert!(
        xml.contains(r#"tests="3" failures="1" errors="1""#),
        "{xml}"
    );
    assert!(xml.contains(r#"<error message="error: exit status 4" type="error">error: exit status 4 (boom)</error>"#), "{xml}");
    assert!(xml.contains(r#"<failure message="wrong answer""#), "{xml}");
    assert_eq!(xml.matches(" time=\"").count(), 3, "{xml}");
    // run, grade and judge do not offer JUnit; judge and calibrate do not offer --no-judge.
    let offered = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", "true", "--format", "junit"]));
    assert_eq!(offered.code, 2);
    assert!(
        offered.stderr.contains("invalid value 'junit'"),
        "{}",
        offered.stderr
    );
    for command in ["judge", "calibrate"] {
        let help = run(proctor().args([command, "--help"]));
        assert!(
            !help.stdout.contains("--no-judge"),
            "{command}: {}",
            help.stdout
        );
        assert!(!help.stdout.contains("junit"), "{command}: {}", help.stdout);
    }
    let help = run(proctor().args(["report", "--help"]));
    assert!(help.stdout.contains("junit"), "{}", help.stdout);
}

#[test]
fn unpriced_calls_make_totals_lower_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "t.yaml", "- id: a\n  input: x\n  expected: y\n");
    let log = write(
        dir.path(),
        "log.jsonl",
        concat!(
            r#"{"task": "a", "status": "final", "answer": "y", "usage": {"provider": "anthropic", "model": "claude-sonnet-4-6", "input_tokens": 1000, "output_tokens": 500}}"#,
            "\n",
            r#"{"task": "a", "status": "final", "answer": "y", "usage": {"provider": "acme", "model": "secret-1", "input_tokens": 10, "output_tokens": 5}}"#,
            "\n"
        ),
    );
    let grade = |format: &str| run(grade_log(&tasks, &log).args(["--format", format]));
    let table = grade("table");
    assert!(
        table.stdout.contains("≥ $0.0105, 1 unpriced call"),
        "{}",
        table.stdout
    );
    let json: Value = serde_json::from_str(&grade("json").stdout).unwrap();
    assert_eq!(json["cost_is_lower_bound"], true);
    assert_eq!(json["total_cost"]["cost_is_lower_bound"], true);
    assert_eq!(json["total_cost"]["usd"], "0.0105");
}

#[test]
fn by_tag_with_two_agents_prints_a_block_per_agent_within_120_columns() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    assert_eq!(two_agents(&out, &[]).code, 0);
    let o = run(proctor().arg("report").arg(&out).args([
        "--by",
        "tag",
        "--tasks",
        "fixtures/run/refunds.yaml",
    ]));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = o.stdout.replace(&format!("{}/", dir.path().display()), "");
    let scorecards = text
        .split("one scorecard per agent\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\ntask ").next())
        .unwrap();
    for line in scorecards.lines() {
        assert!(
            line.chars().count() <= 120,
            "{} wide: {line}",
            line.chars().count()
        );
    }
    // No table holds both agents' columns.
    for block in scorecards.split("\n\n") {
        let header = block.lines().next().unwrap_or_default();
        assert!(
            !(header.contains("guarded") && header.contains("plain")),
            "{header}"
        );
    }
    insta::assert_snapshot!(scorecards);
}
