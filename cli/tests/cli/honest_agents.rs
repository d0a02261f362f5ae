//! An honest agent behaves under containment exactly as without it (docs/agent-protocol.md), in
//! whichever mode this machine has (each test says which on stderr): relative paths as a
//! user types them, a Python agent importing its own modules, a shell script with
//! background jobs, a virtualenv reached through a symlink, and the README's main job.

use crate::common::{JUDGE, namespaces, proctor, run, write};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The result lines of `out`, as (task, attempt, passed, answer), sorted.
fn outcomes(out: &Path) -> Vec<(String, u64, bool, String)> {
    let mut found: Vec<(String, u64, bool, String)> = std::fs::read_to_string(out)
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()))
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|l| {
            (
                l["task"].as_str().unwrap().to_owned(),
                l["attempt"].as_u64().unwrap(),
                l["passed"].as_bool().unwrap_or(false),
                l["answer"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    found.sort();
    found
}

/// `proctor init`'s suite run from inside its folder with relative paths, as `init`
/// prints it plus `--keep` and `--out`: every task passes, as without isolation.
#[test]
fn the_init_suite_passes_with_relative_paths() {
    namespaces();
    let dir = tempfile::tempdir().unwrap();
    let mut passed = Vec::new();
    for isolate in ["auto", "none"] {
        let suite = dir.path().join(isolate);
        let init = run(proctor().arg("init").arg(&suite));
        assert_eq!(init.code, 0, "{}", init.stderr);
        let output = run(proctor()
            .current_dir(&suite)
            .args([
                "run",
                "--tasks",
                "tasks.yaml",
                "--agent",
                "python3 agent.py",
            ])
            .args([
                "--judge-model",
                "claude-sonnet-4-6",
                "--cassette",
                "cassette",
            ])
            .args([
                "--keep",
                "kept",
                "--out",
                "results.jsonl",
                "--format",
                "json",
            ])
            .args(["--isolate", isolate])
            .env_remove("ANTHROPIC_API_KEY")
            .timeout(Duration::from_secs(120)));
        assert_eq!(output.code, 0, "--isolate {isolate}: {}", output.stderr);
        let summary: Value = serde_json::from_str(&output.stdout).unwrap();
        passed.push((summary["tasks"].as_u64(), summary["passed"].as_u64()));
        assert!(suite.join("kept").is_dir());
    }
    assert_eq!(passed, [(Some(5), Some(5)); 2]);
}

/// A Python agent imports a module beside its script, with the task file and the
/// results in the same folder; `--isolate-allow .` changes nothing.
#[test]
fn a_python_agent_imports_its_own_module() {
    namespaces();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path();
    write(folder, "helper.py", "ANSWER = 'imported'\n");
    write(
        folder,
        "agent.py",
        "import json\nimport helper\nprint(json.dumps({'status': 'final', 'answer': helper.ANSWER}))\n",
    );
    write(
        folder,
        "tasks.yaml",
        "- id: imp\n  input: go\n  expected: imported\n",
    );
    for extra in [&[][..], &["--isolate-allow", "."][..]] {
        let output = run(proctor()
            .current_dir(folder)
            .args([
                "run",
                "--tasks",
                "tasks.yaml",
                "--agent",
                "python3 agent.py",
            ])
            .args(["--out", "results.jsonl"])
            .args(extra)
            .timeout(Duration::from_secs(60)));
        assert_eq!(output.code, 0, "{extra:?}: {}", output.stderr);
        assert_eq!(
            outcomes(&folder.join("results.jsonl")),
            [("imp".to_owned(), 0, true, "imported".to_owned())],
            "{extra:?}: {}",
            output.stderr
        );
    }
}

/// A shell script's background jobs end and `wait` returns: the agent's signals are
/// its own.
#[test]
fn a_shell_agent_waits_for_its_background_jobs() {
    namespaces();
    let dir = tempfile::tempdir().unwrap();
    let agent = write(
        dir.path(),
        "agent.sh",
        "(sleep 0.2; echo one > a.txt) &\n(sleep 0.2; echo two > b.txt) &\nwait\ncat a.txt b.txt | tr '\\n' ' '\n",
    );
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: jobs\n  input: go\n  expected: one two\n",
    );
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &format!("sh {}", agent.display())])
        .args(["--timeout", "30", "--out"])
        .arg(&out)
        .timeout(Duration::from_secs(90)));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(
        outcomes(&out),
        [("jobs".to_owned(), 0, true, "one two".to_owned())],
        "{}",
        output.stderr
    );
}

/// An agent started with a virtualenv's interpreter through a symlink to the
/// virtualenv runs as it does without isolation.
#[test]
fn a_venv_under_a_symlink_runs() {
    namespaces();
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("real-venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let link = dir.path().join("venv");
    std::os::unix::fs::symlink(&venv, &link).unwrap();
    let agent = write(
        dir.path(),
        "agent.py",
        "import json, sys\nprint(json.dumps({'status': 'final', 'answer': 'venv' if sys.prefix != sys.base_prefix else 'system'}))\n",
    );
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: venv\n  input: go\n  expected: venv\n",
    );
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args([
            "--agent",
            &format!("{} {}", link.join("bin/python").display(), agent.display()),
        ])
        .arg("--out")
        .arg(&out)
        .timeout(Duration::from_secs(60)));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(
        outcomes(&out),
        [("venv".to_owned(), 0, true, "venv".to_owned())],
        "{}",
        output.stderr
    );
}

/// The README's main job gives the same results contained as without isolation.
#[test]
fn the_readme_job_gives_the_same_results() {
    namespaces();
    let dir = tempfile::tempdir().unwrap();
    let mut results = Vec::new();
    for isolate in ["auto", "none"] {
        let out = dir.path().join(format!("{isolate}.jsonl"));
        let output = run(proctor()
            .args(["run", "--tasks", "fixtures/run/refunds.yaml"])
            .args(["--agent", "python3 fixtures/agents/refund_agent.py"])
            .args(["--attempts", "2", "--isolate", isolate])
            .args(JUDGE)
            .arg("--out")
            .arg(&out)
            .timeout(Duration::from_secs(120)));
        assert!(
            output.code == 0 || output.code == 1,
            "--isolate {isolate}: {}",
            output.stderr
        );
        results.push(outcomes(&out));
    }
    assert!(!results[0].is_empty());
    assert_eq!(results[0], results[1]);
}

#[test]
fn at_the_timeout_an_agent_gets_sigterm_and_time_to_save_its_work() {
    let mode = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: slow\n  input: take your time\n  expected: saved\n  timeout_s: 1\n",
    );
    let agent = write(
        dir.path(),
        "agent.sh",
        // Saving takes 1.5 s of the 2 s grace.
        r#"trap 'sleep 1.5; echo "{\"status\": \"final\", \"answer\": \"saved\"}" > "$PROCTOR_OUTCOME"; exit 0' TERM
sleep 30 &
wait
"#,
    );
    let out = dir.path().join("results.jsonl");
    let ran = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .arg("--agent")
        .arg(format!("sh {}", agent.display()))
        .arg("--out")
        .arg(&out));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    // What it saved on SIGTERM is kept; the attempt still ran out of time.
    assert_eq!(line["status"], "timeout", "namespaces {mode}: {line}");
    assert_eq!(line["answer"], "saved", "namespaces {mode}: {line}");
    let took = line["timings"]["duration_ms"].as_u64().unwrap();
    assert!(
        took < Duration::from_secs(10).as_millis() as u64,
        "namespaces {mode}: {line}"
    );
}
