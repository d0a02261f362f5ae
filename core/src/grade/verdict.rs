//! The judge's decision on a rubric, as grading sees it.

use serde::{Deserialize, Serialize};

/// What the judge said about a task's rubric. The judge crate produces this; grading
/// only needs to know whether it passed, failed or could not decide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", content = "detail", rename_all = "snake_case")]
pub enum RubricVerdict {
    /// The rubric is met.
    Pass,
    /// It is not.
    Fail,
    /// The judge could not decide (unparseable answer, unreachable server) or was
    /// not run. The run becomes ungraded: never a pass, never a fail.
    Error(String),
}
