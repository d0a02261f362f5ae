//! The `command` check: runs a command line in the directory, in its own process group,
//! with a timeout, and compares its exit code.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use super::text::last_line;

/// How much of the end of stderr is kept (the rest is read and dropped).
const STDERR_BYTES: usize = 64 * 1024;
/// Longest stderr line shown in a failure text (characters, before `…`).
const STDERR_LINE_CHARS: usize = 120;
/// Longest timeout honoured (about 115 days), so that a huge `timeout_s` cannot overflow.
const MAX_TIMEOUT_S: f64 = 1e7;
/// How long to wait for stderr to close once the command's process group is gone (a
/// process that left the group may hold it open).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Splits a command line like a shell would (quotes, backslashes; no expansion).
pub(crate) fn split(run: &str) -> Result<Vec<String>, String> {
    let argv = shell_words::split(run).map_err(|e| e.to_string())?;
    if argv.is_empty() {
        return Err("empty command line".to_owned());
    }
    Ok(argv)
}

/// Runs `run` in `dir` and checks that it exits with `exit_code` within `timeout_s`.
///
/// Failure texts: `command "LINE": exit code N, expected M (stderr: LAST LINE)`,
/// `command "LINE": killed by signal N, expected exit code M (stderr: ...)`,
/// `command "LINE": timed out after Ss`, `command "LINE": could not start: ERROR`.
pub(crate) fn check(dir: &Path, run: &str, exit_code: i32, timeout_s: f64) -> Result<(), String> {
    let argv = split(run).map_err(|e| format!("command {run:?}: invalid command line: {e}"))?;
    let timeout = Duration::from_secs_f64(if timeout_s > 0.0 {
        timeout_s.min(MAX_TIMEOUT_S)
    } else {
        0.0
    });
    let finished = execute(dir, &argv, timeout)
        .map_err(|e| format!("command {run:?}: could not start: {e}"))?;
    let (status, stderr) = match finished {
        Finished::TimedOut => return Err(format!("command {run:?}: timed out after {timeout_s}s")),
        Finished::Exited { status, stderr } => (status, stderr),
    };
    let mut text = match (status.code(), status.signal()) {
        (Some(code), _) if code == exit_code => return Ok(()),
        (Some(code), _) => format!("command {run:?}: exit code {code}, expected {exit_code}"),
        (None, Some(signal)) => {
            format!("command {run:?}: killed by signal {signal}, expected exit code {exit_code}")
        }
        (None, None) => format!("command {run:?}: {status}, expected exit code {exit_code}"),
    };
    if let Some(line) = last_line(&String::from_utf8_lossy(&stderr), STDERR_LINE_CHARS) {
        text.push_str(&format!(" (stderr: {line})"));
    }
    Err(text)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn passes_on_the_expected_exit_code() {
        let dir = sandbox();
        std::fs::write(dir.path().join("answer.txt"), "42\n").unwrap();
        assert_eq!(check(dir.path(), "grep -q 42 answer.txt", 0, 30.0), Ok(()));
        assert_eq!(check(dir.path(), "sh -c 'exit 3'", 3, 30.0), Ok(()));
    }

    #[test]
    fn runs_in_the_directory() {
        let dir = sandbox();
        std::fs::write(dir.path().join("check.sh"), "test -f marker\n").unwrap();
        assert_eq!(
            check(dir.path(), "sh check.sh", 0, 30.0),
            Err("command \"sh check.sh\": exit code 1, expected 0".to_owned())
        );
        std::fs::write(dir.path().join("marker"), "").unwrap();
        assert_eq!(check(dir.path(), "sh check.sh", 0, 30.0), Ok(()));
    }

    #[test]
    fn fails_with_the_last_stderr_line() {
        let dir = sandbox();
        let run = "sh -c 'echo first >&2; echo \"assert 7 == 8\" >&2; echo out; exit 1'";
        assert_eq!(
            check(dir.path(), run, 0, 30.0),
            Err(format!(
                "command {run:?}: exit code 1, expected 0 (stderr: assert 7 == 8)"
            ))
        );
    }

    #[test]
    fn long_stderr_keeps_its_end_and_cuts_the_line() {
        let dir = sandbox();
        // 200 KiB of noise, then a 200-char last line.
        let run = "sh -c 'head -c 204800 /dev/zero | tr \"\\0\" x >&2; echo >&2; \
                   printf \"%0200d\\n\" 0 >&2; exit 2'";
        assert_eq!(
            check(dir.path(), run, 0, 30.0),
            Err(format!(
                "command {run:?}: exit code 2, expected 0 (stderr: {}…)",
                "0".repeat(120)
            ))
        );
    }

    #[test]
    fn wrong_zero_exit_has_no_stderr_suffix() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "true", 1, 30.0),
            Err("command \"true\": exit code 0, expected 1".to_owned())
        );
    }

    #[test]
    fn reports_a_signal() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "sh -c 'kill -9 $$'", 0, 30.0),
            Err(
                "command \"sh -c 'kill -9 $$'\": killed by signal 9, expected exit code 0"
                    .to_owned()
            )
        );
    }

    #[test]
    fn times_out() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "sleep 5", 0, 0.5),
            Err("command \"sleep 5\": timed out after 0.5s".to_owned())
        );
    }

    #[test]
    fn could_not_start() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "definitely-not-a-program-xyz --flag", 0, 30.0),
            Err(
                "command \"definitely-not-a-program-xyz --flag\": could not start: \
                 No such file or directory (os error 2)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn bad_command_lines() {
        let dir = sandbox();
        assert_eq!(
            split("a 'b c' d\\ e"),
            Ok(vec!["a".into(), "b c".into(), "d e".into()])
        );
        assert!(split("echo 'unclosed").is_err());
        assert_eq!(split("  "), Err("empty command line".to_owned()));
        assert_eq!(
            check(dir.path(), "", 0, 30.0),
            Err("command \"\": invalid command line: empty command line".to_owned())
        );
    }

    /// State letter of a process from /proc, `None` once it is gone.
    fn proc_state(pid: &str) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(") ").next()?.chars().next()
    }

    /// Waits (generously) until `pid` is gone or a zombie; a live process fails the test.
    fn assert_dies(pid: &str) {
        for _ in 0..200 {
            match proc_state(pid) {
                None | Some('Z' | 'X') => return,
                Some(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        panic!("process {pid} survived: {:?}", proc_state(pid));
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = sandbox();
        let run = "sh -c 'sleep 60 & echo $! > bg.pid; wait'";
        assert_eq!(
            check(dir.path(), run, 0, 0.5),
            Err(format!("command {run:?}: timed out after 0.5s"))
        );
        let pid = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap();
        assert_dies(pid.trim());
    }

    #[test]
    fn background_processes_do_not_outlive_the_check() {
        let dir = sandbox();
        // The background sleep keeps stderr open: without the group kill the check would
        // wait for it, and it would survive.
        let run = "sh -c 'sleep 60 & echo $! > bg.pid; exit 0'";
        assert_eq!(check(dir.path(), run, 0, 30.0), Ok(()));
        let pid = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap();
        assert_dies(pid.trim());
    }
}
