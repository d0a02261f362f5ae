//! One file per subcommand.

mod grade;
mod report;

use crate::args::Command;

pub fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Grade(args) => grade::run(args),
        Command::Report(args) => report::run(args),
    }
}
