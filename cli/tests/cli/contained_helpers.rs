//! The commands proctor starts for an attempt run contained like its agent (docs/agent-protocol.md):
//! `verify: command` checks and `script` tool backends get the minimal environment, cannot
//! write outside the sandbox (a check not even inside it), leave nothing running, read
//! their own files from the task's folder, and run a bounded number at once. Each test runs
//! in the mode this machine gives (`namespaces()` says which; CI runs both).

use crate::common::{Output, grade_kept, namespaces, proctor, results, root, run, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn adversary(name: &str) -> PathBuf {
    root().join("fixtures/agents/adversarial").join(name)
}

/// A folder outside `/tmp` (which a namespace gets fresh), so that a write the
/// containment let through would land on the host.
fn host_folder() -> tempfile::TempDir {
    tempfile::tempdir_in("/var/tmp").unwrap()
}

/// A `sleep` argument no other process on the machine uses, to find a daemon by.
pub fn daemon_seconds(tag: u32) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}{tag}.{nanos:09}", 70_000 + std::process::id() % 10_000)
}

/// Processes whose command line is `sleep SECONDS`.
fn sleepers(seconds: &str) -> Vec<String> {
    let wanted = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (cmdline == wanted.as_bytes()).then(|| entry.file_name().to_string_lossy().into())
        })
        .collect()
}

/// Fails when a `sleep SECONDS` is still alive a (generous) moment after the run ended.
pub fn assert_no_daemon(seconds: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sleepers(seconds).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left = sleepers(seconds);
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .args(["-9", pid])
            .status();
    }
    assert!(left.is_empty(), "a daemon outlived the run: {left:?}");
}

fn copy_fixture(from: &Path, to: &Path) -> PathBuf {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::copy(from, to).unwrap();
    to.to_owned()
}

fn run_agent(tasks: &Path, agent: &str, out: &Path, extra: &[&str]) -> Output {
    run(proctor()
        .args(["run", "--tasks"])
        .arg(tasks)
        .args(["--agent", agent, "--out"])
        .arg(out)
        .args(extra)
        .env("PROCTOR_TEST_CANARY", "sk-canary-command-check")
        .timeout(Duration::from_secs(240)))
}

