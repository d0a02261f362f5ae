//! Turning what an agent left behind into its outcome (docs/agent-protocol.md, "How the agent reports"): the
//! `PROCTOR_OUTCOME` file if written, else the last complete top-level JSON object in
//! stdout, else (exit 0) the trimmed stdout as a final answer.

use super::isolation::MemoryUse;
use super::isolation::disk::{MAX_ENTRIES, Over};
use super::outcome_file::{OutcomeFile, read_outcome_file};
use super::process::{AgentRun, Exit, Stopped};
use super::stdout_outcome::{Printed, read_stdout};
use proctor_core::agent_file::human_size;
use proctor_core::outcome::{AgentError, Outcome, Status};
use serde_json::Value;
use std::path::Path;

/// Most stderr kept as the detail of a crash.
const STDERR_DETAIL_LIMIT: usize = 2 << 10;

/// The outcome of one finished (not cancelled) run; `memory` is what its `--max-memory`
/// limit saw, if it had one.
pub fn resolve(run: &AgentRun, outcome_file: &Path, memory: Option<MemoryUse>) -> Outcome {
    let file = read_outcome_file(outcome_file);
    let reported = reported_outcome(run, &file);
    if run.stopped == Some(Stopped::TimedOut) {
        // Whatever it reported so far, the attempt ran out of time.
        let mut outcome = match reported {
            Some(Ok(outcome)) => outcome,
            _ => Outcome::default(),
        };
        outcome.status = Some(Status::Timeout);
        outcome.error = None;
        return outcome;
    }
    if let Some(Stopped::OverDisk(over)) = run.stopped {
        // Stopped from outside: whatever it reported is cut short.
        let detail = match over {
            Over::Bytes(limit) => format!(
                "the attempt wrote more than the --max-disk limit of {}",
                human_size(limit)
            ),
            Over::Entries => format!(
                "the attempt made more than {MAX_ENTRIES} files and folders, more than --max-disk measures"
            ),
        };
        return failure("disk limit", detail);
    }
    if let Some(MemoryUse {
        limit,
        killed: Some(true),
    }) = memory
        && run.exit != Exit::Code(0)
        && !matches!(reported, Some(Ok(_)))
    {
        // The kernel killed a process of the attempt at the limit, and the agent failed
        // without an outcome: that is why, whatever its exit says.
        return failure(
            "memory limit",
            format!(
                "killed by the kernel at the --max-memory limit of {}",
                human_size(limit)
            ),
        );
    }
    match reported {
        Some(Ok(outcome)) => outcome,
        Some(Err(detail)) => failure("invalid output", detail),
        None => match run.exit {
            Exit::Code(0) => match read_stdout(&run.stdout.bytes) {
                Printed::Plain(answer) => Outcome {
                    status: Some(Status::Final),
                    answer: Some(answer),
                    ..Outcome::default()
                },
                Printed::Invalid(detail) => failure("invalid output", detail),
                Printed::Object(_) => unreachable!("an object is a reported outcome"),
            },
            Exit::Code(code) => failure(&format!("exit status {code}"), stderr_tail(run)),
            // Only `--max-disk` sets RLIMIT_FSIZE for agents.
            Exit::Signal(signal) if signal == nix::sys::signal::Signal::SIGXFSZ as i32 => failure(
                "disk limit",
                "a file reached the --max-disk limit (signal SIGXFSZ)".to_owned(),
            ),
            Exit::Signal(signal) => failure(
                &format!("signal {signal}"),
                with_memory_hint(stderr_tail(run), signal, memory),
            ),
        },
    }
}

/// A crash's detail, with a word on the memory limit when the signal is one that running
/// out of memory sends and nothing could count whether it did (resource limits).
fn with_memory_hint(detail: String, signal: i32, memory: Option<MemoryUse>) -> String {
    use nix::sys::signal::Signal;
    let Some(MemoryUse {
        limit,
        killed: None,
    }) = memory
    else {
        return detail;
    };
    let memory_signals = [
        Signal::SIGKILL,
        Signal::SIGSEGV,
        Signal::SIGABRT,
        Signal::SIGBUS,
    ];
    if !memory_signals.iter().any(|s| *s as i32 == signal) {
        return detail;
    }
    let hint = format!(
        "the --max-memory limit of {} may have been hit (resource limits cannot tell)",
        human_size(limit)
    );
    match detail.is_empty() {
        true => hint,
        false => format!("{detail}\n{hint}"),
    }
}

