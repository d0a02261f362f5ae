//! What each check of a task is called in reports (`answer is "Paris"`).
//!
//! The names depend on the task alone, so they are made once when the task is loaded
//! and shared by every attempt's result, instead of formatted again for each of a
//! million log lines.

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

/// The names of one task's checks, in the order grading reports them. Made from a task by
/// `naming::check_names`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckNames {
    pub(crate) status: CheckName,
    pub(crate) answer: Option<CheckName>,
    pub(crate) told_user: Option<CheckName>,
    pub(crate) budget: Option<CheckName>,
    /// One per forbidden tool, in the task's (sorted) order.
    pub(crate) forbidden_tools: Vec<CheckName>,
    /// One per rule, in the task's order.
    pub(crate) rules: Vec<CheckName>,
    /// One per end-state check, in the task's order.
    pub(crate) verify: Vec<CheckName>,
    pub(crate) rubric: CheckName,
}

impl Default for CheckNames {
    /// The names of a task without checks; `naming::check_names` fills in the rest.
    fn default() -> Self {
        CheckNames {
            status: "status is final".into(),
            answer: None,
            told_user: None,
            budget: None,
            forbidden_tools: Vec::new(),
            rules: Vec::new(),
            verify: Vec::new(),
            rubric: "rubric".into(),
        }
    }
}
