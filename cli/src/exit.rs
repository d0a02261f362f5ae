//! Exit codes (docs/exit-codes.md), decided in this one place.
//!
//! Commands return `anyhow::Error`. [`exit_code`] walks the error's chain and takes the
//! class of the first thing it recognises: a [`Failure`] tag anywhere in the chain wins;
//! else a typed error of the libraries (a task file that does not load, a price file, a
//! judge that cannot be reached, ...) gives its own class; else an I/O error is an
//! infrastructure failure. An error with no class at all is a bug in proctor: it exits 3
//! as an internal error, never 2, so that it is reported rather than blamed on the user.

use std::error::Error as StdError;
use std::fmt;
use std::process::ExitCode;

/// 0: it ran and every gate held.
pub const SUCCESS: u8 = 0;
/// 1: a gate failed; a result, not a crash.
pub const GATE_FAILED: u8 = 1;
/// 2: bad usage or bad input.
pub const BAD_INPUT: u8 = 2;
/// 3: infrastructure failure (judge unreachable, cassette miss, disk errors).
pub const INFRASTRUCTURE: u8 = 3;
/// 130: proctor was interrupted (Ctrl-C or SIGTERM), as shells report SIGINT.
pub const INTERRUPTED: u8 = 130;

/// The message `exit_code` puts before an error that has no class.
pub const INTERNAL: &str = "internal error";

/// An error of any kind, kept whole so that its chain stays readable.
pub type Source = Box<dyn StdError + Send + Sync + 'static>;

/// How a command ended when it did not simply succeed.
#[derive(Debug)]
pub enum Failure {
    /// A gate option (`--min-pass-rate`, ...) failed; the message says which.
    Gate(String),
    /// Bad usage or bad input: the message names the file, line, field, option or task.
    Input(String),
    /// The command ran to the end, but some input was bad and was skipped.
    PartialInput(String),
    /// Something outside the user's input failed: `context: source`.
    Infrastructure {
        /// What proctor was doing, or the whole message when there is no `source`.
        context: String,
        /// The error that stopped it.
        source: Option<Source>,
    },
    /// proctor was interrupted and stopped early; finished results were kept.
    Interrupted(String),
    /// The reader of standard output went away (`| head`): proctor stops quietly.
    ClosedOutput,
}

/// The class of an error, which decides its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Gate,
    Input,
    Infrastructure,
    Interrupted,
    /// Standard output was closed: exit 0, print nothing.
    ClosedOutput,
}

impl Class {
    fn code(self) -> u8 {
        match self {
            Class::Gate => GATE_FAILED,
            Class::Input => BAD_INPUT,
            Class::Infrastructure => INFRASTRUCTURE,
            Class::Interrupted => INTERRUPTED,
            Class::ClosedOutput => SUCCESS,
        }
    }
}

impl Failure {
    /// An infrastructure failure with a message and no underlying error.
    pub fn infrastructure(message: impl Into<String>) -> Failure {
        Failure::Infrastructure {
            context: message.into(),
            source: None,
        }
    }

    fn class(&self) -> Class {
        match self {
            Failure::Gate(_) => Class::Gate,
            Failure::Input(_) | Failure::PartialInput(_) => Class::Input,
            Failure::Infrastructure { .. } => Class::Infrastructure,
            Failure::Interrupted(_) => Class::Interrupted,
            Failure::ClosedOutput => Class::ClosedOutput,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Gate(m) => write!(f, "gate failed: {m}"),
            Failure::Input(m) | Failure::PartialInput(m) | Failure::Interrupted(m) => {
                f.write_str(m)
            }
            Failure::Infrastructure {
                context,
                source: None,
            } => f.write_str(context),
            Failure::Infrastructure {
                context,
                source: Some(source),
            } => write!(f, "{context}: {source}"),
            Failure::ClosedOutput => f.write_str("standard output is closed"),
        }
    }
}

