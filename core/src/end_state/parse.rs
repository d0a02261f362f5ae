//! Parsing one entry of a task's `verify:` list (already converted to JSON).

use std::path::Path;

use serde_json::{Map, Value};

use super::EndStateCheck;
use super::command::resolve;
use super::error::EndStateError;
use super::json::{check_pointer, compile_schema};
use super::path::check_relative_path;
use super::query::{Comparison, Select};

/// The check kinds, as task files name them.
pub(crate) const KINDS: [&str; 9] = [
    "file_exists",
    "file_absent",
    "file_contains",
    "file_matches",
    "file_equals",
    "json_equals",
    "json_query",
    "json_schema",
    "command",
];

/// Default `exit_code` of a `command` check.
pub(crate) const DEFAULT_EXIT_CODE: i32 = 0;
/// Default `timeout_s` of a `command` check.
pub(crate) const DEFAULT_TIMEOUT_S: f64 = 30.0;

impl EndStateCheck {
    /// Parses one entry of a task's `verify:` list. `task_dir` is the folder of the task
    /// file, for `from` and `schema_file` (read here, once).
    ///
    /// The kind is the one key that names a kind (`file_exists`, ..., `command`); any other
    /// key the kind does not take is an error naming it. Paths must be relative without
    /// `..`; regexes, schemas, JSON pointers and command lines are validated here.
    ///
    /// The `command` check takes `{command: LINE, exit_code?: N, timeout_s?: S}`, with
    /// `exit_code` defaulting to 0 and `timeout_s` to 30 (seconds, fractions allowed). `run`
    /// is accepted as an alias of `command` at the top level (`{run: LINE, ...}`), and the
    /// nested form `{command: {run: LINE, exit_code?: N, timeout_s?: S}}` is accepted too.
    pub fn from_json(value: &Value, task_dir: &Path) -> Result<EndStateCheck, EndStateError> {
        let Value::Object(map) = value else {
            return Err(EndStateError::NotAnObject {
                found: type_name(value),
            });
        };
        let named: Vec<&str> = KINDS
            .iter()
            .copied()
            .filter(|kind| map.contains_key(*kind))
            .collect();
        let kind = match named.as_slice() {
            [kind] => *kind,
            [] if map.contains_key("run") => "command",
            [] => {
                let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                return Err(EndStateError::NoKind {
                    keys: if keys.is_empty() {
                        "none".to_owned()
                    } else {
                        keys.join(", ")
                    },
                    kinds: KINDS.join(", "),
                });
            }
            several => {
                return Err(EndStateError::SeveralKinds {
                    kinds: several.join(", "),
                });
            }
        };
        let entry = Entry { kind, map };
        match kind {
            "file_exists" => {
                entry.allow(&[kind])?;
                Ok(EndStateCheck::FileExists {
                    path: entry.path(kind)?,
                })
            }
            "file_absent" => {
                entry.allow(&[kind])?;
                Ok(EndStateCheck::FileAbsent {
                    path: entry.path(kind)?,
                })
            }
            "file_contains" => {
                entry.allow(&[kind, "text"])?;
                Ok(EndStateCheck::FileContains {
                    path: entry.path(kind)?,
                    text: entry.required_string("text")?.to_owned(),
                })
            }
            "file_matches" => parse_file_matches(&entry),
            "file_equals" => parse_file_equals(&entry, task_dir),
            "json_equals" => parse_json_equals(&entry),
            "json_query" => parse_json_query(&entry),
            "json_schema" => parse_json_schema(&entry, task_dir),
            _ => parse_command(map, task_dir),
        }
    }
}

fn parse_file_matches(entry: &Entry<'_>) -> Result<EndStateCheck, EndStateError> {
    entry.allow(&[entry.kind, "regex"])?;
    let path = entry.path(entry.kind)?;
    let regex = entry.required_string("regex")?.to_owned();
    if let Err(e) = regex::Regex::new(&regex) {
        return Err(EndStateError::BadRegex {
            path,
            regex,
            message: regex_message(&e),
        });
    }
    Ok(EndStateCheck::FileMatches { path, regex })
}

