//! Containment without namespaces (`--isolate auto` where bubblewrap is missing or
//! fails): what the kernel still offers an unprivileged process. The `__contain`
//! helper restricts itself with landlock (inherited by the agent), marks itself a
//! child subreaper and non-dumpable, starts the agent, and when the agent exits or
//! is told to stop, kills every descendant left, so that a process which called
//! setsid() does not outlive its attempt.

use anyhow::Context;
use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The variable that carries the view to the helper: the helper's environment is
/// unreadable to the agent (non-dumpable), its command line is not.
pub const VIEW_VARIABLE: &str = "PROCTOR_CONTAIN_VIEW";

/// The newest landlock ABI this code asks for.
const ABI_WANTED: ABI = ABI::V6;

/// How long after SIGTERM the helper waits for the agent before it kills every
/// descendant itself (proctor's own SIGKILL to the group follows later).
const TERM_GRACE_SECONDS: u32 = 1;

/// What one attempt may read and write.
#[derive(Debug, Serialize, Deserialize)]
pub struct View {
    pub hidden: Vec<PathBuf>,
    pub visible: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
}

/// What landlock offers on this kernel, checked once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// File-system rules (any ABI).
    pub filesystem: bool,
    /// Signals to processes outside the attempt refused (ABI 6).
    pub signals: bool,
}

impl Support {
    pub fn probe() -> Support {
        let filesystem = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(ABI::V1))
            .and_then(|r| r.create())
            .is_ok();
        let signals = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .scope(Scope::from_all(ABI::V6))
            .and_then(|r| r.create())
            .is_ok();
        Support {
            filesystem,
            signals,
        }
    }

    /// The one-line warning naming every protection that is missing.
    pub fn warning(&self, why: &str) -> String {
        let mut missing = vec![
            "no PID namespace: agents see host processes",
            "no network namespace: agents use the host network",
            "no private /tmp or /dev/shm",
        ];
        if !self.filesystem {
            missing.push(
                "no landlock: agents can read the task files and your home folder and write wherever you can",
            );
        } else if !self.signals {
            missing.push("landlock before ABI 6: agents can signal your other processes");
        }
        let kept = if self.filesystem {
            "landlock (read-only file system, hidden paths unreadable), a child subreaper, non-dumpable"
        } else {
            "a child subreaper, non-dumpable"
        };
        format!(
            "warning: --isolate auto: no namespaces ({why}); agents run with {kept}; missing: {}",
            missing.join("; ")
        )
    }
}

/// Paths readable under landlock: everything except `hidden`, then `visible`
/// again without what is hidden inside it. Landlock only grants, so a hidden
/// path's ancestors are not granted themselves: their other children are.
pub fn readable(hidden: &[PathBuf], visible: &[PathBuf]) -> Vec<PathBuf> {
    let mut granted = Vec::new();
    grant_around(Path::new("/"), hidden, &mut granted);
    for path in visible {
        grant_around(path, hidden, &mut granted);
    }
    granted.sort();
    granted.dedup();
    granted
}

/// Folders listable under landlock although hidden paths lie inside them: the
/// shown folders (the agent's own, its interpreter's, `--isolate-allow`), so that a
/// program can list its own folder (Python imports a module beside its script so).
/// Landlock grants listing to a whole tree: the names below such a folder can be
/// listed, the hidden files' contents still not read.
pub fn listable(hidden: &[PathBuf], visible: &[PathBuf]) -> Vec<PathBuf> {
    let mut listed: Vec<PathBuf> = visible
        .iter()
        .filter(|v| v.is_dir() && hidden.iter().any(|h| h.starts_with(v) && h != *v))
        .cloned()
        .collect();
    listed.sort();
    listed.dedup();
    listed
}

/// Grants `path` whole, or, where a hidden path lies inside it, its children
/// one by one around the hidden ones.
fn grant_around(path: &Path, hidden: &[PathBuf], granted: &mut Vec<PathBuf>) {
    if !hidden.iter().any(|h| h.starts_with(path) && h != path) {
        granted.push(path.to_owned());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let child = entry.path();
        // A rule holds the inode a link points to, which may be hidden; the link
        // itself needs no rule to be followed.
        if hidden.contains(&child) || entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        grant_around(&child, hidden, granted);
    }
}

/// Restricts this process (and what it starts) to `view`; says how far.
fn restrict(view: &View) -> anyhow::Result<RulesetStatus> {
    let read = AccessFs::from_read(ABI_WANTED);
    let all = AccessFs::from_all(ABI_WANTED);
    let mut writable = view.writable.clone();
    writable.extend(["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"].map(PathBuf::from));
    writable.retain(|p| p.exists());
    let status = Ruleset::default()
        .handle_access(all)?
        .scope(Scope::from_all(ABI_WANTED))?
        .create()?
        .add_rules(path_beneath_rules(
            // A dangling link, or an entry gone since it was listed, grants nothing.
            readable(&view.hidden, &view.visible)
                .into_iter()
                .filter(|p| p.exists()),
            read,
        ))?
        .add_rules(path_beneath_rules(
            listable(&view.hidden, &view.visible),
            BitFlags::from(AccessFs::ReadDir),
        ))?
        .add_rules(path_beneath_rules(writable, all))?
        .restrict_self()
        .context("landlock")?;
    Ok(status.ruleset)
}

