//! Rules that never applied (docs/metrics.md, "Rules that never applied"): in a task that
//! knows no tools, a rule whose tool no attempt called may name a tool that does not exist,
//! so every format says so beside the scorecard.

use proctor_core::summary::{Scorecards, Summary};

/// The heading of the block.
pub const HEADING: &str =
    "never applied (no attempt called the tool the rule is about; is its name right?)";

/// One line per task and rule of `summary`: "task `t`: `rule`: no attempt called TOOL".
pub fn lines(summary: &Summary) -> Vec<String> {
    summary
        .per_task
        .iter()
        .flat_map(|task| {
            task.never_applied.iter().map(move |rule| {
                format!(
                    "task `{}`: `{}`: no attempt called {}",
                    task.task, rule.rule, rule.tool
                )
            })
        })
        .collect()
}

/// [`lines`] of every agent, each after its label when there are several.
pub fn card_lines(cards: &Scorecards) -> Vec<String> {
    let several = cards.agents.len() > 1;
    cards
        .agents
        .iter()
        .flat_map(|agent| {
            lines(&agent.summary)
                .into_iter()
                .map(move |line| match several {
                    true => format!("{}: {line}", agent.label),
                    false => line,
                })
        })
        .collect()
}
