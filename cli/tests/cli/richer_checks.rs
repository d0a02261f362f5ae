//! The checks of benchmark-shaped suites, as `proctor grade` reports them: `json_query`
//! into a database file, `expected_all`, `before` rules with `any_of` and `ok`, and
//! command checks whose scripts sit beside the task file, whichever folder proctor is
//! started from.

use crate::common::{grade_kept, namespaces, proctor, results, run, write};
use std::path::Path;

const RETAIL: &str = r#"
- id: cancel
  input: Cancel my order W1.
  expected_all: [W1, cancelled]
  rules:
    - {before: cancel_order, requires: {any_of: [find_user_by_email, find_user_by_name_zip]}, same: [user_id], ok: true}
  verify:
    - {json_query: db.json, query: "$.orders.W1.status", value: cancelled}
    - {json_query: db.json, query: "$.transactions[?@.recipient == 'X'].amount", select: sum, op: "<=", value: 10}
"#;

const GOOD: &str = r#"{"task": "cancel", "attempt": 0, "status": "final", "answer": "Order W1 is now cancelled.", "trajectory": [{"tool": "find_user_by_name_zip", "args": {"user_id": "u1"}}, {"tool": "cancel_order", "args": {"user_id": "u1", "order": "W1"}}]}"#;
const BAD: &str = r#"{"task": "cancel", "attempt": 1, "status": "final", "answer": "W1 is pending", "trajectory": [{"tool": "find_user_by_email", "args": {"user_id": "u1"}, "error": "no such user"}, {"tool": "cancel_order", "args": {"user_id": "u1", "order": "W1"}}]}"#;

fn database(dir: &Path, status: &str, amount: u32) {
    std::fs::create_dir_all(dir).unwrap();
    write(
        dir,
        "db.json",
        &format!(
            r#"{{"orders": {{"W1": {{"status": "{status}"}}}},
                "transactions": [{{"recipient": "X", "amount": {amount}}}, {{"recipient": "Y", "amount": 50}}]}}"#
        ),
    );
}

#[test]
fn grade_names_what_the_richer_checks_found() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", RETAIL);
    let log = write(dir.path(), "outcomes.jsonl", &format!("{GOOD}\n{BAD}\n"));
    let work = dir.path().join("work");
    database(&work.join("cancel/0"), "cancelled", 5);
    database(&work.join("cancel/1"), "pending", 100);
    let out = dir.path().join("r.jsonl");
    let graded = run(&mut grade_kept(&tasks, &log, &work, &out));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let lines = results(&out);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
    assert_eq!(lines[1]["passed"], false);
    assert_eq!(
        lines[1]["reasons"],
        serde_json::json!([
            "wrong answer",
            "rule: cancel_order [\"u1\"] at step 2 has no earlier successful \
             find_user_by_email or find_user_by_name_zip [\"u1\"]",
            "end state: db.json $.orders.W1.status: expected \"cancelled\", found \"pending\"",
            "end state: db.json sum($.transactions[?@.recipient == 'X'].amount): \
             expected <= 10, found 100",
        ])
    );
    let answer = lines[1]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["failure"] == "wrong answer")
        .unwrap();
    assert_eq!(answer["check"], "answer contains \"W1\", \"cancelled\"");
    assert_eq!(
        answer["detail"],
        "got \"W1 is pending\", missing \"cancelled\""
    );
}

/// A suite in `suite/` whose checks run `suite/tools/check.sh` in each spelling, and a
/// sandbox `work/` the script passes or fails.
fn relative_layout(base: &Path) {
    let tools = base.join("suite/tools");
    std::fs::create_dir_all(&tools).unwrap();
    let script = write(
        &tools,
        "check.sh",
        "#!/bin/sh\ngrep -q done report.txt || { echo 'the suite check: not done' >&2; exit 1; }\n",
    );
    let mut mode = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&script, mode).unwrap();
    write(
        &base.join("suite"),
        "tasks.yaml",
        "- id: t\n  input: x\n  verify:\n\
         \x20   - {command: \"sh tools/check.sh\"}\n\
         \x20   - {command: \"sh ./tools/check.sh\"}\n\
         \x20   - {command: \"./tools/check.sh\"}\n\
         \x20   - {command: \"tools/check.sh\"}\n",
    );
    write(
        base,
        "outcomes.jsonl",
        "{\"task\": \"t\", \"status\": \"final\"}\n",
    );
    std::fs::create_dir_all(base.join("work")).unwrap();
}

#[test]
fn command_checks_run_the_script_beside_the_task_file_from_any_folder() {
    let _ = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    relative_layout(base);
    // (folder proctor starts in, --tasks, --outcomes, --workdir), all relative.
    let forms = [
        ("", "suite/tasks.yaml", "outcomes.jsonl", "work"),
        ("", "suite", "outcomes.jsonl", "work"),
        ("suite", "tasks.yaml", "../outcomes.jsonl", "../work"),
        ("suite", ".", "../outcomes.jsonl", "../work"),
    ];
    for report in ["done\n", "pending\n"] {
        write(&base.join("work"), "report.txt", report);
        for (at, (folder, tasks, log, work)) in forms.iter().enumerate() {
            let out = base.join(format!("r{at}.jsonl"));
            let graded = run(proctor()
                .current_dir(base.join(folder))
                .args([
                    "grade",
                    "--tasks",
                    tasks,
                    "--outcomes",
                    log,
                    "--workdir",
                    work,
                ])
                .arg("--out")
                .arg(&out));
            assert_eq!(graded.code, 0, "{tasks}: {}", graded.stderr);
            let line = &results(&out)[0];
            let reasons: Vec<&str> = line["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            if report == "done\n" {
                assert_eq!(reasons, Vec::<&str>::new(), "{folder}/{tasks}: {line}");
            } else {
                assert_eq!(reasons.len(), 4, "{folder}/{tasks}: {line}");
                for reason in reasons {
                    assert!(
                        reason.ends_with(
                            "exit code 1, expected 0 (stderr: the suite check: not done)"
                        ),
                        "{folder}/{tasks}: {reason}"
                    );
                }
            }
        }
    }
}
