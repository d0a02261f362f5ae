//! Rules an attempt gave nothing to check (docs/metrics.md, "Rules that never applied"): in
//! a task that knows no tools, a misspelt tool name cannot be refused at load, so each
//! attempt records the `before` and `at_most` rules whose tool it never called, and the
//! report names those no attempt of the task applied.

use crate::outcome::Outcome;
use crate::rules::Rule;
use crate::task::Task;
use serde::{Deserialize, Serialize};

/// A rule of the task, by its check name, and the tool whose calls it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleNotApplied {
    /// The rule as its check is named (`refund only after check_eligibility`).
    pub rule: String,
    /// The tool it guards, which the attempt never called.
    pub tool: String,
}

/// The rules of `task` that `outcome` gave nothing to check; always empty for a task that
/// knows its tools (its names were checked at load).
pub fn rules_not_applied(task: &Task, outcome: &Outcome) -> Vec<RuleNotApplied> {
    if !task.tools.is_empty() || !task.agent_tools.is_empty() {
        return Vec::new();
    }
    task.rules
        .iter()
        .filter_map(|rule| {
            let tool = match rule {
                Rule::Before { tool, .. } => tool,
                Rule::AtMost { tool, max, .. } if *max > 0 => tool,
                // A `sequence` fails when its tools are missing; `never` and `at_most: 0` are
                // kept by not calling the tool at all.
                Rule::AtMost { .. } | Rule::Sequence { .. } | Rule::Never { .. } => return None,
            };
            (!outcome.used_tool(tool)).then(|| RuleNotApplied {
                rule: rule.describe(),
                tool: tool.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Suite;
    use serde_json::json;

    #[test]
    fn rules_whose_tool_was_never_called_are_named_in_tasks_without_tools() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.yaml");
        let rules = "  rules:\n    - {before: cancel_ordr, requires: find_user}\n    - {at_most: 1, tool: refund}\n    - {at_most: 0, tool: wipe}\n    - {sequence: [a, b]}\n";
        std::fs::write(
            &path,
            format!(
                "- id: open\n  input: x\n  expected: y\n{rules}- id: known\n  input: x\n  expected: y\n  agent_tools: [cancel_ordr, find_user, refund, wipe, a, b]\n{rules}"
            ),
        )
        .unwrap();
        let suite = Suite::load(&path).unwrap();
        let outcome = Outcome::from_json(
            json!({"status": "final", "trajectory": [{"tool": "refund", "args": {}}]})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            rules_not_applied(suite.get("open").unwrap(), &outcome),
            [RuleNotApplied {
                rule: "cancel_ordr only after find_user".to_owned(),
                tool: "cancel_ordr".to_owned()
            }]
        );
        assert!(rules_not_applied(suite.get("known").unwrap(), &outcome).is_empty());
    }
}
