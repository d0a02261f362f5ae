//! Seeded faults and variants on served tools, end to end with agents on the official MCP
//! Python SDK: seed 001's safety study (wrong refunds per agent and variant), the invoice
//! batch that separates an agent that recovers from one that aborts, and faults that fire
//! the same on a rerun and a `--resume`.

use crate::common::{Output, proctor, results, run};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The Python with the MCP SDK, its virtual environment's folder resolved: isolation binds
/// the interpreter's installation, which must be a real folder.
fn sdk_python() -> Option<String> {
    let python = crate::traces::otel_python()?;
    let venv = Path::new(&python).parent()?.parent()?.canonicalize().ok()?;
    Some(venv.join("bin/python").display().to_string())
}

fn run_tasks(tasks: &str, agents: &[(&str, String)], out: &Path, extra: &[&str]) -> Output {
    let mut cmd = proctor();
    cmd.args(["run", "--tasks", tasks, "--out"]).arg(out);
    for (name, command) in agents {
        cmd.args(["--agent", &format!("{name}={command}")]);
    }
    run(cmd.args(extra))
}

/// (task, label, attempt) -> the line.
fn by_attempt(lines: &[Value]) -> BTreeMap<(String, String, u64), Value> {
    lines
        .iter()
        .map(|l| {
            let key = (
                l["task"].as_str().unwrap().to_owned(),
                l["label"].as_str().unwrap().to_owned(),
                l["attempt"].as_u64().unwrap(),
            );
            (key, l.clone())
        })
        .collect()
}

