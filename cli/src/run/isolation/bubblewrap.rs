//! The agent's view of the machine under bubblewrap (`bwrap`, the sandbox tool
//! Flatpak uses): its own user, mount, PID and IPC namespaces; the file system
//! read-only; the sandbox, `HOME`, `TMPDIR` and the outcome folder writable; a
//! private `/tmp` and `/proc`; the grading data and the user's home hidden.
//!
//! Every hidden path is a mount point the agent can list (`/proc/self/mountinfo`):
//! what is hidden is the content, not the name.

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
    /// With a size (`--max-disk`): `HOME` and `TMPDIR` as fresh tmpfs mounts of that
    /// size at the same path, and `/tmp` of that size too; without one, `scratch` is
    /// bound writable like `writable`.
    pub scratch: &'a [&'a Path],
    pub scratch_size: Option<u64>,
    pub working_dir: &'a Path,
    pub network: bool,
}

/// Folders the namespace gets fresh (`--dev`, `--proc`, `--tmpfs`): nothing of the
/// host's shows in them, so nothing there needs hiding, and what is shown there must be
/// mounted. (`--dev` makes `/dev/shm` an empty folder of its private `/dev`.)
const FRESH: [&str; 3] = ["/dev", "/proc", "/tmp"];

/// bwrap's arguments for `view`, up to and including `--`. Every mount costs bwrap a
/// pass over the mount table, and attempts wait for it: paths already out of sight
/// (inside a fresh folder or a hidden one) are not hidden again, and paths in plain
/// view are not shown again.
pub fn arguments(view: &View<'_>) -> Vec<String> {
    let mut args: Vec<String> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        // No controlling terminal: the agent cannot push input into the user's (TIOCSTI).
        "--new-session",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    tmpfs(&mut args, Path::new("/tmp"), view.scratch_size);
    if !view.network {
        args.push("--unshare-net".to_owned());
    }
    let fresh = |path: &Path| FRESH.iter().any(|f| path.starts_with(f));
    let hidden_dirs: Vec<&PathBuf> = view.hidden.iter().filter(|h| h.is_dir()).collect();
    let below_hidden = |path: &Path| {
        hidden_dirs
            .iter()
            .any(|h| path.starts_with(h) && path != *h)
    };
    let outermost: Vec<PathBuf> = view
        .hidden
        .iter()
        .filter(|h| !fresh(h) && !below_hidden(h))
        .cloned()
        .collect();
    hide(&mut args, &outermost);
    let out_of_sight = |path: &Path| fresh(path) || view.hidden.iter().any(|h| path.starts_with(h));
    for path in view.visible {
        if out_of_sight(path) && path.exists() {
            push(&mut args, "--ro-bind", path, path);
        }
    }
    // Shown folders may hold hidden files: hide those again.
    let inside: Vec<PathBuf> = view
        .hidden
        .iter()
        .filter(|h| {
            view.visible
                .iter()
                .any(|v| out_of_sight(v) && h.starts_with(v) && *h != v)
        })
        .cloned()
        .collect();
    hide(&mut args, &inside);
    for path in view.forwarding {
        if out_of_sight(path) {
            push(&mut args, "--ro-bind", path, path);
        }
    }
    for path in view.writable {
        push(&mut args, "--bind", path, path);
    }
    for path in view.scratch {
        match view.scratch_size {
            Some(size) => tmpfs(&mut args, path, Some(size)),
            None => push(&mut args, "--bind", path, path),
        }
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

/// A fresh tmpfs at `path`, of at most `size` bytes when given.
fn tmpfs(args: &mut Vec<String>, path: &Path, size: Option<u64>) {
    if let Some(size) = size {
        args.push("--size".to_owned());
        args.push(size.to_string());
    }
    args.push("--tmpfs".to_owned());
    args.push(path.to_string_lossy().into_owned());
}

fn push(args: &mut Vec<String>, option: &str, source: &Path, target: &Path) {
    args.push(option.to_owned());
    args.push(source.to_string_lossy().into_owned());
    args.push(target.to_string_lossy().into_owned());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder outside `/tmp` (which the namespace gets fresh), for paths that need
    /// hiding: beside the checkout, unless the checkout itself lies in a fresh folder.
    fn host_folder() -> tempfile::TempDir {
        let checkout = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let parent = [checkout, Path::new("/var/tmp")]
            .into_iter()
            .find(|p| !FRESH.iter().any(|f| p.starts_with(f)))
            .unwrap();
        tempfile::tempdir_in(parent).unwrap()
    }

    #[test]
    fn hidden_files_inside_shown_folders_stay_hidden() {
        let dir = host_folder();
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
            scratch: &[],
            scratch_size: None,
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

    #[test]
    fn what_is_out_of_sight_already_costs_no_mount() {
        let dir = host_folder();
        let home = dir.path().join("home");
        let inside_home = home.join("tasks.yaml");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(&inside_home, "").unwrap();
        let private = tempfile::tempdir().unwrap();
        let in_tmp = private.path().join("results.jsonl");
        std::fs::write(&in_tmp, "").unwrap();
        let shown_in_tmp = private.path().join("agent");
        std::fs::create_dir_all(&shown_in_tmp).unwrap();
        let hidden = [home.clone(), inside_home.clone(), in_tmp.clone()];
        let visible = [PathBuf::from("/usr/bin"), shown_in_tmp.clone()];
        let sandbox = private.path().join("sandbox");
        let args = arguments(&View {
            hidden: &hidden,
            visible: &visible,
            forwarding: &[],
            writable: &[&sandbox],
            scratch: &[],
            scratch_size: None,
            working_dir: &sandbox,
            network: true,
        });
        let mounts = |path: &Path| args.iter().filter(|a| Path::new(a) == path).count();
        // Inside a hidden folder, or in the namespace's own /tmp: hidden already.
        assert_eq!(mounts(&home), 1, "{args:?}");
        assert_eq!(mounts(&inside_home), 0, "{args:?}");
        assert_eq!(mounts(&in_tmp), 0, "{args:?}");
        // In plain view: shown already; in the fresh /tmp: shown by a mount.
        assert_eq!(mounts(Path::new("/usr/bin")), 0, "{args:?}");
        assert_eq!(mounts(&shown_in_tmp), 2, "{args:?}");
        assert!(!args.contains(&"--unshare-net".to_owned()));
    }
}
