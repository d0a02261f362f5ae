//! Cgroups left behind by a run that could not remove them: one killed with SIGKILL (a
//! scheduler's time limit on a shell that did not `exec` proctor, the out-of-memory
//! killer) leaves its `proctor-PID` group and its attempts' groups. A later run in the
//! same group removes them before making its own (docs/cluster.md): they hold memory
//! and process limits, and a reused process id would otherwise find its name taken.

use std::io;
use std::path::Path;
use std::time::Duration;

/// The prefix of a run's group name; the rest is the run's process id.
pub const RUN_GROUP_PREFIX: &str = "proctor-";

/// Removes every `proctor-PID` group under `parent` whose run is gone: its process id
/// is not `running` (or is this process's own, reused). Processes still in such a group
/// (an agent that outlived its run) are killed. Returns the groups removed.
pub fn remove_stale(parent: &Path, own_pid: u32, running: impl Fn(u32) -> bool) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(RUN_GROUP_PREFIX)
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != own_pid && running(pid) {
            continue;
        }
        if remove_group(&entry.path()).is_ok() {
            removed.push(name);
        }
    }
    removed
}

/// True when `pid` is a live proctor process.
pub fn is_proctor(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim() == "proctor")
}

/// Removes a run's group: each attempt group below it first, its processes killed.
fn remove_group(group: &Path) -> io::Result<()> {
    if let Ok(children) = std::fs::read_dir(group) {
        for child in children.flatten() {
            if child.file_type().is_ok_and(|t| t.is_dir()) {
                kill_members(&child.path());
                remove_dir_patiently(&child.path())?;
            }
        }
    }
    kill_members(group);
    remove_dir_patiently(group)
}

/// Kills the processes of a group: at once through `cgroup.kill` (cgroup v2, Linux 5.14
/// and later), else one by one from `cgroup.procs`.
fn kill_members(group: &Path) {
    // Opened, never created: only a cgroup v2 group has the file.
    let killed = std::fs::OpenOptions::new()
        .write(true)
        .open(group.join("cgroup.kill"))
        .and_then(|mut file| std::io::Write::write_all(&mut file, b"1"));
    if killed.is_ok() {
        return;
    }
    let Ok(procs) = std::fs::read_to_string(group.join("cgroup.procs")) else {
        return;
    };
    for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
        if pid > 1 {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// A group can be removed only once its killed processes are gone: a moment later.
fn remove_dir_patiently(dir: &Path) -> io::Result<()> {
    let mut last = Ok(());
    for _ in 0..100 {
        last = std::fs::remove_dir(dir);
        if last.is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_gone_runs_go_and_those_of_running_runs_stay() {
        let parent = tempfile::tempdir().unwrap();
        for name in [
            "proctor-41/attempt-00ff",
            "proctor-42/attempt-0a0a",
            "proctor-43",
            "proctor-x/attempt-1",
            "other",
        ] {
            std::fs::create_dir_all(parent.path().join(name)).unwrap();
        }
        // 41 is gone, 42 runs, 43 is this process's own id, reused.
        let mut removed = remove_stale(parent.path(), 43, |pid| pid == 42 || pid == 43);
        removed.sort();
        assert_eq!(removed, ["proctor-41", "proctor-43"]);
        let mut left: Vec<String> = std::fs::read_dir(parent.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["other", "proctor-42", "proctor-x"]);
    }

    #[test]
    fn only_a_proctor_process_counts_as_a_running_run() {
        assert!(
            !is_proctor(std::process::id()),
            "a test binary is not proctor"
        );
        assert!(!is_proctor(u32::MAX));
    }
}
