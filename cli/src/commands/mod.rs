//! One file per subcommand.

pub mod calibrate;
pub mod compare;
mod grade;
pub mod html_page;
pub mod judge;
pub mod ledger;
pub mod merge;
mod report;
pub mod run;

use crate::args::Command;

pub fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Grade(args) => grade::run(args),
        Command::Report(args) => report::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Run(args) => run::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Judge(args) => judge::run(args),
        Command::Ledger(command) => ledger::run(command),
    }
}
