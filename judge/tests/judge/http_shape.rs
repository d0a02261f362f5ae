//! The HTTP requests both providers send: path, headers and body.

use crate::support::{anthropic_answer, config, openai_answer, request, verdict};
use proctor_judge::client::{AnthropicClient, ClientOptions, OpenAiClient};
use proctor_judge::{ApiKey, Decision, Judge, Seed};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn options(server: &MockServer, key: Option<&str>) -> ClientOptions {
    ClientOptions {
        base_url: Some(server.uri()),
        api_key: key.map(ApiKey::new),
        timeout: Duration::from_secs(10),
    }
}

#[tokio::test]
async fn anthropic_messages_request_shape() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-ant-test"))
        .and(header("anthropic-version", "2023-06-01"))
        .and(header("content-type", "application/json"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(anthropic_answer(&verdict("PASS", "the log line is there"))),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = AnthropicClient::new(options(&server, Some("sk-ant-test"))).unwrap();
    let judge = Judge::with_client(config("claude-test"), Arc::new(client)).unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();

    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert_eq!(outcome.reasoning, "the log line is there");
    let sent = &server.received_requests().await.unwrap()[0];
    let body: Value = sent.body_json().unwrap();
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["model", "max_tokens", "temperature", "messages", "system"]
    );
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["max_tokens"], 2048);
    assert!(
        body["system"]
            .as_str()
            .unwrap()
            .starts_with("You are the grader")
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    let user = messages[0]["content"].as_str().unwrap();
    assert!(user.contains("refund_errors.log notes that O1002"));
    assert!(user.contains("No sandbox was kept"));

    let provenance = &outcome.samples[0].provenance;
    assert_eq!(provenance.provider, "anthropic");
    assert_eq!(provenance.model, "claude-test");
    assert_eq!(
        provenance.served_model.as_deref(),
        Some("claude-test-20260101")
    );
    assert!(!provenance.replayed);
    assert_eq!(
        provenance.usage,
        json!({"provider": "anthropic", "model": "claude-test", "input_tokens": 812, "output_tokens": 64})
    );
}

#[tokio::test]
async fn openai_chat_completions_request_shape() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-openai-test"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(openai_answer("No log.\nVERDICT: FAIL")),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = OpenAiClient::new(options(&server, Some("sk-openai-test"))).unwrap();
    let judge = Judge::with_client(config("gpt-test"), Arc::new(client)).unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();

    assert_eq!(outcome.verdict, Some(Decision::Fail));
    assert_eq!(outcome.reasoning, "No log.");
    let sent = &server.received_requests().await.unwrap()[0];
    let body: Value = sent.body_json().unwrap();
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["model", "messages", "temperature", "max_tokens"]);
    assert_eq!(body["temperature"], 0.0);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user"]);
    let usage = &outcome.samples[0].provenance.usage;
    assert_eq!(usage["provider"], "openai");
    assert_eq!(usage["prompt_tokens"], 900);
    assert_eq!(usage["completion_tokens"], 50);
}

#[tokio::test]
async fn openai_compatible_server_without_key_and_with_v1_base() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(openai_answer(&verdict("PASS", "ok"))),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = OpenAiClient::new(ClientOptions {
        // Base URLs for local servers are usually written with /v1.
        base_url: Some(format!("{}/v1/", server.uri())),
        api_key: None,
        timeout: Duration::from_secs(10),
    })
    .unwrap();
    let judge = Judge::with_client(config("llama-local"), Arc::new(client)).unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();

    assert_eq!(outcome.verdict, Some(Decision::Pass));
    let sent = &server.received_requests().await.unwrap()[0];
    assert!(sent.headers.get("authorization").is_none());
}

#[tokio::test]
async fn anthropic_without_a_key_names_the_variable_and_sends_nothing() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let client = AnthropicClient::new(options(&server, None)).unwrap();
    let judge = Judge::with_client(config("claude-test"), Arc::new(client)).unwrap();
    let err = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();

    assert_eq!(
        err.to_string(),
        "judge call failed: anthropic: no API key; set ANTHROPIC_API_KEY"
    );
    assert!(!err.is_infrastructure(), "a missing key is a usage error");
}
