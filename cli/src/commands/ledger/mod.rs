//! `proctor ledger`: the cost ledger (docs/cost.md).

mod add;
mod recost;
mod report;

use crate::args::LedgerCommand;

pub fn run(command: LedgerCommand) -> anyhow::Result<()> {
    match command {
        LedgerCommand::Add(args) => add::run(args),
        LedgerCommand::Report(args) => report::run(args),
        LedgerCommand::Recost(args) => recost::run(args),
    }
}
