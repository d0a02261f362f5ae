//! The field names of an outcome line (docs/agent-protocol.md), written once: both readers
//! (the scanner and the reference reader) and the result line's writer take them from here,
//! and the tests hold [`Outcome`](super::Outcome)'s serde names to [`ALL`].

/// `status`: how the attempt ended.
pub const STATUS: &str = "status";
/// `answer`: the agent's final answer.
pub const ANSWER: &str = "answer";
/// `tool_calls`: how many tool calls the agent made.
pub const TOOL_CALLS: &str = "tool_calls";
/// `tools_used`: the tools the agent listed.
pub const TOOLS_USED: &str = "tools_used";
/// `trajectory`: the tool calls, in order.
pub const TRAJECTORY: &str = "trajectory";
/// `usage`: the usage objects of the model calls.
pub const USAGE: &str = "usage";
/// `steps`: the agent's turns.
pub const STEPS: &str = "steps";
/// `error`: the exception the agent raised.
pub const ERROR: &str = "error";
/// `trajectory_source`: where the trajectory came from; proctor's own lines only.
pub const TRAJECTORY_SOURCE: &str = "trajectory_source";
/// `uncaptured_args`: the steps whose arguments a trace did not capture; proctor's own
/// lines only.
pub const UNCAPTURED_ARGS: &str = "uncaptured_args";

/// The fields an outcome line gives, each read by both readers.
pub const READ: [&str; 8] = [
    STATUS, ANSWER, TOOL_CALLS, TOOLS_USED, TRAJECTORY, USAGE, STEPS, ERROR,
];

/// Every field of [`Outcome`](super::Outcome), in the order its serde derive writes them:
/// [`READ`], then the two only proctor's own lines carry.
pub const ALL: [&str; 10] = [
    STATUS,
    ANSWER,
    TOOL_CALLS,
    TOOLS_USED,
    TRAJECTORY,
    USAGE,
    STEPS,
    ERROR,
    TRAJECTORY_SOURCE,
    UNCAPTURED_ARGS,
];

/// The members of one step of a trajectory (`{"tool": ..., "args": ...}`).
pub mod step {
    /// `tool`: the tool called.
    pub const TOOL: &str = "tool";
    /// `args`: the call's arguments.
    pub const ARGS: &str = "args";
    /// `error`: the error the call returned.
    pub const ERROR: &str = "error";
    /// `result`: what the call returned.
    pub const RESULT: &str = "result";
    /// `faults`: the seeded faults applied to a served call; proctor's own lines only.
    pub const FAULTS: &str = "faults";

    /// Every member of [`Step`](crate::outcome::Step), in the order its serde derive
    /// writes them.
    pub const ALL: [&str; 5] = [TOOL, ARGS, ERROR, RESULT, FAULTS];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Outcome, Step};
    use crate::serde_names::serde_names;

    #[test]
    fn serde_reads_the_listed_names_in_their_order() {
        assert_eq!(serde_names::<Outcome>(), ALL);
        assert_eq!(serde_names::<Step>(), step::ALL);
        assert_eq!(ALL[..READ.len()], READ);
    }
}
