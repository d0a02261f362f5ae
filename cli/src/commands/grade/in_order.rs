//! Grading in the log's order, for a judge or `--workdir`: attempts are numbered as lines
//! are read, judge calls for the lines ahead run concurrently (up to `--judge-jobs` in
//! flight), and results are written in the log's order.

use super::line::{LineGrader, LineOutput, ReadLine, unjudged};
use super::parallel::CHUNK_BYTES;
use super::sink::Sink;
use crate::judging::{Judged, Seeds, judge_failure, judge_run};
use crate::outcome_log::OutcomeLog;
use anyhow::Context;
use futures_util::StreamExt;
use futures_util::stream::FuturesOrdered;
use proctor_judge::{Judge, JudgeError};
use std::future::Future;
use std::pin::Pin;

/// Lines read ahead of the one being written, per judge call allowed in flight: enough
/// that calls keep going while an early one is slow, few enough that memory stays flat.
const LINES_AHEAD_PER_CALL: usize = 4;

/// A line on its way to being written: read, numbered, and judged or being judged.
enum Settled<'g> {
    Skipped(String),
    Read {
        read: ReadLine<'g>,
        attempt: u64,
        judged: Result<Option<Judged>, JudgeError>,
    },
}

type Pending<'g> = Pin<Box<dyn Future<Output = Settled<'g>> + 'g>>;

/// Grades the log line after line; with a judge, stops at the first line whose judge
/// cannot be reached, keeping every line before it.
pub fn grade_in_order(
    grader: &LineGrader<'_>,
    log: OutcomeLog,
    sink: &mut Sink,
    judge: Option<&Judge>,
    judge_jobs: usize,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let ahead = judge_jobs.max(1) * LINES_AHEAD_PER_CALL;
    runtime.block_on(read_judge_write(grader, log, sink, judge, ahead))
}

async fn read_judge_write<'g>(
    grader: &'g LineGrader<'g>,
    mut log: OutcomeLog,
    sink: &mut Sink,
    judge: Option<&'g Judge>,
    ahead: usize,
) -> anyhow::Result<()> {
    let mut seeds = Seeds::default();
    let mut pending: FuturesOrdered<Pending<'g>> = FuturesOrdered::new();
    let mut text = Vec::new();
    while let Some(chunk) = log.next_chunk(CHUNK_BYTES, Vec::new())? {
        for (number, bytes) in chunk.lines() {
            let cut = chunk.cut_line(number, bytes, &grader.log_name);
            let Some(read) = cut.map(Err).or_else(|| grader.read(bytes, number)) else {
                continue;
            };
            pending.push_back(match read {
                Err(message) => Box::pin(std::future::ready(Settled::Skipped(message))),
                Ok(read) => {
                    let attempt = sink.attempts.resolve(read.slot, read.record.attempt);
                    match grader.sandbox(read.task, attempt, judge.is_some()) {
                        Err(message) => Box::pin(std::future::ready(Settled::Skipped(format!(
                            "{}:{}: {message}",
                            grader.log_name, read.record.line
                        )))),
                        Ok(sandbox) => settle(judge, &mut seeds, read, attempt, sandbox)?,
                    }
                }
            });
            while pending.len() >= ahead {
                if let Some(settled) = pending.next().await {
                    write(grader, sink, settled, &mut text)?;
                }
            }
        }
    }
    while let Some(settled) = pending.next().await {
        write(grader, sink, settled, &mut text)?;
    }
    Ok(())
}

/// The line's judgement: a call to the judge for a task with a rubric, else at once.
fn settle<'g>(
    judge: Option<&'g Judge>,
    seeds: &mut Seeds,
    read: ReadLine<'g>,
    attempt: u64,
    sandbox: Option<std::path::PathBuf>,
) -> anyhow::Result<Pending<'g>> {
    let task = read.task;
    if judge.is_none() || task.rubric.is_none() {
        let judged = Ok(unjudged(task));
        return Ok(Box::pin(std::future::ready(Settled::Read {
            read,
            attempt,
            judged,
        })));
    }
    let seed = seeds.for_task(task)?;
    Ok(Box::pin(async move {
        let outcome = &read.record.outcome;
        let judged = judge_run(judge, task, &seed, outcome, sandbox.as_deref()).await;
        Settled::Read {
            read,
            attempt,
            judged,
        }
    }))
}

/// Grades and writes a settled line, or stops at a judge that cannot be reached.
fn write(
    grader: &LineGrader<'_>,
    sink: &mut Sink,
    settled: Settled<'_>,
    text: &mut Vec<u8>,
) -> anyhow::Result<()> {
    let (read, attempt, judged) = match settled {
        Settled::Skipped(message) => {
            return sink.accept_chunk(&mut [LineOutput::Skipped(message)], &[]);
        }
        Settled::Read {
            read,
            attempt,
            judged,
        } => (read, attempt, judged),
    };
    let judged = match judged {
        Ok(judged) => judged,
        Err(error) => {
            // Stop here; everything graded so far is kept.
            let line = read.record.line;
            return Err(judge_failure(error).context(format!(
                "{}:{line}: judging stopped here; the results before this line were written",
                grader.log_name
            )));
        }
    };
    text.clear();
    let graded = grader.finish(read, Some(attempt), judged, text);
    sink.accept_chunk(&mut [LineOutput::Graded(graded)], text)
}
