//! Why two result files cannot be compared.

use super::which::Side;

/// Bad input for a comparison; each names the file (and the task and attempt where one line
/// is at fault) so that the user can find it.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum CompareError {
    /// Two agent versions in one file would be averaged into a version that never existed.
    /// `first` and `second` name each label with the task and attempt where it was seen.
    #[error(
        "{side} {file}: results of several versions in one file: {first} and {second}; compare one version per file, or pick two with --labels OLD,NEW"
    )]
    LabelMix {
        /// Which file (OLD or NEW) is at fault.
        side: Side,
        /// The result file at fault.
        file: String,
        /// The first label or digest seen, with its task and attempt.
        first: String,
        /// The conflicting one, with its task and attempt.
        second: String,
    },
    /// One file graded against two task files: its own numbers mean different things per task.
    #[error(
        "{side} {file}: results from different task files in one file: {first} and {second} ({at})"
    )]
    DigestMix {
        /// Which file (OLD or NEW) is at fault.
        side: Side,
        /// The result file at fault.
        file: String,
        /// The first label or digest seen, with its task and attempt.
        first: String,
        /// The conflicting one, with its task and attempt.
        second: String,
        /// The task and attempt of the first line with the second digest.
        at: String,
    },
    /// A task with the same id may ask something else under another task file.
    #[error(
        "OLD {old_file} and NEW {new_file} were graded against different task files ({old} vs {new}); pass --allow-different-tasks to compare the tasks they share"
    )]
    DifferentTasks {
        /// The OLD result file.
        old_file: String,
        /// The NEW result file.
        new_file: String,
        /// The task-file digest of OLD.
        old: String,
        /// The task-file digest of NEW.
        new: String,
    },
    /// Nothing to pair.
    #[error("{side} {file} holds no result lines")]
    Empty {
        /// Which file (OLD or NEW) is at fault.
        side: Side,
        /// The result file at fault.
        file: String,
    },
    /// No task has graded attempts in both files.
    #[error(
        "OLD {old_file} and NEW {new_file} share no task with graded attempts on both sides (OLD: {old_tasks}; NEW: {new_tasks})"
    )]
    NoSharedTask {
        /// The OLD result file.
        old_file: String,
        /// The NEW result file.
        new_file: String,
        /// The tasks with graded attempts in OLD.
        old_tasks: String,
        /// The tasks with graded attempts in NEW.
        new_tasks: String,
    },
    /// A cost, token or step count no real run reaches made a total overflow.
    #[error(
        "{side} {file}: {at}: its cost, token or step count makes the total overflow; the result is corrupt"
    )]
    Overflow {
        /// Which file (OLD or NEW) is at fault.
        side: Side,
        /// The result file at fault.
        file: String,
        /// The attempt (or, for a sum over tasks, the task) where the total overflowed.
        at: String,
    },
    /// pass^k of a task could not be computed (cannot happen for counts built by a side).
    #[error(transparent)]
    Stats(#[from] crate::stats::StatsError),
    /// A margin outside [0, 1) makes the verdict meaningless: Δ of pass rates lies in [−1, 1].
    #[error("margin {0} is not in [0, 1)")]
    Margin(f64),
}
