//! Each figure of a scorecard as the terminal table prints it, keyed by its dotted path in
//! `--format json` (`cost_per_success.tokens`), for the HTML page: the page shows these
//! strings and rounds nothing itself, so 3154.5 tokens reads `3154` there as in the table
//! (JavaScript's `toFixed` would give `3155`).

use super::numbers::{interval, one_decimal, rate, tokens, usd};
use proctor_core::summary::{Scorecards, Summary, TaskSummary};
use serde_json::{Map, Value};

/// The strings of one summary's figures.
pub fn summary_shown(s: &Summary) -> Map<String, Value> {
    let attack = s.attack.as_ref();
    let k =
        s.k.map_or_else(|| super::numbers::MISSING.to_owned(), |k| k.to_string());
    [
        ("k", k),
        ("pass_rate", rate(s.pass_rate)),
        ("pass_rate_ci", interval(s.pass_rate_ci)),
        ("pass_at_1", rate(s.pass_at_1)),
        ("first_attempt_pass_rate", rate(s.first_attempt_pass_rate)),
        ("pass_at_k", rate(s.pass_at_k)),
        ("pass_hat_k", rate(s.pass_hat_k)),
        ("always_pass", rate(s.always_pass)),
        ("total_cost.usd", usd(s.total_cost.usd)),
        ("cost_per_success.usd", usd(s.cost_per_success.usd)),
        (
            "cost_per_success.agent_usd",
            usd(s.cost_per_success.agent_usd),
        ),
        (
            "cost_per_success.judge_usd",
            usd(s.cost_per_success.judge_usd),
        ),
        ("cost_per_success.tokens", tokens(s.cost_per_success.tokens)),
        ("mean_steps_success", one_decimal(s.mean_steps_success)),
        ("step_efficiency", rate(s.step_efficiency)),
        ("tool_correctness", rate(s.tool_correctness)),
        ("aborted_share", rate(s.aborted_share)),
        ("safety_violation_rate", rate(s.safety_violation_rate)),
        (
            "safety_violation_rate_ci",
            interval(s.safety_violation_rate_ci),
        ),
        ("hit_at_k", rate(s.hit_at_k)),
        ("recovery_rate", rate(s.recovery_rate)),
        (
            "utility_under_attack",
            rate(attack.and_then(|a| a.utility_under_attack)),
        ),
        (
            "utility_under_attack_ci",
            interval(attack.and_then(|a| a.utility_under_attack_ci)),
        ),
    ]
    .into_iter()
    .map(|(key, text)| (key.to_owned(), Value::String(text)))
    .collect()
}

/// The strings of one task's figures, for the task × agent grid.
pub fn task_shown(t: &TaskSummary) -> Map<String, Value> {
    [
        ("pass_rate", rate(t.pass_rate)),
        ("pass_rate_ci", interval(t.pass_rate_ci)),
        ("pass_hat_k", rate(t.pass_hat_k)),
    ]
    .into_iter()
    .map(|(key, text)| (key.to_owned(), Value::String(text)))
    .collect()
}

/// Every scorecard's strings, shaped as `--format json`'s objects: each agent's under
/// `agents.<label>.shown`, each group's under `agents.<label>.by_<split>.<group>.shown`,
/// the pooled attacks' under `agents.<label>.all_attacks.shown`, and the headline's (one
/// agent, or `--pool`) under `shown` at the top. `value` is that JSON.
pub fn add_shown(value: &mut Value, cards: &Scorecards) {
    let Value::Object(top) = value else { return };
    if let Some(headline) = cards.headline() {
        top.insert("shown".into(), Value::Object(summary_shown(headline)));
    }
    let Some(Value::Object(agents)) = top.get_mut("agents") else {
        return;
    };
    for card in &cards.agents {
        let Some(Value::Object(agent)) = agents.get_mut(&card.label) else {
            continue;
        };
        agent.insert("shown".into(), Value::Object(summary_shown(&card.summary)));
        if let Some(split) = cards.split
            && let Some(Value::Object(groups)) = agent.get_mut(&format!("by_{}", split.as_str()))
        {
            for (name, summary) in &card.groups {
                if let Some(Value::Object(group)) = groups.get_mut(name) {
                    group.insert("shown".into(), Value::Object(summary_shown(summary)));
                }
            }
        }
        if let (Some(attacks), Some(Value::Object(pooled))) =
            (&card.attacks, agent.get_mut("all_attacks"))
        {
            pooled.insert("shown".into(), Value::Object(summary_shown(attacks)));
        }
    }
}
