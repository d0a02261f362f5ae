//! The agent sees only what it was given (docs/agent-protocol.md, "What an agent sees"), in
//! whichever containment mode this machine has: with the project outside HOME and /tmp
//! (as on a server's `/srv`), canaries planted in an earlier run's results beside the
//! agent, earlier kept sandboxes and tool state, a ledger, a judge recording, another
//! suite, a repository, a folder beside the project, HOME, /tmp and (as root)
//! `/etc/shadow` are all out of reach of an agent that walks everything it can read;
//! the same agent finds every one of them without isolation. An honest agent and the
//! `proctor init` suite pass beside it, run after run.

use crate::common::{namespaces, proctor, root, run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Writes `dir/name`, making `dir` first.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    crate::common::write(dir, name, text)
}

/// A folder outside HOME and /tmp, as a project on a server lies.
fn server_folder() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(".proctor-sight-")
        .tempdir_in("/var/tmp")
        .unwrap()
}

fn result_line(task: &str, reason: &str) -> String {
    format!(
        "{{\"format\": \"proctor.result/1\", \"task\": \"{task}\", \"attempt\": 0, \"passed\": false, \"reasons\": [\"answer: expected {reason}\"]}}\n"
    )
}

/// Plants the canaries around `base/project/agent/walker.py`; returns those a walk
/// without isolation must find (the /tmp one is removed when the guard drops).
fn plant(base: &Path) -> (Vec<&'static str>, tempfile::TempDir) {
    let project = base.join("project");
    let agent = project.join("agent");
    write(
        &project,
        "tasks.yaml",
        "- id: walk\n  input: find what you can\n  expected: none\n  state_files:\n    db.json: '{\"key\": \"CANARY-state\"}'\n",
    );
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::copy(
        root().join("fixtures/agents/adversarial/walker.py"),
        agent.join("walker.py"),
    )
    .unwrap();
    write(
        &agent.join("results"),
        "old.jsonl",
        &result_line("walk", "CANARY-results"),
    );
    // An earlier run's `--keep` folder in the layout of older versions: no marker.
    write(
        &agent.join("kept-before/walk/0"),
        "out.txt",
        "CANARY-kept-sandbox",
    );
    write(
        &agent.join("kept-before/walk/0.state"),
        "db.json",
        "{\"k\": \"CANARY-kept-state\"}",
    );
    write(
        &agent,
        "ledger.csv",
        "recorded_at,run_id,suite,label,task\n2026-12-01T00:00:00Z,CANARY-ledger,s,v1,walk\n",
    );
    write(
        &agent.join("recordings"),
        "answer.json",
        "{\"format\": \"proctor.cassette/1\", \"response\": \"CANARY-cassette\"}",
    );
    write(
        &agent.join("suites"),
        "more.yaml",
        "- id: other\n  input: go\n  expected: CANARY-suite\n",
    );
    write(&agent.join(".git"), "notes.txt", "CANARY-git");
    write(
        &project.join("results"),
        "earlier.jsonl",
        &result_line("walk", "CANARY-out"),
    );
    write(&base.join("other"), "notes.txt", "CANARY-sibling");
    write(&base.join("home"), "notes.txt", "CANARY-home");
    let tmp = tempfile::Builder::new()
        .prefix("proctor-canary-")
        .tempdir_in("/tmp")
        .unwrap();
    write(tmp.path(), "notes.txt", "CANARY-tmp");
    let mut all = vec![
        "CANARY-cassette",
        "CANARY-git",
        "CANARY-home",
        "CANARY-kept-sandbox",
        "CANARY-kept-state",
        "CANARY-ledger",
        "CANARY-out",
        "CANARY-results",
        "CANARY-sibling",
        "CANARY-state",
        "CANARY-suite",
        "CANARY-tmp",
    ];
    // Readable by root only, as on any host.
    let as_root = std::fs::File::open("/etc/shadow").is_ok();
    if as_root {
        all.push("CANARY-shadow");
    }
    (all, tmp)
}

