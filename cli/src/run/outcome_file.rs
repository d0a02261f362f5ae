//! Reading the file at `PROCTOR_OUTCOME` (DESIGN 11): the agent controls it, so it
//! is opened without following a symlink and without blocking on a FIFO, and must
//! be a regular file of at most [`OUTCOME_FILE_LIMIT`] bytes.

use nix::libc;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The largest outcome file read.
pub const OUTCOME_FILE_LIMIT: u64 = 8 << 20;

/// What the agent left at its outcome path.
#[derive(Debug, PartialEq, Eq)]
pub enum OutcomeFile {
    /// Nothing: the outcome comes from stdout.
    Missing,
    Bytes(Vec<u8>),
    /// Something that must not be read; the text says what, for the attempt's error.
    Refused(String),
}

/// Reads the outcome file, bounded and without blocking.
pub fn read_outcome_file(path: &Path) -> OutcomeFile {
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return OutcomeFile::Missing,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return OutcomeFile::Refused("outcome file: a symlink, not a regular file".to_owned());
        }
        Err(e) => return OutcomeFile::Refused(format!("outcome file: cannot open: {e}")),
    };
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(e) => return OutcomeFile::Refused(format!("outcome file: {e}")),
    };
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_dir() {
            "a folder"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return OutcomeFile::Refused(format!("outcome file: {what}, not a regular file"));
    }
    if meta.len() > OUTCOME_FILE_LIMIT {
        return OutcomeFile::Refused(over_limit(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may still grow (a process the agent left behind): never read past the cap.
    match file.take(OUTCOME_FILE_LIMIT + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 > OUTCOME_FILE_LIMIT => {
            OutcomeFile::Refused(over_limit(bytes.len() as u64))
        }
        Ok(_) => OutcomeFile::Bytes(bytes),
        Err(e) => OutcomeFile::Refused(format!("outcome file: cannot read: {e}")),
    }
}

fn over_limit(size: u64) -> String {
    format!(
        "outcome file: {} bytes is over the {} MiB limit",
        size,
        OUTCOME_FILE_LIMIT >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(outcome: OutcomeFile) -> String {
        match outcome {
            OutcomeFile::Refused(why) => why,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn regular_files_are_read_and_missing_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outcome.json");
        assert_eq!(read_outcome_file(&path), OutcomeFile::Missing);
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(read_outcome_file(&path), OutcomeFile::Bytes(b"{}".to_vec()));
    }

    #[test]
    fn links_fifos_devices_and_huge_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outcome.json");
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(refused(read_outcome_file(&path)).contains("a symlink"));
        std::fs::remove_file(&path).unwrap();
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(refused(read_outcome_file(&path)).contains("a FIFO"));
        std::fs::remove_file(&path).unwrap();
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(OUTCOME_FILE_LIMIT + 1).unwrap();
        assert!(refused(read_outcome_file(&path)).contains("over the 8 MiB limit"));
        assert!(refused(read_outcome_file(Path::new("/dev/null"))).contains("a device"));
    }
}
