//! A tool call's arguments twice over: parsed, for the schema check, `responses` matching and
//! the recorded call; and as the agent wrote them, for the `script` and `server` backends
//! (docs/tools.md). A parsed number is a 64-bit integer or a float, so an integer beyond 64
//! bits, or a decimal's trailing zero, would reach a backend changed; the text keeps them.

use serde_json::Value;
use serde_json::value::RawValue;

/// The arguments of one call.
#[derive(Debug, Clone)]
pub struct CallArgs {
    value: Value,
    /// The agent's JSON text without its whitespace, so that it fits on one line.
    text: Box<RawValue>,
}

impl CallArgs {
    /// Arguments parsed into `value`, from `raw` when the text the agent sent is at hand.
    pub fn new(value: Value, raw: Option<&RawValue>) -> CallArgs {
        let text = raw
            .and_then(|raw| RawValue::from_string(without_whitespace(raw.get())).ok())
            .unwrap_or_else(|| written(&value));
        CallArgs { value, text }
    }

    /// `{}`: the arguments of a call that sent none.
    pub fn empty() -> CallArgs {
        CallArgs::new(Value::Object(serde_json::Map::new()), None)
    }

    /// The parsed arguments.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The parsed arguments, taken.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// The arguments as the agent wrote them (whitespace left out), for a backend.
    pub fn text(&self) -> &RawValue {
        &self.text
    }
}

/// The text serde_json writes for `value`.
fn written(value: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("a JSON value is written")
}

/// JSON text without the whitespace between its tokens; strings are kept as they are.
fn without_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_keeps_every_digit_and_loses_only_whitespace() {
        let sent =
            "{ \"n\" : 123456789012345678901234567890,\n \"x\": 1.10, \"s\": \"a \\\" b \" }";
        let raw: Box<RawValue> = serde_json::from_str(sent).unwrap();
        let value: Value = serde_json::from_str(sent).unwrap();
        let args = CallArgs::new(value, Some(&raw));
        assert_eq!(
            args.text().get(),
            r#"{"n":123456789012345678901234567890,"x":1.10,"s":"a \" b "}"#
        );
        assert_eq!(args.value()["x"], 1.1);
    }

    #[test]
    fn without_the_text_the_value_is_written() {
        let args = CallArgs::new(serde_json::json!({"a": 1}), None);
        assert_eq!(args.text().get(), r#"{"a":1}"#);
        assert_eq!(CallArgs::empty().text().get(), "{}");
    }
}
