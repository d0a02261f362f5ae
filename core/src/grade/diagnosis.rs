//! Failure diagnosis (docs/metrics.md): one bucket per failed run, because failures that
//! give up gracefully are far safer than ones that run into the cap.

use crate::outcome::{Outcome, Status};
use serde::{Deserialize, Serialize};

/// The bucket of one failed run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Diagnosis {
    /// The run raised or crashed.
    Error,
    /// Steps reached `step_cap`, or the run timed out.
    HitCap,
    /// The last four tool calls are the same tool.
    Looping,
    /// Status `gave_up`, or it called a tool named `report_stuck`.
    GracefulGiveup,
    /// It finished normally with a failing result.
    WrongButTerminated,
}

impl Diagnosis {
    /// Every bucket, in report order.
    pub const ALL: [Diagnosis; 5] = [
        Diagnosis::Error,
        Diagnosis::HitCap,
        Diagnosis::Looping,
        Diagnosis::GracefulGiveup,
        Diagnosis::WrongButTerminated,
    ];

    /// The name used in reports and result files.
    pub fn as_str(self) -> &'static str {
        match self {
            Diagnosis::Error => "error",
            Diagnosis::HitCap => "hit_cap",
            Diagnosis::Looping => "looping",
            Diagnosis::GracefulGiveup => "graceful_giveup",
            Diagnosis::WrongButTerminated => "wrong_but_terminated",
        }
    }
}

/// The tool an agent calls to say it is stuck.
pub const REPORT_STUCK_TOOL: &str = "report_stuck";

/// How many identical trailing tool calls count as looping.
const LOOP_LENGTH: usize = 4;

/// Buckets a failed run; the first matching bucket wins, in the documented order.
pub fn diagnose(outcome: &Outcome, step_cap: Option<u64>) -> Diagnosis {
    if outcome.error.is_some() || outcome.status == Some(Status::Error) {
        return Diagnosis::Error;
    }
    let capped = matches!(outcome.status, Some(Status::HitCap | Status::Timeout))
        || step_cap.is_some_and(|cap| outcome.steps >= cap);
    if capped {
        return Diagnosis::HitCap;
    }
    let trajectory = &outcome.trajectory;
    if trajectory.len() >= LOOP_LENGTH {
        let tail = &trajectory[trajectory.len() - LOOP_LENGTH..];
        if tail.iter().all(|step| step.tool == tail[0].tool) {
            return Diagnosis::Looping;
        }
    }
    if outcome.status == Some(Status::GaveUp) || outcome.used_tool(REPORT_STUCK_TOOL) {
        return Diagnosis::GracefulGiveup;
    }
    Diagnosis::WrongButTerminated
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{AgentError, Step};

    fn steps(tools: &[&str]) -> Vec<Step> {
        tools
            .iter()
            .map(|t| Step {
                tool: (*t).into(),
                args: Default::default(),
                error: None,
                result: None,
                faults: None,
            })
            .collect()
    }

    fn outcome(status: Status, tools: &[&str]) -> Outcome {
        let trajectory = steps(tools);
        Outcome {
            status: Some(status),
            steps: trajectory.len() as u64,
            tool_calls: trajectory.len() as u64,
            trajectory,
            ..Outcome::default()
        }
    }

    #[test]
    fn buckets_in_order() {
        let mut raised = outcome(Status::Final, &["a", "a", "a", "a"]);
        raised.error = Some(AgentError {
            kind: "KeyError".into(),
            message: String::new(),
        });
        assert_eq!(diagnose(&raised, None), Diagnosis::Error);
        assert_eq!(
            diagnose(&outcome(Status::Timeout, &[]), None),
            Diagnosis::HitCap
        );
        assert_eq!(
            diagnose(&outcome(Status::Final, &["a", "b", "c"]), Some(3)),
            Diagnosis::HitCap
        );
        assert_eq!(
            diagnose(&outcome(Status::Final, &["b", "a", "a", "a", "a"]), None),
            Diagnosis::Looping
        );
        assert_eq!(
            diagnose(&outcome(Status::Final, &["a", "a", "b", "a"]), None),
            Diagnosis::WrongButTerminated
        );
        assert_eq!(
            diagnose(&outcome(Status::GaveUp, &[]), None),
            Diagnosis::GracefulGiveup
        );
        assert_eq!(
            diagnose(&outcome(Status::Final, &["read", "report_stuck"]), None),
            Diagnosis::GracefulGiveup
        );
        assert_eq!(
            diagnose(&outcome(Status::Final, &["a"]), Some(5)),
            Diagnosis::WrongButTerminated
        );
    }
}
