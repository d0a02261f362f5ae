//! The plain [`CommandRunner`] of core's own tests: the command in the directory, in a
//! process group of its own, unconfined. proctor never uses it: it passes one that
//! contains the command like the agent.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use super::{CheckCommand, CommandEnd, CommandRunner};

/// How much of the end of stderr is kept (the rest is read and dropped).
const STDERR_BYTES: usize = 64 * 1024;
/// How long to wait for stderr to close once the command's process group is gone (a
/// process that left the group may hold it open).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Runs the command as it is, in a process group killed afterwards.
#[derive(Debug)]
pub(crate) struct PlainCommands;

impl CommandRunner for PlainCommands {
    fn run(&self, command: &CheckCommand<'_>) -> std::io::Result<CommandEnd> {
        Ok(match execute(command.dir, command.argv, command.timeout)? {
            Finished::TimedOut => CommandEnd::TimedOut,
            Finished::Exited { status, stderr } => match (status.code(), status.signal()) {
                (Some(code), _) => CommandEnd::Exited { code, stderr },
                (None, Some(signal)) => CommandEnd::Killed { signal, stderr },
                (None, None) => CommandEnd::Exited { code: -1, stderr },
            },
        })
    }
}

/// How a command ended.
#[derive(Debug)]
enum Finished {
    /// It exited (or was killed by a signal) before the timeout; the end of its stderr.
    Exited { status: ExitStatus, stderr: Vec<u8> },
    /// It was still running at the timeout; its process group was killed.
    TimedOut,
}

/// Spawns `argv` in `dir` (stdin empty, stdout dropped, stderr captured) in a new process
/// group and waits up to `timeout`. Whatever happens, the group is killed afterwards and the
/// child is reaped, so neither a stray process nor a zombie remains.
fn execute(dir: &Path, argv: &[String], timeout: Duration) -> std::io::Result<Finished> {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let stderr = child.stderr.take().map(TailCapture::start);
    let waited = child.wait_timeout(timeout);
    // The group id is the child's pid (process_group(0)). Kill the group before reaping the
    // child when it is still running, so the id cannot have been reused.
    kill_group(&child);
    let finished = match waited {
        Ok(Some(status)) => Ok(Some(status)),
        Ok(None) => {
            // Fallback in case `kill` could not run; then reap.
            let _ = child.kill();
            child.wait().map(|_| None)
        }
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(e)
        }
    };
    let stderr = stderr.map(TailCapture::finish).unwrap_or_default();
    Ok(match finished? {
        Some(status) => Finished::Exited { status, stderr },
        None => Finished::TimedOut,
    })
}

/// Sends SIGKILL to the child's whole process group (through `kill(1)`: no libc and no
/// unsafe code here). Errors are ignored: the group may already be empty.
fn kill_group(child: &Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Reads a stream to its end on a thread, keeping only its last [`STDERR_BYTES`] bytes.
#[derive(Debug)]
struct TailCapture {
    kept: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl TailCapture {
    fn start(mut reader: impl Read + Send + 'static) -> TailCapture {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let (done_tx, done) = mpsc::channel::<()>();
        let shared = Arc::clone(&kept);
        std::thread::spawn(move || {
            let _done = done_tx; // dropped, and so signalled, when the stream ends
            let mut chunk = [0_u8; 8192];
            loop {
                match reader.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut kept = shared.lock().unwrap_or_else(PoisonError::into_inner);
                        kept.extend_from_slice(&chunk[..n]);
                        if kept.len() > 2 * STDERR_BYTES {
                            let cut = kept.len() - STDERR_BYTES;
                            kept.drain(..cut);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        TailCapture { kept, done }
    }

    /// What was kept, once the stream ended or [`DRAIN_GRACE`] passed.
    fn finish(self) -> Vec<u8> {
        let deadline = Instant::now() + DRAIN_GRACE;
        let _ = self
            .done
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept[kept.len().saturating_sub(STDERR_BYTES)..].to_vec()
    }
}
