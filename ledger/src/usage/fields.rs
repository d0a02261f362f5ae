//! Reading token counts and names out of a JSON object, with errors that name the field.
//!
//! A count is a JSON integer ≥ 0, a JSON number with a zero fraction (`812.0`, as some
//! Python code writes) up to 2⁵³, or a string of ASCII digits (`"812"`, as OpenTelemetry's
//! JSON encoding writes 64-bit integers). An absent field or `null` counts 0. Anything else
//! (negative, fractional, `"12 tokens"`, `true`, a list) is refused, naming the field.

use compact_str::CompactString;
use proctor_core::compact_json;
use serde_json::{Map, Value};

use super::UsageError;

/// The largest integer an `f64` holds exactly (2⁵³).
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

/// Longest string quoted in full in an error message.
const MAX_QUOTED_CHARS: usize = 40;

/// A JSON object being read, with the path that leads to it (for error messages).
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    object: Object<'a>,
    prefix: String,
}

/// The object itself: parsed, or the members of its compact text.
#[derive(Debug, Clone)]
enum Object<'a> {
    Parsed(&'a Map<String, Value>),
    /// Keys and values as written in compact JSON text without escapes
    /// ([`Fields::from_text`]), so each key is the key itself.
    Text(Vec<(&'a str, &'a str)>),
}

/// The value of a member that is present and not `null`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Member<'a> {
    Parsed(&'a Value),
    /// Compact JSON text without escapes.
    Text(&'a str),
}

impl<'a> Fields<'a> {
    /// Reads `map`; `path` is where it sits in the usage object ("" at the top).
    pub(crate) fn new(map: &'a Map<String, Value>, path: &str) -> Self {
        Fields {
            object: Object::Parsed(map),
            prefix: prefix(path),
        }
    }

    /// Reads the object in `text`, compact JSON as a [`CompactJson`] holds it, or `None`
    /// when it is not an object.
    ///
    /// The caller makes sure the text has no backslash: then no key or string is escaped,
    /// and each key and string is read as it is written.
    ///
    /// [`CompactJson`]: proctor_core::compact_json::CompactJson
    pub(crate) fn from_text(text: &'a str, path: &str) -> Option<Self> {
        debug_assert!(!text.contains('\\'), "escaped text: {text}");
        let members = compact_json::members(text)?;
        // Usage objects have a handful of keys.
        let mut read = Vec::with_capacity(8);
        read.extend(members);
        Some(Fields {
            object: Object::Text(read),
            prefix: prefix(path),
        })
    }

    /// The path of `key` for messages, e.g. `usage.input_tokens`.
    pub(crate) fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// The keys of the object, in order.
    pub(crate) fn keys(&self) -> Vec<&'a str> {
        match &self.object {
            Object::Parsed(map) => map.keys().map(String::as_str).collect(),
            Object::Text(members) => members.iter().map(|(key, _)| *key).collect(),
        }
    }

    /// Whether any key satisfies `test`.
    pub(crate) fn any_key(&self, test: impl Fn(&str) -> bool) -> bool {
        match &self.object {
            Object::Parsed(map) => map.keys().any(|key| test(key)),
            Object::Text(members) => members.iter().any(|(key, _)| test(key)),
        }
    }

    /// The value of `key` unless absent or `null`.
    pub(crate) fn get(&self, key: &str) -> Option<Member<'a>> {
        match &self.object {
            Object::Parsed(map) => map.get(key).filter(|v| !v.is_null()).map(Member::Parsed),
            Object::Text(members) => members
                .iter()
                .find(|(name, _)| *name == key)
                .filter(|(_, value)| *value != "null")
                .map(|(_, value)| Member::Text(value)),
        }
    }

    /// Whether `key` is present and not `null`.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The first of `keys` that is present; [`Fields::name`] gives its path when a
    /// message needs it (only then, as most objects read without error).
    pub(crate) fn first_present<'k>(&self, keys: &[&'k str]) -> Option<&'k str> {
        keys.iter().find(|k| self.has(k)).copied()
    }

    /// The count in `key`; 0 when absent or `null`.
    pub(crate) fn count(&self, key: &str) -> Result<u64, UsageError> {
        Ok(self.optional_count(key)?.unwrap_or(0))
    }

    /// The count in `key`, or `None` when absent or `null`.
    pub(crate) fn optional_count(&self, key: &str) -> Result<Option<u64>, UsageError> {
        // The path is built only for the error message.
        self.get(key)
            .map(|v| v.count().ok_or_else(|| bad_count(v, &self.name(key))))
            .transpose()
    }

    /// The count in the first of `keys` present (aliases such as `promptTokenCount` and
    /// `prompt_token_count`), with that key's path; `None` when none is present.
    pub(crate) fn count_of_any(&self, keys: &[&str]) -> Result<Option<(String, u64)>, UsageError> {
        for key in keys {
            if let Some(v) = self.get(key) {
                let name = self.name(key);
                let n = v.count().ok_or_else(|| bad_count(v, &name))?;
                return Ok(Some((name, n)));
            }
        }
        Ok(None)
    }

    /// The object in `key`, or `None` when absent or `null`; any other value is an error.
    pub(crate) fn child(&self, key: &str) -> Result<Option<Fields<'a>>, UsageError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let child = match value {
            Member::Parsed(Value::Object(map)) => Some(Fields::new(map, &self.name(key))),
            Member::Text(text) => Fields::from_text(text, &self.name(key)),
            Member::Parsed(_) => None,
        };
        child.map(Some).ok_or_else(|| UsageError::WrongType {
            field: self.name(key),
            expected: "an object",
            found: value.describe(),
        })
    }

    /// The trimmed string in `key`, or `None` when absent, `null` or blank.
    pub(crate) fn text(&self, key: &str) -> Result<Option<CompactString>, UsageError> {
        let text = match self.get(key) {
            None => return Ok(None),
            Some(Member::Parsed(Value::String(s))) => s.as_str(),
            // No escapes: the string is what is written between the quotes.
            Some(Member::Text(t)) if t.starts_with('"') => &t[1..t.len() - 1],
            Some(other) => {
                return Err(UsageError::WrongType {
                    field: self.name(key),
                    expected: "a string",
                    found: other.describe(),
                });
            }
        };
        let text = text.trim();
        Ok((!text.is_empty()).then(|| text.into()))
    }
}

