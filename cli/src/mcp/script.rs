//! The `script` backend: the task's command run once per call, contained like the agent
//! (`ContainedCommands`: same mode and limits, minimal environment, the sandbox writable
//! as its working folder and nothing else but a private `HOME` and `TMPDIR`, a bounded
//! number in flight across the run), with the call as JSON on stdin. Its stdout is the
//! result (JSON, or text when it is not JSON); an exit other than 0, a timeout or an
//! oversized output is a tool error carrying the end of its stderr. Nothing it starts
//! outlives it.

use super::service::ToolReply;
use crate::run::isolation::contained_command::{Call, ContainedCommands};
use crate::run::process::{Exit, STDOUT_LIMIT, Stopped};
use proctor_core::tools::ScriptBackend;
use serde_json::value::RawValue;
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
    /// The attempt's tool state folder (`PROCTOR_STATE_DIR`), writable like the sandbox.
    pub state: Option<&'a Path>,
    pub commands: &'a ContainedCommands,
}

/// The line a script reads on stdin.
#[derive(serde::Serialize)]
struct ScriptCall<'a> {
    tool: &'a str,
    args: &'a RawValue,
    task_id: &'a str,
    attempt: u64,
}

/// Runs the script for one call.
pub async fn call(
    script: &ScriptBackend,
    tool: &str,
    args: &RawValue,
    caller: &Caller<'_>,
) -> ToolReply {
    // Written field by field, so that the arguments go out as the agent wrote them.
    let stdin_line = serde_json::to_string(&ScriptCall {
        tool,
        args,
        task_id: caller.task_id,
        attempt: caller.attempt,
    })
    .expect("a call is written");
    let env = [
        ("PROCTOR_TASK_ID".to_owned(), caller.task_id.to_owned()),
        ("PROCTOR_ATTEMPT".to_owned(), caller.attempt.to_string()),
    ];
    let call = Call {
        argv: &script.argv,
        files: &script.files,
        sandbox: caller.sandbox,
        sandbox_writable: true,
        state: caller.state,
        env: &env,
        stdin_line,
        timeout: Duration::from_secs_f64(script.timeout_s.min(1e7)),
    };
    let ran = match caller.commands.run(call).await {
        Ok(ran) => ran,
        Err(error) => {
            return failure(format!("script {:?} could not start: {error}", script.line));
        }
    };
    let stderr = String::from_utf8_lossy(&ran.stderr.bytes);
    let stderr = tail(stderr.trim_end(), STDERR_SHOWN);
    if ran.stopped == Some(Stopped::TimedOut) {
        return failure(with_stderr(
            format!(
                "script {:?} timed out after {}s and was killed",
                script.line, script.timeout_s
            ),
            &stderr,
        ));
    }
    match ran.exit {
        Exit::Code(0) => {}
        Exit::Code(code) => {
            return failure(with_stderr(
                format!("script {:?} exited with code {code}", script.line),
                &stderr,
            ));
        }
        Exit::Signal(signal) => {
            return failure(with_stderr(
                format!("script {:?} was killed by signal {signal}", script.line),
                &stderr,
            ));
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

pub(super) fn failure(message: String) -> ToolReply {
    ToolReply::Result {
        value: json!({"error": message}),
        is_error: true,
    }
}

/// `message`, with the end of a process's stderr after it when there is any.
pub(super) fn with_stderr(message: String, stderr: &str) -> String {
    match stderr.is_empty() {
        true => message,
        false => format!("{message}; stderr: {stderr}"),
    }
}

/// The last `max` bytes of `text`, cut at a character boundary, with `…` in front when cut.
pub(super) fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}