fn parse_file_equals(entry: &Entry<'_>, task_dir: &Path) -> Result<EndStateCheck, EndStateError> {
    entry.allow(&[entry.kind, "text", "from"])?;
    let path = entry.path(entry.kind)?;
    let (text, from) = match (entry.string("text")?, entry.string("from")?) {
        (Some(_), Some(_)) => return Err(entry.conflict("text", "from")),
        (Some(text), None) => (text.to_owned(), None),
        (None, Some(_)) => {
            let from = entry.path("from")?;
            let bytes = entry.read_task_file("from", task_dir, &from)?;
            let text = String::from_utf8(bytes).map_err(|_| EndStateError::NotUtf8 {
                kind: entry.kind,
                key: "from",
                path: task_dir.join(&from).display().to_string(),
            })?;
            (text, Some(from))
        }
        (None, None) => {
            return Err(EndStateError::MissingKey {
                kind: entry.kind,
                key: "text` or `from",
            });
        }
    };
    Ok(EndStateCheck::FileEquals { path, text, from })
}

fn parse_json_equals(entry: &Entry<'_>) -> Result<EndStateCheck, EndStateError> {
    entry.allow(&[entry.kind, "pointer", "value"])?;
    let path = entry.path(entry.kind)?;
    let pointer = entry.string("pointer")?.unwrap_or("").to_owned();
    if let Err(message) = check_pointer(&pointer) {
        return Err(EndStateError::BadPointer {
            path,
            pointer,
            message,
        });
    }
    let value = entry.required_value("value")?;
    Ok(EndStateCheck::JsonEquals {
        path,
        pointer,
        value,
    })
}

fn parse_json_query(entry: &Entry<'_>) -> Result<EndStateCheck, EndStateError> {
    entry.allow(&[entry.kind, "query", "select", "op", "value"])?;
    let path = entry.path(entry.kind)?;
    let query = entry.required_string("query")?.to_owned();
    if let Err(e) = serde_json_path::JsonPath::parse(&query) {
        return Err(EndStateError::BadQuery {
            path,
            query,
            message: e.to_string(),
        });
    }
    let select = entry
        .one_of(
            "select",
            "one of all, first, last, count, sum, min, max",
            &Select::NAMES,
        )?
        .unwrap_or(Select::One);
    let op = entry
        .one_of(
            "op",
            "one of ==, !=, >, >=, <, <=, contains (quote it)",
            &Comparison::NAMES,
        )?
        .unwrap_or(Comparison::Equal);
    let value = entry.required_value("value")?;
    let mismatch = |message: String| {
        Err(EndStateError::QueryMismatch {
            path: path.clone(),
            message,
        })
    };
    if op.orders() && !value.is_number() {
        return mismatch(format!(
            "op {} compares numbers, but value is {value}",
            op.name()
        ));
    }
    if op.orders() && select == Select::All {
        return mismatch(format!(
            "op {} compares numbers, but select: all gives a list",
            op.name()
        ));
    }
    if op == Comparison::Contains && select.is_numeric() {
        return mismatch(format!(
            "op contains looks into a text, list or object, but select: {} gives a number",
            select.name().unwrap_or_default()
        ));
    }
    Ok(EndStateCheck::JsonQuery {
        path,
        query,
        select,
        op,
        value,
    })
}

fn parse_json_schema(entry: &Entry<'_>, task_dir: &Path) -> Result<EndStateCheck, EndStateError> {
    entry.allow(&[entry.kind, "schema", "schema_file"])?;
    let path = entry.path(entry.kind)?;
    let (schema, schema_file, key) = match (entry.map.get("schema"), entry.string("schema_file")?) {
        (Some(_), Some(_)) => return Err(entry.conflict("schema", "schema_file")),
        (Some(schema), None) => (schema.clone(), None, "schema"),
        (None, Some(_)) => {
            let file = entry.path("schema_file")?;
            let bytes = entry.read_task_file("schema_file", task_dir, &file)?;
            let schema =
                serde_json::from_slice(&bytes).map_err(|e| EndStateError::SchemaFileJson {
                    path: task_dir.join(&file).display().to_string(),
                    message: e.to_string(),
                })?;
            (schema, Some(file), "schema_file")
        }
        (None, None) => {
            return Err(EndStateError::MissingKey {
                kind: entry.kind,
                key: "schema` or `schema_file",
            });
        }
    };
    if let Err(message) = compile_schema(&schema) {
        return Err(EndStateError::BadSchema { key, path, message });
    }
    Ok(EndStateCheck::JsonSchema {
        path,
        schema,
        schema_file,
    })
}

