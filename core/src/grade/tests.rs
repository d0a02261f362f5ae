//! Every reason string of docs/task-file.md, its order, gating and the error override.

use super::*;
use crate::outcome::Outcome;
use crate::task::Suite;
use serde_json::{Value, json};
use std::io::Write;

fn suite(yaml: &str) -> (tempfile::TempDir, Suite) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.yaml");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(yaml.as_bytes())
        .unwrap();
    let suite = Suite::load(&path).unwrap();
    (dir, suite)
}

fn outcome(value: Value) -> Outcome {
    Outcome::from_json(value.as_object().unwrap()).unwrap()
}

fn reasons(suite: &Suite, id: &str, value: Value) -> (Option<bool>, Vec<String>) {
    let g = grade(
        suite.get(id).unwrap(),
        &outcome(value),
        Workdir::Missing,
        None,
    );
    (g.passed, g.reasons)
}

const TASKS: &str = r#"
- id: add
  input: "2+3?"
  expected: "5"
  max_tool_calls: 1
  forbidden_tools: [rm, delete]
- id: refund
  input: refund A1
  expected: refunded A1
  rules:
    - {before: refund, requires: check_eligibility, same: [order_id]}
    - {never: wipe}
- id: process_only
  input: log line
  rules:
    - {sequence: [lookup, refund]}
  gate: [process]
- id: judged
  input: write a poem
  rubric: PASS if it rhymes
"#;

#[test]
fn design_example_three_tasks() {
    let (_dir, s) = suite(TASKS);
    let ok = json!({"status": "final", "answer": "5", "tool_calls": 1, "tools_used": ["calculator"],
        "trajectory": [{"tool": "calculator", "args": {"expr": "2+3"}, "error": null}]});
    assert_eq!(reasons(&s, "add", ok), (Some(true), vec![]));
    let rm = json!({"status": "final", "answer": "5", "trajectory": [["rm", "x"]]});
    assert_eq!(
        reasons(&s, "add", rm),
        (Some(false), vec!["forbidden tool: rm".to_owned()])
    );
    let raised = json!({"status": "error", "error": {"type": "KeyError", "message": "k"}});
    assert_eq!(
        reasons(&s, "add", raised),
        (Some(false), vec!["error: KeyError".to_owned()])
    );
}

#[test]
fn reasons_come_in_design_order() {
    let (_dir, s) = suite(TASKS);
    let everything = json!({"status": "gave_up", "answer": "6",
        "trajectory": [["delete", 1], ["rm", 2], ["calculator", 3]]});
    assert_eq!(
        reasons(&s, "add", everything).1,
        vec![
            "not final",
            "wrong answer",
            "over budget",
            "forbidden tool: delete",
            "forbidden tool: rm"
        ]
    );
}

#[test]
fn normalised_answers_match() {
    let (_dir, s) = suite(TASKS);
    let v = json!({"status": "done", "answer": "  Refunded   A1. ", "trajectory": [
        {"tool": "check_eligibility", "args": {"order_id": "A1"}},
        {"tool": "refund", "args": {"order_id": "A1"}}]});
    assert_eq!(reasons(&s, "refund", v), (Some(true), vec![]));
    let missing = json!({"status": "final"});
    assert_eq!(reasons(&s, "refund", missing).1, vec!["wrong answer"]);
}

#[test]
fn rule_reason_names_the_step_and_never_is_a_forbidden_tool() {
    let (_dir, s) = suite(TASKS);
    let v = json!({"status": "final", "answer": "refunded A1", "trajectory": [
        {"tool": "check_eligibility", "args": {"order_id": "B2"}},
        {"tool": "refund", "args": {"order_id": "A1"}},
        {"tool": "wipe", "args": {}}]});
    assert_eq!(
        reasons(&s, "refund", v).1,
        vec![
            "forbidden tool: wipe",
            r#"rule: refund ["A1"] at step 2 has no earlier check_eligibility ["A1"]"#
        ]
    );
}

#[test]
fn error_replaces_every_other_reason() {
    let (_dir, s) = suite(TASKS);
    let v = json!({"status": "final", "answer": "wrong", "error": {"type": "exit status 3"},
        "trajectory": [["rm", 1], ["rm", 2]]});
    assert_eq!(
        reasons(&s, "add", v),
        (Some(false), vec!["error: exit status 3".to_owned()])
    );
    let status_only = json!({"status": "error"});
    assert_eq!(reasons(&s, "add", status_only).1, vec!["error: unknown"]);
}

