//! The results file (`--out`): one `proctor.result/1` line per attempt.

use super::{Attempt, AttemptSink, Reads, Text};
use crate::results_file::{ResultWriter, partial_path};
use std::path::{Path, PathBuf};

/// Writes every attempt's result line.
#[derive(Debug)]
pub struct ResultsOut {
    writer: Option<ResultWriter>,
    /// Hands each line to the operating system as it is written (`run`: a crash loses
    /// only the attempts still running).
    at_once: bool,
    /// Where the file is moved once whole (`judge`: the file it replaces).
    replaces: Option<(PathBuf, PathBuf)>,
}

impl ResultsOut {
    /// Writes into `writer` when there is one, opened already (its lock is taken before anything runs).
    pub fn new(writer: Option<ResultWriter>, at_once: bool) -> ResultsOut {
        ResultsOut {
            writer,
            at_once,
            replaces: None,
        }
    }

    /// Writes a new `path` beside it, moved over it on closing: an interrupted command
    /// leaves the file as it was.
    pub fn replacing(path: &Path) -> anyhow::Result<ResultsOut> {
        let partial = partial_path(path);
        Ok(ResultsOut {
            writer: Some(ResultWriter::create(&partial)?),
            at_once: false,
            replaces: Some((partial, path.to_owned())),
        })
    }
}

impl AttemptSink for ResultsOut {
    fn reads(&self) -> Reads {
        match self.writer {
            Some(_) => Reads::TEXT,
            None => Reads::NOTHING,
        }
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
        let Some(writer) = self.writer.as_mut() else {
            return Ok(());
        };
        match (attempt.text, attempt.line) {
            (Text::Parts(parts), _) => writer.write_text(parts),
            (Text::Line, Some(line)) if self.at_once => writer.write_now(line),
            (Text::Line, Some(line)) => writer.write(line),
            (Text::Line, None) | (Text::Batched, _) => Ok(()),
        }
    }

    fn batch(&mut self, text: &[u8]) -> anyhow::Result<()> {
        match self.writer.as_mut() {
            Some(writer) => writer.write_text(&[text]),
            None => Ok(()),
        }
    }

    fn close(&mut self) -> anyhow::Result<()> {
        if let Some(writer) = self.writer.take() {
            writer.finish()?;
        }
        if let Some((partial, path)) = self.replaces.take() {
            std::fs::rename(&partial, &path)
                .map_err(|e| crate::exit::infrastructure(path.display(), e))?;
        }
        Ok(())
    }
}
