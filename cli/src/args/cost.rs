//! Prices and the ledger.

use clap::Args;
use std::path::PathBuf;

/// Prices and the ledger, for the commands that grade (`grade`, `run`).
#[derive(Debug, Args)]
pub struct CostArgs {
    /// Price files laid over the built-in prices, in order (proctor TOML or LiteLLM JSON).
    #[arg(long = "prices", value_name = "FILE")]
    pub prices: Vec<PathBuf>,
    /// Append one row per attempt, role and model to this ledger (CSV).
    #[arg(long, value_name = "L.csv")]
    pub ledger: Option<PathBuf>,
    /// The suite name in ledger rows (default: the task folder's name, or the task file's).
    #[arg(long, value_name = "NAME", requires = "ledger")]
    pub suite: Option<String>,
}