/// Runs `program args` contained as described above; returns the agent's exit
/// status as the helper's own.
pub fn supervise(program: &str, args: &[String]) -> anyhow::Result<WaitStatus> {
    let _ = nix::sys::prctl::set_dumpable(false);
    nix::sys::prctl::set_child_subreaper(true).context("PR_SET_CHILD_SUBREAPER")?;
    if let Some(text) = std::env::var_os(VIEW_VARIABLE) {
        let view: View = serde_json::from_str(&text.to_string_lossy())
            .with_context(|| format!("{VIEW_VARIABLE} is not a view"))?;
        restrict(&view)?;
    }
    // Signals wait for the loop below; the agent starts with an empty mask (std
    // resets it in the child).
    let mut signals = SigSet::empty();
    for signal in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGALRM,
    ] {
        signals.add(signal);
    }
    signals.thread_block().context("sigprocmask")?;
    let agent = std::process::Command::new(program)
        .args(args)
        .env_remove(VIEW_VARIABLE)
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    let agent = Pid::from_raw(agent.id() as i32);
    let status = loop {
        match signals.wait().context("sigwait")? {
            Signal::SIGCHLD => {
                if let Some(status) = reap(agent) {
                    break status;
                }
            }
            Signal::SIGALRM => kill_descendants(),
            // The group got the signal too; the agent has a moment to stop.
            _ => {
                nix::unistd::alarm::set(TERM_GRACE_SECONDS);
            }
        }
    };
    kill_descendants();
    Ok(status)
}

/// Ends the helper as the agent ended: its exit code, or its signal.
pub fn end_as(status: WaitStatus) -> ! {
    if let WaitStatus::Signaled(_, signal, _) = status {
        let _ = SigSet::all().thread_unblock();
        let _ = nix::sys::signal::raise(signal);
        std::process::exit(128 + signal as i32);
    }
    match status {
        WaitStatus::Exited(_, code) => std::process::exit(code),
        _ => std::process::exit(1),
    }
}

/// Reaps every child that has ended; the agent's status once it is among them.
fn reap(agent: Pid) -> Option<WaitStatus> {
    let mut found = None;
    while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
        match status {
            WaitStatus::StillAlive => break,
            status if status.pid() == Some(agent) => found = Some(status),
            _ => {}
        }
    }
    found
}

/// SIGKILL to every process below this one until none is left. Killed parents'
/// children come to this subreaper, so each round finds what the last one left.
fn kill_descendants() {
    let me = std::process::id() as i32;
    loop {
        let below = descendants(me);
        if below.is_empty() {
            // Reap what the last round killed.
            while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                if status == WaitStatus::StillAlive {
                    break;
                }
            }
            return;
        }
        for pid in &below {
            let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
        }
        // Blocks until one of them is reaped; ECHILD ends the rounds.
        if waitpid(None, None).is_err() {
            return;
        }
    }
}

/// Every live process whose chain of parents leads to `root`, from /proc.
fn descendants(root: i32) -> Vec<i32> {
    let mut parents: Vec<(i32, i32)> = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if let Some(parent) = parent_of(pid) {
            parents.push((pid, parent));
        }
    }
    let mut found = vec![root];
    let mut index = 0;
    while index < found.len() {
        let parent = found[index];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        index += 1;
    }
    found.remove(0);
    found
}

/// The parent in `/proc/PID/stat` (after the command name, which may hold
/// spaces and parentheses); zombies are left to waitpid.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" {
        return None;
    }
    fields.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_paths_are_granted_around_and_shown_folders_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let tools = home.join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(home.join("secret"), "x").unwrap();
        std::fs::write(tools.join("tasks.yaml"), "x").unwrap();
        std::fs::write(tools.join("agent.py"), "x").unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::os::unix::fs::symlink(tools.join("tasks.yaml"), root.join("link")).unwrap();
        let hidden = [home.clone(), tools.join("tasks.yaml")];
        let granted = readable(&hidden, std::slice::from_ref(&tools));
        assert!(granted.contains(&root.join("other")), "{granted:?}");
        assert!(granted.contains(&tools.join("agent.py")), "{granted:?}");
        for path in [
            &home,
            &home.join("secret"),
            &tools,
            &tools.join("tasks.yaml"),
        ] {
            assert!(
                !granted.iter().any(|g| path.starts_with(g)),
                "{} readable: {granted:?}",
                path.display()
            );
        }
        assert!(!granted.iter().any(|g| g == Path::new("/")));
        assert!(!granted.contains(&root.join("link")), "{granted:?}");
    }

    #[test]
    fn shown_folders_holding_hidden_files_stay_listable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let agent = root.join("agent");
        let plain = root.join("plain");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&plain).unwrap();
        std::fs::write(agent.join("tasks.yaml"), "x").unwrap();
        let hidden = [agent.join("tasks.yaml"), root.join("results.jsonl")];
        let listed = listable(&hidden, &[agent.clone(), plain.clone()]);
        // `plain` holds nothing hidden: it is readable whole already.
        assert_eq!(listed, [agent]);
    }
}