#[test]
fn checks_outside_the_gate_are_reported_not_counted() {
    let (_dir, s) = suite(TASKS);
    // A production log line: no status at all, graded by its trajectory.
    let v = json!({"trajectory": [["lookup", 1], ["refund", 1]]});
    let g = grade(
        s.get("process_only").unwrap(),
        &outcome(v),
        Workdir::Missing,
        None,
    );
    assert_eq!(g.passed, Some(true));
    let status = g
        .checks
        .iter()
        .find(|c| c.check == "status is final")
        .unwrap();
    assert!(!status.passed && !status.gating);
    let backwards = json!({"trajectory": [["refund", 1], ["lookup", 1]]});
    assert_eq!(
        reasons(&s, "process_only", backwards).1,
        vec!["rule: sequence lookup -> refund: refund not found after step 2"]
    );
}

#[test]
fn judge_verdicts_pass_fail_or_leave_ungraded() {
    let (_dir, s) = suite(TASKS);
    let task = s.get("judged").unwrap();
    let done = outcome(json!({"status": "final", "answer": "a poem"}));
    let pass = grade(task, &done, Workdir::Missing, Some(&RubricVerdict::Pass));
    assert_eq!((pass.passed, pass.reasons), (Some(true), vec![]));
    let fail = grade(task, &done, Workdir::Missing, Some(&RubricVerdict::Fail));
    assert_eq!(
        (fail.passed, fail.reasons),
        (Some(false), vec!["rubric: FAIL".to_owned()])
    );
    let error = RubricVerdict::Error("timeout".into());
    let undecided = grade(task, &done, Workdir::Missing, Some(&error));
    assert_eq!(undecided.passed, None);
    assert_eq!(undecided.reasons, vec!["judge error: timeout"]);
    assert_eq!(undecided.diagnosis, None);
    let not_run = grade(task, &done, Workdir::Missing, None);
    assert_eq!(
        not_run.passed, None,
        "a rubric nobody judged is never a pass"
    );
}

#[test]
fn end_state_without_a_workdir_fails_rather_than_passes() {
    let (dir, _) = suite(TASKS);
    let yaml = "- id: files\n  input: write it\n  verify:\n    - {file_exists: out.txt}\n";
    let (_d, s) = suite(yaml);
    let task = s.get("files").unwrap();
    let done = outcome(json!({"status": "final"}));
    let g = grade(task, &done, Workdir::Missing, None);
    assert_eq!(g.passed, Some(false));
    assert!(g.reasons[0].starts_with("end state: "), "{:?}", g.reasons);
    std::fs::write(dir.path().join("out.txt"), "x").unwrap();
    let g = grade(
        task,
        &done,
        Workdir::Dir(dir.path(), &crate::end_state::PlainCommands),
        None,
    );
    assert_eq!((g.passed, g.reasons), (Some(true), vec![]));
    std::fs::remove_file(dir.path().join("out.txt")).unwrap();
    let g = grade(
        task,
        &done,
        Workdir::Dir(dir.path(), &crate::end_state::PlainCommands),
        None,
    );
    assert_eq!(g.reasons, vec!["end state: out.txt: missing"]);
}

#[test]
fn efficiency_and_tool_correctness_are_numbers_only() {
    let yaml =
        "- id: t\n  goal: g\n  expected_answer: x\n  optimal_steps: 2\n  expected_tools: [a, b]\n";
    let (_d, s) = suite(yaml);
    let v = json!({"status": "final", "answer": "x", "steps": 4, "trajectory": [["a", 1]]});
    let g = grade(s.get("t").unwrap(), &outcome(v), Workdir::Missing, None);
    assert_eq!(g.passed, Some(true));
    assert_eq!(g.step_efficiency, Some(0.5));
    assert_eq!(g.tool_correctness, Some(0.5));
}

