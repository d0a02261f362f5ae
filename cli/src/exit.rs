//! Exit codes (docs/exit-codes.md), decided in this one place.
//!
//! Commands return `anyhow::Error`; errors that mean something other than "bad input"
//! carry a [`Failure`] marker, which `main` looks for when choosing the code.

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

/// How a command ended when it did not simply succeed.
#[derive(Debug)]
pub enum Failure {
    /// A gate option (`--min-pass-rate`, ...) failed; the message says which.
    Gate(String),
    /// The command ran to the end, but some input was bad and was skipped.
    PartialInput(String),
    /// Something outside the user's input failed.
    Infrastructure(String),
    /// proctor was interrupted and stopped early; finished results were kept.
    Interrupted(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Gate(m) => write!(f, "gate failed: {m}"),
            Failure::PartialInput(m) => f.write_str(m),
            Failure::Infrastructure(m) => f.write_str(m),
            Failure::Interrupted(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Failure {}

/// Maps a command's result to the process exit code, printing the error.
pub fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(SUCCESS),
        Err(error) => {
            let code = match error.downcast_ref::<Failure>() {
                Some(Failure::Gate(_)) => GATE_FAILED,
                Some(Failure::PartialInput(_)) => BAD_INPUT,
                Some(Failure::Infrastructure(_)) => INFRASTRUCTURE,
                Some(Failure::Interrupted(_)) => INTERRUPTED,
                // Everything untagged is about the user's input: files, fields, lines.
                None => BAD_INPUT,
            };
            eprintln!("proctor: {error:#}");
            ExitCode::from(code)
        }
    }
}

/// Tags an I/O error on an output the user did not get wrong (disk full, closed pipe).
pub fn infrastructure(context: impl fmt::Display, error: impl fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Failure::Infrastructure(format!("{context}: {error}")))
}
