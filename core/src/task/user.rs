//! `user:` of a task: a simulated user the agent talks to through a served tool
//! `ask_user {message}`, answered by scripted turns, a user-simulator command or an LLM
//! following the user's instructions. The task's `input` is the user's first message.

use crate::tools::{
    ASK_USER, DEFAULT_MAX_TURNS, DEFAULT_REPLY_TIMEOUT_S, ScriptedTurn, ToolBackend, ToolSpec,
    UserBackend, UserSpec,
};
use serde_json::{Value, json};
use std::path::Path;

/// The keys `user:` may have.
const USER_KEYS: [&str; 5] = ["instructions", "turns", "command", "max_turns", "timeout_s"];
/// The keys a scripted turn may have.
const TURN_KEYS: [&str; 3] = ["when", "say", "repeat"];

impl super::Task {
    /// The task's simulated user, served as its tool `ask_user`.
    pub fn user(&self) -> Option<&UserSpec> {
        self.tools.iter().find_map(|tool| match &tool.backend {
            ToolBackend::User(user) => Some(user.as_ref()),
            _ => None,
        })
    }
}

/// The `ask_user` tool answered by `user`, added to a task's tools.
fn ask_user_tool(user: UserSpec) -> ToolSpec {
    ToolSpec {
        name: ASK_USER.to_owned(),
        description: "Send a message to the user and get their reply.".to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": {"message": {"type": "string", "description": "What to tell or ask the user"}},
            "required": ["message"],
        }),
        backend: ToolBackend::User(Box::new(user)),
    }
}

/// The `ask_user` tool of a task's `user:`, served after the task's own `tools`.
pub(super) fn user_tool(
    value: Value,
    tools: &[ToolSpec],
    task_dir: &Path,
) -> Result<ToolSpec, String> {
    if tools.iter().any(|tool| tool.name == ASK_USER) {
        return Err(format!(
            "the task serves a tool `{ASK_USER}` of its own; with `user:` proctor serves it"
        ));
    }
    Ok(ask_user_tool(parse_user(value, task_dir)?))
}

/// Reads `user:`; `task_dir` resolves a `command`'s files as `script:` does.
fn parse_user(value: Value, task_dir: &Path) -> Result<UserSpec, String> {
    let mut fields = known_keys(
        value,
        &USER_KEYS,
        "must be a map with `instructions`, `turns` or `command`",
    )?;
    let max_turns = match fields.remove("max_turns") {
        None => DEFAULT_MAX_TURNS,
        Some(value) => match value.as_u64() {
            Some(n @ 1..=10_000) => n as u32,
            _ => return Err("`max_turns` must be a whole number from 1 to 10000".to_owned()),
        },
    };
    let given_timeout = match fields.remove("timeout_s") {
        None => None,
        Some(value) => match value.as_f64() {
            Some(t) if t.is_finite() && t > 0.0 => Some(t),
            _ => return Err("`timeout_s` must be a positive number of seconds".to_owned()),
        },
    };
    let timeout_s = given_timeout.unwrap_or(DEFAULT_REPLY_TIMEOUT_S);
    let given = (
        fields.remove("turns"),
        fields.remove("command"),
        fields.remove("instructions"),
    );
    let backend = match given {
        (Some(turns), None, None) => {
            if given_timeout.is_some() {
                return Err("`timeout_s` applies to a `command` or `instructions` user".to_owned());
            }
            UserBackend::Turns(parse_turns(turns)?)
        }
        (None, Some(command), None) => {
            let backend = crate::tools::parse_command("command", command, task_dir, timeout_s)
                .map_err(|e| e.replace("`script`", "`command`"))?;
            UserBackend::Command(backend)
        }
        (None, None, Some(Value::String(instructions))) if !instructions.trim().is_empty() => {
            UserBackend::Instructions(instructions)
        }
        (None, None, Some(_)) => {
            return Err("`instructions` must be the user's instructions as text".to_owned());
        }
        (None, None, None) => {
            return Err(
                "gives no user: give `turns` (scripted), `command` (a user simulator) or \
                 `instructions` (an LLM user)"
                    .to_owned(),
            );
        }
        _ => {
            return Err("give exactly one of `turns`, `command` and `instructions`".to_owned());
        }
    };
    Ok(UserSpec {
        backend,
        max_turns,
        timeout_s,
    })
}

/// The map's fields, when it holds only `keys`; `shape` says what it must be otherwise.
fn known_keys(
    value: Value,
    keys: &[&str],
    shape: &str,
) -> Result<serde_json::Map<String, Value>, String> {
    let Value::Object(fields) = value else {
        return Err(shape.to_owned());
    };
    if let Some(unknown) = fields.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(format!(
            "unknown key `{unknown}` (expected one of {})",
            keys.join(", ")
        ));
    }
    Ok(fields)
}

fn parse_turns(turns: Value) -> Result<Vec<ScriptedTurn>, String> {
    let Value::Array(turns) = turns else {
        return Err("`turns` must be a list of `{when?, say, repeat?}`".to_owned());
    };
    if turns.is_empty() {
        return Err("`turns` is empty; a scripted user needs a turn".to_owned());
    }
    turns
        .into_iter()
        .enumerate()
        .map(|(i, turn)| parse_turn(turn).map_err(|e| format!("turn {}: {e}", i + 1)))
        .collect()
}

