//! `proctor submit`: a sharded run handed to a batch system as job scripts, each shard a
//! `proctor run --shard I/N --resume`, then their `proctor merge` (docs/cluster.md).

mod layout;
mod resources;
mod run_args;
mod sbatch;
mod scripts;
mod shell_quote;
mod slurm;
mod submission;

use crate::args::SubmitCommand;

pub fn run(command: SubmitCommand) -> anyhow::Result<()> {
    match command {
        SubmitCommand::Slurm(args) => slurm::run(args),
    }
}
