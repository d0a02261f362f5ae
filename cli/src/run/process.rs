//! Running one agent process: its own process group, bounded output capture, and a
//! timeout that takes down the whole group (SIGTERM, a grace period, then SIGKILL).
//!
//! After the agent exits, whatever is left of its group is killed too, so no
//! grandchild outlives its attempt.
//!
//! The containment helper (`isolation::entry`) makes that group itself, as a new
//! session; anything else gets a process group of its own here.

use super::grace::GRACE;
use super::isolation::disk::{DiskQuota, Over};
use super::isolation::{entry, fallback};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::watch;

/// stdout kept per attempt: enough for any outcome line, bounded against floods.
pub const STDOUT_LIMIT: usize = 1 << 20;
/// stderr kept per attempt.
pub const STDERR_LIMIT: usize = 64 << 10;
/// How long to wait for pipes to close once the group is gone.
const DRAIN: Duration = Duration::from_secs(2);

/// The last bytes of a stream and how many bytes it carried in all.
#[derive(Debug, Default, Clone)]
pub struct Tail {
    pub bytes: Vec<u8>,
    pub total: u64,
}

/// How the agent process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    TimedOut,
    /// The attempt's folders held more than `--max-disk` (this many bytes).
    OverDisk(Over),
    /// proctor itself was interrupted; the attempt must not be recorded.
    Cancelled,
}

#[derive(Debug)]
pub struct AgentRun {
    pub exit: Exit,
    pub stopped: Option<Stopped>,
    pub stdout: Tail,
    pub stderr: Tail,
    pub duration: Duration,
}

/// What to start and how.
#[derive(Debug)]
pub struct Launch<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    pub env: &'a [(String, String)],
    pub cwd: &'a Path,
    pub stdin_line: String,
    pub timeout: Duration,
    /// `--max-disk`: folders watched while the agent runs.
    pub disk: Option<&'a DiskQuota>,
    /// The program is bubblewrap (directly or through the helper): see [`terminate`].
    pub bubblewrap: bool,
}

/// A process started in its own group (or session), with its pipes, until it is stopped.
#[derive(Debug)]
pub struct Spawned {
    pub child: tokio::process::Child,
    group: Option<Pid>,
    helper: Option<Helper>,
    orphans: bool,
    bubblewrap: bool,
}

/// Starts `launch`'s program with piped stdin, stdout and stderr; its stdin line is not
/// written.
pub fn spawn(launch: &Launch<'_>) -> std::io::Result<Spawned> {
    let mut command = Command::new(launch.program);
    command
        .args(launch.args)
        .current_dir(launch.cwd)
        // Only what the attempt's environment names: nothing of proctor's own.
        .env_clear()
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if !entry::starts_own_session(launch.args) {
        command.process_group(0);
    }
    let orphans = entry::leaves_orphans(launch.args);
    if orphans {
        fallback::adopt_orphans();
    }
    // A helper is listed before any clean-up can look for adopted processes: one
    // attempt's clean-up must never take another's helper, just started, for an orphan.
    let listed = orphans.then(|| HELPERS.lock().unwrap_or_else(|e| e.into_inner()));
    let child = command.spawn()?;
    let group = child.id().map(|id| Pid::from_raw(id as i32));
    let helper = listed.map(|mut helpers| {
        let pid = group.map(Pid::as_raw);
        helpers.extend(pid);
        Helper(pid)
    });
    Ok(Spawned {
        child,
        group,
        helper,
        orphans,
        bubblewrap: launch.bubblewrap,
    })
}

impl Spawned {
    /// SIGTERM, the grace period, SIGKILL, then whatever is left of its group and, in
    /// the fallback, what a killed helper left behind.
    pub async fn stop(mut self) -> std::io::Result<std::process::ExitStatus> {
        let status = terminate(&mut self.child, self.group, self.bubblewrap).await;
        self.reap_group();
        status
    }

    fn reap_group(&mut self) {
        signal_group(self.group, Signal::SIGKILL);
        if self.orphans {
            // And what a killed helper left, adopted by proctor (of any attempt: a helper
            // still running keeps its own).
            drop(self.helper.take());
            Helper::kill_adopted();
        }
    }
}

