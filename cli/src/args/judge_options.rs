//! The judge's options, shared by `run`, `grade`, `judge` and `calibrate`.

use clap::Args;
use proctor_judge::{CassetteMode, Provider};
use std::path::PathBuf;

/// Judge options shared by `run`, `grade`, `judge` and `calibrate`.
#[derive(Debug, Clone, Args)]
pub struct JudgeArgs {
    /// The judge's API: anthropic, or openai (also any OpenAI-compatible server).
    #[arg(long, value_name = "P", default_value = "anthropic")]
    pub judge_provider: Provider,
    /// The judge model, e.g. claude-sonnet-4-6.
    #[arg(long, value_name = "M")]
    pub judge_model: Option<String>,
    /// Base URL of an OpenAI-compatible server (vLLM, Ollama, LM Studio, OpenRouter).
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    /// Folder of recorded judge answers.
    #[arg(long, value_name = "DIR")]
    pub cassette: Option<PathBuf>,
    /// replay (only recorded answers), record (always call, record), auto (call on a miss).
    #[arg(long, value_name = "MODE", default_value = "replay")]
    pub cassette_mode: CassetteMode,
    /// Independent verdicts per run; the majority decides and the flip rate is reported.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub judge_samples: u32,
    /// Judge calls in flight at most (fewer while the model answers 429).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub judge_jobs: u64,
    /// Seconds one judge request may take.
    #[arg(long, value_name = "S", default_value_t = 120)]
    pub judge_timeout: u64,
    /// Your own prompt template (see judge/src/prompt/template_v1.txt).
    #[arg(long, value_name = "FILE")]
    pub judge_template: Option<PathBuf>,
}

/// `--no-judge`, offered only by the commands where it works (`run`, `grade`): the
/// commands that exist to judge (`judge`, `calibrate`) do not take it.
#[derive(Debug, Clone, Args)]
pub struct NoJudgeArg {
    /// Do not judge: runs of tasks with a rubric are reported ungraded.
    #[arg(long)]
    pub no_judge: bool,
}
