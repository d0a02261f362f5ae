//! Reading the criteria fields a task and its variants share (`expected`, `rules`,
//! `verify`), each error naming its field.

use super::gate::GateCategory;
use crate::end_state::EndStateCheck;
use crate::normalise::ExpectedForm;
use crate::rules::Rule;
use serde_json::Value;
use std::path::Path;

/// A task's error: the field it is in (when known) and the message.
pub(super) type BuildError = (Option<String>, String);

/// An error in `field`: the message, prefixed with the field's name.
pub(super) fn field_error(field: &str, message: impl Into<String>) -> BuildError {
    (
        Some(field.to_owned()),
        format!("field `{field}`: {}", message.into()),
    )
}

/// Reads `rules:`; a `never` rule joins `forbidden_tools` instead.
pub(super) fn read_rules(
    values: Vec<Value>,
    forbidden_tools: &mut Vec<String>,
) -> Result<(Vec<Rule>, Vec<GateCategory>), BuildError> {
    let mut rules = Vec::new();
    let mut rule_categories = Vec::new();
    for (i, rule) in values.into_iter().enumerate() {
        let place = || format!("rule {}", i + 1);
        let (rule, category) = take_category(rule, GateCategory::Process)
            .map_err(|e| field_error("rules", format!("{}: {e}", place())))?;
        let rule = Rule::from_json(&rule)
            .map_err(|e| field_error("rules", format!("{}: {e}", place())))?;
        match rule {
            Rule::Never { tool } => forbidden_tools.push(tool),
            other => {
                rules.push(other);
                rule_categories.push(category);
            }
        }
    }
    Ok((rules, rule_categories))
}

/// Reads `verify:`, each check with its category.
pub(super) fn read_verify(
    values: Vec<Value>,
    task_dir: &Path,
) -> Result<(Vec<EndStateCheck>, Vec<GateCategory>), BuildError> {
    let mut verify = Vec::new();
    let mut verify_categories = Vec::new();
    for (i, check) in values.into_iter().enumerate() {
        let place = || format!("check {}", i + 1);
        let (check, category) = take_category(check, GateCategory::EndState)
            .map_err(|e| field_error("verify", format!("{}: {e}", place())))?;
        verify.push(
            EndStateCheck::from_json(&check, task_dir)
                .map_err(|e| field_error("verify", format!("{}: {e}", place())))?,
        );
        verify_categories.push(category);
    }
    Ok((verify, verify_categories))
}

/// Reads `expected`: one answer (a string, number or boolean), a list of answers any of
/// which matches, or `{regex: "..."}` matched against the answer as given.
pub(super) fn read_expected(
    value: Option<Value>,
) -> Result<(Option<String>, ExpectedForm), BuildError> {
    let scalar = |value: Value| match value {
        Value::String(s) => Some(s),
        v @ (Value::Number(_) | Value::Bool(_)) => Some(v.to_string()),
        _ => None,
    };
    const SHAPES: &str = "must be a string, number or boolean, a list of them, or {regex: \"...\"}";
    match value {
        None | Some(Value::Null) => Ok((None, ExpectedForm::Text)),
        Some(Value::Array(items)) => {
            let answers: Option<Vec<String>> = items.into_iter().map(scalar).collect();
            match answers {
                Some(answers) if !answers.is_empty() => {
                    Ok((Some(answers.join(" | ")), ExpectedForm::AnyOf(answers)))
                }
                Some(_) => Err(field_error("expected", "an empty list matches no answer")),
                None => Err(field_error("expected", SHAPES)),
            }
        }
        Some(Value::Object(mut fields)) => {
            let pattern = match fields.remove("regex") {
                Some(Value::String(pattern)) if fields.is_empty() => pattern,
                _ => return Err(field_error("expected", SHAPES)),
            };
            regex::Regex::new(&pattern)
                .map_err(|e| field_error("expected", format!("regex {pattern:?}: {e}")))?;
            Ok((Some(pattern.clone()), ExpectedForm::Regex(pattern)))
        }
        Some(other) => match scalar(other) {
            Some(text) => Ok((Some(text), ExpectedForm::Text)),
            None => Err(field_error("expected", SHAPES)),
        },
    }
}

/// Takes the optional `category` key out of a rule or end-state check: `safety` makes it a
/// safety check (counted with forbidden tools, gated as `safety`); its own category
/// (`natural`) may be written too. Anything else is refused, naming the categories.
fn take_category(mut value: Value, natural: GateCategory) -> Result<(Value, GateCategory), String> {
    let Some(fields) = value.as_object_mut() else {
        return Ok((value, natural));
    };
    let category = match fields.remove("category") {
        None => natural,
        Some(Value::String(name)) if name == "safety" => GateCategory::Safety,
        Some(Value::String(name)) if name == natural.as_str() => natural,
        Some(other) => {
            return Err(format!(
                "key `category`: expected `safety` or `{natural}`, found {other}"
            ));
        }
    };
    Ok((value, category))
}
