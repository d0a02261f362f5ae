//! Trajectory rules (docs/task-file.md): checks on the order and number of tool calls.
//!
//! Rules grade the process, not the answer: outcome-only tests measure how often the
//! agent was lucky. A rule is written in a task file as one small object:
//!
//! ```yaml
//! rules:
//!   - {before: refund, requires: check_eligibility, same: [order_id]}
//!   - {before: cancel, requires: {any_of: [find_by_email, find_by_zip]}, ok: true}
//!   - {at_most: 1, tool: refund, per: args}
//!   - {never: delete_file}
//!   - {sequence: [search, read_file, write_file]}
//! ```
//!
//! Choices the docs leave open:
//! - Every call counts, whether or not it returned an error: the trajectory records what
//!   the agent did, and whether an error means "did not happen" depends on the tool. A
//!   `before` rule with `ok: true` says it does: only earlier calls that succeeded count
//!   (a step fails when its `error` is set, or its `result` is an object with `isError:
//!   true` or `is_error: true`, as MCP and tool-use APIs mark a tool error).
//! - `requires: {any_of: [A, B]}` is satisfied by an earlier call of any of them (each
//!   compared with `same` as a single required tool would be).
//! - Arguments are compared as JSON values with object key order ignored; `1` and `1.0`
//!   are different values (no number parsing, as in answer normalisation).
//! - With `same: [keys]`, a key must be present on both calls to match (an explicit
//!   `null` is present). A call of the guarded tool that lacks one of the keys can match
//!   no earlier call, so it is a violation: a rule that cannot be checked must not pass.
//! - Rule objects are strict like the rest of a task file: unknown keys, empty lists and
//!   `null` values are errors, so a typo never silently disables a rule.

mod check;
mod parse;
mod uncaptured;

use crate::compact_json::WrittenKey;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use parse::RuleError;

/// Which part of the arguments a `before` rule compares between the two calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Same {
    /// `same: args`: the whole argument value.
    Args,
    /// `same: [order_id, ...]`: only these keys of the argument objects.
    Keys(SameKeys),
}

/// The argument names a `same: [keys]` rule compares, each also written out as compact
/// text writes it, once at load: a log checks them in every call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SameKeys {
    names: Vec<String>,
    written: Vec<WrittenKey>,
}

impl SameKeys {
    /// Each name with its written form.
    pub fn written(&self) -> impl Iterator<Item = &WrittenKey> {
        self.written.iter()
    }
}

impl From<Vec<String>> for SameKeys {
    fn from(names: Vec<String>) -> Self {
        let written = names.iter().map(|name| WrittenKey::new(name)).collect();
        SameKeys { names, written }
    }
}

impl std::ops::Deref for SameKeys {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.names
    }
}

impl Same {
    /// How many texts a call's compared part is: one for the whole args, one per key.
    pub fn width(&self) -> usize {
        match self {
            Same::Args => 1,
            Same::Keys(keys) => keys.len(),
        }
    }
}

/// One trajectory rule, as parsed from a task file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// Every call of `tool` must come after a call of one of `requires` (with the same
    /// arguments when `same` is set, and without an error when `ok`).
    Before {
        /// The tool the rule constrains.
        tool: String,
        /// The tools any of which must be called first (`requires: T` is one,
        /// `requires: {any_of: [...]}` several); never empty.
        requires: Vec<String>,
        /// Which arguments the earlier call must share; `None` for any call.
        same: Option<Same>,
        /// `ok: true`: only earlier calls that succeeded count.
        ok: bool,
    },
    /// At most `max` calls of `tool`, per distinct argument value when `per_args`.
    AtMost {
        /// The most calls allowed.
        max: u64,
        /// The tool the rule constrains.
        tool: String,
        /// Count each distinct argument value apart.
        per_args: bool,
    },
    /// `tool` may not be called at all.
    Never {
        /// The tool the rule constrains.
        tool: String,
    },
    /// These tools appear in this order, as a subsequence of the trajectory.
    Sequence {
        /// The tools, in the required order.
        tools: Vec<String>,
    },
}

impl Rule {
    /// A short stable description used in reports, e.g.
    /// `refund only after check_eligibility (same args)`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Rule::Before {
                tool,
                requires,
                same,
                ok,
            } => {
                let successful = if *ok { "successful " } else { "" };
                let requires = alternatives(requires);
                match same {
                    None => format!("{tool} only after {successful}{requires}"),
                    Some(Same::Args) => {
                        format!("{tool} only after {successful}{requires} (same args)")
                    }
                    Some(Same::Keys(keys)) => format!(
                        "{tool} only after {successful}{requires} (same {})",
                        keys.join(", ")
                    ),
                }
            }
            Rule::AtMost {
                max,
                tool,
                per_args,
            } => {
                let per = if *per_args { " per args" } else { "" };
                format!("at most {max} {tool}{per}")
            }
            Rule::Never { tool } => format!("never {tool}"),
            Rule::Sequence { tools } => format!("sequence {}", tools.join(" -> ")),
        }
    }
}

/// Tool names as a reason reads them: `a`, `a or b`, `a, b or c`.
pub(crate) fn alternatives(tools: &[String]) -> String {
    match tools {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} or {last}", first.join(", ")),
    }
}

