//! The simulated user (`user:`), end to end with an agent on the official MCP Python SDK
//! that calls `ask_user`: scripted turns with the stop signal and the turn limit, a
//! user-simulator command, and an LLM user recorded from a mock model on 127.0.0.1 and
//! replayed offline from its cassette.

use crate::common::{Output, proctor, results, run, write};
use crate::contained_helpers::{assert_no_daemon, daemon_seconds};
use serde_json::{Value, json};
use std::path::Path;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate, matchers};

fn sdk_python() -> Option<String> {
    let python = crate::traces::otel_python()?;
    let venv = Path::new(&python).parent()?.parent()?.canonicalize().ok()?;
    Some(venv.join("bin/python").display().to_string())
}

/// The agent's input: one `ask_user` call per message, in order.
fn asks(messages: &[&str]) -> String {
    let calls: Vec<Value> = messages
        .iter()
        .map(|m| json!({"tool": "ask_user", "args": {"message": m}}))
        .collect();
    serde_json::to_string(&Value::Array(calls)).unwrap()
}

/// A task asking the user `messages`, with `user` as its `user:` (YAML flow text).
fn task(id: &str, messages: &[&str], user: &str) -> String {
    let input = serde_json::to_string(&asks(messages)).unwrap();
    format!(
        "- id: {id}\n  input: {input}\n  rules:\n    - {{at_most: 5, tool: ask_user}}\n  user: {user}\n"
    )
}

fn run_agent(python: &str, tasks: &Path, out: &Path, extra: &[&str]) -> Output {
    let agent = format!("{python} fixtures/agents/mcp/sdk_agent.py");
    run(proctor()
        .args(["run", "--tasks"])
        .arg(tasks)
        .args(["--agent", &agent, "--out"])
        .arg(out)
        .args(extra))
}

/// Each step of the graded trajectory: (tool, message, result or error).
fn turns(line: &Value) -> Vec<(String, String, String)> {
    line["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            let said = step["result"]
                .as_str()
                .or(step["error"].as_str())
                .unwrap_or_default();
            (
                step["tool"].as_str().unwrap().to_owned(),
                step["args"]["message"].as_str().unwrap_or("").to_owned(),
                said.to_owned(),
            )
        })
        .collect()
}

fn line_of<'a>(lines: &'a [Value], task: &str) -> &'a Value {
    lines.iter().find(|l| l["task"] == task).unwrap()
}

#[test]
fn a_scripted_user_answers_until_it_stops_or_its_turns_run_out() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tasks = format!(
        "{}{}",
        task(
            "stop",
            &["What is your order id?", "Anything else?", "Hello?"],
            "{turns: [{when: '(?i)order id', say: It is W1.}, {say: 'No, thanks. ###STOP###'}]}",
        ),
        task(
            "limit",
            &["one", "two", "three", "four"],
            "{turns: [{when: '^t', say: yes, repeat: true}, {say: first}], max_turns: 2}",
        ),
    );
    let tasks = write(dir.path(), "tasks.yaml", &tasks);
    let out = dir.path().join("r.jsonl");
    let ran = run_agent(&python, &tasks, &out, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let lines = results(&out);
    let stop = line_of(&lines, "stop");
    assert_eq!(stop["trajectory_source"], "tools", "{stop}");
    assert_eq!(stop["passed"], true, "{stop}");
    let ask =
        |message: &str, said: &str| ("ask_user".to_owned(), message.to_owned(), said.to_owned());
    assert_eq!(
        turns(stop),
        [
            ask("What is your order id?", "It is W1."),
            ask("Anything else?", "No, thanks. ###STOP###"),
            ask("Hello?", "conversation over"),
        ]
    );
    let limit = line_of(&lines, "limit");
    assert_eq!(
        turns(limit),
        [
            ask("one", "first"),
            ask("two", "yes"),
            ask("three", "conversation over"),
            ask("four", "conversation over"),
        ]
    );
    // The agent read the replies as text, as the tool's result.
    assert!(
        stop["answer"]
            .as_str()
            .unwrap()
            .contains("\"result\": \"It is W1.\""),
        "{stop}"
    );
}

