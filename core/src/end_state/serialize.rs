//! Serialising a check back to its task-file shape, e.g. `{"file_contains": PATH, "text": T}`.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::EndStateCheck;

/// The task-file shape: the kind key holding the path (or the command line), then the
/// check's own keys. A check read with `from` or `schema_file` echoes that key, not the
/// content it read; a `command` always echoes `exit_code` and `timeout_s`.
impl Serialize for EndStateCheck {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            EndStateCheck::FileExists { path } | EndStateCheck::FileAbsent { path } => {
                map.serialize_entry(self.kind(), path)?;
            }
            EndStateCheck::FileContains { path, text } => {
                map.serialize_entry(self.kind(), path)?;
                map.serialize_entry("text", text)?;
            }
            EndStateCheck::FileMatches { path, regex } => {
                map.serialize_entry(self.kind(), path)?;
                map.serialize_entry("regex", regex)?;
            }
            EndStateCheck::FileEquals { path, text, from } => {
                map.serialize_entry(self.kind(), path)?;
                match from {
                    Some(from) => map.serialize_entry("from", from)?,
                    None => map.serialize_entry("text", text)?,
                }
            }
            EndStateCheck::JsonEquals {
                path,
                pointer,
                value,
            } => {
                map.serialize_entry(self.kind(), path)?;
                map.serialize_entry("pointer", pointer)?;
                map.serialize_entry("value", value)?;
            }
            EndStateCheck::JsonQuery {
                path,
                query,
                select,
                op,
                value,
            } => {
                map.serialize_entry(self.kind(), path)?;
                map.serialize_entry("query", query)?;
                if let Some(select) = select.name() {
                    map.serialize_entry("select", select)?;
                }
                map.serialize_entry("op", op.name())?;
                map.serialize_entry("value", value)?;
            }
            EndStateCheck::JsonSchema {
                path,
                schema,
                schema_file,
            } => {
                map.serialize_entry(self.kind(), path)?;
                match schema_file {
                    Some(file) => map.serialize_entry("schema_file", file)?,
                    None => map.serialize_entry("schema", schema)?,
                }
            }
            EndStateCheck::Command {
                run,
                exit_code,
                timeout_s,
                ..
            } => {
                map.serialize_entry(self.kind(), run)?;
                map.serialize_entry("exit_code", exit_code)?;
                map.serialize_entry("timeout_s", timeout_s)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::path::Path;

    fn round_trip(value: Value) {
        let check = EndStateCheck::from_json(&value, Path::new(".")).unwrap();
        let echoed = serde_json::to_value(&check).unwrap();
        assert_eq!(echoed, value);
        assert_eq!(
            EndStateCheck::from_json(&echoed, Path::new(".")).unwrap(),
            check
        );
    }

    #[test]
    fn echoes_the_task_file_shape() {
        round_trip(json!({"file_exists": "a.txt"}));
        round_trip(json!({"file_absent": "a.txt"}));
        round_trip(json!({"file_contains": "log", "text": "ok"}));
        round_trip(json!({"file_matches": "log", "regex": "o+k"}));
        round_trip(json!({"file_equals": "out", "text": "x"}));
        round_trip(json!({"json_equals": "c.json", "pointer": "/a", "value": [1, {"b": null}]}));
        round_trip(json!({"json_schema": "c.json", "schema": {"type": "object"}}));
        round_trip(
            json!({"json_query": "db.json", "query": "$.a[*]", "select": "sum", "op": ">", "value": 3}),
        );
        round_trip(json!({"json_query": "db.json", "query": "$.a", "op": "==", "value": "x"}));
        round_trip(json!({"command": "make check", "exit_code": 2, "timeout_s": 1.5}));
    }

    #[test]
    fn fills_in_defaults_and_canonical_keys() {
        let check = EndStateCheck::from_json(&json!({"run": "true"}), Path::new(".")).unwrap();
        assert_eq!(
            serde_json::to_string(&check).unwrap(),
            r#"{"command":"true","exit_code":0,"timeout_s":30.0}"#
        );
        let check = EndStateCheck::from_json(
            &json!({"json_equals": "a.json", "value": 1}),
            Path::new("."),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&check).unwrap(),
            r#"{"json_equals":"a.json","pointer":"","value":1}"#
        );
    }

    #[test]
    fn echoes_from_and_schema_file_not_their_content() {
        let check = EndStateCheck::FileEquals {
            path: "out.txt".into(),
            text: "read from the file".into(),
            from: Some("expected/out.txt".into()),
        };
        assert_eq!(
            serde_json::to_value(&check).unwrap(),
            json!({"file_equals": "out.txt", "from": "expected/out.txt"})
        );
        let check = EndStateCheck::JsonSchema {
            path: "a.json".into(),
            schema: json!({"type": "object"}),
            schema_file: Some("schemas/a.json".into()),
        };
        assert_eq!(
            serde_json::to_value(&check).unwrap(),
            json!({"json_schema": "a.json", "schema_file": "schemas/a.json"})
        );
    }
}
