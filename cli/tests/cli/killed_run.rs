//! A run killed with SIGKILL (a scheduler's time limit on a shell that did not `exec`
//! proctor) cannot remove its cgroups; the next run removes them and runs
//! (docs/cluster.md).

use crate::common::{proctor, results, run};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The folder under which a run as this user makes its process-limit groups: this
/// process's own group of the `pids` hierarchy (cgroup v1) or of the unified one (v2).
fn group_base() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let v1 = text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
        names
            .split(',')
            .any(|n| n == "pids")
            .then(|| Path::new("/sys/fs/cgroup/pids").join(path.trim_start_matches('/')))
    });
    let v2 = text.lines().find_map(|line| {
        let path = line.strip_prefix("0::")?;
        Path::new("/sys/fs/cgroup/cgroup.controllers")
            .exists()
            .then(|| Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/')))
    });
    v2.or(v1)
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waited 30 s for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_cgroups_of_a_killed_run_are_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let command = |agent: &str| {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"));
        cmd.current_dir(crate::common::root())
            .args(["run", "--tasks", "fixtures/run/misc.yaml"])
            .args(["--max-procs", "20", "--agent", agent, "--out"])
            .arg(&out);
        cmd
    };
    let mut killed = command("sh -c 'sleep 60'")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let group = group_base().map(|base| base.join(format!("proctor-{}", killed.id())));
    let made = group.as_ref().is_some_and(|group| {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) && !has_attempt(group) {
            std::thread::sleep(Duration::from_millis(50));
        }
        has_attempt(group)
    });
    killed.kill().unwrap();
    killed.wait().unwrap();
    let Some(group) = group.filter(|_| made) else {
        crate::skips::skip("no cgroup can be made here, so a killed run leaves none");
        return;
    };
    assert!(group.exists(), "SIGKILL leaves {}", group.display());
    let next = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml"])
        .args(["--max-procs", "20", "--agent", "sh -c 'echo ok'", "--out"])
        .arg(&out));
    assert_eq!(next.code, 0, "{}", next.stderr);
    assert!(
        next.stderr
            .contains("removed cgroups left by runs that were killed"),
        "{}",
        next.stderr
    );
    assert!(
        next.stderr.contains(&group.display().to_string()),
        "{}",
        next.stderr
    );
    wait_for("the group to be gone", || !group.exists());
    assert_eq!(results(&out).len(), 1);
}

/// True once the run's group holds an attempt's group: its agent has started.
fn has_attempt(group: &Path) -> bool {
    std::fs::read_dir(group).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("attempt-"))
    })
}
