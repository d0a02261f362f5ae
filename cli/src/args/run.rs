//! `proctor run`.

use super::ContainmentArgs;
use super::cost::CostArgs;
use super::judge_options::{JudgeArgs, NoJudgeArg};
use super::summary::{Format, SummaryArgs};
use crate::run::scheduler::ShardChoice;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Task file or folder of task files.
    #[arg(long, value_name = "T")]
    pub tasks: PathBuf,
    /// The agent command (split like a shell), or NAME=CMD; repeat for several agents. NAME
    /// is letters, digits, _ - . @ + with no space after the `=`; a NAME in capitals only
    /// (MODEL=x cmd) reads as an environment variable and is refused: use `env MODEL=x cmd`.
    #[arg(long, value_name = "CMD", required_unless_present = "agents")]
    pub agent: Vec<String>,
    /// A YAML or JSON list of agents: name, command, optional env and cwd.
    #[arg(long, value_name = "FILE", conflicts_with = "agent")]
    pub agents: Option<PathBuf>,
    /// Attempts per task and agent.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub attempts: u64,
    /// Attempts run in parallel (default: the number of CPUs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Seconds an attempt may take, for tasks without `timeout_s`.
    #[arg(long, default_value_t = 300.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Run seed; each attempt's seed is a hash of it, the task and the attempt.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The agent version stored on every result (a single unnamed --agent).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    // The text is clap's help, where backticks would show: the placeholders stay bare.
    #[allow(rustdoc::invalid_html_tags)]
    /// Keep each attempt's sandbox at DIR/<task>/<attempt>/ (DIR/<agent>/<task>/<attempt>/ with several agents).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Append each result line to this file as soon as its attempt ends.
    #[arg(long, value_name = "R.jsonl")]
    pub out: Option<PathBuf>,
    /// Skip attempts already in --out and append the rest.
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Run shard I of N (1-based): every N-th attempt, a variant's beside its base; auto
    /// reads it from a Slurm job array or a Kubernetes Indexed Job.
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<ShardChoice>,
    /// With --shard auto in a Kubernetes Indexed Job: the number of shards (its completions).
    #[arg(long, value_name = "N", requires = "shard", value_parser = clap::value_parser!(u64).range(1..))]
    pub shard_count: Option<u64>,
    /// The run every result line and ledger row names: the same on every shard of a run
    /// (default: the scheduler's job, else the one in --out with --resume, else a new one).
    #[arg(long, value_name = "ID", value_parser = crate::run::scheduler::check_run_id)]
    pub run_id: Option<String>,
    /// Only tasks whose id or a tag matches one of these globs.
    #[arg(long, value_name = "PATTERN")]
    pub only: Vec<String>,
    /// Which task variants run besides the base tasks: all (the default), none, or the
    /// variants' names (repeat or separate with commas).
    #[arg(long, value_name = "none|all|NAME", num_args = 1..)]
    pub variants: Vec<String>,
    /// Seconds an attempt that exported spans waits after its agent exits for late spans,
    /// unless its root span arrived.
    #[arg(long, default_value_t = 2.0, value_name = "S", value_parser = parse_seconds)]
    pub trace_grace: f64,
    /// Grade trajectory rules on the agent's OpenTelemetry trace, even when it reports a
    /// trajectory of its own.
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub trajectory_from: Option<TrajectoryFrom>,
    #[command(flatten)]
    pub containment: ContainmentArgs,
    #[command(flatten)]
    pub cost: CostArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// The model playing the simulated users of tasks with `user: {instructions}`;
    /// --cassette and --cassette-mode record and replay its answers as the judge's.
    #[arg(long, value_name = "M")]
    pub user_model: Option<String>,
    /// The user model's API: anthropic, or openai (also any OpenAI-compatible server).
    #[arg(long, value_name = "P", default_value = "anthropic")]
    pub user_provider: proctor_judge::Provider,
    /// Base URL of an OpenAI-compatible server for the user model.
    #[arg(long, value_name = "URL")]
    pub user_base_url: Option<String>,
    #[command(flatten)]
    pub no_judge: NoJudgeArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub summary: SummaryArgs,
}

/// Where `--trajectory-from` takes the graded trajectory from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrajectoryFrom {
    Trace,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}