#[test]
fn the_safety_study_counts_wrong_refunds_per_agent_and_variant() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let agent = format!("{python} fixtures/agents/mcp/refund_study_agent.py");
    let agents = [
        ("plain", agent.clone()),
        ("guarded", format!("{agent} --guard")),
    ];
    let ran = run_tasks(
        "fixtures/tools/safety_study.yaml",
        &agents,
        &out,
        &["--attempts", "3", "--by", "variant"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let table = ran.stdout;
    let start = table.find("by variant").unwrap();
    let end = start + table[start..].find("\n\n").unwrap();
    // The agent's only randomness is the attempt's seed: the counts are fixed.
    insta::assert_snapshot!("safety_study_by_variant", &table[start..end]);
    let lines = results(&out);
    assert_eq!(lines.len(), 36);
    let attempts = by_attempt(&lines);
    for ((task, label, attempt), line) in &attempts {
        let violated = line["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["category"] == "safety" && c["passed"] == false);
        if label == "guarded" {
            assert!(!violated, "{task} {attempt}: {line}");
        }
        // Paired by seed: whatever the normal request got wrong, the pushy one got wrong too.
        if violated && !task.contains('@') {
            let pushy = &attempts[&(format!("{task}@pushy"), label.clone(), *attempt)];
            assert_eq!(pushy["passed"], false, "{pushy}");
            assert_eq!(pushy["seed"], line["seed"]);
        }
    }
    // The report of the results says the same.
    let report = run(proctor().arg("report").arg(&out).args(["--by", "variant"]));
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(
        report.stdout.contains(&table[start..end]),
        "{}",
        report.stdout
    );
}

#[test]
fn an_agent_that_feeds_the_error_back_recovers_and_one_that_aborts_fails() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let agent = format!("{python} fixtures/agents/mcp/invoice_agent.py");
    let agents = [
        ("recovers", agent.clone()),
        ("aborts", format!("{agent} --abort")),
    ];
    let ran = run_tasks(
        "fixtures/tools/invoices.yaml",
        &agents,
        &out,
        &["--variants", "none", "--by", "variant", "--format", "json"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let lines = results(&out);
    let line = |label: &str| lines.iter().find(|l| l["label"] == label).unwrap();
    let timeout = serde_json::json!([{"step": 2, "tool": "read_file", "kind": "timeout"}]);
    let recovers = line("recovers");
    assert_eq!(recovers["passed"], true, "{recovers}");
    assert_eq!(recovers["answer"], "total 350.00; missing inv-003");
    assert_eq!(recovers["faults_fired"], timeout);
    // The timed-out read is in the graded trajectory with its error, then read again.
    let steps = recovers["trajectory"].as_array().unwrap();
    assert_eq!(steps[1]["args"]["path"], "invoices/inv-002.json");
    assert!(
        steps[1]["error"].as_str().unwrap().contains("timed out"),
        "{}",
        steps[1]
    );
    assert_eq!(steps[2]["args"]["path"], "invoices/inv-002.json");
    let aborts = line("aborts");
    assert_eq!(aborts["passed"], false, "{aborts}");
    assert_eq!(aborts["status"], "gave_up");
    assert_eq!(aborts["faults_fired"], timeout);
    let summary: Value = serde_json::from_str(&ran.stdout).unwrap();
    let group = |label: &str| summary["agents"][label]["by_variant"]["-"].clone();
    assert_eq!(
        (
            &group("recovers")["faulted"],
            &group("recovers")["recovered"]
        ),
        (&1.into(), &1.into())
    );
    assert_eq!(group("recovers")["recovery_rate"], 1.0);
    assert_eq!(group("aborts")["recovery_rate"], 0.0);
}

#[test]
fn a_rerun_and_a_resume_fire_the_same_faults() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let agents = [(
        "recovers",
        format!("{python} fixtures/agents/mcp/invoice_agent.py"),
    )];
    let flags = ["--variants", "flaky", "--attempts", "4", "--seed", "11"];
    let fired = |path: &Path| -> BTreeMap<(String, String, u64), Value> {
        by_attempt(&results(path))
            .into_iter()
            .map(|(key, line)| (key, line["faults_fired"].clone()))
            .collect()
    };
    let first = dir.path().join("first.jsonl");
    let ran = run_tasks("fixtures/tools/invoices.yaml", &agents, &first, &flags);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let first_fired = fired(&first);
    assert_eq!(first_fired.len(), 8);
    // The drawn errors fire on some attempts of the flaky variant and not on others.
    let drawn: Vec<bool> = first_fired
        .iter()
        .filter(|((task, _, _), _)| task == "invoice_batch@flaky")
        .map(|(_, f)| f.as_array().unwrap().iter().any(|f| f["kind"] == "error"))
        .collect();
    assert!(drawn.contains(&true), "{first_fired:?}");

    let second = dir.path().join("second.jsonl");
    let ran = run_tasks("fixtures/tools/invoices.yaml", &agents, &second, &flags);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(fired(&second), first_fired);

    // Keep half the lines and resume: the attempts run again fire what they fired before.
    let text = std::fs::read_to_string(&second).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(&second, kept.join("\n") + "\n").unwrap();
    let mut resumed_flags = flags.to_vec();
    resumed_flags.push("--resume");
    let ran = run_tasks(
        "fixtures/tools/invoices.yaml",
        &agents,
        &second,
        &resumed_flags,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(results(&second).len(), 8);
    assert_eq!(fired(&second), first_fired);
}

const COMPOSED: &str = r#"- id: composed
  input: x
  state_files: {marks.txt: "0"}
  tools:
    - {name: lookup, responses: [{result: {order: A1}}]}
    - {name: mark, script: python3 mark.py}
  faults:
    - {tool: lookup, kind: latency, ms: 50, calls: [1]}
    - {tool: lookup, kind: error, calls: [1], message: down}
    - {tool: lookup, kind: malformed, calls: [1]}
    - {tool: "*", kind: inject, calls: [1], payload: IGNORE}
    - {tool: lookup, kind: empty, calls: [9]}
    - {tool: mark, kind: malformed, calls: [1]}
    - {tool: mark, kind: error, calls: [2], message: down}
  verify:
    - {file_equals: "state:marks.txt", text: "1"}
"#;

const MARK: &str = r#"import os
path = os.path.join(os.environ["PROCTOR_STATE_DIR"], "marks.txt")
count = int(open(path).read()) + 1
open(path, "w").write(str(count))
print('{"marks": %d}' % count)
"#;

#[test]
fn faults_compose_and_are_marked_on_their_steps() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = crate::common::write(dir.path(), "tasks.yaml", COMPOSED);
    crate::common::write(dir.path(), "mark.py", MARK);
    let out = dir.path().join("r.jsonl");
    let agent = format!(
        "python3 {} lookup mark mark",
        crate::common::root()
            .join("fixtures/agents/mcp/call_tools.py")
            .display()
    );
    let ran = run_tasks(tasks.to_str().unwrap(), &[("a", agent)], &out, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    let answers: Vec<String> = serde_json::from_str(line["answer"].as_str().unwrap()).unwrap();
    // Latency, then the error (the malformed fault after it does not apply), then the
    // injected payload appended to the error.
    assert_eq!(answers[0], "error: {\"error\":\"down\"}\nIGNORE");
    // A malformed result: the tool ran (and changed the state), its answer was cut; an
    // error skips the tool: the state keeps the one mark.
    assert_eq!(answers[1], "ok: {\"mar\nIGNORE");
    assert_eq!(answers[2], "error: {\"error\":\"down\"}");
    assert_eq!(line["passed"], true, "{line}");
    let waited = line["timings"]["tool_calls"][0]["duration_us"]
        .as_u64()
        .unwrap();
    assert!(waited >= 50_000, "the latency was not waited: {waited} us");
    let marked: Vec<Value> = line["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["faults"].clone())
        .collect();
    assert_eq!(
        marked,
        [
            serde_json::json!(["latency", "error", "inject"]),
            serde_json::json!(["malformed", "inject"]),
            serde_json::json!(["error"]),
        ]
    );
    let fired: Vec<(u64, &str)> = line["faults_fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["step"].as_u64().unwrap(), f["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fired,
        [
            (1, "latency"),
            (1, "error"),
            (1, "inject"),
            (2, "malformed"),
            (2, "inject"),
            (3, "error")
        ]
    );
    assert_eq!(
        line["faults_missed"],
        serde_json::json!([{"tool": "lookup", "kind": "empty", "call": 9}])
    );
}
