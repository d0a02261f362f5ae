//! Appending rows to a ledger: whole rows only, under an exclusive file lock, never
//! rewriting a row already there, and skipping rows the ledger already holds.

use super::error::LedgerError;
use super::key::row_key;
use super::read::LedgerReader;
use super::row::{LedgerRow, csv_writer, write_header};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes of new rows gathered before each write to the ledger.
const CHUNK: usize = 1 << 20;

/// Rows waiting to be appended, kept in an anonymous temporary file so that memory stays
/// flat however many there are (grading a large log with `--ledger`).
#[derive(Debug)]
pub struct LedgerBatch {
    out: csv::Writer<BufWriter<File>>,
    rows: u64,
}

/// What an append did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AppendReport {
    /// Rows written.
    pub added: u64,
    /// Rows skipped because the ledger (or the batch itself) already held them.
    pub duplicates: u64,
}

impl LedgerBatch {
    /// An empty batch.
    ///
    /// # Errors
    ///
    /// When no temporary file can be made.
    pub fn new() -> Result<LedgerBatch, LedgerError> {
        let file = tempfile::tempfile()
            .map_err(|e| LedgerError::io(Path::new("<temporary file>"), "cannot create", e))?;
        let mut out = csv_writer(BufWriter::with_capacity(1 << 16, file));
        write_header(&mut out).map_err(|e| tmp_error(e.into()))?;
        Ok(LedgerBatch { out, rows: 0 })
    }

    /// Adds a row.
    ///
    /// # Errors
    ///
    /// When the temporary file cannot be written.
    pub fn push(&mut self, row: &LedgerRow) -> Result<(), LedgerError> {
        row.write(&mut self.out).map_err(|e| tmp_error(e.into()))?;
        self.rows += 1;
        Ok(())
    }

    /// How many rows were pushed.
    pub fn len(&self) -> u64 {
        self.rows
    }

    /// Whether no row was pushed.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends the batch to `ledger` (created with its header if missing).
    ///
    /// Holds an exclusive lock on the ledger from reading its rows to the last write, so
    /// two processes appending at once each add whole rows and lose none; a row whose
    /// identity the ledger already holds is skipped. A write that fails part way (a full
    /// disk) is cut off again: the ledger is left as it was, and still reads.
    ///
    /// # Errors
    ///
    /// [`LedgerError`] when the ledger cannot be opened, locked or written, its header is
    /// not this version's, a row in it is malformed, or a row is from a newer version.
    pub fn commit(self, ledger: &Path) -> Result<AppendReport, LedgerError> {
        self.commit_with(ledger, &mut |file, bytes| file.write_all(bytes))
    }

    /// [`LedgerBatch::commit`], writing each run of whole rows with `write_all`.
    fn commit_with(
        self,
        ledger: &Path,
        write_all: WriteAll<'_>,
    ) -> Result<AppendReport, LedgerError> {
        let mut pending = self
            .out
            .into_inner()
            .map_err(|e| tmp_error(e.into_error()))?
            .into_inner()
            .map_err(|e| tmp_error(e.into_error()))?;
        pending.seek(SeekFrom::Start(0)).map_err(tmp_error)?;
        if let Some(parent) = ledger.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| LedgerError::io(parent, "cannot create folder", e))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(ledger)
            .map_err(|e| LedgerError::io(ledger, "cannot open ledger", e))?;
        file.lock()
            .map_err(|e| LedgerError::io(ledger, "cannot lock ledger", e))?;
        let result = append_locked(&mut file, ledger, pending, write_all);
        let unlocked = file.unlock();
        let report = result?;
        unlocked.map_err(|e| LedgerError::io(ledger, "cannot unlock ledger", e))?;
        Ok(report)
    }
}

/// Appends `rows` to `ledger` in one locked batch (see [`LedgerBatch::commit`]).
///
/// # Errors
///
/// As [`LedgerBatch::commit`].
pub fn append_rows(ledger: &Path, rows: &[LedgerRow]) -> Result<AppendReport, LedgerError> {
    let mut batch = LedgerBatch::new()?;
    for row in rows {
        batch.push(row)?;
    }
    batch.commit(ledger)
}

/// Writes bytes to the ledger: `write_all`, but a test makes it fail part way, as a full
/// disk does.
type WriteAll<'a> = &'a mut dyn FnMut(&mut File, &[u8]) -> std::io::Result<()>;

fn tmp_error(e: std::io::Error) -> LedgerError {
    LedgerError::io(
        Path::new("<temporary file>"),
        "cannot write pending ledger rows",
        e,
    )
}

/// Remembers the last byte read, to know whether the file ends with a line end.
struct LastByte<R> {
    inner: R,
    last: Option<u8>,
}

impl<R: Read> Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }
}

