//! `proctor grade --traces FILE`: grades OpenTelemetry traces offline, one attempt per
//! trace (docs/traces.md).
//!
//! The file is OTLP JSON lines, as the Collector's file exporter writes them, or one OTLP
//! JSON document (possibly pretty-printed). Spans are grouped by trace id across lines and a
//! trace is graded as soon as the line with its root span has been read, so memory holds
//! only the traces still open. A line that is not OTLP is reported with its number; the
//! rest is graded.

use super::line::{LineGrader, LineOutput, ReadLine, unjudged};
use super::sink::Sink;
use crate::exit::InputContext;
use crate::judging::{Seeds, judge_failure, judge_run};
use crate::outcome_log::{MAX_LINE_BYTES, OutcomeRecord};
use anyhow::Context;
use proctor_core::trace::{ClosedTrace, TraceGrouper, evidence, read_document};
use proctor_judge::Judge;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// A single document (not JSON lines) is read whole, up to this size.
const MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// Where traces name their task and attempt, and the judge of rubric tasks.
#[derive(Debug)]
pub struct TraceKeys<'a> {
    /// The span or resource attribute holding the task id (`--task-attr`).
    pub task_attr: &'a str,
    /// The task of traces that name none (`--task`).
    pub task: Option<&'a str>,
    pub judge: Option<TraceJudge<'a>>,
}

/// Judging a rubric task's traces, one call at a time in trace order.
#[derive(Debug)]
pub struct TraceJudge<'a> {
    pub judge: &'a Judge,
    pub runtime: tokio::runtime::Runtime,
    pub seeds: std::cell::RefCell<Seeds>,
}

impl<'a> TraceJudge<'a> {
    pub fn new(judge: &'a Judge) -> anyhow::Result<Self> {
        Ok(TraceJudge {
            judge,
            runtime: tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?,
            seeds: Default::default(),
        })
    }
}

/// The attribute holding the attempt number, as proctor sets it in `OTEL_RESOURCE_ATTRIBUTES`.
const ATTEMPT_ATTR: &str = "proctor.attempt";

pub fn grade_traces(
    grader: &LineGrader<'_>,
    path: &Path,
    keys: &TraceKeys<'_>,
    sink: &mut Sink,
) -> anyhow::Result<()> {
    let file = File::open(path).with_input_context(|| unreadable(path))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut grouper = TraceGrouper::new();
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .with_input_context(|| unreadable(path))?;
        if read == 0 {
            break;
        }
        number += 1;
        if line.len() > MAX_LINE_BYTES {
            skip_rest_of_line(&mut reader)?;
            skipped(
                sink,
                format!(
                    "{}:{number}: line longer than {} MiB",
                    grader.log_name,
                    MAX_LINE_BYTES >> 20
                ),
            )?;
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let document: Value = match serde_json::from_slice(text) {
            Ok(document) => document,
            // The first line of a pretty-printed document: read the file as one document.
            Err(error) if error.is_eof() && number == 1 && text.starts_with(b"{") => {
                return grade_one_document(grader, path, keys, sink);
            }
            Err(error) => {
                skipped(
                    sink,
                    format!("{}:{number}: not JSON: {error}", grader.log_name),
                )?;
                continue;
            }
        };
        match read_document(&document) {
            Ok(telemetry) => {
                for trace in grouper.add(telemetry, number) {
                    grade_trace(grader, keys, trace, sink)?;
                }
            }
            Err(error) => skipped(sink, format!("{}:{number}: {error}", grader.log_name))?,
        }
    }
    finish(grader, keys, grouper, sink)
}

fn grade_one_document(
    grader: &LineGrader<'_>,
    path: &Path,
    keys: &TraceKeys<'_>,
    sink: &mut Sink,
) -> anyhow::Result<()> {
    let file = File::open(path).with_input_context(|| unreadable(path))?;
    let mut text = Vec::new();
    file.take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut text)
        .with_input_context(|| unreadable(path))?;
    if text.len() as u64 > MAX_DOCUMENT_BYTES {
        crate::exit::bail_input!(
            "{}: one JSON document of more than {} MiB; write OTLP JSON lines instead",
            path.display(),
            MAX_DOCUMENT_BYTES >> 20
        );
    }
    let document: Value = serde_json::from_slice(&text)
        .map_err(|e| crate::exit::bad_input!("{}: not JSON: {e}", path.display()))?;
    let telemetry =
        read_document(&document).map_err(|e| crate::exit::bad_input!("{}: {e}", path.display()))?;
    let mut grouper = TraceGrouper::new();
    for trace in grouper.add(telemetry, 1) {
        grade_trace(grader, keys, trace, sink)?;
    }
    finish(grader, keys, grouper, sink)
}

