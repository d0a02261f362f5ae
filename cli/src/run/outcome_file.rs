//! Reading the file at `PROCTOR_OUTCOME` (docs/agent-protocol.md): the agent controls it, so it
//! is opened without following a symlink and without blocking on a FIFO, and must
//! be a regular file of at most [`OUTCOME_FILE_LIMIT`] bytes.

use proctor_core::agent_file::{AgentFileError, read_bounded};
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
    match read_bounded(path, OUTCOME_FILE_LIMIT) {
        Ok(bytes) => OutcomeFile::Bytes(bytes),
        Err(AgentFileError::Missing) => OutcomeFile::Missing,
        Err(error) => OutcomeFile::Refused(format!("outcome file: {error}")),
    }
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
