//! `proctor grade`.

use super::cost::CostArgs;
use super::judge_options::{JudgeArgs, NoJudgeArg};
use super::summary::{Format, SummaryArgs};
use clap::Args;
use std::path::PathBuf;

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
    // The text is clap's help, where backticks would show: the placeholders stay bare.
    #[allow(rustdoc::invalid_html_tags)]
    /// Folder holding the end state to check: DIR/<task>/<attempt>/ when it exists, else
    /// DIR when it holds no kept sandboxes (an attempt whose one is missing is not graded).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// The tool state folder that `state:` paths and PROCTOR_STATE_DIR name (default: the
    /// kept `<attempt>.state` folder beside each attempt's end state, when there is one).
    #[arg(long, value_name = "DIR", requires = "workdir")]
    pub state_dir: Option<PathBuf>,
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
    pub judge: JudgeArgs,
    #[command(flatten)]
    pub no_judge: NoJudgeArg,
    #[command(flatten)]
    pub cost: CostArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub summary: SummaryArgs,
}