impl StdError for Failure {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Failure::Infrastructure {
                source: Some(source),
                ..
            } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// Bad input: `bad_input!("{}: no agents", path.display())`, an `anyhow::Error` that exits 2.
macro_rules! bad_input {
    ($($arg:tt)*) => {
        ::anyhow::Error::new($crate::exit::Failure::Input(format!($($arg)*)))
    };
}
pub(crate) use bad_input;

/// `bail!` for bad input: returns `bad_input!(...)` as the error.
macro_rules! bail_input {
    ($($arg:tt)*) => {
        return Err($crate::exit::bad_input!($($arg)*).into())
    };
}
pub(crate) use bail_input;

/// Tags an error as bad input, with the message that says what the user got wrong.
pub trait InputContext<T> {
    /// `.input_context(format!("{}: cannot read labels", path))`.
    fn input_context(self, message: impl fmt::Display) -> anyhow::Result<T>;
    /// `.with_input_context(|| format!(...))`, the message built only on error.
    fn with_input_context<M: fmt::Display>(self, message: impl FnOnce() -> M) -> anyhow::Result<T>;
}

impl<T, E> InputContext<T> for Result<T, E>
where
    Result<T, E>: anyhow::Context<T, E>,
{
    fn input_context(self, message: impl fmt::Display) -> anyhow::Result<T> {
        anyhow::Context::context(self, Failure::Input(message.to_string()))
    }

    fn with_input_context<M: fmt::Display>(self, message: impl FnOnce() -> M) -> anyhow::Result<T> {
        anyhow::Context::with_context(self, || Failure::Input(message().to_string()))
    }
}

impl<T> InputContext<T> for Option<T> {
    fn input_context(self, message: impl fmt::Display) -> anyhow::Result<T> {
        self.ok_or_else(|| bad_input!("{message}"))
    }

    fn with_input_context<M: fmt::Display>(self, message: impl FnOnce() -> M) -> anyhow::Result<T> {
        self.ok_or_else(|| bad_input!("{}", message()))
    }
}

/// Tags an error on something the user did not get wrong (a disk error, a socket):
/// exits 3, printed `context: error`, and `error` stays in the chain.
pub fn infrastructure(context: impl fmt::Display, error: impl Into<Source>) -> anyhow::Error {
    anyhow::Error::new(Failure::Infrastructure {
        context: context.to_string(),
        source: Some(error.into()),
    })
}

/// A failed write to standard output: a closed pipe ends proctor quietly (exit 0, as
/// `| head` expects); any other error (disk full) exits 3.
pub fn stdout_error(error: std::io::Error) -> anyhow::Error {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        anyhow::Error::new(Failure::ClosedOutput)
    } else {
        infrastructure("cannot write to standard output", error)
    }
}

/// Standard output for what a command prints (summaries, reports, CSV). Every write is
/// checked: the first error is kept, and [`Stdout::close`] turns it into the command's
/// error through [`stdout_error`], whatever the writer in between made of it.
pub struct Stdout {
    out: std::io::StdoutLock<'static>,
    error: Option<std::io::Error>,
}

/// Standard output, locked for one command's output.
pub fn stdout() -> Stdout {
    Stdout {
        out: std::io::stdout().lock(),
        error: None,
    }
}

