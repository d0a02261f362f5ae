//! The command line (the README's tour, and docs/exit-codes.md).

//!
//! One file per command's options; they depend on no command, renderer or output, so
//! that every command can read them.

mod calibrate;
mod compare;
mod containment;
mod cost;
mod grade;
mod init;
mod judge;
mod judge_options;
mod ledger;
mod mcp_bridge;
mod merge;
mod report;
mod review;
mod run;
mod submit;
mod summary;
mod values;
mod view;

pub use calibrate::{CalibrateArgs, CalibrateFormat};
pub use compare::{CompareArgs, CompareFormat, FailOn};
pub use containment::ContainmentArgs;
pub use cost::CostArgs;
pub use grade::GradeArgs;
pub use init::InitArgs;
pub use judge::JudgeCommandArgs;
pub use judge_options::JudgeArgs;
pub use ledger::{AddArgs, LedgerCommand, RecostArgs, ReportArgs as LedgerReportArgs};
pub use mcp_bridge::McpBridgeArgs;
pub use merge::MergeArgs;
pub use report::{ReportArgs, ReportFormat};
pub use review::ReviewArgs;
pub use run::{RunArgs, TrajectoryFrom};
pub use submit::{SlurmArgs, SubmitCommand};
pub use summary::{Format, SummaryArgs};
pub use view::ViewArgs;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "proctor", version, about = "Evaluation workspace for AI agents", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Grade recorded outcomes offline, streaming one outcome per line.
    Grade(GradeArgs),
    /// Summarise result files.
    Report(ReportArgs),
    /// Compare two versions of an agent: regressed and fixed tasks, Δ with a verdict.
    Compare(CompareArgs),
    /// Measure the judge against human labels: TPR, TNR, κ, disagreements, corrected pass rates.
    Calibrate(CalibrateArgs),
    /// Label judged attempts PASS or FAIL in a browser, for `calibrate --labels`.
    Review(ReviewArgs),
    /// Every run under folders in a browser: runs, history, one run, two compared; live.
    View(ViewArgs),
    /// Run agents on tasks in fresh sandboxes and grade every attempt.
    Run(RunArgs),
    /// Judge kept sandboxes again without running the agents, and rewrite the results.
    Judge(JudgeCommandArgs),
    /// Join the result files of shards into one.
    Merge(MergeArgs),
    /// Submit a sharded run to a batch system: its shards, then their merge.
    #[command(subcommand)]
    Submit(SubmitCommand),
    /// Write a starter suite (tasks, an agent, a recorded judge answer) that runs offline.
    Init(InitArgs),
    /// The cost ledger: add results, report cost per success over time, re-price.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// MCP over stdio for an agent's stdio-only client, forwarded to its attempt's served tools.
    McpBridge(McpBridgeArgs),
}
