//! Rules on trajectories whose arguments were not all captured (traces, docs/traces.md).
//!
//! A rule that compares arguments cannot decide on a call whose arguments are unknown, and
//! must not pass for it. Both such rules only ever find more violations as a trajectory
//! grows, so the steps before the first uncaptured call they look at are checked as usual:
//! a violation there stands; otherwise the rule fails saying it could not decide.

use super::Rule;
use crate::outcome::Step;

impl Rule {
    /// Whether the rule compares call arguments (`same:` or `per: args`).
    #[must_use]
    pub fn compares_arguments(&self) -> bool {
        matches!(
            self,
            Rule::Before { same: Some(_), .. } | Rule::AtMost { per_args: true, .. }
        )
    }

    /// Whether the rule's outcome depends on calls of `tool`'s arguments.
    fn reads_arguments_of(&self, tool: &str) -> bool {
        match self {
            Rule::Before {
                tool: guarded,
                requires,
                same: Some(_),
                ..
            } => guarded == tool || requires.iter().any(|required| required == tool),
            Rule::AtMost {
                tool: counted,
                per_args: true,
                ..
            } => counted == tool,
            _ => false,
        }
    }

    /// As [`Rule::violation`], for a trajectory in which the steps numbered (from 1) in
    /// `uncaptured` have unknown arguments.
    #[must_use]
    pub fn violation_with_uncaptured(
        &self,
        trajectory: &[Step],
        uncaptured: &[u64],
    ) -> Option<String> {
        let Some(index) = self.first_unknown(trajectory, uncaptured) else {
            return self.violation(trajectory);
        };
        self.violation(&trajectory[..index]).or_else(|| {
            Some(format!(
                "{}: could not decide: the arguments of {} at step {} were not captured",
                self.describe(),
                trajectory[index].tool,
                index + 1
            ))
        })
    }

    /// A violation the calls prove whatever the uncaptured arguments were, else `None`:
    /// what a trajectory that is evidence against the agent, not its graded account, can
    /// show. A `before` rule comparing arguments is broken by a call with no earlier call
    /// of the required tool at all.
    #[must_use]
    pub fn proven_violation(&self, trajectory: &[Step], uncaptured: &[u64]) -> Option<String> {
        let Some(index) = self.first_unknown(trajectory, uncaptured) else {
            return self.violation(trajectory);
        };
        self.violation(&trajectory[..index]).or_else(|| match self {
            Rule::Before {
                tool,
                requires,
                same: Some(_),
                ok,
            } => Rule::Before {
                tool: tool.clone(),
                requires: requires.clone(),
                same: None,
                ok: *ok,
            }
            .violation(trajectory),
            _ => None,
        })
    }

    /// The index of the first step whose uncaptured arguments the rule would read.
    fn first_unknown(&self, trajectory: &[Step], uncaptured: &[u64]) -> Option<usize> {
        uncaptured
            .iter()
            .filter_map(|&number| {
                let index = usize::try_from(number).ok()?.checked_sub(1)?;
                let step = trajectory.get(index)?;
                self.reads_arguments_of(&step.tool).then_some(index)
            })
            .min()
    }
}

#[cfg(test)]
mod tests {
    use crate::outcome::Step;
    use crate::rules::Rule;
    use serde_json::{Value, json};

    fn step(tool: &str, args: Value) -> Step {
        Step::call(tool, &args)
    }

    #[test]
    fn an_uncaptured_call_is_undecided_never_a_pass() {
        let rule =
            Rule::from_json(&json!({"before": "refund", "requires": "check", "same": "args"}))
                .unwrap();
        let trajectory = vec![
            step("check", json!({"id": "A1"})),
            step("refund", Value::Null),
        ];
        assert_eq!(
            rule.violation(&trajectory),
            Some("refund null at step 2 has no earlier check null".to_owned())
        );
        assert_eq!(
            rule.violation_with_uncaptured(&trajectory, &[2]).as_deref(),
            Some(
                "refund only after check (same args): could not decide: the arguments of refund at step 2 were not captured"
            )
        );
        // A violation before the unknown call stands.
        let early = vec![
            step("refund", json!({"id": "A1"})),
            step("check", Value::Null),
        ];
        assert_eq!(
            rule.violation_with_uncaptured(&early, &[2]).as_deref(),
            Some("refund {\"id\":\"A1\"} at step 1 has no earlier check {\"id\":\"A1\"}")
        );
        // Rules that do not compare arguments decide as usual.
        let order = Rule::from_json(&json!({"before": "refund", "requires": "check"})).unwrap();
        assert_eq!(order.violation_with_uncaptured(&trajectory, &[2]), None);
        let once =
            Rule::from_json(&json!({"at_most": 1, "tool": "refund", "per": "args"})).unwrap();
        assert!(
            once.violation_with_uncaptured(&trajectory, &[2])
                .unwrap()
                .contains("could not decide")
        );
        assert_eq!(once.violation_with_uncaptured(&trajectory, &[1]), None);
    }

    #[test]
    fn only_a_proven_violation_counts_as_evidence() {
        let rule =
            Rule::from_json(&json!({"before": "refund", "requires": "check", "same": "args"}))
                .unwrap();
        // An earlier check whose arguments are unknown might have been the same order.
        let checked = vec![step("check", Value::Null), step("refund", Value::Null)];
        assert_eq!(rule.proven_violation(&checked, &[1, 2]), None);
        // No check at all: broken whatever the arguments were.
        let unchecked = vec![step("lookup", Value::Null), step("refund", Value::Null)];
        assert_eq!(
            rule.proven_violation(&unchecked, &[1, 2]).as_deref(),
            Some("refund at step 2 has no earlier check")
        );
        let once =
            Rule::from_json(&json!({"at_most": 1, "tool": "refund", "per": "args"})).unwrap();
        let twice = vec![step("refund", Value::Null), step("refund", Value::Null)];
        assert_eq!(once.proven_violation(&twice, &[1, 2]), None);
        // Captured arguments decide as usual.
        let known = vec![step("refund", json!({"id": "A1"}))];
        assert_eq!(rule.proven_violation(&known, &[]), rule.violation(&known));
    }
}