#[test]
fn no_scripted_reply_is_a_tool_error_and_rules_see_the_turns() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let text = task(
        "strict",
        &["Hi", "Bye"],
        "{turns: [{when: '^Bye$', say: Bye!}]}",
    )
    .replace("at_most: 5", "at_most: 1");
    let tasks = write(dir.path(), "tasks.yaml", &text);
    let out = dir.path().join("r.jsonl");
    let ran = run_agent(&python, &tasks, &out, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    let said: Vec<String> = turns(line).into_iter().map(|(_, _, said)| said).collect();
    assert_eq!(said, ["no scripted reply", "Bye!"]);
    assert_eq!(line["passed"], false);
    assert!(
        line["reasons"].to_string().contains("ask_user"),
        "{}",
        line["reasons"]
    );
}

#[test]
fn a_user_simulator_command_runs_once_per_attempt_with_the_history() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "user.py",
        r#"import json, os, signal, subprocess, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", sys.argv[1]])
for line in sys.stdin:
    request = json.loads(line)
    turns = (len(request["history"]) + 1) // 2
    reply = f"{os.getpid()},{child.pid} turn {turns} of {request['task_id']}/{request['attempt']}: {request['history'][0]['content'][:8]}"
    if turns == 2:
        reply += " ###STOP###"
    print(json.dumps({"reply": reply}), flush=True)
os.execvp("sleep", ["sleep", sys.argv[2]])
"#,
    );
    // What it starts, and itself once its stdin closes, sleep on: found by these.
    let (started, itself) = (daemon_seconds(1), daemon_seconds(2));
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        &task(
            "sim",
            &["a", "b", "c"],
            &format!("{{command: python3 user.py {started} {itself}}}"),
        ),
    );
    let out = dir.path().join("r.jsonl");
    let ran = run_agent(&python, &tasks, &out, &["--attempts", "2"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    for line in results(&out) {
        let attempt = line["attempt"].as_u64().unwrap();
        let said: Vec<String> = turns(&line).into_iter().map(|(_, _, said)| said).collect();
        let pids = said[0].split(' ').next().unwrap().to_owned();
        assert_eq!(
            said,
            [
                format!("{pids} turn 1 of sim/{attempt}: [{{\"tool\""),
                format!("{pids} turn 2 of sim/{attempt}: [{{\"tool\" ###STOP###"),
                "conversation over".to_owned(),
            ],
            "{line}"
        );
        assert_eq!(line["passed"], true, "{line}");
    }
    // Killed with its attempt, and what it started too, though they would sleep on (pids
    // in the line may be a namespace's: the sleepers are found by their arguments).
    assert_no_daemon(&started);
    assert_no_daemon(&itself);
}

#[test]
fn a_broken_user_leaves_the_attempt_not_evaluated_with_its_reason_first() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "user.py", "import sys\nsys.exit(3)\n");
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        &format!(
            "{}  verify: [{{file_exists: never_written.txt}}]\n",
            task("broken", &["Hello?"], "{command: python3 user.py}")
        ),
    );
    let out = dir.path().join("r.jsonl");
    let ran = run_agent(&python, &tasks, &out, &["--attempts", "2"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    for line in results(&out) {
        // Not the agent's failure: ungraded, the user's failure its only reason, though
        // the end-state check failed too (it stays on record among the checks).
        assert_eq!(line["passed"], Value::Null, "{line}");
        let reasons = line["reasons"].as_array().unwrap();
        assert_eq!(reasons.len(), 1, "{line}");
        assert!(reasons[0].as_str().unwrap().starts_with("user: "), "{line}");
        assert!(
            line["checks"].to_string().contains("never_written.txt"),
            "{line}"
        );
        assert_eq!(line["diagnosis"], Value::Null, "{line}");
    }
    let report = run(proctor().arg("report").arg(&out).args(["--format", "json"]));
    let report: Value = serde_json::from_str(&report.stdout).unwrap();
    assert_eq!(
        (report["ungraded"].as_u64(), report["failed"].as_u64()),
        (Some(2), Some(0)),
        "{report}"
    );
    let text = run(proctor().arg("report").arg(&out));
    let top = text
        .stdout
        .lines()
        .find(|l| l.starts_with("broken"))
        .unwrap_or_default();
    assert!(top.contains("user: user simulator"), "{}", text.stdout);
}

/// An OpenAI-compatible model playing the user: it gives the order id when asked for it,
/// and stops otherwise.
struct MockUser;

impl Respond for MockUser {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let last = body["messages"].as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_owned();
        let content = if last.contains("order id") {
            "It is W1."
        } else {
            "That's all. ###STOP###"
        };
        ResponseTemplate::new(200).set_body_json(json!({
            "model": "mock-user",
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        }))
    }
}