/// `None`: the agent reported nothing structured. `Some(Err)`: it tried and failed, and
/// the text says how.
fn reported_outcome(run: &AgentRun, file: &OutcomeFile) -> Option<Result<Outcome, String>> {
    match file {
        OutcomeFile::Bytes(text) => {
            return Some(parse_object(text).map_err(|e| format!("the outcome file: {e}")));
        }
        OutcomeFile::Refused(why) => return Some(Err(why.clone())),
        OutcomeFile::Missing => {}
    }
    match read_stdout(&run.stdout.bytes) {
        Printed::Object(object) => Some(Outcome::from_json(&object).map_err(|e| e.to_string())),
        // With a non-zero exit, text that is no outcome is a crash, not an invalid output.
        Printed::Invalid(detail) if run.exit == Exit::Code(0) => Some(Err(detail)),
        Printed::Invalid(_) | Printed::Plain(_) => None,
    }
}

fn parse_object(bytes: &[u8]) -> Result<Outcome, String> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => Outcome::from_json(&object).map_err(|e| e.to_string()),
        Ok(other) => Err(format!(
            "not a JSON object but {}",
            proctor_core::outcome::kind_of(&other)
        )),
        Err(error) => Err(error.to_string()),
    }
}

/// The last lines of stderr, at most [`STDERR_DETAIL_LIMIT`] bytes, to say why a run
/// crashed.
fn stderr_tail(run: &AgentRun) -> String {
    let stderr = String::from_utf8_lossy(&run.stderr.bytes);
    let trimmed = stderr.trim_end();
    let mut start = trimmed.len().saturating_sub(STDERR_DETAIL_LIMIT);
    while !trimmed.is_char_boundary(start) {
        start += 1;
    }
    let tail = &trimmed[start..];
    // Whole lines only, unless the last line alone is over the limit.
    match (start > 0, tail.find('\n')) {
        (true, Some(at)) if at + 1 < tail.len() => tail[at + 1..].to_owned(),
        _ => tail.trim_start().to_owned(),
    }
}

