//! Grading a log on several threads, with results written in log order.
//!
//! Each worker reads the next chunk of the log itself, grades it, and hands it in; the
//! worker that finds the sink free writes every handed-in chunk whose turn has come. There
//! is no reader or writer thread: on a machine with few cores, a chunk read on one core and
//! graded on another, or graded on one and written from another, travels between the
//! cores' caches, and on two cores that cost a third more CPU time than the same work on
//! one. A worker that reads, grades and often writes its own chunk keeps it on one core.
//!
//! Memory stays flat: a worker holds one chunk, and stops reading while [`MAX_WAITING`]
//! graded chunks per worker wait for an earlier one.

use crate::commands::grade::line::{LineGrader, LineOutput, unjudged};
use crate::commands::grade::sink::Sink;
use crate::outcome_log::{Chunk, LineBuffer, OutcomeLog};
use proctor_core::grade::ReasonsGiven;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, TryLockError};

/// Bytes of log per chunk: large enough that taking turns costs nothing next to grading
/// a chunk, small enough that a few per worker stay a few MiB.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// The most graded lines whose list a worker keeps to fill again: a chunk of ordinary lines
/// has a few hundred.
const KEPT_LINES: usize = 4096;

/// Graded chunks per worker that may wait for an earlier chunk before workers stop
/// reading: room for a slow chunk without holding more than a few MiB.
const MAX_WAITING: usize = 2;

/// Grades every line of `log` on `workers` threads into `sink`, in log order.
///
/// # Errors
///
/// A read error of the log (after every line before it was written) or a write error.
pub fn grade_in_parallel(
    grader: &LineGrader<'_>,
    log: OutcomeLog,
    sink: &mut Sink,
    workers: usize,
) -> anyhow::Result<()> {
    grade_in_chunks(grader, log, sink, workers, CHUNK_BYTES)
}

/// [`grade_in_parallel`] in chunks of `chunk_bytes`.
fn grade_in_chunks(
    grader: &LineGrader<'_>,
    log: OutcomeLog,
    sink: &mut Sink,
    workers: usize,
    chunk_bytes: usize,
) -> anyhow::Result<()> {
    let workers = workers.max(1);
    let shared = Shared {
        chunk_bytes,
        reading: Mutex::new(Reading {
            log,
            next_index: 0,
            failed: None,
        }),
        waiting: Mutex::new(BTreeMap::new()),
        room: Condvar::new(),
        max_waiting: workers * MAX_WAITING,
        writing: Mutex::new(Writing {
            sink,
            next: 0,
            failed: None,
        }),
        spare_texts: Mutex::new(Vec::new()),
        spent: (0..workers).map(|_| Mutex::new(Vec::new())).collect(),
        stop: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let shared = &shared;
            scope.spawn(move || work(grader, shared, worker));
        }
    });
    let Shared {
        reading, writing, ..
    } = shared;
    let read = into_inner(reading).failed;
    let written = into_inner(writing).failed;
    match written.or(read) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// What the workers share.
struct Shared<'s> {
    chunk_bytes: usize,
    reading: Mutex<Reading>,
    /// Graded chunks by their index in the log, waiting for their turn to be written.
    waiting: Mutex<BTreeMap<usize, GradedChunk>>,
    /// Signalled when chunks leave `waiting`, or when grading stops.
    room: Condvar,
    max_waiting: usize,
    writing: Mutex<Writing<'s>>,
    /// Result buffers already written, for workers to fill again rather than to page in
    /// new memory.
    spare_texts: Mutex<Vec<Vec<u8>>>,
    /// Per worker, the lines of its chunks that were written, for it to drop: memory freed
    /// by the thread that allocated it goes straight back to that thread's heap, while
    /// freeing it from another costs both threads more.
    spent: Vec<Mutex<Vec<Vec<LineOutput>>>>,
    /// Set when a write fails or a worker panics: nothing more is worth reading, and a
    /// chunk a panicked worker held never comes, so no worker may wait for it.
    stop: AtomicBool,
}

/// The log, with the index the next chunk read from it gets.
struct Reading {
    log: OutcomeLog,
    next_index: usize,
    /// Reading stopped here; the chunks before were handed out and are written.
    failed: Option<anyhow::Error>,
}

/// The sink, written in log order by whichever worker holds it.
struct Writing<'s> {
    sink: &'s mut Sink,
    /// The index of the next chunk to write.
    next: usize,
    /// Writing stopped here; chunks still handed in are dropped.
    failed: Option<anyhow::Error>,
}

