//! The end-state bundle: what the judge sees of the sandbox after the run. Every file
//! (or those matching `judge_files`), sorted by path, with its status against the seed,
//! size and SHA-256; text shown up to per-file and total limits with explicit
//! truncation markers; binary files, symlinks and special files listed, never sent.

mod collect;
mod error;
mod name;
mod render;
mod seed;

pub use collect::{collect, validate_globs};
pub use error::BundleError;
pub(crate) use render::fenced;
pub use render::render;
pub use seed::{Seed, SeedFile};

use std::fmt;

/// How much of the sandbox goes into one prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleLimits {
    /// The most bytes of one file's text that are shown.
    pub per_file: usize,
    /// The most bytes of text shown across all files.
    pub total: usize,
    /// The most files listed; the rest are counted.
    pub max_files: usize,
}

impl Default for BundleLimits {
    fn default() -> Self {
        BundleLimits {
            per_file: 20_000,
            total: 100_000,
            max_files: 500,
        }
    }
}

/// A file's state after the run compared with the seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileStatus {
    /// In the sandbox, not in the seed.
    Added,
    /// In both, with different contents.
    Modified,
    /// In both, with the same contents (SHA-256 compared).
    Unchanged,
    /// In the seed, gone from the sandbox.
    Deleted,
}

impl FileStatus {
    /// The status as the prompt spells it: `added`, `modified`, `unchanged`, `deleted`.
    pub fn name(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Modified => "modified",
            FileStatus::Unchanged => "unchanged",
            FileStatus::Deleted => "deleted",
        }
    }
}

impl fmt::Display for FileStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the judge is shown of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Text, possibly cut: `hidden` bytes at the end are not shown.
    Text {
        /// The shown start of the file, cut at a character boundary.
        text: String,
        /// Bytes not shown: the file's size minus the text's length.
        hidden: u64,
    },
    /// Text, but the total limit was spent on earlier files.
    OverBudget,
    /// Not UTF-8 text (or contains NUL bytes): listed only.
    Binary,
    /// A symbolic link, never followed (it could point outside the sandbox).
    Symlink {
        /// Where the link points, as stored in it (lossily UTF-8).
        target: String,
    },
    /// A FIFO, socket or device: never opened.
    Special,
    /// The file could not be read; the reason.
    Unreadable(String),
    /// Deleted: only the seed's size and hash are known.
    Gone,
}

/// One listed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntry {
    /// Relative to the sandbox, `/`-separated; bytes of a name that are not UTF-8 are
    /// written `\xFF` and a backslash `\\`, so each file has a path of its own.
    pub path: String,
    /// The file against the seed.
    pub status: FileStatus,
    /// The size in bytes: the seed file's when deleted, the target path's for a symlink,
    /// 0 for a file that was not read.
    pub size: u64,
    /// SHA-256 (hex) of the contents: the seed file's when deleted, the target path's for
    /// a symlink, empty for a file that was not read.
    pub sha256: String,
    /// What the judge is shown of it.
    pub content: Content,
}

/// The files the judge sees.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bundle {
    /// False when there was no sandbox to read (offline grading without a workdir).
    pub sandbox: bool,
    /// The `judge_files` globs that selected the files; empty for all files.
    pub globs: Vec<String>,
    /// Sorted by path.
    pub entries: Vec<BundleEntry>,
    /// Files beyond `max_files`, counted but not listed: unchanged seed files before any
    /// file the rubric names or the agent changed.
    pub unlisted: usize,
    /// The limits the bundle was cut with, for the markers.
    pub limits: BundleLimits,
}
