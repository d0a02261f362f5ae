//! The JSON checks: `json_equals` (a value at a JSON pointer) and `json_schema`.

use std::path::Path;

use serde_json::Value;

use super::files::read_bytes;
use super::text::truncate;

/// Longest JSON value or schema message shown in a failure text (characters, before `…`).
const VALUE_CHARS: usize = 120;

/// Parses the file at `path` as JSON, or a failure text
/// (`{path}: invalid JSON at line L column C`).
pub(crate) fn read_json(dir: &Path, path: &str) -> Result<Value, String> {
    let bytes = read_bytes(dir, path)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{path}: invalid JSON at line {} column {}",
            e.line(),
            e.column()
        )
    })
}

/// Compact JSON for a failure text, cut to [`VALUE_CHARS`].
pub(crate) fn shown(value: &Value) -> String {
    truncate(&value.to_string(), VALUE_CHARS)
}

/// `{path}{pointer}: expected V, found F` unless the value at `pointer` equals `expected`
/// (`found nothing` when the pointer does not resolve).
pub(crate) fn equals(
    dir: &Path,
    path: &str,
    pointer: &str,
    expected: &Value,
) -> Result<(), String> {
    let doc = read_json(dir, path)?;
    let found = doc.pointer(pointer);
    if found.is_some_and(|found| same_json(found, expected)) {
        return Ok(());
    }
    let found = found.map_or_else(|| "nothing".to_owned(), shown);
    Err(format!(
        "{path}{pointer}: expected {}, found {found}",
        shown(expected)
    ))
}

