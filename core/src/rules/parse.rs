//! Reading a rule object from a task file.
//!
//! Strict on purpose: a misspelt key would otherwise turn a rule into a different rule
//! or into nothing, and a run would pass a check it never had.

use serde_json::{Map, Value};

use super::{Rule, Same};

/// The key that says which of the four shapes a rule object has.
const SHAPES: [&str; 4] = ["before", "at_most", "never", "sequence"];

/// Why a rule object could not be read; the message names the offending key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The rule is not a JSON object.
    #[error("a rule must be an object, found {found}")]
    NotAnObject {
        /// What was found instead.
        found: String,
    },
    /// No key says which shape the rule has.
    #[error(
        "a rule needs one of the keys `before`, `at_most`, `never` or `sequence`, found {keys}{}",
        did_you_mean(.suggestion)
    )]
    NoShape {
        /// The keys the object has.
        keys: String,
        /// The nearest known key, when one is close enough to be a typo.
        suggestion: Option<&'static str>,
    },
    /// Two shape keys in one object.
    #[error("a rule has both `{first}` and `{second}`; write one rule per object")]
    MixedShapes {
        /// The first shape key.
        first: &'static str,
        /// The second shape key.
        second: &'static str,
    },
    /// A key that this shape does not take.
    #[error(
        "unknown key `{key}` in `{shape}` rule (allowed: {}){}",
        .allowed.join(", "),
        did_you_mean(.suggestion)
    )]
    UnknownKey {
        /// The offending key.
        key: String,
        /// The rule's shape key.
        shape: &'static str,
        /// The keys this shape takes.
        allowed: &'static [&'static str],
        /// The nearest known key, when one is close enough to be a typo.
        suggestion: Option<&'static str>,
    },
    /// A key this shape requires is absent.
    #[error("missing key `{key}` in `{shape}` rule")]
    MissingKey {
        /// The offending key.
        key: &'static str,
        /// The rule's shape key.
        shape: &'static str,
    },
    /// A key holds a value of the wrong type.
    #[error("key `{key}`: expected {expected}, found {found}")]
    Invalid {
        /// The offending key.
        key: String,
        /// What the key must hold.
        expected: &'static str,
        /// What was found instead.
        found: String,
    },
}

fn did_you_mean(suggestion: &Option<&'static str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean `{s}`?"))
}

impl Rule {
    /// Parses one rule object as written in a task file (YAML arrives here as JSON too).
    ///
    /// # Errors
    ///
    /// A [`RuleError`] naming the offending key when the object has an unknown key, a
    /// missing or mistyped value, or not exactly one of the four rule shapes.
    pub fn from_json(value: &Value) -> Result<Rule, RuleError> {
        let Value::Object(map) = value else {
            return Err(RuleError::NotAnObject {
                found: describe(value),
            });
        };
        let shape = shape_of(map)?;
        let allowed: &'static [&'static str] = match shape {
            "before" => &["before", "requires", "same", "ok"],
            "at_most" => &["at_most", "tool", "per"],
            "never" => &["never"],
            _ => &["sequence"],
        };
        if let Some(key) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
            return Err(RuleError::UnknownKey {
                key: key.clone(),
                shape,
                allowed,
                suggestion: crate::closest::closest(key, allowed.iter().copied()),
            });
        }
        let required = |key: &'static str| map.get(key).ok_or(RuleError::MissingKey { key, shape });
        match shape {
            "before" => Ok(Rule::Before {
                tool: tool_name("before", required("before")?)?,
                requires: requires(required("requires")?)?,
                same: map.get("same").map(same).transpose()?,
                ok: map.get("ok").map(ok).transpose()?.unwrap_or(false),
            }),
            "at_most" => Ok(Rule::AtMost {
                max: count(required("at_most")?)?,
                tool: tool_name("tool", required("tool")?)?,
                per_args: map.get("per").map(per).transpose()?.is_some(),
            }),
            "never" => Ok(Rule::Never {
                tool: tool_name("never", required("never")?)?,
            }),
            _ => Ok(Rule::Sequence {
                tools: names(
                    "sequence",
                    required("sequence")?,
                    "a non-empty list of tool names",
                    "a tool name",
                )?,
            }),
        }
    }
}

