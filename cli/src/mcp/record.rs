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

/// One call as proctor saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    pub tool: String,
    pub args: Value,
    /// The result returned to the agent (a tool error's too, as its JSON).
    pub result: Option<Value>,
    /// Why the call failed: a tool error, a refusal, a script that crashed.
    pub error: Option<String>,
    /// The fault that was applied to the call, if any (its kind).
    pub fault: Option<String>,
    pub started_at: jiff::Timestamp,
    pub duration: Duration,
}

/// One attempt's calls, numbered as they start and kept in that order.
#[derive(Debug, Default)]
pub struct Recorder {
    started: AtomicUsize,
    calls: Mutex<Vec<(usize, RecordedCall)>>,
    dropped: AtomicU64,
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

    /// Records call number `step` once it has been answered.
    pub fn push(&self, step: usize, call: RecordedCall) {
        self.calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((step, call));
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
