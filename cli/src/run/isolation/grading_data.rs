//! proctor's own files inside a folder an agent is shown, found by what they are, at any
//! depth (docs/agent-protocol.md, "What an agent sees"): results and HTML reports,
//! kept folders (with their tool state), judge recordings, ledgers, calibration and
//! label files, task files with every file they name, and repositories (whose history
//! may hold any of these). Each is hidden from the agent; a folder whose every entry is
//! hidden is hidden whole, so that a folder of old results costs one mount, not one per
//! file.
//!
//! The walk is bounded: a folder too large or too deep to check is refused before any
//! agent starts, with what to do instead.

use proctor_core::task::Suite;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most entries one walk looks at.
pub const MOST_ENTRIES: usize = 100_000;
/// Deepest folder one walk opens.
pub const DEEPEST: usize = 24;
/// Bytes read from the start of a file to tell what it is.
const HEAD: usize = 4096;
/// Largest task file parsed to find the files it names; a larger one is hidden alone.
const LARGEST_TASK_FILE: u64 = 16 << 20;

/// Format names at the start of proctor's own JSON files and JSON lines.
const FORMATS: [&str; 5] = [
    "\"proctor.result/",
    "\"proctor.run/",
    "\"proctor.cassette/",
    "\"proctor.calibration/",
    "\"proctor.ledger/",
];

/// Header starts of proctor's CSV files: the ledger and a labels file.
const CSV_HEADERS: [&str; 2] = ["recorded_at,run_id,", "task,attempt,human,"];

/// What the HTML report's head says of itself.
const REPORT_TITLE: &str = "<title>proctor report</title>";

/// Names that mark a `--keep` folder: the folder of running sandboxes and the marker
/// file proctor writes there.
const KEEP_MARKERS: [&str; 2] = [
    crate::run::keep_folder::RUNNING,
    crate::run::keep_folder::MARKER,
];

/// Why a folder could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum TooLarge {
    #[error(
        "{folder}: the agent would see this folder, and it holds more than {MOST_ENTRIES} entries to check for grading data"
    )]
    Entries { folder: PathBuf },
    #[error(
        "{folder}: the agent would see this folder, and it is more than {DEEPEST} folders deep to check for grading data"
    )]
    Depth { folder: PathBuf },
}

/// Everything to hide inside `folder`, outermost paths only.
pub fn find(folder: &Path) -> Result<Vec<PathBuf>, TooLarge> {
    let mut walk = Walk {
        root: folder.to_owned(),
        seen: 0,
        found: Vec::new(),
    };
    if what_is(folder).is_some() {
        return Ok(vec![folder.to_owned()]);
    }
    walk.folder(folder, 0)?;
    let mut found = walk.found;
    found.sort();
    found.dedup();
    // Only the outermost: a hidden folder hides what is inside it.
    let outermost: Vec<PathBuf> = found
        .iter()
        .filter(|p| !found.iter().any(|q| p.starts_with(q) && *p != q))
        .cloned()
        .collect();
    Ok(outermost)
}

struct Walk {
    root: PathBuf,
    seen: usize,
    found: Vec<PathBuf>,
}

impl Walk {
    /// Walks `folder`; true when every entry in it is hidden (so the folder can be).
    fn folder(&mut self, folder: &Path, depth: usize) -> Result<bool, TooLarge> {
        if depth > DEEPEST {
            return Err(TooLarge::Depth {
                folder: self.root.clone(),
            });
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            return Ok(false);
        };
        let mut all_hidden = true;
        let mut any = false;
        let mut hidden_here = Vec::new();
        for entry in entries.flatten() {
            self.seen += 1;
            if self.seen > MOST_ENTRIES {
                return Err(TooLarge::Entries {
                    folder: self.root.clone(),
                });
            }
            any = true;
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                all_hidden = false;
                continue;
            };
            let hidden = if kind.is_symlink() {
                // Not followed: what it points to is hidden (or out of sight) on its own.
                false
            } else if let Some(found) = what_is(&path) {
                hidden_here.extend(found);
                true
            } else if kind.is_dir() {
                if installation(&path) {
                    false
                } else {
                    self.folder(&path, depth + 1)?
                }
            } else {
                false
            };
            all_hidden &= hidden;
        }
        if any && all_hidden && folder != self.root {
            // The whole folder instead of each entry.
            self.found.push(folder.to_owned());
        } else {
            self.found.extend(hidden_here);
        }
        Ok(any && all_hidden)
    }
}

/// An interpreter's installation (a virtualenv, npm's packages): shown as it is, never
/// walked (it holds many files and no grading data).
fn installation(folder: &Path) -> bool {
    folder.join("pyvenv.cfg").is_file()
        || folder.join("conda-meta").is_dir()
        || folder.file_name().is_some_and(|n| n == "node_modules")
}

