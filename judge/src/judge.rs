//! The judge: builds the prompt for a run, asks for N samples (through the cassette
//! and the retrying client), parses each answer and takes the majority.

use crate::bundle::{BundleLimits, collect};
use crate::cassette::{CanonicalRequest, Cassette, CassetteMode};
use crate::client::{
    ChatRequest, ChatResponse, ClientError, ClientOptions, ModelClient, RetryingClient,
};
use crate::config::JudgeConfig;
use crate::error::JudgeError;
use crate::outcome::{JudgeOutcome, SampleVerdict};
use crate::prompt::{Prompt, Template, build_prompt};
use crate::provenance::{Provenance, tagged_usage};
use crate::request::JudgeRequest;
use crate::verdict::parse_verdict;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The judge. Cheap to clone; clones share the bound on calls in flight, so one judge
/// serves a whole evaluation.
#[derive(Debug, Clone)]
pub struct Judge {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: RetryingClient,
    model: String,
    template: Template,
    cassette: Option<Cassette>,
    mode: CassetteMode,
    samples: u32,
    max_tokens: u32,
    limits: BundleLimits,
    /// Bounds prompts being built (sandbox reads) to the CPUs, so that many runs judged
    /// at once do not fill the blocking pool with hundreds of threads.
    builders: Semaphore,
}

impl Judge {
    /// A judge for `config.provider`, with the API key from the provider's environment
    /// variable. When every call may go to the model (no cassette, or record mode) a
    /// missing required key is an error here, before any agent runs; in replay mode no
    /// key is needed, and in auto mode it is asked for at the first miss.
    pub fn new(config: JudgeConfig) -> Result<Judge, JudgeError> {
        let provider = config.provider;
        let options = ClientOptions::from_env(
            provider.key_variable(),
            config.base_url.clone(),
            config.timeout,
        );
        let always_calls = config.cassette.is_none() || config.mode == CassetteMode::Record;
        if always_calls && provider.key_required() && options.api_key.is_none() {
            return Err(JudgeError::Client(ClientError::MissingKey {
                provider: provider.name().to_owned(),
                variable: provider.key_variable(),
            }));
        }
        let client = provider.client(options)?;
        Judge::with_client(config, client)
    }

    /// A judge over any client (a custom provider, or a test double). `config.provider`,
    /// `base_url` and `timeout` are the client's business and are not read here.
    pub fn with_client(
        config: JudgeConfig,
        client: Arc<dyn ModelClient>,
    ) -> Result<Judge, JudgeError> {
        if config.samples == 0 {
            return Err(JudgeError::Config(
                "judge samples must be at least 1".into(),
            ));
        }
        if config.model.trim().is_empty() {
            return Err(JudgeError::Config("no judge model given".into()));
        }
        let template = match &config.template {
            Some(path) => Template::from_file(path)?,
            None => Template::builtin(),
        };
        Ok(Judge {
            inner: Arc::new(Inner {
                client: RetryingClient::new(client, config.retry, config.jobs),
                model: config.model,
                template,
                cassette: config.cassette.map(Cassette::new),
                mode: config.mode,
                samples: config.samples,
                max_tokens: config.max_tokens,
                limits: config.limits,
                builders: Semaphore::new(
                    std::thread::available_parallelism().map_or(2, |n| n.get()),
                ),
            }),
        })
    }

    /// The template version recorded in provenance and cassette keys.
    pub fn template_version(&self) -> &str {
        self.inner.template.version()
    }

    /// The prompt for a run, reading its sandbox (blocking file I/O).
    pub fn prompt(&self, request: &JudgeRequest) -> Result<Prompt, JudgeError> {
        let bundle = collect(
            request.sandbox.as_deref(),
            &request.seed,
            &request.judge_files,
            &request.rubric,
            self.inner.limits,
        )?;
        Ok(build_prompt(
            &self.inner.template,
            &request.rubric,
            &request.input,
            request.answer.as_deref(),
            &bundle,
        ))
    }

    /// Judges one run. `Ok` with an undecided outcome when the judge's answers gave no
    /// verdict (the run is then ungraded); `Err` when judging itself failed (see
    /// [`JudgeError::is_infrastructure`]). Needs a tokio runtime: the sandbox is read on
    /// its blocking pool and samples run as tasks.
    pub async fn judge(&self, request: JudgeRequest) -> Result<JudgeOutcome, JudgeError> {
        let judge = self.clone();
        let prompt = {
            // The semaphore is never closed, so acquiring cannot fail.
            let _permit = self.inner.builders.acquire().await.ok();
            tokio::task::spawn_blocking(move || judge.prompt(&request))
                .await
                .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))?
        };
        let prompt = Arc::new(prompt);
        let samples = if self.inner.samples == 1 {
            vec![sample(self.inner.clone(), prompt, 0).await?]
        } else {
            let mut set = tokio::task::JoinSet::new();
            for index in 0..self.inner.samples {
                set.spawn(sample(self.inner.clone(), prompt.clone(), index));
            }
            let mut done = Vec::with_capacity(self.inner.samples as usize);
            while let Some(joined) = set.join_next().await {
                let result = joined.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
                // Dropping the set aborts the other samples.
                done.push(result?);
            }
            done.sort_by_key(|s: &SampleVerdict| s.provenance.sample);
            done
        };
        Ok(JudgeOutcome::from_samples(samples))
    }
}

/// One sample: replay or call (and record), then parse.
async fn sample(
    inner: Arc<Inner>,
    prompt: Arc<Prompt>,
    index: u32,
) -> Result<SampleVerdict, JudgeError> {
    let chat = ChatRequest {
        model: inner.model.clone(),
        messages: prompt.messages(),
        temperature: 0.0,
        max_tokens: inner.max_tokens,
    };
    let provider = inner.client.provider().to_owned();
    let canonical = CanonicalRequest::new(&provider, &chat, &prompt.template_version, index);
    let answer = crate::cassette::answer(
        &inner.client,
        inner.cassette.as_ref(),
        inner.mode,
        &chat,
        &canonical,
    )
    .await?;
    let provenance = |replayed: bool, response: Option<&ChatResponse>| Provenance {
        provider: provider.clone(),
        model: inner.model.clone(),
        served_model: response.and_then(|r| r.model.clone()),
        template_version: prompt.template_version.clone(),
        rubric_sha256: prompt.rubric_sha256.clone(),
        bundle_sha256: prompt.bundle_sha256.clone(),
        sample: index,
        replayed,
        cassette_key: canonical.key(),
        usage: response
            .map(|r| tagged_usage(&provider, &inner.model, &r.usage))
            .unwrap_or_default(),
    };
    Ok(match answer {
        Ok((response, replayed)) => match parse_verdict(&response.text) {
            Ok(parsed) => SampleVerdict {
                verdict: Some(parsed.decision),
                error: None,
                reasoning: parsed.reasoning,
                provenance: provenance(replayed, Some(&response)),
            },
            Err(why) => SampleVerdict {
                verdict: None,
                error: Some(why.to_string()),
                reasoning: String::new(),
                provenance: provenance(replayed, Some(&response)),
            },
        },
        Err(malformed) => SampleVerdict {
            verdict: None,
            error: Some(malformed.to_string()),
            reasoning: String::new(),
            provenance: provenance(false, None),
        },
    })
}
