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
    /// A regular file, locked; false for `/dev/stdout`, a pipe and other devices.
    regular: bool,
}

impl ResultWriter {
    /// Creates (truncates) the file, once no other proctor writes it (see [`lock`]).
    pub fn create(path: &Path) -> anyhow::Result<ResultWriter> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                crate::exit::infrastructure(
                    format!("{}: cannot create folder", parent.display()),
                    e,
                )
            })?;
        }
        // Opened without truncating: the file is emptied only once it is ours.
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(path)
            .map_err(|e| {
                crate::exit::infrastructure(format!("{}: cannot write results", path.display()), e)
            })?;
        let regular = lock(&file, path)?;
        if regular {
            file.set_len(0)
                .map_err(|e| infrastructure(path.display(), e))?;
        }
        Ok(ResultWriter {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            line: Vec::new(),
            regular,
        })
    }

    /// Opens the file for appending (`--resume`), creating it if needed, once no other
    /// proctor writes it; a torn last line is cut first, so the next line never glues onto it.
    pub fn append(path: &Path) -> anyhow::Result<ResultWriter> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                crate::exit::infrastructure(format!("{}: cannot append results", path.display()), e)
            })?;
        let regular = lock(&file, path)?;
        let cut =
            end_with_complete_line(&mut file).map_err(|e| infrastructure(path.display(), e))?;
        if cut > 0 {
            eprintln!(
                "proctor: note: {}: cut a torn last line ({cut} bytes) before appending",
                path.display()
            );
        }
        Ok(ResultWriter {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            line: Vec::new(),
            regular,
        })
    }

    /// True when the file is a regular file, locked by this writer; false for
    /// `/dev/stdout`, a pipe or another device.
    pub fn is_regular(&self) -> bool {
        self.regular
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

/// Locks a results file that is read and then replaced whole (`proctor judge`), as long as
/// the returned file is open: no run appends lines that the replacement would drop, and a
/// file a run is writing is refused (exit 2).
pub fn hold_for_replacing(path: &Path) -> anyhow::Result<File> {
    let file = File::open(path)
        .map_err(|e| crate::exit::bad_input!("{}: cannot read results: {e}", path.display()))?;
    lock(&file, path)?;
    Ok(file)
}

/// Takes an exclusive advisory lock (`flock`) on a results file for as long as `file` is
/// open, so that two runs never interleave or truncate each other's lines; a file another
/// process holds is refused at once (exit 2), naming that process when the system says.
/// The kernel drops the lock when its holder exits, however it exits: nothing is left behind.
///
/// True for a regular file, now locked; false for anything else (`/dev/stdout`, a pipe),
/// which is neither locked nor truncated.
fn lock(file: &File, path: &Path) -> anyhow::Result<bool> {
    let regular = file
        .metadata()
        .map_err(|e| infrastructure(path.display(), e))?
        .is_file();
    if !regular {
        return Ok(false);
    }
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = crate::lock_holder::holder(file)
                .map(|pid| format!(" (pid {pid})"))
                .unwrap_or_default();
            crate::exit::bail_input!(
                "{} is being written by another proctor run{holder}; wait for it to end, or choose another --out",
                path.display()
            )
        }
        Err(std::fs::TryLockError::Error(e)) => Err(infrastructure(
            format!("{}: cannot lock results", path.display()),
            e,
        )),
    }
}

/// `R.jsonl.partial` beside `R.jsonl`: a file is written there whole, then moved over it.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".partial");
    path.with_file_name(name)
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
///
/// A last line without its newline that does not read as a result was torn by an
/// interrupted write (possibly inside a UTF-8 character): it is dropped with a note
/// on stderr, not reported as bad input, and `--resume` runs that attempt again.
pub fn for_each_result(
    paths: &[PathBuf],
    mut each: impl FnMut(&Path, ResultLine) -> anyhow::Result<()>,
    bad: impl FnMut(BadResult),
) -> anyhow::Result<()> {
    for_each_result_text(paths, |path, _, line| each(path, line), bad, |_| {})
}

/// As [`for_each_result`], also handing over each line's text (trimmed), for readers that
/// keep fields this version does not model (the HTML report shows them as they are), and
/// each torn last line dropped to `torn` after its note on stderr.
pub fn for_each_result_text(
    paths: &[PathBuf],
    mut each: impl FnMut(&Path, &str, ResultLine) -> anyhow::Result<()>,
    bad: impl FnMut(BadResult),
    torn: impl FnMut(BadResult),
) -> anyhow::Result<()> {
    for_each_result_at(
        paths,
        |_, path, text, line| each(path, text, line),
        bad,
        torn,
    )
}

/// Where a result line is: the index of its file in the list read, and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineAt {
    pub file: usize,
    pub line: usize,
}