/// Starts the agent and waits for it, the timeout, or cancellation.
pub async fn run(
    launch: Launch<'_>,
    mut cancel: watch::Receiver<bool>,
) -> std::io::Result<AgentRun> {
    let started = Instant::now();
    let mut spawned = spawn(&launch)?;
    let (child, group) = (&mut spawned.child, spawned.group);
    let stdin = child.stdin.take();
    let line = launch.stdin_line;
    let feeder = tokio::spawn(async move {
        if let Some(mut stdin) = stdin {
            // An agent that never reads stdin closes the pipe: not an error.
            let _ = stdin.write_all(line.as_bytes()).await;
            let _ = stdin.write_all(b"\n").await;
        }
    });
    let stdout_tail = Arc::new(Mutex::new(Tail::default()));
    let stderr_tail = Arc::new(Mutex::new(Tail::default()));
    let stdout = tokio::spawn(keep_tail(
        child.stdout.take(),
        STDOUT_LIMIT,
        stdout_tail.clone(),
    ));
    let stderr = tokio::spawn(keep_tail(
        child.stderr.take(),
        STDERR_LIMIT,
        stderr_tail.clone(),
    ));

    let mut stopped = None;
    let status = tokio::select! {
        status = child.wait() => status?,
        _ = tokio::time::sleep(launch.timeout) => {
            stopped = Some(Stopped::TimedOut);
            terminate(child, group, launch.bubblewrap).await?
        }
        _ = cancelled(&mut cancel) => {
            stopped = Some(Stopped::Cancelled);
            terminate(child, group, launch.bubblewrap).await?
        }
        Some(over) = over_disk(launch.disk) => {
            stopped = Some(Stopped::OverDisk(over));
            terminate(child, group, launch.bubblewrap).await?
        }
    };
    // Whatever the agent left running in its group goes too.
    spawned.reap_group();
    if let (None, Some(quota)) = (stopped, launch.disk)
        && let Some(over) = quota.over().await
    {
        stopped = Some(Stopped::OverDisk(over));
    }
    feeder.abort();
    // One deadline for both streams: an escaped process holding both costs DRAIN once.
    let deadline = tokio::time::Instant::now() + DRAIN;
    let stdout = drain(stdout, &stdout_tail, STDOUT_LIMIT, deadline).await;
    let stderr = drain(stderr, &stderr_tail, STDERR_LIMIT, deadline).await;
    let exit = match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        (None, None) => Exit::Code(-1),
    };
    Ok(AgentRun {
        exit,
        stopped,
        stdout,
        stderr,
        duration: started.elapsed(),
    })
}

/// The fallback helpers running without a PID namespace: proctor's children in a
/// session of their own that are not adopted orphans.
static HELPERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// A running helper's entry in `HELPERS`, removed when dropped.
#[derive(Debug)]
struct Helper(Option<i32>);

/// After a run: kills whatever proctor adopted and still holds (in the fallback without a
/// PID namespace, what an agent left when an interrupted run stopped waiting for its
/// helper, which was killed as it was dropped), so that nothing outlives proctor.
pub fn kill_what_is_left() {
    Helper::kill_adopted();
}

impl Helper {
    /// Kills what proctor adopted, with the list of helpers held, so that no helper
    /// starts unlisted meanwhile.
    fn kill_adopted() {
        let helpers = HELPERS.lock().unwrap_or_else(|e| e.into_inner());
        fallback::kill_adopted(&helpers);
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let mut helpers = HELPERS.lock().unwrap_or_else(|e| e.into_inner());
        helpers.retain(|pid| Some(*pid) != self.0);
    }
}

/// Resolves when the cancel flag turns true (never, if the sender is gone).
pub async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    if cancel.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Resolves with why once the watched folders hold more than the limit; `None` at once
/// without a quota (that branch of the select is then disabled).
async fn over_disk(quota: Option<&DiskQuota>) -> Option<Over> {
    Some(quota?.exceeded().await)
}

/// SIGTERM to the group, a grace period, then SIGKILL. Under bubblewrap the agent is in
/// a session of its own inside the namespace and a SIGTERM would end bubblewrap, and with
/// it the namespace, at once: the SIGTERM goes to every process below bubblewrap instead
/// (the namespace's init ignores it), so the agent gets its grace period there too.
async fn terminate(
    child: &mut tokio::process::Child,
    group: Option<Pid>,
    bubblewrap: bool,
) -> std::io::Result<std::process::ExitStatus> {
    match (bubblewrap, group) {
        (true, Some(bwrap)) => {
            for pid in fallback::descendants(bwrap.as_raw()) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
            }
        }
        _ => signal_group(group, Signal::SIGTERM),
    }
    match tokio::time::timeout(GRACE, child.wait()).await {
        Ok(status) => status,
        Err(_) => {
            signal_group(group, Signal::SIGKILL);
            child.wait().await
        }
    }
}

fn signal_group(group: Option<Pid>, signal: Signal) {
    if let Some(group) = group {
        // ESRCH: the group is already gone, which is the point.
        let _ = killpg(group, signal);
        // The leader too, in case its group is not made yet (the helper's setsid()).
        let _ = kill(group, signal);
    }
}

/// Waits until `deadline` at most for a stream to close, then keeps what was read:
/// a process that escaped the group and still holds the pipe neither blocks the
/// attempt nor erases the output the agent printed.
async fn drain(
    mut task: tokio::task::JoinHandle<()>,
    tail: &Mutex<Tail>,
    limit: usize,
    deadline: tokio::time::Instant,
) -> Tail {
    if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
        task.abort();
    }
    let mut tail = std::mem::take(&mut *tail.lock().unwrap_or_else(|e| e.into_inner()));
    let excess = tail.bytes.len().saturating_sub(limit);
    tail.bytes.drain(..excess);
    tail
}

/// Reads a stream to its end into `tail`, keeping only about the last `limit` bytes.
pub async fn keep_tail(
    stream: Option<impl AsyncRead + Unpin>,
    limit: usize,
    tail: Arc<Mutex<Tail>>,
) {
    let Some(mut stream) = stream else {
        return;
    };
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut kept = tail.lock().unwrap_or_else(|e| e.into_inner());
                kept.total += n as u64;
                kept.bytes.extend_from_slice(&chunk[..n]);
                if kept.bytes.len() > 2 * limit {
                    let excess = kept.bytes.len() - limit;
                    kept.bytes.drain(..excess);
                }
            }
        }
    }
}
