//! Reading a task's `tools:` list. Every refusal names the tool by position and name, so
//! the loader's message reads `file:line: task `id`: field `tools`: tool 2 (`refund`): ...`.

use super::{CannedResponse, DEFAULT_SCRIPT_TIMEOUT_S, ScriptBackend, ToolBackend, ToolSpec};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The keys a tool may have.
const TOOL_KEYS: [&str; 7] = [
    "name",
    "description",
    "input_schema",
    "responses",
    "script",
    "server",
    "timeout_s",
];
/// The longest tool name MCP clients accept.
const LONGEST_NAME: usize = 128;

/// Reads every tool of a task's `tools:` (absent: `null`); `task_dir` is the task file's
/// folder, against which script paths resolve.
pub fn parse_tools(tools: Value, task_dir: &Path) -> Result<Vec<ToolSpec>, String> {
    let tools = match tools {
        Value::Null => Vec::new(),
        Value::Array(tools) => tools,
        _ => return Err("must be a list of tools, each with `name` and a backend".to_owned()),
    };
    let mut parsed: Vec<ToolSpec> = Vec::with_capacity(tools.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, tool) in tools.into_iter().enumerate() {
        let number = index + 1;
        let name = tool.get("name").and_then(Value::as_str).map(str::to_owned);
        let place = match &name {
            Some(name) => format!("tool {number} (`{name}`)"),
            None => format!("tool {number}"),
        };
        let spec = parse_tool(tool, task_dir).map_err(|e| format!("{place}: {e}"))?;
        if let Some(first) = seen.insert(spec.name.clone(), number) {
            return Err(format!(
                "{place}: the name is already used by tool {first}; tool names are unique"
            ));
        }
        parsed.push(spec);
    }
    Ok(parsed)
}

fn parse_tool(tool: Value, task_dir: &Path) -> Result<ToolSpec, String> {
    let Value::Object(mut fields) = tool else {
        return Err("must be an object with `name` and a backend".to_owned());
    };
    if let Some(unknown) = fields.keys().find(|k| !TOOL_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key `{unknown}` (expected one of {})",
            TOOL_KEYS.join(", ")
        ));
    }
    let name = match fields.remove("name") {
        Some(Value::String(name)) => name,
        Some(_) => return Err("`name` must be a string".to_owned()),
        None => return Err("missing `name`".to_owned()),
    };
    check_name(&name)?;
    let description = match fields.remove("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(_) => return Err("`description` must be a string".to_owned()),
    };
    let input_schema = match fields.remove("input_schema") {
        None | Some(Value::Null) => serde_json::json!({"type": "object"}),
        Some(schema) => check_schema(schema)?,
    };
    let fields_had_timeout = fields.contains_key("timeout_s");
    let timeout_s = match fields.remove("timeout_s") {
        None => None,
        Some(value) => match value.as_f64() {
            Some(t) if t.is_finite() && t > 0.0 => Some(t),
            _ => return Err("`timeout_s` must be a positive number of seconds".to_owned()),
        },
    };
    let given: Vec<(&str, Value)> = ["responses", "script", "server"]
        .into_iter()
        .filter_map(|key| fields.remove(key).map(|value| (key, value)))
        .collect();
    let timeout_s = timeout_s.unwrap_or(DEFAULT_SCRIPT_TIMEOUT_S);
    let backend = match <[(&str, Value); 1]>::try_from(given) {
        Ok([("responses", responses)]) => {
            if fields_had_timeout {
                return Err("`timeout_s` applies to a `script` or `server` backend only".to_owned());
            }
            ToolBackend::Responses(parse_responses(responses)?)
        }
        Ok([("script", script)]) => {
            ToolBackend::Script(parse_command("script", script, task_dir, timeout_s)?)
        }
        Ok([(_, server)]) => {
            ToolBackend::Server(parse_command("server", server, task_dir, timeout_s)?)
        }
        Err(given) if given.is_empty() => {
            return Err(
                "has no backend; give `responses` (canned results), `script` or `server`"
                    .to_owned(),
            );
        }
        Err(given) => {
            let keys: Vec<String> = given.iter().map(|(key, _)| format!("`{key}`")).collect();
            let both = if keys.len() == 2 { "both " } else { "" };
            return Err(format!(
                "has {both}{}; give exactly one backend",
                keys.join(" and ")
            ));
        }
    };
    Ok(ToolSpec {
        name,
        description,
        input_schema,
        backend,
    })
}