/// Finds the one shape key in a rule object.
fn shape_of(map: &Map<String, Value>) -> Result<&'static str, RuleError> {
    let mut present = SHAPES.into_iter().filter(|shape| map.contains_key(*shape));
    match (present.next(), present.next()) {
        (Some(shape), None) => Ok(shape),
        (Some(first), Some(second)) => Err(RuleError::MixedShapes { first, second }),
        (None, _) => Err(RuleError::NoShape {
            keys: if map.is_empty() {
                "an empty object".to_owned()
            } else {
                let keys: Vec<String> = map.keys().map(|key| format!("`{key}`")).collect();
                keys.join(", ")
            },
            suggestion: map
                .keys()
                .find_map(|key| crate::closest::closest(key, SHAPES)),
        }),
    }
}

fn tool_name(key: &str, value: &Value) -> Result<String, RuleError> {
    match value {
        Value::String(name) if !name.trim().is_empty() => Ok(name.clone()),
        other => Err(invalid(key, "a tool name", other)),
    }
}

/// `at_most` counts calls, so only whole numbers of zero or more make sense.
fn count(value: &Value) -> Result<u64, RuleError> {
    value
        .as_u64()
        .ok_or_else(|| invalid("at_most", "a whole number of calls (0 or more)", value))
}

/// What `requires` takes: one tool name, or `{any_of: [names]}`.
const REQUIRES: &str = "a tool name or {any_of: [tool names]}";

/// `requires: T` or `requires: {any_of: [A, B]}`: the tools any of which must come first.
fn requires(value: &Value) -> Result<Vec<String>, RuleError> {
    match value {
        Value::String(_) => Ok(vec![tool_name("requires", value)?]),
        Value::Object(map) => match (map.get("any_of"), map.len()) {
            (Some(any_of), 1) => names(
                "requires.any_of",
                any_of,
                "a non-empty list of tool names",
                "a tool name",
            ),
            _ => Err(invalid("requires", REQUIRES, value)),
        },
        other => Err(invalid("requires", REQUIRES, other)),
    }
}

/// `ok: true` counts only earlier calls that succeeded; `ok: false` is the default.
fn ok(value: &Value) -> Result<bool, RuleError> {
    value
        .as_bool()
        .ok_or_else(|| invalid("ok", "true or false", value))
}

fn same(value: &Value) -> Result<Same, RuleError> {
    match value {
        Value::String(word) if word == "args" => Ok(Same::Args),
        Value::Array(_) => Ok(Same::Keys(
            names(
                "same",
                value,
                "`args` or a non-empty list of argument names",
                "an argument name",
            )?
            .into(),
        )),
        other => Err(invalid(
            "same",
            "`args` or a non-empty list of argument names",
            other,
        )),
    }
}

/// `per` has one meaning today; any other value is refused rather than ignored.
fn per(value: &Value) -> Result<(), RuleError> {
    match value {
        Value::String(word) if word == "args" => Ok(()),
        other => Err(invalid("per", "`args`", other)),
    }
}

/// A non-empty list of non-blank strings; a bad item is named by its index.
fn names(
    key: &str,
    value: &Value,
    expected: &'static str,
    item: &'static str,
) -> Result<Vec<String>, RuleError> {
    let Value::Array(items) = value else {
        return Err(invalid(key, expected, value));
    };
    if items.is_empty() {
        return Err(invalid(key, expected, value));
    }
    items
        .iter()
        .enumerate()
        .map(|(index, entry)| match entry {
            Value::String(name) if !name.trim().is_empty() => Ok(name.clone()),
            other => Err(invalid(&format!("{key}[{index}]"), item, other)),
        })
        .collect()
}

fn invalid(key: &str, expected: &'static str, found: &Value) -> RuleError {
    RuleError::Invalid {
        key: key.to_owned(),
        expected,
        found: describe(found),
    }
}

