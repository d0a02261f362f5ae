//! Turning what an agent left behind into its outcome (DESIGN 4 step 3): the
//! `PROCTOR_OUTCOME` file if written, else the last stdout line that is a JSON
//! object, else (exit 0) the trimmed stdout as a final answer.

use super::outcome_file::{OutcomeFile, read_outcome_file};
use super::process::{AgentRun, Exit, Stopped};
use proctor_core::outcome::{AgentError, Outcome, Status};
use serde_json::Value;
use std::path::Path;

/// The outcome of one finished (not cancelled) run.
pub fn resolve(run: &AgentRun, outcome_file: &Path) -> Outcome {
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
    match reported {
        Some(Ok(outcome)) => outcome,
        Some(Err(())) => match file {
            OutcomeFile::Refused(why) => Outcome {
                status: Some(Status::Error),
                error: Some(AgentError {
                    kind: "invalid output".to_owned(),
                    message: why,
                }),
                ..Outcome::default()
            },
            _ => failure("invalid output", run),
        },
        None => match run.exit {
            Exit::Code(0) => match plain_answer(&run.stdout.bytes) {
                Some(answer) => Outcome {
                    status: Some(Status::Final),
                    answer: Some(answer),
                    ..Outcome::default()
                },
                None => failure("invalid output", run),
            },
            Exit::Code(code) => failure(&format!("exit status {code}"), run),
            Exit::Signal(signal) => failure(&format!("signal {signal}"), run),
        },
    }
}

/// `None`: the agent reported nothing structured. `Some(Err)`: it tried and failed.
fn reported_outcome(run: &AgentRun, file: &OutcomeFile) -> Option<Result<Outcome, ()>> {
    match file {
        OutcomeFile::Bytes(text) => return Some(parse_object(text)),
        OutcomeFile::Refused(_) => return Some(Err(())),
        OutcomeFile::Missing => {}
    }
    let text = std::str::from_utf8(&run.stdout.bytes).ok()?;
    let line = text.lines().rev().map(str::trim).find(|line| {
        line.starts_with('{') && serde_json::from_str::<Value>(line).is_ok_and(|v| v.is_object())
    })?;
    Some(parse_object(line.as_bytes()))
}

fn parse_object(bytes: &[u8]) -> Result<Outcome, ()> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => Outcome::from_json(&object).map_err(|_| ()),
        _ => Err(()),
    }
}

/// Plain stdout as an answer, if it is text.
fn plain_answer(stdout: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(stdout).ok()?;
    if text.contains('\0') {
        return None;
    }
    Some(text.trim().to_owned())
}

/// An outcome for a run that crashed or produced nothing usable; the reason becomes
/// `error: <kind>`. The message carries the last line of stderr, to say why.
fn failure(kind: &str, run: &AgentRun) -> Outcome {
    let stderr = String::from_utf8_lossy(&run.stderr.bytes);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Outcome {
        status: Some(Status::Error),
        error: Some(AgentError {
            kind: kind.to_owned(),
            message: last.chars().take(300).collect(),
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
    fn crashes_and_garbage() {
        let missing = Path::new("/nonexistent/outcome.json");
        let crashed = resolve(&run(Exit::Code(3), b"partial", None), missing);
        assert_eq!(kind(&crashed), Some("exit status 3"));
        assert_eq!(crashed.error.unwrap().message, "KeyError: 'x'");
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
