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

/// The name of the check that fails when the simulated user could not play its part (its
/// simulator broke, its model gave no usable reply): the conversation was not the task's,
/// so the attempt is not evaluated (docs/tools.md, "A simulated user").
pub const USER_PLAYED: &str = "the simulated user played its part";

/// The checks a run adds beside the task's own ([`proctor_core::grade::Grade::add_runner_checks`]):
/// a result line keeps them, and grading the line again keeps them.
const RUNNER_CHECKS: [&str; 5] = [
    MATCHES_TRACE,
    TRACE_COMPLETE,
    MATCHES_CALLS,
    WITHIN_LIMITS,
    USER_PLAYED,
];

/// Whether a result line's check is one the run added, not one of the task's.
pub fn is_runner_check(check: &proctor_core::grade::CheckResult) -> bool {
    RUNNER_CHECKS.iter().any(|name| check.check == *name)
}

/// Why the attempt is not evaluated: the failure of its [`USER_PLAYED`] check, if it failed.
pub fn user_failure(checks: &[proctor_core::grade::CheckResult]) -> Option<&str> {
    checks
        .iter()
        .find(|check| check.check == USER_PLAYED && !check.passed)
        .and_then(|check| check.failure.as_deref())
}
