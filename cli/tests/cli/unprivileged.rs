//! The fallback as a user without privileges (docs/agent-protocol.md; README, "Containing
//! the agent"): no cgroup can be made, so memory is bounded per process, and that limit
//! must leave an honest interpreter room to start; a process limit, which would count
//! every process of the user together, is refused before any agent starts; and one
//! attempt's clean-up never takes another attempt's helper. Run as root, each test drops
//! to `nobody` (setpriv); run as another user, as that user.

use crate::common::run;
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The uid and gid of `nobody`.
const NOBODY: &str = "65534";

pub fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// A folder `nobody` owns, outside HOME and /tmp.
pub fn their_folder() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(".proctor-unprivileged-")
        .tempdir_in("/var/tmp")
        .unwrap();
    if is_root() {
        let chowned = std::process::Command::new("chown")
            .args([
                &format!("{NOBODY}:{NOBODY}"),
                &dir.path().display().to_string(),
            ])
            .status()
            .unwrap();
        assert!(chowned.success());
    }
    dir
}

/// The proctor binary where the user can run it: the build's own when every folder
/// above it is open to others, else a copy in `dir`.
fn reachable_proctor(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let built = assert_cmd::cargo::cargo_bin("proctor");
    let open = built
        .ancestors()
        .skip(1)
        .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0));
    if open || !is_root() {
        return built;
    }
    let copy = dir.join("proctor");
    if std::fs::hard_link(&built, &copy).is_err() {
        std::fs::copy(&built, &copy).unwrap();
    }
    copy
}

/// The command that starts proctor (the program itself, so that its PID is proctor's) as
/// `nobody` when run as root, else as this user, with `dir` as its HOME.
pub fn as_unprivileged(dir: &Path) -> std::process::Command {
    let proctor = reachable_proctor(dir);
    let mut command = if is_root() {
        let mut command = std::process::Command::new("setpriv");
        command.args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
        ]);
        command.arg(proctor);
        command
    } else {
        std::process::Command::new(proctor)
    };
    command.env("HOME", dir);
    command
}

/// `proctor ARGS` in `dir`, as `nobody` when run as root, in the fallback.
fn proctor_unprivileged(dir: &Path) -> Command {
    let mut command = Command::from_std(as_unprivileged(dir));
    command
        .current_dir(dir)
        .env("PROCTOR_BWRAP", "/nonexistent")
        .timeout(Duration::from_secs(300));
    command
}

fn tasks(dir: &Path, count: usize) -> PathBuf {
    let path = dir.join("tasks.jsonl");
    let text: String = (0..count)
        .map(|i| {
            format!("{{\"id\": \"t{i:04}\", \"input\": \"answer ok\", \"expected\": \"ok\"}}\n")
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    if is_root() {
        let _ = std::process::Command::new("chown")
            .args([&format!("{NOBODY}:{NOBODY}"), &path.display().to_string()])
            .status();
    }
    path
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The system's Python (never one under root's home, which `nobody` cannot open).
fn system_python() -> &'static str {
    "/usr/bin/python3"
}

#[test]
fn an_honest_interpreter_starts_under_a_small_memory_limit() {
    let dir = their_folder();
    let tasks = tasks(dir.path(), 1);
    let python = system_python();
    let output = run(proctor_unprivileged(dir.path())
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--max-memory", "256M", "--out", "r.jsonl"])
        .arg("--agent")
        .arg(format!("honest={python} -c \"print('ok')\""))
        .arg("--agent")
        .arg(format!(
            "greedy={python} -c \"exec('try: x = bytearray(600 << 20); print(1)\\nexcept MemoryError: print(2)')\""
        )));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let lines = lines(&dir.path().join("r.jsonl"));
    let of = |label: &str| lines.iter().find(|l| l["label"] == label).unwrap().clone();
    assert_eq!(
        of("honest")["passed"],
        true,
        "{}\n{}",
        of("honest"),
        output.stderr
    );
    let greedy = of("greedy");
    assert_eq!(greedy["passed"], false, "{greedy}");
    // Refused the memory, and said so: the limit held for it.
    assert_eq!(greedy["answer"], "2", "{greedy}");
}

#[test]
fn a_process_limit_without_a_cgroup_is_refused_before_any_agent_starts() {
    let dir = their_folder();
    let tasks = tasks(dir.path(), 1);
    let marker = dir.path().join("started");
    let output = run(proctor_unprivileged(dir.path())
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--max-procs", "64", "--out", "r.jsonl"])
        .arg("--agent")
        .arg(format!("sh -c 'touch {}; echo ok'", marker.display())));
    if !is_root() && !output.stderr.contains("--max-procs 64: no cgroup") {
        // A user with a cgroup delegated to it has a real per-attempt limit.
        crate::skips::skip("a cgroup can be made here, so a process limit is not refused");
        eprintln!("{}", output.stderr);
        return;
    }
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("--max-procs 64: no cgroup can be made here"),
        "{}",
        output.stderr
    );
    assert!(!marker.exists(), "an agent started");
    assert!(!dir.path().join("r.jsonl").exists());
}

/// 1000 attempts of an agent that exits at once, two at a time: every one passes (a
/// clean-up that took another attempt's helper for an orphan failed 2-3% of them).
#[test]
fn no_attempt_is_hurt_by_another_attempts_clean_up() {
    let dir = their_folder();
    let tasks = tasks(dir.path(), 200);
    let output = run(proctor_unprivileged(dir.path())
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--attempts", "5", "--jobs", "2", "--out", "r.jsonl"])
        .args(["--agent", "/bin/echo ok"]));
    let lines = lines(&dir.path().join("r.jsonl"));
    let failed: Vec<&Value> = lines.iter().filter(|l| l["passed"] != true).collect();
    assert_eq!(lines.len(), 1000, "{}", output.stderr);
    assert!(
        failed.is_empty(),
        "{} of 1000 failed, the first: {}",
        failed.len(),
        failed[0]
    );
    assert_eq!(output.code, 0, "{}", output.stderr);
}