/// As [`for_each_result_text`], also saying where each line is.
pub fn for_each_result_at(
    paths: &[PathBuf],
    mut each: impl FnMut(LineAt, &Path, &str, ResultLine) -> anyhow::Result<()>,
    mut bad: impl FnMut(BadResult),
    mut torn: impl FnMut(BadResult),
) -> anyhow::Result<()> {
    for (file_index, path) in paths.iter().enumerate() {
        let file = File::open(path)
            .map_err(|e| crate::exit::bad_input!("{}: cannot read results: {e}", path.display()))?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut buffer = Vec::new();
        let mut number = 0;
        loop {
            buffer.clear();
            let read = reader.read_until(b'\n', &mut buffer).map_err(|e| {
                crate::exit::bad_input!("{}:{}: cannot read: {e}", path.display(), number + 1)
            })?;
            if read == 0 {
                break;
            }
            number += 1;
            let complete = buffer.ends_with(b"\n");
            let parsed = std::str::from_utf8(&buffer)
                .map_err(|e| format!("not UTF-8 (byte {} of the line)", e.valid_up_to()))
                .and_then(|text| {
                    let text = text.trim();
                    if text.is_empty() {
                        Ok(None)
                    } else {
                        ResultLine::parse(text)
                            .map(|line| Some((text, line)))
                            .map_err(|e| e.to_string())
                    }
                });
            match parsed {
                Ok(None) => {}
                Ok(Some((text, line))) => {
                    let at = LineAt {
                        file: file_index,
                        line: number,
                    };
                    each(at, path, text, line)?
                }
                Err(_) if !complete => {
                    let dropped = BadResult {
                        path: path.clone(),
                        line: number,
                        message: format!(
                            "dropped a torn last line ({} bytes, no newline), left by an interrupted write",
                            buffer.len()
                        ),
                    };
                    eprintln!("proctor: note: {dropped}");
                    torn(dropped);
                }
                Err(message) => bad(BadResult {
                    path: path.clone(),
                    line: number,
                    message,
                }),
            }
        }
    }
    Ok(())
}

/// Makes `file` end with a complete line before results are appended to it: a torn
/// last line (one without its newline that does not read as a result) is cut off,
/// a whole one gets its newline. Returns the bytes cut.
fn end_with_complete_line(file: &mut File) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let length = file.seek(SeekFrom::End(0))?;
    if length == 0 {
        return Ok(0);
    }
    // Find the last newline, reading backwards in blocks.
    let mut end = length;
    let mut last_newline: Option<u64> = None;
    let mut block = vec![0u8; 1 << 16];
    while end > 0 && last_newline.is_none() {
        let start = end.saturating_sub(block.len() as u64);
        let size = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block[..size])?;
        last_newline = block[..size]
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|i| start + i as u64);
        end = start;
    }
    let keep = last_newline.map_or(0, |i| i + 1);
    if keep == length {
        return Ok(0);
    }
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(keep))?;
    file.read_to_end(&mut tail)?;
    let whole = std::str::from_utf8(&tail)
        .ok()
        .is_some_and(|text| ResultLine::parse(text.trim()).is_ok());
    if whole {
        file.seek(SeekFrom::End(0))?;
        file.write_all(b"\n")?;
        return Ok(0);
    }
    file.set_len(keep)?;
    Ok(length - keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"format":"proctor.result/1","task":"t","attempt":0,"passed":true,"reasons":[],"status":"final","answer":"é"}"#;

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        // The tear falls inside the two bytes of "é".
        let torn = &LINE.as_bytes()[..LINE.find('é').unwrap() + 1];
        let mut text = format!("{LINE}\n{LINE}\n").into_bytes();
        text.extend_from_slice(torn);
        std::fs::write(&path, &text).unwrap();
        let (mut good, mut bad) = (0, 0);
        for_each_result(
            std::slice::from_ref(&path),
            |_, _| {
                good += 1;
                Ok(())
            },
            |_| bad += 1,
        )
        .unwrap();
        assert_eq!((good, bad), (2, 0));
        let mut writer = ResultWriter::append(&path).unwrap();
        writer.write_text(&[LINE.as_bytes(), b"\n"]).unwrap();
        writer.finish().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written, format!("{LINE}\n{LINE}\n{LINE}\n"));
    }

    #[test]
    fn one_writer_per_regular_file_and_devices_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let first = ResultWriter::create(&path).unwrap();
        let second = ResultWriter::create(&path).unwrap_err().to_string();
        assert!(
            second.contains("is being written by another proctor run"),
            "{second}"
        );
        assert!(ResultWriter::append(&path).is_err());
        first.finish().unwrap();
        ResultWriter::append(&path).unwrap().finish().unwrap();
        // Not a regular file: neither locked nor truncated, as before.
        let null = Path::new("/dev/null");
        let a = ResultWriter::create(null).unwrap();
        let b = ResultWriter::create(null).unwrap();
        a.finish().unwrap();
        b.finish().unwrap();
    }

    #[test]
    fn a_whole_last_line_without_newline_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, LINE).unwrap();
        let mut writer = ResultWriter::append(&path).unwrap();
        writer.write_text(&[LINE.as_bytes(), b"\n"]).unwrap();
        writer.finish().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written, format!("{LINE}\n{LINE}\n"));
        let bad_inside = dir.path().join("bad.jsonl");
        std::fs::write(&bad_inside, b"{\xff}\n").unwrap();
        let mut messages = Vec::new();
        for_each_result(&[bad_inside], |_, _| Ok(()), |b| messages.push(b.message)).unwrap();
        assert_eq!(messages, ["not UTF-8 (byte 1 of the line)"]);
    }
}
