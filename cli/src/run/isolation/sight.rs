//! What one contained command sees of the host besides the runtime and the folders it
//! writes (docs/agent-protocol.md, "What an agent sees"): the paths its command needs
//! (`visible`), minus proctor's grading data inside them, named by the run or found
//! there by what it is (`grading_data`). Both bubblewrap and landlock are given the
//! same sight.

use super::grading_data::{self, TooLarge};
use super::runtime;
use super::visible::Shown;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The shown paths of one command and what is hidden inside them.
#[derive(Debug, Clone, Default)]
pub struct Sight {
    pub shown: Vec<PathBuf>,
    pub hidden: Vec<PathBuf>,
}

/// Grading data found in each walked folder, walked once per run: script tools start a
/// command per call, each shown the same folders.
#[derive(Debug, Default)]
pub struct Found(Mutex<HashMap<PathBuf, Vec<PathBuf>>>);

impl Found {
    fn in_folder(&self, folder: &Path) -> Result<Vec<PathBuf>, TooLarge> {
        if let Some(found) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(folder) {
            return Ok(found.clone());
        }
        let found = grading_data::find(folder)?;
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(folder.to_owned(), found.clone());
        Ok(found)
    }
}

/// `paths` absolute and resolved, as mounts and landlock rules need them, each once (every
/// task of a file names that file: one mount, not one per task), never `/`. A path not
/// there yet (`--out` on a first run) stays as given.
pub fn resolved(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = paths
        .into_iter()
        .map(|p| p.canonicalize().unwrap_or(p))
        .filter(|p| p.is_absolute() && p != Path::new("/"))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

impl Sight {
    /// `shown` with `named` (the grading data the run knows by path) and whatever its
    /// walked folders hold of proctor's own files hidden.
    pub fn compose(shown: &[Shown], named: &[PathBuf], found: &Found) -> Result<Sight, TooLarge> {
        let mut hidden: Vec<PathBuf> = named.to_vec();
        for path in shown.iter().filter(|s| s.walked) {
            if path.path.is_dir() {
                hidden.extend(found.in_folder(&path.path)?);
            } else if let Some(own) = grading_data::what_is(&path.path) {
                hidden.extend(own);
            }
        }
        Ok(Sight {
            shown: shown.iter().map(|s| s.path.clone()).collect(),
            hidden: resolved(hidden),
        })
    }

    /// True when a command with this sight could read `path`: it lies in the runtime or a
    /// shown path and not in a hidden one, or in a folder it writes.
    pub fn reveals(&self, path: &Path, writable: &[&Path]) -> bool {
        if writable.iter().any(|w| path.starts_with(w)) {
            return true;
        }
        let hidden = self.hidden.iter().any(|h| path.starts_with(h));
        // Shown again inside a hidden folder: seen unless hidden below that.
        let shown_again = self.shown.iter().any(|s| {
            path.starts_with(s)
                && !self
                    .hidden
                    .iter()
                    .any(|h| h.starts_with(s) && path.starts_with(h))
        });
        shown_again || (!hidden && runtime::holds(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walked_folder_hides_what_it_holds_and_reveals_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap().join("project");
        std::fs::create_dir_all(project.join("results")).unwrap();
        std::fs::write(
            project.join("results/old.jsonl"),
            "{\"format\": \"proctor.result/1\"}\n",
        )
        .unwrap();
        std::fs::write(project.join("agent.py"), "").unwrap();
        let shown = [Shown {
            path: project.clone(),
            walked: true,
        }];
        let sight = Sight::compose(&shown, &[], &Found::default()).unwrap();
        assert!(sight.reveals(&project.join("agent.py"), &[]));
        assert!(!sight.reveals(&project.join("results/old.jsonl"), &[]));
        assert!(!sight.reveals(Path::new("/etc/shadow"), &[]));
        assert!(!sight.reveals(Path::new("/srv"), &[]));
        assert!(sight.reveals(Path::new("/usr/bin/env"), &[]));
        let sandbox = dir.path().join("sandbox");
        assert!(sight.reveals(&sandbox.join("x"), &[&sandbox]));
        let unwalked = [Shown {
            path: project.clone(),
            walked: false,
        }];
        let sight = Sight::compose(&unwalked, &[], &Found::default()).unwrap();
        assert!(sight.reveals(&project.join("results/old.jsonl"), &[]));
    }
}