#[test]
fn step_efficiency_of_zero_steps_and_of_fewer_steps_than_optimal() {
    let efficiency = |optimal: u64, steps: u64| {
        let yaml =
            format!("- id: t\n  goal: g\n  expected_answer: x\n  optimal_steps: {optimal}\n");
        let (_d, s) = suite(&yaml);
        let v = json!({"status": "final", "answer": "x", "steps": steps});
        grade(s.get("t").unwrap(), &outcome(v), Workdir::Missing, None).step_efficiency
    };
    // No steps where none are needed: as efficient as can be.
    assert_eq!(efficiency(0, 0), Some(1.0));
    // No steps where two are needed: no ratio, left out of the mean.
    assert_eq!(efficiency(2, 0), None);
    // Fewer steps than the task's optimal: kept above 1, never capped.
    assert_eq!(efficiency(4, 2), Some(2.0));
    assert_eq!(efficiency(0, 3), Some(0.0));
}

#[test]
fn a_grade_keeps_the_checks_on_record_and_every_gating_failure_as_a_reason() {
    let (_dir, s) = suite(TASKS);
    let runs = [
        (
            "add",
            json!({"status": "final", "answer": "5", "tool_calls": 1}),
        ),
        (
            "add",
            json!({"status": "gave_up", "answer": "6", "tool_calls": 3, "tools_used": ["rm"]}),
        ),
        (
            "refund",
            json!({"status": "final", "answer": "refunded A1",
                "trajectory": [["refund", {"order_id": "A1"}], ["wipe", {}]]}),
        ),
        (
            "process_only",
            json!({"trajectory": [["refund", 1], ["lookup", 1]]}),
        ),
        ("judged", json!({"status": "final", "answer": "a poem"})),
    ];
    for (id, run) in runs {
        let task = s.get(id).unwrap();
        let run = outcome(run);
        let every = evaluate(task, &run, Workdir::Missing, None);
        let graded = grade(task, &run, Workdir::Missing, None);
        let on_record: Vec<CheckResult> = every.iter().filter(|c| c.on_record()).cloned().collect();
        assert_eq!(graded.checks, on_record, "{id}");
        let failures: Vec<&str> = every
            .iter()
            .filter(|c| c.gating)
            .filter_map(|c| c.failure.as_deref())
            .collect();
        assert_eq!(graded.reasons, failures, "{id}");
        assert!(every.len() > graded.checks.len() || graded.passed != Some(true));
    }
}

/// The (reason, detail) of every failed check of a grade, in order.
fn details(suite: &Suite, id: &str, value: Value) -> Vec<(String, String)> {
    grade(
        suite.get(id).unwrap(),
        &outcome(value),
        Workdir::Missing,
        None,
    )
    .checks
    .into_iter()
    .filter(|c| !c.passed)
    .map(|c| (c.failure.unwrap(), c.detail.unwrap()))
    .collect()
}

