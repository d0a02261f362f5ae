//! `proctor init`: the starter suite runs as it is, offline, and every task passes.

use crate::common::{proctor, run};
use serde_json::Value;

/// The command `init` prints, as arguments.
const RUN: [&str; 9] = [
    "run",
    "--tasks",
    "tasks.yaml",
    "--agent",
    "python3 agent.py",
    "--judge-model",
    "claude-sonnet-4-6",
    "--cassette",
    "cassette",
];

#[test]
fn the_starter_suite_runs_offline_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("my-evals");
    let init = run(proctor().arg("init").arg(&suite));
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(
        init.stdout.contains(
            "proctor run --tasks tasks.yaml --agent \"python3 agent.py\" --judge-model claude-sonnet-4-6 --cassette cassette"
        ),
        "{}",
        init.stdout
    );
    let out = run(proctor()
        .current_dir(&suite)
        .args(RUN)
        .args(["--format", "json", "--out", "r.jsonl"])
        // No key and no network: the rubric task is judged from the recorded answer.
        .env_remove("ANTHROPIC_API_KEY"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let s: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (s["tasks"].as_u64(), s["passed"].as_u64()),
        (Some(5), Some(5)),
        "{}",
        out.stderr
    );
    assert_eq!(s["ungraded"], 0);
    let results = std::fs::read_to_string(suite.join("r.jsonl")).unwrap();
    let judged: Value = results
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["task"] == "polite_reply")
        .unwrap();
    assert_eq!(judged["judge"]["verdict"], "PASS", "{judged}");
    // The task file uses every kind of end-state check and rule.
    let tasks = std::fs::read_to_string(suite.join("tasks.yaml")).unwrap();
    for kind in [
        "file_exists",
        "file_absent",
        "file_contains",
        "file_matches",
        "file_equals",
        "json_equals",
        "json_schema",
        "command:",
        "before:",
        "at_most:",
        "never:",
        "sequence:",
        "category: safety",
        "rubric:",
        "{regex:",
    ] {
        assert!(tasks.contains(kind), "tasks.yaml does not use {kind}");
    }
}

#[test]
fn init_never_overwrites_a_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tasks.yaml"), "mine").unwrap();
    let init = run(proctor().arg("init").arg(dir.path()));
    assert_eq!(init.code, 2);
    assert!(init.stderr.contains("tasks.yaml"), "{}", init.stderr);
    assert!(!dir.path().join("agent.py").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tasks.yaml")).unwrap(),
        "mine"
    );
}