#[test]
fn a_command_check_gets_no_secret_writes_nothing_and_leaves_nothing_running() {
    let _ = namespaces();
    let tasks_dir = tempfile::tempdir().unwrap();
    let outside = host_folder();
    copy_fixture(
        &adversary("check_escaper.sh"),
        &tasks_dir.path().join("escape.sh"),
    );
    let seconds = daemon_seconds(1);
    let tasks = write(
        tasks_dir.path(),
        "tasks.yaml",
        &format!(
            "- id: escape\n  input: x\n  verify:\n    - {{command: \"sh escape.sh {} {seconds}\", exit_code: 7}}\n",
            outside.path().display()
        ),
    );
    let out = tasks_dir.path().join("r.jsonl");
    let keep = tasks_dir.path().join("keep");
    let ran = run_agent(
        &tasks,
        "sh -c 'echo ok'",
        &out,
        &["--keep", keep.to_str().unwrap()],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let got = "(stderr: env=absent outside=denied sandbox=denied)";
    let line = &results(&out)[0];
    let reason = line["reasons"][0].as_str().unwrap();
    assert!(reason.ends_with(got), "{line}");
    assert!(!outside.path().join("written").exists());
    assert_no_daemon(&seconds);

    // Offline, against the kept sandbox, the same.
    let log = write(
        tasks_dir.path(),
        "log.jsonl",
        "{\"task\": \"escape\", \"status\": \"final\", \"answer\": \"ok\"}\n",
    );
    let graded = run(grade_kept(
        &tasks,
        &log,
        &keep.join("escape/0"),
        &tasks_dir.path().join("g.jsonl"),
    )
    .env("PROCTOR_TEST_CANARY", "sk-canary-command-check")
    .timeout(Duration::from_secs(120)));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let line = &results(&tasks_dir.path().join("g.jsonl"))[0];
    let reason = line["reasons"][0].as_str().unwrap();
    assert!(reason.ends_with(got), "{line}");
    assert!(!outside.path().join("written").exists());
    assert!(!keep.join("escape/0/check_mark").exists());
    assert_no_daemon(&seconds);
}

#[test]
fn a_check_the_agent_planted_in_its_sandbox_never_replaces_the_tasks_own() {
    let _ = namespaces();
    // Outside /tmp, so that only the hiding keeps the real check from the agent.
    let tasks_dir = host_folder();
    let real = "#!/bin/sh\necho \"the task's check\" >&2\nexit 1\n";
    for name in ["check.sh", "checks/verify.sh"] {
        let path = tasks_dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, real).unwrap();
        let mut mode = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        std::fs::set_permissions(&path, mode).unwrap();
    }
    let tasks = write(
        tasks_dir.path(),
        "tasks.yaml",
        "- id: planted\n  input: x\n  verify:\n    - {command: ./check.sh}\n    - {command: sh check.sh}\n    - {command: sh checks/verify.sh}\n",
    );
    let out = tasks_dir.path().join("r.jsonl");
    let agent = format!("sh {}", adversary("check_planter.sh").display());
    let real = tasks_dir.path().join("checks/verify.sh");
    let ran = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &agent, "--pass-env", "REAL_CHECK", "--out"])
        .arg(&out)
        .env("REAL_CHECK", &real)
        .timeout(Duration::from_secs(120)));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    assert_eq!(line["answer"], "planted", "{line}");
    assert_eq!(line["passed"], false, "{line}");
    let reasons = line["reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 3, "{line}");
    for reason in reasons {
        let reason = reason.as_str().unwrap();
        assert!(
            reason.ends_with("exit code 1, expected 0 (stderr: the task's check)"),
            "{reason}"
        );
    }
}

