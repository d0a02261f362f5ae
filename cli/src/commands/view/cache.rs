//! The summary cache: each results file's summary, kept between views so that a folder of
//! a thousand runs lists at once (docs/viewing.md#the-summary-cache).
//!
//! One small JSON file per results file, named by a digest of its path, holding the file's
//! size, time and inode when summarised: any change and the summary is made again. The cache
//! lies outside every viewed folder (a cache inside one would be listed among what is
//! viewed, and written to by a viewer); when the default place is inside, none is kept.

use super::found::{Stamp, open_regular};
use super::summary::FileSummary;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// An entry larger than this is not read (it would be a tally of very many tasks).
const MAX_ENTRY_BYTES: u64 = 32 << 20;
/// What an entry says it is; another version's entries are made again.
const FORMAT: &str = concat!("proctor.view-cache/", env!("CARGO_PKG_VERSION"));

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    format: String,
    path: PathBuf,
    stamp: Stamp,
    summary: FileSummary,
}

#[derive(Debug, Clone)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// The cache in `given`, else the default place; `None` (with why) when it would lie in
    /// a viewed folder or cannot be made.
    pub fn open(given: Option<&Path>, roots: &[PathBuf]) -> (Cache, Option<String>) {
        let Some(dir) = given.map(Path::to_owned).or_else(default_dir) else {
            return (
                Cache { dir: None },
                Some("no summary cache: neither XDG_CACHE_HOME nor HOME is set".to_owned()),
            );
        };
        let dir = resolved(&std::path::absolute(&dir).unwrap_or(dir));
        if let Some(root) = roots.iter().find(|r| dir.starts_with(r)) {
            return (
                Cache { dir: None },
                Some(format!(
                    "no summary cache: {} lies inside the viewed {}; give --cache DIR outside it",
                    dir.display(),
                    root.display()
                )),
            );
        }
        match std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
        {
            Ok(()) => (Cache { dir: Some(dir) }, None),
            Err(e) => (
                Cache { dir: None },
                Some(format!(
                    "no summary cache: {}: {e}; give --cache DIR to keep one",
                    dir.display()
                )),
            ),
        }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn entry_path(&self, path: &Path) -> Option<PathBuf> {
        let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Some(self.dir.as_ref()?.join(format!("{name}.json")))
    }

    /// The summary kept for `path` as it is now (`stamp`), if any.
    pub fn get(&self, path: &Path, stamp: Stamp) -> Option<FileSummary> {
        let file = open_regular(&self.entry_path(path)?).ok()?;
        if file.metadata().ok()?.len() > MAX_ENTRY_BYTES {
            return None;
        }
        let mut text = Vec::new();
        file.take(MAX_ENTRY_BYTES).read_to_end(&mut text).ok()?;
        let entry: Entry = serde_json::from_slice(&text).ok()?;
        (entry.format == FORMAT && entry.path == path && entry.stamp == stamp)
            .then_some(entry.summary)
    }

    /// Keeps a summary; a failure only costs the next view the time to summarise again.
    pub fn put(&self, path: &Path, stamp: Stamp, summary: &FileSummary) {
        let Some(target) = self.entry_path(path) else {
            return;
        };
        let entry = Entry {
            format: FORMAT.to_owned(),
            path: path.to_owned(),
            stamp,
            summary: summary.clone(),
        };
        let Ok(text) = serde_json::to_vec(&entry) else {
            return;
        };
        let partial = crate::results_file::partial_path(&target);
        if std::fs::write(&partial, text).is_ok() && std::fs::rename(&partial, &target).is_err() {
            let _ = std::fs::remove_file(&partial);
        }
    }
}

/// `dir` with links and `..` resolved as far as it exists: a cache named through a link or
/// `..` into a viewed folder (given canonical) is still seen to lie inside it.
fn resolved(dir: &Path) -> PathBuf {
    let mut existing = dir.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path, name| path.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => return dir.to_path_buf(),
        }
    }
}

fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("proctor").join("view"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_found_again_only_for_the_same_stamp_and_never_inside_a_viewed_folder() {
        let dir = tempfile::tempdir().unwrap();
        let viewed = dir.path().join("viewed");
        std::fs::create_dir(&viewed).unwrap();
        let (cache, note) = Cache::open(Some(&viewed.join("cache")), std::slice::from_ref(&viewed));
        assert!(cache.dir().is_none());
        assert!(note.unwrap().contains("inside the viewed"));
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&viewed, &link).unwrap();
        for inside in [other.join("../viewed/cache"), link.join("cache")] {
            let roots = [viewed.canonicalize().unwrap()];
            let (cache, note) = Cache::open(Some(&inside), &roots);
            assert!(cache.dir().is_none(), "{}", inside.display());
            assert!(note.unwrap().contains("inside the viewed"));
        }
        assert!(!viewed.join("cache").exists());
        let (cache, note) = Cache::open(
            Some(&dir.path().join("cache")),
            std::slice::from_ref(&viewed),
        );
        assert!(note.is_none());
        let stamp = Stamp {
            size: 10,
            mtime_ns: 5,
            inode: 1,
        };
        let summary = FileSummary {
            done: 7,
            ..FileSummary::default()
        };
        let path = viewed.join("r.jsonl");
        cache.put(&path, stamp, &summary);
        assert_eq!(cache.get(&path, stamp).unwrap().done, 7);
        let grown = Stamp { size: 11, ..stamp };
        assert!(cache.get(&path, grown).is_none());
        assert!(cache.get(&viewed.join("other"), stamp).is_none());
    }
}
