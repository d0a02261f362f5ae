//! A user-simulator `command`: one process per attempt, started at the first `ask_user`,
//! asked one JSON line per turn, and killed with everything it started when the attempt
//! ends (or when it fails: a conversation is not continued with a simulator that broke).
//!
//! It runs as a plain process in a group of its own, with the minimal environment, a
//! private, empty `HOME` and `TMPDIR` that are also its working folder: the simulator has
//! no business with the agent's sandbox. Each reply is bounded in size and time.

use crate::run::environment::{AgentEnvironment, PassEnv};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use proctor_core::tools::ScriptBackend;
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The longest reply line read from a simulator.
pub const MAX_REPLY_BYTES: usize = 1 << 20;

/// A running simulator.
#[derive(Debug)]
pub struct Simulator {
    child: Child,
    group: Option<Pid>,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    timeout: Duration,
    line: String,
    /// Its private folder: working folder, `HOME` and `TMPDIR`; removed when it ends.
    _private: tempfile::TempDir,
}

impl Simulator {
    /// Starts `command` for task `task_id`'s attempt `attempt`.
    pub fn start(command: &ScriptBackend, task_id: &str, attempt: u64) -> Result<Self, String> {
        let failed =
            |e: std::io::Error| format!("user simulator {:?} could not start: {e}", command.line);
        let private = tempfile::Builder::new()
            .prefix("proctor-user-")
            .rand_bytes(12)
            .tempdir()
            .map_err(failed)?;
        let folder = private.path().to_string_lossy().into_owned();
        let mut environment = AgentEnvironment::from_host(std::env::vars_os(), &PassEnv::default());
        environment.set("HOME", folder.clone());
        environment.set("TMPDIR", folder);
        environment.set("PROCTOR_TASK_ID", task_id);
        environment.set("PROCTOR_ATTEMPT", attempt.to_string());
        let (program, args) = command
            .argv
            .split_first()
            .ok_or_else(|| "user simulator: empty command line".to_owned())?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(private.path())
            .env_clear()
            .envs(
                environment
                    .vars()
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str())),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(failed)?;
        let group = child.id().map(|id| Pid::from_raw(id as i32));
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("user simulator: no pipes to it".to_owned());
        };
        Ok(Simulator {
            child,
            group,
            stdin,
            stdout: BufReader::new(stdout),
            timeout: Duration::from_secs_f64(command.timeout_s.min(1e7)),
            line: command.line.clone(),
            _private: private,
        })
    }

    /// Sends `request` as one line and reads the reply line: `{"reply": TEXT}`, or
    /// `{"error": TEXT}` which fails the turn.
    pub async fn ask(&mut self, request: &Value) -> Result<String, String> {
        let line = &self.line;
        let exchange = async {
            let mut bytes = request.to_string().into_bytes();
            bytes.push(b'\n');
            self.stdin
                .write_all(&bytes)
                .await
                .map_err(|e| format!("user simulator {line:?}: cannot write to it: {e}"))?;
            self.stdin.flush().await.ok();
            read_line(&mut self.stdout)
                .await
                .map_err(|e| format!("user simulator {line:?}: {e}"))
        };
        let answer = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| {
                format!(
                    "user simulator {line:?} gave no reply within {}s",
                    self.timeout.as_secs_f64()
                )
            })??;
        let value: Value = serde_json::from_slice(&answer)
            .map_err(|e| format!("user simulator {line:?}: the reply is not a JSON line: {e}"))?;
        match (value.get("reply"), value.get("error")) {
            (Some(Value::String(reply)), _) => Ok(reply.clone()),
            (_, Some(Value::String(error))) => Err(format!("user simulator {line:?}: {error}")),
            _ => Err(format!(
                "user simulator {line:?}: the reply has no `reply` text: {}",
                String::from_utf8_lossy(&answer)
            )),
        }
    }
}

impl Drop for Simulator {
    /// Nothing the simulator started outlives the attempt.
    fn drop(&mut self) {
        if let Some(group) = self.group {
            // ESRCH: the group is already gone, which is the point.
            let _ = killpg(group, Signal::SIGKILL);
        }
        let _ = self.child.start_kill();
    }
}

/// One line, without its newline, at most [`MAX_REPLY_BYTES`].
async fn read_line(reader: &mut BufReader<ChildStdout>) -> Result<Vec<u8>, String> {
    let mut line = Vec::new();
    loop {
        let available = reader
            .fill_buf()
            .await
            .map_err(|e| format!("cannot read its reply: {e}"))?;
        if available.is_empty() {
            return Err("it exited before replying".to_owned());
        }
        let (taken, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        if line.len() > MAX_REPLY_BYTES + 1 {
            return Err(format!("its reply is over {MAX_REPLY_BYTES} bytes"));
        }
        if done {
            line.pop();
            return Ok(line);
        }
    }
}