/// The lines of one chunk, graded, with their result lines in one buffer.
struct GradedChunk {
    outputs: Vec<LineOutput>,
    text: Vec<u8>,
    /// The worker that graded it, and gets its lines back to drop.
    worker: usize,
}

/// One worker: read a chunk, grade it, hand it in, until the log ends or a read or a
/// write fails.
fn work(grader: &LineGrader<'_>, shared: &Shared<'_>, worker: usize) {
    let _stop_on_panic = StopOnPanic(shared);
    let mut buffer = Vec::new();
    let mut lines = Vec::new();
    let mut given = ReasonsGiven::default();
    while let Some((index, chunk)) = shared.next_chunk(buffer) {
        let text = lock(&shared.spare_texts).pop().unwrap_or_default();
        let spent = std::mem::take(&mut *lock(&shared.spent[worker]));
        // Dropped here, and one list kept to fill again unless a chunk of very many short
        // lines made it far longer than most chunks need.
        let mut outputs = Vec::new();
        for mut written in spent {
            written.clear();
            if written.capacity() > outputs.capacity() && written.capacity() <= KEPT_LINES {
                outputs = written;
            }
        }
        let (outputs, text) = grade_chunk(grader, &chunk, &mut lines, &mut given, text, outputs);
        let graded = GradedChunk {
            outputs,
            text,
            worker,
        };
        buffer = chunk.data;
        shared.hand_in(index, graded);
    }
}

impl Shared<'_> {
    /// The next chunk and its index, read into `buffer`; `None` once the log has ended
    /// or reading or writing failed.
    fn next_chunk(&self, buffer: Vec<u8>) -> Option<(usize, Chunk)> {
        // Far ahead of the chunk whose turn it is, wait rather than read more.
        let mut waiting = lock(&self.waiting);
        while waiting.len() >= self.max_waiting && !self.stopped() {
            waiting = self
                .room
                .wait(waiting)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(waiting);
        let mut reading = lock(&self.reading);
        if reading.failed.is_some() || self.stopped() {
            return None;
        }
        match reading.log.next_chunk(self.chunk_bytes, buffer) {
            Ok(Some(chunk)) => {
                let index = reading.next_index;
                reading.next_index += 1;
                Some((index, chunk))
            }
            Ok(None) => None,
            Err(error) => {
                reading.failed = Some(error);
                None
            }
        }
    }

    /// Whether a write failed or a worker panicked.
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Stops reading and wakes the workers waiting for room.
    fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        // A worker between seeing no stop and waiting holds `waiting`: once it is taken
        // here, every such worker is waiting and is woken.
        drop(lock(&self.waiting));
        self.room.notify_all();
    }

    /// Hands in the graded chunk `index`, then writes every chunk whose turn has come,
    /// unless another worker is writing: that worker writes this one too.
    fn hand_in(&self, index: usize, graded: GradedChunk) {
        lock(&self.waiting).insert(index, graded);
        loop {
            let mut writing = match self.writing.try_lock() {
                Ok(writing) => writing,
                Err(TryLockError::WouldBlock) => return,
                Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            };
            loop {
                let next = writing.next;
                let Some(graded) = lock(&self.waiting).remove(&next) else {
                    break;
                };
                self.room.notify_all();
                let worker = graded.worker;
                let (text, outputs) = writing.write(graded);
                lock(&self.spare_texts).push(text);
                lock(&self.spent[worker]).push(outputs);
                writing.next += 1;
            }
            let (next, failed) = (writing.next, writing.failed.is_some());
            drop(writing);
            if failed && !self.stopped() {
                self.stop();
            }
            // A chunk handed in while this worker was letting go of the sink found it
            // taken; whoever handed it in gave up writing, so look once more.
            if !lock(&self.waiting).contains_key(&next) {
                return;
            }
        }
    }
}

impl Writing<'_> {
    /// Writes one graded chunk, unless writing has failed, and gives back its emptied
    /// result buffer and its lines, for the worker that graded them to drop.
    fn write(&mut self, graded: GradedChunk) -> (Vec<u8>, Vec<LineOutput>) {
        let GradedChunk {
            mut outputs,
            mut text,
            ..
        } = graded;
        if self.failed.is_none()
            && let Err(error) = self.sink.accept_chunk(&mut outputs, &text)
        {
            self.failed = Some(error);
        }
        text.clear();
        (text, outputs)
    }
}

/// Stops the other workers when the worker it belongs to panics, so that they end and
/// the panic reaches the command instead of leaving it waiting.
struct StopOnPanic<'a, 's>(&'a Shared<'s>);

