//! The folders of one attempt (docs/agent-protocol.md): a fresh sandbox holding
//! the task's seed files and nothing else, a private `HOME` and `TMPDIR`, and the
//! outcome file alone in a folder of its own outside the sandbox, and the tool state
//! folder (docs/tools.md), outside the sandbox too and never shown to the agent.
//!
//! Every folder is made fresh with a random name and mode 0700, so no attempt can
//! predict, share or forge another's files.

use super::keep_folder::KeepFolder;
use proctor_core::task::Task;
use sha2::{Digest, Sha256};
use std::io;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Longest kept folder name before it is shortened with a hash (NAME_MAX is 255).
const LONGEST_COMPONENT: usize = 200;

/// One attempt's folders; the temporary ones are removed when dropped.
#[derive(Debug)]
pub struct AttemptFolders {
    /// The agent's working directory: private, or under `--keep` a random folder in the
    /// run's folder of running sandboxes ([`KeepFolder::running`]) until
    /// [`AttemptFolders::keep`] moves it to its kept place.
    pub sandbox: PathBuf,
    /// Under `--keep`, where the sandbox is kept once the attempt's processes are gone.
    kept: Option<PathBuf>,
    /// The agent's `HOME`.
    pub home: PathBuf,
    /// The agent's `TMPDIR`.
    pub tmp: PathBuf,
    /// Where the agent may write its outcome (`PROCTOR_OUTCOME`).
    pub outcome_file: PathBuf,
    /// The folder holding `outcome_file` and nothing else.
    pub outcome_dir: PathBuf,
    /// The attempt's private folder (holding `home` and `tmp`), where proctor keeps
    /// what else the attempt needs (the sockets into a `network: none` namespace).
    pub private: PathBuf,
    /// The tool state folder (`PROCTOR_STATE_DIR` of backends and command checks), when
    /// the task has `state_files`, `state_dir` or `tools`: under `--keep` beside the
    /// kept sandbox (`<attempt>.state`), else a private folder of the run.
    pub state: Option<PathBuf>,
    _private: TempDir,
    _outcome: TempDir,
    _state: Option<TempDir>,
    /// The running sandbox under `--keep`, removed when the attempt is not kept (an
    /// interrupted attempt, which `--resume` runs again).
    running: Option<TempDir>,
}

impl AttemptFolders {
    /// Under `--keep`, moves the sandbox to its kept place (`<keep>/[<agent>/]<task>/<attempt>`)
    /// once nothing of the attempt runs, so that grading, the judge and every later command
    /// find it there; what an earlier run kept there goes first, without following links.
    /// Without `--keep` it does nothing.
    pub fn keep(&mut self) -> io::Result<()> {
        let Some(kept) = self.kept.take() else {
            return Ok(());
        };
        remove_without_following(&kept)?;
        if let Some(parent) = kept.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::rename(&self.sandbox, &kept)?;
        // Moved: nothing is left for the running folder to remove.
        if let Some(running) = self.running.take() {
            let _ = running.keep();
        }
        self.sandbox = kept;
        Ok(())
    }
}