/// MCP tool names: 1 to 128 of `A-Z a-z 0-9 _ - .`.
fn check_name(name: &str) -> Result<(), String> {
    let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || name.len() > LONGEST_NAME || !name.chars().all(fine) {
        return Err(format!(
            "name {name:?}: use 1 to {LONGEST_NAME} letters, digits, `_`, `-` or `.`"
        ));
    }
    Ok(())
}

/// An object schema that compiles (remote `$ref`s are not fetched).
fn check_schema(schema: Value) -> Result<Value, String> {
    let Some(fields) = schema.as_object() else {
        return Err("`input_schema` must be a JSON Schema object".to_owned());
    };
    match fields.get("type") {
        Some(Value::String(kind)) if kind == "object" => {}
        None => {
            return Err("`input_schema` needs `type: object` (arguments are an object)".to_owned());
        }
        Some(other) => {
            return Err(format!(
                "`input_schema` has type {other}; tool arguments are an object (`type: object`)"
            ));
        }
    }
    crate::end_state::compile_schema(&schema)
        .map_err(|e| format!("`input_schema` is not a valid JSON Schema: {e}"))?;
    Ok(schema)
}

fn parse_responses(responses: Value) -> Result<Vec<CannedResponse>, String> {
    let Value::Array(items) = responses else {
        return Err("`responses` must be a list of {when?, result}".to_owned());
    };
    if items.is_empty() {
        return Err("`responses` is empty; every call would be a tool error".to_owned());
    }
    let mut parsed = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let place = format!("response {}", i + 1);
        let Value::Object(mut fields) = item else {
            return Err(format!("{place}: must be an object {{when?, result}}"));
        };
        let result = fields
            .remove("result")
            .ok_or_else(|| format!("{place}: missing `result`"))?;
        let when = match fields.remove("when") {
            None => None,
            Some(Value::Object(when)) => Some(when),
            Some(_) => {
                return Err(format!(
                    "{place}: `when` must be an object of argument values"
                ));
            }
        };
        if let Some(unknown) = fields.keys().next() {
            return Err(format!(
                "{place}: unknown key `{unknown}` (expected when, result)"
            ));
        }
        parsed.push(CannedResponse { when, result });
    }
    Ok(parsed)
}

