//! The agent's view of the machine under bubblewrap (`bwrap`, the sandbox tool
//! Flatpak uses): its own user, mount, PID and IPC namespaces, and a file system
//! composed from nothing (docs/agent-protocol.md, "What an agent sees"): the system's
//! runtime read-only, what its command needs read-only, its sandbox, `HOME`, `TMPDIR`
//! and outcome folder writable, a private `/tmp`, `/dev` and `/proc`. Grading data
//! inside a shown folder is hidden again.
//!
//! Every hidden path is a mount point the agent can list (`/proc/self/mountinfo`):
//! what is hidden is the content, not the name.

use super::runtime;
use std::path::{Path, PathBuf};

/// Everything one attempt's view is made of.
#[derive(Debug)]
pub struct View<'a> {
    /// Shown read-only besides the runtime (the command's program and scripts, its
    /// interpreter, `--isolate-allow`).
    pub shown: &'a [PathBuf],
    /// Hidden inside what is shown: replaced by an empty folder (or an empty file).
    pub hidden: &'a [PathBuf],
    /// Shown read-only after everything is hidden: the sockets into a `network: none`
    /// namespace and the forwarder's program, a command check's own files.
    pub forwarding: &'a [&'a Path],
    /// Writable, at the same path as on the host.
    pub writable: &'a [&'a Path],
    /// The run's copy of the shown part of `/etc` (`runtime::copy_etc`), bound at `/etc`
    /// in one mount; without one, each entry is bound on its own.
    pub etc: Option<&'a Path>,
    /// A host folder shown as `/tmp`, writable (under `--max-disk`, so that what the
    /// agent writes there counts in its one budget); without one, `/tmp` is a fresh tmpfs.
    pub tmp: Option<&'a Path>,
    pub working_dir: &'a Path,
    pub network: bool,
}

/// bwrap's arguments for `view`, up to and including `--`. Every mount costs bwrap a
/// pass over the mount table, and attempts wait for it: a path is hidden only where it
/// would be in sight, and shown only where it is not in sight already.
pub fn arguments(view: &View<'_>) -> Vec<String> {
    let mut args = namespaces(view);
    runtime_mounts(&mut args, view);
    shown_and_hidden(&mut args, view);
    for path in view.forwarding {
        push(&mut args, "--ro-bind", path, path);
    }
    for path in view.writable {
        push(&mut args, "--bind", path, path);
    }
    // The composed root itself: nothing may be written there.
    args.extend(["--remount-ro".to_owned(), "/".to_owned()]);
    args.push("--chdir".to_owned());
    args.push(view.working_dir.to_string_lossy().into_owned());
    args.push("--".to_owned());
    args
}

/// The namespaces, and the attempt's own `/dev`, `/proc` and `/tmp`.
fn namespaces(view: &View<'_>) -> Vec<String> {
    let mut args: Vec<String> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        // No controlling terminal: the agent cannot push input into the user's (TIOCSTI).
        "--new-session",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    match view.tmp {
        Some(host) => push(&mut args, "--bind", host, Path::new("/tmp")),
        None => args.extend(["--tmpfs".to_owned(), "/tmp".to_owned()]),
    }
    if !view.network {
        args.push("--unshare-net".to_owned());
    }
    args
}

/// The system's runtime, read-only: `/etc`'s shown part as the run's one copy when it
/// can be, else entry by entry.
fn runtime_mounts(args: &mut Vec<String>, view: &View<'_>) {
    // A path shown under /etc needs a mount point there, which the read-only copy cannot
    // take: then /etc is bound entry by entry.
    let under_etc = |p: &Path| p.starts_with("/etc");
    let etc_copy = view.etc.filter(|_| {
        !view.shown.iter().any(|p| under_etc(p))
            && !view.forwarding.iter().any(|p| under_etc(p))
            && !view.writable.iter().any(|p| under_etc(p))
    });
    if let Some(etc) = etc_copy {
        push(args, "--ro-bind", etc, Path::new("/etc"));
    }
    let bound_whole = |path: &Path| etc_copy.is_some() && path.starts_with("/etc");
    for entry in runtime::entries().iter().filter(|e| !bound_whole(e.path())) {
        match entry {
            runtime::Entry::Shown(path) => push(args, "--ro-bind", path, path),
            runtime::Entry::Link { path, target } => push(args, "--symlink", target, path),
        }
    }
}

