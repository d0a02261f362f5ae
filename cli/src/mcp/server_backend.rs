//! The `server` backend: the task's command started once per attempt, on the first call
//! of a tool naming it, contained like a `script` backend (`ContainedCommands`: the same
//! mode, limits, minimal environment, the sandbox as working folder, `PROCTOR_STATE_DIR`),
//! and kept running until the attempt ends. Tools naming the same command line share its
//! process. It speaks JSON lines: proctor writes
//! `{"id": N, "tool": NAME, "args": {...}, "task_id": ID, "attempt": K}` and reads one line
//! `{"id": N, "result": ANY}` or `{"id": N, "error": "text"}`. Calls to one process are
//! served one at a time, so it sees them in the order they are recorded.
//!
//! A call that times out, an answer over [`LINE_LIMIT`], or an answer to another call
//! (`id`) is a tool error, and the process is stopped (it cannot be trusted to be in step
//! any more) and started again on the next call; a line that is not such an answer is a
//! tool error too. Its stderr is read all along, and its end shown in errors, like a
//! script's.

use super::script::{Caller, failure, tail};
use super::service::ToolReply;
use crate::run::isolation::contained_command::{Call, Started};
use crate::run::process::{STDERR_LIMIT, STDOUT_LIMIT, Tail, keep_tail};
use proctor_core::tools::ScriptBackend;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

/// The longest answer line read from a server (the bound of a script's stdout).
pub const LINE_LIMIT: usize = STDOUT_LIMIT;
/// How much of the end of a server's stderr an error shows.
const STDERR_SHOWN: usize = 2048;

/// One attempt's server processes, by command line.
#[derive(Debug, Default)]
pub struct ServerBackends {
    servers: Mutex<HashMap<Vec<String>, Slot>>,
    /// The last request id written, across the attempt's servers.
    ids: AtomicU64,
}

/// One command line's process, when it runs; locked for the whole of a call.
type Slot = Arc<tokio::sync::Mutex<Option<ServerProcess>>>;

/// A running server and its pipes.
#[derive(Debug)]
struct ServerProcess {
    started: Started,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Tail>>,
}

/// One read of an answer line.
enum Line {
    Text(Vec<u8>),
    TooLong,
    Closed,
}

impl ServerBackends {
    /// Answers one call through the server of `backend`, starting it if needed.
    pub async fn call(
        &self,
        backend: &ScriptBackend,
        tool: &str,
        args: &Value,
        caller: &Caller<'_>,
    ) -> ToolReply {
        let slot = self
            .servers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(backend.argv.clone())
            .or_default()
            .clone();
        // One call in flight per server: its answers come back in order.
        let mut slot = slot.lock().await;
        let timeout = Duration::from_secs_f64(backend.timeout_s.min(1e7));
        let id = self.ids.fetch_add(1, Ordering::Relaxed) + 1;
        let request = json!({
            "id": id,
            "tool": tool,
            "args": args,
            "task_id": caller.task_id,
            "attempt": caller.attempt,
        });
        let exchange = async {
            if slot.is_none() {
                *slot = Some(start(backend, caller)?);
            }
            let process = slot.as_mut().expect("started above");
            let mut line = request.to_string().into_bytes();
            line.push(b'\n');
            process.stdin.write_all(&line).await?;
            process.stdin.flush().await?;
            read_line(&mut process.stdout, LINE_LIMIT).await
        };
        let outcome = tokio::time::timeout(timeout, exchange).await;
        let name = &backend.line;
        let (reply, in_step) = match outcome {
            Err(_) => (
                format!(
                    "server {name:?} did not answer within {}s and was stopped",
                    backend.timeout_s
                ),
                false,
            ),
            Ok(Err(error)) if slot.is_none() => {
                return failure(format!("server {name:?} could not start: {error}"));
            }
            Ok(Err(error)) => (
                format!("server {name:?} could not be reached: {error}"),
                false,
            ),
            Ok(Ok(Line::Closed)) => (format!("server {name:?} exited"), false),
            Ok(Ok(Line::TooLong)) => (
                format!(
                    "server {name:?} answered with a line over {LINE_LIMIT} bytes and was stopped"
                ),
                false,
            ),
            Ok(Ok(Line::Text(text))) => match answer(&text, id) {
                Ok(reply) => return reply,
                Err((why, in_step)) => (format!("server {name:?} {why}"), in_step),
            },
        };
        let stderr = slot.as_ref().map(|p| p.stderr.clone());
        if !in_step && let Some(process) = slot.take() {
            process.started.stop().await;
        }
        let stderr = stderr.map(|s| stderr_tail(&s)).unwrap_or_default();
        failure(match stderr.is_empty() {
            true => reply,
            false => format!("{reply}; stderr: {stderr}"),
        })
    }