/// `{command: LINE, ...}`, `{run: LINE, ...}` or `{command: {run: LINE, ...}}`.
fn parse_command(
    map: &Map<String, Value>,
    task_dir: &Path,
) -> Result<EndStateCheck, EndStateError> {
    const KIND: &str = "command";
    let outer = Entry { kind: KIND, map };
    if map.contains_key("command") && map.contains_key("run") {
        return Err(outer.conflict("command", "run"));
    }
    let (entry, line_key) = match map.get("command") {
        Some(Value::Object(inner)) => {
            outer.allow(&[KIND])?;
            (
                Entry {
                    kind: KIND,
                    map: inner,
                },
                "run",
            )
        }
        Some(_) => (outer, "command"),
        None => (outer, "run"),
    };
    entry.allow(&[line_key, "exit_code", "timeout_s"])?;
    let run = entry.required_string(line_key)?.to_owned();
    let (argv, files) = match resolve(&run, task_dir) {
        Ok(resolved) => resolved,
        Err(message) => return Err(EndStateError::BadCommand { run, message }),
    };
    let exit_code = match entry.map.get("exit_code") {
        None => DEFAULT_EXIT_CODE,
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| entry.wrong_type("exit_code", "an integer", v))?,
    };
    let timeout_s = match entry.map.get("timeout_s") {
        None => DEFAULT_TIMEOUT_S,
        Some(v) => v
            .as_f64()
            .filter(|s| s.is_finite() && *s > 0.0)
            .ok_or_else(|| entry.wrong_type("timeout_s", "a positive number of seconds", v))?,
    };
    Ok(EndStateCheck::Command {
        run,
        exit_code,
        timeout_s,
        argv,
        files,
    })
}

/// One check object while it is parsed, with the kind it was found to be.
struct Entry<'a> {
    kind: &'static str,
    map: &'a Map<String, Value>,
}

impl Entry<'_> {
    /// Refuses any key not in `allowed`.
    fn allow(&self, allowed: &[&str]) -> Result<(), EndStateError> {
        match self.map.keys().find(|key| !allowed.contains(&key.as_str())) {
            None => Ok(()),
            Some(key) => Err(EndStateError::UnknownKey {
                kind: self.kind,
                key: key.clone(),
                allowed: allowed.join(", "),
            }),
        }
    }

    /// The string at `key`, if present; an error if it is not a string.
    fn string(&self, key: &'static str) -> Result<Option<&str>, EndStateError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong_type(key, "a string (quote it)", other)),
        }
    }

    /// The string at `key`, which must be present.
    fn required_string(&self, key: &'static str) -> Result<&str, EndStateError> {
        self.string(key)?.ok_or(EndStateError::MissingKey {
            kind: self.kind,
            key,
        })
    }

    /// The value at `key`, any JSON, which must be present.
    fn required_value(&self, key: &'static str) -> Result<Value, EndStateError> {
        self.map.get(key).cloned().ok_or(EndStateError::MissingKey {
            kind: self.kind,
            key,
        })
    }

    /// The value named by the string at `key`, if present; an error naming `expected`
    /// when it names none of `names`.
    fn one_of<T: Copy>(
        &self,
        key: &'static str,
        expected: &'static str,
        names: &[(&str, T)],
    ) -> Result<Option<T>, EndStateError> {
        let Some(found) = self.map.get(key) else {
            return Ok(None);
        };
        names
            .iter()
            .find(|(name, _)| found.as_str() == Some(*name))
            .map(|(_, value)| Some(*value))
            .ok_or_else(|| self.wrong_type(key, expected, found))
    }

    /// The relative path at `key`, validated with [`check_relative_path`].
    fn path(&self, key: &'static str) -> Result<String, EndStateError> {
        let path = self.required_string(key)?;
        check_relative_path(path).map_err(|message| EndStateError::BadPath {
            kind: self.kind,
            key,
            message,
        })?;
        Ok(path.to_owned())
    }

    /// Reads `relative` (already validated) from the task folder.
    fn read_task_file(
        &self,
        key: &'static str,
        task_dir: &Path,
        relative: &str,
    ) -> Result<Vec<u8>, EndStateError> {
        let full = task_dir.join(relative);
        std::fs::read(&full).map_err(|source| EndStateError::ReadFile {
            kind: self.kind,
            key,
            path: full.display().to_string(),
            source,
        })
    }

    fn conflict(&self, first: &'static str, second: &'static str) -> EndStateError {
        EndStateError::Conflict {
            kind: self.kind,
            first,
            second,
        }
    }

    fn wrong_type(
        &self,
        key: &'static str,
        expected: &'static str,
        found: &Value,
    ) -> EndStateError {
        EndStateError::WrongType {
            kind: self.kind,
            key,
            expected,
            found: found.to_string(),
        }
    }
}

