//! The agent's view of the machine under bubblewrap (`bwrap`, the sandbox tool
//! Flatpak uses): its own user, mount, PID and IPC namespaces; the file system
//! read-only; the sandbox, `HOME`, `TMPDIR` and the outcome folder writable; a
//! private `/tmp` and `/proc`; the grading data and the user's home hidden.
//!
//! Arguments reach bwrap through a descriptor (`--args FD`, see `entry`), so the
//! agent cannot read the list of hidden paths from its parent's command line.

use std::path::{Path, PathBuf};

/// Everything one attempt's view is made of.
#[derive(Debug)]
pub struct View<'a> {
    /// Hidden: replaced by an empty folder (or an empty file).
    pub hidden: &'a [PathBuf],
    /// Shown read-only again inside hidden folders (the agent's program, its
    /// interpreter, `--isolate-allow`).
    pub visible: &'a [PathBuf],
    /// Shown read-only wherever they lie: the sockets into a `network: none`
    /// namespace and the forwarder's program.
    pub forwarding: &'a [&'a Path],
    /// Writable, at the same path as on the host.
    pub writable: &'a [&'a Path],
    pub working_dir: &'a Path,
    pub network: bool,
}

/// bwrap's arguments for `view`, up to and including `--`.
pub fn arguments(view: &View<'_>) -> Vec<String> {
    let mut args: Vec<String> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/dev/shm",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    if !view.network {
        args.push("--unshare-net".to_owned());
    }
    hide(&mut args, view.hidden);
    for path in view.visible {
        if path.exists() {
            push(&mut args, "--ro-bind", path, path);
        }
    }
    // Shown folders may hold hidden files: hide those again.
    let inside: Vec<PathBuf> = view
        .hidden
        .iter()
        .filter(|h| view.visible.iter().any(|v| h.starts_with(v) && *h != v))
        .cloned()
        .collect();
    hide(&mut args, &inside);
    for path in view.forwarding {
        push(&mut args, "--ro-bind", path, path);
    }
    for path in view.writable {
        push(&mut args, "--bind", path, path);
    }
    args.push("--chdir".to_owned());
    args.push(view.working_dir.to_string_lossy().into_owned());
    args.push("--".to_owned());
    args
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

    #[test]
    fn hidden_files_inside_shown_folders_stay_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let tools = home.join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        let tasks = tools.join("tasks.yaml");
        std::fs::write(&tasks, "- id: x\n").unwrap();
        let sandbox = dir.path().join("sandbox");
        let hidden = [home.clone(), tasks.clone()];
        let visible = [tools.clone()];
        let args = arguments(&View {
            hidden: &hidden,
            visible: &visible,
            forwarding: &[],
            writable: &[&sandbox],
            working_dir: &sandbox,
            network: false,
        });
        let text = args.join(" ");
        let home_hidden = text.find(&format!("--tmpfs {}", home.display())).unwrap();
        let tools_shown = text
            .find(&format!(
                "--ro-bind {} {}",
                tools.display(),
                tools.display()
            ))
            .unwrap();
        let tasks_hidden = text
            .rfind(&format!("--ro-bind /dev/null {}", tasks.display()))
            .unwrap();
        assert!(
            home_hidden < tools_shown && tools_shown < tasks_hidden,
            "{text}"
        );
        assert!(text.contains("--unshare-net"));
        assert!(text.ends_with(&format!("--chdir {} --", sandbox.display())));
    }
}
