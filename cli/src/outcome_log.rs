//! Streaming reader of recorded outcomes: one JSON object per line with a task key.
//!
//! The log is read in chunks of whole lines, so memory stays flat however large it is and
//! chunks can be graded on several threads. A bad line is reported with its number and
//! skipped, and so is a line longer than [`MAX_LINE_BYTES`], which is not even held: a
//! file without newlines (a binary, `/dev/zero`) would otherwise fill the memory.

use proctor_core::outcome::{Extra, KeyFilter, NotAnObject, Outcome, OutcomeReader, kind_of};
use proctor_core::result::fields;
use proctor_ledger::time::TIME_KEYS;
use serde_json::Value;
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

pub mod run_record;
pub use run_record::RunRecord;

/// A line longer than this (by at least the block being read) is reported and skipped,
/// not read: no logger writes one, and reading it whole would hold all of it (and its
/// parse) at once.
pub const MAX_LINE_BYTES: usize = 64 << 20;

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
    /// What a result line kept of its run.
    pub run: Option<Box<RunRecord>>,
}

/// One non-empty line of the log: an outcome, or why it cannot be used.
#[derive(Debug)]
pub enum Item {
    Record(Box<OutcomeRecord>),
    Bad { line: usize, message: String },
}

/// Reads one line (without its newline); `None` for a blank line.
pub fn parse_item(bytes: &[u8], line: usize, keys: &LineKeys) -> Option<Item> {
    let mut buffer = LineBuffer::default();
    Some(match read_item(bytes, keys, &mut buffer)? {
        Ok(head) => Item::Record(Box::new(OutcomeRecord {
            line,
            task: head.task.into_owned(),
            attempt: head.attempt,
            outcome: buffer.outcome,
            time: head.time,
            run: head.run,
        })),
        Err(message) => Item::Bad { line, message },
    })
}

/// Where lines are read into, line after line: the outcome's lists and the extra keys'
/// values keep their room, so reading a plain line allocates nothing.
#[derive(Debug, Default)]
pub struct LineBuffer {
    /// The outcome of the last line read without an error.
    pub outcome: Outcome,
    extras: Vec<Option<Extra>>,
}

/// The most steps (and tool names, and usage objects) whose room a [`LineBuffer`] keeps
/// for the next line: a log's one huge trajectory must not stay in memory for the rest of
/// the log.
const KEPT_ROOM: usize = 256;

impl LineBuffer {
    /// Lets go of room kept for lists far longer than most lines need.
    fn trim(&mut self) {
        let outcome = &mut self.outcome;
        if outcome.trajectory.capacity() > KEPT_ROOM {
            outcome.trajectory = Vec::new();
        }
        if outcome.usage.capacity() > KEPT_ROOM {
            outcome.usage = Vec::new();
        }
    }
}

/// What a line read into a [`LineBuffer`] gives besides its outcome.
#[derive(Debug)]
pub struct LineHead<'l> {
    /// Borrowed from the line when it is a plain string.
    pub task: Cow<'l, str>,
    /// From `attempt` or `run`; `None` means "number it in file order".
    pub attempt: Option<u64>,
    /// The line's own time (`timestamp`, `recorded_at`, ...), the time its usage is priced at.
    pub time: Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError>,
    /// What a result line kept of its run: grading it again sees what the run saw.
    pub run: Option<Box<RunRecord>>,
}

/// Reads one line (without its newline) into `buffer`; `None` for a blank line, `Err`
/// with the message for a line that cannot be used.
pub fn read_item<'l>(
    bytes: &'l [u8],
    keys: &LineKeys,
    buffer: &mut LineBuffer,
) -> Option<Result<LineHead<'l>, String>> {
    match std::str::from_utf8(bytes) {
        Ok(text) => read_text(text, keys, buffer),
        Err(e) => Some(Err(format!(
            "not UTF-8 text (byte {})",
            e.valid_up_to() + 1
        ))),
    }
}

/// [`read_item`] for a line already known to be UTF-8 text (its chunk was checked whole).
pub fn read_text<'l>(
    text: &'l str,
    keys: &LineKeys,
    buffer: &mut LineBuffer,
) -> Option<Result<LineHead<'l>, String>> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    buffer.trim();
    Some(read_line(text, keys, buffer))
}

