//! Record/replay: modes, keys, misses, atomic pretty files without keys, and the
//! fixture cassettes under fixtures/cassettes/judge.

use crate::support::{Scripted, anthropic_answer, config, request, verdict, write_files};
use proctor_judge::cassette::{CanonicalRequest, CassetteError, Parameters};
use proctor_judge::client::{AnthropicClient, ClientOptions, Message, Role};
use proctor_judge::{
    ApiKey, CassetteMode, Decision, Judge, JudgeConfig, JudgeError, JudgeRequest, Provider, Seed,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn with_cassette(dir: &Path, mode: CassetteMode, model: &str) -> JudgeConfig {
    JudgeConfig {
        cassette: Some(dir.to_owned()),
        mode,
        ..config(model)
    }
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Records one PASS verdict for the standard request into `dir` and returns its key.
async fn record_one(dir: &Path, model: &str) -> String {
    let client = Arc::new(Scripted::always(&verdict("PASS", "recorded")));
    let judge =
        Judge::with_client(with_cassette(dir, CassetteMode::Record, model), client).unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();
    outcome.samples[0].provenance.cassette_key.clone()
}

#[test]
fn golden_key_of_a_fixed_request() {
    let request = CanonicalRequest {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-6".into(),
        template_version: "proctor-v1".into(),
        sample: 0,
        parameters: Parameters {
            temperature: 0.0,
            max_tokens: 2048,
        },
        messages: vec![
            Message {
                role: Role::System,
                content: "Be strict.".into(),
            },
            Message {
                role: Role::User,
                content: "PASS only if refund_errors.log exists.".into(),
            },
        ],
    };
    assert_eq!(
        serde_json::to_string(&request).unwrap(),
        r#"{"provider":"anthropic","model":"claude-sonnet-4-6","template_version":"proctor-v1","sample":0,"parameters":{"temperature":0.0,"max_tokens":2048},"messages":[{"role":"system","content":"Be strict."},{"role":"user","content":"PASS only if refund_errors.log exists."}]}"#
    );
    assert_eq!(
        request.key(),
        "a4b41d5d604208b820a750faf8254025d7507f5464cc6b3d06ed0820f7ac4d13"
    );
    let other_sample = CanonicalRequest {
        sample: 1,
        ..request.clone()
    };
    assert_ne!(other_sample.key(), request.key());
}

#[tokio::test]
async fn a_recording_never_contains_the_api_key_and_keys_ignore_it() {
    const SECRET: &str = "sk-ant-api03-SECRET-NEVER-WRITTEN";
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(anthropic_answer(&verdict("PASS", "ok"))),
        )
        .mount(&server)
        .await;
    let mut keys = Vec::new();
    let mut dirs = Vec::new();
    for (key, base) in [
        (SECRET, server.uri()),
        ("another-key", format!("{}/v1", server.uri())),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let client = AnthropicClient::new(ClientOptions {
            base_url: Some(base),
            api_key: Some(ApiKey::new(key)),
            timeout: Duration::from_secs(10),
        })
        .unwrap();
        let config = with_cassette(dir.path(), CassetteMode::Record, "claude-test");
        let judge = Judge::with_client(config, Arc::new(client)).unwrap();
        let outcome = judge.judge(request(None, Seed::default())).await.unwrap();
        keys.push(outcome.samples[0].provenance.cassette_key.clone());
        dirs.push(dir);
    }
    assert_eq!(
        keys[0], keys[1],
        "neither the key nor the URL is part of the cassette key"
    );
    let names = files_in(dirs[0].path());
    assert_eq!(
        names,
        [format!("{}.json", keys[0])],
        "one file per key, no temporary left"
    );
    let text = std::fs::read_to_string(dirs[0].path().join(&names[0])).unwrap();
    assert!(!text.contains(SECRET));
    assert!(!text.contains("x-api-key"));
    assert!(
        text.starts_with("{\n  \"format\": \"proctor.cassette/1\",\n  \"key\": "),
        "pretty-printed: {text}"
    );
    let recorded: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(recorded["request"]["model"], "claude-test");
    assert_eq!(recorded["response"]["text"], verdict("PASS", "ok"));
    assert_eq!(recorded["usage"]["input_tokens"], 812);
}

#[tokio::test]
async fn replay_answers_from_the_cassette_without_calling() {
    let dir = tempfile::tempdir().unwrap();
    let key = record_one(dir.path(), "m").await;
    let client = Arc::new(Scripted::always(&verdict("FAIL", "live")));
    let judge = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Replay, "m"),
        client.clone(),
    )
    .unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(client.calls(), 0);
    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert_eq!(outcome.reasoning, "recorded");
    assert!(outcome.replayed());
    assert_eq!(outcome.samples[0].provenance.cassette_key, key);
    assert_eq!(outcome.samples[0].provenance.usage["input_tokens"], 10);
}

