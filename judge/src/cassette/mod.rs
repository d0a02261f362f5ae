//! Record/replay of judge calls: one pretty-printed JSON file per request, named by the
//! SHA-256 of the canonical request, so that grading is offline and deterministic.

mod closest;
mod key;
mod recording;
mod replay;
mod store;

pub use key::{CanonicalRequest, Parameters};
pub use recording::{CASSETTE_FORMAT, Recording};
pub use replay::answer;
pub use store::Cassette;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// How a cassette is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CassetteMode {
    /// Only recorded answers; a miss is an error. The default: CI never calls out.
    #[default]
    Replay,
    /// Always call the model and (re)write the recording.
    Record,
    /// Replay what is recorded, call and record the rest.
    Auto,
}

impl CassetteMode {
    /// The mode as `--cassette-mode` spells it: `replay`, `record`, `auto`.
    pub fn name(self) -> &'static str {
        match self {
            CassetteMode::Replay => "replay",
            CassetteMode::Record => "record",
            CassetteMode::Auto => "auto",
        }
    }
}

impl fmt::Display for CassetteMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CassetteMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "replay" => Ok(CassetteMode::Replay),
            "record" => Ok(CassetteMode::Record),
            "auto" => Ok(CassetteMode::Auto),
            other => Err(format!(
                "unknown cassette mode {other:?}; expected replay, record or auto"
            )),
        }
    }
}

/// A cassette failure; messages name the key or file.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    /// Replay found no recording for the request.
    #[error(
        "cassette miss in {dir}: no recording for key {key} ({summary}); {closest}; record it with --cassette-mode record or auto"
    )]
    Miss {
        /// The cassette directory.
        dir: PathBuf,
        /// The request's key (the file `<key>.json` that is missing).
        key: String,
        /// The request in one line: provider, model, template, sample.
        summary: String,
        /// The nearest recorded request and how it differs, or that there is none.
        closest: String,
    },
    /// A recording could not be read, or is not a recording.
    #[error("cassette file {path} is unreadable: {detail}")]
    Corrupt {
        /// The cassette file.
        path: PathBuf,
        /// The I/O or JSON error.
        detail: String,
    },
    /// The file named by a request's key records another request: its answer would
    /// answer another question.
    #[error(
        "cassette file {path} holds a different request than its key {key} names (edited by hand?)"
    )]
    Mismatch {
        /// The cassette file.
        path: PathBuf,
        /// The key the file is named by.
        key: String,
    },
    /// A recording could not be written (record and auto modes).
    #[error("cannot write cassette file {path}: {source}")]
    Write {
        /// The directory, temporary file or recording that failed.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_default_to_replay() {
        assert_eq!(CassetteMode::default(), CassetteMode::Replay);
        assert_eq!("record".parse(), Ok(CassetteMode::Record));
        assert_eq!("AUTO".parse(), Ok(CassetteMode::Auto));
        assert!(
            "rewind"
                .parse::<CassetteMode>()
                .unwrap_err()
                .contains("\"rewind\"")
        );
    }
}