/// Names what was found, quoting strings so that a near miss (`"arg"`) is visible.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) if items.is_empty() => "an empty list".to_owned(),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(value: Value) -> String {
        Rule::from_json(&value).unwrap_err().to_string()
    }

    #[test]
    fn parses_each_shape() {
        assert_eq!(
            Rule::from_json(&json!({"before": "refund", "requires": "check", "same": "args"})),
            Ok(Rule::Before {
                tool: "refund".into(),
                requires: vec!["check".into()],
                same: Some(Same::Args),
                ok: false,
            })
        );
        assert_eq!(
            Rule::from_json(
                &json!({"before": "refund", "requires": "check", "same": ["order_id", "sku"]})
            ),
            Ok(Rule::Before {
                tool: "refund".into(),
                requires: vec!["check".into()],
                same: Some(Same::Keys(vec!["order_id".into(), "sku".into()].into())),
                ok: false,
            })
        );
        assert_eq!(
            Rule::from_json(&json!({"requires": "check", "before": "refund"})),
            Ok(Rule::Before {
                tool: "refund".into(),
                requires: vec!["check".into()],
                same: None,
                ok: false,
            })
        );
        assert_eq!(
            Rule::from_json(&json!({
                "before": "cancel",
                "requires": {"any_of": ["by_email", "by_zip"]},
                "same": ["user_id"],
                "ok": true
            })),
            Ok(Rule::Before {
                tool: "cancel".into(),
                requires: vec!["by_email".into(), "by_zip".into()],
                same: Some(Same::Keys(vec!["user_id".into()].into())),
                ok: true,
            })
        );
        assert_eq!(
            Rule::from_json(&json!({"at_most": 3, "tool": "search"})),
            Ok(Rule::AtMost {
                max: 3,
                tool: "search".into(),
                per_args: false
            })
        );
        assert_eq!(
            Rule::from_json(&json!({"tool": "refund", "at_most": 0, "per": "args"})),
            Ok(Rule::AtMost {
                max: 0,
                tool: "refund".into(),
                per_args: true
            })
        );
        assert_eq!(
            Rule::from_json(&json!({"never": "rm"})),
            Ok(Rule::Never { tool: "rm".into() })
        );
        assert_eq!(
            Rule::from_json(&json!({"sequence": ["a", "b", "a"]})),
            Ok(Rule::Sequence {
                tools: vec!["a".into(), "b".into(), "a".into()]
            })
        );
    }

    #[test]
    fn unknown_key_is_named_with_a_suggestion() {
        assert_eq!(
            error(json!({"before": "refund", "requirez": "x"})),
            "unknown key `requirez` in `before` rule (allowed: before, requires, same, ok); \
             did you mean `requires`?"
        );
        assert_eq!(
            error(json!({"at_most": 1, "tool": "refund", "per_args": true})),
            "unknown key `per_args` in `at_most` rule (allowed: at_most, tool, per)"
        );
        assert_eq!(
            error(json!({"never": "rm", "tool": "rm"})),
            "unknown key `tool` in `never` rule (allowed: never)"
        );
        assert_eq!(
            error(json!({"sequence": ["a"], "same": "args"})),
            "unknown key `same` in `sequence` rule (allowed: sequence)"
        );
    }

    #[test]
    fn unknown_key_wins_over_missing_key() {
        // The typo is the cause; "missing `requires`" alone would hide it.
        let Err(RuleError::UnknownKey { key, .. }) =
            Rule::from_json(&json!({"before": "refund", "requirez": "x"}))
        else {
            panic!("expected an unknown-key error");
        };
        assert_eq!(key, "requirez");
    }

    #[test]
    fn no_shape_names_the_keys() {
        assert_eq!(
            error(json!({"atmost": 1, "tool": "refund"})),
            "a rule needs one of the keys `before`, `at_most`, `never` or `sequence`, \
             found `atmost`, `tool`; did you mean `at_most`?"
        );
        assert_eq!(
            error(json!({"requirez": "x"})),
            "a rule needs one of the keys `before`, `at_most`, `never` or `sequence`, \
             found `requirez`"
        );
        assert_eq!(
            error(json!({})),
            "a rule needs one of the keys `before`, `at_most`, `never` or `sequence`, \
             found an empty object"
        );
    }

    #[test]
    fn two_shapes_in_one_object_are_refused() {
        assert_eq!(
            error(json!({"never": "rm", "sequence": ["a"]})),
            "a rule has both `never` and `sequence`; write one rule per object"
        );
    }

    #[test]
    fn missing_keys_are_named() {
        assert_eq!(
            error(json!({"before": "refund"})),
            "missing key `requires` in `before` rule"
        );
        assert_eq!(
            error(json!({"at_most": 1})),
            "missing key `tool` in `at_most` rule"
        );
    }

    #[test]
    fn wrong_types_are_named() {
        assert_eq!(
            error(json!(["never", "rm"])),
            "a rule must be an object, found a list"
        );
        assert_eq!(
            error(json!({"never": 5})),
            "key `never`: expected a tool name, found the number 5"
        );
        assert_eq!(
            error(json!({"never": " "})),
            "key `never`: expected a tool name, found \" \""
        );
        assert_eq!(
            error(json!({"before": "refund", "requires": ["a", "b"]})),
            "key `requires`: expected a tool name or {any_of: [tool names]}, found a list"
        );
        assert_eq!(
            error(json!({"before": "refund", "requires": {"one_of": ["a", "b"]}})),
            "key `requires`: expected a tool name or {any_of: [tool names]}, found an object"
        );
        assert_eq!(
            error(json!({"before": "refund", "requires": {"any_of": []}})),
            "key `requires.any_of`: expected a non-empty list of tool names, found an empty list"
        );
        assert_eq!(
            error(json!({"before": "refund", "requires": {"any_of": ["a", 3]}})),
            "key `requires.any_of[1]`: expected a tool name, found the number 3"
        );
        assert_eq!(
            error(json!({"before": "refund", "requires": "check", "ok": "yes"})),
            "key `ok`: expected true or false, found \"yes\""
        );
        assert_eq!(
            error(json!({"at_most": 1, "tool": null})),
            "key `tool`: expected a tool name, found null"
        );
    }

    #[test]
    fn at_most_takes_whole_numbers_of_zero_or_more() {
        for bad in [json!(-1), json!(1.5), json!(1.0), json!("1"), json!(null)] {
            let message = error(json!({"at_most": bad, "tool": "refund"}));
            assert!(
                message.starts_with("key `at_most`: expected a whole number of calls (0 or more)"),
                "{message}"
            );
        }
        assert_eq!(
            error(json!({"at_most": -1, "tool": "refund"})),
            "key `at_most`: expected a whole number of calls (0 or more), found the number -1"
        );
    }

    #[test]
    fn same_is_args_or_a_list_of_names() {
        let base = |same: Value| json!({"before": "refund", "requires": "check", "same": same});
        assert_eq!(
            error(base(json!("arg"))),
            "key `same`: expected `args` or a non-empty list of argument names, found \"arg\""
        );
        assert_eq!(
            error(base(json!(true))),
            "key `same`: expected `args` or a non-empty list of argument names, found the boolean true"
        );
        assert_eq!(
            error(base(json!([]))),
            "key `same`: expected `args` or a non-empty list of argument names, found an empty list"
        );
        assert_eq!(
            error(base(json!(["order_id", 7]))),
            "key `same[1]`: expected an argument name, found the number 7"
        );
        assert_eq!(
            error(base(json!(null))),
            "key `same`: expected `args` or a non-empty list of argument names, found null"
        );
    }

    #[test]
    fn per_must_be_args() {
        assert_eq!(
            error(json!({"at_most": 1, "tool": "refund", "per": "order_id"})),
            "key `per`: expected `args`, found \"order_id\""
        );
        assert_eq!(
            error(json!({"at_most": 1, "tool": "refund", "per": true})),
            "key `per`: expected `args`, found the boolean true"
        );
    }

    #[test]
    fn sequence_is_a_non_empty_list_of_tool_names() {
        assert_eq!(
            error(json!({"sequence": "a"})),
            "key `sequence`: expected a non-empty list of tool names, found \"a\""
        );
        assert_eq!(
            error(json!({"sequence": []})),
            "key `sequence`: expected a non-empty list of tool names, found an empty list"
        );
        assert_eq!(
            error(json!({"sequence": ["a", {"tool": "b"}]})),
            "key `sequence[1]`: expected a tool name, found an object"
        );
    }
}