#[tokio::test]
async fn a_replay_miss_names_the_key_and_the_closest_recording() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = record_one(dir.path(), "model-a").await;
    let client = Arc::new(Scripted::always("unused"));
    let judge = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Replay, "model-b"),
        client.clone(),
    )
    .unwrap();
    let err = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert_eq!(client.calls(), 0);
    assert!(err.is_infrastructure());
    let JudgeError::Cassette(CassetteError::Miss { key, .. }) = &err else {
        panic!("expected a miss, got {err:?}");
    };
    let message = err.to_string();
    assert!(
        message.contains(&format!("no recording for key {key}")),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "closest recorded request: {recorded}, which differs in model (wanted model-b, recorded model-a)"
        )),
        "{message}"
    );
    assert!(
        message.ends_with("record it with --cassette-mode record or auto"),
        "{message}"
    );
}

#[tokio::test]
async fn a_miss_after_a_file_changed_points_at_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = tempfile::tempdir().unwrap();
    write_files(
        sandbox.path(),
        &[("refund_errors.log", "O1002: invoice not found\n")],
    );
    let record = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Record, "m"),
        Arc::new(Scripted::always(&verdict("PASS", "ok"))),
    )
    .unwrap();
    record
        .judge(request(Some(sandbox.path()), Seed::default()))
        .await
        .unwrap();
    write_files(sandbox.path(), &[("refund_errors.log", "nothing to see\n")]);
    let replay = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Replay, "m"),
        Arc::new(Scripted::always("unused")),
    )
    .unwrap();
    let message = replay
        .judge(request(Some(sandbox.path()), Seed::default()))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("which differs in messages[1] at line 22: wanted \"15 bytes"),
        "{message}"
    );
}

#[tokio::test]
async fn misses_in_empty_and_missing_cassettes_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let judge = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Replay, "m"),
        Arc::new(Scripted::always("unused")),
    )
    .unwrap();
    let empty = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert!(
        empty
            .to_string()
            .contains("the cassette holds no recordings"),
        "{empty}"
    );
    let missing = dir.path().join("nowhere");
    let judge = Judge::with_client(
        with_cassette(&missing, CassetteMode::Replay, "m"),
        Arc::new(Scripted::always("unused")),
    )
    .unwrap();
    let err = judge
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
}

#[tokio::test]
async fn record_mode_always_calls_and_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    record_one(dir.path(), "m").await;
    let client = Arc::new(Scripted::always(&verdict("FAIL", "second take")));
    let judge = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Record, "m"),
        client.clone(),
    )
    .unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(client.calls(), 1);
    assert!(!outcome.replayed());
    let names = files_in(dir.path());
    assert_eq!(names.len(), 1);
    let text = std::fs::read_to_string(dir.path().join(&names[0])).unwrap();
    assert!(text.contains("second take"));
}

