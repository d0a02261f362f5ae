//! `--format json`: one object whose field names are the metric names of docs/metrics.md.
//!
//! `{"agents": {"<label>": {<suite fields>}}, "grid": ..., "per_task": ...}`: with one agent
//! (or `--pool`) the suite fields also stand at the top level as they always did; with
//! several agents they are absent there, and `per_task` holds each agent's tasks.

use proctor_core::summary::{Scorecards, Summary};
use serde_json::{Map, Value};

pub fn render(summary: &Summary) -> String {
    pretty(&serde_json::to_value(summary).expect("a summary always serialises"))
}

pub fn render_cards(cards: &Scorecards) -> String {
    pretty(&cards_value(cards))
}

/// The JSON value of every scorecard.
pub fn cards_value(cards: &Scorecards) -> Value {
    let mut top = match cards.headline() {
        Some(headline) => object(headline),
        None => Map::new(),
    };
    let several = cards.agents.len() > 1;
    let mut agents = Map::new();
    for agent in &cards.agents {
        let mut fields = suite_fields(&agent.summary);
        if several {
            fields.insert("per_task".into(), json(&agent.summary.per_task));
        }
        if let Some(split) = cards.split {
            let groups: Map<String, Value> = agent
                .groups
                .iter()
                .map(|(name, summary)| (name.clone(), Value::Object(suite_fields(summary))))
                .collect();
            fields.insert(format!("by_{}", split.as_str()), Value::Object(groups));
        }
        if let Some(attacks) = &agent.attacks {
            fields.insert("all_attacks".into(), Value::Object(suite_fields(attacks)));
        }
        agents.insert(agent.label.clone(), Value::Object(fields));
    }
    if several {
        let labels = cards.labels();
        top.insert("labels".into(), json(&labels));
        top.insert("grid".into(), json(&cards.grid()));
        let per_task: Map<String, Value> = cards
            .agents
            .iter()
            .map(|a| (a.label.clone(), json(&a.summary.per_task)))
            .collect();
        top.insert("per_task".into(), Value::Object(per_task));
    }
    top.insert("agents".into(), Value::Object(agents));
    Value::Object(top)
}

/// A summary's suite fields: everything but the per-task list, the grid and the labels.
fn suite_fields(summary: &Summary) -> Map<String, Value> {
    let mut fields = object(summary);
    for key in ["per_task", "grid", "labels"] {
        fields.remove(key);
    }
    fields
}

fn object(summary: &Summary) -> Map<String, Value> {
    match json(summary) {
        Value::Object(fields) => fields,
        _ => unreachable!("a summary is an object"),
    }
}

fn json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("summaries always serialise")
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON values serialise");
    text.push('\n');
    text
}
