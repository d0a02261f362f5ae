//! Streaming reader of a ledger: one reused record, so memory stays flat however long the
//! ledger is; every value is checked where it is read, and a bad one names its line and
//! column.

use super::columns::{Col, Columns, FORMAT_PREFIX, FORMAT_VERSION, LEDGER_FORMAT};
use super::error::LedgerError;
use super::guard::unguard_bytes;
use super::row::LedgerRow;
use crate::TokenCounts;
use crate::time::parse_time_text;
use jiff::Timestamp;
use proctor_core::result::CallRole;
use rust_decimal::Decimal;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Reads a ledger row by row.
#[derive(Debug)]
pub struct LedgerReader<R> {
    path: PathBuf,
    reader: csv::Reader<R>,
    columns: Columns,
    record: csv::ByteRecord,
}

impl LedgerReader<File> {
    /// Opens a ledger and reads its header.
    ///
    /// # Errors
    ///
    /// [`LedgerError`] when the file cannot be read or its header lacks a column.
    pub fn open(path: &Path) -> Result<LedgerReader<File>, LedgerError> {
        let file = File::open(path).map_err(|e| LedgerError::io(path, "cannot read ledger", e))?;
        LedgerReader::new(path, file)
    }
}

impl<R: Read> LedgerReader<R> {
    /// Reads the header from `input`; `path` names it in messages.
    ///
    /// # Errors
    ///
    /// As [`LedgerReader::open`].
    pub fn new(path: &Path, input: R) -> Result<LedgerReader<R>, LedgerError> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .buffer_capacity(1 << 16)
            .from_reader(input);
        let header = reader
            .byte_headers()
            .map_err(|e| csv_error(path, e))?
            .clone();
        let columns = Columns::from_header(header.iter()).map_err(|message| LedgerError::At {
            path: path.to_owned(),
            line: 1,
            column: 1,
            message,
        })?;
        Ok(LedgerReader {
            path: path.to_owned(),
            reader,
            columns,
            record: csv::ByteRecord::new(),
        })
    }

    /// Whether the header is exactly this version's (so rows may be appended).
    pub fn header_is_current(&self) -> bool {
        self.columns.exact
    }

    /// The next row, or `None` at the end. Rows of a newer format version are refused.
    ///
    /// # Errors
    ///
    /// [`LedgerError`] for unreadable input, a row with the wrong number of fields, or a
    /// `format` this proctor does not read.
    pub fn next_row(&mut self) -> Result<Option<RawRow<'_>>, LedgerError> {
        let more = self
            .reader
            .read_byte_record(&mut self.record)
            .map_err(|e| csv_error(&self.path, e))?;
        if !more {
            return Ok(None);
        }
        check_utf8(&self.path, &self.record)?;
        let row = RawRow {
            record: &self.record,
            columns: &self.columns,
            path: &self.path,
        };
        row.check_format()?;
        Ok(Some(row))
    }

    /// The file's name, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Refuses a row that is not UTF-8, naming the file, line, field and byte offset
/// (the offset counts one delimiter between fields and no quotes).
fn check_utf8(path: &Path, record: &csv::ByteRecord) -> Result<(), LedgerError> {
    let Err(error) = std::str::from_utf8(record.as_slice()) else {
        return Ok(());
    };
    let bad = error.valid_up_to();
    let field = (0..record.len())
        .find(|&i| record.range(i).is_some_and(|r| r.contains(&bad)))
        .unwrap_or(0);
    let start = record.position().map_or(0, csv::Position::byte);
    Err(LedgerError::At {
        path: path.to_owned(),
        line: record.position().map_or(0, csv::Position::line),
        column: field + 1,
        message: format!(
            "not UTF-8 at byte {}; ledger files must be UTF-8",
            start + bad as u64 + field as u64
        ),
    })
}

fn csv_error(path: &Path, e: csv::Error) -> LedgerError {
    let line = e.position().map_or(0, csv::Position::line);
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => LedgerError::At {
            path: path.to_owned(),
            line,
            column: 1,
            message: format!("expected {expected_len} fields like the header, found {len}"),
        },
        csv::ErrorKind::Io(io) => LedgerError::Io {
            path: path.to_owned(),
            what: "cannot read ledger",
            source: std::io::Error::new(io.kind(), io.to_string()),
        },
        _ => LedgerError::At {
            path: path.to_owned(),
            line,
            column: 1,
            message: e.to_string(),
        },
    }
}

/// One row as read, checked field by field on access.
#[derive(Debug, Clone, Copy)]
pub struct RawRow<'r> {
    record: &'r csv::ByteRecord,
    columns: &'r Columns,
    path: &'r Path,
}

impl<'r> RawRow<'r> {
    /// The 1-based line the row starts on.
    pub fn line(&self) -> u64 {
        self.record.position().map_or(0, csv::Position::line)
    }

    /// The error for `col` of this row.
    pub fn error(&self, col: Col, message: impl std::fmt::Display) -> LedgerError {
        LedgerError::At {
            path: self.path.to_owned(),
            line: self.line(),
            column: self.columns.get(col).map_or(1, |i| i + 1),
            message: format!("{}: {message}", col.name()),
        }
    }

