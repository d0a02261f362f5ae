//! An attempt's report and its trace, put together (docs/traces.md).
//!
//! Which trajectory is graded: the trace's when `trajectory_from: trace` (or
//! `--trajectory-from trace`) asks for it or the agent reported none; else the report.
//! Usage comes from the trace when the agent reported none; answer and status when it
//! reported none (an empty answer counts as none). When the agent reported a trajectory and
//! a trace exists, the non-gating check "trajectory matches the trace" lists the differences.

use super::runner_checks::{MATCHES_TRACE, TRACE_COMPLETE};
use crate::otlp::collector::Collected;
use proctor_core::grade::{CheckName, CheckResult};
use proctor_core::outcome::Outcome;
use proctor_core::task::GateCategory;
use proctor_core::trace::differences;

/// The outcome to grade, and the non-gating checks on the trace: the comparison when
/// there was something to compare, and whether the trace arrived whole.
pub fn combine(
    reported: Outcome,
    collected: Option<Collected>,
    trajectory_from_trace: bool,
) -> (Outcome, Vec<CheckResult>) {
    let Some(collected) = collected else {
        return (reported, Vec::new());
    };
    let mut gaps = Vec::new();
    if !collected.rooted {
        gaps.push("its root span did not arrive within --trace-grace".to_owned());
    }
    if collected.dropped > 0 {
        gaps.push(format!(
            "{} spans or records over the limit of {} or {} MiB per attempt were dropped",
            collected.dropped,
            crate::otlp::collector::MAX_ITEMS_PER_ATTEMPT,
            crate::otlp::collector::MAX_BYTES_PER_ATTEMPT >> 20
        ));
    }
    let complete = (!gaps.is_empty()).then(|| CheckResult {
        category: GateCategory::Process,
        check: CheckName::from(TRACE_COMPLETE),
        passed: false,
        gating: false,
        failure: Some(format!("trace is incomplete: {}", gaps.join("; "))),
        detail: Some(gaps.join("; ")),
        not_checked: false,
    });
    let traced = collected.evidence.outcome;
    let mut outcome = reported;
    // A count of tool calls without the calls is no trajectory: rules could not see them.
    let reported_steps = !outcome.trajectory.is_empty();
    let check = reported_steps.then(|| {
        let found = differences(
            &outcome.trajectory,
            &traced.trajectory,
            &traced.uncaptured_args,
        );
        CheckResult {
            category: GateCategory::Process,
            check: CheckName::from(MATCHES_TRACE),
            passed: found.is_empty(),
            gating: false,
            failure: (!found.is_empty())
                .then(|| format!("trajectory does not match the trace: {}", found.join("; "))),
            detail: (!found.is_empty()).then(|| found.join("; ")),
            not_checked: false,
        }
    });
    if trajectory_from_trace || !reported_steps {
        outcome.trajectory = traced.trajectory;
        outcome.tool_calls = traced.tool_calls;
        outcome.tools_used = traced.tools_used;
        outcome.steps = traced.steps;
        outcome.uncaptured_args = traced.uncaptured_args;
        outcome.trajectory_source = traced.trajectory_source;
    }
    if outcome.usage.is_empty() {
        outcome.usage = traced.usage;
    }
    let crashed = outcome.error.is_some();
    if !crashed
        && outcome
            .answer
            .as_deref()
            .is_none_or(|a| a.trim().is_empty())
        && traced.answer.is_some()
    {
        outcome.answer = traced.answer;
    }
    if outcome.status.is_none() {
        outcome.status = traced.status;
        if outcome.error.is_none() {
            outcome.error = traced.error;
        }
    }
    (outcome, check.into_iter().chain(complete).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_core::outcome::{Status, TrajectorySource};
    use proctor_core::trace::TraceEvidence;
    use serde_json::json;

    fn outcome(value: serde_json::Value) -> Outcome {
        Outcome::from_json(value.as_object().unwrap()).unwrap()
    }

    fn collected(traced: Outcome) -> Option<Collected> {
        Some(Collected {
            evidence: TraceEvidence {
                outcome: traced,
                model_calls: 1,
                aggregated_usage: false,
            },
            rooted: true,
            dropped: 0,
        })
    }

    fn trace() -> Outcome {
        let mut traced = outcome(json!({"status": "final", "answer": "refunded A1",
            "trajectory": [{"tool": "refund", "args": {"order_id": "A1"}}],
            "usage": [{"provider": "openai", "model": "m", "input_tokens": 10, "output_tokens": 2}]}));
        traced.trajectory_source = TrajectorySource::Trace;
        traced
    }

    #[test]
    fn a_count_of_tool_calls_is_no_trajectory() {
        let (graded, _) = combine(
            outcome(json!({"status": "final", "tool_calls": 5})),
            collected(trace()),
            false,
        );
        assert_eq!(graded.trajectory_source, TrajectorySource::Trace);
        assert_eq!((graded.trajectory.len(), graded.tool_calls), (1, 1));
    }

    #[test]
    fn a_silent_agent_is_graded_on_its_trace() {
        let (graded, check) = combine(
            outcome(json!({"status": "final", "answer": ""})),
            collected(trace()),
            false,
        );
        assert_eq!(graded.trajectory_source, TrajectorySource::Trace);
        assert_eq!(graded.trajectory.len(), 1);
        assert_eq!(graded.usage.len(), 1);
        assert_eq!(graded.answer.as_deref(), Some("refunded A1"));
        assert!(check.is_empty());
    }

    #[test]
    fn a_claim_is_checked_against_the_trace() {
        let claim = outcome(json!({"status": "final", "answer": "refunded A1",
            "trajectory": [{"tool": "check_eligibility", "args": {"order_id": "A1"}},
                           {"tool": "refund", "args": {"order_id": "A1"}}]}));
        let (graded, check) = combine(claim.clone(), collected(trace()), false);
        assert_eq!(graded.trajectory_source, TrajectorySource::Reported);
        assert_eq!(graded.trajectory.len(), 2);
        assert_eq!(graded.usage.len(), 1, "no reported usage: the trace's");
        let check = &check[0];
        assert!(!check.passed && !check.gating);
        assert_eq!(
            check.failure.as_deref(),
            Some(
                "trajectory does not match the trace: reported 2 tool calls, the trace shows 1; \
                 step 1: reported check_eligibility, the trace shows refund; \
                 step 2: refund is in the report only"
            )
        );
        let (graded, _) = combine(claim, collected(trace()), true);
        assert_eq!(graded.trajectory_source, TrajectorySource::Trace);
        assert_eq!(graded.trajectory.len(), 1);
        let (graded, check) = combine(outcome(json!({"status": "gave_up"})), None, true);
        assert_eq!(
            (graded.status, check.is_empty()),
            (Some(Status::GaveUp), true)
        );
        let mut partial = collected(trace()).unwrap();
        partial.rooted = false;
        let (_, checks) = combine(outcome(json!({"status": "final"})), Some(partial), false);
        assert_eq!(checks[0].check, TRACE_COMPLETE);
        assert_eq!(
            checks[0].failure.as_deref(),
            Some("trace is incomplete: its root span did not arrive within --trace-grace")
        );
    }
}
