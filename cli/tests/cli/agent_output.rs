//! What an agent's output means and what proctor says about it: the end of a crash's
//! stderr, where the outcome is in stdout, the memory limit, and how `--agent` names.

use crate::common::{Output, namespaces, proctor, run, write};
use serde_json::Value;
use std::path::Path;

fn results(path: &Path) -> Vec<Value> {
    match std::fs::read_to_string(path) {
        Ok(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Runs the Python agent `source` once on the trivial task (expected answer `ok`).
fn run_python(dir: &Path, source: &str, extra: &[&str]) -> (Output, Vec<Value>) {
    let agent = write(dir, "agent.py", source);
    let out = dir.join("r.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml", "--agent"])
        .arg(format!("python3 {}", agent.display()))
        .arg("--out")
        .arg(&out)
        .args(extra));
    (output, results(&out))
}

/// The detail stored for the failed check of a result line's first reason.
fn detail(line: &Value) -> String {
    line["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["passed"] == false && c["failure"] == line["reasons"][0])
        .and_then(|c| c["detail"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_crash_shows_the_end_of_stderr_where_the_exception_is() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"
import sys
sys.stdin.readline()
for i in range(40):
    print(f'  File "/srv/agent/step_{i:02}.py", line {i}, in call_the_model', file=sys.stderr)
raise ValueError("the real reason")
"#;
    let (output, lines) = run_python(dir.path(), source, &[]);
    assert_eq!(output.code, 3, "{}", output.stderr);
    assert_eq!(
        lines[0]["reasons"],
        serde_json::json!(["error: exit status 1"])
    );
    assert!(
        detail(&lines[0]).contains("ValueError: the real reason"),
        "{}",
        lines[0]
    );
    // The progress line and the printed table show the end of the detail.
    let progress = output
        .stderr
        .lines()
        .find(|l| l.starts_with("[1/1] trivial #0"))
        .unwrap_or_default();
    assert!(
        progress.contains("ValueError: the real reason)"),
        "{}",
        output.stderr
    );
    assert!(progress.contains("error: exit status 1 (…"), "{progress}");
    assert!(
        output.stdout.contains("ValueError: the real reason"),
        "{}",
        output.stdout
    );
    let report = run(proctor().arg("report").arg(dir.path().join("r.jsonl")));
    assert!(
        report.stdout.contains("ValueError: the real reason"),
        "{}",
        report.stdout
    );
}

#[test]
fn one_json_line_with_spaces_around_it_is_the_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"
import sys
sys.stdin.readline()
print('  {"status": "final", "answer": "ok"}  ')
"#;
    let (output, lines) = run_python(dir.path(), source, &[]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
}

#[test]
fn an_object_after_the_outcome_without_outcome_fields_is_not_the_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"
import sys
sys.stdin.readline()
print('{"status": "final", "answer": "ok"}')
print('{"debug": 1}')
"#;
    let (output, lines) = run_python(dir.path(), source, &[]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
    assert_eq!(lines[0]["answer"], "ok", "{}", lines[0]);
    // Only objects without an outcome field: the agent printed no outcome, and says so.
    let source = r#"
import sys
sys.stdin.readline()
print('{"debug": 1}')
"#;
    let (_, lines) = run_python(dir.path(), source, &[]);
    assert_eq!(
        lines[0]["reasons"],
        serde_json::json!(["error: invalid output"]),
        "{}",
        lines[0]
    );
    assert!(
        detail(&lines[0]).contains("none has an outcome field"),
        "{}",
        lines[0]
    );
}

#[test]
fn pretty_printed_plain_and_broken_outputs_keep_their_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let pretty = r#"
import json, sys
sys.stdin.readline()
print("thinking...")
print(json.dumps({"status": "final", "answer": "ok",
                  "trajectory": [{"tool": "look", "args": {"at": "notes.txt"}}]}, indent=2))
print("done")
"#;
    let (_, lines) = run_python(dir.path(), pretty, &[]);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
    assert_eq!(lines[0]["tool_calls"], 1, "{}", lines[0]);
    let plain = "import sys\nsys.stdin.readline()\nprint('  ok  ')\n";
    let (_, lines) = run_python(dir.path(), plain, &[]);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
    let broken =
        "import sys\nsys.stdin.readline()\nprint('{\"status\": \"final\", \"answer\": ')\n";
    let (_, lines) = run_python(dir.path(), broken, &[]);
    assert_eq!(
        lines[0]["reasons"],
        serde_json::json!(["error: invalid output"]),
        "{}",
        lines[0]
    );
    assert!(
        detail(&lines[0]).contains("EOF while parsing"),
        "{}",
        lines[0]
    );
}

#[test]
fn an_agent_over_the_memory_limit_is_shown_as_such() {
    let namespaces = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let source = r#"
import sys
sys.stdin.readline()
chunks = []
for _ in range(512):
    chunks.append(bytearray(1 << 20))
print("allocated 512 MiB")
"#;
    let (output, lines) = run_python(dir.path(), source, &["--max-memory", "64M"]);
    let reasons = lines[0]["reasons"].to_string();
    if output.stderr.contains("through cgroup") {
        // Stopped at a limit the user set: the agent failed, the run did not break.
        assert_eq!(output.code, 0, "{}", output.stderr);
        assert_eq!(
            lines[0]["reasons"],
            serde_json::json!(["error: memory limit"]),
            "namespaces: {namespaces}: {}",
            lines[0]
        );
        assert!(
            detail(&lines[0]).contains("--max-memory limit of 64 MiB"),
            "{}",
            lines[0]
        );
        assert!(
            output.stderr.contains("error: memory limit (killed"),
            "{}",
            output.stderr
        );
    } else {
        // Resource limits: the allocation fails inside the agent (a MemoryError).
        eprintln!("NOTE: no cgroup here: checking resource limits");
        // The agent crashed on its MemoryError: every attempt of it did (exit 3).
        assert_eq!(output.code, 3, "{}", output.stderr);
        assert!(
            reasons.contains("error:") && !reasons.contains("no message"),
            "{reasons}"
        );
    }
}

#[test]
fn network_none_without_namespaces_says_how_to_get_them() {
    let output = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml"])
        .args(["--network", "none", "--agent", "sh -c 'echo ok'"])
        .env("PROCTOR_BWRAP", "/nonexistent/bwrap"));
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("--network none needs namespaces"),
        "{}",
        output.stderr
    );
    assert!(
        output.stderr.contains("apt-get install bubblewrap"),
        "{}",
        output.stderr
    );
}

#[test]
fn an_environment_assignment_in_agent_is_refused_with_the_way_to_set_it() {
    let output = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml"])
        .args(["--agent", "MODEL=x python3 a.py"]));
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("`MODEL=x` reads as an environment variable"),
        "{}",
        output.stderr
    );
    assert!(output.stderr.contains("env:"), "{}", output.stderr);
    // A lower-case name is a name; its missing program is named as the agent's.
    let output = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml"])
        .args(["--agent", "fast=no-such-program-xyz a.py"]));
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("agent `fast`: program `no-such-program-xyz` is not on PATH"),
        "{}",
        output.stderr
    );
    // A named agent runs under its name.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml"])
        .args(["--agent", "v1=sh -c 'echo ok'", "--out"])
        .arg(&out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(results(&out)[0]["label"], "v1");
}