/// JSON equality where numbers compare by value (`7 == 7.0`) and object keys in any order.
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else if x.is_f64() || y.is_f64() {
                x.as_f64() == y.as_f64()
            } else {
                false
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// Compiles a JSON schema: `format` is asserted, remote `$ref`s are not fetched.
pub(crate) fn compile_schema(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// `{path}: does not match schema: {message} at {instance path}` unless the document is
/// valid; the root of the document shows as `(root)`.
pub(crate) fn matches_schema(dir: &Path, path: &str, schema: &Value) -> Result<(), String> {
    let validator =
        compile_schema(schema).map_err(|e| format!("{path}: invalid JSON schema: {e}"))?;
    let doc = read_json(dir, path)?;
    match validator.iter_errors(&doc).next() {
        None => Ok(()),
        Some(error) => {
            let at = error.instance_path();
            let at = if at.is_empty() { "(root)" } else { at.as_str() };
            Err(format!(
                "{path}: does not match schema: {} at {at}",
                truncate(&error.to_string(), VALUE_CHARS)
            ))
        }
    }
}

/// Checks a JSON pointer's syntax: empty, or `/`-separated tokens where `~` is only
/// followed by `0` or `1`.
pub(crate) fn check_pointer(pointer: &str) -> Result<(), &'static str> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err("must be empty or start with `/`");
    }
    let mut chars = pointer.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return Err("`~` must be followed by `0` or `1`");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sandbox(name: &str, content: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), content).unwrap();
        dir
    }

    const CATALOG: &str = r#"{"items": [{"sku": "A", "stock": 7}, {"sku": "B", "stock": 0.5}]}"#;

    #[test]
    fn equals_passes() {
        let dir = sandbox("catalog.json", CATALOG);
        assert_eq!(
            equals(dir.path(), "catalog.json", "/items/0/stock", &json!(7)),
            Ok(())
        );
        assert_eq!(
            equals(dir.path(), "catalog.json", "/items/0/stock", &json!(7.0)),
            Ok(())
        );
        assert_eq!(
            equals(
                dir.path(),
                "catalog.json",
                "/items/1",
                &json!({"stock": 0.5, "sku": "B"})
            ),
            Ok(())
        );
        assert_eq!(
            equals(
                dir.path(),
                "catalog.json",
                "",
                &serde_json::from_str(CATALOG).unwrap()
            ),
            Ok(())
        );
    }

    #[test]
    fn equals_fails_with_expected_and_found() {
        let dir = sandbox("catalog.json", CATALOG);
        assert_eq!(
            equals(dir.path(), "catalog.json", "/items/0/stock", &json!(8)),
            Err("catalog.json/items/0/stock: expected 8, found 7".to_owned())
        );
        assert_eq!(
            equals(dir.path(), "catalog.json", "/items/0/sku", &json!("B")),
            Err("catalog.json/items/0/sku: expected \"B\", found \"A\"".to_owned())
        );
        assert_eq!(
            equals(dir.path(), "catalog.json", "/items/5/stock", &json!(7)),
            Err("catalog.json/items/5/stock: expected 7, found nothing".to_owned())
        );
        assert_eq!(
            equals(dir.path(), "catalog.json", "", &json!([])),
            Err(format!("catalog.json: expected [], found {}", {
                let v: Value = serde_json::from_str(CATALOG).unwrap();
                v.to_string()
            }))
        );
    }

    #[test]
    fn equals_reports_missing_and_invalid_json() {
        let dir = sandbox("bad.json", "{\n  \"a\": 1,\n  oops\n}");
        assert_eq!(
            equals(dir.path(), "bad.json", "/a", &json!(1)),
            Err("bad.json: invalid JSON at line 3 column 3".to_owned())
        );
        assert_eq!(
            equals(dir.path(), "none.json", "/a", &json!(1)),
            Err("none.json: missing".to_owned())
        );
    }

    #[test]
    fn long_values_are_cut() {
        let dir = sandbox("a.json", &format!("{{\"s\": \"{}\"}}", "x".repeat(300)));
        let err = equals(dir.path(), "a.json", "/s", &json!("y")).unwrap_err();
        assert_eq!(
            err,
            format!("a.json/s: expected \"y\", found \"{}…", "x".repeat(119))
        );
    }

    #[test]
    fn same_json_compares_numbers_by_value() {
        assert!(same_json(&json!(1), &json!(1.0)));
        assert!(same_json(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!same_json(&json!(-1), &json!(u64::MAX)));
        assert!(!same_json(&json!(1), &json!("1")));
        assert!(!same_json(&json!([1, 2]), &json!([2, 1])));
        assert!(!same_json(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(same_json(
            &json!({"a": 1, "b": [2.0]}),
            &json!({"b": [2], "a": 1})
        ));
    }

    #[test]
    fn schema_passes_and_fails() {
        let dir = sandbox("order.json", r#"{"id": "O1", "total": "12"}"#);
        let schema = json!({
            "type": "object",
            "required": ["id", "total"],
            "properties": {"id": {"type": "string"}, "total": {"type": "number"}}
        });
        assert_eq!(
            matches_schema(dir.path(), "order.json", &json!({"type": "object"})),
            Ok(())
        );
        assert_eq!(
            matches_schema(dir.path(), "order.json", &schema),
            Err(
                "order.json: does not match schema: \"12\" is not of type \"number\" at /total"
                    .to_owned()
            )
        );
        assert_eq!(
            matches_schema(dir.path(), "order.json", &json!({"type": "array"})),
            Err(format!(
                "order.json: does not match schema: {} is not of type \"array\" at (root)",
                r#"{"id":"O1","total":"12"}"#
            ))
        );
    }

    #[test]
    fn schema_asserts_formats() {
        let dir = sandbox("d.json", r#"{"when": "yesterday"}"#);
        let schema = json!({"properties": {"when": {"type": "string", "format": "date"}}});
        assert_eq!(
            matches_schema(dir.path(), "d.json", &schema),
            Err(
                "d.json: does not match schema: \"yesterday\" is not a \"date\" at /when"
                    .to_owned()
            )
        );
    }

    #[test]
    fn schema_reports_missing_and_invalid_json() {
        let dir = sandbox("bad.json", "[1,");
        assert_eq!(
            matches_schema(dir.path(), "bad.json", &json!({})),
            Err("bad.json: invalid JSON at line 1 column 3".to_owned())
        );
        assert_eq!(
            matches_schema(dir.path(), "none.json", &json!({})),
            Err("none.json: missing".to_owned())
        );
    }

    #[test]
    fn bad_schemas_do_not_compile() {
        assert!(compile_schema(&json!({"type": 5})).is_err());
        assert!(compile_schema(&json!({"minimum": "zero"})).is_err());
        assert!(compile_schema(&json!({"$ref": "https://example.invalid/s.json"})).is_err());
        assert!(compile_schema(&json!({"type": "object"})).is_ok());
    }

    #[test]
    fn pointer_syntax() {
        assert_eq!(check_pointer(""), Ok(()));
        assert_eq!(check_pointer("/a/0/b~0c~1d"), Ok(()));
        assert_eq!(check_pointer("/"), Ok(()));
        assert!(check_pointer("items/0").is_err());
        assert!(check_pointer("/a~2").is_err());
        assert!(check_pointer("/a~").is_err());
    }
}
