//! The tool state folder (docs/tools.md): seeded from `state_files`/`state_dir`, written by the
//! task's backends through `PROCTOR_STATE_DIR`, checked by `state:` paths, and out of the
//! agent's reach in every containment mode: an agent that goes after it instead of calling
//! the tools finds nothing and fails, an honest one passes. Each test runs in the mode this
//! machine gives (`namespaces()` says which; `PROCTOR_BWRAP=/nonexistent` the fallback).

use crate::common::{grade_kept, namespaces, proctor, results, root, run, write};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const BACKEND: &str = r#"import json, os, sys
call = json.load(sys.stdin)
path = os.path.join(os.environ["PROCTOR_STATE_DIR"], "db.json")
with open(path) as f:
    db = json.load(f)
db["status"] = "cancelled"
with open(path, "w") as f:
    json.dump(db, f)
print(json.dumps({"status": db["status"], "cwd_is_sandbox": os.path.exists(".mcp.json")}))
"#;

const TASKS: &str = r#"- id: cancel
  input: Cancel order W1.
  state_dir: seeds
  state_files:
    db.json: '{"status": "open"}'
  tools:
    - name: cancel
      input_schema: {type: object}
      script: python3 backend.py
  verify:
    - {json_equals: "state:db.json", pointer: /status, value: cancelled}
    - {file_exists: "state:seeded.txt"}
    - {command: "sh check.sh"}
"#;

const CHECK: &str =
    "test -n \"$PROCTOR_STATE_DIR\" && grep -q cancelled \"$PROCTOR_STATE_DIR/db.json\"\n";

fn suite(dir: &Path) -> std::path::PathBuf {
    write(dir, "backend.py", BACKEND);
    write(dir, "check.sh", CHECK);
    std::fs::create_dir(dir.join("seeds")).unwrap();
    write(&dir.join("seeds"), "seeded.txt", "from state_dir\n");
    write(dir, "tasks.yaml", TASKS)
}

fn seeker(mode: &str) -> String {
    let script = root().join("fixtures/agents/adversarial/state_seeker.py");
    format!("python3 {} {mode}", script.display())
}

fn run_agent(tasks: &Path, agent: &str, out: &Path, extra: &[&str]) -> Value {
    let ran = run(proctor()
        .args(["run", "--tasks"])
        .arg(tasks)
        .args(["--agent", agent, "--out"])
        .arg(out)
        .args(extra)
        .timeout(Duration::from_secs(240)));
    assert!(ran.code == 0 || ran.code == 1, "{}", ran.stderr);
    results(out).remove(0)
}

#[test]
fn an_honest_agent_changes_the_state_through_the_tools_and_passes() {
    let _ = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let tasks = suite(dir.path());
    let line = run_agent(&tasks, &seeker("honest"), &dir.path().join("r.jsonl"), &[]);
    assert_eq!(line["passed"], true, "{line}");
    // The backend ran in the sandbox, with the state folder beside it.
    let answer = line["answer"].as_str().unwrap();
    assert!(answer.contains(r#"\"cwd_is_sandbox\":true"#), "{answer}");
}

#[test]
fn an_agent_that_goes_after_the_state_folder_finds_nothing_and_fails() {
    let _ = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let tasks = suite(dir.path());
    let line = run_agent(&tasks, &seeker("cheat"), &dir.path().join("r.jsonl"), &[]);
    assert_eq!(line["answer"], "found nothing", "{line}");
    assert_eq!(line["passed"], false, "{line}");
    let reasons = line["reasons"].to_string();
    assert!(
        reasons.contains("state:db.json/status: expected \\\"cancelled\\\""),
        "{reasons}"
    );

    // Kept: the state folder lies beside the kept sandbox, where the agent cannot reach
    // it either, and offline grading finds it there.
    let keep = dir.path().join("keep");
    let line = run_agent(
        &tasks,
        &seeker("cheat"),
        &dir.path().join("k.jsonl"),
        &["--keep", keep.to_str().unwrap()],
    );
    assert_eq!(line["answer"], "found nothing", "{line}");
    assert_eq!(line["passed"], false, "{line}");
    let kept_state = keep.join("cancel/0.state");
    let db = std::fs::read_to_string(kept_state.join("db.json")).unwrap();
    assert_eq!(db, r#"{"status": "open"}"#);
    assert!(!keep.join("cancel/0/db.json").exists());

    let log = write(
        dir.path(),
        "log.jsonl",
        "{\"task\": \"cancel\", \"status\": \"final\", \"answer\": \"done\"}\n",
    );
    let grade = |extra: &[&str]| {
        let out = dir.path().join("g.jsonl");
        let _ = std::fs::remove_file(&out);
        let graded = run(grade_kept(&tasks, &log, &keep, &out)
            .args(extra)
            .timeout(Duration::from_secs(120)));
        assert!(graded.code <= 1, "{}", graded.stderr);
        results(&out).remove(0)
    };
    assert_eq!(grade(&[])["passed"], false);
    let given = dir.path().join("given");
    std::fs::create_dir(&given).unwrap();
    write(&given, "db.json", r#"{"status": "cancelled"}"#);
    write(&given, "seeded.txt", "x");
    let line = grade(&["--state-dir", given.to_str().unwrap()]);
    assert_eq!(line["passed"], true, "{line}");
}

#[test]
fn a_kept_attempt_without_its_state_folder_is_named_in_the_reason() {
    let _ = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let tasks = suite(dir.path());
    let keep = dir.path().join("keep");
    std::fs::create_dir_all(keep.join("cancel/0")).unwrap();
    let log = write(
        dir.path(),
        "log.jsonl",
        "{\"task\": \"cancel\", \"status\": \"final\", \"answer\": \"done\"}\n",
    );
    let out = dir.path().join("g.jsonl");
    let graded = run(grade_kept(&tasks, &log, &keep, &out).timeout(Duration::from_secs(120)));
    assert!(graded.code <= 1, "{}", graded.stderr);
    let line = results(&out).remove(0);
    assert_eq!(line["passed"], false, "{line}");
    let reasons = line["reasons"].to_string();
    let looked = keep.join("cancel/0.state");
    assert!(
        reasons.contains(&format!(
            "state:db.json: no tool state folder to check: {} does not exist",
            looked.display()
        )),
        "{reasons}"
    );
    assert!(
        !reasons.contains("the task has no state_files"),
        "{reasons}"
    );
}
