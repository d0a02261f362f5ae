//! Every call an attempt's agent made to its served tools, in order, and the trajectory
//! made of them (`trajectory_source: tools`).

use proctor_core::compact_json::CompactJson;
use proctor_core::outcome::{Outcome, Step, TrajectorySource};
use proctor_core::result::CallTiming;
use serde_json::Value;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Calls recorded per attempt at most; later calls are answered with a tool error and
/// counted, so an agent in a loop cannot exhaust proctor's memory.
pub const MAX_RECORDED_CALLS: usize = 10_000;
/// Bytes of arguments and results kept per attempt (as compact JSON); past them a call is
/// still recorded, by its tool name, without its arguments and result (counted as trimmed).
/// This bounds the result line: its trajectory holds at most this much of them.
pub const MAX_RECORDED_BYTES: usize = 16 << 20;
/// How long after the agent exits the calls it started may still finish; calls running
/// past it are stopped and recorded as cut off.
pub const CUT_OFF_WAIT: Duration = Duration::from_secs(5);
/// The error of a call that the agent's exit cut off (docs/tools.md): the agent exited before
/// it was answered and it did not finish within [`CUT_OFF_WAIT`], so its
/// handler was stopped. It is a step like any other: rules and forbidden tools see it.
pub const CUT_OFF: &str = "cut off: the agent exited before this call was answered";

/// One call as proctor saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    pub tool: String,
    pub args: Value,
    /// The result returned to the agent (a tool error's too, as its JSON).
    pub result: Option<Value>,
    /// Why the call failed: a tool error, a refusal, a script that crashed.
    pub error: Option<String>,
    /// The faults applied to the call (their kinds), in the order they applied.
    pub faults: Vec<String>,
    pub started_at: jiff::Timestamp,
    pub duration: Duration,
}

/// The bytes a value takes as compact JSON, counted without writing it.
pub fn json_bytes(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// One attempt's calls, numbered as they start and kept in that order.
#[derive(Debug, Default)]
pub struct Recorder {
    started: AtomicUsize,
    calls: Mutex<Vec<(usize, RecordedCall)>>,
    dropped: AtomicU64,
    /// Bytes of arguments and results kept so far.
    bytes: AtomicUsize,
    /// Calls kept without their arguments and result, over [`MAX_RECORDED_BYTES`].
    trimmed: AtomicU64,
}

impl Recorder {
    /// Numbers the next call (from 1, as rule reasons count steps); calls over
    /// [`MAX_RECORDED_CALLS`] get `None` and are counted as dropped.
    pub fn next_step(&self) -> Option<usize> {
        let step = self.started.fetch_add(1, Ordering::Relaxed) + 1;
        if step > MAX_RECORDED_CALLS {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        Some(step)
    }

    /// Records call number `step` once it has been answered (or cut off); past
    /// [`MAX_RECORDED_BYTES`] without its arguments and result.
    pub fn push(&self, step: usize, mut call: RecordedCall) {
        let size = json_bytes(&call.args)
            + call.result.as_ref().map_or(0, json_bytes)
            + call.error.as_ref().map_or(0, String::len);
        let kept = self
            .bytes
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |bytes| {
                (bytes + size <= MAX_RECORDED_BYTES).then_some(bytes + size)
            })
            .is_ok();
        if !kept {
            self.trimmed.fetch_add(1, Ordering::Relaxed);
            call.args = Value::Object(serde_json::Map::new());
            call.result = None;
            let why = format!(
                "arguments and result not kept: over the {} MiB of recorded calls per attempt",
                MAX_RECORDED_BYTES >> 20
            );
            call.error = Some(match call.error {
                Some(error) if error.len() <= 1024 => format!("{error}; {why}"),
                _ => why,
            });
        }
        self.calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((step, call));
    }

    /// Calls kept without their arguments and result so far.
    pub fn trimmed(&self) -> u64 {
        self.trimmed.load(Ordering::Relaxed)
    }

    /// Everything recorded, in the order the calls started, and how many calls were over
    /// the limit.
    pub fn take(&self) -> (Vec<RecordedCall>, u64) {
        let mut calls = std::mem::take(&mut *self.calls.lock().unwrap_or_else(|e| e.into_inner()));
        calls.sort_by_key(|(step, _)| *step);
        let calls = calls.into_iter().map(|(_, call)| call).collect();
        (calls, self.dropped.load(Ordering::Relaxed))
    }
}

/// When each call started and how long it took, by step.
pub fn timings(calls: &[RecordedCall]) -> Vec<CallTiming> {
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| CallTiming {
            step: index as u64 + 1,
            started_at: call.started_at.to_string(),
            duration_us: call.duration.as_micros() as u64,
        })
        .collect()
}

/// The recorded calls as an outcome's trajectory: every call is a step, refused ones
/// too (an unknown tool is still a tool the agent tried to use).
pub fn trajectory(calls: &[RecordedCall]) -> Outcome {
    let trajectory: Vec<Step> = calls
        .iter()
        .map(|call| Step {
            tool: call.tool.as_str().into(),
            args: CompactJson::from(call.args.clone()),
            error: call.error.clone().map(|e| Box::new(Value::String(e))),
            result: call.result.clone().map(Box::new),
            faults: (!call.faults.is_empty()).then(|| Box::new(call.faults.clone())),
        })
        .collect();
    Outcome {
        tool_calls: trajectory.len() as u64,
        steps: trajectory.len() as u64,
        trajectory,
        trajectory_source: TrajectorySource::Tools,
        ..Outcome::default()
    }
}