/// A task id, agent name or attempt as one path component, injectively: `A-Za-z0-9`,
/// `_`, `-`, `@` (a variant's `id@NAME`) and a non-leading `.` stand for themselves, every other byte is `%XX`, so
/// `report/v1` (`report%2Fv1`) and `report_v1` never share a folder. A name too long
/// for the file system keeps its start and ends in `%%` and a hash of the whole.
pub fn path_component(name: &str) -> String {
    if name.is_empty() {
        return "%".to_owned();
    }
    let mut encoded = String::with_capacity(name.len());
    for (i, byte) in name.bytes().enumerate() {
        let plain = byte.is_ascii_alphanumeric()
            || matches!(byte, b'_' | b'-' | b'@')
            || (byte == b'.' && i > 0);
        if plain {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    if encoded.len() > LONGEST_COMPONENT {
        let hash = Sha256::digest(name.as_bytes());
        let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
        encoded.truncate(LONGEST_COMPONENT - hex.len() - 2);
        // Never cut an escape in half: drop a trailing partial `%X`.
        while let Some(cut) = encoded[encoded.len().saturating_sub(2)..].find('%') {
            encoded.truncate(encoded.len().saturating_sub(2) + cut);
        }
        encoded.push_str("%%");
        encoded.push_str(&hex);
    }
    encoded
}

/// Where `--keep` puts an attempt: `<keep>/[<agent>/]<task>/<attempt>`.
pub fn kept_folder(keep: &Path, label: Option<&str>, task: &str, attempt: u64) -> PathBuf {
    let mut dir = keep.to_owned();
    if let Some(label) = label {
        dir.push(path_component(label));
    }
    dir.push(path_component(task));
    dir.push(attempt.to_string());
    dir
}

/// Where `--keep` puts an attempt's tool state folder: beside its sandbox, never in it.
pub fn kept_state_folder(sandbox: &Path) -> PathBuf {
    let mut name = sandbox.file_name().unwrap_or_default().to_owned();
    name.push(".state");
    sandbox.with_file_name(name)
}

/// Makes an attempt's folders under `control` (a private folder of the run); under `keep`,
/// when given, the sandbox in the run's folder of running sandboxes, to be moved to its kept
/// place by [`AttemptFolders::keep`], and the state folder at its kept place (emptied first,
/// without following any symlink the agent of an earlier run left there).
pub fn prepare(
    task: &Task,
    control: &Path,
    keep: Option<&KeepFolder>,
    label: Option<&str>,
    attempt: u64,
) -> io::Result<AttemptFolders> {
    let private = tempfile::Builder::new()
        .prefix("attempt-")
        .rand_bytes(12)
        .tempdir_in(control)?;
    let outcome = tempfile::Builder::new()
        .prefix("outcome-")
        .rand_bytes(12)
        .tempdir_in(control)?;
    let home = private.path().join("home");
    let tmp = private.path().join("tmp");
    create_private_dir(&home)?;
    create_private_dir(&tmp)?;
    let (sandbox, kept, running) = match keep {
        Some(keep) => {
            use std::os::unix::fs::PermissionsExt;
            let running = tempfile::Builder::new()
                .prefix("")
                .rand_bytes(12)
                .permissions(std::fs::Permissions::from_mode(0o700))
                .tempdir_in(keep.running())?;
            let kept = kept_folder(keep.root(), label, &task.id, attempt);
            (running.path().to_owned(), Some(kept), Some(running))
        }
        None => {
            let dir = private.path().join("sandbox");
            create_private_dir(&dir)?;
            (dir, None, None)
        }
    };
    seed(&sandbox, task.files_dir.as_deref(), &task.files)?;
    let has_state =
        task.state_dir.is_some() || !task.state_files.is_empty() || !task.tools.is_empty();
    let (state, state_temp) = match (has_state, &kept) {
        (false, _) => (None, None),
        (true, Some(kept)) => {
            let dir = kept_state_folder(kept);
            remove_without_following(&dir)?;
            if let Some(parent) = dir.parent() {
                std::fs::create_dir_all(parent)?;
            }
            create_private_dir(&dir)?;
            (Some(dir), None)
        }
        (true, None) => {
            let dir = tempfile::Builder::new()
                .prefix("state-")
                .rand_bytes(12)
                .tempdir_in(control)?;
            (Some(dir.path().to_owned()), Some(dir))
        }
    };
    if let Some(state) = &state {
        seed(state, task.state_dir.as_deref(), &task.state_files)?;
    }
    Ok(AttemptFolders {
        sandbox,
        kept,
        home,
        tmp,
        outcome_file: outcome.path().join("outcome.json"),
        outcome_dir: outcome.path().to_owned(),
        private: private.path().to_owned(),
        state,
        _private: private,
        _outcome: outcome,
        _state: state_temp,
        running,
    })
}

/// Fills a fresh folder with a seed folder, then seed files.
fn seed(
    folder: &Path,
    seeds: Option<&Path>,
    files: &std::collections::BTreeMap<String, String>,
) -> io::Result<()> {
    if let Some(seeds) = seeds {
        copy_tree(seeds, folder)?;
    }
    for (relative, content) in files {
        let path = folder.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        write_new(&path, content.as_bytes())?;
    }
    Ok(())
}

fn create_private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(path)
}

/// Removes `path`: a symlink is removed itself, never what it points to, and a
/// folder's contents are removed without following links inside it.
pub fn remove_without_following(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        // `remove_dir_all` unlinks symlinks inside the folder without following them.
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    }
}

