//! Reading and writing `proctor.result/1` files.

use crate::exit::infrastructure;
use proctor_core::result::ResultLine;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes result lines; each line is written whole.
#[derive(Debug)]
pub struct ResultWriter {
    path: PathBuf,
    out: BufWriter<File>,
    /// One line's text, reused so that writing a line allocates nothing.
    line: Vec<u8>,
}

impl ResultWriter {
    /// Creates (truncates) the file.
    pub fn create(path: &Path) -> anyhow::Result<ResultWriter> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", parent.display()))?;
        }
        let file = File::create(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot write results: {e}", path.display()))?;
        Ok(ResultWriter {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            line: Vec::new(),
        })
    }

    /// Opens the file for appending (`--resume`), creating it if needed.
    pub fn append(path: &Path) -> anyhow::Result<ResultWriter> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot append results: {e}", path.display()))?;
        Ok(ResultWriter {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            line: Vec::new(),
        })
    }

    /// Writes one line and hands it to the operating system at once, so a crash of
    /// proctor loses at most the attempts still running.
    pub fn write_now(&mut self, line: &ResultLine) -> anyhow::Result<()> {
        self.write(line)?;
        self.out
            .flush()
            .map_err(|e| infrastructure(self.path.display(), e))
    }

    pub fn write(&mut self, line: &ResultLine) -> anyhow::Result<()> {
        // The whole line is built before any of it is written.
        self.line.clear();
        line.write_json(&mut self.line);
        self.line.push(b'\n');
        self.out
            .write_all(&self.line)
            .map_err(|e| infrastructure(self.path.display(), e))
    }

    /// Writes one line already serialised (newline included), given in parts.
    pub fn write_text(&mut self, parts: &[&[u8]]) -> anyhow::Result<()> {
        parts
            .iter()
            .try_for_each(|part| self.out.write_all(part))
            .map_err(|e| infrastructure(self.path.display(), e))
    }

    pub fn finish(mut self) -> anyhow::Result<()> {
        self.out
            .flush()
            .map_err(|e| infrastructure(self.path.display(), e))
    }
}

/// A result line that could not be read.
#[derive(Debug)]
pub struct BadResult {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for BadResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// Streams every result line of `paths`, in order, to `each`; bad lines go to `bad`.
pub fn for_each_result(
    paths: &[PathBuf],
    mut each: impl FnMut(&Path, ResultLine) -> anyhow::Result<()>,
    bad: impl FnMut(BadResult),
) -> anyhow::Result<()> {
    for_each_result_text(paths, |path, _, line| each(path, line), bad)
}

/// As [`for_each_result`], also handing over each line's text (trimmed), for readers that
/// keep fields this version does not model (the HTML report shows them as they are).
pub fn for_each_result_text(
    paths: &[PathBuf],
    mut each: impl FnMut(&Path, &str, ResultLine) -> anyhow::Result<()>,
    mut bad: impl FnMut(BadResult),
) -> anyhow::Result<()> {
    for path in paths {
        let file = File::open(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read results: {e}", path.display()))?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut buffer = String::new();
        let mut number = 0;
        loop {
            buffer.clear();
            let read = reader.read_line(&mut buffer).map_err(|e| {
                anyhow::anyhow!("{}:{}: cannot read: {e}", path.display(), number + 1)
            })?;
            if read == 0 {
                break;
            }
            number += 1;
            if buffer.trim().is_empty() {
                continue;
            }
            match ResultLine::parse(buffer.trim()) {
                Ok(line) => each(path, buffer.trim(), line)?,
                Err(e) => bad(BadResult {
                    path: path.clone(),
                    line: number,
                    message: e.to_string(),
                }),
            }
        }
    }
    Ok(())
}
