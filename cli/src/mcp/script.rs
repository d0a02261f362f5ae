//! The `script` backend: the task's command run once per call, outside the agent's
//! isolation, in the attempt's sandbox, with the call as JSON on stdin. Its stdout is the
//! result (JSON, or text when it is not JSON); an exit other than 0, a timeout or an
//! oversized output is a tool error carrying the end of its stderr. The command runs in
//! a process group of its own that is killed when it ends or times out.

use super::service::ToolReply;
use crate::run::environment::{AgentEnvironment, PassEnv};
use crate::run::process::{self, Exit, Launch, STDOUT_LIMIT, Stopped};
use proctor_core::tools::ScriptBackend;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// How much of the end of a failing script's stderr the agent is shown.
const STDERR_SHOWN: usize = 2048;

/// Who is calling: the call's JSON names the task and the attempt.
#[derive(Debug, Clone)]
pub struct Caller<'a> {
    pub task_id: &'a str,
    pub attempt: u64,
    pub sandbox: &'a Path,
}

/// Runs the script for one call.
pub async fn call(
    script: &ScriptBackend,
    tool: &str,
    args: &Value,
    caller: &Caller<'_>,
) -> ToolReply {
    let stdin_line = json!({
        "tool": tool,
        "args": args,
        "task_id": caller.task_id,
        "attempt": caller.attempt,
    })
    .to_string();
    // The harmless host variables only: nothing of proctor's environment (a judge key).
    let mut env = AgentEnvironment::from_host(std::env::vars_os(), &PassEnv::default());
    env.set("PROCTOR_TASK_ID", caller.task_id);
    env.set("PROCTOR_ATTEMPT", caller.attempt.to_string());
    let timeout = Duration::from_secs_f64(script.timeout_s.min(1e7));
    // A sender dropped at once: the script is never cancelled, only timed out.
    let (_, never) = tokio::sync::watch::channel(false);
    let launch = Launch {
        program: &script.argv[0],
        args: &script.argv[1..],
        env: env.vars(),
        cwd: caller.sandbox,
        stdin_line,
        timeout,
        disk: None,
    };
    let ran = match process::run(launch, never).await {
        Ok(ran) => ran,
        Err(error) => {
            return failure(format!("script {:?} could not start: {error}", script.line));
        }
    };
    let stderr = String::from_utf8_lossy(&ran.stderr.bytes);
    let stderr = tail(stderr.trim_end(), STDERR_SHOWN);
    let with_stderr = |text: String| {
        if stderr.is_empty() {
            text
        } else {
            format!("{text}; stderr: {stderr}")
        }
    };
    if ran.stopped == Some(Stopped::TimedOut) {
        return failure(with_stderr(format!(
            "script {:?} timed out after {}s and was killed",
            script.line, script.timeout_s
        )));
    }
    match ran.exit {
        Exit::Code(0) => {}
        Exit::Code(code) => {
            return failure(with_stderr(format!(
                "script {:?} exited with code {code}",
                script.line
            )));
        }
        Exit::Signal(signal) => {
            return failure(with_stderr(format!(
                "script {:?} was killed by signal {signal}",
                script.line
            )));
        }
    }
    if ran.stdout.total > ran.stdout.bytes.len() as u64 {
        return failure(format!(
            "script {:?} printed {} bytes; at most {} are read",
            script.line, ran.stdout.total, STDOUT_LIMIT
        ));
    }
    match serde_json::from_slice::<Value>(&ran.stdout.bytes) {
        Ok(value) => ToolReply::Result {
            value,
            is_error: false,
        },
        Err(_) => ToolReply::Text {
            text: String::from_utf8_lossy(&ran.stdout.bytes).into_owned(),
            is_error: false,
        },
    }
}

fn failure(message: String) -> ToolReply {
    ToolReply::Result {
        value: json!({"error": message}),
        is_error: true,
    }
}

/// The last `max` bytes of `text`, cut at a character boundary, with `…` in front when cut.
fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}