#[test]
fn a_python_check_imports_neither_a_module_the_agent_left_nor_fails_to_import_its_own() {
    let _ = namespaces();
    let tasks_dir = host_folder();
    // The task's own check script imports a helper module beside it.
    std::fs::create_dir(tasks_dir.path().join("checks")).unwrap();
    write(tasks_dir.path(), "checks/helper.py", "EXPECTED = False\n");
    write(
        tasks_dir.path(),
        "checks/report.py",
        "import json, sys\nfrom helper import EXPECTED\n\
         sys.exit(0 if json.load(open('out.json'))['ok'] is EXPECTED else 1)\n",
    );
    let tasks = write(
        tasks_dir.path(),
        "tasks.yaml",
        "- id: planted_module\n  input: x\n  verify:\n\
         \x20   - command: python3 -c \"import json, sys; sys.exit(0 if json.load(open('out.json'))['ok'] else 1)\"\n\
         \x20   - {command: python3 -m json.tool missing.json, exit_code: 2}\n\
         \x20   - command: python3 checks/report.py\n",
    );
    let out = tasks_dir.path().join("r.jsonl");
    let agent = format!("sh {}", adversary("module_planter.sh").display());
    let ran = run_agent(&tasks, &agent, &out, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    assert_eq!(line["answer"], "planted", "{line}");
    // The agent's `json.py` would have passed the first check (exit 0) and failed the
    // second (real `json.tool` exits 2 on a missing file); the real `json` does the
    // opposite, and the task's script still finds its helper.
    assert_eq!(line["passed"], false, "{line}");
    let reasons = line["reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "{line}");
    assert!(
        reasons[0]
            .as_str()
            .unwrap()
            .contains("exit code 1, expected 0"),
        "{line}"
    );
}

#[test]
fn a_flood_of_script_calls_runs_a_bounded_number_at_once_and_leaves_nothing() {
    let _ = namespaces();
    let tasks_dir = tempfile::tempdir().unwrap();
    let seconds = daemon_seconds(2);
    // Each call takes a lock file in the sandbox while it runs and notes how many it saw.
    write(
        tasks_dir.path(),
        "slow.sh",
        &format!(
            "#!/bin/sh\nlock=$(mktemp ./inflight.XXXXXX)\nls inflight.* | wc -l >> peaks\n\
             setsid sleep {seconds} >/dev/null 2>&1 </dev/null &\nsleep 0.2\nrm -f \"$lock\"\n\
             echo '{{\"ok\": true}}'\n"
        ),
    );
    let tasks = write(
        tasks_dir.path(),
        "tasks.yaml",
        "- id: flood\n  input: x\n  expected: 100 ok\n  tools:\n    - name: slow\n      script: sh slow.sh\n      timeout_s: 60\n",
    );
    let out = tasks_dir.path().join("r.jsonl");
    let keep = tasks_dir.path().join("keep");
    let agent = format!(
        "python3 {} flood 100 slow",
        adversary("tool_abuser.py").display()
    );
    // --jobs 2: at most 4 script calls at once across the run.
    let ran = run_agent(
        &tasks,
        &agent,
        &out,
        &[
            "--jobs",
            "2",
            "--timeout",
            "200",
            "--keep",
            keep.to_str().unwrap(),
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    assert_eq!(line["answer"], "100 ok", "{line}");
    let peaks: Vec<u64> = std::fs::read_to_string(keep.join("flood/0/peaks"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(peaks.len(), 100);
    let most = peaks.iter().max().unwrap();
    assert!(
        *most <= 4,
        "{most} script calls ran at once, expected at most 4"
    );
    assert_no_daemon(&seconds);
}

#[test]
fn a_script_following_an_agent_planted_symlink_cannot_write_the_host_file() {
    let _ = namespaces();
    let tasks_dir = tempfile::tempdir().unwrap();
    copy_fixture(
        &root().join("fixtures/tools/scripts/refund.py"),
        &tasks_dir.path().join("scripts/refund.py"),
    );
    let tasks = write(
        tasks_dir.path(),
        "tasks.yaml",
        "- id: linked\n  input: x\n  expected: x\n  tools:\n    - name: refund\n      script: python3 scripts/refund.py\n",
    );
    let host = host_folder();
    let target = write(host.path(), "host.json", "{\"refunded\": []}");
    let out = tasks_dir.path().join("r.jsonl");
    let agent = format!(
        "python3 {} symlink {} refund '{{\"order_id\": \"A1\"}}'",
        adversary("tool_abuser.py").display(),
        target.display()
    );
    let ran = run_agent(&tasks, &agent, &out, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "{\"refunded\": []}",
        "the script wrote through the link: {line}"
    );
    let answer = line["answer"].as_str().unwrap();
    assert!(answer.contains("\"isError\": true"), "{answer}");
}

#[test]
fn a_script_backend_gets_the_attempts_process_limit() {
    let _ = namespaces();
    let tasks_dir = tempfile::tempdir().unwrap();
    copy_fixture(
        &adversary("fork_bomb.py"),
        &tasks_dir.path().join("fork_bomb.py"),
    );
    let tasks = write(
        tasks_dir.path(),
        "tasks.yaml",
        "- id: forks\n  input: x\n  expected: x\n  tools:\n    - name: fork\n      script: python3 fork_bomb.py\n      timeout_s: 60\n",
    );
    let out = tasks_dir.path().join("r.jsonl");
    let agent = format!(
        "python3 {} call fork '{{}}'",
        adversary("tool_abuser.py").display()
    );
    let ran = run_agent(&tasks, &agent, &out, &["--max-procs", "10"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    let reply: Value = serde_json::from_str(line["answer"].as_str().unwrap()).unwrap();
    let started: u64 = reply["structuredContent"]["answer"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        started < 10,
        "{started} children started by a script under --max-procs 10"
    );
}
