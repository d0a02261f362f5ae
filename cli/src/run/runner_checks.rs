//! The names of the checks a run adds beside the task's own: whether the trace arrived and
//! matches the report (`traced`), whether the report matches the recorded tool calls and the
//! agent kept within the tool server's limits (`served`).

/// The name of the check that compares a report with its trace.
pub const MATCHES_TRACE: &str = "trajectory matches the trace";
/// The name of the check that says whether the whole trace arrived.
pub const TRACE_COMPLETE: &str = "trace is complete";
/// The name of the check that compares a report with the recorded calls.
pub const MATCHES_CALLS: &str = "trajectory matches the recorded calls";
/// The name of the check that fails when the agent went over a limit of the tool server
/// (docs/tools.md, "Limits"): a gating one, since what it sent was not served or not kept.
pub const WITHIN_LIMITS: &str = "served tools within limits";

/// The checks a run adds beside the task's own ([`proctor_core::grade::Grade::add_runner_checks`]):
/// a result line keeps them, and grading the line again keeps them.
const RUNNER_CHECKS: [&str; 4] = [MATCHES_TRACE, TRACE_COMPLETE, MATCHES_CALLS, WITHIN_LIMITS];

/// Whether a result line's check is one the run added, not one of the task's.
pub fn is_runner_check(check: &proctor_core::grade::CheckResult) -> bool {
    RUNNER_CHECKS.iter().any(|name| check.check == *name)
}