#[tokio::test]
async fn auto_mode_records_misses_and_replays_hits() {
    let dir = tempfile::tempdir().unwrap();
    let client = Arc::new(Scripted::always(&verdict("PASS", "ok")));
    let config = JudgeConfig {
        samples: 3,
        ..with_cassette(dir.path(), CassetteMode::Auto, "m")
    };
    let judge = Judge::with_client(config, client.clone()).unwrap();
    let first = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(client.calls(), 3);
    assert!(first.samples.iter().all(|s| !s.provenance.replayed));
    assert_eq!(files_in(dir.path()).len(), 3, "samples are recorded apart");
    let second = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(client.calls(), 3);
    assert!(second.replayed());
    assert_eq!(second.verdict, first.verdict);
}

#[tokio::test]
async fn malformed_answers_are_not_recorded() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("not json"))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let client = AnthropicClient::new(ClientOptions {
        base_url: Some(server.uri()),
        api_key: Some(ApiKey::new("k")),
        timeout: Duration::from_secs(10),
    })
    .unwrap();
    let judge = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Auto, "m"),
        Arc::new(client),
    )
    .unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(outcome.verdict, None);
    assert!(files_in(dir.path()).is_empty());
}

#[tokio::test]
async fn corrupt_and_edited_recordings_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let key = record_one(dir.path(), "m").await;
    let path = dir.path().join(format!("{key}.json"));
    let replay = || {
        Judge::with_client(
            with_cassette(dir.path(), CassetteMode::Replay, "m"),
            Arc::new(Scripted::always("unused")),
        )
        .unwrap()
    };
    let original = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, original.replace("\"sample\": 0", "\"sample\": 7")).unwrap();
    let edited = replay()
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert!(
        matches!(edited, JudgeError::Cassette(CassetteError::Mismatch { .. })),
        "{edited:?}"
    );
    assert!(edited.to_string().contains(&key));
    std::fs::write(&path, "{").unwrap();
    let corrupt = replay()
        .judge(request(None, Seed::default()))
        .await
        .unwrap_err();
    assert!(
        corrupt
            .to_string()
            .starts_with(&format!("cassette file {} is unreadable", path.display())),
        "{corrupt}"
    );
}

// ---- fixture cassettes -------------------------------------------------------------

const FIXTURE_MODEL: &str = "claude-sonnet-4-6";
const FIXTURE_RUBRIC: &str = "PASS only if refund_errors.log notes that O1002's invoice was not found \
     and refunds.json shows that O1001 was refunded afterwards.";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/cassettes/judge")
}

/// One fixture run: its sandbox, the agent's answer and the recorded judgement.
struct FixtureRun {
    name: &'static str,
    files: Vec<(&'static str, &'static str)>,
    answer: &'static str,
    decision: Decision,
    reasoning: &'static str,
}

/// Two runs of the recovery task: one that logged the missing invoice and carried on,
/// one that stopped. Their sandboxes are rebuilt byte for byte each time.
fn fixture_runs() -> Vec<FixtureRun> {
    vec![
        FixtureRun {
            name: "recovered",
            files: vec![
                ("orders.json", "[\"O1002\", \"O1001\"]\n"),
                ("refund_errors.log", "O1002: invoice not found\n"),
                ("refunds.json", "{\"refunded\": [\"O1001\"]}\n"),
            ],
            answer: "refunded O1001",
            decision: Decision::Pass,
            reasoning: "refund_errors.log has the line for O1002 and refunds.json lists O1001.",
        },
        FixtureRun {
            name: "stopped",
            files: vec![("orders.json", "[\"O1002\", \"O1001\"]\n")],
            answer: "could not process O1002",
            decision: Decision::Fail,
            reasoning: "There is no refund_errors.log and no refunds.json: the batch stopped at O1002.",
        },
    ]
}

fn fixture_request(sandbox: &Path, answer: &str) -> JudgeRequest {
    JudgeRequest {
        rubric: FIXTURE_RUBRIC.into(),
        input: "Process refunds for orders O1002 and O1001, in that order. Log any order you \
                cannot process to refund_errors.log and carry on with the rest.\n"
            .into(),
        answer: Some(answer.into()),
        judge_files: vec![],
        sandbox: Some(sandbox.to_owned()),
        seed: Seed::from_contents([("orders.json", "[\"O1002\", \"O1001\"]\n")]),
    }
}