impl Member<'_> {
    /// The token count this is, or `None` when it is not one.
    fn count(self) -> Option<u64> {
        match self {
            Member::Parsed(value) => count_value(value),
            // Compact text writes an integer as its digits and a string between quotes;
            // anything else (a sign, a fraction, an exponent) is read as `Value` reads it.
            Member::Text(text) => {
                let digits = text
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .unwrap_or(text);
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    digits.parse::<u64>().ok()
                } else if text.starts_with('"') {
                    None
                } else {
                    count_value(&self.to_value())
                }
            }
        }
    }

    /// The value, parsed when it is text.
    fn to_value(self) -> Value {
        match self {
            Member::Parsed(value) => value.clone(),
            Member::Text(text) => serde_json::from_str(text).expect("compact JSON text"),
        }
    }

    /// A short description for error messages, as [`describe`] gives.
    fn describe(self) -> String {
        match self {
            Member::Parsed(value) => describe(value),
            Member::Text(_) => describe(&self.to_value()),
        }
    }
}

/// `path.`, what the names of an object's keys start with ("" at the top).
fn prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}.")
    }
}

/// One token count, or `None` when `value` is not a count.
fn count_value(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                return Some(u);
            }
            match n.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= MAX_EXACT_FLOAT => Some(f as u64),
                _ => None,
            }
        }
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse::<u64>().ok()
        }
        _ => None,
    }
}

fn bad_count(value: Member<'_>, field: &str) -> UsageError {
    UsageError::BadCount {
        field: field.to_owned(),
        found: value.describe(),
    }
}

/// A short description of a JSON value for error messages: scalars as JSON, long strings
/// cut, containers by kind.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        Value::String(s) if s.chars().count() > MAX_QUOTED_CHARS => {
            let cut: String = s.chars().take(MAX_QUOTED_CHARS).collect();
            format!("{}…", Value::String(cut))
        }
        scalar => scalar.to_string(),
    }
}

