//! The runner: spawns agents in fresh sandboxes, schedules attempts in parallel,
//! and grades each attempt as it ends.

pub mod agent;
pub mod attempt;
pub mod descriptors;
pub mod environment;
pub mod grace;
pub mod isolation;
pub mod keep_folder;
pub mod outcome;
pub mod outcome_file;
pub mod plan;
pub mod process;
pub mod sandbox;
pub mod served;
pub mod signals;
pub mod stdout_outcome;
pub mod traced;
pub mod variants;

/// The checks a run adds beside the task's own ([`proctor_core::grade::Grade::add_runner_checks`]):
/// a result line keeps them, and grading the line again keeps them.
const RUNNER_CHECKS: [&str; 4] = [
    traced::MATCHES_TRACE,
    traced::TRACE_COMPLETE,
    served::MATCHES_CALLS,
    served::WITHIN_LIMITS,
];

/// Whether a result line's check is one the run added, not one of the task's.
pub fn is_runner_check(check: &proctor_core::grade::CheckResult) -> bool {
    RUNNER_CHECKS.iter().any(|name| check.check == *name)
}
