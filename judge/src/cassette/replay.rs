//! A model call through a cassette: replayed when recorded, else called (and recorded)
//! as the mode allows. The judge and the simulated user of `proctor run` both ask this way.

use super::{CanonicalRequest, Cassette, CassetteMode};
use crate::client::{ChatRequest, ChatResponse, ClientError, ModelClient, RetryingClient};
use crate::error::JudgeError;

/// The model's answer and whether it was replayed. The inner `Err` is a malformed
/// response: the caller's run's problem, not the evaluation's. Malformed answers are never
/// recorded. Without a cassette every call goes to the model.
pub async fn answer(
    client: &RetryingClient,
    cassette: Option<&Cassette>,
    mode: CassetteMode,
    chat: &ChatRequest,
    canonical: &CanonicalRequest,
) -> Result<Result<(ChatResponse, bool), ClientError>, JudgeError> {
    let Some(cassette) = cassette else {
        return call(client, chat).await.map(|r| r.map(|a| (a, false)));
    };
    if mode == CassetteMode::Replay {
        return match cassette.load(canonical)? {
            Some(recording) => Ok(Ok((recording.into_response(), true))),
            None => Err(cassette.miss(canonical).into()),
        };
    }
    // One request is asked once per process: a second asker waits for the first and takes
    // its recording. Record mode reuses only what this process recorded.
    let asked = cassette.asked(canonical.key());
    let mut recorded_here = asked.lock().await;
    if (mode == CassetteMode::Auto || *recorded_here)
        && let Some(recording) = cassette.load(canonical)?
    {
        return Ok(Ok((recording.into_response(), true)));
    }
    let response = match call(client, chat).await? {
        Ok(response) => response,
        Err(malformed) => return Ok(Err(malformed)),
    };
    cassette.save(canonical, &response)?;
    *recorded_here = true;
    Ok(Ok((response, false)))
}

/// A call through the retrying client, sorting malformed answers from failures.
async fn call(
    client: &RetryingClient,
    chat: &ChatRequest,
) -> Result<Result<ChatResponse, ClientError>, JudgeError> {
    match client.complete(chat).await {
        Ok(response) => Ok(Ok(response)),
        Err(error) if error.is_malformed() => Ok(Err(error)),
        Err(error) => Err(error.into()),
    }
}