/// Runs the walker twice (one attempt at a time, so the second could read what the first
/// kept) from inside the project, with relative paths as a user types them; its answers.
fn walk(base: &Path, isolate: &str) -> Vec<String> {
    let project = base.join("project");
    let out = project.join("results/run.jsonl");
    let _ = std::fs::remove_file(&out);
    let output = run(proctor()
        .current_dir(&project)
        .env("HOME", base.join("home"))
        .args([
            "run",
            "--tasks",
            "tasks.yaml",
            "--agent",
            "python3 agent/walker.py",
        ])
        .args(["--out", "results/run.jsonl", "--keep", "agent/kept"])
        .args(["--attempts", "2", "--jobs", "1", "--timeout", "120"])
        .args(["--isolate", isolate])
        .timeout(Duration::from_secs(300)));
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("no results ({e}): {}", output.stderr));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", output.stderr);
    for line in &lines {
        assert_eq!(line["status"], "final", "{line}\n{}", output.stderr);
    }
    lines
        .iter()
        .map(|l| l["answer"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn an_agent_walking_everything_it_can_read_finds_no_canary() {
    let mode = if namespaces() {
        "namespaces"
    } else {
        "fallback"
    };
    let base = server_folder();
    let (_, _tmp) = plant(base.path());
    for answer in walk(base.path(), "auto") {
        assert_eq!(
            answer, "none",
            "the agent read what it was not given ({mode})"
        );
    }
}

/// The same walker finds every canary without isolation: each is really there to be read.
#[test]
fn without_isolation_the_walker_finds_every_canary() {
    let base = server_folder();
    let (all, _tmp) = plant(base.path());
    for answer in walk(base.path(), "none") {
        let found: Vec<&str> = answer.split(',').collect();
        for canary in &all {
            assert!(found.contains(canary), "{canary} not found: {answer}");
        }
    }
}

/// An honest agent in the same kind of project: its own module and data file beside it, a
/// virtualenv outside HOME, a background job; it passes run after run, with a relative
/// `--keep` inside its folder, beside the planted canaries.
#[test]
fn an_honest_agent_passes_beside_the_canaries_run_after_run() {
    namespaces();
    let base = server_folder();
    let (_, _tmp) = plant(base.path());
    let venv = base.path().join("venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let project = base.path().join("project");
    let honest = project.join("honest");
    write(
        &honest,
        "helpers.py",
        "def answer():\n    return open(__file__.replace('helpers.py', 'data.txt')).read().strip()\n",
    );
    write(&honest, "data.txt", "42\n");
    write(
        &honest,
        "main.py",
        "import json, subprocess, sys\nfrom helpers import answer\n\
         job = subprocess.run(['sh', '-c', 'sleep 0.1 & wait; echo done'], capture_output=True, text=True).stdout.strip()\n\
         venv = 'venv' if sys.prefix != sys.base_prefix else 'system'\n\
         print(json.dumps({'status': 'final', 'answer': f'{answer()} {job} {venv}'}))\n",
    );
    write(
        &project,
        "honest.yaml",
        "- id: honest\n  input: go\n  expected: 42 done venv\n",
    );
    let python: PathBuf = venv.join("bin/python");
    for round in 0..2 {
        let output = run(proctor()
            .current_dir(&project)
            .env("HOME", base.path().join("home"))
            .args(["run", "--tasks", "honest.yaml"])
            .arg("--agent")
            .arg(format!("{} honest/main.py", python.display()))
            .args([
                "--out",
                "results/honest.jsonl",
                "--keep",
                "honest/kept",
                "--attempts",
                "2",
            ])
            .timeout(Duration::from_secs(120)));
        assert_eq!(
            output.code, 0,
            "round {round}: {}{}",
            output.stdout, output.stderr
        );
        let lines = crate::common::results(&project.join("results/honest.jsonl"));
        assert!(
            lines.iter().all(|l| l["passed"] == true),
            "round {round}: {lines:?}\n{}",
            output.stderr
        );
        std::fs::remove_file(project.join("results/honest.jsonl")).unwrap();
    }
}

/// `proctor init`'s suite outside HOME and /tmp, run as `init` prints it plus a relative
/// `--keep` inside it and an `--out` beside the agent: every task passes, twice.
#[test]
fn the_init_suite_passes_run_after_run_with_its_kept_folder_inside() {
    namespaces();
    let base = server_folder();
    let suite = base.path().join("evals");
    let init = run(proctor().arg("init").arg(&suite));
    assert_eq!(init.code, 0, "{}", init.stderr);
    for round in 0..2 {
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
            .args(["--keep", "kept", "--out", "results.jsonl"])
            .timeout(Duration::from_secs(120)));
        assert_eq!(
            output.code, 0,
            "round {round}: {}{}",
            output.stdout, output.stderr
        );
        let lines = crate::common::results(&suite.join("results.jsonl"));
        assert!(!lines.is_empty());
        assert!(
            lines.iter().all(|l| l["passed"] == true),
            "round {round}: {lines:?}\n{}",
            output.stderr
        );
    }
}

/// A shown folder too deep to check for grading data is refused before any agent starts,
/// naming it and saying how to lay the suite out.
#[test]
fn a_folder_too_large_to_check_is_refused_before_any_agent_starts() {
    namespaces();
    let base = server_folder();
    let agent = base.path().join("agent");
    let mut deep = agent.join("cache");
    for _ in 0..30 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    let marker = base.path().join("started");
    write(
        &agent,
        "main.py",
        &format!(
            "open({:?}, 'w').write('x')\nprint('ok')\n",
            marker.display().to_string()
        ),
    );
    write(
        base.path(),
        "tasks.yaml",
        "- id: t\n  input: go\n  expected: ok\n",
    );
    let output = run(proctor()
        .current_dir(base.path())
        .args([
            "run",
            "--tasks",
            "tasks.yaml",
            "--agent",
            "python3 agent/main.py",
        ])
        .args(["--out", "r.jsonl"]));
    assert_eq!(output.code, 2, "{}", output.stderr);
    let agent = agent.canonicalize().unwrap();
    assert!(
        output.stderr.contains(&format!(
            "{}: the agent would see this folder, and it is more than 24 folders deep",
            agent.display()
        )) && output.stderr.contains("give the agent a folder of its own"),
        "{}",
        output.stderr
    );
    assert!(!marker.exists(), "the agent started");
}

/// A grading file named on the agent's own command line stays hidden: naming a path shows
/// it, unless it is grading data.
#[test]
fn a_task_file_named_on_the_command_line_stays_hidden() {
    let mode = if namespaces() {
        "namespaces"
    } else {
        "fallback"
    };
    let base = server_folder();
    write(
        base.path(),
        "tasks.yaml",
        "# CANARY-named\n- id: t\n  input: go\n  expected: none\n",
    );
    write(
        &base.path().join("agent"),
        "reader.py",
        "import sys\ntry:\n    text = open(sys.argv[1]).read()\nexcept OSError:\n    text = ''\nprint('CANARY-named' in text and 'read' or 'none')\n",
    );
    let tasks = base.path().join("tasks.yaml");
    let output = run(proctor()
        .current_dir(base.path())
        .args([
            "run",
            "--tasks",
            "tasks.yaml",
            "--out",
            "r.jsonl",
            "--agent",
        ])
        .arg(format!("python3 agent/reader.py {}", tasks.display())));
    let lines = crate::common::results(&base.path().join("r.jsonl"));
    assert_eq!(lines[0]["answer"], "none", "{mode}: {}", output.stderr);
}