/// Whole lines of the log, read in blocks so that they can be graded apart.
#[derive(Debug, Default)]
pub struct Chunk {
    /// The number (from 1) of the first line in `data`.
    pub first_line: usize,
    /// Whole lines, each ending in a newline except perhaps the log's last.
    pub data: Vec<u8>,
    /// How many lines `data` holds, blank ones included.
    pub line_count: usize,
    /// The numbers of the lines longer than [`MAX_LINE_BYTES`], each left out of `data`
    /// but for its newline (an empty line in its place).
    pub cut: Vec<usize>,
}

impl Chunk {
    /// The whole chunk as text, when it is UTF-8: checked many bytes at a time, once,
    /// rather than line by line (the lines of a valid chunk are then valid).
    pub fn text(&self) -> Option<&str> {
        simdutf8::basic::from_utf8(&self.data).ok()
    }

    /// The message for line `number`, of text `bytes`, when it is one that was too long
    /// to read; `log` names the log.
    pub fn cut_line(&self, number: usize, bytes: &[u8], log: &str) -> Option<String> {
        (bytes.is_empty() && self.cut.contains(&number)).then(|| {
            format!(
                "{log}:{number}: line longer than {} MiB",
                MAX_LINE_BYTES >> 20
            )
        })
    }

    /// Each line with its number, newline removed.
    pub fn lines(&self) -> impl Iterator<Item = (usize, &[u8])> {
        let body = self.data.strip_suffix(b"\n").unwrap_or(&self.data);
        // Newlines are found with memchr, many bytes at a time, rather than byte by byte.
        let mut rest = (!self.data.is_empty()).then_some(body);
        std::iter::from_fn(move || {
            let text = rest?;
            Some(match memchr::memchr(b'\n', text) {
                Some(end) => {
                    rest = Some(&text[end + 1..]);
                    &text[..end]
                }
                None => {
                    rest = None;
                    text
                }
            })
        })
        .enumerate()
        .map(|(index, line)| (self.first_line + index, line))
    }
}

/// Cuts a log into [`Chunk`]s of about a given size; memory is a few chunks, however
/// large the log.
#[derive(Debug)]
pub struct OutcomeLog {
    path: PathBuf,
    file: File,
    next_line: usize,
    /// What was read after the last whole line of the last chunk: the start of a line.
    carry: Vec<u8>,
    /// The longest line read: [`MAX_LINE_BYTES`] but in tests.
    max_line: usize,
}