/// Writes a file that must not exist yet, so a link in its place is never followed.
fn write_new(path: &Path, content: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(content)
}

/// Copies a seed folder; symlinks (checked at load time to stay inside it) are
/// copied as the files they point to.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        if source.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_tree(&source, &target)?;
        } else {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_core::task::Suite;

    #[test]
    fn components_cannot_escape_and_never_collide() {
        assert_eq!(path_component("refund/../x"), "refund%2F..%2Fx");
        assert_eq!(path_component(".."), "%2E.");
        assert_eq!(path_component("ok-1.2"), "ok-1.2");
        assert_eq!(path_component("spy_grading_fields"), "spy_grading_fields");
        assert_eq!(path_component("refund@pushy"), "refund@pushy");
        let pairs = [
            ("report/v1", "report_v1"),
            ("a+b", "a_b"),
            ("a%2Bb", "a+b"),
            ("a@b", "a%40b"),
        ];
        for (one, other) in pairs {
            assert_ne!(
                path_component(one),
                path_component(other),
                "{one} vs {other}"
            );
        }
    }

    #[test]
    fn long_names_are_shortened_apart() {
        let one = "é".repeat(150);
        let other = format!("{}x", "é".repeat(149));
        let (a, b) = (path_component(&one), path_component(&other));
        assert!(a.len() <= LONGEST_COMPONENT && b.len() <= LONGEST_COMPONENT);
        assert_ne!(a, b);
        assert!(a.contains("%%"), "{a}");
    }

    /// Under `--keep` the agent's folder is private and random; keeping it replaces what
    /// an earlier run kept, without following the links that run's agent left.
    #[test]
    fn a_kept_sandbox_runs_apart_and_replaces_the_earlier_one_when_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tasks = dir.path().join("tasks.yaml");
        std::fs::write(
            &tasks,
            "- id: a/b\n  input: x\n  expected: y\n  files: {seed.txt: seed}\n",
        )
        .unwrap();
        let task = Suite::load(&tasks).unwrap().tasks.remove(0);
        let (control, keep) = (dir.path().join("control"), dir.path().join("keep"));
        std::fs::create_dir(&control).unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "keep me").unwrap();
        let kept = kept_folder(&keep, Some("agent"), "a/b", 3);
        std::fs::create_dir_all(&kept).unwrap();
        std::os::unix::fs::symlink(&outside, kept.join("link")).unwrap();

        let keep_folder = KeepFolder::open(&keep).unwrap();
        let mut folders = prepare(&task, &control, Some(&keep_folder), Some("agent"), 3).unwrap();
        let running = folders.sandbox.clone();
        assert_eq!(running.parent().unwrap(), keep_folder.running());
        let mode = std::fs::metadata(&running).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert_eq!(
            std::fs::read_to_string(running.join("seed.txt")).unwrap(),
            "seed"
        );
        assert!(
            kept.join("link").exists(),
            "the earlier run's folder stays until kept"
        );

        folders.keep().unwrap();
        assert_eq!(folders.sandbox, kept);
        assert!(!running.exists());
        assert_eq!(
            std::fs::read_to_string(kept.join("seed.txt")).unwrap(),
            "seed"
        );
        assert!(!kept.join("link").exists());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
        drop(folders);
        assert!(
            kept.join("seed.txt").exists(),
            "a kept sandbox outlives its attempt"
        );

        // An attempt that is not kept (interrupted) leaves nothing behind.
        let folders = prepare(&task, &control, Some(&keep_folder), Some("agent"), 4).unwrap();
        let running = folders.sandbox.clone();
        drop(folders);
        assert!(!running.exists());
        assert!(!kept_folder(&keep, Some("agent"), "a/b", 4).exists());
    }

    #[test]
    fn removal_never_follows_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "keep me").unwrap();
        let kept = dir.path().join("kept");
        std::fs::create_dir(&kept).unwrap();
        std::os::unix::fs::symlink(&outside, kept.join("link")).unwrap();
        std::os::unix::fs::symlink(dir.path(), kept.join("up")).unwrap();
        remove_without_following(&kept).unwrap();
        assert!(!kept.exists());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
        let link = dir.path().join("as-link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        remove_without_following(&link).unwrap();
        assert!(outside.exists());
    }
}
