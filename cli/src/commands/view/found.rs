//! Finding results files under the viewed paths, by what they hold rather than their name
//! (docs/viewing.md#what-is-listed).
//!
//! The walk never follows a symbolic link, opens only regular files (without blocking, so a
//! FIFO left behind cannot hang it), reads at most [`HEAD_BYTES`] of each to recognise it, and
//! stops at [`MAX_DEPTH`], [`MAX_ENTRIES`] and [`MAX_FILES`], saying so. Folders kept by
//! `run --keep` (they hold a `.proctor-keep` marker) are not entered: their files are an
//! agent's, and an agent could leave one that looks like results.

use crate::run::keep_folder::MARKER;
use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// How much of a file is read to recognise it: a first line longer than this is read as
/// far as it goes.
pub const HEAD_BYTES: usize = 64 << 10;
/// Folders deeper than this below a viewed path are not entered.
pub const MAX_DEPTH: usize = 32;
/// Folder entries looked at per walk.
pub const MAX_ENTRIES: usize = 1_000_000;
/// Results files listed.
pub const MAX_FILES: usize = 20_000;

/// What a file is now: a changed size or time means it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i128,
    pub inode: u64,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            inode: meta.ino(),
        }
    }
}

/// A results file found.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    /// The path shown: relative to the viewed path it was found under.
    pub shown: String,
    pub stamp: Stamp,
}

/// One walk's findings.
#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<Found>,
    pub notes: Vec<String>,
}

/// The walker, remembering which files it has recognised (by stamp), so that a walk reads
/// only files new or changed since the last.
#[derive(Debug, Default)]
pub struct Finder {
    known: HashMap<PathBuf, (Stamp, bool)>,
    skipped: Vec<PathBuf>,
}

impl Finder {
    /// A finder that never enters `skipped` (the summary cache).
    pub fn new(skipped: Vec<PathBuf>) -> Finder {
        Finder {
            known: HashMap::new(),
            skipped,
        }
    }

