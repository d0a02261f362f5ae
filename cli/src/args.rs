//! The command line (DESIGN 8).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
    Compare(crate::commands::compare::CompareArgs),
    /// Measure the judge against human labels: TPR, TNR, κ, disagreements, corrected pass rates.
    Calibrate(crate::commands::calibrate::CalibrateArgs),
    /// Label judged attempts PASS or FAIL in a browser, for `calibrate --labels`.
    Review(crate::commands::review::ReviewArgs),
    /// Run agents on tasks in fresh sandboxes and grade every attempt.
    Run(crate::commands::run::RunArgs),
    /// Judge kept sandboxes again without running the agents, and rewrite the results.
    Judge(crate::commands::judge::JudgeCommandArgs),
    /// Join the result files of shards into one.
    Merge(crate::commands::merge::MergeArgs),
    /// Write a starter suite (tasks, an agent, a recorded judge answer) that runs offline.
    Init(crate::commands::init::InitArgs),
    /// The cost ledger: add results, report cost per success over time, re-price.
    #[command(subcommand)]
    Ledger(crate::commands::ledger::LedgerCommand),
    /// MCP over stdio for an agent's stdio-only client, forwarded to its attempt's served tools.
    McpBridge(crate::commands::mcp_bridge::McpBridgeArgs),
}

/// How `run`, `grade` and `judge` print their summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
}

/// How `report` prints: the summary formats, and JUnit, which lists every attempt of the
/// result files it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Markdown,
    Junit,
    /// One self-contained page (`proctor report` only; elsewhere `--html FILE`).
    Html,
}

/// What splits every scorecard further.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// The task's tags: an attempt counts under each; untagged tasks under `-`.
    Tag,
    /// The task's variant (`id@NAME`); the base tasks under `-`.
    Variant,
}

/// Options shared by every command that prints a summary.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// The k of pass@k and pass^k (default: the fewest graded attempts of any task).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub k: Option<u64>,
    /// Gate: exit 1 when an agent's pass rate is below X (0..1); with several agents,
    /// every agent must reach it.
    #[arg(long, value_name = "X", value_parser = parse_share)]
    pub min_pass_rate: Option<f64>,
    /// Also write the results as one self-contained HTML page, to open in a browser.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also show the figures of all agents pooled (never shown unless asked for).
    #[arg(long)]
    pub pool: bool,
    /// Split every agent's scorecard further.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<By>,
}

impl SummaryArgs {
    /// The scorecards these options ask for.
    pub fn scorecard_options(&self) -> proctor_core::summary::ScorecardOptions {
        proctor_core::summary::ScorecardOptions {
            pool: self.pool,
            split: self.by.map(|by| match by {
                By::Tag => proctor_core::summary::Split::Tag,
                By::Variant => proctor_core::summary::Split::Variant,
            }),
        }
    }
}

#[derive(Debug, Args)]
pub struct GradeArgs {
    /// Task file or folder of task files.
    #[arg(long, value_name = "T")]
    pub tasks: PathBuf,
    /// Outcome log: one JSON outcome per line with a task key.
    #[arg(
        long,
        value_name = "LOG.jsonl",
        required_unless_present = "traces",
        conflicts_with = "traces"
    )]
    pub outcomes: Option<PathBuf>,
    /// Grade OpenTelemetry traces instead: OTLP JSON lines (the Collector's file exporter)
    /// or one OTLP JSON document; one attempt per trace.
    #[arg(long, value_name = "FILE")]
    pub traces: Option<PathBuf>,
    /// The span or resource attribute naming a trace's task.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "proctor.task_id",
        requires = "traces"
    )]
    pub task_attr: String,
    /// The task of traces that name none.
    #[arg(long, value_name = "ID", requires = "traces")]
    pub task: Option<String>,
    /// The field that names the task (default: `task`, then `task_id`).
    #[arg(long, value_name = "FIELD")]
    pub task_key: Option<String>,
    /// Folder holding the end state to check: DIR/<task>/<attempt>/ when it exists, else DIR.
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// Write one proctor.result/1 line per graded outcome here.
    #[arg(long, value_name = "R.jsonl")]
    pub out: Option<PathBuf>,
    /// The agent version, stored on every result.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Threads grading lines (default: the number of CPUs); results keep the log's order.
    /// With a judge or --workdir, lines are graded one after another.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    #[command(flatten)]
    pub judge: crate::judging::JudgeArgs,
    #[command(flatten)]
    pub no_judge: crate::judging::NoJudgeArg,
    #[command(flatten)]
    pub cost: CostArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub summary: SummaryArgs,
}

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

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Result files (proctor.result/1 JSONL).
    #[arg(required = true, value_name = "R.jsonl")]
    pub results: Vec<PathBuf>,
    /// Show the pass rate corrected for the judge's errors, from `proctor calibrate --out`.
    #[arg(long, value_name = "CAL.json")]
    pub calibration: Option<PathBuf>,
    /// The task file or folder the results were graded against: for `--by tag` (result
    /// lines do not carry their task's tags), and in the HTML report each attempt's input and
    /// the tag filter.
    #[arg(long, value_name = "T")]
    pub tasks: Option<PathBuf>,
    /// Summarise results of different task files (task digests), one summary per digest,
    /// instead of refusing them.
    #[arg(long)]
    pub mixed: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// A cost ledger: the HTML report adds its weekly cost-per-success chart.
    #[arg(long, value_name = "L.csv")]
    pub ledger: Option<PathBuf>,
    /// The folder `run --keep` kept the sandboxes in: the HTML report lists each attempt's files.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Two lines for the same label, task and attempt: refuse them (error), keep the first
    /// or the last, or count all.
    #[arg(long, value_enum, default_value_t = crate::duplicates::Duplicates::Error)]
    pub duplicates: crate::duplicates::Duplicates,
    #[command(flatten)]
    pub summary: SummaryArgs,
}

fn parse_share(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}