fn finish(
    grader: &LineGrader<'_>,
    keys: &TraceKeys<'_>,
    grouper: TraceGrouper,
    sink: &mut Sink,
) -> anyhow::Result<()> {
    let stragglers = grouper.stragglers;
    for trace in grouper.finish() {
        grade_trace(grader, keys, trace, sink)?;
    }
    if stragglers > 0 {
        skipped(
            sink,
            format!(
                "{}: {stragglers} spans or log records came after their trace had closed, or named no trace",
                grader.log_name
            ),
        )?;
    }
    Ok(())
}

fn skipped(sink: &mut Sink, message: String) -> anyhow::Result<()> {
    sink.accept_chunk(&mut [LineOutput::Skipped(message)], &[])
}

fn skip_rest_of_line(reader: &mut impl BufRead) -> anyhow::Result<()> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', buffer) {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                reader.consume(all);
            }
        }
    }
}

/// The first value of `key` on the trace's spans or their resources, root spans first.
fn trace_attribute<'a>(trace: &'a ClosedTrace, key: &str) -> Option<&'a Value> {
    let roots = trace.spans.iter().filter(|s| s.parent_span_id.is_none());
    let others = trace.spans.iter().filter(|s| s.parent_span_id.is_some());
    roots
        .chain(others)
        .find_map(|span| span.attribute(key))
        .or_else(|| trace.logs.iter().find_map(|log| log.attribute(key)))
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn grade_trace(
    grader: &LineGrader<'_>,
    keys: &TraceKeys<'_>,
    trace: ClosedTrace,
    sink: &mut Sink,
) -> anyhow::Result<()> {
    let place = format!(
        "{}:{}: trace {}",
        grader.log_name, trace.first_line, trace.trace_id
    );
    let task_id = trace_attribute(&trace, keys.task_attr)
        .and_then(text_of)
        .or_else(|| keys.task.map(str::to_owned));
    let Some(task_id) = task_id else {
        return skipped(
            sink,
            format!(
                "{place}: no `{}` attribute on its spans or resource; name the task with --task ID",
                keys.task_attr
            ),
        );
    };
    let Some((slot, task)) = grader.suite.find(&task_id) else {
        return skipped(
            sink,
            format!(
                "{place}: task `{task_id}` is not in the suite {}",
                grader.tasks_name
            ),
        );
    };
    let given = trace_attribute(&trace, ATTEMPT_ATTR)
        .and_then(text_of)
        .and_then(|text| text.parse::<u64>().ok());
    let started = trace
        .spans
        .iter()
        .map(|s| s.start_ns)
        .filter(|n| *n > 0)
        .min();
    let time = started.and_then(|nanos| jiff::Timestamp::from_nanosecond(i128::from(nanos)).ok());
    let outcome = evidence(&trace.spans, &trace.logs).outcome;
    let attempt = sink.attempts.resolve(slot, given);
    let sandbox = match grader.sandbox(task, attempt, keys.judge.is_some()) {
        Ok(sandbox) => sandbox,
        Err(message) => return skipped(sink, format!("{place}: {message}")),
    };
    let judged = match (&keys.judge, &task.rubric) {
        (Some(judging), Some(_)) => {
            let seed = judging.seeds.borrow_mut().for_task(task)?;
            let call = judge_run(
                Some(judging.judge),
                task,
                &seed,
                &outcome,
                sandbox.as_deref(),
            );
            match judging.runtime.block_on(call) {
                Ok(judged) => judged,
                Err(error) => {
                    // Stop here; everything graded so far is kept.
                    return Err(judge_failure(error).context(format!(
                        "{}:{}: judging stopped here; the results before this line were written",
                        grader.log_name, trace.first_line
                    )));
                }
            }
        }
        _ => unjudged(task),
    };
    let record = OutcomeRecord {
        line: trace.first_line,
        task: task_id,
        attempt: Some(attempt),
        outcome,
        time: Ok(time),
        // The trace is the only account there is.
        run: None,
    };
    let read = ReadLine {
        task,
        slot,
        record: Box::new(record),
    };
    let mut text = Vec::new();
    let graded = grader.finish(read, Some(attempt), judged, &mut text);
    sink.accept_chunk(&mut [LineOutput::Graded(graded)], &text)
}

/// The error of a trace file that cannot be opened or read, naming it.
fn unreadable(path: &Path) -> String {
    format!("{}: cannot read the trace file", path.display())
}