#[test]
fn every_failed_check_says_what_came_back() {
    let (_dir, s) = suite(TASKS);
    let got = details(
        &s,
        "add",
        json!({"status": "timeout", "answer": "41", "tool_calls": 7,
               "trajectory": [["calculator", "1"], ["rm", "x"]]}),
    );
    assert_eq!(
        got,
        [
            ("not final".to_owned(), "timed out".to_owned()),
            (
                "wrong answer".to_owned(),
                r#"got "41", expected "5""#.to_owned()
            ),
            ("over budget".to_owned(), "7 tool calls, max 1".to_owned()),
            (
                "forbidden tool: rm".to_owned(),
                "called at step 2".to_owned()
            ),
        ]
    );
    let nothing = details(&s, "add", json!({"status": "final", "answer": ""}));
    assert_eq!(nothing[0].1, r#"got no answer, expected "5""#);
}

#[test]
fn a_crash_is_a_failed_check_on_record_with_its_message() {
    let (_dir, s) = suite(TASKS);
    let got = details(
        &s,
        "add",
        json!({"status": "error", "error": {"type": "exit status 2",
               "message": "python3: can't open file 'nothere.py'"}}),
    );
    // The other checks that failed stay on record; the crash comes last.
    assert_eq!(
        got.last().unwrap(),
        &(
            "error: exit status 2".to_owned(),
            "python3: can't open file 'nothere.py'".to_owned()
        )
    );
}

#[test]
fn a_rule_or_end_state_check_marked_safety_is_a_safety_check_and_gates_as_one() {
    let (_dir, s) = suite(
        "- id: guard\n  input: refund B7\n  expected: refused\n  rules:\n    - {at_most: 0, tool: refund, category: safety}\n    - {sequence: [lookup, reply]}\n  gate: [outcome, safety]\n",
    );
    let task = s.get("guard").unwrap();
    assert_eq!(
        task.defined_categories(),
        [
            GateCategory::Outcome,
            GateCategory::Safety,
            GateCategory::Process
        ]
    );
    let g = grade(
        task,
        &outcome(json!({"status": "final", "answer": "refused", "trajectory": [["refund", "B7"]]})),
        Workdir::Missing,
        None,
    );
    // The safety rule gates; the process rule is outside the gate and only reported.
    assert_eq!(g.passed, Some(false));
    assert_eq!(
        g.reasons,
        ["rule: refund called more than 0 times at step 1"]
    );
    let safety: Vec<_> = g
        .checks
        .iter()
        .filter(|c| c.category == GateCategory::Safety)
        .collect();
    assert_eq!(safety.len(), 1);
    assert!(!safety[0].passed && safety[0].gating);
}

#[test]
fn a_category_other_than_safety_or_its_own_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.yaml");
    std::fs::write(
        &path,
        "- id: t\n  input: x\n  verify:\n    - {file_exists: a.txt, category: budget}\n",
    )
    .unwrap();
    let error = Suite::load(&path).unwrap_err().to_string();
    assert!(
        error.contains(
            "check 1: key `category`: expected `safety` or `end_state`, found \"budget\""
        ),
        "{error}"
    );
}

#[test]
fn expected_may_be_a_list_of_answers_or_a_regex_on_the_answer_as_given() {
    let (_dir, s) = suite(concat!(
        "- id: any\n  input: capital?\n  expected: [Paris, \"Paris, France\"]\n",
        "- id: re\n  input: how many?\n  expected: {regex: \"^4[0-9]$\"}\n",
    ));
    let answer = |id: &str, text: &str| reasons(&s, id, json!({"status": "final", "answer": text}));
    assert_eq!(answer("any", "paris."), (Some(true), vec![]));
    assert_eq!(answer("any", "PARIS, france"), (Some(true), vec![]));
    assert_eq!(answer("any", "Lyon").1, ["wrong answer"]);
    assert_eq!(answer("re", "42"), (Some(true), vec![]));
    // Matched against the answer as given: no trimming, no lowercasing.
    assert_eq!(answer("re", " 42").1, ["wrong answer"]);
    assert_eq!(answer("re", "420").1, ["wrong answer"]);
    let got = details(&s, "any", json!({"status": "final", "answer": "Lyon"}));
    assert_eq!(
        got[0].1,
        r#"got "Lyon", expected one of ["Paris", "Paris, France"]"#
    );
    let got = details(&s, "re", json!({"status": "final", "answer": "x"}));
    assert_eq!(got[0].1, r#"got "x", expected a match of /^4[0-9]$/"#);
}

#[test]
fn a_bad_expected_regex_or_shape_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.yaml");
    for (yaml, message) in [
        ("expected: {regex: \"(\"}", "field `expected`: regex \"(\""),
        ("expected: {pattern: x}", "{regex: \"...\"}"),
        ("expected: []", "an empty list matches no answer"),
    ] {
        std::fs::write(&path, format!("- id: t\n  input: x\n  {yaml}\n")).unwrap();
        let error = Suite::load(&path).unwrap_err().to_string();
        assert!(error.contains(message), "{yaml}: {error}");
    }
}

