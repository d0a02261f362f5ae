//! `PROCTOR_ATTEMPTS_SEEN=FILE`: for contributors, an output that reads every field of
//! every attempt and writes each line as it received it, one JSON line per attempt
//! (docs/architecture.md, "Adding an output"). It shows what an output added to `run`,
//! `grade` or `judge` is given: the same whole line from each, whatever the command keeps
//! for its own outputs.

use super::{Attempt, AttemptSink, Reads};
use anyhow::Context;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// The variable that names the file.
pub const VARIABLE: &str = "PROCTOR_ATTEMPTS_SEEN";

#[derive(Debug)]
pub struct AttemptsSeen {
    path: PathBuf,
    out: BufWriter<File>,
}

impl AttemptsSeen {
    /// The output, when the variable names a file; the file is created (truncated).
    pub fn from_env() -> anyhow::Result<Option<AttemptsSeen>> {
        let Some(path) = std::env::var_os(VARIABLE).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let path = PathBuf::from(path);
        let file = File::create(&path).map_err(|e| {
            crate::exit::infrastructure(
                format_args!("{VARIABLE}: cannot create {}", path.display()),
                e,
            )
        })?;
        Ok(Some(AttemptsSeen {
            path,
            out: BufWriter::new(file),
        }))
    }
}

impl AttemptSink for AttemptsSeen {
    fn reads(&self) -> Reads {
        Reads::LINE
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
        let line = attempt
            .line
            .context("an output that reads the whole line was given none")?;
        serde_json::to_writer(&mut self.out, line)
            .map_err(|e| crate::exit::infrastructure(self.path.display(), e))?;
        self.out
            .write_all(b"\n")
            .map_err(|e| crate::exit::infrastructure(self.path.display(), e))
    }

    fn close(&mut self) -> anyhow::Result<()> {
        self.out
            .flush()
            .map_err(|e| crate::exit::infrastructure(self.path.display(), e))
    }
}
