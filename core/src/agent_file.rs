//! Reading files an agent left behind (docs/agent-protocol.md). The agent controls them, so a
//! file is opened without following a symlink and without blocking on a FIFO, must
//! be a regular file, and is read up to a cap: a 6 GiB file or a link to
//! `/dev/zero` costs a `stat`, not the machine's memory.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why an agent's file was not read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AgentFileError {
    /// No file at the path.
    #[error("missing")]
    Missing,
    /// Something other than a regular file (a symlink, a fifo, ...), named.
    #[error("{0}, not a regular file")]
    NotRegular(&'static str),
    /// The file is over the size limit.
    #[error("{} is over the {} limit", human_size(*.size), human_size(*.limit))]
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Reading failed; the I/O error's text.
    #[error("cannot read: {0}")]
    Io(String),
}

/// Opens `path` for reading: no symlink followed (at the last component), no
/// blocking open, a regular file only. Returns the file and its size.
pub fn open_regular(path: &Path) -> Result<(File, u64), AgentFileError> {
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(AgentFileError::Missing),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(AgentFileError::NotRegular("a symlink"));
        }
        Err(e) => return Err(AgentFileError::Io(e.to_string())),
    };
    let meta = file
        .metadata()
        .map_err(|e| AgentFileError::Io(e.to_string()))?;
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok((file, meta.len()));
    }
    Err(AgentFileError::NotRegular(if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a device"
    }))
}

/// The whole of the regular file at `path`, if it holds at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, AgentFileError> {
    let (file, size) = open_regular(path)?;
    if size > limit {
        return Err(AgentFileError::TooLarge { size, limit });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // The file may still grow (a process the agent left behind): never read past the cap.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| AgentFileError::Io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(AgentFileError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// `6.0 GiB`, `16 MiB`, `512 bytes`: sizes as a reader wants them in a reason.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else if value.fract() == 0.0 && bytes.is_power_of_two() {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_the_design_says() {
        assert_eq!(human_size(6 << 30), "6.0 GiB");
        assert_eq!(human_size(16 << 20), "16 MiB");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(12), "12 bytes");
        let error = AgentFileError::TooLarge {
            size: 6 << 30,
            limit: 16 << 20,
        };
        assert_eq!(error.to_string(), "6.0 GiB is over the 16 MiB limit");
    }

    #[test]
    fn only_bounded_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read_bounded(&file, 5), Ok(b"hello".to_vec()));
        assert_eq!(
            read_bounded(&file, 4),
            Err(AgentFileError::TooLarge { size: 5, limit: 4 })
        );
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert_eq!(
            read_bounded(&link, 1 << 20),
            Err(AgentFileError::NotRegular("a symlink"))
        );
        assert_eq!(
            read_bounded(Path::new("/dev/null"), 1),
            Err(AgentFileError::NotRegular("a device"))
        );
        assert_eq!(
            read_bounded(&dir.path().join("none"), 1),
            Err(AgentFileError::Missing)
        );
    }
}