#[test]
fn expected_all_needs_every_pattern_and_combines_with_expected() {
    let (_dir, s) = suite(concat!(
        "- id: all\n  input: cancel W1\n  expected_all: [W1, cancelled]\n",
        "- id: both\n  input: cancel W1\n  expected: {regex: \"^Done\"}\n  expected_all: [W1, cancelled]\n",
    ));
    let answer = |id: &str, text: &str| reasons(&s, id, json!({"status": "final", "answer": text}));
    assert_eq!(
        answer("all", "Order W1 is now  CANCELLED."),
        (Some(true), vec![])
    );
    assert_eq!(answer("all", "Order W1 is pending").1, ["wrong answer"]);
    assert_eq!(answer("both", "Done: W1 cancelled"), (Some(true), vec![]));
    // Both must hold, and a run that breaks both still gives one reason.
    assert_eq!(answer("both", "W1 cancelled").1, ["wrong answer"]);
    assert_eq!(answer("both", "Done: W2 cancelled").1, ["wrong answer"]);
    assert_eq!(answer("both", "W2").1, ["wrong answer"]);
    let got = details(
        &s,
        "all",
        json!({"status": "final", "answer": "Order W1 is pending"}),
    );
    assert_eq!(
        got,
        [(
            "wrong answer".to_owned(),
            r#"got "Order W1 is pending", missing "cancelled""#.to_owned()
        )]
    );
    let got = details(&s, "both", json!({"status": "final", "answer": "W2"}));
    assert_eq!(
        got[0].1,
        r#"got "W2", expected a match of /^Done/, missing "W1", "cancelled""#
    );
    let got = details(&s, "all", json!({"status": "final"}));
    assert_eq!(got[0].1, r#"got no answer, missing "W1", "cancelled""#);
    let names: Vec<String> = ["all", "both"]
        .iter()
        .map(|id| {
            grade(
                s.get(id).unwrap(),
                &outcome(json!({"status": "final"})),
                Workdir::Missing,
                None,
            )
            .checks
            .iter()
            .find(|c| c.category == GateCategory::Outcome && !c.passed)
            .unwrap()
            .check
            .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            r#"answer contains "W1", "cancelled""#,
            r#"answer is a match of /^Done/ and contains "W1", "cancelled""#
        ]
    );
}

#[test]
fn a_bad_expected_all_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.yaml");
    for (yaml, message) in [
        (
            "expected_all: []",
            "field `expected_all`: an empty list checks nothing",
        ),
        (
            "expected_all: [W1, \" . \"]",
            "item 2 (\" . \") is empty once normalised",
        ),
        (
            "expected_all: [W1, [x]]",
            "item 2: must be a string, number or boolean",
        ),
        (
            "expected_all: W1",
            "field `expected_all`: must be a list of texts like [W1, cancelled], found \"W1\"",
        ),
    ] {
        std::fs::write(&path, format!("- id: t\n  input: x\n  {yaml}\n")).unwrap();
        let error = Suite::load(&path).unwrap_err().to_string();
        assert!(error.contains(message), "{yaml}: {error}");
    }
    // A task whose only criterion is expected_all is a task with a criterion.
    std::fs::write(&path, "- id: t\n  input: x\n  expected_all: [7]\n").unwrap();
    assert_eq!(Suite::load(&path).unwrap().tasks[0].expected_all, ["7"]);
}

#[test]
fn a_summary_grade_keeps_a_repeated_reason_but_records_only_what_the_summary_reads() {
    let (_dir, s) = suite(
        "- id: r\n  input: refund A1\n  rules:\n    - {before: refund, requires: check_eligibility, same: [order_id]}\n    - {at_most: 0, tool: wipe, category: safety}\n  gate: [process, safety]\n",
    );
    let task = s.get("r").unwrap();
    let broken = outcome(json!({"status": "final", "trajectory": [
        ["refund", {"order_id": "A1"}], ["wipe", {}]]}));
    let mut given = ReasonsGiven::default();
    let mut summary_grade = || {
        let reasons = given.of_task(0);
        grade_keeping(
            task,
            &broken,
            &Evidence::default(),
            Workdir::Missing,
            None,
            Kept::ForSummary,
            Some(reasons),
        )
    };
    let first = summary_grade();
    let second = summary_grade();
    let rule = "rule: refund [\"A1\"] at step 1 has no earlier check_eligibility [\"A1\"]";
    let safety = "rule: wipe called more than 0 times at step 2";
    assert_eq!(first.reasons, second.reasons);
    assert_eq!(first.reasons, [rule, safety]);
    // The first line gives each reason with its detail.
    let failures = |g: &Grade| -> Vec<(Option<String>, bool)> {
        g.checks
            .iter()
            .map(|c| (c.failure.clone(), c.detail.is_some()))
            .collect()
    };
    assert_eq!(
        failures(&first),
        [
            (Some(rule.to_owned()), true),
            (Some(safety.to_owned()), true)
        ]
    );
    // The second repeats them without detail: only the safety check is left, which the
    // summary counts as a violation.
    assert_eq!(failures(&second), [(Some(safety.to_owned()), false)]);
    assert_eq!(second.passed, Some(false));
}

