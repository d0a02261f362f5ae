//! Retries on 429 and 5xx, retry-after, timeouts, malformed bodies, auth failures, and
//! the bound on calls in flight.

use crate::support::{Scripted, anthropic_answer, config, quick_retries, request, verdict};
use proctor_judge::client::{AnthropicClient, ClientError, ClientOptions, OpenAiClient};
use proctor_judge::{ApiKey, Decision, Judge, JudgeConfig, JudgeError, JudgeRequest, Seed};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn anthropic(server: &MockServer, timeout: Duration) -> Arc<AnthropicClient> {
    Arc::new(
        AnthropicClient::new(ClientOptions {
            base_url: Some(server.uri()),
            api_key: Some(ApiKey::new("sk-ant-test")),
            timeout,
        })
        .unwrap(),
    )
}

fn pass_answer() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(anthropic_answer(&verdict("PASS", "fine")))
}

/// Mounts `first` for the first `times` requests, then a PASS answer.
async fn failing_then_pass(first: ResponseTemplate, times: u64) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(first)
        .up_to_n_times(times)
        .expect(times)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(pass_answer())
        .expect(1)
        .mount(&server)
        .await;
    server
}

async fn judge_once(
    server: &MockServer,
    config: JudgeConfig,
) -> Result<proctor_judge::JudgeOutcome, JudgeError> {
    let judge = Judge::with_client(config, anthropic(server, Duration::from_secs(10))).unwrap();
    judge.judge(request(None, Seed::default())).await
}

#[tokio::test]
async fn retries_a_429_then_passes() {
    let server = failing_then_pass(ResponseTemplate::new(429), 2).await;
    let outcome = judge_once(&server, config("m")).await.unwrap();
    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn retries_a_503_then_passes() {
    let server =
        failing_then_pass(ResponseTemplate::new(503).set_body_string("overloaded"), 1).await;
    let outcome = judge_once(&server, config("m")).await.unwrap();
    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn honours_retry_after() {
    // The backoff alone would wait about a millisecond; the server asks for one second.
    let throttled = ResponseTemplate::new(429).insert_header("retry-after", "1");
    let server = failing_then_pass(throttled, 1).await;
    let started = Instant::now();
    let outcome = judge_once(&server, config("m")).await.unwrap();
    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn honours_retry_after_ms() {
    let throttled = ResponseTemplate::new(429).insert_header("retry-after-ms", "300");
    let server = failing_then_pass(throttled, 1).await;
    let started = Instant::now();
    judge_once(&server, config("m")).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn gives_up_after_the_last_attempt_as_infrastructure() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("boom"))
        .expect(3)
        .mount(&server)
        .await;
    let err = judge_once(&server, config("m")).await.unwrap_err();
    let JudgeError::Client(ClientError::GaveUp { attempts, last }) = &err else {
        panic!("expected GaveUp, got {err:?}");
    };
    assert_eq!(*attempts, 3);
    assert!(matches!(**last, ClientError::Status { status: 500, .. }));
    assert!(err.is_infrastructure());
    assert!(
        err.to_string().ends_with("(gave up after 3 attempts)"),
        "{err}"
    );
    assert!(err.to_string().contains("HTTP 500"), "{err}");
}

/// A configuration whose calls get 2 attempts for failures and wait out 8 throttled answers.
fn patient_with_throttling() -> JudgeConfig {
    let mut config = config("m");
    config.retry.max_attempts = 2;
    config.retry.max_throttled = 8;
    config
}

#[tokio::test]
async fn throttled_answers_are_waited_out_beyond_the_attempts_for_failures() {
    let server = failing_then_pass(ResponseTemplate::new(429), 6).await;
    let outcome = judge_once(&server, patient_with_throttling())
        .await
        .unwrap();
    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert_eq!(server.received_requests().await.unwrap().len(), 7);
}

#[tokio::test]
async fn a_throttling_storm_longer_than_its_allowance_gives_up() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_string("overloaded"))
        .mount(&server)
        .await;
    let err = judge_once(&server, patient_with_throttling())
        .await
        .unwrap_err();
    let JudgeError::Client(ClientError::GaveUp { attempts, last }) = &err else {
        panic!("expected GaveUp, got {err:?}");
    };
    // 8 throttled answers waited out, then the 2 attempts any failure gets.
    assert_eq!(*attempts, 10);
    assert!(matches!(**last, ClientError::Status { status: 529, .. }));
    assert!(err.is_infrastructure());
}

