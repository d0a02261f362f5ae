//! A user-simulator `command`: one process per attempt, started at the first `ask_user`,
//! asked one JSON line per turn, and stopped with everything it started when the attempt
//! ends (or when it fails: a conversation is not continued with a simulator that broke).
//!
//! It is a [`LineServer`], contained like a `server` backend (the run's isolation mode
//! and limits, the minimal environment, a private `HOME` and `TMPDIR`), except that its
//! working folder is a private, empty one and it sees neither the agent's sandbox nor the
//! tool state folder: the simulator has no business with them. Each reply is bounded in
//! size and time.

use crate::mcp::script::{Caller, with_stderr};
use crate::mcp::server_backend::{Answer, LINE_LIMIT, LineServer};
use proctor_core::tools::ScriptBackend;
use serde_json::Value;
use std::time::Duration;

/// A running simulator.
#[derive(Debug)]
pub struct Simulator {
    server: LineServer,
    timeout: Duration,
    line: String,
    /// Its working folder; removed when it ends.
    _folder: tempfile::TempDir,
}

impl Simulator {
    /// Starts `command` for `caller`'s attempt.
    pub fn start(command: &ScriptBackend, caller: &Caller<'_>) -> Result<Self, String> {
        let failed =
            |e: std::io::Error| format!("user simulator {:?} could not start: {e}", command.line);
        let folder = tempfile::Builder::new()
            .prefix("proctor-user-")
            .rand_bytes(12)
            .tempdir()
            .map_err(failed)?;
        let caller = Caller {
            sandbox: folder.path(),
            state: None,
            ..caller.clone()
        };
        Ok(Simulator {
            server: LineServer::start(command, &caller).map_err(failed)?,
            timeout: Duration::from_secs_f64(command.timeout_s.min(1e7)),
            line: command.line.clone(),
            _folder: folder,
        })
    }

    /// Sends `request` as one line and reads the reply line: `{"reply": TEXT}`, or
    /// `{"error": TEXT}` which fails the turn.
    pub async fn ask(&mut self, request: &Value) -> Result<String, String> {
        let asked = self.server.ask(request, self.timeout).await;
        let line = &self.line;
        let broke = |why: String| {
            with_stderr(
                format!("user simulator {line:?}{why}"),
                &self.server.stderr(),
            )
        };
        let answer = match asked {
            Ok(Answer::Line(answer)) => answer,
            Ok(Answer::TimedOut) => {
                return Err(broke(format!(
                    " gave no reply within {}s",
                    self.timeout.as_secs_f64()
                )));
            }
            Ok(Answer::Closed) => return Err(broke(": it exited before replying".to_owned())),
            Ok(Answer::TooLong) => {
                return Err(broke(format!(": its reply is over {LINE_LIMIT} bytes")));
            }
            Err(error) => return Err(broke(format!(": cannot be reached: {error}"))),
        };
        let value: Value = serde_json::from_slice(&answer)
            .map_err(|e| broke(format!(": the reply is not a JSON line: {e}")))?;
        match (value.get("reply"), value.get("error")) {
            (Some(Value::String(reply)), _) => Ok(reply.clone()),
            (_, Some(Value::String(error))) => Err(format!("user simulator {line:?}: {error}")),
            _ => Err(broke(format!(
                ": the reply has no `reply` text: {}",
                String::from_utf8_lossy(&answer)
            ))),
        }
    }

    /// Stops it and everything it started.
    pub async fn stop(self) {
        self.server.stop().await;
    }
}
