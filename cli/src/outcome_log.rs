//! Streaming reader of recorded outcomes: one JSON object per line with a task key.
//!
//! Lines are read one at a time into a reused buffer, so memory stays flat however
//! large the log is. A bad line is reported with its number and skipped.

use proctor_core::outcome::{Outcome, kind_of};
use serde_json::{Map, Value};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// One readable outcome line.
#[derive(Debug)]
pub struct OutcomeRecord {
    pub line: usize,
    pub task: String,
    /// From `attempt` or `run`; `None` means "number it in file order".
    pub attempt: Option<u64>,
    pub outcome: Outcome,
    /// The line's own time (`timestamp`, `recorded_at`, ...), the time its usage is priced at.
    pub time: Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError>,
}

/// A line that could not be used, with why.
#[derive(Debug)]
pub struct BadLine {
    pub line: usize,
    pub message: String,
}

#[derive(Debug)]
pub enum Item {
    Record(Box<OutcomeRecord>),
    Bad(BadLine),
}

/// Iterates over a log's lines; I/O errors end the iteration with an error.
#[derive(Debug)]
pub struct OutcomeLog {
    path: PathBuf,
    reader: BufReader<File>,
    buffer: String,
    line: usize,
    task_key: Option<String>,
}

impl OutcomeLog {
    pub fn open(path: &Path, task_key: Option<String>) -> anyhow::Result<OutcomeLog> {
        let file = File::open(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read outcome log: {e}", path.display()))?;
        Ok(OutcomeLog {
            path: path.to_owned(),
            reader: BufReader::with_capacity(1 << 16, file),
            buffer: String::new(),
            line: 0,
            task_key,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next non-empty line, parsed.
    pub fn next_item(&mut self) -> anyhow::Result<Option<Item>> {
        loop {
            self.buffer.clear();
            let read = self.reader.read_line(&mut self.buffer).map_err(|e| {
                anyhow::anyhow!(
                    "{}:{}: cannot read: {e}",
                    self.path.display(),
                    self.line + 1
                )
            })?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            let text = self.buffer.trim();
            if text.is_empty() {
                continue;
            }
            return Ok(Some(match parse_line(text, self.task_key.as_deref()) {
                Ok((task, attempt, outcome, time)) => Item::Record(Box::new(OutcomeRecord {
                    line: self.line,
                    task,
                    attempt,
                    outcome,
                    time,
                })),
                Err(message) => Item::Bad(BadLine {
                    line: self.line,
                    message,
                }),
            }));
        }
    }
}

type ParsedLine = (
    String,
    Option<u64>,
    Outcome,
    Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError>,
);

fn parse_line(text: &str, task_key: Option<&str>) -> Result<ParsedLine, String> {
    let object: Map<String, Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => object,
        Ok(other) => return Err(format!("expected a JSON object, found {}", kind_of(&other))),
        Err(e) => return Err(format!("invalid JSON: {e}")),
    };
    let task_value = match task_key {
        Some(key) => object
            .get(key)
            .ok_or_else(|| format!("no task key `{key}`"))?,
        None => object
            .get("task")
            .or_else(|| object.get("task_id"))
            .ok_or_else(|| {
                "no task key (`task` or `task_id`; choose another with --task-key)".to_owned()
            })?,
    };
    let task = match task_value {
        Value::String(s) if !s.is_empty() => s.clone(),
        Value::Number(n) => n.to_string(),
        other => {
            return Err(format!(
                "task key: expected a task id, found {}",
                kind_of(other)
            ));
        }
    };
    let attempt = match object.get("attempt").or_else(|| object.get("run")) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            format!("field `attempt`: expected a non-negative integer, found {v}")
        })?),
    };
    let outcome = Outcome::from_json(&object).map_err(|e| e.to_string())?;
    let time = proctor_ledger::time::time_of(&object);
    Ok((task, attempt, outcome, time))
}