/// `whole` minus the `parts` it includes, refusing parts that add up to more than it.
///
/// `parts` are `(path, tokens)`; only non-zero parts are named in the error.
pub(crate) fn without_parts(whole: (&str, u64), parts: &[(&str, u64)]) -> Result<u64, UsageError> {
    let (whole_name, whole_tokens) = whole;
    let part_tokens = parts
        .iter()
        .fold(0u64, |sum, (_, n)| sum.saturating_add(*n));
    whole_tokens.checked_sub(part_tokens).ok_or_else(|| {
        let named: Vec<String> = parts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        let part = match named.len() {
            1 => format!("field {}", named[0]),
            _ => format!("fields {}", named.join(" + ")),
        };
        UsageError::PartExceedsWhole {
            part,
            part_tokens,
            whole: whole_name.to_owned(),
            whole_tokens,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn count(v: Value) -> Result<u64, UsageError> {
        let member = Member::Parsed(&v);
        member
            .count()
            .ok_or_else(|| bad_count(member, "output_tokens"))
    }

    #[test]
    fn accepts_integers_integral_floats_and_digit_strings() {
        assert_eq!(count(json!(0)), Ok(0));
        assert_eq!(count(json!(812)), Ok(812));
        assert_eq!(count(json!(u64::MAX)), Ok(u64::MAX));
        assert_eq!(count(json!(812.0)), Ok(812));
        assert_eq!(count(json!("812")), Ok(812));
        assert_eq!(count(json!("18446744073709551615")), Ok(u64::MAX));
    }

    #[test]
    fn refuses_negative_fractional_and_non_numeric_counts_naming_the_field() {
        let cases = [
            (json!(-3), "-3"),
            (json!(12.5), "12.5"),
            (json!(-0.5), "-0.5"),
            (json!(1e300), "1e+300"),
            (json!("-3"), "\"-3\""),
            (json!(" 812"), "\" 812\""),
            (json!("12 tokens"), "\"12 tokens\""),
            (json!(""), "\"\""),
            (json!("18446744073709551616"), "\"18446744073709551616\""),
            (json!(true), "true"),
            (json!([1]), "a list"),
            (json!({"n": 1}), "an object"),
        ];
        for (value, found) in cases {
            let err = count(value.clone()).expect_err(&value.to_string());
            assert_eq!(
                err.to_string(),
                format!(
                    "usage field `output_tokens`: expected a non-negative integer, found {found}"
                ),
            );
        }
    }

    #[test]
    fn the_design_message_for_minus_three() {
        assert_eq!(
            count(json!(-3)).unwrap_err().to_string(),
            "usage field `output_tokens`: expected a non-negative integer, found -3"
        );
    }

    #[test]
    fn absent_and_null_count_zero_and_paths_are_prefixed() {
        let v = json!({"a": null, "details": {"cached_tokens": -1}});
        let f = Fields::new(v.as_object().unwrap(), "usage");
        assert_eq!(f.count("a"), Ok(0));
        assert_eq!(f.count("missing"), Ok(0));
        assert_eq!(f.optional_count("a"), Ok(None));
        let details = f.child("details").unwrap().unwrap();
        assert_eq!(
            details.count("cached_tokens").unwrap_err(),
            UsageError::BadCount {
                field: "usage.details.cached_tokens".into(),
                found: "-1".into()
            }
        );
    }

    #[test]
    fn child_and_text_check_their_types() {
        let v = json!({"details": 5, "model": 3, "blank": "  ", "name": " gpt-4o "});
        let f = Fields::new(v.as_object().unwrap(), "");
        assert_eq!(
            f.child("details").unwrap_err().to_string(),
            "usage field `details`: expected an object, found 5"
        );
        assert_eq!(
            f.text("model").unwrap_err().to_string(),
            "usage field `model`: expected a string, found 3"
        );
        assert_eq!(f.text("blank"), Ok(None));
        assert_eq!(f.text("name"), Ok(Some("gpt-4o".into())));
    }

    #[test]
    fn long_strings_are_cut_in_messages() {
        let long = "x".repeat(100);
        let d = describe(&Value::String(long));
        assert_eq!(d.chars().count(), MAX_QUOTED_CHARS + 3);
        assert!(d.ends_with("\"…"));
    }

    #[test]
    fn without_parts_subtracts_or_names_the_parts() {
        assert_eq!(without_parts(("p", 100), &[("c", 30), ("w", 0)]), Ok(70));
        assert_eq!(without_parts(("p", 100), &[("c", 100)]), Ok(0));
        assert_eq!(
            without_parts(("p", 100), &[("c", 101), ("w", 0)])
                .unwrap_err()
                .to_string(),
            "usage field `c`: 101 tokens, more than the 100 in `p`, which should include them"
        );
        assert_eq!(
            without_parts(("p", 100), &[("c", 60), ("w", 50)])
                .unwrap_err()
                .to_string(),
            "usage fields `c` + `w`: 110 tokens, more than the 100 in `p`, which should include them"
        );
    }
}