    /// Stops every server of the attempt and what it started; a call still holding one
    /// has been stopped first (the attempt is closed).
    pub async fn stop_all(&self) {
        let slots: Vec<_> = self
            .servers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, slot)| slot)
            .collect();
        for slot in slots {
            if let Some(process) = slot.lock().await.take() {
                process.started.stop().await;
            }
        }
    }
}

/// Starts the server of `backend` contained, its stderr read into a bounded tail.
fn start(backend: &ScriptBackend, caller: &Caller<'_>) -> std::io::Result<ServerProcess> {
    let env = [
        ("PROCTOR_TASK_ID".to_owned(), caller.task_id.to_owned()),
        ("PROCTOR_ATTEMPT".to_owned(), caller.attempt.to_string()),
    ];
    let mut started = caller.commands.start(Call {
        argv: &backend.argv,
        files: &backend.files,
        sandbox: caller.sandbox,
        sandbox_writable: true,
        state: caller.state,
        env: &env,
        stdin_line: String::new(),
        timeout: Duration::MAX,
    })?;
    let child = &mut started.spawned.child;
    let missing = || std::io::Error::other("its pipes were not made");
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = BufReader::new(child.stdout.take().ok_or_else(missing)?);
    let stderr = Arc::new(Mutex::new(Tail::default()));
    tokio::spawn(keep_tail(child.stderr.take(), STDERR_LIMIT, stderr.clone()));
    Ok(ServerProcess {
        started,
        stdin,
        stdout,
        stderr,
    })
}

/// Reads one line (without its newline) of at most `limit` bytes; a longer one is read
/// up to the limit only.
async fn read_line(reader: &mut BufReader<ChildStdout>, limit: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(Line::Closed);
        }
        let (taken, ends) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (at, true),
            None => (buffer.len(), false),
        };
        if line.len() + taken > limit {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken + usize::from(ends));
        if ends {
            return Ok(Line::Text(line));
        }
    }
}

/// The reply a server's answer line gives to request `id`, or why it is none (and
/// whether the server is still in step: an answer to another id means it is not).
fn answer(text: &[u8], id: u64) -> Result<ToolReply, (String, bool)> {
    let shown = || tail(String::from_utf8_lossy(text).trim(), 200);
    let Ok(Value::Object(mut fields)) = serde_json::from_slice::<Value>(text) else {
        return Err((
            format!(
                "answered with a line that is not a JSON object {{\"id\", \"result\" or \"error\"}}: {}",
                shown()
            ),
            true,
        ));
    };
    if fields.get("id").and_then(Value::as_u64) != Some(id) {
        return Err((
            format!(
                "answered call {id} with another id and was stopped: {}",
                shown()
            ),
            false,
        ));
    }
    match (fields.remove("result"), fields.remove("error")) {
        (Some(value), None) => Ok(ToolReply::Result {
            value,
            is_error: false,
        }),
        (None, Some(Value::String(message))) => Ok(failure(message)),
        (None, Some(other)) => Ok(failure(other.to_string())),
        _ => Err((
            format!(
                "answered with neither `result` nor `error` (or both): {}",
                shown()
            ),
            true,
        )),
    }
}

fn stderr_tail(stderr: &Mutex<Tail>) -> String {
    let kept = stderr.lock().unwrap_or_else(|e| e.into_inner());
    tail(
        String::from_utf8_lossy(&kept.bytes).trim_end(),
        STDERR_SHOWN,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_matched_to_their_call() {
        assert_eq!(
            answer(br#"{"id": 3, "result": {"ok": true}}"#, 3).unwrap(),
            ToolReply::Result {
                value: json!({"ok": true}),
                is_error: false
            }
        );
        assert_eq!(
            answer(br#"{"id": 3, "error": "no such order"}"#, 3).unwrap(),
            failure("no such order".into())
        );
        let (why, in_step) = answer(br#"{"id": 2, "result": 1}"#, 3).unwrap_err();
        assert!(why.starts_with("answered call 3 with another id"), "{why}");
        assert!(!in_step);
        let (why, in_step) = answer(b"hello", 3).unwrap_err();
        assert!(why.ends_with(": hello"), "{why}");
        assert!(in_step);
    }
}