    /// Every results file under `roots` (absolute), in a stable order.
    pub fn walk(&mut self, roots: &[PathBuf]) -> Walk {
        let mut walk = Walk::default();
        let mut entries = 0usize;
        let mut seen = HashMap::new();
        for root in roots {
            let meta = match std::fs::symlink_metadata(root) {
                Ok(meta) => meta,
                Err(e) => {
                    walk.notes.push(format!("{}: {e}", root.display()));
                    continue;
                }
            };
            if meta.is_file() {
                let shown = root.file_name().map_or_else(
                    || root.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                self.consider(root, &meta, shown, &mut walk, &mut seen);
                continue;
            }
            let mut stack = vec![(root.clone(), 0usize)];
            while let Some((folder, depth)) = stack.pop() {
                if self.skipped.iter().any(|s| s == &folder) || folder.join(MARKER).exists() {
                    continue;
                }
                let listing = match std::fs::read_dir(&folder) {
                    Ok(listing) => listing,
                    Err(e) => {
                        walk.notes.push(format!("{}: {e}", folder.display()));
                        continue;
                    }
                };
                let mut children = Vec::new();
                for entry in listing.flatten() {
                    entries += 1;
                    if entries > MAX_ENTRIES {
                        walk.notes.push(format!(
                            "stopped looking after {MAX_ENTRIES} folder entries: view a smaller folder"
                        ));
                        return finish(walk);
                    }
                    let Ok(kind) = entry.file_type() else {
                        continue;
                    };
                    if kind.is_dir() {
                        if entry.file_name() == ".git" {
                            continue;
                        }
                        if depth + 1 > MAX_DEPTH {
                            walk.notes.push(format!(
                                "{}: deeper than {MAX_DEPTH} folders, not searched",
                                entry.path().display()
                            ));
                            continue;
                        }
                        children.push(entry.path());
                    } else if kind.is_file() {
                        let path = entry.path();
                        let Ok(meta) = entry.metadata() else {
                            continue;
                        };
                        let shown = shown_under(root, &path);
                        self.consider(&path, &meta, shown, &mut walk, &mut seen);
                    }
                    if walk.files.len() >= MAX_FILES {
                        walk.notes.push(format!(
                            "listing the first {MAX_FILES} results files only: view a smaller folder"
                        ));
                        return finish(walk);
                    }
                }
                children.sort();
                stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
            }
        }
        finish(walk)
    }

    fn consider(
        &mut self,
        path: &Path,
        meta: &std::fs::Metadata,
        shown: String,
        walk: &mut Walk,
        seen: &mut HashMap<PathBuf, ()>,
    ) {
        if seen.insert(path.to_owned(), ()).is_some() {
            return;
        }
        let stamp = Stamp::of(meta);
        let recognised = match self.known.get(path) {
            // A file that grew keeps its first line: no need to read it again.
            Some((known, is))
                if known.inode == stamp.inode
                    && (known == &stamp || (*is && stamp.size >= known.size)) =>
            {
                *is
            }
            _ => is_results_file(path),
        };
        self.known.insert(path.to_owned(), (stamp, recognised));
        if recognised {
            walk.files.push(Found {
                path: path.to_owned(),
                shown,
                stamp,
            });
        }
    }
}

fn finish(mut walk: Walk) -> Walk {
    walk.files.sort_by(|a, b| a.path.cmp(&b.path));
    walk
}

fn shown_under(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Opens a regular file for reading without following a link or blocking on a FIFO.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Whether the file's first line is a proctor result line. An empty file is not (yet) one:
/// a run's file before its first attempt ends is found once it has a line.
pub fn is_results_file(path: &Path) -> bool {
    let Ok(file) = open_regular(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(4096);
    if file.take(HEAD_BYTES as u64).read_to_end(&mut head).is_err() {
        return false;
    }
    let start = head.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return false;
    };
    let head = &head[start..];
    // What proctor writes begins so; anything else must parse as a result line.
    if head.starts_with(br#"{"format":"proctor.result/1""#) {
        return true;
    }
    let line = match memchr::memchr(b'\n', head) {
        Some(end) => &head[..end],
        None => head,
    };
    std::str::from_utf8(line)
        .ok()
        .is_some_and(|text| proctor_core::result::ResultLine::parse(text.trim()).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"format":"proctor.result/1","task":"t","attempt":0,"passed":true}"#;

    #[test]
    fn results_are_recognised_by_content_at_any_depth_and_kept_folders_are_not_entered() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b/c")).unwrap();
        std::fs::write(root.join("a/b/c/odd-name.txt"), format!("{LINE}\n")).unwrap();
        std::fs::write(root.join("a/notes.jsonl"), "{\"hello\": 1}\n").unwrap();
        std::fs::write(root.join("a/empty.jsonl"), "").unwrap();
        std::fs::create_dir_all(root.join("keep/t/0")).unwrap();
        std::fs::write(root.join("keep").join(MARKER), "").unwrap();
        std::fs::write(root.join("keep/t/0/forged.jsonl"), format!("{LINE}\n")).unwrap();
        std::os::unix::fs::symlink(root.join("a/b/c/odd-name.txt"), root.join("link.jsonl"))
            .unwrap();
        nix::unistd::mkfifo(&root.join("fifo.jsonl"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let mut finder = Finder::default();
        let walk = finder.walk(&[root.to_owned()]);
        let shown: Vec<&str> = walk.files.iter().map(|f| f.shown.as_str()).collect();
        assert_eq!(shown, ["a/b/c/odd-name.txt"]);
        // Found again from what it remembers, and a new file joins.
        std::fs::write(root.join("second"), format!("{LINE}\n{LINE}\n")).unwrap();
        let walk = finder.walk(&[root.to_owned()]);
        assert_eq!(walk.files.len(), 2);
    }

    #[test]
    fn a_huge_first_line_is_read_only_as_far_as_the_head() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, "x".repeat(HEAD_BYTES * 4)).unwrap();
        assert!(!is_results_file(&path));
    }
}