/// Reads the locked ledger's rows, then appends the new ones. Any failure to write them
/// (a full disk mid-row) cuts the ledger back to its length before: a partial row would
/// break every later read of it.
fn append_locked(
    file: &mut File,
    path: &Path,
    pending: File,
    write_all: WriteAll<'_>,
) -> Result<AppendReport, LedgerError> {
    let length = file
        .metadata()
        .map_err(|e| LedgerError::io(path, "cannot read ledger", e))?
        .len();
    let empty = length == 0;
    let mut seen: HashSet<u128> = HashSet::new();
    let mut needs_line_end = false;
    if !empty {
        let mut tracked = LastByte {
            inner: BufReader::with_capacity(1 << 16, &*file),
            last: None,
        };
        let mut reader = LedgerReader::new(path, &mut tracked)?;
        if !reader.header_is_current() {
            // A row from a newer version says so more usefully than the header does.
            while reader.next_row()?.is_some() {}
            return Err(LedgerError::At {
                path: path.to_owned(),
                line: 1,
                column: 1,
                message: format!(
                    "the header is not this proctor's ({}); rows would not line up, so nothing was added",
                    super::LEDGER_COLUMNS.join(",")
                ),
            });
        }
        while let Some(row) = reader.next_row()? {
            seen.insert(row_key(&row));
        }
        drop(reader);
        needs_line_end = tracked.last.is_some_and(|b| b != b'\n');
    }
    let written = write_rows(file, path, pending, seen, empty, needs_line_end, write_all);
    if written.is_err() {
        file.set_len(length)
            .and_then(|()| file.sync_data())
            .map_err(|e| LedgerError::io(path, "cannot remove a partial append from", e))?;
    }
    written
}

/// Writes the pending rows the ledger does not hold yet (and its header when `empty`).
fn write_rows(
    file: &mut File,
    path: &Path,
    pending: File,
    mut seen: HashSet<u128>,
    empty: bool,
    needs_line_end: bool,
    write_all: WriteAll<'_>,
) -> Result<AppendReport, LedgerError> {
    let mut chunk = csv_writer(Vec::with_capacity(CHUNK + 4096));
    if empty {
        write_header(&mut chunk).map_err(|e| write_error(path, e.into()))?;
    } else if needs_line_end {
        write_all(file, b"\n").map_err(|e| write_error(path, e))?;
    }
    let mut report = AppendReport::default();
    let mut rows = LedgerReader::new(Path::new("<pending rows>"), BufReader::new(pending))?;
    while let Some(row) = rows.next_row()? {
        if !seen.insert(row_key(&row)) {
            report.duplicates += 1;
            continue;
        }
        chunk
            .write_byte_record(row.record())
            .map_err(|e| write_error(path, e.into()))?;
        report.added += 1;
        if chunk.get_ref().len() >= CHUNK {
            // `get_ref` sees what the csv writer has passed on; the rest follows in the flush.
            flush_chunk(&mut chunk, file, path, write_all)?;
        }
    }
    flush_chunk(&mut chunk, file, path, write_all)?;
    file.sync_data().map_err(|e| write_error(path, e))?;
    Ok(report)
}

fn flush_chunk(
    chunk: &mut csv::Writer<Vec<u8>>,
    file: &mut File,
    path: &Path,
    write_all: WriteAll<'_>,
) -> Result<(), LedgerError> {
    let full = std::mem::replace(chunk, csv_writer(Vec::with_capacity(CHUNK + 4096)));
    let bytes = full
        .into_inner()
        .map_err(|e| write_error(path, e.into_error()))?;
    // Only whole rows: the csv writer holds none back once taken apart.
    write_all(file, &bytes).map_err(|e| write_error(path, e))
}

fn write_error(path: &Path, e: std::io::Error) -> LedgerError {
    LedgerError::io(path, "cannot append to ledger", e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TokenCounts;
    use proctor_core::result::CallRole;

    fn row(task: &str, attempt: u64) -> LedgerRow {
        LedgerRow {
            recorded_at: "2026-11-23T09:01:00Z".into(),
            run_id: "r1".into(),
            suite: "refunds".into(),
            label: "v1".into(),
            task: task.into(),
            attempt,
            passed: Some(true),
            role: CallRole::Agent,
            provider: "anthropic".into(),
            model: "claude-haiku-4-5".into(),
            tokens: TokenCounts {
                input_tokens: 10,
                output_tokens: 5,
                ..Default::default()
            },
            cost_usd: None,
            price_id: String::new(),
            service_tier: String::new(),
            calls: 1,
        }
    }

    #[test]
    fn a_disk_that_fills_mid_row_leaves_the_ledger_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.csv");
        append_rows(&path, &[row("a", 0), row("a", 1)]).unwrap();
        let before = std::fs::read(&path).unwrap();
        // Rows of more than one chunk, on a disk with room for 1.5 chunks: the first write
        // goes through whole, the second only in part.
        let mut batch = LedgerBatch::new().unwrap();
        for attempt in 0..30_000 {
            batch
                .push(&row(&format!("task {attempt}"), attempt))
                .unwrap();
        }
        let mut room = CHUNK + CHUNK / 2;
        let mut full_disk = |file: &mut File, bytes: &[u8]| {
            let fits = bytes.len().min(room);
            file.write_all(&bytes[..fits])?;
            room -= fits;
            if fits < bytes.len() {
                return Err(std::io::ErrorKind::StorageFull.into());
            }
            Ok(())
        };
        let error = batch.commit_with(&path, &mut full_disk).unwrap_err();
        assert!(
            error.to_string().contains("cannot append to ledger"),
            "{error}"
        );
        assert_eq!(room, 0, "the disk filled");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        // The ledger still reads, and takes the rows once there is room.
        let report = append_rows(&path, &[row("a", 1), row("b", 0)]).unwrap();
        assert_eq!((report.added, report.duplicates), (1, 1));
    }
}