/// An outcome for a run that crashed or produced nothing usable; the reason becomes
/// `error: <kind>` and `message` says why.
fn failure(kind: &str, message: String) -> Outcome {
    Outcome {
        status: Some(Status::Error),
        error: Some(AgentError {
            kind: kind.to_owned(),
            message,
        }),
        ..Outcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::process::Tail;
    use std::time::Duration;

    fn run(exit: Exit, stdout: &[u8], stopped: Option<Stopped>) -> AgentRun {
        AgentRun {
            exit,
            stopped,
            stdout: Tail {
                bytes: stdout.to_vec(),
                total: stdout.len() as u64,
            },
            stderr: Tail {
                bytes: b"Traceback\nKeyError: 'x'\n".to_vec(),
                total: 24,
            },
            duration: Duration::ZERO,
        }
    }

    fn resolve(run: &AgentRun, outcome_file: &Path) -> Outcome {
        super::resolve(run, outcome_file, None)
    }

    fn kind(outcome: &Outcome) -> Option<&str> {
        outcome.error.as_ref().map(|e| e.kind.as_str())
    }

    #[test]
    fn outcome_file_wins_over_stdout() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("outcome.json");
        std::fs::write(&file, r#"{"status": "final", "answer": "from file"}"#).unwrap();
        let o = resolve(
            &run(
                Exit::Code(0),
                b"{\"status\": \"final\", \"answer\": \"stdout\"}\n",
                None,
            ),
            &file,
        );
        assert_eq!(o.answer.as_deref(), Some("from file"));
    }

    #[test]
    fn last_json_object_line_then_plain_text() {
        let missing = Path::new("/nonexistent/outcome.json");
        let text = b"thinking...\n{\"status\": \"final\", \"answer\": \"1\"}\n{\"status\": \"final\", \"answer\": \"2\"}\nbye\n";
        assert_eq!(
            resolve(&run(Exit::Code(0), text, None), missing)
                .answer
                .as_deref(),
            Some("2")
        );
        let plain = resolve(&run(Exit::Code(0), b"  42 \n", None), missing);
        assert_eq!(
            (plain.status, plain.answer.as_deref()),
            (Some(Status::Final), Some("42"))
        );
        let arrays = resolve(&run(Exit::Code(0), b"[1, 2]\n", None), missing);
        assert_eq!(arrays.answer.as_deref(), Some("[1, 2]"));
    }

    #[test]
    fn a_pretty_printed_outcome_keeps_its_trajectory() {
        let missing = Path::new("/nonexistent/outcome.json");
        let text = b"{\n  \"status\": \"final\",\n  \"answer\": \"done\",\n  \"trajectory\": [\n    {\"tool\": \"delete_file\", \"args\": {}}\n  ]\n}\n";
        let o = resolve(&run(Exit::Code(0), text, None), missing);
        assert_eq!(o.answer.as_deref(), Some("done"));
        assert_eq!(o.used_tools(), ["delete_file"]);
    }

    #[test]
    fn invalid_output_says_what_is_wrong() {
        let missing = Path::new("/nonexistent/outcome.json");
        let cut = resolve(
            &run(Exit::Code(0), b"{\"status\": \"final\",\n", None),
            missing,
        );
        assert_eq!(kind(&cut), Some("invalid output"));
        assert!(cut.error.unwrap().message.contains("EOF while parsing"));
        let bad_status = resolve(
            &run(Exit::Code(0), b"{\"status\": \"finished\"}\n", None),
            missing,
        );
        let message = bad_status.error.unwrap().message;
        assert!(
            message.contains("status") && message.contains("finished"),
            "{message}"
        );
    }

    #[test]
    fn a_crash_keeps_the_last_two_kib_of_stderr_in_whole_lines() {
        let missing = Path::new("/nonexistent/outcome.json");
        let mut agent = run(Exit::Code(2), b"", None);
        let lines: Vec<String> = (0..200)
            .map(|i| format!("line {i:03} of the traceback"))
            .collect();
        agent.stderr.bytes = lines.join("\n").into_bytes();
        let message = resolve(&agent, missing).error.unwrap().message;
        assert!(message.len() <= STDERR_DETAIL_LIMIT, "{}", message.len());
        assert!(message.starts_with("line ") && message.ends_with("line 199 of the traceback"));
    }

    #[test]
    fn crashes_and_garbage() {
        let missing = Path::new("/nonexistent/outcome.json");
        let crashed = resolve(&run(Exit::Code(3), b"partial", None), missing);
        assert_eq!(kind(&crashed), Some("exit status 3"));
        assert_eq!(crashed.error.unwrap().message, "Traceback\nKeyError: 'x'");
        assert_eq!(
            kind(&resolve(&run(Exit::Signal(9), b"", None), missing)),
            Some("signal 9")
        );
        let garbage = resolve(
            &run(Exit::Code(0), b"\xff\xfe\0{\"status\": \"fin", None),
            missing,
        );
        assert_eq!(kind(&garbage), Some("invalid output"));
        let bad_status = resolve(
            &run(Exit::Code(0), b"{\"status\": \"finished\"}\n", None),
            missing,
        );
        assert_eq!(kind(&bad_status), Some("invalid output"));
    }

    #[test]
    fn reported_outcome_stands_despite_exit_code() {
        let missing = Path::new("/nonexistent/outcome.json");
        let o = resolve(
            &run(
                Exit::Code(1),
                b"{\"status\": \"error\", \"error\": {\"type\": \"FileNotFoundError\"}}\n",
                None,
            ),
            missing,
        );
        assert_eq!(kind(&o), Some("FileNotFoundError"));
    }

    #[test]
    fn a_kill_at_the_memory_limit_is_named() {
        let missing = Path::new("/nonexistent/outcome.json");
        let killed = |exit, killed| {
            let memory = Some(MemoryUse {
                limit: 64 << 20,
                killed,
            });
            super::resolve(&run(exit, b"", None), missing, memory)
        };
        // Counted by a cgroup: the agent itself, or bwrap's exit code for it.
        for exit in [Exit::Signal(9), Exit::Code(137)] {
            let o = killed(exit, Some(true));
            assert_eq!(kind(&o), Some("memory limit"));
            assert_eq!(
                o.error.unwrap().message,
                "killed by the kernel at the --max-memory limit of 64 MiB"
            );
        }
        // Counted, and not the limit.
        assert_eq!(
            kind(&killed(Exit::Signal(9), Some(false))),
            Some("signal 9")
        );
        // Not counted: said as a possibility.
        let o = killed(Exit::Signal(9), None);
        assert_eq!(kind(&o), Some("signal 9"));
        let message = o.error.unwrap().message;
        assert!(
            message.ends_with(
                "the --max-memory limit of 64 MiB may have been hit (resource limits cannot tell)"
            ),
            "{message}"
        );
        assert!(
            !killed(Exit::Signal(15), None)
                .error
                .unwrap()
                .message
                .contains("memory")
        );
    }

    #[test]
    fn timeout_overrides_status() {
        let missing = Path::new("/nonexistent/outcome.json");
        let o = resolve(
            &run(
                Exit::Signal(15),
                b"{\"status\": \"final\", \"answer\": \"x\"}\n",
                Some(Stopped::TimedOut),
            ),
            missing,
        );
        assert_eq!(
            (o.status, o.answer.as_deref()),
            (Some(Status::Timeout), Some("x"))
        );
        let o = resolve(&run(Exit::Signal(9), b"", Some(Stopped::TimedOut)), missing);
        assert_eq!((o.status, o.error), (Some(Status::Timeout), None));
    }
}
