//! Every file the run grades with is out of the agent's sight (docs/agent-protocol.md), in whichever
//! containment mode this machine has: an agent sharing its folder with the task file,
//! its `from:`, `schema_file`, check and tool scripts, the seed folder, the agents file,
//! the results, earlier results and reports, kept sandboxes, the ledger, the cassette and
//! the judge template reads none of them.

use crate::common::{namespaces, proctor, root, run, write};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Every canary the grading files below hold, as the hunter answers them.
const ALL: &str = "CANARY-agents,CANARY-cassette,CANARY-check,CANARY-from,CANARY-kept,\
CANARY-out-folder,CANARY-report,CANARY-results,CANARY-schema,CANARY-seed,CANARY-tasks,\
CANARY-template,CANARY-tool";

const TASKS: &str = r#"# CANARY-tasks
- id: hunt
  input: find the answers
  expected: none
  files_dir: seeds
  verify:
    - {file_equals: out.txt, from: expected.txt}
    - {json_schema: out.json, schema_file: schema.json}
    - {command: "python3 check.py"}
  tools:
    - name: refund
      script: python3 tool.py
"#;

/// A folder outside `/tmp`, which the namespace gets fresh (hiding anything there would
/// go unchecked): in the checkout, unless the checkout lies in `/tmp` itself.
pub fn host_folder() -> tempfile::TempDir {
    let checkout = root();
    let parent = [checkout.as_path(), Path::new("/var/tmp")]
        .into_iter()
        .find(|p| !p.starts_with("/tmp"))
        .unwrap();
    tempfile::Builder::new()
        .prefix(".hidden-files-")
        .tempdir_in(parent)
        .unwrap()
}