/// What the command needs, read-only, with the grading data inside it hidden, and what
/// is shown inside the hidden shown again.
fn shown_and_hidden(args: &mut Vec<String>, view: &View<'_>) {
    let hidden = |path: &Path| view.hidden.iter().any(|h| path.starts_with(h));
    let in_runtime = |path: &Path| runtime::holds(path) && !hidden(path);
    // Outermost first: a folder shown inside another shown one is in sight already,
    // unless something hidden between them covers it (shown again after the hiding).
    let mut shown: Vec<&PathBuf> = view.shown.iter().collect();
    shown.sort_by_key(|p| p.components().count());
    let covered = |path: &Path, by: &[&PathBuf]| {
        by.iter()
            .any(|s| path.starts_with(s) && path != s.as_path())
    };
    let first: Vec<&PathBuf> = shown
        .iter()
        .filter(|p| !in_runtime(p) && !covered(p, &shown) && !hidden(p))
        .copied()
        .collect();
    for path in &first {
        if path.exists() {
            push(args, "--ro-bind", path, path);
        }
    }
    // Hidden where it would be seen: inside a shown folder or the runtime, and not
    // inside another hidden path (which hides it already).
    let in_sight = |path: &Path| {
        runtime::holds(path) || covered(path, &shown) || shown.iter().any(|s| path == s.as_path())
    };
    let outer_hidden: Vec<PathBuf> = view
        .hidden
        .iter()
        .filter(|h| in_sight(h))
        .filter(|h| !view.hidden.iter().any(|o| h.starts_with(o) && *h != o))
        .cloned()
        .collect();
    hide(args, &outer_hidden);
    // Shown again inside what was hidden, then what is hidden inside those.
    // Strictly inside: a shown path that is itself hidden stays hidden.
    let again: Vec<&PathBuf> = shown
        .iter()
        .filter(|p| {
            view.hidden
                .iter()
                .any(|h| p.starts_with(h) && p.as_path() != h)
        })
        .filter(|p| !view.hidden.contains(p))
        .copied()
        .collect();
    for path in &again {
        if path.exists() {
            push(args, "--ro-bind", path, path);
        }
    }
    let inside_again: Vec<PathBuf> = view
        .hidden
        .iter()
        .filter(|h| again.iter().any(|a| h.starts_with(a) && h != a))
        .cloned()
        .collect();
    hide(args, &inside_again);
}

fn hide(args: &mut Vec<String>, hidden: &[PathBuf]) {
    for path in hidden {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => {
                args.push("--tmpfs".to_owned());
                args.push(path.to_string_lossy().into_owned());
            }
            Ok(_) => push(args, "--ro-bind", Path::new("/dev/null"), path),
            Err(_) => {}
        }
    }
}

fn push(args: &mut Vec<String>, option: &str, source: &Path, target: &Path) {
    args.push(option.to_owned());
    args.push(source.to_string_lossy().into_owned());
    args.push(target.to_string_lossy().into_owned());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view_args(shown: &[PathBuf], hidden: &[PathBuf], sandbox: &Path) -> Vec<String> {
        arguments(&View {
            shown,
            hidden,
            forwarding: &[],
            writable: &[sandbox],
            etc: None,
            tmp: None,
            working_dir: sandbox,
            network: false,
        })
    }

    #[test]
    fn the_root_is_composed_and_never_the_hosts() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = dir.path().join("sandbox");
        let args = view_args(&[], &[], &sandbox);
        let text = args.join(" ");
        assert!(!text.contains("--ro-bind / /"), "{text}");
        assert!(!text.contains("--bind / /"), "{text}");
        assert!(text.contains("--ro-bind /usr /usr"), "{text}");
        assert!(!text.contains("/etc/shadow"), "{text}");
        for absent in ["/srv", "/opt", "/var", "/home", "/root", "/mnt"] {
            assert!(
                !args.iter().any(|a| Path::new(a).starts_with(absent)),
                "{absent} in {text}"
            );
        }
        assert!(text.contains("--unshare-net"));
        assert!(text.ends_with(&format!("--remount-ro / --chdir {} --", sandbox.display())));
    }

    #[test]
    fn hidden_files_inside_shown_folders_stay_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let results = project.join("results");
        std::fs::create_dir_all(&results).unwrap();
        let tasks = project.join("tasks.yaml");
        std::fs::write(&tasks, "- id: x\n").unwrap();
        let elsewhere = dir.path().join("elsewhere.jsonl");
        std::fs::write(&elsewhere, "").unwrap();
        let sandbox = dir.path().join("sandbox");
        let hidden = [tasks.clone(), results.clone(), elsewhere.clone()];
        let args = view_args(std::slice::from_ref(&project), &hidden, &sandbox);
        let text = args.join(" ");
        let shown_at = text
            .find(&format!(
                "--ro-bind {} {}",
                project.display(),
                project.display()
            ))
            .unwrap();
        let tasks_at = text
            .find(&format!("--ro-bind /dev/null {}", tasks.display()))
            .unwrap();
        let results_at = text
            .find(&format!("--tmpfs {}", results.display()))
            .unwrap();
        assert!(shown_at < tasks_at && shown_at < results_at, "{text}");
        // Out of sight already: no mount.
        assert!(!args.iter().any(|a| Path::new(a) == elsewhere), "{text}");
    }

    #[test]
    fn a_folder_shown_inside_a_hidden_one_is_shown_again_without_its_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let kept = project.join("kept");
        let tools = kept.join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        let secret = tools.join("old.jsonl");
        std::fs::write(&secret, "").unwrap();
        let sandbox = dir.path().join("sandbox");
        let shown = [project.clone(), tools.clone()];
        let hidden = [kept.clone(), secret.clone()];
        let args = view_args(&shown, &hidden, &sandbox);
        let text = args.join(" ");
        let kept_at = text.find(&format!("--tmpfs {}", kept.display())).unwrap();
        let tools_at = text
            .find(&format!(
                "--ro-bind {} {}",
                tools.display(),
                tools.display()
            ))
            .unwrap();
        let secret_at = text
            .rfind(&format!("--ro-bind /dev/null {}", secret.display()))
            .unwrap();
        assert!(kept_at < tools_at && tools_at < secret_at, "{text}");
    }
}
