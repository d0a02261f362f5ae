//! Judge throughput against a local mock server that answers after a fixed latency.
//!
//! With `jobs` calls in flight and `latency` per answer, the ideal is `jobs / latency`
//! verdicts per second (320/s for 32 jobs at 100 ms). The benchmark prints the judge's
//! rate as a fraction of that ideal (the target is at least 0.85), and, as a baseline
//! measured in the same run, the rate of bare model calls through the same client, so
//! that the judge's own overhead (bundle, prompt, parsing) shows apart from HTTP's.
//!
//! Run: `bench/judge/run.sh` or `cargo bench -p proctor-judge --bench judge_throughput
//! -- [--verdicts N] [--jobs J] [--latency-ms L]`. Only 127.0.0.1 is contacted.

use proctor_judge::client::{
    AnthropicClient, ChatRequest, ClientOptions, Message, ModelClient, RetryingClient, Role,
};
use proctor_judge::{ApiKey, Judge, JudgeConfig, JudgeRequest, Provider, RetryPolicy, Seed};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The target share of the ideal rate.
const TARGET: f64 = 0.85;

struct Options {
    verdicts: usize,
    jobs: usize,
    latency: Duration,
}

fn options() -> Options {
    let mut options = Options {
        verdicts: 1000,
        jobs: 32,
        latency: Duration::from_millis(100),
    };
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    if let Some(n) = value("--verdicts") {
        options.verdicts = n as usize;
    }
    if let Some(n) = value("--jobs") {
        options.jobs = n as usize;
    }
    if let Some(ms) = value("--latency-ms") {
        options.latency = Duration::from_millis(ms);
    }
    options
}

/// A sandbox like a refund run's: a few small text files, one binary, one seed file
/// changed. Deterministic, so every run judges the same bundle.
fn make_sandbox(dir: &Path) -> Seed {
    let orders: Vec<String> = (0..40).map(|i| format!("O{:04}", 1000 + i)).collect();
    let orders_json = serde_json::to_string_pretty(&orders).unwrap();
    std::fs::write(dir.join("orders.json"), &orders_json).unwrap();
    std::fs::create_dir_all(dir.join("invoices")).unwrap();
    for order in orders.iter().take(8) {
        let invoice = json!({"order": order, "total": 42.5, "lines": ["blender", "warranty"]});
        std::fs::write(
            dir.join(format!("invoices/{order}.json")),
            invoice.to_string(),
        )
        .unwrap();
    }
    let log: String = (0..30)
        .map(|i| {
            format!(
                "2026-11-0{} O{:04}: invoice not found\n",
                1 + i % 9,
                1000 + i
            )
        })
        .collect();
    std::fs::write(dir.join("refund_errors.log"), log).unwrap();
    std::fs::write(
        dir.join("refunds.json"),
        json!({"refunded": orders[..10]}).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("chart.png"),
        [0x89u8, b'P', b'N', b'G', 0, 0, 0, 13],
    )
    .unwrap();
    Seed::from_contents([("orders.json", "[]")])
}

fn judge_request(sandbox: &Path, seed: &Seed) -> JudgeRequest {
    JudgeRequest {
        rubric: "PASS only if refund_errors.log notes each order whose invoice was not found \
                 and refunds.json lists the others."
            .into(),
        input: "Process the refunds in orders.json; log the orders you cannot process.".into(),
        answer: Some("refunded 10 orders, logged 30".into()),
        judge_files: vec![],
        sandbox: Some(sandbox.to_owned()),
        seed: seed.clone(),
    }
}

async fn mock_server(latency: Duration) -> MockServer {
    let server = MockServer::builder()
        .disable_request_recording()
        .start()
        .await;
    let answer = json!({
        "model": "claude-bench",
        "content": [{"type": "text", "text": "{\"reasoning\": \"all logged\", \"verdict\": \"PASS\"}"}],
        "usage": {"input_tokens": 1500, "output_tokens": 30}
    });
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(answer)
                .set_delay(latency),
        )
        .mount(&server)
        .await;
    server
}

/// Runs `count` tasks made by `make`, all spawned at once, and returns the wall time.
async fn run_all<F, Fut>(count: usize, make: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..count {
        set.spawn(make());
    }
    while let Some(done) = set.join_next().await {
        done.expect("a benchmark task panicked");
    }
    started.elapsed()
}

async fn bench(options: Options) {
    let server = mock_server(options.latency).await;
    let sandbox = tempfile::tempdir().unwrap();
    let seed = make_sandbox(sandbox.path());
    let client = Arc::new(
        AnthropicClient::new(ClientOptions {
            base_url: Some(server.uri()),
            api_key: Some(ApiKey::new("bench-key")),
            timeout: Duration::from_secs(30),
        })
        .unwrap(),
    );
    let config = JudgeConfig {
        jobs: options.jobs,
        retry: RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        },
        ..JudgeConfig::new(Provider::Anthropic, "claude-bench")
    };
    let judge = Judge::with_client(config, client.clone()).unwrap();
    let prompt = judge.prompt(&judge_request(sandbox.path(), &seed)).unwrap();
    let ideal = options.jobs as f64 / options.latency.as_secs_f64();

    // Warm up: open the connections both runs will reuse.
    let warm = options.jobs;
    run_all(warm, || {
        let judge = judge.clone();
        let request = judge_request(sandbox.path(), &seed);
        async move {
            judge.judge(request).await.unwrap();
        }
    })
    .await;

    // Baseline: bare calls through the same client and bound, no bundle, no parsing.
    let bare = RetryingClient::new(client, RetryPolicy::default(), options.jobs);
    let chat = ChatRequest {
        model: "claude-bench".into(),
        messages: vec![Message {
            role: Role::User,
            content: prompt.user.clone(),
        }],
        temperature: 0.0,
        max_tokens: 2048,
    };
    let baseline = run_all(options.verdicts, || {
        let bare = bare.clone();
        let chat = chat.clone();
        async move {
            bare.complete(&chat).await.unwrap();
        }
    })
    .await;

    let elapsed = run_all(options.verdicts, || {
        let judge = judge.clone();
        let request = judge_request(sandbox.path(), &seed);
        async move {
            let outcome = judge.judge(request).await.unwrap();
            assert!(outcome.verdict.is_some());
        }
    })
    .await;

    let rate = options.verdicts as f64 / elapsed.as_secs_f64();
    let baseline_rate = options.verdicts as f64 / baseline.as_secs_f64();
    let fraction = rate / ideal;
    println!(
        "judge throughput: {} verdicts, judge_jobs {}, mock latency {} ms, prompt {} bytes",
        options.verdicts,
        options.jobs,
        options.latency.as_millis(),
        prompt.user.len()
    );
    println!("ideal                 {ideal:8.1} verdicts/s");
    println!(
        "bare calls (baseline) {baseline_rate:8.1} verdicts/s  {:.3} of ideal  ({:.2} s)",
        baseline_rate / ideal,
        baseline.as_secs_f64()
    );
    println!(
        "judge                 {rate:8.1} verdicts/s  {fraction:.3} of ideal  ({:.2} s)  {:.3} of baseline",
        elapsed.as_secs_f64(),
        rate / baseline_rate
    );
    println!(
        "fraction of ideal: {fraction:.3} (target {TARGET}) {}",
        if fraction >= TARGET {
            "ok"
        } else {
            "BELOW TARGET"
        }
    );
}

fn main() {
    let options = options();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(bench(options));
}
