//! An LLM playing the user from the task's `instructions`, through the judge's model
//! clients and cassettes (`--user-model`, `--user-provider`, `--user-base-url`;
//! `--cassette` and `--cassette-mode` as for the judge), so a run with an LLM user
//! replays offline from its recorded answers.

use super::Said;
use proctor_core::task::UserSpec;
use proctor_judge::cassette::{CanonicalRequest, Cassette};
use proctor_judge::client::{ChatRequest, ClientOptions, Message, ModelClient, Role};
use proctor_judge::{CassetteMode, Provider, RetryPolicy, client::RetryingClient};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Recorded in cassette keys: an edit of the prompt below changes every key.
pub const PROMPT_VERSION: &str = "user-v1";
/// The longest reply asked for.
const MAX_TOKENS: u32 = 1024;
/// Calls in flight at most, over the run.
const CALLS_IN_FLIGHT: usize = 8;

/// Why the simulated user could not reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserFailure {
    pub message: String,
    /// The model cannot be reached (after retries) or its cassette missed: a failure of the
    /// evaluation, which stops the run as the judge's does, rather than of one attempt.
    pub infrastructure: bool,
}

impl UserFailure {
    /// A failure of this attempt's conversation alone.
    pub fn of_attempt(message: String) -> UserFailure {
        UserFailure {
            message,
            infrastructure: false,
        }
    }
}

/// How the model playing users is reached.
#[derive(Debug, Clone)]
pub struct UserModelConfig {
    pub provider: Provider,
    pub model: String,
    pub base_url: Option<String>,
    pub cassette: Option<PathBuf>,
    pub mode: CassetteMode,
    pub timeout: Duration,
}

/// The model playing every LLM user of a run.
#[derive(Debug)]
pub struct UserModel {
    client: RetryingClient,
    model: String,
    cassette: Option<Cassette>,
    mode: CassetteMode,
}

impl UserModel {
    /// The run's user model: `None` when no task in scope has an LLM user or no
    /// `--user-model` is given (`config` is `None`; a task that needs one then says so).
    pub fn for_run(
        config: Option<UserModelConfig>,
        suite: &proctor_core::task::Suite,
        tasks: &[usize],
    ) -> anyhow::Result<Option<Arc<UserModel>>> {
        let needed = tasks
            .iter()
            .any(|&i| suite.tasks[i].user().is_some_and(UserSpec::needs_model));
        let Some(config) = config.filter(|_| needed) else {
            return Ok(None);
        };
        let model =
            UserModel::new(config).map_err(|e| crate::exit::bad_input!("--user-model: {e}"))?;
        Ok(Some(Arc::new(model)))
    }

    /// The model's client, with the provider's key from its variable; a missing required
    /// key is refused now when every call goes to the model (as for the judge).
    pub fn new(config: UserModelConfig) -> Result<UserModel, String> {
        let provider = config.provider;
        let options =
            ClientOptions::from_env(provider.key_variable(), config.base_url, config.timeout);
        let always_calls = config.cassette.is_none() || config.mode == CassetteMode::Record;
        if always_calls && provider.key_required() && options.api_key.is_none() {
            return Err(format!(
                "the simulated user's model needs {}; set it, or replay with --cassette DIR",
                provider.key_variable()
            ));
        }
        let client = provider.client(options).map_err(|e| e.to_string())?;
        Ok(UserModel {
            client: RetryingClient::new(client, RetryPolicy::default(), CALLS_IN_FLIGHT),
            model: config.model,
            cassette: config.cassette.map(Cassette::new),
            mode: config.mode,
        })
    }

    /// The user's reply to `message`, after `history` (which starts with the task's input).
    pub async fn reply(
        &self,
        instructions: &str,
        history: &[Said],
        message: &str,
    ) -> Result<String, UserFailure> {
        let chat = ChatRequest {
            model: self.model.clone(),
            messages: messages(instructions, history, message),
            temperature: 0.0,
            max_tokens: MAX_TOKENS,
        };
        let canonical = CanonicalRequest::new(self.client.provider(), &chat, PROMPT_VERSION, 0);
        let answer = proctor_judge::cassette::answer(
            &self.client,
            self.cassette.as_ref(),
            self.mode,
            &chat,
            &canonical,
        )
        .await
        .map_err(|e| UserFailure {
            infrastructure: e.is_infrastructure(),
            message: format!("the simulated user's model: {e}"),
        })?;
        match answer {
            Ok((response, _replayed)) => Ok(response.text.trim().to_owned()),
            Err(malformed) => Err(UserFailure::of_attempt(format!(
                "the simulated user's model: {malformed}"
            ))),
        }
    }
}

/// The conversation from the user's side: the instructions and the opening message as
/// the system prompt, then the agent's messages as the other party's and the user's own
/// replies as the model's.
fn messages(instructions: &str, history: &[Said], message: &str) -> Vec<Message> {
    let opening = history.first().map_or("", |said| said.content.as_str());
    let system = format!(
        "You play a user talking to an AI assistant, to test the assistant. Follow these \
         instructions:\n\n{instructions}\n\nYou opened the conversation with this message:\n\n\
         {opening}\n\nWrite only what the user says next, one message at a time, in the user's \
         voice. Do not make up facts the instructions do not give. When your request is done, \
         or cannot be done, reply with {} alone.",
        proctor_core::task::STOP
    );
    let mut messages = vec![Message {
        role: Role::System,
        content: system,
    }];
    for said in history.iter().skip(1) {
        messages.push(Message {
            role: if said.by_agent() {
                Role::User
            } else {
                Role::Assistant
            },
            content: said.content.clone(),
        });
    }
    messages.push(Message {
        role: Role::User,
        content: message.to_owned(),
    });
    messages
}
