//! Failures that stop judging altogether, as opposed to a run the judge could not decide
//! (which is a [`crate::JudgeOutcome`] without a verdict).

use crate::bundle::BundleError;
use crate::cassette::CassetteError;
use crate::client::ClientError;
use crate::prompt::TemplateError;

/// A judge failure. [`JudgeError::is_infrastructure`] tells the command line which exit
/// code it maps to: 3 for infrastructure, 2 for bad usage or input.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// A model call failed for good: refused or unreachable after retries (exit 3), or no
    /// key was given (exit 2). Malformed answers are not here: they leave one run ungraded.
    #[error("judge call failed: {0}")]
    Client(#[from] ClientError),
    /// The cassette could not be read or written, or a replay found no recording (exit 3).
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// The user's template file is unreadable or invalid (exit 2).
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A `judge_files` glob is invalid, or the sandbox or seed could not be read (exit 2).
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// The configuration cannot work: no samples, or no model (exit 2).
    #[error("invalid judge configuration: {0}")]
    Config(String),
}

impl JudgeError {
    /// True for the judge being unreachable or refusing us after retries, an auth
    /// failure, and cassette trouble (a miss in replay): exit 3. False for a missing
    /// key, a bad template, glob or configuration, or an unreadable sandbox: exit 2.
    pub fn is_infrastructure(&self) -> bool {
        match self {
            JudgeError::Client(error) => !error.is_missing_key(),
            JudgeError::Cassette(_) => true,
            JudgeError::Template(_) | JudgeError::Bundle(_) | JudgeError::Config(_) => false,
        }
    }
}
