//! The top-level field names of a result line (docs/result-format.md), written once: the
//! hand-written writer (`write.rs`) and the reader of result lines given to `proctor grade`
//! take them from here, and the tests hold [`ResultLine`](super::ResultLine)'s serde names
//! to [`ALL`]. The outcome's fields are the outcome line's own names
//! ([`crate::outcome::names`]): a result line reads back as an outcome.

pub use crate::outcome::names::{
    ANSWER, ERROR, STATUS, STEPS, TOOL_CALLS, TOOLS_USED, TRAJECTORY, TRAJECTORY_SOURCE,
    UNCAPTURED_ARGS, USAGE,
};

/// `format`: `proctor.result/1`.
pub const FORMAT: &str = "format";
/// `task`: the task's id.
pub const TASK: &str = "task";
/// `variant`: the variant's name for an `id@NAME` task.
pub const VARIANT: &str = "variant";
/// `attempt`: the attempt's number within its task, from 0.
pub const ATTEMPT: &str = "attempt";
/// `label`: the `--label` of the run.
pub const LABEL: &str = "label";
/// `passed`: `true`, `false`, or `null` when ungraded.
pub const PASSED: &str = "passed";
/// `reasons`: why the attempt did not pass.
pub const REASONS: &str = "reasons";
/// `diagnosis`: what kind of failure it was.
pub const DIAGNOSIS: &str = "diagnosis";
/// `checks`: the checks the reasons do not account for.
pub const CHECKS: &str = "checks";
/// `rules_not_applied`: the rules whose tool the attempt never called, in a task that
/// knows no tools.
pub const RULES_NOT_APPLIED: &str = "rules_not_applied";
/// `faults_fired`: the seeded tool faults that fired.
pub const FAULTS_FIRED: &str = "faults_fired";
/// `faults_missed`: the `calls:` faults whose call never came.
pub const FAULTS_MISSED: &str = "faults_missed";
/// `evidence`: the other accounts of the attempt's calls.
pub const EVIDENCE: &str = "evidence";
/// `step_efficiency`: `optimal_steps / steps`.
pub const STEP_EFFICIENCY: &str = "step_efficiency";
/// `tool_correctness`: the share of the task's `expected_tools` used.
pub const TOOL_CORRECTNESS: &str = "tool_correctness";
/// `judge`: the judge's verdict with its provenance.
pub const JUDGE: &str = "judge";
/// `cost`: what the attempt cost.
pub const COST: &str = "cost";
/// `timings`: when the attempt ran and for how long.
pub const TIMINGS: &str = "timings";
/// `task_digest`: the digest of the task file graded against.
pub const TASK_DIGEST: &str = "task_digest";
/// `run_id`: the run the attempt belongs to, shared by every shard of one run.
pub const RUN_ID: &str = "run_id";
/// `shard`: `I/N`, the shard of a sharded run that made the attempt.
pub const SHARD: &str = "shard";
/// `seed`: the attempt's seed.
pub const SEED: &str = "seed";
/// `process`: how the agent process ended.
pub const PROCESS: &str = "process";

/// `task_id`: what older lines call `task`.
pub const OLDER_TASK: &str = "task_id";
/// `run`: what older lines call `attempt`.
pub const OLDER_ATTEMPT: &str = "run";

/// Every field of a result line, in the order it is written.
pub const ALL: [&str; 33] = [
    FORMAT,
    TASK,
    VARIANT,
    ATTEMPT,
    LABEL,
    PASSED,
    REASONS,
    DIAGNOSIS,
    CHECKS,
    RULES_NOT_APPLIED,
    STATUS,
    ANSWER,
    TOOL_CALLS,
    TOOLS_USED,
    TRAJECTORY,
    TRAJECTORY_SOURCE,
    UNCAPTURED_ARGS,
    FAULTS_FIRED,
    FAULTS_MISSED,
    EVIDENCE,
    STEPS,
    ERROR,
    USAGE,
    STEP_EFFICIENCY,
    TOOL_CORRECTNESS,
    JUDGE,
    COST,
    TIMINGS,
    TASK_DIGEST,
    RUN_ID,
    SHARD,
    SEED,
    PROCESS,
];

/// The fields `proctor grade` reads back from a result line given as its outcomes: the
/// task and attempt, the outcome, and what the run saw besides ([`FORMAT`] says the line
/// is a result line). Every other field is the run's grade, which grading again replaces.
pub const READ_BACK: [&str; 15] = [
    FORMAT,
    TASK,
    ATTEMPT,
    STATUS,
    ANSWER,
    TOOL_CALLS,
    TOOLS_USED,
    TRAJECTORY,
    USAGE,
    STEPS,
    ERROR,
    TRAJECTORY_SOURCE,
    UNCAPTURED_ARGS,
    EVIDENCE,
    CHECKS,
];

#[cfg(test)]
mod tests;