/// A command line whose words that name files beside the task file are made absolute; one
/// word at least must name such a file (the script), and a word that looks like a relative
/// path (`tools/x.py`) must exist.
pub(crate) fn parse_command(
    key: &str,
    command: Value,
    task_dir: &Path,
    timeout_s: f64,
) -> Result<ScriptBackend, String> {
    let Value::String(line) = command else {
        return Err(format!(
            "`{key}` must be a command line such as `python3 tools/refund.py`"
        ));
    };
    let words = crate::end_state::split_command_line(&line)
        .map_err(|e| format!("`{key}` {line:?}: {e}"))?;
    let mut argv = Vec::with_capacity(words.len());
    let mut files = Vec::new();
    for word in words {
        let candidate = task_dir.join(&word);
        let relative = !Path::new(&word).is_absolute();
        if relative && candidate.is_file() {
            let absolute = candidate
                .canonicalize()
                .map_err(|e| format!("`{key}`: {}: {e}", candidate.display()))?;
            argv.push(absolute.to_string_lossy().into_owned());
            files.push(absolute);
        } else if relative && word.contains('/') && !word.starts_with('-') {
            return Err(format!(
                "`{key}`: {} does not exist (paths are relative to the task file's folder)",
                candidate.display()
            ));
        } else {
            argv.push(word);
        }
    }
    if files.is_empty() {
        return Err(format!(
            "`{key}` {line:?} names no file in {}; give the script's path relative to the task file",
            task_dir.display()
        ));
    }
    Ok(ScriptBackend {
        line,
        argv,
        files,
        timeout_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(tools: Value, dir: &Path) -> Result<Vec<ToolSpec>, String> {
        parse_tools(tools, dir)
    }

    #[test]
    fn tools_with_each_backend_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tools")).unwrap();
        std::fs::write(dir.path().join("tools/refund.py"), "print('{}')").unwrap();
        let tools = parse(
            json!([
                {"name": "lookup", "server": "python3 tools/refund.py --serve"},
                {"name": "get_order", "description": "Look up an order",
                 "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
                 "responses": [{"when": {"order_id": "A1"}, "result": {"days": 12}}, {"result": "unknown"}]},
                {"name": "refund", "script": "python3 tools/refund.py --fast", "timeout_s": 2}
            ]),
            dir.path(),
        )
        .unwrap();
        assert_eq!(tools.len(), 3);
        assert_eq!(tools[2].input_schema, json!({"type": "object"}));
        let ToolBackend::Script(script) = &tools[2].backend else {
            panic!("a script backend");
        };
        let absolute = dir.path().canonicalize().unwrap().join("tools/refund.py");
        let ToolBackend::Server(server) = &tools[0].backend else {
            panic!("a server backend");
        };
        assert_eq!(
            (server.argv.clone(), server.timeout_s),
            (
                vec![
                    "python3".to_owned(),
                    absolute.display().to_string(),
                    "--serve".to_owned()
                ],
                10.0
            )
        );
        assert_eq!(
            script.argv,
            ["python3", absolute.to_str().unwrap(), "--fast"]
        );
        assert_eq!(
            (script.files.clone(), script.timeout_s),
            (vec![absolute], 2.0)
        );
    }

    #[test]
    fn bad_tools_are_refused_by_position_and_name() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |tools: Value| parse(tools, dir.path()).unwrap_err();
        assert_eq!(
            refused(
                json!([{"name": "a", "responses": [{"result": 1}]}, {"name": "a", "responses": [{"result": 2}]}])
            ),
            "tool 2 (`a`): the name is already used by tool 1; tool names are unique"
        );
        assert_eq!(
            refused(json!([{"name": "a", "responses": [{"result": 1}], "script": "x.sh"}])),
            "tool 1 (`a`): has both `responses` and `script`; give exactly one backend"
        );
        assert_eq!(
            refused(json!([{"name": "a", "script": "x.sh", "server": "x.sh"}])),
            "tool 1 (`a`): has both `script` and `server`; give exactly one backend"
        );
        assert_eq!(
            refused(json!([{"name": "a", "responses": [{"result": 1}], "timeout_s": 3}])),
            "tool 1 (`a`): `timeout_s` applies to a `script` or `server` backend only"
        );
        assert_eq!(
            refused(json!([{"name": "a"}])),
            "tool 1 (`a`): has no backend; give `responses` (canned results), `script` or `server`"
        );
        assert!(
            refused(json!([{"name": "a", "input_schema": {"type": "object", "properties": {"n": {"type": "nonsense"}}}, "responses": [{"result": 1}]}]))
                .starts_with("tool 1 (`a`): `input_schema` is not a valid JSON Schema: ")
        );
        assert_eq!(
            refused(
                json!([{"name": "a", "input_schema": {"type": "string"}, "responses": [{"result": 1}]}])
            ),
            "tool 1 (`a`): `input_schema` has type \"string\"; tool arguments are an object (`type: object`)"
        );
        let missing = refused(json!([{"name": "a", "script": "python3 tools/gone.py"}]));
        assert!(
            missing.starts_with("tool 1 (`a`): `script`: ")
                && missing.ends_with(
                    "tools/gone.py does not exist (paths are relative to the task file's folder)"
                ),
            "{missing}"
        );
        assert!(refused(json!([{"name": "a", "script": "true"}])).contains("names no file in"));
        assert_eq!(
            refused(json!([{"name": "get order", "responses": [{"result": 1}]}])),
            "tool 1 (`get order`): name \"get order\": use 1 to 128 letters, digits, `_`, `-` or `.`"
        );
        assert_eq!(
            refused(json!([{"name": "a", "responses": [{"when": 3, "result": 1}]}])),
            "tool 1 (`a`): response 1: `when` must be an object of argument values"
        );
        assert_eq!(
            refused(json!({"name": "a"})),
            "must be a list of tools, each with `name` and a backend"
        );
        assert_eq!(
            refused(json!([{"name": "a", "responses": [], "colour": 1}])),
            "tool 1 (`a`): unknown key `colour` (expected one of name, description, input_schema, responses, script, server, timeout_s)"
        );
    }
}
