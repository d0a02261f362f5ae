//! The words with which proctor starts itself as a containment helper: written by whoever
//! starts one (`entry` for the agent, `fallback` for the init of a PID namespace) and read
//! by the helper's own argument parsing. A file of their own, so neither imports the other
//! for them.

/// The first argument that makes proctor an entry helper.
pub const ENTRY_COMMAND: &str = "__contain";

/// The option that makes the helper the init of the attempt's PID namespace.
pub const INIT_OPTION: &str = "--init";

/// The option that makes the helper the last step before the agent in the fallback:
/// it confines itself, sets the per-process limits and becomes the agent.
pub const LAST_STEP_OPTION: &str = "--last-step";