impl Stdout {
    fn keep(&mut self, error: &std::io::Error) {
        if self.error.is_none() {
            // io::Error is not Clone: an OS error is made again from its number.
            self.error = Some(match error.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(error.kind(), error.to_string()),
            });
        }
    }

    /// Flushes; a write that failed wins over `result`, which is most likely its echo.
    pub fn close(mut self, result: anyhow::Result<()>) -> anyhow::Result<()> {
        let flushed = std::io::Write::flush(&mut self);
        match self.error.take() {
            Some(error) => Err(stdout_error(error)),
            None => result.and(flushed.map_err(stdout_error)),
        }
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf).inspect_err(|e| self.keep(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf).inspect_err(|e| self.keep(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush().inspect_err(|e| self.keep(e))
    }
}

/// Writes `text` to standard output and flushes it; errors as [`stdout_error`].
pub fn print(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = stdout();
    let written = out.write_all(text.as_bytes());
    out.close(written.map_err(stdout_error))
}

/// The class of one error of the chain, when it has one of its own.
fn class_of(cause: &(dyn StdError + 'static)) -> Option<Class> {
    use proctor_judge::JudgeError;
    use proctor_judge::client::ClientError;
    use proctor_ledger::book::LedgerError;
    use std::io::ErrorKind::{NotFound, PermissionDenied};
    if let Some(failure) = cause.downcast_ref::<Failure>() {
        return Some(failure.class());
    }
    let input = cause.is::<proctor_core::task::TaskError>()
        || cause.is::<proctor_core::end_state::EndStateError>()
        || cause.is::<proctor_core::calibrate::CalibrationFileError>()
        || cause.is::<proctor_core::compare::CompareError>()
        || cause.is::<proctor_core::stats::StatsError>()
        || cause.is::<proctor_core::result::ResultError>()
        || cause.is::<proctor_core::rules::RuleError>()
        || cause.is::<proctor_core::faults::FaultSpecError>()
        || cause.is::<proctor_core::trace::OtlpError>()
        || cause.is::<proctor_judge::prompt::TemplateError>()
        || cause.is::<proctor_ledger::prices::PriceError>()
        || cause.is::<proctor_ledger::UsageError>()
        || cause.is::<clap::Error>();
    if input {
        return Some(Class::Input);
    }
    if let Some(error) = cause.downcast_ref::<JudgeError>() {
        // An unreachable judge or a cassette miss is infrastructure; a judge without its
        // key, a bad template or configuration is the user's to fix.
        return Some(if error.is_infrastructure() {
            Class::Infrastructure
        } else {
            Class::Input
        });
    }
    if let Some(error) = cause.downcast_ref::<ClientError>() {
        return Some(match error {
            ClientError::MissingKey { .. } => Class::Input,
            _ => Class::Infrastructure,
        });
    }
    if cause.is::<proctor_judge::cassette::CassetteError>() {
        return Some(Class::Infrastructure);
    }
    if let Some(error) = cause.downcast_ref::<LedgerError>() {
        // A ledger that is missing or not the user's to read is bad input; a disk error
        // on one that exists is infrastructure.
        return Some(match error {
            LedgerError::Io { source, .. }
                if !matches!(source.kind(), NotFound | PermissionDenied) =>
            {
                Class::Infrastructure
            }
            _ => Class::Input,
        });
    }
    if cause.is::<std::io::Error>() {
        return Some(Class::Infrastructure);
    }
    None
}

/// The class of an error: a [`Failure`] tag anywhere in the chain wins, then the first
/// typed error the chain holds; `None` when nothing in it has a class.
pub fn class(error: &anyhow::Error) -> Option<Class> {
    // Tags added with `.context(Failure::...)` are found by downcasting the whole error.
    if let Some(failure) = error.downcast_ref::<Failure>() {
        return Some(failure.class());
    }
    if let Some(failure) = error.chain().find_map(|c| c.downcast_ref::<Failure>()) {
        return Some(failure.class());
    }
    error.chain().find_map(class_of)
}

/// `error` as `proctor:` prints it: each cause after the one before it, except a cause
/// whose message the one before already ends with (`cannot read: {source}`).
pub fn message(error: &anyhow::Error) -> String {
    let mut text = String::new();
    let mut before = String::new();
    for cause in error.chain() {
        let said = cause.to_string();
        if text.is_empty() {
            text.push_str(&said);
        } else if !before.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        before = said;
    }
    text
}

/// The exit code of a command's result and what it prints on stderr, if anything.
fn outcome(result: anyhow::Result<()>) -> (u8, Option<String>) {
    let error = match result {
        Ok(()) => return (SUCCESS, None),
        Err(error) => error,
    };
    match class(&error) {
        Some(Class::ClosedOutput) => (SUCCESS, None),
        Some(class) => (class.code(), Some(message(&error))),
        // No class: a bug in proctor, reported as such and never blamed on the input.
        None => (
            INFRASTRUCTURE,
            Some(format!("{INTERNAL}: {}", message(&error))),
        ),
    }
}

/// Maps a command's result to the process exit code, printing the error.
pub fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    let (code, said) = outcome(result);
    if let Some(said) = said {
        eprintln!("proctor: {said}");
    }
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(kind: std::io::ErrorKind) -> std::io::Error {
        std::io::Error::from(kind)
    }

    #[test]
    fn exit_an_untagged_error_is_an_internal_error_not_bad_input() {
        let (code, said) = outcome(Err(anyhow::anyhow!("something unexpected")));
        assert_eq!(code, INFRASTRUCTURE);
        assert_eq!(said.unwrap(), "internal error: something unexpected");
    }

    #[test]
    fn exit_bad_input_is_tagged_and_exits_2() {
        let (code, said) = outcome(Err(bad_input!("tasks.yaml:3: no id")));
        assert_eq!(code, BAD_INPUT);
        assert_eq!(said.unwrap(), "tasks.yaml:3: no id");
        let read: Result<(), _> = Err(io(std::io::ErrorKind::NotFound));
        let (code, said) = outcome(read.input_context("labels.csv: cannot read labels"));
        assert_eq!(code, BAD_INPUT);
        assert!(
            said.unwrap()
                .starts_with("labels.csv: cannot read labels: ")
        );
    }

    #[test]
    fn exit_a_tag_anywhere_in_the_chain_wins() {
        let tagged = bad_input!("--since is after --until").context("ledger report");
        assert_eq!(class(&tagged), Some(Class::Input));
        let wrapped = infrastructure("results.jsonl", io(std::io::ErrorKind::NotFound));
        assert_eq!(class(&wrapped.context("run")), Some(Class::Infrastructure));
    }

    #[test]
    fn exit_an_io_error_without_a_tag_is_infrastructure() {
        let error = anyhow::Error::new(io(std::io::ErrorKind::Other)).context("writing");
        assert_eq!(outcome(Err(error)).0, INFRASTRUCTURE);
    }

    #[test]
    fn exit_typed_library_errors_keep_their_class() {
        let missing = proctor_core::task::TaskError::EmptyFolder {
            path: "tasks/".into(),
        };
        assert_eq!(class(&anyhow::Error::new(missing)), Some(Class::Input));
        let stats = anyhow::Error::new(proctor_core::stats::StatsError::ZeroK).context("k");
        assert_eq!(class(&stats), Some(Class::Input));
    }

    #[test]
    fn exit_infrastructure_keeps_its_source_and_prints_context_then_error() {
        let error = infrastructure("results.jsonl", std::io::Error::other("disk on fire"));
        let source = error.chain().nth(1).expect("the source is kept");
        assert!(source.is::<std::io::Error>());
        assert_eq!(
            outcome(Err(error)),
            (
                INFRASTRUCTURE,
                Some("results.jsonl: disk on fire".to_owned())
            )
        );
    }

    #[test]
    fn exit_a_closed_stdout_is_quiet_and_a_full_one_is_infrastructure() {
        let closed = stdout_error(io(std::io::ErrorKind::BrokenPipe));
        assert_eq!(outcome(Err(closed)), (SUCCESS, None));
        let full = stdout_error(std::io::Error::from_raw_os_error(28));
        let (code, said) = outcome(Err(full));
        assert_eq!(code, INFRASTRUCTURE);
        assert!(
            said.unwrap()
                .starts_with("cannot write to standard output: No space left on device"),
        );
    }
}
