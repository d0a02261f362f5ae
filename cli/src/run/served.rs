//! An attempt's report and its recorded tool calls, put together (docs/tools.md).
//!
//! For a task with `tools:` the recorded calls are the graded trajectory
//! (`trajectory_source: tools`), whatever the agent reported or its trace shows. When the
//! agent reported a trajectory too, the non-gating check "trajectory matches the recorded
//! calls" lists the differences. Usage, answer and status stay the report's (or the
//! trace's).

use super::runner_checks::{MATCHES_CALLS, USER_PLAYED, WITHIN_LIMITS};
use crate::mcp::server::ServedCalls;
use proctor_core::grade::{CheckName, CheckResult};
use proctor_core::outcome::{Outcome, TrajectorySource};
use proctor_core::task::GateCategory;
use proctor_core::trace::{RECORDED_CALLS, differences_from};

/// The outcome to grade, with the recorded calls as its trajectory, and the check of
/// the report against them when the agent reported a trajectory.
pub fn combine(reported: Outcome, served: &ServedCalls) -> (Outcome, Vec<CheckResult>) {
    let recorded = crate::mcp::record::trajectory(&served.calls);
    let mut outcome = reported;
    let mut checks = Vec::new();
    // Only the agent's own claim is checked here; a trace's tool spans are not a report.
    if !outcome.trajectory.is_empty() && outcome.trajectory_source == TrajectorySource::Reported {
        let found = differences_from(
            &outcome.trajectory,
            &recorded.trajectory,
            &[],
            RECORDED_CALLS,
        );
        checks.push(CheckResult {
            category: GateCategory::Process,
            check: CheckName::from(MATCHES_CALLS),
            passed: found.is_empty(),
            gating: false,
            failure: (!found.is_empty()).then(|| {
                format!(
                    "trajectory does not match the recorded calls: {}",
                    found.join("; ")
                )
            }),
            detail: (!found.is_empty()).then(|| found.join("; ")),
            not_checked: false,
        });
    }
    if !served.over_limits.is_empty() {
        let reasons = served.over_limits.join("; ");
        checks.push(CheckResult {
            category: GateCategory::Budget,
            check: CheckName::from(WITHIN_LIMITS),
            passed: false,
            gating: true,
            failure: Some(reasons.clone()),
            detail: Some(reasons),
            not_checked: false,
        });
    }
    if !served.user_failures.is_empty() {
        let reasons = served.user_failures.join("; ");
        checks.push(CheckResult {
            category: GateCategory::Outcome,
            check: CheckName::from(USER_PLAYED),
            passed: false,
            gating: true,
            failure: Some(reasons.clone()),
            detail: Some(reasons),
            not_checked: false,
        });
    }
    outcome.trajectory = recorded.trajectory;
    outcome.tool_calls = recorded.tool_calls + served.dropped;
    outcome.tools_used = recorded.tools_used;
    outcome.steps = recorded.steps + served.dropped;
    outcome.uncaptured_args = Vec::new();
    outcome.trajectory_source = recorded.trajectory_source;
    (outcome, checks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::record::RecordedCall;
    use serde_json::{Value, json};
    use std::time::Duration;

    fn call(tool: &str, args: Value) -> RecordedCall {
        RecordedCall {
            tool: tool.to_owned(),
            args,
            result: Some(json!({"ok": true})),
            error: None,
            faults: Vec::new(),
            started_at: jiff::Timestamp::UNIX_EPOCH,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn recorded_calls_are_graded_and_the_report_is_checked_against_them() {
        let served = ServedCalls {
            calls: vec![
                call("get_order", json!({"order_id": "A1"})),
                call("refund", json!({"order_id": "A1"})),
            ],
            dropped: 0,
            fired: Vec::new(),
            missed: Vec::new(),
            over_limits: Vec::new(),
            user_failures: Vec::new(),
            user_stopped: None,
        };
        let claim = Outcome::from_json(
            json!({"status": "final", "answer": "done",
                "trajectory": [{"tool": "get_order", "args": {"order_id": "B2"}}]})
            .as_object()
            .unwrap(),
        )
        .unwrap();
        let (graded, checks) = combine(claim, &served);
        assert_eq!(graded.trajectory_source, TrajectorySource::Tools);
        assert_eq!((graded.tool_calls, graded.trajectory.len()), (2, 2));
        assert_eq!(graded.used_tools(), ["get_order", "refund"]);
        assert_eq!(graded.answer.as_deref(), Some("done"));
        assert_eq!(
            checks[0].failure.as_deref(),
            Some(
                "trajectory does not match the recorded calls: reported 1 tool calls, the recorded calls show 2; \
                 step 1: get_order reported with {\"order_id\":\"B2\"}, the recorded calls show {\"order_id\":\"A1\"}; \
                 step 2: refund is in the recorded calls only"
            )
        );
        assert!(!checks[0].gating);
        let silent = Outcome::from_json(json!({"status": "final"}).as_object().unwrap()).unwrap();
        let (graded, checks) = combine(silent, &served);
        assert_eq!((graded.trajectory.len(), checks.len()), (2, 0));
        let mut traced = Outcome::from_json(
            json!({"status": "final", "trajectory": [{"tool": "refund", "args": {}}]})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        traced.trajectory_source = TrajectorySource::Trace;
        let (graded, checks) = combine(traced, &served);
        assert_eq!((graded.trajectory.len(), checks.len()), (2, 0));
    }
}
