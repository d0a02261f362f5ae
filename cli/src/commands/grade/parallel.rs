//! Grading a log on several threads: one thread reads chunks of lines, workers grade them,
//! and the calling thread writes their results in log order.
//!
//! Chunk `i` goes to worker `i % workers` and its results are collected from that worker in
//! the same turn, so the order of the log is kept without sorting. Every queue is bounded,
//! so memory stays a few chunks per worker however large the log is.

use crate::commands::grade::line::{LineGrader, LineOutput, unjudged};
use crate::commands::grade::sink::Sink;
use crate::outcome_log::{Chunk, OutcomeLog};
use std::sync::mpsc::sync_channel;

/// Bytes of log per chunk: large enough that passing chunks between threads costs
/// nothing next to grading them, small enough that a few per worker stay a few MiB.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// Chunks waiting to be graded, and graded chunks waiting to be written, across all
/// workers. The writer takes chunks in turn, so a worker that finishes early keeps going
/// only while its queue has room: deep queues keep both cores busy on a 2-core machine
/// (1.95 cores rather than 1.8-1.9), and sharing one depth among the workers keeps memory
/// the same on a machine with many.
const IN_FLIGHT: usize = 16;

/// Chunks waiting in each queue of one of `workers` workers.
fn queued(workers: usize) -> usize {
    (IN_FLIGHT / workers).max(2)
}

/// Grades every line of `log` on `workers` threads into `sink`, in log order.
///
/// # Errors
///
/// A read error of the log (after every line before it was written) or a write error.
pub fn grade_in_parallel(
    grader: &LineGrader<'_>,
    mut log: OutcomeLog,
    sink: &mut Sink,
    workers: usize,
) -> anyhow::Result<()> {
    let workers = workers.max(1);
    let queued = queued(workers);
    std::thread::scope(|scope| {
        let mut inboxes = Vec::with_capacity(workers);
        let mut outboxes = Vec::with_capacity(workers);
        let mut text_returns = Vec::with_capacity(workers);
        // Buffers go back to where they are filled, so memory is reused, not paged in anew.
        let (chunk_return, spare_chunks) = sync_channel::<Vec<u8>>(workers * (queued + 2));
        for _ in 0..workers {
            let (chunk_in, chunks) = sync_channel::<Chunk>(queued);
            let (graded_out, graded) = sync_channel(queued);
            let (text_return, spare_texts) = sync_channel::<Vec<u8>>(queued + 2);
            let chunk_return = chunk_return.clone();
            scope.spawn(move || {
                for chunk in chunks {
                    let text = spare_texts.try_recv().unwrap_or_default();
                    if graded_out.send(grade_chunk(grader, &chunk, text)).is_err() {
                        break; // the writer stopped
                    }
                    let _ = chunk_return.try_send(chunk.data);
                }
            });
            inboxes.push(chunk_in);
            outboxes.push(graded);
            text_returns.push(text_return);
        }
        drop(chunk_return);
        let reader = scope.spawn(move || -> anyhow::Result<()> {
            let mut turn = 0;
            loop {
                let buffer = spare_chunks.try_recv().unwrap_or_default();
                let Some(chunk) = log.next_chunk(CHUNK_BYTES, buffer)? else {
                    break;
                };
                if inboxes[turn % workers].send(chunk).is_err() {
                    break; // the writer stopped
                }
                turn += 1;
            }
            Ok(())
        });
        let written = (|| -> anyhow::Result<()> {
            // A closed queue in turn means the reader sent no more chunks.
            for turn in 0.. {
                let Ok(graded) = outboxes[turn % workers].recv() else {
                    break;
                };
                let GradedChunk { outputs, mut text } = graded;
                sink.accept_chunk(outputs, &text)?;
                text.clear();
                let _ = text_returns[turn % workers].try_send(text);
            }
            Ok(())
        })();
        // On a write error this ends the workers and then the reader.
        drop(outboxes);
        let read = reader.join().expect("the log reader does not panic");
        written.and(read)
    })
}

/// The lines of one chunk, graded, with their result lines in one buffer.
struct GradedChunk {
    outputs: Vec<LineOutput>,
    text: Vec<u8>,
}

/// Grades the lines of one chunk.
fn grade_chunk(grader: &LineGrader<'_>, chunk: &Chunk, mut text: Vec<u8>) -> GradedChunk {
    let mut outputs = Vec::new();
    // Result lines are about three times the size of outcome lines.
    text.reserve(chunk.data.len() * 3);
    for (number, bytes) in chunk.lines() {
        let Some(read) = grader.read(bytes, number) else {
            continue;
        };
        outputs.push(match read {
            Err(message) => LineOutput::Skipped(message),
            Ok(read) => {
                let judged = unjudged(read.task);
                let given = read.record.attempt;
                LineOutput::Graded(Box::new(grader.finish(read, given, judged, &mut text)))
            }
        });
    }
    GradedChunk { outputs, text }
}
