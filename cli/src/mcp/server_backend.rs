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
//!
//! [`LineServer`] is such a process without the tool protocol: a user simulator is one too.

use super::script::{Caller, failure, tail, with_stderr};
use super::service::ToolReply;
use crate::run::isolation::contained_command::{Call, Started};
use crate::run::process::{STDERR_LIMIT, STDOUT_LIMIT, Tail, keep_tail};
use proctor_core::tools::ScriptBackend;
use serde_json::Value;
use serde_json::value::RawValue;
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
type Slot = Arc<tokio::sync::Mutex<Option<LineServer>>>;

/// A contained process that answers each JSON line written to its stdin with one line
/// on its stdout, with its stderr read all along into a bounded tail.
#[derive(Debug)]
pub struct LineServer {
    started: Started,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Tail>>,
}

/// What came back for one request line.
#[derive(Debug)]
pub enum Answer {
    /// The line, without its newline.
    Line(Vec<u8>),
    /// A line over [`LINE_LIMIT`] (read up to the limit only).
    TooLong,
    /// Its stdout closed: it exited.
    Closed,
    /// No whole line within the time given.
    TimedOut,
}

impl LineServer {
    /// Starts `command` contained as `caller`'s attempt's commands are, with
    /// `caller.sandbox` as its working folder and `PROCTOR_TASK_ID` and `PROCTOR_ATTEMPT`
    /// set.
    pub fn start(command: &ScriptBackend, caller: &Caller<'_>) -> std::io::Result<LineServer> {
        let env = [
            ("PROCTOR_TASK_ID".to_owned(), caller.task_id.to_owned()),
            ("PROCTOR_ATTEMPT".to_owned(), caller.attempt.to_string()),
        ];
        let mut started = caller.commands.start(Call {
            argv: &command.argv,
            files: &command.files,
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
        Ok(LineServer {
            started,
            stdin,
            stdout,
            stderr,
        })
    }

    /// Writes `request` as one line and reads the answer line, within `timeout`.
    pub async fn ask(&mut self, request: &Value, timeout: Duration) -> std::io::Result<Answer> {
        self.ask_line(request.to_string(), timeout).await
    }

    /// As [`LineServer::ask`], with the request's JSON already written (without its newline).
    pub async fn ask_line(
        &mut self,
        request: String,
        timeout: Duration,
    ) -> std::io::Result<Answer> {
        let mut line = request.into_bytes();
        line.push(b'\n');
        let exchange = async {
            self.stdin.write_all(&line).await?;
            read_line(&mut self.stdout, LINE_LIMIT).await
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .unwrap_or(Ok(Answer::TimedOut))
    }

    /// The end of its stderr so far (up to 2 KiB), for an error.
    pub fn stderr(&self) -> String {
        let kept = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        tail(
            String::from_utf8_lossy(&kept.bytes).trim_end(),
            STDERR_SHOWN,
        )
    }

    /// Stops it and everything it started.
    pub async fn stop(self) {
        self.started.stop().await;
    }
}

/// The line a `server` backend reads for one call.
#[derive(serde::Serialize)]
struct ServerCall<'a> {
    id: u64,
    tool: &'a str,
    args: &'a RawValue,
    task_id: &'a str,
    attempt: u64,
}

impl ServerBackends {
    /// Answers one call through the server of `backend`, starting it if needed.
    pub async fn call(
        &self,
        backend: &ScriptBackend,
        tool: &str,
        args: &RawValue,
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
        let name = &backend.line;
        let server = match &mut *slot {
            Some(server) => server,
            None => match LineServer::start(backend, caller) {
                Ok(server) => slot.insert(server),
                Err(error) => return failure(format!("server {name:?} could not start: {error}")),
            },
        };
        let id = self.ids.fetch_add(1, Ordering::Relaxed) + 1;
        // Written field by field, so that the arguments go out as the agent wrote them.
        let request = serde_json::to_string(&ServerCall {
            id,
            tool,
            args,
            task_id: caller.task_id,
            attempt: caller.attempt,
        })
        .expect("a call is written");
        let timeout = Duration::from_secs_f64(backend.timeout_s.min(1e7));
        let (reply, in_step) = match server.ask_line(request, timeout).await {
            Err(error) => (
                format!("server {name:?} could not be reached: {error}"),
                false,
            ),
            Ok(Answer::TimedOut) => (
                format!(
                    "server {name:?} did not answer within {}s and was stopped",
                    backend.timeout_s
                ),
                false,
            ),
            Ok(Answer::Closed) => (format!("server {name:?} exited"), false),
            Ok(Answer::TooLong) => (
                format!(
                    "server {name:?} answered with a line over {LINE_LIMIT} bytes and was stopped"
                ),
                false,
            ),
            Ok(Answer::Line(text)) => match answer(&text, id) {
                Ok(reply) => return reply,
                Err((why, in_step)) => (format!("server {name:?} {why}"), in_step),
            },
        };
        let stderr = server.stderr();
        if !in_step && let Some(server) = slot.take() {
            server.stop().await;
        }
        failure(with_stderr(reply, &stderr))
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
            if let Some(server) = slot.lock().await.take() {
                server.stop().await;
            }
        }
    }
}

/// Reads one line (without its newline) of at most `limit` bytes; a longer one is read
/// up to the limit only.
async fn read_line(reader: &mut BufReader<ChildStdout>, limit: usize) -> std::io::Result<Answer> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(Answer::Closed);
        }
        let (taken, ends) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (at, true),
            None => (buffer.len(), false),
        };
        if line.len() + taken > limit {
            return Ok(Answer::TooLong);
        }
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken + usize::from(ends));
        if ends {
            return Ok(Answer::Line(line));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
