//! Errors of the statistics functions.

/// Why a metric cannot be computed from the given counts.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum StatsError {
    /// pass@k and pass^k draw k attempts without replacement, so k cannot exceed n.
    #[error("k = {k} is larger than the {n} attempts of a task")]
    KTooLarge {
        /// The attempts drawn.
        k: u64,
        /// The attempts of the task.
        n: u64,
    },
    /// A draw of zero attempts says nothing about the agent.
    #[error("k must be at least 1")]
    ZeroK,
    /// Counts from a corrupt or mis-joined log: more passes than attempts.
    #[error("{c} successes is more than the {n} attempts of a task")]
    SuccessesExceedTrials {
        /// The successes counted.
        c: u64,
        /// The attempts counted.
        n: u64,
    },
    /// A result's cost, token or step count made a total overflow: no real run reaches that.
    #[error("{0}: its cost, token or step count makes the total overflow; the result is corrupt")]
    Overflow(String),
}