    /// The cell's bytes, formula guard removed; empty for an absent optional column.
    pub fn bytes(&self, col: Col) -> &'r [u8] {
        match self.columns.get(col).and_then(|i| self.record.get(i)) {
            Some(cell) => unguard_bytes(cell),
            None => b"",
        }
    }

    /// The cell as text.
    pub fn text(&self, col: Col) -> Result<&'r str, LedgerError> {
        std::str::from_utf8(self.bytes(col)).map_err(|_| self.error(col, "not UTF-8 text"))
    }

    /// A non-negative integer cell (token counts, attempt, calls).
    pub fn count(&self, col: Col) -> Result<u64, LedgerError> {
        let bytes = self.bytes(col);
        parse_u64(bytes).ok_or_else(|| {
            self.error(
                col,
                format!(
                    "expected a non-negative integer, found {:?}",
                    String::from_utf8_lossy(bytes)
                ),
            )
        })
    }

    /// An optional count: absent columns and empty cells read as `default`.
    fn count_or(&self, col: Col, default: u64) -> Result<u64, LedgerError> {
        if self.bytes(col).is_empty() {
            Ok(default)
        } else {
            self.count(col)
        }
    }

    /// `cost_usd`: empty when unpriced, else a non-negative decimal.
    pub fn cost(&self) -> Result<Option<Decimal>, LedgerError> {
        let text = self.text(Col::CostUsd)?;
        if text.is_empty() {
            return Ok(None);
        }
        match Decimal::from_str(text) {
            Ok(d) if !d.is_sign_negative() || d.is_zero() => Ok(Some(d)),
            _ => Err(self.error(
                Col::CostUsd,
                format!("expected a non-negative decimal or nothing (unpriced), found {text:?}"),
            )),
        }
    }

    /// `passed`: `true`, `false`, or empty when ungraded.
    pub fn passed(&self) -> Result<Option<bool>, LedgerError> {
        match self.bytes(Col::Passed) {
            b"true" => Ok(Some(true)),
            b"false" => Ok(Some(false)),
            b"" => Ok(None),
            other => Err(self.error(
                Col::Passed,
                format!(
                    "expected true, false or nothing (ungraded), found {:?}",
                    String::from_utf8_lossy(other)
                ),
            )),
        }
    }

    /// `role`: `agent` or `judge`.
    pub fn role(&self) -> Result<CallRole, LedgerError> {
        match self.bytes(Col::Role) {
            b"agent" => Ok(CallRole::Agent),
            b"judge" => Ok(CallRole::Judge),
            other => Err(self.error(
                Col::Role,
                format!(
                    "expected agent or judge, found {:?}",
                    String::from_utf8_lossy(other)
                ),
            )),
        }
    }

    /// `recorded_at` as a time.
    pub fn recorded_at(&self) -> Result<Timestamp, LedgerError> {
        let text = self.text(Col::RecordedAt)?;
        parse_time_text(text).ok_or_else(|| {
            self.error(
                Col::RecordedAt,
                format!("expected an RFC 3339 time, found {text:?}"),
            )
        })
    }

    /// The token columns, checked: the 1-hour writes may not exceed all writes.
    pub fn tokens(&self) -> Result<TokenCounts, LedgerError> {
        let writes = self.count(Col::CacheWriteTokens)?;
        let writes_1h = self.count_or(Col::CacheWrite1hTokens, 0)?;
        if writes_1h > writes {
            return Err(self.error(
                Col::CacheWrite1hTokens,
                format!("{writes_1h} is more than the {writes} in cache_write_tokens, which includes them"),
            ));
        }
        Ok(TokenCounts {
            input_tokens: self.count(Col::InputTokens)?,
            cache_read_tokens: self.count(Col::CacheReadTokens)?,
            cache_write_5m_tokens: writes - writes_1h,
            cache_write_1h_tokens: writes_1h,
            output_tokens: self.count(Col::OutputTokens)?,
            reasoning_tokens: self.count(Col::ReasoningTokens)?,
        })
    }

    /// `calls`: absent or empty means 1 when the row names a model, else 0.
    pub fn calls(&self) -> Result<u64, LedgerError> {
        let default = u64::from(!self.bytes(Col::Model).is_empty());
        self.count_or(Col::Calls, default)
    }

    /// The whole row, every field checked.
    pub fn to_row(&self) -> Result<LedgerRow, LedgerError> {
        Ok(LedgerRow {
            recorded_at: self.text(Col::RecordedAt)?.to_owned(),
            run_id: self.text(Col::RunId)?.to_owned(),
            suite: self.text(Col::Suite)?.to_owned(),
            label: self.text(Col::Label)?.to_owned(),
            task: self.text(Col::Task)?.to_owned(),
            attempt: self.count(Col::Attempt)?,
            passed: self.passed()?,
            role: self.role()?,
            provider: self.text(Col::Provider)?.to_owned(),
            model: self.text(Col::Model)?.to_owned(),
            tokens: self.tokens()?,
            cost_usd: self.cost()?,
            price_id: self.text(Col::PriceId)?.to_owned(),
            service_tier: self.text(Col::ServiceTier)?.to_owned(),
            calls: self.calls()?,
        })
    }

    /// The raw record, as written (guards included).
    pub fn record(&self) -> &'r csv::ByteRecord {
        self.record
    }

    fn check_format(&self) -> Result<(), LedgerError> {
        let found = self.bytes(Col::Format);
        if found.is_empty() || found == LEDGER_FORMAT.as_bytes() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(found);
        let version = text
            .strip_prefix(FORMAT_PREFIX)
            .and_then(|v| v.parse::<u32>().ok());
        match version {
            Some(v) if v <= FORMAT_VERSION => Ok(()),
            Some(_) => Err(self.error(
                Col::Format,
                format!(
                    "{text:?} is newer than this proctor reads ({LEDGER_FORMAT}); upgrade proctor"
                ),
            )),
            None => Err(self.error(
                Col::Format,
                format!("{text:?} is not a proctor ledger format"),
            )),
        }
    }
}

/// A non-negative decimal integer, digits only.
pub(crate) fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 20 {
        return None;
    }
    let mut n: u64 = 0;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}