/// What to hide for `path` when it is one of proctor's own files or folders: itself, and
/// for a task file every file it names. `None` for anything else.
pub fn what_is(path: &Path) -> Option<Vec<PathBuf>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.is_dir() {
        let name = path.file_name()?;
        let marked = KEEP_MARKERS.iter().any(|m| path.join(m).exists());
        // A kept attempt's tool state (`<attempt>.state` beside its sandbox `<attempt>`):
        // both are hidden.
        let sandbox = name
            .to_str()
            .and_then(|n| n.strip_suffix(".state"))
            .filter(|attempt| !attempt.is_empty())
            .map(|attempt| path.with_file_name(attempt))
            .filter(|sandbox| sandbox.is_dir());
        if let Some(sandbox) = sandbox {
            return Some(vec![path.to_owned(), sandbox]);
        }
        return (marked || name == ".git").then(|| vec![path.to_owned()]);
    }
    if !meta.is_file() {
        return None;
    }
    let head = head_of(path)?;
    if FORMATS.iter().any(|f| head.contains(f))
        || CSV_HEADERS.iter().any(|h| head.starts_with(h))
        || head.contains(REPORT_TITLE)
    {
        return Some(vec![path.to_owned()]);
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let json = match extension.as_deref() {
        Some("yaml" | "yml") => false,
        Some("json" | "jsonl" | "ndjson") => true,
        _ => return None,
    };
    if !looks_like_tasks(&head) {
        return None;
    }
    let small = meta.len() <= LARGEST_TASK_FILE;
    let loaded = small.then(|| Suite::load(path).ok()).flatten();
    // JSON with `id` and `input` keys is as often a data set as a task file: only one
    // that loads as tasks is hidden. YAML with those keys is hidden either way.
    if json && small && loaded.is_none() {
        return None;
    }
    let mut hidden = vec![path.to_owned()];
    for task in loaded.iter().flat_map(|suite| &suite.tasks) {
        hidden.extend(task.grading_files());
        hidden.extend(task.verify.iter().flat_map(|c| c.files()).cloned());
    }
    Some(hidden)
}

/// The start of a regular file, opened without following a link and never waiting on
/// a FIFO (only regular files get here).
fn head_of(path: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let mut bytes = Vec::with_capacity(HEAD);
    file.take(HEAD as u64).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A task file's start: tasks with an `id` and something to grade or to ask, as keys (a
/// YAML key at a line's start, in a list item or a flow mapping, or a quoted JSON key), so
/// that `uuid:` or `user_input:` in someone's configuration does not count.
fn looks_like_tasks(head: &str) -> bool {
    let has = |key: &str| {
        let yaml_key = format!("{key}:");
        head.contains(&format!("\"{key}\""))
            || head.contains(&format!("{{{yaml_key}"))
            || head.contains(&format!(", {yaml_key}"))
            || head.lines().any(|line| {
                let line = line.trim_start();
                let line = line.strip_prefix("- ").map_or(line, str::trim_start);
                line.starts_with(&yaml_key)
            })
    };
    has("id")
        && [
            "input",
            "expected",
            "expected_all",
            "rubric",
            "verify",
            "rules",
        ]
        .iter()
        .any(|k| has(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn proctor_files_are_found_by_what_they_are_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let results = write(
            root,
            "deep/er/old.log",
            "{\"format\": \"proctor.result/1\", \"task\": \"t\", \"passed\": true}\n",
        );
        let report = write(root, "r.html", "<html><head><title>proctor report</title>");
        let ledger = write(root, "money/l.csv", "recorded_at,run_id,suite\n");
        let labels = write(
            root,
            "labels.csv",
            "task,attempt,human,rater,note,timestamp\n",
        );
        let cassette = write(root, "c/x.json", "{\n  \"format\": \"proctor.cassette/1\"}");
        let tasks = write(
            root,
            "suite/t.yaml",
            "- id: a\n  input: hi\n  expected: 42\n  verify:\n    - {file_equals: out.txt, from: answer.txt}\n",
        );
        let named = write(root, "suite/answer.txt", "42");
        let keep = root.join("kept");
        std::fs::create_dir_all(keep.join(".running")).unwrap();
        write(&keep, "t/0.state/db.json", "{}");
        // An older `--keep` folder, without a marker: the tool state and its sandbox.
        write(root, "old/t/0/out.txt", "kept");
        write(root, "old/t/0.state/db.json", "{}");
        write(root, "old/notes.md", "mine");
        let git = root.join("tool/.git");
        std::fs::create_dir_all(&git).unwrap();
        let tool = write(root, "tool/run.sh", "echo\n");
        let own = write(root, "agent.py", "print('hi')\n");
        let data = write(root, "data/notes.json", "{\"id\": 1}");
        let venv = root.join(".venv");
        write(&venv, "pyvenv.cfg", "home = /usr\n");
        write(&venv, "lib/old.jsonl", "{\"format\": \"proctor.result/1\"}");
        let found = find(root).unwrap();
        // `c/` and `money/` hold nothing else: hidden whole.
        for hidden in [
            results.parent().unwrap().parent().unwrap().to_owned(),
            report,
            root.join("money"),
            labels,
            root.join("c"),
            tasks,
            named,
            keep,
            git,
            root.join("old/t/0"),
            root.join("old/t/0.state"),
        ] {
            assert!(
                found.contains(&hidden),
                "{} not in {found:?}",
                hidden.display()
            );
        }
        let _ = (ledger, cassette);
        for shown in [own, data, venv, tool, root.join("old/notes.md")] {
            assert!(
                !found.iter().any(|f| shown.starts_with(f)),
                "{} hidden: {found:?}",
                shown.display()
            );
        }
    }

    #[test]
    fn task_files_are_told_by_their_keys() {
        assert!(looks_like_tasks("- id: a\n  input: hi\n  expected: 1\n"));
        assert!(looks_like_tasks("tasks:\n  - id: a\n    rubric: polite\n"));
        assert!(looks_like_tasks("- {id: a, input: go, expected: ok}\n"));
        assert!(looks_like_tasks("[{\"id\": \"a\", \"input\": \"go\"}]"));
        assert!(!looks_like_tasks("uuid: 1\nuser_input: hello\n"));
        assert!(!looks_like_tasks("{\"uuid\": 1, \"user_input\": \"x\"}"));
        assert!(!looks_like_tasks("id: 7\nname: settings\n"));
    }

    #[test]
    fn a_folder_too_large_to_check_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut deep = dir.path().to_owned();
        for _ in 0..=DEEPEST + 1 {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        let error = find(dir.path()).unwrap_err();
        assert!(matches!(error, TooLarge::Depth { .. }), "{error}");
        assert!(error.to_string().contains("folders deep"));
    }
}
