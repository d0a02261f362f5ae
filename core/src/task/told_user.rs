//! `told_user`: texts the agent must have said to the user, in any of its messages to the
//! user (its `ask_user` messages and its final answer), as benchmarks of customer service
//! grade what the agent told the customer (docs/task-file.md, "What the agent told the user").
//!
//! ```yaml
//! told_user: ["W1002", "cancelled"]                    # case ignored
//! told_user: {all: ["840887978435"], drop: ","}       # thousands separators dropped too
//! ```

use crate::outcome::Outcome;
use crate::tools::ASK_USER;
use serde::Serialize;
use serde_json::Value;

/// The texts and how messages are compared with them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToldUser {
    /// Each must appear, normalised, in at least one message, normalised.
    pub all: Vec<String>,
    /// Characters removed from both sides before comparing (`","` for thousands separators).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub drop: String,
    /// `case: exact`: letters compared as written; by default case is ignored.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact_case: bool,
    /// `all`, normalised once at load.
    #[serde(skip)]
    normalised: Vec<String>,
}

impl ToldUser {
    /// Reads `told_user:` as written: a list of texts, or `{all, drop?, case?}`.
    pub(super) fn read(value: Value) -> Result<ToldUser, String> {
        let (texts, drop, exact_case) = match value {
            Value::Array(texts) => (texts, String::new(), false),
            Value::Object(mut fields) => {
                if let Some(key) = fields
                    .keys()
                    .find(|k| !["all", "drop", "case"].contains(&k.as_str()))
                {
                    return Err(format!(
                        "unknown key `{key}`; `told_user` holds `all`, `drop` and `case`"
                    ));
                }
                let texts = match fields.remove("all") {
                    Some(Value::Array(texts)) => texts,
                    _ => return Err("`all` must be a list of texts".to_owned()),
                };
                let drop = match fields.remove("drop") {
                    None => String::new(),
                    Some(Value::String(drop)) => drop,
                    Some(other) => {
                        return Err(format!(
                            "`drop` must be text (the characters to drop), found {other}"
                        ));
                    }
                };
                let exact_case = match fields.remove("case") {
                    None => false,
                    Some(Value::String(case)) if case == "ignore" => false,
                    Some(Value::String(case)) if case == "exact" => true,
                    Some(other) => {
                        return Err(format!(
                            "`case` is `ignore` (the default) or `exact`, found {other}"
                        ));
                    }
                };
                (texts, drop, exact_case)
            }
            other => {
                return Err(format!(
                    "must be a list of texts, or {{all: [...], drop: \",\", case: exact}}; found {other}"
                ));
            }
        };
        if texts.is_empty() {
            return Err(
                "an empty list checks nothing; name the texts the agent must say".to_owned(),
            );
        }
        let mut told = ToldUser {
            all: Vec::with_capacity(texts.len()),
            drop,
            exact_case,
            normalised: Vec::new(),
        };
        for (at, text) in texts.into_iter().enumerate() {
            let text = match text {
                Value::String(text) => text,
                number @ Value::Number(_) => number.to_string(),
                other => return Err(format!("item {}: must be text, found {other}", at + 1)),
            };
            let normalised = told.normalise(&text);
            if normalised.is_empty() {
                return Err(format!(
                    "item {} ({text:?}) is empty once normalised, so every message holds it",
                    at + 1
                ));
            }
            told.all.push(text);
            told.normalised.push(normalised);
        }
        Ok(told)
    }

    /// A text as it is compared: the `drop` characters removed, runs of whitespace one
    /// space, trimmed, and lowercased unless `case: exact`.
    pub fn normalise(&self, text: &str) -> String {
        let kept = text.chars().filter(|c| !self.drop.contains(*c));
        let mut out = String::with_capacity(text.len());
        let mut space = false;
        for c in kept {
            if c.is_whitespace() {
                space = !out.is_empty();
                continue;
            }
            if space {
                out.push(' ');
                space = false;
            }
            if self.exact_case {
                out.push(c);
            } else {
                out.extend(c.to_lowercase());
            }
        }
        out
    }

    /// The texts no message holds, as written; empty when every one was said.
    pub fn missing<'t>(&'t self, messages: &[impl AsRef<str>]) -> Vec<&'t str> {
        let messages: Vec<String> = messages
            .iter()
            .map(|m| self.normalise(m.as_ref()))
            .collect();
        self.all
            .iter()
            .zip(&self.normalised)
            .filter(|(_, wanted)| !messages.iter().any(|m| m.contains(wanted.as_str())))
            .map(|(text, _)| text.as_str())
            .collect()
    }
}

/// What the agent said to the user in `outcome`: the `message` of each `ask_user` call of
/// its graded trajectory, then its final answer.
pub fn messages_to_user(outcome: &Outcome) -> Vec<String> {
    outcome
        .trajectory
        .iter()
        .filter(|step| step.tool == ASK_USER)
        .filter_map(|step| serde_json::from_str::<String>(step.args.get("message")?).ok())
        .chain(outcome.answer.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn texts_are_found_in_any_message_with_case_and_dropped_characters_ignored() {
        let told = ToldUser::read(json!({"all": ["840887978435", "Refund"], "drop": ","})).unwrap();
        assert!(
            told.missing(&["Your refund is on its way.", "Total: 840,887,978,435"])
                .is_empty()
        );
        assert_eq!(
            told.missing(&["Total: 840 887 978 435"]),
            ["840887978435", "Refund"]
        );
        // Dropped on both sides: a comma in the wanted text is not wanted either.
        let told = ToldUser::read(json!({"all": ["1,093.34"], "drop": ","})).unwrap();
        assert!(told.missing(&["It comes to 1093.34 in all"]).is_empty());
        let exact = ToldUser::read(json!({"all": ["W1002"], "case": "exact"})).unwrap();
        assert_eq!(exact.missing(&["order w1002"]), ["W1002"]);
        let plain = ToldUser::read(json!(["cancelled  order", 42])).unwrap();
        assert!(plain.missing(&["Your CANCELLED\norder #42"]).is_empty());
        assert_eq!(plain.missing(&["840,887"]).len(), 2);
    }

    #[test]
    fn bad_forms_are_refused() {
        let cases = [
            (json!([]), "an empty list checks nothing"),
            (
                json!({"all": [","], "drop": ","}),
                "is empty once normalised",
            ),
            (json!({"all": ["a"], "dropp": ","}), "unknown key `dropp`"),
            (json!({"all": ["a"], "case": "upper"}), "`case` is `ignore`"),
            (json!("a"), "must be a list of texts"),
            (json!([{"a": 1}]), "item 1: must be text"),
        ];
        for (value, wanted) in cases {
            let error = ToldUser::read(value.clone()).unwrap_err();
            assert!(error.contains(wanted), "{value}: {error}");
        }
    }

    #[test]
    fn messages_are_the_ask_user_calls_then_the_answer() {
        let outcome = Outcome::from_json(
            json!({"status": "final", "answer": "Done.", "trajectory": [
                {"tool": "ask_user", "args": {"message": "Which order?"}},
                {"tool": "get_order", "args": {"message": "not to the user"}},
                {"tool": "ask_user", "args": {"message": "Confirm?"}}]})
            .as_object()
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            messages_to_user(&outcome),
            ["Which order?", "Confirm?", "Done."]
        );
    }
}
