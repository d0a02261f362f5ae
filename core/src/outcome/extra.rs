//! The value of an extra key as a reader gives it back: where it is in the line when the
//! scanner read the line, the value when the reference reader did.

use serde_json::Value;
use std::ops::Range;

/// The value of an extra key as [`OutcomeReader::read_str_into`](super::OutcomeReader::read_str_into)
/// read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// Where the value's JSON text is in the line (checked, but not built into a value:
    /// a task id is looked up straight from the line).
    Text(Range<usize>),
    /// The value, from a line the scanner left to the reference reader.
    Value(Value),
}

impl Extra {
    /// The value; `line` is the text it was read from. `None` only if checked text does
    /// not parse, which it always does.
    #[must_use]
    pub fn to_value(&self, line: &str) -> Option<Value> {
        match self {
            Extra::Text(at) => value_of(line.get(at.clone())?),
            Extra::Value(value) => Some(value.clone()),
        }
    }

    /// The text of a string value that holds no escape, borrowed from `line`: what most
    /// task ids are. `None` for anything else, a parsed value included.
    #[must_use]
    pub fn plain_str<'l>(&self, line: &'l str) -> Option<&'l str> {
        match self {
            Extra::Text(at) => {
                let text = line.get(at.clone())?;
                let inner = text.strip_prefix('"')?.strip_suffix('"')?;
                // Byte by byte, inlined: a task id is a few bytes, and a search for the
                // backslash would call `memchr` for each.
                (!inner.bytes().any(|byte| byte == b'\\')).then_some(inner)
            }
            Extra::Value(_) => None,
        }
    }
}

/// The value a span of checked JSON text holds: strings without escapes, integers and
/// literals built directly, anything else parsed.
pub(super) fn value_of(span: &str) -> Option<Value> {
    let bytes = span.as_bytes();
    match bytes.first()? {
        b'"' if !span.contains('\\') => Some(Value::String(span[1..span.len() - 1].to_owned())),
        b'n' => Some(Value::Null),
        b't' => Some(Value::Bool(true)),
        b'f' => Some(Value::Bool(false)),
        // `-0` is a float to serde_json: parsed below.
        b'-' if bytes.get(1) != Some(&b'0') && bytes[1..].iter().all(u8::is_ascii_digit) => {
            span.parse::<i64>().ok().map(Value::from)
        }
        b'0'..=b'9' if bytes.iter().all(u8::is_ascii_digit) => {
            span.parse::<u64>().ok().map(Value::from)
        }
        _ => serde_json::from_str(span).ok(),
    }
}
