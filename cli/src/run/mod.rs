//! The runner: spawns agents in fresh sandboxes, schedules attempts in parallel,
//! and grades each attempt as it ends.

pub mod agent;
pub mod attempt;
pub mod descriptors;
pub mod environment;
pub mod grace;
pub mod isolation;
pub mod keep_folder;
pub mod outcome;
pub mod outcome_file;
pub mod plan;
pub mod process;
pub mod runner_checks;
pub mod sandbox;
pub mod scheduler;
pub mod served;
pub mod signals;
pub mod stdout_outcome;
pub mod traced;
pub mod variants;

pub use runner_checks::is_runner_check;