/// `a string`, `a number`, ...: what a JSON value is, for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The one-line gist of a regex error (the crate's message spans several lines).
fn regex_message(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("invalid regex")
        .trim();
    last.strip_prefix("error: ").unwrap_or(last).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::end_state::{Comparison, Select};
    use serde_json::json;

    fn parse(value: Value) -> Result<EndStateCheck, EndStateError> {
        EndStateCheck::from_json(&value, Path::new("/nonexistent-task-dir"))
    }

    fn error(value: Value) -> String {
        parse(value).unwrap_err().to_string()
    }

    #[test]
    fn parses_every_kind() {
        assert_eq!(
            parse(json!({"file_exists": "a.txt"})).unwrap(),
            EndStateCheck::FileExists {
                path: "a.txt".into()
            }
        );
        assert_eq!(
            parse(json!({"file_absent": "tmp/x"})).unwrap(),
            EndStateCheck::FileAbsent {
                path: "tmp/x".into()
            }
        );
        assert_eq!(
            parse(json!({"file_contains": "log", "text": "ok"})).unwrap(),
            EndStateCheck::FileContains {
                path: "log".into(),
                text: "ok".into()
            }
        );
        assert_eq!(
            parse(json!({"file_matches": "log", "regex": "^o+k$"})).unwrap(),
            EndStateCheck::FileMatches {
                path: "log".into(),
                regex: "^o+k$".into()
            }
        );
        assert_eq!(
            parse(json!({"file_equals": "out", "text": "x\n"})).unwrap(),
            EndStateCheck::FileEquals {
                path: "out".into(),
                text: "x\n".into(),
                from: None
            }
        );
        assert_eq!(
            parse(json!({"json_equals": "c.json", "pointer": "/items/0/stock", "value": 7}))
                .unwrap(),
            EndStateCheck::JsonEquals {
                path: "c.json".into(),
                pointer: "/items/0/stock".into(),
                value: json!(7)
            }
        );
        assert_eq!(
            parse(json!({"json_schema": "c.json", "schema": {"type": "object"}})).unwrap(),
            EndStateCheck::JsonSchema {
                path: "c.json".into(),
                schema: json!({"type": "object"}),
                schema_file: None
            }
        );
        assert_eq!(
            parse(json!({"command": "python3 check.py", "exit_code": 2, "timeout_s": 1.5}))
                .unwrap(),
            EndStateCheck::Command {
                run: "python3 check.py".into(),
                exit_code: 2,
                timeout_s: 1.5,
                argv: vec!["python3".into(), "check.py".into()],
                files: vec![]
            }
        );
    }

    #[test]
    fn parses_json_query_with_its_defaults() {
        assert_eq!(
            parse(json!({"json_query": "db.json", "query": "$.orders.W1.status", "value": "x"}))
                .unwrap(),
            EndStateCheck::JsonQuery {
                path: "db.json".into(),
                query: "$.orders.W1.status".into(),
                select: Select::One,
                op: Comparison::Equal,
                value: json!("x")
            }
        );
        assert_eq!(
            parse(
                json!({"json_query": "db.json", "query": "$.t[?@.to == 'X'].amount",
                         "select": "sum", "op": ">=", "value": 10})
            )
            .unwrap(),
            EndStateCheck::JsonQuery {
                path: "db.json".into(),
                query: "$.t[?@.to == 'X'].amount".into(),
                select: Select::Sum,
                op: Comparison::GreaterOrEqual,
                value: json!(10)
            }
        );
    }

    #[test]
    fn a_bad_json_query_is_refused_naming_what_is_wrong() {
        let query = |extra: Value| {
            let mut check = json!({"json_query": "db.json", "query": "$.a", "value": 1});
            for (key, value) in extra.as_object().unwrap() {
                check[key] = value.clone();
            }
            error(check)
        };
        let bad = query(json!({"query": "$.a[?@.b = 1]"}));
        assert!(
            bad.starts_with(
                "`query` in json_query check for db.json: invalid JSONPath query \"$.a[?@.b = 1]\": "
            ),
            "{bad}"
        );
        assert_eq!(
            query(json!({"select": "avg"})),
            "`select` in json_query check must be one of all, first, last, count, sum, min, max, \
             found \"avg\""
        );
        assert_eq!(
            query(json!({"op": "="})),
            "`op` in json_query check must be one of ==, !=, >, >=, <, <=, contains (quote it), \
             found \"=\""
        );
        assert_eq!(
            query(json!({"op": ">", "value": "10"})),
            "json_query check for db.json: op > compares numbers, but value is \"10\""
        );
        assert_eq!(
            query(json!({"op": "<", "select": "all"})),
            "json_query check for db.json: op < compares numbers, but select: all gives a list"
        );
        assert_eq!(
            query(json!({"op": "contains", "select": "count"})),
            "json_query check for db.json: op contains looks into a text, list or object, \
             but select: count gives a number"
        );
        assert_eq!(
            query(json!({"value": null, "qeury": "$"})),
            "unknown key `qeury` in json_query check (allowed: json_query, query, select, op, value)"
        );
        assert_eq!(
            error(json!({"json_query": "db.json", "query": "$.a"})),
            "json_query check needs `value`"
        );
        assert_eq!(
            error(json!({"json_query": "db.json", "value": 1})),
            "json_query check needs `query`"
        );
        assert_eq!(
            error(json!({"json_query": "../db.json", "query": "$", "value": 1})),
            "`json_query` in json_query check: path \"../db.json\" leaves the sandbox (`..`)"
        );
        assert_eq!(
            error(json!({"json_query": "/tmp/db.json", "query": "$", "value": 1})),
            "`json_query` in json_query check: absolute path \"/tmp/db.json\" is not allowed"
        );
    }

    #[test]
    fn defaults_pointer_exit_code_and_timeout() {
        assert_eq!(
            parse(json!({"json_equals": "a.json", "value": null})).unwrap(),
            EndStateCheck::JsonEquals {
                path: "a.json".into(),
                pointer: String::new(),
                value: Value::Null
            }
        );
        assert_eq!(
            parse(json!({"command": "true"})).unwrap(),
            EndStateCheck::Command {
                run: "true".into(),
                exit_code: 0,
                timeout_s: 30.0,
                argv: vec!["true".into()],
                files: vec![]
            }
        );
    }

    #[test]
    fn accepts_run_as_an_alias_of_command() {
        let expected = EndStateCheck::Command {
            run: "make test".into(),
            exit_code: 1,
            timeout_s: 30.0,
            argv: vec!["make".into(), "test".into()],
            files: vec![],
        };
        assert_eq!(
            parse(json!({"run": "make test", "exit_code": 1})).unwrap(),
            expected
        );
        assert_eq!(
            parse(json!({"command": {"run": "make test", "exit_code": 1}})).unwrap(),
            expected
        );
        assert_eq!(
            error(json!({"command": "a", "run": "b"})),
            "command check takes `command` or `run`, not both"
        );
        assert_eq!(
            error(json!({"command": {"run": "a"}, "exit_code": 1})),
            "unknown key `exit_code` in command check (allowed: command)"
        );
        assert_eq!(
            error(json!({"command": {"run": "a", "command": "b"}})),
            "unknown key `command` in command check (allowed: run, exit_code, timeout_s)"
        );
        assert_eq!(
            error(json!({"command": {"exit_code": 1}})),
            "command check needs `run`"
        );
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert_eq!(
            error(json!({"file_contains": "log", "text": "a", "txt": "b"})),
            "unknown key `txt` in file_contains check (allowed: file_contains, text)"
        );
        assert_eq!(
            error(json!({"file_exists": "log", "text": "a"})),
            "unknown key `text` in file_exists check (allowed: file_exists)"
        );
        assert_eq!(
            error(json!({"command": "true", "timeout": 5})),
            "unknown key `timeout` in command check (allowed: command, exit_code, timeout_s)"
        );
    }

    #[test]
    fn objects_without_one_kind_are_errors() {
        assert_eq!(
            error(json!({"file_exist": "a.txt"})),
            "end-state check has no known kind (keys: file_exist); expected one of: \
             file_exists, file_absent, file_contains, file_matches, file_equals, json_equals, \
             json_query, json_schema, command"
        );
        assert!(error(json!({})).starts_with("end-state check has no known kind (keys: none)"));
        assert_eq!(
            error(json!({"file_exists": "a", "file_absent": "b"})),
            "end-state check names more than one kind: file_exists, file_absent"
        );
        assert_eq!(
            error(json!("file_exists a.txt")),
            "end-state check must be an object like {file_exists: PATH}, found a string"
        );
    }

    #[test]
    fn missing_and_mistyped_values_are_errors() {
        assert_eq!(
            error(json!({"file_contains": "log"})),
            "file_contains check needs `text`"
        );
        assert_eq!(
            error(json!({"file_contains": "log", "text": 5})),
            "`text` in file_contains check must be a string (quote it), found 5"
        );
        assert_eq!(
            error(json!({"file_exists": ["a"]})),
            "`file_exists` in file_exists check must be a string (quote it), found [\"a\"]"
        );
        assert_eq!(
            error(json!({"json_equals": "a.json", "pointer": "/a"})),
            "json_equals check needs `value`"
        );
        assert_eq!(
            error(json!({"file_equals": "a"})),
            "file_equals check needs `text` or `from`"
        );
        assert_eq!(
            error(json!({"json_schema": "a"})),
            "json_schema check needs `schema` or `schema_file`"
        );
        assert_eq!(
            error(json!({"command": "true", "exit_code": "0"})),
            "`exit_code` in command check must be an integer, found \"0\""
        );
        assert_eq!(
            error(json!({"command": "true", "exit_code": 1.5})),
            "`exit_code` in command check must be an integer, found 1.5"
        );
        assert_eq!(
            error(json!({"command": "true", "exit_code": 4_294_967_296_i64})),
            "`exit_code` in command check must be an integer, found 4294967296"
        );
        assert_eq!(
            error(json!({"command": "true", "timeout_s": 0})),
            "`timeout_s` in command check must be a positive number of seconds, found 0"
        );
        assert_eq!(
            error(json!({"file_equals": "a", "text": "x", "from": "b"})),
            "file_equals check takes `text` or `from`, not both"
        );
        assert_eq!(
            error(json!({"json_schema": "a", "schema": {}, "schema_file": "s.json"})),
            "json_schema check takes `schema` or `schema_file`, not both"
        );
    }

    #[test]
    fn paths_must_stay_relative() {
        assert_eq!(
            error(json!({"file_exists": "/etc/passwd"})),
            "`file_exists` in file_exists check: absolute path \"/etc/passwd\" is not allowed"
        );
        assert_eq!(
            error(json!({"file_contains": "../outside.log", "text": "x"})),
            "`file_contains` in file_contains check: path \"../outside.log\" leaves the sandbox (`..`)"
        );
        assert_eq!(
            error(json!({"json_equals": "a/../../b.json", "value": 1})),
            "`json_equals` in json_equals check: path \"a/../../b.json\" leaves the sandbox (`..`)"
        );
        assert_eq!(
            error(json!({"file_equals": "out.txt", "from": "../expected.txt"})),
            "`from` in file_equals check: path \"../expected.txt\" leaves the sandbox (`..`)"
        );
        assert_eq!(
            error(json!({"json_schema": "a.json", "schema_file": "/schemas/x.json"})),
            "`schema_file` in json_schema check: absolute path \"/schemas/x.json\" is not allowed"
        );
        assert_eq!(
            error(json!({"file_absent": ""})),
            "`file_absent` in file_absent check: empty path"
        );
    }

    #[test]
    fn bad_regex_schema_pointer_and_command_are_errors() {
        assert_eq!(
            error(json!({"file_matches": "log", "regex": "(unclosed"})),
            "`regex` in file_matches check for log: invalid regex /(unclosed/: unclosed group"
        );
        let bad_schema = error(json!({"json_schema": "a.json", "schema": {"type": 5}}));
        assert!(
            bad_schema
                .starts_with("`schema` in json_schema check for a.json: invalid JSON schema: "),
            "{bad_schema}"
        );
        let remote = error(
            json!({"json_schema": "a.json", "schema": {"$ref": "https://example.invalid/s.json"}}),
        );
        assert!(
            remote.starts_with("`schema` in json_schema check for a.json: invalid JSON schema: "),
            "{remote}"
        );
        assert_eq!(
            error(json!({"json_equals": "a.json", "pointer": "items/0", "value": 1})),
            "`pointer` in json_equals check for a.json: invalid JSON pointer \"items/0\" \
             (must be empty or start with `/`)"
        );
        assert_eq!(
            error(json!({"command": "echo 'unclosed"})),
            "command check: invalid command line \"echo 'unclosed\": missing closing quote"
        );
        assert_eq!(
            error(json!({"command": "  "})),
            "command check: invalid command line \"  \": empty command line"
        );
    }

    fn task_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("expected")).unwrap();
        std::fs::create_dir_all(dir.path().join("schemas")).unwrap();
        std::fs::write(dir.path().join("expected/out.txt"), "total: 5\n").unwrap();
        std::fs::write(dir.path().join("expected/bin.dat"), [0xff, 0x00]).unwrap();
        std::fs::write(
            dir.path().join("schemas/order.json"),
            r#"{"required": ["id"]}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("schemas/bad.json"), r#"{"type": 5}"#).unwrap();
        std::fs::write(dir.path().join("schemas/broken.json"), "{").unwrap();
        dir
    }

    #[test]
    fn from_is_read_relative_to_the_task_dir() {
        let dir = task_dir();
        let check = EndStateCheck::from_json(
            &json!({"file_equals": "out.txt", "from": "expected/out.txt"}),
            dir.path(),
        )
        .unwrap();
        assert_eq!(
            check,
            EndStateCheck::FileEquals {
                path: "out.txt".into(),
                text: "total: 5\n".into(),
                from: Some("expected/out.txt".into())
            }
        );
        let missing = EndStateCheck::from_json(
            &json!({"file_equals": "out.txt", "from": "expected/none.txt"}),
            dir.path(),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            missing,
            format!(
                "`from` in file_equals check: cannot read {}: No such file or directory (os error 2)",
                dir.path().join("expected/none.txt").display()
            )
        );
        let binary = EndStateCheck::from_json(
            &json!({"file_equals": "out.txt", "from": "expected/bin.dat"}),
            dir.path(),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            binary,
            format!(
                "`from` in file_equals check: {} is not valid UTF-8",
                dir.path().join("expected/bin.dat").display()
            )
        );
    }

    #[test]
    fn schema_file_is_read_relative_to_the_task_dir() {
        let dir = task_dir();
        let parse_in_dir = |value: Value| EndStateCheck::from_json(&value, dir.path());
        assert_eq!(
            parse_in_dir(json!({"json_schema": "order.json", "schema_file": "schemas/order.json"}))
                .unwrap(),
            EndStateCheck::JsonSchema {
                path: "order.json".into(),
                schema: json!({"required": ["id"]}),
                schema_file: Some("schemas/order.json".into())
            }
        );
        let bad = parse_in_dir(json!({"json_schema": "o.json", "schema_file": "schemas/bad.json"}))
            .unwrap_err()
            .to_string();
        assert!(
            bad.starts_with("`schema_file` in json_schema check for o.json: invalid JSON schema: "),
            "{bad}"
        );
        let broken =
            parse_in_dir(json!({"json_schema": "o.json", "schema_file": "schemas/broken.json"}))
                .unwrap_err()
                .to_string();
        assert_eq!(
            broken,
            format!(
                "`schema_file` in json_schema check: {} is not valid JSON: \
                 EOF while parsing an object at line 1 column 1",
                dir.path().join("schemas/broken.json").display()
            )
        );
    }
}
