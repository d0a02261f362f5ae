//! Everything the judge is configured with, and its defaults.

use crate::bundle::BundleLimits;
use crate::cassette::CassetteMode;
use crate::client::{Provider, RetryPolicy};
use std::path::PathBuf;
use std::time::Duration;

/// The judge's configuration; start from [`JudgeConfig::new`] and set what differs.
#[derive(Debug, Clone)]
pub struct JudgeConfig {
    /// The judge's API (`--judge-provider`); it also picks the key variable.
    pub provider: Provider,
    /// The judge model (`--judge-model`), as the provider names it; recorded in provenance
    /// and cassette keys.
    pub model: String,
    /// The API's base URL (`--judge-base-url`); default the provider's public API.
    pub base_url: Option<String>,
    /// The cassette directory (`--cassette`); without one every call goes to the model.
    pub cassette: Option<PathBuf>,
    /// How the cassette is used (`--cassette-mode`); ignored without a cassette.
    pub mode: CassetteMode,
    /// Independent verdicts per run (`--judge-samples`); the majority decides.
    pub samples: u32,
    /// The most model calls in flight (`--judge-jobs`).
    pub jobs: usize,
    /// The limit on one HTTP request.
    pub timeout: Duration,
    /// A user's template file; default the built-in template.
    pub template: Option<PathBuf>,
    /// The answer's token limit: room for reasoning and the verdict.
    pub max_tokens: u32,
    /// When and how often a failed call is tried again.
    pub retry: RetryPolicy,
    /// How much of the sandbox goes into one prompt.
    pub limits: BundleLimits,
}

impl JudgeConfig {
    /// Defaults: 1 sample, 8 calls in flight, a 120 s timeout, 2048 answer tokens,
    /// replay mode, the built-in template, 5 attempts per call.
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        JudgeConfig {
            provider,
            model: model.into(),
            base_url: None,
            cassette: None,
            mode: CassetteMode::Replay,
            samples: 1,
            jobs: 8,
            timeout: Duration::from_secs(120),
            template: None,
            max_tokens: 2048,
            retry: RetryPolicy::default(),
            limits: BundleLimits::default(),
        }
    }
}