/// Regenerates fixtures/cassettes/judge by recording against a local mock server (run
/// with `cargo test -p proctor-judge --test judge -- --ignored regenerate`), after a
/// change to the template or the bundle format changed every key.
#[tokio::test]
#[ignore = "rewrites the fixture cassettes"]
async fn regenerate_fixture_cassettes() {
    let dir = fixture_dir();
    if dir.exists() {
        for name in files_in(&dir).iter().filter(|n| n.ends_with(".json")) {
            std::fs::remove_file(dir.join(name)).unwrap();
        }
    }
    for run in fixture_runs() {
        let server = MockServer::start().await;
        let mut body = anthropic_answer(&verdict(run.decision.name(), run.reasoning));
        body["model"] = "claude-sonnet-4-6-20260101".into();
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server)
            .await;
        let client = AnthropicClient::new(ClientOptions {
            base_url: Some(server.uri()),
            api_key: Some(ApiKey::new("sk-ant-fixture-recording")),
            timeout: Duration::from_secs(10),
        })
        .unwrap();
        let config = JudgeConfig {
            cassette: Some(dir.clone()),
            mode: CassetteMode::Record,
            ..JudgeConfig::new(Provider::Anthropic, FIXTURE_MODEL)
        };
        let judge = Judge::with_client(config, Arc::new(client)).unwrap();
        let sandbox = tempfile::tempdir().unwrap();
        write_files(sandbox.path(), &run.files);
        judge
            .judge(fixture_request(sandbox.path(), run.answer))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn fixture_cassettes_replay_offline() {
    // Judge::new as the command line builds it: replay needs no API key.
    let config = JudgeConfig {
        cassette: Some(fixture_dir()),
        mode: CassetteMode::Replay,
        ..JudgeConfig::new(Provider::Anthropic, FIXTURE_MODEL)
    };
    let judge = Judge::new(config).unwrap();
    for run in fixture_runs() {
        let name = run.name;
        let sandbox = tempfile::tempdir().unwrap();
        write_files(sandbox.path(), &run.files);
        let outcome = judge
            .judge(fixture_request(sandbox.path(), run.answer))
            .await
            .unwrap();
        assert_eq!(outcome.verdict, Some(run.decision), "{name}");
        assert_eq!(outcome.reasoning, run.reasoning, "{name}");
        let provenance = &outcome.samples[0].provenance;
        assert!(provenance.replayed, "{name}");
        assert_eq!(
            provenance.served_model.as_deref(),
            Some("claude-sonnet-4-6-20260101")
        );
        assert_eq!(provenance.usage["output_tokens"], 64);
    }
    let names = files_in(&fixture_dir());
    assert_eq!(
        names.len(),
        fixture_runs().len(),
        "stale recordings: {names:?}"
    );
    for name in names {
        let text = std::fs::read_to_string(fixture_dir().join(&name)).unwrap();
        assert!(
            !text.contains("sk-ant-fixture-recording"),
            "{name} holds the key"
        );
    }
}

#[tokio::test]
async fn record_mode_asks_the_model_once_per_distinct_request() {
    let dir = tempfile::tempdir().unwrap();
    record_one(dir.path(), "m").await;
    let client = Arc::new(Scripted::always(&verdict("FAIL", "recorded again")));
    let judge = Judge::with_client(
        with_cassette(dir.path(), CassetteMode::Record, "m"),
        client.clone(),
    )
    .unwrap();
    // The same request from three attempts, two of them at once: one call, and the older
    // recording is overwritten by this run's.
    let (a, b) = tokio::join!(
        judge.judge(request(None, Seed::default())),
        judge.judge(request(None, Seed::default()))
    );
    let c = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(client.calls(), 1);
    for outcome in [a.unwrap(), b.unwrap(), c] {
        assert_eq!(outcome.verdict, Some(Decision::Fail));
    }
    let names = files_in(dir.path());
    let text = std::fs::read_to_string(dir.path().join(&names[0])).unwrap();
    assert!(text.contains("recorded again"), "{text}");
}