#[tokio::test]
async fn times_out_and_retries_timeouts() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(pass_answer().set_delay(Duration::from_secs(5)))
        .expect(2)
        .mount(&server)
        .await;
    let config = JudgeConfig {
        retry: quick_retries(2),
        ..config("m")
    };
    let judge = Judge::with_client(config, anthropic(&server, Duration::from_millis(200))).unwrap();
    let err = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    let JudgeError::Client(ClientError::GaveUp { attempts: 2, last }) = &err else {
        panic!("expected GaveUp after 2 attempts, got {err:?}");
    };
    assert!(matches!(**last, ClientError::Timeout { .. }), "{last:?}");
    assert!(err.to_string().contains("no answer from"), "{err}");
    assert!(err.is_infrastructure());
}

#[tokio::test]
async fn an_unreachable_server_is_infrastructure() {
    // Bind a port, then free it: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = AnthropicClient::new(ClientOptions {
        base_url: Some(format!("http://127.0.0.1:{port}")),
        api_key: Some(ApiKey::new("k")),
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let judge = Judge::with_client(config("m"), Arc::new(client)).unwrap();
    let err = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert!(err.is_infrastructure());
    assert!(err.to_string().contains("cannot reach"), "{err}");
}

#[tokio::test]
async fn a_malformed_body_leaves_the_run_ungraded_without_retrying() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>proxy error</html>"))
        .expect(1)
        .mount(&server)
        .await;
    let outcome = judge_once(&server, config("m")).await.unwrap();
    assert_eq!(outcome.verdict, None);
    let error = outcome.error.unwrap();
    assert!(
        error.starts_with("anthropic: malformed response from"),
        "{error}"
    );
    assert!(error.contains("<html>proxy error</html>"), "{error}");
    assert!(outcome.samples[0].provenance.usage.is_null());
}

#[tokio::test]
async fn json_in_the_wrong_shape_is_malformed_too() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(serde_json::json!({"completion": "PASS"})),
        )
        .mount(&server)
        .await;
    let outcome = judge_once(&server, config("m")).await.unwrap();
    assert!(outcome.error.unwrap().contains("no `content` array"));
}

#[tokio::test]
async fn auth_failures_are_not_retried_and_name_the_variable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_string("invalid x-api-key"))
        .expect(1)
        .mount(&server)
        .await;
    let err = judge_once(&server, config("m")).await.unwrap_err();
    assert!(
        matches!(
            err,
            JudgeError::Client(ClientError::Auth { status: 401, .. })
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("set ANTHROPIC_API_KEY to a valid key"),
        "{err}"
    );
    assert!(err.is_infrastructure());

    let openai_server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(403))
        .expect(1)
        .mount(&openai_server)
        .await;
    let client = OpenAiClient::new(ClientOptions {
        base_url: Some(openai_server.uri()),
        api_key: Some(ApiKey::new("sk-wrong")),
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let judge = Judge::with_client(config("gpt"), Arc::new(client)).unwrap();
    let err = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("HTTP 403"), "{err}");
    assert!(err.to_string().contains("set OPENAI_API_KEY"), "{err}");
}

#[tokio::test]
async fn other_client_errors_are_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(404).set_body_string("model not found"))
        .expect(1)
        .mount(&server)
        .await;
    let err = judge_once(&server, config("m")).await.unwrap_err();
    assert!(err.to_string().contains("HTTP 404"), "{err}");
    assert!(err.to_string().contains("model not found"), "{err}");
}

#[tokio::test]
async fn error_bodies_never_echo_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_string("bad request for key sk-ant-test"))
        .mount(&server)
        .await;
    let err = judge_once(&server, config("m")).await.unwrap_err();
    assert!(!err.to_string().contains("sk-ant-test"), "{err}");
    assert!(err.to_string().contains("<redacted>"), "{err}");
}

#[tokio::test]
async fn judge_jobs_bounds_calls_in_flight() {
    let client =
        Arc::new(Scripted::always(&verdict("PASS", "ok")).with_delay(Duration::from_millis(30)));
    let config = JudgeConfig {
        jobs: 3,
        ..config("m")
    };
    let judge = Judge::with_client(config, client.clone()).unwrap();
    let mut runs = tokio::task::JoinSet::new();
    for _ in 0..12 {
        let judge = judge.clone();
        runs.spawn(async move {
            let request: JudgeRequest = request(None, Seed::default());
            judge.judge(request).await.unwrap()
        });
    }
    while let Some(done) = runs.join_next().await {
        assert_eq!(done.unwrap().verdict, Some(Decision::Pass));
    }
    assert_eq!(client.calls(), 12);
    assert_eq!(client.max_in_flight.load(Ordering::SeqCst), 3);
}
