//! Tasks: the model, loading from files and folders, and gate categories.

mod check_names;
mod criteria;
mod defaults;
mod error;
mod gate;
mod grading_files;
mod load;
mod locate;
mod model;
pub(crate) mod naming;
mod raw;
mod suite;
mod told_user;
mod tool_names;
mod user;
mod variant;

pub use crate::tools::{
    ASK_USER, DEFAULT_MAX_TURNS, DEFAULT_REPLY_TIMEOUT_S, STOP, ScriptedTurn, UserBackend, UserSpec,
};
pub use check_names::{CheckName, CheckNames};
pub use error::{Place, TaskError};
pub use gate::GateCategory;
pub use load::{load_file, task_files};
pub use model::{Task, TaskNetwork};
pub use suite::Suite;
pub use told_user::{ToldUser, messages_to_user};

#[cfg(test)]
mod tests;