impl OutcomeLog {
    pub fn open(path: &Path) -> anyhow::Result<OutcomeLog> {
        let file = File::open(path).map_err(|e| {
            crate::exit::bad_input!("{}: cannot read outcome log: {e}", path.display())
        })?;
        Ok(OutcomeLog {
            path: path.to_owned(),
            file,
            next_line: 1,
            carry: Vec::new(),
            max_line: MAX_LINE_BYTES,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next lines, at least `bytes` of them unless the log ends first (a longer line
    /// is taken whole, unless it is too long to read: then it is cut, see
    /// [`Chunk::cut`]), read into `buffer` (emptied first); `None` at the end of the log.
    ///
    /// The log is read in blocks and cut after the last newline of a block, not line by
    /// line: the line ends are found by the workers, which look for them anyway.
    pub fn next_chunk(
        &mut self,
        bytes: usize,
        mut buffer: Vec<u8>,
    ) -> anyhow::Result<Option<Chunk>> {
        let bytes = bytes.max(1);
        buffer.clear();
        buffer.reserve(bytes + self.carry.len());
        buffer.append(&mut self.carry);
        let mut ended = false;
        // Bytes already searched for a newline, so a long line is not searched again.
        let mut searched = 0;
        // Where the line that has no newline yet starts.
        let mut line_start = 0;
        let mut cut = Vec::new();
        let whole = loop {
            let last_end = memchr::memrchr(b'\n', &buffer[searched..]).map(|at| searched + at + 1);
            if let Some(end) = last_end {
                line_start = end;
            }
            if buffer.len() >= bytes
                && let Some(end) = last_end
            {
                break end;
            }
            if ended {
                break buffer.len();
            }
            if buffer.len() - line_start > self.max_line {
                // The line is dropped but for its newline, and the rest of it passed over.
                let newlines = memchr::memchr_iter(b'\n', &buffer[..line_start]).count();
                cut.push(self.next_line + newlines);
                buffer.truncate(line_start);
                buffer.push(b'\n');
                line_start = buffer.len();
                ended = self.skip_rest_of_line(&mut buffer, bytes)?;
            } else {
                searched = buffer.len();
                ended = self.read_into(&mut buffer, bytes)? == 0;
                continue;
            }
            searched = line_start;
        };
        self.carry.extend_from_slice(&buffer[whole..]);
        buffer.truncate(whole);
        if !cut.is_empty() {
            // The room a cut line took is given back rather than kept for later chunks.
            buffer.shrink_to(bytes.max(buffer.len()));
        }
        if buffer.is_empty() {
            return Ok(None);
        }
        let first_line = self.next_line;
        let newlines = memchr::memchr_iter(b'\n', &buffer).count();
        let line_count = newlines + usize::from(buffer.last() != Some(&b'\n'));
        self.next_line += line_count;
        Ok(Some(Chunk {
            first_line,
            data: buffer,
            line_count,
            cut,
        }))
    }

    /// Reads past the next newline in blocks of `bytes`, appending what follows it to
    /// `buffer`; true when the log ends first.
    fn skip_rest_of_line(&mut self, buffer: &mut Vec<u8>, bytes: usize) -> anyhow::Result<bool> {
        let mut block = Vec::with_capacity(bytes);
        loop {
            block.clear();
            if self.read_into(&mut block, bytes)? == 0 {
                return Ok(true);
            }
            if let Some(at) = memchr::memchr(b'\n', &block) {
                buffer.extend_from_slice(&block[at + 1..]);
                return Ok(false);
            }
        }
    }

    /// Appends up to `bytes` more of the log to `buffer` (into its spare room, which is
    /// not zeroed first); 0 at the log's end.
    fn read_into(&mut self, buffer: &mut Vec<u8>, bytes: usize) -> anyhow::Result<usize> {
        (&mut self.file)
            .take(bytes as u64)
            .read_to_end(buffer)
            .map_err(|e| {
                crate::exit::bad_input!(
                    "{}:{}: cannot read: {e}",
                    self.path.display(),
                    self.next_line
                )
            })
    }
}

/// The top-level fields of a line that are not the outcome's, in the order
/// [`OutcomeReader`] returns their values: the task key (`task`, then `task_id`, or the
/// `--task-key` field alone), `attempt`, `run`, the time keys, then a result line's own
/// ([`run_record::KEYS`]).
#[derive(Debug)]
pub struct LineKeys {
    keys: Vec<String>,
    /// Made once for the log rather than once a line.
    filter: KeyFilter,
    custom_task_key: bool,
}

impl LineKeys {
    pub fn new(task_key: Option<&str>) -> Self {
        let task_keys = match task_key {
            Some(key) => vec![key],
            None => vec![fields::TASK, fields::OLDER_TASK],
        };
        let keys: Vec<String> = task_keys
            .into_iter()
            .chain([fields::ATTEMPT, fields::OLDER_ATTEMPT])
            .chain(TIME_KEYS)
            .chain(run_record::KEYS)
            .map(str::to_owned)
            .collect();
        LineKeys {
            filter: KeyFilter::of(&keys),
            keys,
            custom_task_key: task_key.is_some(),
        }
    }

    /// Where `attempt` sits among the values; the task keys come before it.
    fn attempt_index(&self) -> usize {
        if self.custom_task_key { 1 } else { 2 }
    }
}

fn read_line<'l>(
    text: &'l str,
    keys: &LineKeys,
    buffer: &mut LineBuffer,
) -> Result<LineHead<'l>, String> {
    let LineBuffer { outcome, extras } = buffer;
    let read = match OutcomeReader::with_filter(&keys.keys, keys.filter)
        .read_str_into(text, outcome, extras)
    {
        Ok(Ok(read)) => read,
        Ok(Err(NotAnObject(kind))) => return Err(format!("expected a JSON object, found {kind}")),
        Err(e) => return Err(format!("invalid JSON: {e}")),
    };
    let attempt_at = keys.attempt_index();
    // `get(..).or(..)`: a present `null` stops the search, as in a parsed object.
    let task_value = if keys.custom_task_key {
        extras[0]
            .as_ref()
            .ok_or_else(|| format!("no task key `{}`", keys.keys[0]))?
    } else {
        extras[0].as_ref().or(extras[1].as_ref()).ok_or_else(|| {
            "no task key (`task` or `task_id`; choose another with --task-key)".to_owned()
        })?
    };
    let task = match task_value.plain_str(text).filter(|s| !s.is_empty()) {
        Some(task) => Cow::Borrowed(task),
        None => match value_of(task_value, text)? {
            Value::String(s) if !s.is_empty() => Cow::Owned(s),
            Value::Number(n) => Cow::Owned(n.to_string()),
            other => {
                return Err(format!(
                    "task key: expected a task id, found {}",
                    kind_of(&other)
                ));
            }
        },
    };
    let attempt = match extras[attempt_at]
        .as_ref()
        .or(extras[attempt_at + 1].as_ref())
        .map(|extra| value_of(extra, text))
        .transpose()?
    {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            format!("field `attempt`: expected a non-negative integer, found {v}")
        })?),
    };
    read.map_err(|e| e.to_string())?;
    let (times, result_keys) = extras[attempt_at + 2..].split_at(TIME_KEYS.len());
    let run = run_record::read(result_keys, text, outcome)?;
    // The values of the time keys follow `attempt` and `run`, in the order of TIME_KEYS.
    let time = if times.iter().all(Option::is_none) {
        Ok(None)
    } else {
        let values = times
            .iter()
            .map(|extra| {
                extra
                    .as_ref()
                    .map(|extra| value_of(extra, text))
                    .transpose()
            })
            .collect::<Result<Vec<_>, _>>()?;
        proctor_ledger::time::first_time(values.iter().map(Option::as_ref))
    };
    Ok(LineHead {
        task,
        attempt,
        time,
        run,
    })
}

