//! One file per subcommand.

pub mod calibrate;
pub mod compare;
mod grade;
pub mod init;
pub mod judge;
pub mod ledger;
pub mod mcp_bridge;
pub mod merge;
pub mod report;
pub mod review;
pub mod run;
mod served_page;
mod submit;
mod view;

use crate::args::Command;
use proctor_core::task::Suite;
use std::path::Path;

/// Loads the suite a command runs or grades, refusing one that holds no task: nothing
/// would be evaluated, and saying so beats an empty summary.
pub fn load_tasks(path: &Path) -> anyhow::Result<Suite> {
    let suite = Suite::load(path)?;
    if suite.tasks.is_empty() {
        crate::exit::bail_input!(
            "{} holds no tasks: write a list of tasks (proctor init DIR writes a starter suite)",
            path.display()
        );
    }
    Ok(suite)
}

pub fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Grade(args) => grade::run(args),
        Command::Report(args) => report::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Review(args) => review::run(args),
        Command::View(args) => view::run(args),
        Command::Run(args) => run::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Submit(command) => submit::run(command),
        Command::Init(args) => init::run(args),
        Command::Judge(args) => judge::run(args),
        Command::Ledger(command) => ledger::run(command),
        Command::McpBridge(args) => mcp_bridge::run(args),
    }
}
