//! Shared helpers: scripted model clients, judge configurations, sandboxes.

use async_trait::async_trait;
use proctor_judge::client::{ChatRequest, ChatResponse, ClientError, ModelClient};
use proctor_judge::{JudgeConfig, JudgeRequest, Provider, RetryPolicy, Seed};
use serde_json::json;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A fast retry policy, so that retry tests take milliseconds.
pub fn quick_retries(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        max_throttled: 0,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        max_retry_after: Duration::from_secs(5),
    }
}

/// A judge configuration for tests: no cassette, quick retries.
pub fn config(model: &str) -> JudgeConfig {
    JudgeConfig {
        retry: quick_retries(3),
        ..JudgeConfig::new(Provider::Anthropic, model)
    }
}

/// A request over `sandbox` with the refund rubric.
pub fn request(sandbox: Option<&Path>, seed: Seed) -> JudgeRequest {
    JudgeRequest {
        rubric: "PASS only if refund_errors.log notes that O1002's invoice was not found.".into(),
        input: "Process refunds for orders O1002 and O1001.".into(),
        answer: Some("refunded O1001".into()),
        judge_files: vec![],
        sandbox: sandbox.map(Path::to_owned),
        seed,
    }
}

/// Writes `files` (relative path, contents) under `dir`.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, contents) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, contents).unwrap();
    }
}

/// An Anthropic Messages answer with `text`.
pub fn anthropic_answer(text: &str) -> serde_json::Value {
    json!({
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-20260101",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 812, "output_tokens": 64}
    })
}

/// An OpenAI Chat Completions answer with `text`.
pub fn openai_answer(text: &str) -> serde_json::Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "gpt-test",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 50, "total_tokens": 950}
    })
}

/// A client that answers from a script, in call order, and counts calls and the most
/// calls in flight at once.
#[derive(Debug)]
pub struct Scripted {
    answers: Mutex<VecDeque<Result<String, ClientError>>>,
    /// Answer used once the script runs out.
    fallback: String,
    pub calls: AtomicUsize,
    in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    delay: Duration,
    /// The last request seen.
    pub last: Mutex<Option<ChatRequest>>,
}

impl Scripted {
    pub fn always(answer: &str) -> Self {
        Scripted::new(vec![], answer)
    }

    pub fn new(script: Vec<Result<String, ClientError>>, fallback: &str) -> Self {
        Scripted {
            answers: Mutex::new(script.into()),
            fallback: fallback.to_owned(),
            calls: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            delay: Duration::ZERO,
            last: Mutex::new(None),
        }
    }

    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl ModelClient for Scripted {
    fn provider(&self) -> &str {
        "anthropic"
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        *self.last.lock().unwrap() = Some(request.clone());
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        let next = self.answers.lock().unwrap().pop_front();
        let text = next.unwrap_or_else(|| Ok(self.fallback.clone()))?;
        Ok(ChatResponse {
            text,
            model: Some("claude-test-20260101".into()),
            usage: json!({"input_tokens": 10, "output_tokens": 5}),
        })
    }
}

/// A client that answers with the user message it was sent: a model that parrots the
/// agent's files, the worst case for injection.
#[derive(Debug, Default)]
pub struct Echo;

#[async_trait]
impl ModelClient for Echo {
    fn provider(&self) -> &str {
        "anthropic"
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        let user = request
            .messages
            .last()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        Ok(ChatResponse {
            text: user,
            model: None,
            usage: serde_json::Value::Null,
        })
    }
}

/// A JSON verdict answer.
pub fn verdict(decision: &str, reasoning: &str) -> String {
    json!({"reasoning": reasoning, "verdict": decision}).to_string()
}