/// The value of an extra key of `line`.
fn value_of(extra: &Extra, line: &str) -> Result<Value, String> {
    extra
        .to_value(line)
        .ok_or_else(|| "invalid JSON: a value could not be read".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    type ParsedLine = (
        String,
        Option<u64>,
        Outcome,
        Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError>,
    );

    fn parse(text: &str, task_key: Option<&str>) -> Result<ParsedLine, String> {
        let mut buffer = LineBuffer::default();
        let head = read_line(text, &LineKeys::new(task_key), &mut buffer)?;
        Ok((
            head.task.into_owned(),
            head.attempt,
            buffer.outcome,
            head.time,
        ))
    }

    #[test]
    fn a_huge_trajectory_does_not_keep_its_room_for_the_next_line() {
        let keys = LineKeys::new(None);
        let mut buffer = LineBuffer::default();
        let steps = vec![r#"["t",1]"#; 5000].join(",");
        let huge = format!(r#"{{"task":"a","trajectory":[{steps}]}}"#);
        read_item(huge.as_bytes(), &keys, &mut buffer)
            .unwrap()
            .unwrap();
        assert_eq!(buffer.outcome.trajectory.len(), 5000);
        let short = br#"{"task":"a","trajectory":[["t",1],["u",2]]}"#;
        let head = read_item(short, &keys, &mut buffer).unwrap().unwrap();
        assert_eq!(head.task, "a");
        assert_eq!(buffer.outcome.trajectory.len(), 2);
        assert_eq!(buffer.outcome.used_tools(), ["t", "u"]);
        assert!(buffer.outcome.trajectory.capacity() <= KEPT_ROOM);
    }

    #[test]
    fn a_chunk_is_text_only_when_every_byte_of_it_is_utf8() {
        let chunk = |data: &[u8]| Chunk {
            first_line: 1,
            data: data.to_vec(),
            line_count: 2,
            cut: Vec::new(),
        };
        let valid = "{\"task\":\"caf\u{e9}\"}\n{\"task\":\"b\"}\n";
        assert_eq!(chunk(valid.as_bytes()).text(), Some(valid));
        // A lone continuation byte, and a multi-byte character cut short at the end.
        assert_eq!(chunk(b"{\"task\":\"a\"}\n\x80\n").text(), None);
        assert_eq!(chunk(b"{\"task\":\"a\"}\n{\"task\":\"\xc3").text(), None);
        // A line of a valid chunk reads as the line's bytes read one by one.
        let keys = LineKeys::new(None);
        let (mut by_text, mut by_bytes) = (LineBuffer::default(), LineBuffer::default());
        for (_, line) in chunk(valid.as_bytes()).lines() {
            let text = std::str::from_utf8(line).unwrap();
            let head = read_text(text, &keys, &mut by_text).unwrap().unwrap();
            let same = read_item(line, &keys, &mut by_bytes).unwrap().unwrap();
            assert_eq!(head.task, same.task);
            assert_eq!(by_text.outcome, by_bytes.outcome);
        }
        let bad = read_item(b"{\"task\":\"\xff\"}", &keys, &mut by_bytes).unwrap();
        assert_eq!(bad.unwrap_err(), "not UTF-8 text (byte 10)");
    }

    #[test]
    fn chunks_hold_whole_lines_numbered_as_a_plain_split_numbers_them() {
        let long = "x".repeat(50);
        for text in [
            String::new(),
            "\n".to_owned(),
            "a".to_owned(),
            format!("a\n\nbc\n{long}\nd\n"),
            format!("a\n\nbc\n{long}\nd"),
            format!("{long}\n{long}{long}\ne\n\n"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("log.jsonl");
            std::fs::write(&path, &text).unwrap();
            let expected: Vec<(usize, Vec<u8>)> = if text.is_empty() {
                vec![]
            } else {
                text.strip_suffix('\n')
                    .unwrap_or(&text)
                    .split('\n')
                    .enumerate()
                    .map(|(index, line)| (index + 1, line.as_bytes().to_vec()))
                    .collect()
            };
            for bytes in [0, 1, 2, 3, 7, 40, 64, 1000] {
                let mut log = OutcomeLog::open(&path).unwrap();
                let mut lines = Vec::new();
                while let Some(chunk) = log.next_chunk(bytes, Vec::new()).unwrap() {
                    assert_eq!(chunk.line_count, chunk.lines().count(), "{text:?}");
                    assert!(
                        chunk.data.ends_with(b"\n") || !text.ends_with('\n'),
                        "{text:?} in chunks of {bytes}: a chunk ends inside a line"
                    );
                    lines.extend(chunk.lines().map(|(n, line)| (n, line.to_vec())));
                }
                assert_eq!(lines, expected, "{text:?} in chunks of {bytes}");
            }
        }
    }

    #[test]
    fn a_line_longer_than_the_longest_read_is_cut_to_an_empty_line_and_named() {
        let max_line = 10;
        let long = "x".repeat(25);
        for text in [
            format!("a\n{long}\nb\n"),
            format!("{long}{long}{long}"),
            format!("{}\n{long}\n\n{long}\nc", "y".repeat(max_line)),
            format!("{long}\n{long}\n"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("log.jsonl");
            std::fs::write(&path, &text).unwrap();
            let body = text.strip_suffix('\n').unwrap_or(&text);
            let expected: Vec<(usize, String)> = body
                .split('\n')
                .enumerate()
                .map(|(at, line)| {
                    (
                        at + 1,
                        if line.len() > max_line { "" } else { line }.to_owned(),
                    )
                })
                .collect();
            let expected_cut: Vec<usize> = body
                .split('\n')
                .enumerate()
                .filter(|(_, line)| line.len() > max_line)
                .map(|(at, _)| at + 1)
                .collect();
            // A line is cut once what was read of it passes the limit before its end: so
            // always when it is longer than the limit and one block more.
            for bytes in [1, 3, 8] {
                let mut log = OutcomeLog::open(&path).unwrap();
                log.max_line = max_line;
                let (mut lines, mut cut, mut messages) =
                    (Vec::new(), Vec::<usize>::new(), Vec::new());
                while let Some(chunk) = log.next_chunk(bytes, Vec::new()).unwrap() {
                    assert!(chunk.data.len() <= 3 * bytes + max_line, "{text:?}");
                    for (number, line) in chunk.lines() {
                        messages.extend(chunk.cut_line(number, line, "log"));
                        lines.push((number, String::from_utf8(line.to_vec()).unwrap()));
                    }
                    cut.extend(&chunk.cut);
                }
                assert_eq!(lines, expected, "{text:?} in chunks of {bytes}");
                assert_eq!(cut, expected_cut, "{text:?} in chunks of {bytes}");
                let named: Vec<String> = expected_cut
                    .iter()
                    .map(|n| format!("log:{n}: line longer than 64 MiB"))
                    .collect();
                assert_eq!(messages, named);
            }
        }
    }

    #[test]
    fn a_chunk_gives_each_line_with_its_number() {
        let lines = |first_line: usize, data: &[u8]| {
            let chunk = Chunk {
                first_line,
                data: data.to_vec(),
                line_count: data.iter().filter(|&&b| b == b'\n').count()
                    + usize::from(data.last().is_some_and(|&b| b != b'\n')),
                cut: Vec::new(),
            };
            chunk
                .lines()
                .map(|(number, line)| (number, String::from_utf8(line.to_vec()).unwrap()))
                .collect::<Vec<_>>()
        };
        let owned = |pairs: &[(usize, &str)]| {
            pairs
                .iter()
                .map(|&(n, l)| (n, l.to_owned()))
                .collect::<Vec<_>>()
        };
        assert_eq!(lines(5, b"a\n\nb\n"), owned(&[(5, "a"), (6, ""), (7, "b")]));
        assert_eq!(lines(1, b"last"), owned(&[(1, "last")]));
        assert_eq!(lines(3, b"\n"), owned(&[(3, "")]));
        assert_eq!(lines(1, b"a\n\n"), owned(&[(1, "a"), (2, "")]));
        assert_eq!(lines(1, b""), owned(&[]));
    }

    #[test]
    fn task_attempt_and_time_come_from_their_keys() {
        let (task, attempt, outcome, time) = parse(
            r#"{"task_id": "t", "run": 2, "status": "final", "recorded_at": "2026-03-01T00:00:00Z"}"#,
            None,
        )
        .unwrap();
        assert_eq!((task.as_str(), attempt), ("t", Some(2)));
        assert_eq!(outcome.status, Some(proctor_core::outcome::Status::Final));
        assert_eq!(time.unwrap(), Some("2026-03-01T00:00:00Z".parse().unwrap()));
        // `task` wins over `task_id`, `attempt` over `run`, numbers are task ids.
        let (task, attempt, ..) = parse(
            r#"{"task": 7, "task_id": "x", "attempt": 0, "run": 5}"#,
            None,
        )
        .unwrap();
        assert_eq!((task.as_str(), attempt), ("7", Some(0)));
    }

    #[test]
    fn a_line_is_priced_at_the_time_the_ledger_would_pick() {
        for text in [
            r#"{"task": "t"}"#,
            r#"{"task": "t", "created_at": "2026-03-03T00:00:00Z", "recorded_at": "2026-03-02T00:00:00Z"}"#,
            r#"{"task": "t", "timestamp": null, "started_at": "2026-03-04T00:00:00Z"}"#,
            r#"{"task": "t", "created_at": 1767225600, "timestamp": "2026-03-05T00:00:00Z"}"#,
            r#"{"task": "t", "recorded_at": "soon", "created_at": "2026-03-06T00:00:00Z"}"#,
            r#"{"task": "t", "started_at": null}"#,
        ] {
            let (.., time) = parse(text, None).unwrap();
            let object: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
            assert_eq!(time, proctor_ledger::time::time_of(&object), "{text}");
        }
    }

    #[test]
    fn a_custom_task_key_may_be_an_outcome_field() {
        let (task, _, outcome, _) =
            parse(r#"{"answer": "t", "status": "done"}"#, Some("answer")).unwrap();
        assert_eq!(task, "t");
        assert_eq!(outcome.answer.as_deref(), Some("t"));
        assert_eq!(
            parse(r#"{"task": "t"}"#, Some("name")).unwrap_err(),
            "no task key `name`"
        );
    }

    #[test]
    fn problems_are_reported_in_order() {
        assert!(
            parse(r#"{"status": "nope""#, None)
                .unwrap_err()
                .starts_with("invalid JSON: ")
        );
        assert_eq!(
            parse("[1]", None).unwrap_err(),
            "expected a JSON object, found a list"
        );
        assert_eq!(
            parse(r#"{"status": "nope"}"#, None).unwrap_err(),
            "no task key (`task` or `task_id`; choose another with --task-key)"
        );
        assert_eq!(
            parse(r#"{"task": "", "status": "nope"}"#, None).unwrap_err(),
            "task key: expected a task id, found a string"
        );
        assert_eq!(
            parse(r#"{"task": "t", "attempt": -1, "status": "nope"}"#, None).unwrap_err(),
            "field `attempt`: expected a non-negative integer, found -1"
        );
        assert!(
            parse(r#"{"task": "t", "status": "nope"}"#, None)
                .unwrap_err()
                .starts_with("field `status`: unknown status")
        );
        let (.., time) = parse(r#"{"task": "t", "timestamp": "soon"}"#, None).unwrap();
        assert_eq!(time.unwrap_err().field, "timestamp");
    }
}
