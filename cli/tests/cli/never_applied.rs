//! Rules that never applied: in a task that knows no tools, a rule whose tool no attempt
//! called is named in every format of the report, `grade`'s summary too.

use crate::common::{grade_log, proctor, run, write};

const TASKS: &str = "\
- id: cancel
  input: Cancel W1.
  expected: cancelled
  rules:
    - {before: cancel_ordr, requires: find_user}
    - {at_most: 1, tool: cancel_order}
- id: served
  input: Cancel W2.
  expected: cancelled
  agent_tools: [cancel_order, find_user]
  rules: [{at_most: 1, tool: cancel_order}]
";

/// Two attempts of each task; the agent calls cancel_order (not the misspelt cancel_ordr).
const LOG: &str = r#"{"task": "cancel", "attempt": 0, "status": "final", "answer": "cancelled", "trajectory": [{"tool": "find_user", "args": {}}, {"tool": "cancel_order", "args": {"id": "W1"}}]}
{"task": "cancel", "attempt": 1, "status": "final", "answer": "cancelled", "trajectory": [{"tool": "cancel_order", "args": {"id": "W1"}}]}
{"task": "served", "attempt": 0, "status": "final", "answer": "cancelled", "trajectory": []}
"#;

#[test]
fn a_rule_no_attempt_applied_is_named_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", TASKS);
    let log = write(dir.path(), "log.jsonl", LOG);
    let out = dir.path().join("r.jsonl");
    let graded = run(grade_log(&tasks, &log).arg("--out").arg(&out));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let wanted = "task `cancel`: `cancel_ordr only after find_user`: no attempt called cancel_ordr";
    // The summary of `grade` without --out reads it too.
    let summary = run(&mut grade_log(&tasks, &log));
    assert!(summary.stdout.contains(wanted), "{}", summary.stdout);
    let text = run(proctor().arg("report").arg(&out));
    insta::assert_snapshot!(text.stdout.replace(&out.display().to_string(), "R"));
    let markdown = run(proctor()
        .arg("report")
        .arg(&out)
        .args(["--format", "markdown"]));
    assert!(
        markdown.stdout.contains(&format!("- {wanted}")),
        "{}",
        markdown.stdout
    );
    let json = run(proctor().arg("report").arg(&out).args(["--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let cancel = json["per_task"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task"] == "cancel")
        .unwrap();
    assert_eq!(
        cancel["never_applied"],
        serde_json::json!([{"rule": "cancel_ordr only after find_user", "tool": "cancel_ordr"}])
    );
    // A task that knows its tools had its names checked at load: nothing to say, even
    // though its only attempt called nothing.
    assert!(!text.stdout.contains("task `served`"), "{}", text.stdout);
    // The page lists it too, as text, with no console error.
    let page = dir.path().join("r.html");
    let html = run(proctor().arg("report").arg(&out).args(["--format", "html"]));
    assert_eq!(html.code, 0, "{}", html.stderr);
    std::fs::write(&page, &html.stdout).unwrap();
    if let Some(mut browser) = crate::chromium::Browser::launch() {
        browser.open(&page);
        let listed = browser.eval("document.querySelector('#never-applied ul').textContent");
        assert_eq!(listed, serde_json::json!(wanted));
        assert_eq!(browser.console_errors(), Vec::<String>::new());
    }
    // Two agents: each line says whose it is.
    let mut files = Vec::new();
    for label in ["a", "b"] {
        let file = dir.path().join(format!("{label}.jsonl"));
        let graded = run(grade_log(&tasks, &log)
            .args(["--label", label, "--out"])
            .arg(&file));
        assert_eq!(graded.code, 0, "{}", graded.stderr);
        files.push(file);
    }
    let labelled = run(proctor().arg("report").args(&files));
    assert!(
        labelled.stdout.contains(&format!("a: {wanted}")),
        "{}",
        labelled.stdout
    );
}
