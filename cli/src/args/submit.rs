//! `proctor submit`: hand a sharded run to a batch system (docs/cluster.md).

use clap::{Args, Subcommand};

/// The batch systems `proctor submit` writes jobs for.
#[derive(Debug, Subcommand)]
pub enum SubmitCommand {
    /// A Slurm job array of N shards, then a merge job that runs when they end.
    Slurm(SlurmArgs),
}

#[derive(Debug, Args)]
pub struct SlurmArgs {
    /// Shards: the array runs `proctor run --shard I/N` for I in 1..=N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub shards: u64,
    /// An extra `#SBATCH` option for both jobs, written as given (e.g. --sbatch=--time=2:00:00);
    /// repeatable.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
    /// Print the job scripts and the sbatch commands; write and submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The arguments of `proctor run`, after `--`; --tasks and --out are required.
    #[arg(last = true, required = true, value_name = "RUN-ARGS")]
    pub run_args: Vec<String>,
}
