//! What each check of a task is called in reports (`answer is "Paris"`).
//!
//! The names depend on the task alone, so they are made once when the task is loaded
//! and shared by every attempt's result, instead of formatted again for each of a
//! million log lines.

use crate::normalise::ExpectedForm;
use crate::task::Task;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A check's name: text shared between results, serialised as a plain string.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CheckName(Arc<NameText>);

/// A name and the JSON string that writes it: every result line writes each of its
/// task's check names, and an answer check's name has quotes to escape.
#[derive(PartialEq, Eq, Hash, PartialOrd, Ord)]
struct NameText {
    text: Box<str>,
    json: Box<[u8]>,
}

impl CheckName {
    fn new(text: &str) -> Self {
        let mut json = Vec::with_capacity(text.len() + 2);
        crate::result::json_text::string(&mut json, text);
        CheckName(Arc::new(NameText {
            text: text.into(),
            json: json.into(),
        }))
    }

    /// The name as a JSON string, quoted and escaped.
    pub(crate) fn json(&self) -> &[u8] {
        &self.0.json
    }
}

impl Deref for CheckName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0.text
    }
}

impl fmt::Debug for CheckName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CheckName").field(&&*self.0.text).finish()
    }
}

impl fmt::Display for CheckName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl From<&str> for CheckName {
    fn from(text: &str) -> Self {
        CheckName::new(text)
    }
}

impl From<String> for CheckName {
    fn from(text: String) -> Self {
        CheckName::new(&text)
    }
}

impl PartialEq<str> for CheckName {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for CheckName {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

impl Serialize for CheckName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for CheckName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(CheckName::from)
    }
}

/// The names of one task's checks, in the order [`super::evaluate`] reports them.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckNames {
    pub(super) status: CheckName,
    pub(super) answer: Option<CheckName>,
    pub(super) budget: Option<CheckName>,
    /// One per forbidden tool, in the task's (sorted) order.
    pub(super) forbidden_tools: Vec<CheckName>,
    /// One per rule, in the task's order.
    pub(super) rules: Vec<CheckName>,
    /// One per end-state check, in the task's order.
    pub(super) verify: Vec<CheckName>,
    pub(super) rubric: CheckName,
}

impl CheckNames {
    /// The names of `task`'s checks.
    pub fn of(task: &Task) -> Self {
        CheckNames {
            status: "status is final".into(),
            answer: task
                .expected
                .as_ref()
                .map(|expected| match &task.expected_form {
                    ExpectedForm::Text => format!("answer is {expected:?}").into(),
                    form => format!("answer is {}", form.describe(expected)).into(),
                }),
            budget: task
                .max_tool_calls
                .map(|budget| format!("at most {budget} tool calls").into()),
            forbidden_tools: task
                .forbidden_tools
                .iter()
                .map(|tool| format!("never calls {tool}").into())
                .collect(),
            rules: task
                .rules
                .iter()
                .map(|rule| rule.describe().into())
                .collect(),
            verify: task
                .verify
                .iter()
                .map(|check| check.describe().into())
                .collect(),
            rubric: "rubric".into(),
        }
    }
}

impl CheckNames {
    /// Whether these are names for `task`'s checks: one for each, so a task built
    /// without them (or changed after loading) gets fresh names rather than wrong ones.
    pub(super) fn fit(&self, task: &Task) -> bool {
        self.answer.is_some() == task.expected.is_some()
            && self.budget.is_some() == task.max_tool_calls.is_some()
            && self.forbidden_tools.len() == task.forbidden_tools.len()
            && self.rules.len() == task.rules.len()
            && self.verify.len() == task.verify.len()
    }
}

impl Default for CheckNames {
    /// The names of a task without checks; [`CheckNames::of`] fills in the rest.
    fn default() -> Self {
        CheckNames {
            status: "status is final".into(),
            answer: None,
            budget: None,
            forbidden_tools: Vec::new(),
            rules: Vec::new(),
            verify: Vec::new(),
            rubric: "rubric".into(),
        }
    }
}