fn parse_turn(turn: Value) -> Result<ScriptedTurn, String> {
    let mut fields = known_keys(turn, &TURN_KEYS, "must be a map `{when?, say, repeat?}`")?;
    let when = match fields.remove("when") {
        None | Some(Value::Null) => None,
        Some(Value::String(pattern)) => {
            regex::Regex::new(&pattern).map_err(|e| format!("`when` {pattern:?}: {e}"))?;
            Some(pattern)
        }
        Some(_) => return Err("`when` must be a regular expression".to_owned()),
    };
    let say = match fields.remove("say") {
        Some(Value::String(say)) => say,
        Some(_) => return Err("`say` must be text".to_owned()),
        None => return Err("missing `say`, the reply".to_owned()),
    };
    let repeat = match fields.remove("repeat") {
        None => false,
        Some(Value::Bool(repeat)) => repeat,
        Some(_) => return Err("`repeat` must be true or false".to_owned()),
    };
    Ok(ScriptedTurn { when, say, repeat })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Suite;

    fn load(text: &str) -> Result<Suite, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("user.py"), "").unwrap();
        let path = dir.path().join("t.yaml");
        std::fs::write(&path, text).unwrap();
        Suite::load(&path).map_err(|e| {
            e.to_string()
                .replace(&dir.path().display().to_string(), "DIR")
        })
    }

    fn task(user: &str) -> String {
        format!("- id: a\n  input: Cancel my order.\n  expected: cancelled\n  user: {user}\n")
    }

    #[test]
    fn a_user_adds_the_ask_user_tool_after_the_tasks_own() {
        let text = task(
            "{turns: [{when: \"(?i)order id\", say: It is W1.}, {say: '###STOP###', repeat: true}], max_turns: 4}",
        )
        .replace(
            "  user:",
            "  tools:\n    - {name: get_order, responses: [{result: {}}]}\n  user:",
        );
        let suite = load(&text).unwrap();
        let tools = &suite.get("a").unwrap().tools;
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[1].name, ASK_USER);
        let ToolBackend::User(user) = &tools[1].backend else {
            panic!("{:?}", tools[1].backend);
        };
        assert_eq!(user.max_turns, 4);
        let UserBackend::Turns(turns) = &user.backend else {
            panic!("{user:?}");
        };
        assert_eq!(turns[0].when.as_deref(), Some("(?i)order id"));
        assert!(!turns[0].repeat && turns[1].repeat);
    }

    #[test]
    fn a_command_user_resolves_its_files_and_is_a_grading_file() {
        let suite = load(&task("{command: python3 user.py}")).unwrap();
        let task = suite.get("a").unwrap();
        let ToolBackend::User(user) = &task.tools[0].backend else {
            panic!();
        };
        let UserBackend::Command(command) = &user.backend else {
            panic!();
        };
        assert!(command.argv[1].ends_with("/user.py"), "{:?}", command.argv);
        assert_eq!(command.timeout_s, DEFAULT_REPLY_TIMEOUT_S);
        assert_eq!(user.max_turns, DEFAULT_MAX_TURNS);
        assert!(task.grading_files().iter().any(|f| f.ends_with("user.py")));
    }

    #[test]
    fn bad_users_are_refused_naming_the_field() {
        let cases = [
            (
                "{}",
                "gives no user: give `turns` (scripted), `command` (a user simulator) or `instructions` (an LLM user)",
            ),
            (
                "{turns: [{say: hi}], instructions: be nice}",
                "give exactly one of `turns`, `command` and `instructions`",
            ),
            (
                "{turns: [{when: '(', say: hi}]}",
                "turn 1: `when` \"(\": regex parse error",
            ),
            (
                "{turns: [{sey: hi}]}",
                "turn 1: unknown key `sey` (expected one of when, say, repeat)",
            ),
            (
                "{turns: []}",
                "`turns` is empty; a scripted user needs a turn",
            ),
            (
                "{instructions: x, max_turns: 0}",
                "`max_turns` must be a whole number from 1 to 10000",
            ),
            (
                "{command: python3 missing/user.py}",
                "`command`: DIR/missing/user.py does not exist",
            ),
            (
                "{mood: grumpy}",
                "unknown key `mood` (expected one of instructions, turns, command, max_turns, timeout_s)",
            ),
        ];
        for (user, message) in cases {
            let error = load(&task(user)).unwrap_err();
            let expected = format!("DIR/t.yaml:4: task `a`: field `user`: {message}");
            assert!(error.starts_with(&expected), "{user}\n{error}");
        }
        let clash = task("{turns: [{say: hi}]}").replace(
            "  user:",
            "  tools:\n    - {name: ask_user, responses: [{result: {}}]}\n  user:",
        );
        assert!(
            load(&clash)
                .unwrap_err()
                .contains("field `user`: the task serves a tool `ask_user` of its own"),
        );
    }
}