/// Serialises back to the task-file shape, so a result can echo the rules it was graded by.
impl Serialize for Same {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Same::Args => serializer.serialize_str("args"),
            Same::Keys(keys) => keys.serialize(serializer),
        }
    }
}

/// Serialises back to the task-file shape: `{"at_most": 1, "tool": "refund", "per": "args"}`.
impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Rule::Before {
                tool,
                requires,
                same,
                ok,
            } => {
                map.serialize_entry("before", tool)?;
                match requires.as_slice() {
                    [one] => map.serialize_entry("requires", one)?,
                    several => {
                        map.serialize_entry("requires", &serde_json::json!({"any_of": several}))?;
                    }
                }
                if let Some(same) = same {
                    map.serialize_entry("same", same)?;
                }
                if *ok {
                    map.serialize_entry("ok", &true)?;
                }
            }
            Rule::AtMost {
                max,
                tool,
                per_args,
            } => {
                map.serialize_entry("at_most", max)?;
                map.serialize_entry("tool", tool)?;
                if *per_args {
                    map.serialize_entry("per", "args")?;
                }
            }
            Rule::Never { tool } => map.serialize_entry("never", tool)?,
            Rule::Sequence { tools } => map.serialize_entry("sequence", tools)?,
        }
        map.end()
    }
}

/// Deserialises through [`Rule::from_json`], so serde-based task loading (JSON or YAML)
/// gets the same strict checks and messages.
impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Rule::from_json(&value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(value: Value) -> Rule {
        Rule::from_json(&value).unwrap()
    }

    #[test]
    fn describes_each_shape() {
        let cases = [
            (
                json!({"before": "refund", "requires": "check_eligibility", "same": "args"}),
                "refund only after check_eligibility (same args)",
            ),
            (
                json!({"before": "refund", "requires": "check", "same": ["order_id", "sku"]}),
                "refund only after check (same order_id, sku)",
            ),
            (
                json!({"before": "refund", "requires": "check"}),
                "refund only after check",
            ),
            (
                json!({"before": "cancel", "requires": {"any_of": ["by_email", "by_zip"]}, "ok": true}),
                "cancel only after successful by_email or by_zip",
            ),
            (
                json!({"before": "cancel", "requires": {"any_of": ["a", "b", "c"]}, "same": "args"}),
                "cancel only after a, b or c (same args)",
            ),
            (json!({"at_most": 2, "tool": "search"}), "at most 2 search"),
            (
                json!({"at_most": 1, "tool": "refund", "per": "args"}),
                "at most 1 refund per args",
            ),
            (json!({"never": "delete_file"}), "never delete_file"),
            (json!({"sequence": ["a", "b", "c"]}), "sequence a -> b -> c"),
        ];
        for (value, expected) in cases {
            assert_eq!(rule(value).describe(), expected);
        }
    }

    #[test]
    fn serialises_back_to_the_task_file_shape() {
        let shapes = [
            json!({"before": "refund", "requires": "check_eligibility", "same": "args"}),
            json!({"before": "refund", "requires": "check", "same": ["order_id"]}),
            json!({"before": "refund", "requires": "check"}),
            json!({"before": "cancel", "requires": {"any_of": ["a", "b"]}, "same": "args", "ok": true}),
            json!({"before": "refund", "requires": "check", "ok": true}),
            json!({"at_most": 1, "tool": "refund", "per": "args"}),
            json!({"at_most": 0, "tool": "refund"}),
            json!({"never": "delete_file"}),
            json!({"sequence": ["a", "b"]}),
        ];
        for shape in shapes {
            let echoed = serde_json::to_value(rule(shape.clone())).unwrap();
            assert_eq!(echoed, shape);
            // Key order matters to a reader of the echoed task: the shape key comes first.
            assert_eq!(echoed.to_string(), shape.to_string());
        }
    }

    #[test]
    fn deserialises_with_the_same_strictness() {
        let rules: Vec<Rule> =
            serde_json::from_str(r#"[{"never": "rm"}, {"sequence": ["a", "b"]}]"#).unwrap();
        assert_eq!(
            rules,
            vec![
                Rule::Never { tool: "rm".into() },
                Rule::Sequence {
                    tools: vec!["a".into(), "b".into()]
                }
            ]
        );
        let error = serde_json::from_str::<Rule>(r#"{"before": "refund", "requirez": "x"}"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("`requirez`"), "{error}");
    }

    #[test]
    fn deserialises_from_yaml() {
        let rules: Vec<Rule> = serde_saphyr::from_str(
            "- {before: refund, requires: check_eligibility, same: [order_id]}\n\
             - {at_most: 1, tool: refund, per: args}\n",
        )
        .unwrap();
        assert_eq!(
            rules,
            vec![
                Rule::Before {
                    tool: "refund".into(),
                    requires: vec!["check_eligibility".into()],
                    same: Some(Same::Keys(vec!["order_id".into()].into())),
                    ok: false,
                },
                Rule::AtMost {
                    max: 1,
                    tool: "refund".into(),
                    per_args: true
                },
            ]
        );
    }
}