#[test]
fn an_llm_user_is_recorded_from_a_model_and_replayed_from_its_cassette() {
    let Some(python) = sdk_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        &task(
            "llm",
            &["What is your order id?", "Thanks, done?", "Still there?"],
            "{instructions: You are Yusuf. Your order is W1; you want it cancelled.}",
        ),
    );
    let cassette = dir.path().join("cassette");
    let cassette_flag = cassette.display().to_string();
    let user_flags = |mode: &str, uri: &str| -> Vec<String> {
        [
            "--user-provider",
            "openai",
            "--user-model",
            "mock-user",
            "--user-base-url",
            uri,
            "--cassette",
            &cassette_flag,
            "--cassette-mode",
            mode,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let expected = ["It is W1.", "That's all. ###STOP###", "conversation over"];
    // Recorded from the mock model.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        Mock::given(matchers::method("POST"))
            .and(matchers::path("/v1/chat/completions"))
            .respond_with(MockUser)
            .mount(&server)
            .await;
        server
    });
    let recorded = dir.path().join("recorded.jsonl");
    let flags = user_flags("record", &server.uri());
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let agent = format!("{python} fixtures/agents/mcp/sdk_agent.py");
    let ran = run(proctor()
        .env("OPENAI_API_KEY", "sk-zq-not-a-real-key")
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &agent, "--attempts", "3", "--out"])
        .arg(&recorded)
        .args(&flags));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    for line in results(&recorded) {
        let said: Vec<String> = turns(&line).into_iter().map(|(_, _, said)| said).collect();
        assert_eq!(said, expected);
    }
    // Three attempts hold the same two turns: the model is asked once per distinct request.
    let requests = runtime.block_on(server.received_requests()).unwrap();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("You are Yusuf"), "{system}");
    drop(server);
    drop(runtime);
    let files: Vec<String> = std::fs::read_dir(&cassette)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(files.len(), 2);
    assert!(
        files.iter().all(|f| !f.contains("sk-zq")),
        "a key was recorded"
    );
    // Replayed offline: the model's address is gone.
    let replayed = dir.path().join("replayed.jsonl");
    let flags = user_flags("replay", "http://127.0.0.1:9");
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let ran = run_agent(&python, &tasks, &replayed, &flags);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let said: Vec<String> = turns(&results(&replayed)[0])
        .into_iter()
        .map(|(_, _, said)| said)
        .collect();
    assert_eq!(said, expected);
    // A replay miss stops the run as a judge's does (exit 3), naming the cassette: the
    // conversation was not the task's, so the attempt is neither a pass nor a fail.
    let other = write(
        dir.path(),
        "other.yaml",
        &task(
            "llm",
            &["Where is my order id?"],
            "{instructions: You are Ana.}",
        ),
    );
    let missed = dir.path().join("missed.jsonl");
    let ran = run_agent(&python, &other, &missed, &flags);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("simulated user failed, stopping: task `llm` attempt 0: user: the simulated user's model: cassette miss"),
        "{}",
        ran.stderr
    );
    assert!(results(&missed).is_empty(), "nothing is recorded");
    // Without a model, a task with an LLM user is refused before any agent runs.
    let ran = run_agent(&python, &tasks, &dir.path().join("none.jsonl"), &[]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("pass --user-model"), "{}", ran.stderr);
}
