//! The judge options of `proctor calibrate --set`: the client, model, cassette and sampling a
//! `proctor run` judge is configured with, so a calibration measures the judge a run uses.

use anyhow::bail;
use clap::Args;
use proctor_judge::{CassetteMode, JudgeConfig, Provider};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct JudgeOptions {
    /// The judge's API: anthropic, or openai (also OpenAI-compatible servers).
    #[arg(long, value_name = "P", default_value = "anthropic", value_parser = parse_provider)]
    pub judge_provider: Provider,
    /// The judge model (required with --set).
    #[arg(long, value_name = "M")]
    pub judge_model: Option<String>,
    /// The API's base URL, e.g. a local vLLM, Ollama or LM Studio server.
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    /// Record or replay judge calls in this folder (one JSON file per request).
    #[arg(long, value_name = "DIR")]
    pub cassette: Option<PathBuf>,
    /// replay: recorded answers only, a miss is an error; record: always call and rewrite;
    /// auto: replay what is recorded, record the rest.
    #[arg(long, value_name = "MODE", default_value = "replay", value_parser = parse_mode, requires = "cassette")]
    pub cassette_mode: CassetteMode,
    /// Independent verdicts per item; the strict majority decides.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub judge_samples: u32,
    /// The most judge calls in flight.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..))]
    pub judge_jobs: u64,
}

impl JudgeOptions {
    /// The library configuration; a missing model is bad usage (exit 2).
    pub fn config(&self) -> anyhow::Result<JudgeConfig> {
        let Some(model) = self.judge_model.as_deref().filter(|m| !m.trim().is_empty()) else {
            bail!("--set runs the judge, so it needs --judge-model (and --judge-provider unless anthropic)");
        };
        Ok(JudgeConfig {
            base_url: self.judge_base_url.clone(),
            cassette: self.cassette.clone(),
            mode: self.cassette_mode,
            samples: self.judge_samples,
            jobs: self.judge_jobs as usize,
            ..JudgeConfig::new(self.judge_provider, model)
        })
    }
}

fn parse_provider(text: &str) -> Result<Provider, String> {
    text.parse()
}

fn parse_mode(text: &str) -> Result<CassetteMode, String> {
    text.parse()
}