impl Drop for StopOnPanic<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// Locks `mutex`; a worker that panicked holding it ends the command anyway, when the
/// threads are joined.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn into_inner<T>(mutex: Mutex<T>) -> T {
    mutex
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Lines read before any of them is graded. Reading and grading each run through a good
/// deal of code; taking a few lines through one and then through the other keeps each in
/// the instruction cache for all of them, instead of both taking turns in it per line.
const LINES_PER_BATCH: usize = 16;

/// Grades the lines of one chunk into `outputs`, with their result lines in `text`,
/// reading them into `lines` [`LINES_PER_BATCH`] at a time.
fn grade_chunk(
    grader: &LineGrader<'_>,
    chunk: &Chunk,
    lines: &mut Vec<LineBuffer>,
    given: &mut ReasonsGiven,
    mut text: Vec<u8>,
    mut outputs: Vec<LineOutput>,
) -> (Vec<LineOutput>, Vec<u8>) {
    // Chunks are graded apart, so a reason is known as given only within one: the first
    // line of the log that gives it always keeps its detail.
    given.clear();
    if lines.len() < LINES_PER_BATCH {
        lines.resize_with(LINES_PER_BATCH, LineBuffer::default);
    }
    // Room for every line at once: growing a list of graded lines copies them all again
    // at each step.
    outputs.reserve(chunk.line_count);
    // Result lines are about three times the size of outcome lines.
    if grader.reads.text {
        text.reserve(chunk.data.len() * 3);
    }
    // A chunk of UTF-8 text is checked once; each line's text is then its slice of it.
    let text_of_chunk = chunk.text();
    let mut batch = Vec::with_capacity(LINES_PER_BATCH);
    let mut numbered = chunk.lines().peekable();
    while numbered.peek().is_some() {
        // Read: each line into its own buffer, in order.
        for (buffer, (number, bytes)) in lines.iter_mut().zip(numbered.by_ref()) {
            if let Some(message) = chunk.cut_line(number, bytes, &grader.log_name) {
                batch.push(Some(Err(message)));
                continue;
            }
            let read = match text_of_chunk {
                Some(whole) => {
                    let start = bytes.as_ptr() as usize - chunk.data.as_ptr() as usize;
                    grader.read_text_into(&whole[start..start + bytes.len()], number, buffer)
                }
                None => grader.read_into(bytes, number, buffer),
            };
            batch.push(read);
        }
        // Grade: the same lines, in the same order.
        for (buffer, read) in lines.iter_mut().zip(batch.drain(..)) {
            let Some(read) = read else {
                continue;
            };
            outputs.push(match read {
                Err(message) => LineOutput::Skipped(message),
                Ok(read) => {
                    let judged = unjudged(read.task);
                    let read_attempt = read.attempt;
                    let graded = grader.finish_outcome(
                        read,
                        &mut buffer.outcome,
                        read_attempt,
                        judged,
                        &mut text,
                        Some(given),
                    );
                    LineOutput::Graded(graded)
                }
            });
        }
    }
    (outputs, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome_log::LineKeys;
    use crate::usage_cost::Pricer;
    use proctor_core::task::Suite;
    use std::path::Path;

    /// A log of many short lines: attempts given and not, tasks not in the suite, lines
    /// that are not JSON, blank lines.
    fn write_log(path: &Path) {
        let mut log = String::new();
        for n in 0..600 {
            let line = match n % 6 {
                0 | 1 => format!(
                    r#"{{"task": "a", "status": "final", "answer": "{}"}}"#,
                    n % 4
                ),
                2 => format!(
                    r#"{{"task": "b", "attempt": {}, "trajectory": [["t", {n}]]}}"#,
                    n / 6
                ),
                3 if n % 5 == 0 => r#"{"task": "ghost"}"#.to_owned(),
                4 if n % 7 == 0 => "not json".to_owned(),
                5 if n % 4 == 1 => String::new(),
                _ => format!(r#"{{"task_id": "b", "trajectory": [["t", {n}], ["t", 2]]}}"#),
            };
            log.push_str(&line);
            log.push('\n');
        }
        std::fs::write(path, log).unwrap();
    }

    /// Grades `log` with `workers` and `chunk_bytes` into `out`; the grading result and
    /// the summary as JSON (empty when the results could not be flushed). Lines that
    /// record no time are priced at the `pricer`'s, which is in their results.
    fn grade(
        pricer: &Pricer,
        dir: &Path,
        log: &Path,
        out: &Path,
        workers: usize,
        chunk_bytes: usize,
    ) -> (anyhow::Result<()>, String) {
        let tasks = dir.join("tasks.yaml");
        std::fs::write(
            &tasks,
            "- {id: a, input: x, expected: '0'}\n- {id: b, input: x, max_tool_calls: 1}\n",
        )
        .unwrap();
        let suite = Suite::load(&tasks).unwrap();
        let grader = LineGrader {
            suite: &suite,
            pricer,
            keys: LineKeys::new(None),
            label: None,
            workdir: None,
            log_name: "log".to_owned(),
            tasks_name: "tasks".to_owned(),
            reads: crate::outputs::Reads::TEXT,
        };
        let mut sink = Sink::writing(Some(out));
        let graded = grade_in_chunks(
            &grader,
            OutcomeLog::open(log).unwrap(),
            &mut sink,
            workers,
            chunk_bytes,
        );
        let (mut outputs, _) = sink.finish();
        let summary = match outputs.close() {
            Ok(()) => {
                let cards = outputs.into_scorecards().finish(None).unwrap();
                crate::render::json::render_cards(&cards)
            }
            Err(_) => String::new(),
        };
        (graded, summary)
    }

    #[test]
    fn any_number_of_workers_and_any_chunk_size_write_the_log_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let pricer = Pricer::load(&[]).unwrap();
        let log = dir.path().join("log.jsonl");
        write_log(&log);
        let reference_out = dir.path().join("reference.jsonl");
        let (graded, reference_summary) =
            grade(&pricer, dir.path(), &log, &reference_out, 1, CHUNK_BYTES);
        graded.unwrap();
        let reference = std::fs::read_to_string(&reference_out).unwrap();
        assert_eq!(
            reference.lines().count(),
            600 - 20 - 14 - 50,
            "bad and blank lines are skipped"
        );
        // Chunks of one line and of a few lines, so that many are graded at once and
        // handed in out of turn.
        for workers in [2, 3, 8] {
            for chunk_bytes in [1, 150, 4096] {
                let out = dir.path().join(format!("{workers}_{chunk_bytes}.jsonl"));
                let (graded, summary) =
                    grade(&pricer, dir.path(), &log, &out, workers, chunk_bytes);
                graded.unwrap();
                let text = std::fs::read_to_string(&out).unwrap();
                assert!(
                    text == reference,
                    "{workers} workers, chunks of {chunk_bytes} bytes"
                );
                assert_eq!(
                    summary, reference_summary,
                    "{workers} workers, {chunk_bytes} bytes"
                );
            }
        }
    }

    #[test]
    fn a_write_error_ends_grading_on_every_worker() {
        let dir = tempfile::tempdir().unwrap();
        let pricer = Pricer::load(&[]).unwrap();
        let log = dir.path().join("log.jsonl");
        write_log(&log);
        // Every write to /dev/full fails; small chunks keep the workers reading ahead.
        let (graded, _) = grade(&pricer, dir.path(), &log, Path::new("/dev/full"), 3, 150);
        let message = format!("{:#}", graded.unwrap_err());
        assert!(message.contains("/dev/full"), "{message}");
    }

    #[test]
    fn a_worker_waiting_for_room_ends_when_grading_stops() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        write_log(&log);
        let mut sink = Sink::writing(None);
        let shared = Shared {
            chunk_bytes: CHUNK_BYTES,
            reading: Mutex::new(Reading {
                log: OutcomeLog::open(&log).unwrap(),
                next_index: 1,
                failed: None,
            }),
            waiting: Mutex::new(BTreeMap::new()),
            room: Condvar::new(),
            max_waiting: 1,
            writing: Mutex::new(Writing {
                sink: &mut sink,
                next: 0,
                failed: None,
            }),
            spare_texts: Mutex::new(Vec::new()),
            spent: vec![Mutex::new(Vec::new())],
            stop: AtomicBool::new(false),
        };
        // Chunk 0 never comes (as when its worker panicked), and chunk 1 fills the room.
        lock(&shared.waiting).insert(
            1,
            GradedChunk {
                outputs: Vec::new(),
                text: Vec::new(),
                worker: 0,
            },
        );
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| shared.next_chunk(Vec::new()).map(|(index, _)| index));
            shared.stop();
            assert_eq!(waiter.join().unwrap(), None);
        });
    }

    #[test]
    fn a_log_that_cannot_be_read_is_an_error_that_names_it_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let pricer = Pricer::load(&[]).unwrap();
        // A folder opens as a file but cannot be read.
        let folder = dir.path().join("log.jsonl");
        std::fs::create_dir(&folder).unwrap();
        let out = dir.path().join("out.jsonl");
        let (graded, _) = grade(&pricer, dir.path(), &folder, &out, 3, 150);
        let message = format!("{:#}", graded.unwrap_err());
        assert!(message.contains("cannot read"), "{message}");
        assert!(message.contains("log.jsonl"), "{message}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    }
}
