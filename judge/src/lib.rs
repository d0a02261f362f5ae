//! proctor-judge: the LLM judge that grades a run against a plain-language rubric by
//! reading the files the agent left behind (the answer is the agent's claim; the files
//! are the truth).
//!
//! The command line builds one [`Judge`] from a [`JudgeConfig`] and calls
//! [`Judge::judge`] with a [`JudgeRequest`] per run; the [`JudgeOutcome`] gives the
//! [`RubricVerdict`](proctor_core::grade::RubricVerdict) for grading and, through
//! [`JudgeOutcome::to_json`], the result line's `judge` field. A [`JudgeError`] means
//! judging itself failed; [`JudgeError::is_infrastructure`] picks exit 3 or 2.
//!
//! Choices made where the design is silent:
//! - **Samples**: a verdict needs a strict majority of all N samples, undecided samples
//!   included. A tie is neither a pass nor a fail: the run is ungraded. The flip rate is
//!   the minority's share of the decided samples.
//! - **Undecided versus failed**: an answer with no parsable verdict, or a response body
//!   not in the API's shape, leaves that run ungraded. Unreachable servers after retries,
//!   auth failures, other 4xx answers and cassette misses stop judging (exit 3).
//! - **Retries**: 429, 408, 5xx, timeouts and connection failures; 5 attempts, backoff
//!   from 0.5 s doubling to 20 s with jitter; `retry-after-ms` or `retry-after`
//!   (seconds) is honoured up to 60 s. `judge_jobs` bounds requests in flight, not
//!   waits; prompts (sandbox reads) are built at most one per CPU at a time.
//! - **Bundle**: `judge_files` globs match whole relative paths and `*` crosses `/`.
//!   Symlinks are listed with their target, never followed; FIFOs and devices are never
//!   opened. The text budget goes to added and modified files before unchanged ones.
//!   Text is UTF-8 without NUL bytes. Defaults: 20,000 bytes a file, 100,000 in all,
//!   500 files listed.
//! - **Fencing**: agent-written data sits between `<<<DATA-<hash>` and `DATA-<hash>>>`
//!   lines, the hash taken over all that data, so it cannot be predicted by the agent
//!   and replay stays deterministic. File names are JSON-quoted.
//! - **Cassette keys**: SHA-256 of the compact JSON of [`cassette::CanonicalRequest`]
//!   (provider, model, template version, sample, parameters, messages, in that order).
//!   A user's template is versioned by its content hash. Answers that are not in the
//!   API's shape are never recorded; answers without a verdict are, so replay
//!   reproduces the ungraded run.
//! - **Keys**: only read from `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`, sent in one
//!   header, redacted from `Debug` and from error bodies, and never recorded.

#![warn(missing_docs)]

mod config;
mod error;
mod hash;
mod judge;
mod outcome;
mod provenance;
mod request;
mod secret;

pub mod bundle;
pub mod cassette;
pub mod client;
pub mod prompt;
pub mod verdict;

pub use bundle::{BundleLimits, Seed};
pub use cassette::CassetteMode;
pub use client::{ModelClient, Provider, RetryPolicy};
pub use config::JudgeConfig;
pub use error::JudgeError;
pub use hash::sha256_hex;
pub use judge::Judge;
pub use outcome::{JudgeOutcome, SampleVerdict};
pub use provenance::Provenance;
pub use request::JudgeRequest;
pub use secret::ApiKey;
pub use verdict::Decision;
