//! `proctor compare`: the check values of docs/comparing.md end to end, output snapshots in every
//! format, the gates, and bad input (different task files, no shared task, a label mix,
//! ungraded attempts, unreadable lines).

use crate::common::{Output, grade_kept, proctor, run, write};
use serde_json::Value;
use std::path::{Path, PathBuf};

const V1: &str = "fixtures/compare/v1.jsonl";
const V2: &str = "fixtures/compare/v2.jsonl";

fn compare(old: &Path, new: &Path, extra: &[&str]) -> Output {
    run(proctor().arg("compare").arg(old).arg(new).args(extra))
}

fn fixtures(extra: &[&str]) -> Output {
    compare(Path::new(V1), Path::new(V2), extra)
}

fn json(out: &Output) -> Value {
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn round4(value: &Value) -> f64 {
    (value.as_f64().unwrap() * 1e4).round() / 1e4
}

/// Writes a result file: task i gets `passes[i]` passed attempts out of `k`.
fn results(dir: &Path, name: &str, label: &str, passes: &[u64], k: u64) -> PathBuf {
    let mut text = String::new();
    for (i, &c) in passes.iter().enumerate() {
        for a in 0..k {
            text.push_str(&line(
                &format!("task_{i:02}"),
                a,
                label,
                Some(a < c),
                "sha256:suite",
            ));
        }
    }
    write(dir, name, &text)
}

fn line(task: &str, attempt: u64, label: &str, passed: Option<bool>, digest: &str) -> String {
    let passed = passed.map_or("null".to_owned(), |p| p.to_string());
    format!(
        "{{\"format\": \"proctor.result/1\", \"task\": \"{task}\", \"attempt\": {attempt}, \"label\": \"{label}\", \"passed\": {passed}, \"steps\": 3, \"task_digest\": \"{digest}\"}}\n"
    )
}

#[test]
fn design_check_values() {
    // docs/comparing.md: c_old=[5,4,3,5,2,4,1,5,0,3], c_new=[2,4,1,5,4,0,1,5,0,0], k=5
    // → Δ −0.2000, SE 0.1193, t₉ interval [−0.4698, 0.0698].
    let dir = tempfile::tempdir().unwrap();
    let old = results(
        dir.path(),
        "old.jsonl",
        "v1",
        &[5, 4, 3, 5, 2, 4, 1, 5, 0, 3],
        5,
    );
    let new = results(
        dir.path(),
        "new.jsonl",
        "v2",
        &[2, 4, 1, 5, 4, 0, 1, 5, 0, 0],
        5,
    );
    let c = json(&compare(&old, &new, &["--format", "json"]));
    assert_eq!(round4(&c["delta"]["estimate"]), -0.2);
    assert_eq!(round4(&c["delta"]["se"]), 0.1193);
    assert_eq!(c["delta"]["df"], 9);
    assert_eq!(round4(&c["delta"]["ci"]["low"]), -0.4698);
    assert_eq!(round4(&c["delta"]["ci"]["high"]), 0.0698);
    assert_eq!(c["verdict"], "inconclusive");
    assert_eq!(round4(&c["mde"]), 0.3751);
    assert_eq!(c["sign_flip_p"], 0.1875);
    assert_eq!(c["mcnemar"], Value::Null, "McNemar only when k = 1");
    assert_eq!(c["k"], 5);
    assert_eq!(
        c["regressed"],
        serde_json::json!(["task_00", "task_02", "task_05", "task_09"])
    );
    assert_eq!(c["fixed"], serde_json::json!(["task_04"]));
    // The table prints the same numbers.
    let table = compare(&old, &new, &[]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table
            .stdout
            .contains("-0.2000  95% CI [-0.4698, 0.0698]  SE 0.1193, df 9"),
        "{}",
        table.stdout
    );
}

#[test]
fn one_attempt_per_task_reports_mcnemar() {
    // 12 tasks, k = 1: task_00 passed → failed, task_01..06 failed → passed.
    let dir = tempfile::tempdir().unwrap();
    let old = results(
        dir.path(),
        "old.jsonl",
        "v1",
        &[1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0],
        1,
    );
    let new = results(
        dir.path(),
        "new.jsonl",
        "v2",
        &[0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
        1,
    );
    let c = json(&compare(&old, &new, &["--format", "json"]));
    assert_eq!(c["mcnemar"]["regressed"], 1);
    assert_eq!(c["mcnemar"]["fixed"], 6);
    // Exact McNemar: 2 · P(X ≤ 1), X ~ Bin(7, 1/2) = 2 · 8/128.
    assert_eq!(c["mcnemar"]["p"], 0.125);
    assert_eq!(c["sign_flip_p"], c["mcnemar"]["p"]);
    assert_eq!(c["regressed"], serde_json::json!(["task_00"]));
    let table = compare(&old, &new, &[]);
    assert!(
        table
            .stdout
            .contains("McNemar exact p 0.1250 (1 regressed, 6 fixed)"),
        "{}",
        table.stdout
    );
}

#[test]
fn stable_pass_rate_hides_a_regressed_and_a_fixed_task() {
    let c = json(&fixtures(&["--format", "json"]));
    assert_eq!(c["old"]["pass_rate"], c["new"]["pass_rate"]);
    assert_eq!(
        (c["old"]["passed"].as_u64(), c["new"]["passed"].as_u64()),
        (Some(22), Some(22))
    );
    assert_eq!(c["delta"]["estimate"], 0.0);
    assert_eq!(c["regressed"], serde_json::json!(["refund_recovery"]));
    assert_eq!(c["fixed"], serde_json::json!(["refund_pushy"]));
    assert_eq!(c["verdict"], "inconclusive");
    assert_eq!(c["task_files"], "same");
    assert_eq!(
        (c["old"]["label"].as_str(), c["new"]["label"].as_str()),
        (Some("agent-v1"), Some("agent-v2"))
    );
    let table = fixtures(&[]);
    assert!(
        table.stdout.contains("regressed (1)  refund_recovery"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("fixed (1)      refund_pushy"),
        "{}",
        table.stdout
    );
}

#[test]
fn fixtures_in_every_format() {
    for format in ["table", "json", "markdown"] {
        let out = fixtures(&["--format", format]);
        assert_eq!(out.code, 0, "{format}: {}", out.stderr);
        assert_eq!(out.stderr, "", "{format}");
        insta::assert_snapshot!(format!("compare_{format}"), out.stdout);
    }
}

#[test]
fn json_carries_every_number_in_snake_case() {
    let c = json(&fixtures(&["--format", "json"]));
    for key in [
        "old",
        "new",
        "task_files",
        "margin",
        "tasks",
        "k",
        "equal_attempts",
        "regressed",
        "fixed",
        "tied",
        "only_old",
        "only_new",
        "ungradable",
        "delta",
        "sign_flip_p",
        "mcnemar",
        "verdict",
        "mde",
        "tasks_for_margin",
        "pass_hat_k_delta",
        "cost_per_success_delta",
        "mean_steps_success_delta",
        "per_task",
    ] {
        assert!(c.get(key).is_some(), "{key}");
    }
    for key in [
        "pass_rate",
        "pass_at_1",
        "pass_hat_k",
        "cost_per_success",
        "total_cost",
        "mean_steps_success",
        "ungraded",
        "unpriced_calls",
        "task_digest",
    ] {
        assert!(c["old"].get(key).is_some(), "old.{key}");
    }
    let task = &c["per_task"][0];
    for key in ["task", "old", "new", "delta", "change", "fisher_p"] {
        assert!(task.get(key).is_some(), "per_task.{key}");
    }
}

#[test]
fn fixture_results_match_their_outcome_logs() {
    // fixtures/compare/v*.jsonl are `proctor grade` of outcomes-v*.jsonl: keep them in step.
    for version in ["v1", "v2"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl");
        let graded = run(grade_kept(
            Path::new("fixtures/refunds/tasks.yaml"),
            Path::new(&format!("fixtures/compare/outcomes-{version}.jsonl")),
            Path::new(&format!("fixtures/compare/workdir/{version}")),
            &out,
        )
        .args(["--label", &format!("agent-{version}")]));
        assert_eq!(graded.code, 0, "{}", graded.stderr);
        let verdicts = |text: &str| -> Vec<(String, u64, Value)> {
            text.lines()
                .map(|l| {
                    let v: Value = serde_json::from_str(l).unwrap();
                    (
                        v["task"].as_str().unwrap().to_owned(),
                        v["attempt"].as_u64().unwrap(),
                        v["passed"].clone(),
                    )
                })
                .collect()
        };
        let committed = std::fs::read_to_string(
            crate::common::root().join(format!("fixtures/compare/{version}.jsonl")),
        )
        .unwrap();
        assert_eq!(
            verdicts(&std::fs::read_to_string(&out).unwrap()),
            verdicts(&committed),
            "{version}"
        );
    }
}

#[test]
fn a_run_against_itself_is_no_regression_and_passes_every_gate() {
    let out = compare(
        Path::new(V1),
        Path::new(V1),
        &["--format", "json", "--fail-on", "any-regressed-task"],
    );
    let c = json(&out);
    assert_eq!(c["delta"]["estimate"], 0.0);
    assert_eq!(c["regressed"], serde_json::json!([]));
    assert_eq!(c["fixed"], serde_json::json!([]));
    assert_eq!(c["verdict"], "no_regression");
}

#[test]
fn fail_on_gates_with_exit_one() {
    // The fixtures: inconclusive, so `regression` holds, but one task regressed.
    assert_eq!(fixtures(&["--fail-on", "regression"]).code, 0);
    let strict = fixtures(&["--fail-on", "any-regressed-task"]);
    assert_eq!(strict.code, 1);
    assert!(
        strict.stderr.contains(
            "gate failed: 1 task regressed: refund_recovery (--fail-on any-regressed-task)"
        ),
        "{}",
        strict.stderr
    );
    assert!(
        strict.stdout.contains("verdict"),
        "the comparison is still printed"
    );
    // Every one of 12 tasks drops from 5/5 to 3/5: a certain regression.
    let dir = tempfile::tempdir().unwrap();
    let old = results(dir.path(), "old.jsonl", "v1", &[5; 12], 5);
    let new = results(
        dir.path(),
        "new.jsonl",
        "v2",
        &[3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 2],
        5,
    );
    let out = compare(&old, &new, &["--fail-on", "regression"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("gate failed: verdict regression: Δ -0.4000, 95% CI ["),
        "{}",
        out.stderr
    );
    assert_eq!(compare(&old, &new, &[]).code, 0, "no gate, no failure");
}

#[test]
fn margin_sets_the_verdict_and_is_checked() {
    // 20 tasks, one regressed and one fixed by 0.2: Δ 0, 95% CI ±0.0304.
    let dir = tempfile::tempdir().unwrap();
    let mut old = vec![5u64; 20];
    let mut new = vec![5u64; 20];
    old[3] = 4;
    new[7] = 4;
    let old = results(dir.path(), "old.jsonl", "v1", &old, 5);
    let new = results(dir.path(), "new.jsonl", "v2", &new, 5);
    assert_eq!(
        json(&compare(&old, &new, &["--format", "json"]))["verdict"],
        "no_regression"
    );
    let strict = json(&compare(
        &old,
        &new,
        &["--format", "json", "--margin", "0.02"],
    ));
    assert_eq!(strict["verdict"], "inconclusive");
    assert_eq!(strict["margin"], 0.02);
    for bad in ["1.5", "-0.1", "x"] {
        let out = compare(&old, &new, &["--margin", bad]);
        assert_eq!(out.code, 2, "{bad}");
    }
}

#[test]
fn different_task_files_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let old = results(dir.path(), "old.jsonl", "v1", &[5, 4, 3], 5);
    let mut text = String::new();
    for (task, c) in [("task_01", 3), ("task_02", 3), ("task_99", 5)] {
        for a in 0..5 {
            text.push_str(&line(task, a, "v2", Some(a < c), "sha256:other"));
        }
    }
    let new = write(dir.path(), "new.jsonl", &text);
    let refused = compare(&old, &new, &[]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains(&format!(
            "OLD {} and NEW {} were graded against different task files (sha256:suite vs sha256:other); pass --allow-different-tasks",
            old.display(),
            new.display()
        )),
        "{}",
        refused.stderr
    );
    assert_eq!(refused.stdout, "");
    let allowed = compare(&old, &new, &["--allow-different-tasks"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    assert!(
        allowed
            .stdout
            .contains("compared only the 2 tasks they share (--allow-different-tasks)"),
        "{}",
        allowed.stdout
    );
    assert!(
        allowed
            .stdout
            .contains("1 task only in OLD, left out: task_00"),
        "{}",
        allowed.stdout
    );
    assert!(
        allowed
            .stdout
            .contains("1 task only in NEW, left out: task_99"),
        "{}",
        allowed.stdout
    );
    let c = json(&compare(
        &old,
        &new,
        &["--allow-different-tasks", "--format", "json"],
    ));
    assert_eq!(c["task_files"], "different");
    assert_eq!(c["tasks"], 2);
    assert_eq!(c["regressed"], serde_json::json!(["task_01"]));
}

#[test]
fn no_shared_task_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(
        dir.path(),
        "old.jsonl",
        &line("alpha", 0, "v1", Some(true), "sha256:s"),
    );
    let new = write(
        dir.path(),
        "new.jsonl",
        &line("beta", 0, "v2", Some(true), "sha256:s"),
    );
    let out = compare(&old, &new, &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("share no task with graded attempts on both sides (OLD: alpha; NEW: beta)"),
        "{}",
        out.stderr
    );
    let empty = write(dir.path(), "empty.jsonl", "");
    let out = compare(&old, &empty, &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains(&format!("NEW {} holds no result lines", empty.display())),
        "{}",
        out.stderr
    );
}

#[test]
fn a_label_mix_in_one_file_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let old = results(dir.path(), "old.jsonl", "v1", &[5, 4], 5);
    let mixed = format!(
        "{}{}",
        line("task_00", 0, "v2", Some(true), "sha256:suite"),
        line("task_01", 3, "v3", Some(true), "sha256:suite")
    );
    let new = write(dir.path(), "new.jsonl", &mixed);
    let out = compare(&old, &new, &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(&format!(
            "NEW {}: results of several versions in one file: label \"v2\" (task `task_00` attempt 0) and label \"v3\" (task `task_01` attempt 3)",
            new.display()
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn ungraded_attempts_are_left_out_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let old = results(dir.path(), "old.jsonl", "v1", &[5, 4, 3], 5);
    let mut text = String::new();
    for (task, passed) in [
        ("task_00", [Some(true), Some(true), Some(true), None, None]),
        (
            "task_01",
            [Some(true), Some(true), Some(true), Some(true), Some(false)],
        ),
        ("task_02", [None, None, None, None, None]),
    ] {
        for (a, p) in passed.into_iter().enumerate() {
            text.push_str(&line(task, a as u64, "v2", p, "sha256:suite"));
        }
    }
    let new = write(dir.path(), "new.jsonl", &text);
    let out = compare(&old, &new, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "ungraded attempts left out of the counts: OLD 0, NEW 2: task_00 (OLD 0, NEW 2)"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("1 task without a graded attempt on a side, left out: task_02 (OLD 5 graded, 0 ungraded; NEW 0 graded, 5 ungraded)"),
        "{}",
        out.stdout
    );
    let c = json(&compare(&old, &new, &["--format", "json"]));
    assert_eq!(c["tasks"], 2);
    let t0 = &c["per_task"][0];
    assert_eq!(
        (
            t0["new"]["passed"].as_u64(),
            t0["new"]["graded"].as_u64(),
            t0["new"]["ungraded"].as_u64()
        ),
        (Some(3), Some(3), Some(2))
    );
    assert_eq!(
        t0["change"], "tied",
        "3/3 ties 5/5: ungraded attempts are not failures"
    );
    assert_eq!(c["new"]["ungraded"], 2);
    let notes = compare(&old, &new, &["--format", "json"]).stderr;
    assert!(
        notes.contains("proctor: note: ungraded attempts left out"),
        "{notes}"
    );
    // The pull-request comment carries the same notes.
    let markdown = compare(&old, &new, &["--format", "markdown"]);
    let tmp = dir.path().display().to_string();
    insta::with_settings!({filters => vec![(tmp.as_str(), "[TMP]")]}, {
        insta::assert_snapshot!("compare_markdown_with_notes", markdown.stdout);
    });
}

#[test]
fn unreadable_lines_are_reported_and_the_rest_compared() {
    let dir = tempfile::tempdir().unwrap();
    let old = results(dir.path(), "old.jsonl", "v1", &[5, 4], 5);
    let mut text = std::fs::read_to_string(&old).unwrap().replace("v1", "v2");
    text.push_str("{not json\n");
    let new = write(dir.path(), "new.jsonl", &text);
    let out = compare(&old, &new, &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains(&format!("proctor: skipped {}:11: ", new.display())),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("1 result lines skipped; the comparison covers the rest"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("no regression"), "{}", out.stdout);
    let missing = compare(&old, &dir.path().join("nope.jsonl"), &[]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("nope.jsonl: cannot read results"),
        "{}",
        missing.stderr
    );
}

/// Huge amounts overflow the money and token sums: exit 2 naming the file and the
/// attempt (or the task where the sum over tasks overflows), never a panic or a
/// saturated total.
#[test]
fn overflowing_costs_and_tokens_exit_2_naming_file_and_row() {
    let dir = tempfile::tempdir().unwrap();
    let costly = |task: &str, attempt: u64, cost: &str| {
        format!(
            "{{\"format\": \"proctor.result/1\", \"task\": \"{task}\", \"attempt\": {attempt}, \"label\": \"v\", \"passed\": true, \"steps\": 3, \"task_digest\": \"sha256:suite\", \"cost\": {cost}}}\n"
        )
    };
    let normal = write(
        dir.path(),
        "normal.jsonl",
        &(line("a", 0, "v", Some(true), "sha256:suite")
            + &line("b", 0, "v", Some(false), "sha256:suite")),
    );
    let usd = r#"{"usd": "79228162514264337593543950335", "tokens": 1}"#;
    let money = write(
        dir.path(),
        "money.jsonl",
        &(costly("a", 0, usd) + &costly("a", 1, usd) + &costly("b", 0, usd)),
    );
    let out = compare(&normal, &money, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "NEW {}: task `a` attempt 1: its cost, token or step count makes the total overflow",
            money.display()
        )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);

    // Each task's tokens fit; their sum over the compared tasks does not.
    let most = format!(r#"{{"tokens": {}}}"#, u64::MAX);
    let tokens = write(
        dir.path(),
        "tokens.jsonl",
        &(costly("a", 0, &most) + &costly("b", 0, r#"{"tokens": 1}"#)),
    );
    let out = compare(&tokens, &normal, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "OLD {}: the sum over tasks up to task `b`: its cost, token or step count makes the total overflow",
            tokens.display()
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn an_interval_of_no_width_says_why_where_it_is_printed() {
    // Every task goes from 0 of 2 to 2 of 2: Δ and pass^2 Δ are +1 on every task, so both
    // intervals are the point [1, 1].
    let dir = tempfile::tempdir().unwrap();
    let old = results(dir.path(), "old.jsonl", "v1", &[0, 0, 0], 2);
    let new = results(dir.path(), "new.jsonl", "v2", &[2, 2, 2], 2);
    let table = compare(&old, &new, &[]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    let text = table
        .stdout
        .replace(&format!("{}/", dir.path().display()), "");
    assert_eq!(
        text.matches("95% CI [1.0000, 1.0000]  (a point: the same Δ on every task)")
            .count(),
        2,
        "{text}"
    );
    insta::assert_snapshot!(text);
    let c = json(&compare(&old, &new, &["--format", "json"]));
    let notes: Vec<&str> = c["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with(
            "pass^2 Δ: every one of the 3 tasks differed by the same +1.0000, so its 95% interval is a point"
        )),
        "{notes:?}"
    );
}
