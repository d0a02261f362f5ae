//! `--format json`: the whole comparison, every number, snake_case names; plus the notes the
//! text formats print and, under `formatted`, each number as those formats print it, so that
//! the HTML page shows proctor's own strings and never rounds a float its own way
//! (0.03125 is "0.0312" here, and would be "0.0313" through JavaScript's `toFixed`).

use super::{formatted_attacks, notes, signed};
use crate::render::numbers::{interval, rate, usd};
use proctor_core::compare::Comparison;
use serde_json::{Map, Value, json};

pub fn render(c: &Comparison) -> String {
    let mut text = serde_json::to_string_pretty(&value(c)).expect("JSON values serialise");
    text.push('\n');
    text
}

/// The comparison as `--format json` prints it (and the HTML page embeds it).
pub fn value(c: &Comparison) -> Value {
    let mut value = serde_json::to_value(c).expect("a comparison always serialises");
    let Value::Object(fields) = &mut value else {
        unreachable!("a comparison serialises as an object")
    };
    fields.insert("notes".to_owned(), json!(notes(c)));
    fields.insert("formatted".to_owned(), Value::Object(formatted(c)));
    if let Some(Value::Array(rows)) = fields.get_mut("per_task") {
        for (row, task) in rows.iter_mut().zip(&c.per_task) {
            if let Value::Object(row) = row {
                row.insert(
                    "formatted".to_owned(),
                    json!({
                        "delta": signed(Some(task.delta)),
                        "fisher_p": rate(Some(task.fisher_p)),
                    }),
                );
            }
        }
    }
    value
}

/// Each number the text formats print, by its dotted path in the JSON; `null` where the
/// value does not exist (each renderer shows its own dash).
fn formatted(c: &Comparison) -> Map<String, Value> {
    let some = |text: String, exists: bool| {
        if exists {
            Value::String(text)
        } else {
            Value::Null
        }
    };
    let d = &c.delta;
    [
        ("old.pass_at_1", some(rate(Some(c.old.pass_at_1)), true)),
        ("new.pass_at_1", some(rate(Some(c.new.pass_at_1)), true)),
        ("old.pass_rate", some(rate(Some(c.old.pass_rate)), true)),
        ("new.pass_rate", some(rate(Some(c.new.pass_rate)), true)),
        ("delta.estimate", some(signed(Some(d.estimate)), true)),
        ("delta.ci", some(interval(d.ci), d.ci.is_some())),
        ("delta.se", some(rate(d.se), d.se.is_some())),
        (
            "pass_hat_k_delta.estimate",
            some(signed(Some(c.pass_hat_k_delta.estimate)), true),
        ),
        (
            "pass_hat_k_delta.ci",
            some(
                interval(c.pass_hat_k_delta.ci),
                c.pass_hat_k_delta.ci.is_some(),
            ),
        ),
        (
            "sign_flip_p",
            some(rate(c.sign_flip_p), c.sign_flip_p.is_some()),
        ),
        (
            "mcnemar.p",
            some(rate(c.mcnemar.map(|m| m.p)), c.mcnemar.is_some()),
        ),
        ("mde", some(rate(c.mde), c.mde.is_some())),
        (
            "old.cost_per_success.usd",
            some(
                usd(c.old.cost_per_success.usd),
                c.old.cost_per_success.usd.is_some(),
            ),
        ),
        (
            "new.cost_per_success.usd",
            some(
                usd(c.new.cost_per_success.usd),
                c.new.cost_per_success.usd.is_some(),
            ),
        ),
    ]
    .into_iter()
    .map(|(key, text)| (key.to_owned(), text))
    .chain(
        formatted_attacks(c)
            .into_iter()
            .map(|(key, text)| (key, text.map_or(Value::Null, Value::String))),
    )
    .collect()
}
