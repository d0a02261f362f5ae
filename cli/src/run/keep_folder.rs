//! The `--keep` folder of a run. Sandboxes are made in this run's own folder under
//! `<keep>/.running` and moved to their kept places once their attempts end
//! (`AttemptFolders::keep` in the sandbox module). The run holds an exclusive `flock` on
//! `<keep>/.running/<name>.lock` beside its folder for as long as it runs; the kernel lets go
//! of it when the process ends however it ends, so a later run removes the folders of a run
//! that was killed (SIGKILL, an out-of-memory kill), whose locks nobody holds, instead of
//! leaving them to fill the disk. Several runs may share one `--keep` folder at once.

use std::fs::File;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The folder of `--keep` where sandboxes are while their attempts run, each under a random
/// name: a working folder named for its task and variant (`refund@injected/0`) would tell
/// the agent what is being tested. No task or agent folder starts with a dot
/// (the sandbox's `path_component` escapes a leading one), so it meets none of them.
pub const RUNNING: &str = ".running";

/// A file in every `--keep` folder saying what the folder is, so that proctor knows one
/// when an agent would see it (its sandboxes and tool state are grading data), wherever
/// it lies and even once its [`RUNNING`] folder is gone.
pub const MARKER: &str = ".proctor-keep";

/// What [`MARKER`] says, for whoever opens it.
const MARKER_TEXT: &str =
    "This folder holds sandboxes kept by `proctor run --keep`; proctor hides it from agents.\n";

/// The end of the name of each run's lock file in [`RUNNING`].
const LOCK_SUFFIX: &str = ".lock";

/// A run's `--keep` folder and its own folder of running sandboxes, removed (with its lock
/// file) when the run ends.
#[derive(Debug)]
pub struct KeepFolder {
    root: PathBuf,
    running: PathBuf,
    lock_path: PathBuf,
    /// Holds the lock while the run lasts; closing it lets go.
    _lock: File,
}

impl KeepFolder {
    /// Makes this run's folder of running sandboxes in `<root>/.running`, after removing
    /// those of runs that ended without removing theirs.
    pub fn open(root: &Path) -> io::Result<KeepFolder> {
        let running_root = root.join(RUNNING);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&running_root)?;
        remove_abandoned(&running_root);
        let marker = root.join(MARKER);
        if std::fs::symlink_metadata(&marker).is_err() {
            std::fs::write(&marker, MARKER_TEXT)?;
        }
        // The lock first, then the folder it stands for, so that a run starting now never
        // finds the folder without its lock file. (A run that looks in the instant between
        // making the file and locking it removes that file only; the folder is then this
        // run's to remove, as it does when it ends.)
        let lock = tempfile::Builder::new()
            .prefix("")
            .suffix(LOCK_SUFFIX)
            .rand_bytes(12)
            .tempfile_in(&running_root)?;
        lock.as_file()
            .try_lock()
            .map_err(|e| io::Error::other(format!("cannot lock {}: {e}", lock.path().display())))?;
        let (lock, lock_path) = lock.keep().map_err(|e| e.error)?;
        let running = folder_of(&lock_path);
        if let Err(error) = std::fs::DirBuilder::new().mode(0o700).create(&running) {
            let _ = std::fs::remove_file(&lock_path);
            return Err(error);
        }
        Ok(KeepFolder {
            root: root.to_owned(),
            running,
            lock_path,
            _lock: lock,
        })
    }

    /// The `--keep` folder, where sandboxes are kept.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This run's folder of running sandboxes.
    pub fn running(&self) -> &Path {
        &self.running
    }
}

impl Drop for KeepFolder {
    fn drop(&mut self) {
        // The folder goes before its lock file, so that no run takes it for abandoned.
        // `remove_dir_all` unlinks the links an agent left inside without following them.
        let _ = std::fs::remove_dir_all(&self.running);
        let _ = std::fs::remove_file(&self.lock_path);
    }
}

/// The folder a lock file (`<name>.lock`) stands for (`<name>`).
fn folder_of(lock_path: &Path) -> PathBuf {
    let name = lock_path.file_name().unwrap_or_default().to_string_lossy();
    lock_path.with_file_name(name.strip_suffix(LOCK_SUFFIX).unwrap_or(&name))
}

/// Removes the folder and lock file of every run in `running_root` whose lock no process
/// holds. Best effort: what cannot be removed stays, and the run goes on.
fn remove_abandoned(running_root: &Path) {
    let Ok(entries) = std::fs::read_dir(running_root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_lock = entry.file_type().is_ok_and(|t| t.is_file())
            && path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(LOCK_SUFFIX));
        if !is_lock {
            continue;
        }
        let Ok(lock) = File::open(&path) else {
            continue;
        };
        // Held: that run is alive. Taken here: its process has ended.
        if lock.try_lock().is_err() {
            continue;
        }
        match std::fs::remove_dir_all(folder_of(&path)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {}
            _ => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_run_s_folder_is_private_locked_and_gone_when_the_run_ends() {
        let dir = tempfile::tempdir().unwrap();
        let keep = KeepFolder::open(dir.path()).unwrap();
        let running_root = dir.path().join(RUNNING);
        assert_eq!(keep.running().parent().unwrap(), running_root);
        let mode = std::fs::metadata(keep.running()).unwrap().permissions();
        assert_eq!(mode.mode() & 0o777, 0o700);
        let lock = File::open(&keep.lock_path).unwrap();
        assert!(lock.try_lock().is_err(), "the run holds its lock");
        std::fs::write(keep.running().join("left.txt"), "x").unwrap();
        drop(keep);
        assert!(
            names(&running_root).is_empty(),
            "{:?}",
            names(&running_root)
        );
    }

    /// A run killed before it could clean up leaves its folder and an unheld lock file; the
    /// next run removes them, and leaves those of a run that is still going.
    #[test]
    fn an_abandoned_run_s_folder_goes_and_a_live_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "keep me").unwrap();
        let live = KeepFolder::open(dir.path()).unwrap();
        let running_root = dir.path().join(RUNNING);
        let abandoned = running_root.join("abandoned");
        std::fs::create_dir_all(abandoned.join("sandbox")).unwrap();
        std::os::unix::fs::symlink(&outside, abandoned.join("sandbox/link")).unwrap();
        std::fs::write(running_root.join("abandoned.lock"), "").unwrap();
        // Not a run's: no lock file stands for it.
        std::fs::create_dir(running_root.join("other")).unwrap();

        let next = KeepFolder::open(dir.path()).unwrap();
        assert!(!abandoned.exists());
        assert!(!running_root.join("abandoned.lock").exists());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
        assert!(live.running().is_dir(), "a live run's folder stays");
        assert!(live.lock_path.is_file());
        assert!(running_root.join("other").is_dir());
        assert_ne!(live.running(), next.running());
        drop((live, next));
        assert_eq!(names(&running_root), ["other"]);
    }

    #[test]
    fn a_lock_file_stands_for_the_folder_of_its_name() {
        assert_eq!(
            folder_of(Path::new("/k/.running/aB3.lock")),
            Path::new("/k/.running/aB3")
        );
    }
}