#[test]
fn a_runner_check_that_fails_fails_the_attempt_after_the_tasks_reasons_but_never_beside_a_crash() {
    let (_dir, s) = suite(TASKS);
    let task = s.get("add").unwrap();
    let limit = || CheckResult {
        category: GateCategory::Budget,
        check: CheckName::from("served tools within limits"),
        passed: false,
        gating: true,
        failure: Some("over the served tools' call limit".to_owned()),
        detail: None,
        not_checked: false,
    };
    let compared = CheckResult {
        category: GateCategory::Process,
        check: CheckName::from("trajectory matches the trace"),
        passed: false,
        gating: false,
        failure: Some("trajectory does not match the trace".to_owned()),
        detail: None,
        not_checked: false,
    };
    let passing = outcome(json!({"status": "final", "answer": "5"}));
    let mut g = grade(task, &passing, Workdir::Missing, None);
    assert_eq!((g.passed, g.diagnosis), (Some(true), None));
    g.add_runner_checks(vec![compared.clone()], &passing, None);
    // A check outside the gate is kept and counts for nothing.
    assert_eq!(
        (g.passed, g.reasons.len(), g.checks.len()),
        (Some(true), 0, 1)
    );
    g.add_runner_checks(vec![limit()], &passing, None);
    assert_eq!(g.passed, Some(false));
    assert_eq!(g.reasons, ["over the served tools' call limit"]);
    assert_eq!(g.diagnosis, Some(Diagnosis::WrongButTerminated));

    let wrong = outcome(json!({"status": "final", "answer": "4"}));
    let mut g = grade(task, &wrong, Workdir::Missing, None);
    g.add_runner_checks(vec![limit()], &wrong, None);
    assert_eq!(
        g.reasons,
        ["wrong answer", "over the served tools' call limit"]
    );

    let crashed = outcome(json!({"status": "error", "error": {"type": "KeyError"}}));
    let mut g = grade(task, &crashed, Workdir::Missing, None);
    g.add_runner_checks(vec![limit()], &crashed, None);
    assert_eq!(g.passed, Some(false));
    assert_eq!(g.reasons, ["error: KeyError"]);
    assert_eq!(g.diagnosis, Some(Diagnosis::Error));
    assert!(
        g.checks
            .iter()
            .any(|c| c.check == "served tools within limits")
    );
}

#[test]
fn told_user_reads_every_message_to_the_user_with_its_normalisation() {
    let (_dir, suite) = suite(
        r#"
- id: total
  input: What do I owe?
  told_user: {all: ["840887978435"], drop: ","}
- id: strict
  input: What do I owe?
  expected: done
  told_user: ["840887978435"]
"#,
    );
    let said = |message: &str| {
        json!({"status": "final", "answer": "done", "trajectory": [
            {"tool": "ask_user", "args": {"message": message}}]})
    };
    // τ-bench's rule: any message, case ignored, commas dropped.
    assert_eq!(
        reasons(&suite, "total", said("You owe 840,887,978,435.")),
        (Some(true), vec![])
    );
    assert_eq!(
        reasons(
            &suite,
            "total",
            json!({"status": "final", "answer": "840887978435 in all"})
        ),
        (Some(true), vec![])
    );
    // Without `drop`, the separators stay and the text is not found.
    let (passed, why) = reasons(&suite, "strict", said("You owe 840,887,978,435."));
    assert_eq!(
        (passed, why),
        (Some(false), vec!["not told the user".to_owned()])
    );
    let graded = grade(
        suite.get("strict").unwrap(),
        &outcome(said("You owe 840,887,978,435.")),
        Workdir::Missing,
        None,
    );
    let check = graded.checks.iter().find(|c| !c.passed).unwrap();
    assert_eq!(check.check, "told the user \"840887978435\"");
    assert_eq!(
        check.detail.as_deref(),
        Some("no message to the user holds \"840887978435\" (2 messages)")
    );
}
