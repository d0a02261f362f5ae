//! Judge calls in flight in `run`, `grade` and `judge`, against a mock model on
//! 127.0.0.1: more than one call at once and never more than `--judge-jobs`, an agent
//! slot freed while its attempt waits for the verdict, results in the log's order, a 429
//! storm waited out, and Ctrl-C while verdicts are awaited.

use crate::common::results;
use crate::common::{Output, judge_kept, proctor, run, write};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate, matchers};

/// Judge calls allowed in flight in these tests.
const JUDGE_JOBS: usize = 4;

/// An OpenAI-compatible model that answers PASS when the agent's answer says `zqgood`,
/// after 250 ms when it says `zqslow` and 60 ms otherwise, and throttles (429) the first
/// `throttled` calls. It notes when each call came and how long its answer was held.
struct MockModel {
    calls: Arc<Mutex<Vec<(Instant, Duration)>>>,
    throttled: AtomicUsize,
    delay_scale: u32,
}

impl Respond for MockModel {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let throttle = self
            .throttled
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if throttle {
            return ResponseTemplate::new(429).insert_header("retry-after-ms", "5");
        }
        let body = String::from_utf8_lossy(&request.body);
        let delay = if body.contains("zqslow") { 250 } else { 60 };
        let delay = Duration::from_millis(delay) * self.delay_scale;
        self.calls.lock().unwrap().push((Instant::now(), delay));
        let verdict = if body.contains("zqgood") {
            "PASS"
        } else {
            "FAIL"
        };
        let content = json!({"reasoning": "looked", "verdict": verdict}).to_string();
        ResponseTemplate::new(200)
            .set_body_json(json!({
                "model": "mock",
                "choices": [{"message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            }))
            .set_delay(delay)
    }
}

/// The mock model on its own runtime, which must outlive the commands run against it.
pub struct Model {
    _runtime: tokio::runtime::Runtime,
    server: MockServer,
    calls: Arc<Mutex<Vec<(Instant, Duration)>>>,
}

impl Model {
    pub fn start(throttled: usize, delay_scale: u32) -> Model {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let calls = Arc::new(Mutex::new(Vec::new()));
        let server = runtime.block_on(async {
            let server = MockServer::start().await;
            Mock::given(matchers::method("POST"))
                .and(matchers::path("/v1/chat/completions"))
                .respond_with(MockModel {
                    calls: calls.clone(),
                    throttled: AtomicUsize::new(throttled),
                    delay_scale,
                })
                .mount(&server)
                .await;
            server
        });
        Model {
            _runtime: runtime,
            server,
            calls,
        }
    }

    /// The judge flags for this model, with `--judge-jobs` at [`JUDGE_JOBS`].
    pub fn flags(&self) -> Vec<String> {
        let jobs = JUDGE_JOBS.to_string();
        let uri = self.server.uri();
        [
            "--judge-provider",
            "openai",
            "--judge-model",
            "mock",
            "--judge-base-url",
            &uri,
            "--judge-jobs",
            &jobs,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    fn answered(&self) -> usize {
        self.calls.lock().unwrap().len()
    }

    /// The most calls held at once. A call is held at least from its arrival for its
    /// delay, so this never counts more than were really in flight.
    fn most_at_once(&self) -> usize {
        let mut events: Vec<(Instant, i32)> = Vec::new();
        for &(at, held) in self.calls.lock().unwrap().iter() {
            events.push((at, 1));
            events.push((at + held, -1));
        }
        // At the same instant an answer ends before the next call counts.
        events.sort();
        let (mut now, mut most) = (0i32, 0i32);
        for (_, step) in events {
            now += step;
            most = most.max(now);
        }
        most as usize
    }

    fn assert_concurrent(&self, command: &str) {
        let most = self.most_at_once();
        assert!(
            most > 1 && most <= JUDGE_JOBS,
            "{command}: {most} judge calls at once, expected 2..={JUDGE_JOBS}"
        );
    }
}

/// A task with a rubric and one without, in a temporary folder.
fn tasks(dir: &Path) -> PathBuf {
    write(
        dir,
        "tasks.yaml",
        "- id: poem\n  input: write a poem\n  rubric: PASS if the poem is fine\n\
         - id: sum\n  input: add 2 and 2\n  expected: \"4\"\n",
    )
}

/// The answer the agent gives in attempt `n`: good on even attempts, slow on every third.
fn answer(n: usize) -> String {
    let quality = if n.is_multiple_of(2) {
        "zqgood"
    } else {
        "zqbad"
    };
    let speed = if n.is_multiple_of(3) { " zqslow" } else { "" };
    format!("{quality}{speed} {n}")
}

/// An outcome log of `n` poems and a `sum` line after every fourth.
fn outcome_log(dir: &Path, n: usize) -> (PathBuf, Vec<(String, String)>) {
    let mut text = String::new();
    let mut expected = Vec::new();
    for i in 0..n {
        let line = json!({"task": "poem", "status": "final", "answer": answer(i)});
        text.push_str(&format!("{line}\n"));
        expected.push(("poem".to_owned(), answer(i)));
        if i % 4 == 3 {
            text.push_str("{\"task\": \"sum\", \"status\": \"final\", \"answer\": \"4\"}\n");
            expected.push(("sum".to_owned(), "4".to_owned()));
        }
    }
    (write(dir, "log.jsonl", &text), expected)
}

fn grade(dir: &Path, log: &Path, model: &Model) -> (Output, PathBuf) {
    let out = dir.join("graded.jsonl");
    let output = run(proctor()
        .arg("grade")
        .arg("--tasks")
        .arg(tasks(dir))
        .arg("--outcomes")
        .arg(log)
        .arg("--out")
        .arg(&out)
        .args(model.flags()));
    (output, out)
}

/// Each poem passes exactly when its answer was good, and lines come in the log's order.
fn assert_in_order_and_judged(results: &[Value], expected: &[(String, String)]) {
    let got: Vec<(String, String)> = results
        .iter()
        .map(|l| {
            (
                l["task"].as_str().unwrap().to_owned(),
                l["answer"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(got, expected, "results keep the log's order");
    for line in results {
        let good = line["answer"].as_str().unwrap().contains("zqgood");
        let want = line["task"] == "sum" || good;
        assert_eq!(line["passed"], want, "{line}");
    }
}

#[test]
fn grade_judges_concurrently_and_writes_in_the_logs_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::start(0, 1);
    let (log, expected) = outcome_log(dir.path(), 24);
    let (output, out) = grade(dir.path(), &log, &model);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(model.answered(), 24);
    model.assert_concurrent("grade");
    assert_in_order_and_judged(&results(&out), &expected);
}

#[test]
fn grade_waits_out_a_429_storm() {
    let dir = tempfile::tempdir().unwrap();
    // 40 throttled answers for 8 lines at 4 in flight: about 5 per call, more than the
    // 5 attempts a call gets for other failures.
    let model = Model::start(40, 1);
    let (log, expected) = outcome_log(dir.path(), 8);
    let (output, out) = grade(dir.path(), &log, &model);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(
        !output.stderr.contains("gave up"),
        "a rate limit is waited out: {}",
        output.stderr
    );
    assert_eq!(model.answered(), 8);
    assert_in_order_and_judged(&results(&out), &expected);
}

/// `--jobs 1` with an agent that answers at once: the calls overlap only if an attempt
/// waiting for its verdict lets the next agent run.
fn run_agents(dir: &Path, model: &Model, attempts: usize, extra: &[&str]) -> (Output, PathBuf) {
    let out = dir.join("run.jsonl");
    let output = run(proctor()
        .arg("run")
        .arg("--tasks")
        .arg(tasks(dir))
        .args(["--only", "poem", "--jobs", "1", "--attempts"])
        .arg(attempts.to_string())
        .args(["--agent", AGENT, "--out"])
        .arg(&out)
        .args(extra)
        .args(model.flags()));
    (output, out)
}

/// Answers like [`answer`]: good on even attempts, slow on every third.
const AGENT: &str = "sh -c 'n=$PROCTOR_ATTEMPT; q=zqbad; s=; \
    [ $((n % 2)) = 0 ] && q=zqgood; [ $((n % 3)) = 0 ] && s=\" zqslow\"; echo \"$q$s $n\"'";

#[test]
fn run_frees_the_agent_slot_while_the_judge_answers() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::start(0, 1);
    let (output, out) = run_agents(dir.path(), &model, 12, &[]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(model.answered(), 12);
    model.assert_concurrent("run --jobs 1");
    let results = results(&out);
    assert_eq!(results.len(), 12);
    for line in &results {
        let attempt = line["attempt"].as_u64().unwrap() as usize;
        assert_eq!(line["answer"], answer(attempt), "{line}");
        assert_eq!(line["passed"], attempt.is_multiple_of(2), "{line}");
    }
}

#[test]
fn judge_rejudges_concurrently_in_the_files_order() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep");
    let model = Model::start(0, 1);
    let keep_flag = keep.display().to_string();
    let (first, out) = run_agents(
        dir.path(),
        &model,
        12,
        &["--no-judge", "--keep", &keep_flag],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(model.answered(), 0);
    let before: Vec<Value> = results(&out);
    let judged = run(judge_kept(&tasks(dir.path()), &out, &keep).args(model.flags()));
    assert_eq!(judged.code, 0, "{}", judged.stderr);
    assert_eq!(model.answered(), 12);
    model.assert_concurrent("judge");
    let after = results(&out);
    let order =
        |lines: &[Value]| -> Vec<Value> { lines.iter().map(|l| l["attempt"].clone()).collect() };
    assert_eq!(order(&after), order(&before), "the file keeps its order");
    for line in &after {
        let attempt = line["attempt"].as_u64().unwrap() as usize;
        assert_eq!(line["passed"], attempt.is_multiple_of(2), "{line}");
    }
}

#[test]
fn ctrl_c_while_verdicts_are_awaited_stops_run_and_records_nothing_unjudged() {
    let dir = tempfile::tempdir().unwrap();
    // Answers held for 30 s and more: only an interrupt ends the run sooner.
    let model = Model::start(0, 500);
    let out = dir.path().join("run.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"))
        .arg("run")
        .arg("--tasks")
        .arg(tasks(dir.path()))
        .args(["--only", "poem", "--jobs", "1", "--attempts", "6"])
        .args(["--agent", AGENT, "--out"])
        .arg(&out)
        .args(model.flags())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while model.answered() < JUDGE_JOBS {
        assert!(Instant::now() < deadline, "the judge calls never came");
        std::thread::sleep(Duration::from_millis(20));
    }
    let interrupted = Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        interrupted.elapsed() < Duration::from_secs(20),
        "stopped without waiting for the verdicts"
    );
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    assert_eq!(
        written, "",
        "an attempt without its verdict is not recorded"
    );
}

#[test]
fn a_cassette_folder_a_recording_run_makes_is_hidden_from_later_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::start(0, 1);
    // Beside the task file, not in /tmp (which namespaced agents never see anyway).
    let parent = crate::common::root().join("target");
    std::fs::create_dir_all(&parent).unwrap();
    let shared = tempfile::tempdir_in(parent).unwrap();
    let cassette = shared.path().join("cassette");
    // The path is in the script, not on the command line (which would show it).
    let agent = write(
        dir.path(),
        "agent.sh",
        &format!(
            "if [ \"$PROCTOR_ATTEMPT\" = 1 ]; then sleep 2; ls {} 2>/dev/null | wc -l; \
             else echo zqgood; fi\n",
            cassette.display()
        ),
    );
    let out = dir.path().join("run.jsonl");
    let ran = run(proctor()
        .arg("run")
        .arg("--tasks")
        .arg(tasks(dir.path()))
        .args([
            "--only",
            "poem",
            "--jobs",
            "1",
            "--attempts",
            "2",
            "--agent",
        ])
        .arg(format!("sh {}", agent.display()))
        .arg("--cassette")
        .arg(&cassette)
        .args(["--cassette-mode", "record", "--out"])
        .arg(&out)
        .args(model.flags()));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // The first verdict was recorded while the second attempt ran.
    assert!(std::fs::read_dir(&cassette).unwrap().count() > 0);
    let lines = results(&out);
    let second = lines.iter().find(|l| l["attempt"] == 1).unwrap();
    assert_eq!(second["answer"], "0", "{second}");
}