/// The `proctor init` layout with a canary in every grading file, and the hunter as
/// `agent.py` beside them.
fn layout(dir: &Path) {
    write(dir, "tasks.yaml", TASKS);
    std::fs::create_dir_all(dir.join("seeds")).unwrap();
    write(&dir.join("seeds"), "seed.txt", "CANARY-seed");
    write(dir, "expected.txt", "CANARY-from");
    write(dir, "schema.json", r#"{"$comment": "CANARY-schema"}"#);
    write(dir, "check.py", "# CANARY-check\n");
    write(dir, "tool.py", "# CANARY-tool\n");
    write(
        dir,
        "agents.yaml",
        "- name: hunter\n  command: python3 agent.py\n\
         - name: other\n  command: sh -c 'echo none'\n  env: {OTHER_KEY: CANARY-agents}\n",
    );
    write(dir, "earlier.jsonl", "{\"answer\": \"CANARY-results\"}\n");
    write(dir, "earlier.html", "<p>CANARY-report</p>\n");
    std::fs::create_dir_all(dir.join("results")).unwrap();
    write(
        &dir.join("results"),
        "yesterday.jsonl",
        "{\"answer\": \"CANARY-out-folder\"}\n",
    );
    std::fs::create_dir_all(dir.join("kept/earlier")).unwrap();
    write(&dir.join("kept/earlier"), "note.txt", "CANARY-kept");
    std::fs::create_dir_all(dir.join("cassette")).unwrap();
    write(
        &dir.join("cassette"),
        "answer.json",
        "{\"c\": \"CANARY-cassette\"}",
    );
    write(dir, "template.txt", "CANARY-template {{rubric}}");
    std::fs::copy(
        root().join("fixtures/agents/adversarial/canary_hunter.py"),
        dir.join("agent.py"),
    )
    .unwrap();
}

/// Runs the layout from inside its folder, with absolute paths (relative ones are
/// `honest_agents`' concern); the hunter's answers.
fn hunt(dir: &Path, isolate: &str) -> Vec<String> {
    let path = |name: &str| dir.join(name).display().to_string();
    let output = run(proctor()
        .current_dir(dir)
        .args(["run", "--tasks", &path("tasks.yaml")])
        .args(["--agents", &path("agents.yaml")])
        .args(["--out", &path("results/r.jsonl")])
        .args(["--keep", &path("kept")])
        .args(["--ledger", &path("ledger.csv")])
        .args(["--cassette", &path("cassette")])
        .args(["--judge-template", &path("template.txt")])
        .args(["--isolate", isolate, "--attempts", "2"])
        .timeout(Duration::from_secs(120)));
    let text = std::fs::read_to_string(dir.join("results/r.jsonl"))
        .unwrap_or_else(|e| panic!("no results ({e}): {}", output.stderr));
    let answers: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["label"] == "hunter")
        .map(|l| l["answer"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(answers.len(), 2, "{}", output.stderr);
    answers
}

#[test]
fn no_grading_file_is_readable_from_the_agents_folder() {
    let contained = namespaces();
    let dir = host_folder();
    layout(dir.path());
    for answer in hunt(dir.path(), "auto") {
        assert_eq!(
            answer,
            "none",
            "the agent read grading data ({})",
            if contained { "namespaces" } else { "fallback" }
        );
    }
}

/// The same hunter finds every canary without isolation: each file it must not read is
/// really there to be read.
#[test]
fn without_isolation_the_hunter_finds_every_canary() {
    let dir = host_folder();
    layout(dir.path());
    for answer in hunt(dir.path(), "none") {
        assert_eq!(answer, ALL);
    }
}

/// Under `--keep` (relative, as a user types it) the agent works in a randomly named folder:
/// `kept/refund@pushy/0` as its working folder would name its task and variant. The sandbox
/// is at its kept place once the attempt is over, for grading and for `grade --workdir`.
#[test]
fn a_kept_sandbox_takes_its_task_s_name_only_after_the_agent_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tasks.yaml",
        "- id: refund\n  input: refund A1\n  expected: done\n  verify: [{file_exists: cwd.txt}]\n  variants:\n    pushy: {prefix: 'Now. '}\n",
    );
    let agent = "python3 -c \"import json, os; open('cwd.txt', 'w').write(os.getcwd()); \
                 print(json.dumps({'status': 'final', 'answer': 'done'}))\"";
    let output = run(proctor()
        .current_dir(dir.path())
        .args([
            "run",
            "--tasks",
            "tasks.yaml",
            "--keep",
            "kept",
            "--out",
            "r.jsonl",
        ])
        .args(["--agent", agent]));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let kept = dir.path().join("kept");
    for task in ["refund", "refund@pushy"] {
        let seen = std::fs::read_to_string(kept.join(task).join("0").join("cwd.txt"))
            .unwrap_or_else(|e| panic!("{task} not kept ({e}): {}", output.stderr));
        let running = kept.join(".running").canonicalize().unwrap();
        assert!(
            Path::new(&seen).starts_with(&running),
            "{task}: worked in {seen}"
        );
        let name = Path::new(&seen).file_name().unwrap().to_str().unwrap();
        assert!(
            !name.contains("refund") && !name.contains("pushy") && name.len() >= 12,
            "{task}: worked in {seen}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(kept.join(".running")).unwrap().collect();
    assert!(left.is_empty(), "left running: {left:?}");
    let graded = run(proctor()
        .current_dir(dir.path())
        .args(["grade", "--tasks", "tasks.yaml", "--outcomes", "r.jsonl"])
        .args(["--workdir", "kept", "--format", "json"]));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let summary: Value = serde_json::from_str(&graded.stdout).unwrap();
    assert_eq!(summary["passed"], 2, "{}", graded.stdout);
}

/// A run killed outright (SIGKILL: no chance to clean up) leaves its running sandboxes in
/// `kept/.running`; the next run with the same `--keep` removes them, since no process holds
/// the killed run's lock any more.
#[test]
fn the_next_run_removes_the_running_sandboxes_of_a_killed_run() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tasks.yaml",
        "- id: slow\n  input: wait\n  expected: done\n",
    );
    let running = dir.path().join("kept").join(".running");
    let slow = "python3 -c \"import time; open('started', 'w').write('1'); time.sleep(5)\"";
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"))
        .current_dir(dir.path())
        .args([
            "run",
            "--tasks",
            "tasks.yaml",
            "--keep",
            "kept",
            "--agent",
            slow,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The agent has started once its sandbox (`.running/<run>/<attempt>`) holds its file.
    let started = || {
        let runs = std::fs::read_dir(&running).into_iter().flatten().flatten();
        runs.filter(|run| run.path().is_dir())
            .flat_map(|run| {
                std::fs::read_dir(run.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .any(|sandbox| sandbox.path().join("started").exists())
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !started() {
        assert!(
            std::time::Instant::now() < deadline,
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let left = std::fs::read_dir(&running).unwrap().count();
    assert_eq!(left, 2, "a killed run leaves its folder and its lock file");

    let quick =
        "python3 -c \"import json; print(json.dumps({'status': 'final', 'answer': 'done'}))\"";
    let output = run(proctor().current_dir(dir.path()).args([
        "run",
        "--tasks",
        "tasks.yaml",
        "--keep",
        "kept",
        "--agent",
        quick,
    ]));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let left: Vec<_> = std::fs::read_dir(&running).unwrap().collect();
    assert!(left.is_empty(), "left running: {left:?}");
    assert!(dir.path().join("kept/slow/0").is_dir(), "{}", output.stderr);
}

/// A variant's name (`@pushy`) would tell the agent it is being tested: it sees the base
/// id on stdin and in `PROCTOR_TASK_ID`, and the result keeps the variant.
#[test]
fn the_agent_sees_the_base_id_of_a_variant() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: refund\n  input: refund A1\n  expected: refund refund\n  variants:\n    pushy: {prefix: 'Now. '}\n",
    );
    let out = dir.path().join("r.jsonl");
    let agent = "python3 -c \"import json, os, sys; line = json.loads(sys.stdin.readline()); \
                 print(json.dumps({'status': 'final', 'answer': os.environ['PROCTOR_TASK_ID'] + ' ' + line['task_id']}))\"";
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", agent, "--out"])
        .arg(&out));
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("no results ({e}): {}", output.stderr))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut seen: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| (l["task"].as_str().unwrap(), l["answer"].as_str().unwrap()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("refund", "refund refund"),
            ("refund@pushy", "refund refund")
        ],
        "{}",
        output.stderr
    );
}
