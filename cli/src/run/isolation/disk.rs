//! `--max-disk`: how much an attempt may write, one budget over every place it can
//! write (docs/agent-protocol.md, "What an agent sees"): its sandbox, `HOME`, `TMPDIR`,
//! the outcome folder and, in namespaces, the host folder shown as its `/tmp`. Each file
//! is capped by `RLIMIT_FSIZE` (the writer gets SIGXFSZ) and a watcher measures the
//! folders together while the agent runs and stops the attempt once they hold more than
//! the limit. The watcher is a best effort: what is written between two looks (a
//! fraction of a second) can pass the limit before the attempt is stopped.

use std::path::PathBuf;
use std::time::Duration;

/// How often the watcher looks, at most: a look that took long (a tree of many small
/// files) waits ten times its own time before the next, so an agent cannot make
/// proctor spend more than a tenth of a core measuring it.
const LOOK_EVERY: Duration = Duration::from_millis(200);
/// A folder tree with more entries than this counts as over any limit: measuring it
/// would cost more than the attempt is worth, and no task seeds that many files.
pub const MAX_ENTRIES: u64 = 200_000;

/// The folders of one attempt that the limit covers, and the limit.
#[derive(Debug, Clone)]
pub struct DiskQuota {
    pub folders: Vec<PathBuf>,
    pub bytes: u64,
}

/// Why the watcher stopped an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// The folders held more than this many bytes.
    Bytes(u64),
    /// They held more than [`MAX_ENTRIES`] files and folders.
    Entries,
}

/// What a look found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    Bytes(u64),
    /// More than [`MAX_ENTRIES`] files and folders.
    TooManyEntries,
}

impl DiskQuota {
    /// Resolves once the folders hold more than the limit (never otherwise).
    pub async fn exceeded(&self) -> Over {
        let mut pause = LOOK_EVERY;
        loop {
            tokio::time::sleep(pause).await;
            let started = std::time::Instant::now();
            if let Some(over) = self.over().await {
                return over;
            }
            pause = LOOK_EVERY.max(started.elapsed() * 10);
        }
    }

    /// Whether the folders hold more than the limit now: also asked once after the
    /// agent exits, so a burst between two looks is still caught.
    pub async fn over(&self) -> Option<Over> {
        let folders = self.folders.clone();
        match tokio::task::spawn_blocking(move || measure(&folders)).await {
            Ok(Usage::TooManyEntries) => Some(Over::Entries),
            Ok(Usage::Bytes(bytes)) if bytes > self.bytes => Some(Over::Bytes(self.bytes)),
            _ => None,
        }
    }
}

/// The bytes the folders occupy on disk (allocated blocks, so a sparse file counts
/// for what it uses), walking without following links.
pub fn measure(folders: &[PathBuf]) -> Usage {
    let mut total = 0_u64;
    let mut entries = 0_u64;
    let mut stack: Vec<PathBuf> = folders.to_vec();
    while let Some(folder) = stack.pop() {
        let Ok(listing) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in listing.flatten() {
            entries += 1;
            if entries > MAX_ENTRIES {
                return Usage::TooManyEntries;
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            total = total.saturating_add(allocated(&meta));
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    Usage::Bytes(total)
}

fn allocated(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.blocks().saturating_mul(512)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_what_is_written_and_not_what_links_point_to() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("big"), vec![1_u8; 1 << 20]).unwrap();
        std::os::unix::fs::symlink(outside.path().join("big"), dir.path().join("link")).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/data"), vec![1_u8; 256 << 10]).unwrap();
        let Usage::Bytes(bytes) = measure(&[dir.path().to_owned()]) else {
            panic!("too many entries");
        };
        assert!(
            (256 << 10..1 << 20).contains(&bytes),
            "{bytes} bytes for a 256 KiB file and a link"
        );
    }

    #[test]
    fn a_sparse_file_counts_for_its_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("sparse")).unwrap();
        file.set_len(10 << 30).unwrap();
        let Usage::Bytes(bytes) = measure(&[dir.path().to_owned()]) else {
            panic!("too many entries");
        };
        assert!(bytes < 1 << 20, "{bytes}");
    }
}
