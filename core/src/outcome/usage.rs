//! Reading an outcome's `usage` field (a usage object or a list of them) into the compact
//! text of each object.
//!
//! The ledger reads a few keys of each usage object once and the result line writes the
//! object back out, so it is kept as the text `serde_json` writes for it ([`CompactJson`])
//! rather than built into a map: a map costs an allocation per key and per string, and a
//! hashed key per member, for every line of a log.

use crate::compact_json::CompactJson;
use serde::de::DeserializeSeed;
use serde::{Deserialize, Deserializer};

/// A `usage` field as read.
#[derive(Debug)]
pub(super) enum RawUsage {
    /// Its usage objects: one for an object, the items of a list, none for `null`.
    Objects(Vec<CompactJson>),
    /// It was neither; the kind of JSON value it was, for the message.
    Other(&'static str),
}

/// Reads a `usage` field into a [`RawUsage`].
#[derive(Debug, Clone, Copy)]
pub(super) struct UsageSeed;

impl<'de> DeserializeSeed<'de> for UsageSeed {
    type Value = RawUsage;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawUsage, D::Error> {
        Ok(RawUsage::of(CompactJson::deserialize(deserializer)?))
    }
}

impl RawUsage {
    /// The usage objects a `usage` field's compact text holds.
    pub(super) fn of(usage: CompactJson) -> RawUsage {
        match usage.as_str().as_bytes().first() {
            Some(b'{') => RawUsage::Objects(vec![usage]),
            Some(b'[') => RawUsage::Objects(usage.items().unwrap_or_default()),
            Some(b'n') => RawUsage::Objects(Vec::new()),
            Some(b'"') => RawUsage::Other("a string"),
            Some(b't' | b'f') => RawUsage::Other("a boolean"),
            _ => RawUsage::Other("a number"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::kind_of;
    use serde_json::Value;

    /// The texts as `Value` reads the field and `serde_json` writes its objects back.
    fn through_value(text: &str) -> Result<Vec<String>, &'static str> {
        match serde_json::from_str::<Value>(text).unwrap() {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => Ok(items.iter().map(Value::to_string).collect()),
            object @ Value::Object(_) => Ok(vec![object.to_string()]),
            other => Err(kind_of(&other)),
        }
    }

    fn texts(usage: RawUsage) -> Result<Vec<String>, &'static str> {
        match usage {
            RawUsage::Objects(items) => Ok(items.iter().map(|c| c.as_str().to_owned()).collect()),
            RawUsage::Other(kind) => Err(kind),
        }
    }

    #[test]
    fn reads_objects_lists_and_null_as_value_would_write_them() {
        for text in [
            r#"{"provider": "anthropic", "model": "m", "input_tokens": 8713, "output_tokens": 239}"#,
            r#"{"a": 1, "b": [1.5, -2, null, true, "x\n"], "a": {"c": {}}, "d": []}"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}"#,
            r#"[{"input_tokens": 3}, {"\u0061": 1.0}, 7, "x"]"#,
            "[]",
            "null",
            "18446744073709551616",
            "-0",
            "true",
            r#""\u00e9""#,
        ] {
            let ours = UsageSeed
                .deserialize(&mut serde_json::Deserializer::from_str(text))
                .unwrap();
            assert_eq!(texts(ours), through_value(text), "{text}");
        }
    }

    #[test]
    fn a_bad_number_is_placed_in_the_line_not_in_the_usage_object() {
        let line = r#"{"status": "final", "usage": {"input_tokens": 1e400}}"#;
        let error = crate::outcome::OutcomeSeed::<&str>::new(&[])
            .read_str(line)
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("number out of range at line 1 column ")
        );
        assert!(error.column() > line.find("1e400").unwrap(), "{error}");
    }

    #[test]
    fn reads_a_parsed_value_as_it_reads_text() {
        let text = r#"[{"usage": {"input_tokens": 3}, "list": [1, "a"]}, null]"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let ours = UsageSeed.deserialize(&value).unwrap();
        assert_eq!(texts(ours), through_value(text));
    }
}
