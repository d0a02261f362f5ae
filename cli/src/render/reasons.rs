//! Scorecard columns and the top reason per agent and task, shared by the text and
//! markdown renderers.

use super::details::with_detail;
use super::numbers::rate;
use proctor_core::summary::{Scorecard, Scorecards, Summary, TaskSummary};

/// The most frequent reason of a task, with the first detail seen and its count.
pub fn top_reason(t: &TaskSummary) -> String {
    t.reasons.first().map_or_else(String::new, |r| {
        format!(
            "{} (x{})",
            with_detail(&r.reason, r.detail.as_deref()),
            r.count
        )
    })
}

/// The columns of the scorecard table: each agent, then each of its groups as
/// `agent [group]`.
pub fn card_columns(cards: &Scorecards) -> Vec<(String, &Summary)> {
    cards.agents.iter().flat_map(agent_columns).collect()
}

/// One agent's columns: its whole scorecard, then each group as `agent [group]`.
pub fn agent_columns(agent: &Scorecard) -> Vec<(String, &Summary)> {
    let mut columns = vec![(agent.label.clone(), &agent.summary)];
    for (group, summary) in &agent.groups {
        columns.push((format!("{} [{group}]", agent.label), summary));
    }
    columns
}

/// Per agent and task: attempts, pass rate and the top reason with its detail.
pub fn reason_rows(cards: &Scorecards) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        "task".to_owned(),
        "agent".to_owned(),
        "attempts".to_owned(),
        "pass rate".to_owned(),
        "top reason".to_owned(),
    ]];
    for agent in &cards.agents {
        for t in &agent.summary.per_task {
            rows.push(vec![
                t.task.clone(),
                agent.label.clone(),
                t.attempts.to_string(),
                format!(
                    "{} ({}/{})",
                    rate(t.pass_rate),
                    t.passed,
                    t.passed + t.failed
                ),
                top_reason(t),
            ]);
        }
    }
    rows
}
