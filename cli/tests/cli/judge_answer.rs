//! The judge's answer as docs/judge.md describes it: every example answer there, marked
//! `<!-- judge answer: PASS|FAIL|ungraded -->`, is given by a mock model server on loopback
//! to `proctor grade`, recorded in a cassette and replayed, and grades as the mark says.

use crate::common::{proctor, results, root, run, write};
use serde_json::{Value, json};
use std::path::Path;
use wiremock::{Mock, MockServer, ResponseTemplate, matchers};

const MARK: &str = "<!-- judge answer: ";

/// (what the answer must grade as, the answer) for each marked block of docs/judge.md.
fn documented_answers() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("docs/judge.md")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut answers = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(expected) = line.strip_prefix(MARK).and_then(|r| r.strip_suffix(" -->")) else {
            continue;
        };
        // The block's fence: its backquotes, closed by a line of exactly as many.
        let open = lines[i + 1];
        let ticks = &open[..open.len() - open.trim_start_matches('`').len()];
        assert!(
            ticks.len() >= 3,
            "docs/judge.md:{}: no fence after the mark",
            i + 2
        );
        let body: Vec<&str> = lines[i + 2..]
            .iter()
            .take_while(|l| **l != ticks)
            .copied()
            .collect();
        answers.push((expected.to_owned(), body.join("\n")));
    }
    answers
}

/// A model server on loopback answering every chat completion with `answer`.
fn serve(answer: &str) -> (tokio::runtime::Runtime, MockServer) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body = json!({
        "model": "my-model",
        "choices": [{"message": {"role": "assistant", "content": answer}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20},
    });
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        Mock::given(matchers::method("POST"))
            .and(matchers::path("/v1/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server)
            .await;
        server
    });
    (runtime, server)
}

/// The result line of grading one outcome of a rubric task with the judge options `judge`.
fn grade(dir: &Path, judge: &[&str], out: &str) -> Value {
    let tasks = write(
        dir,
        "tasks.yaml",
        "- id: refund\n  input: Refund O1001.\n  rubric: PASS only if O1001 was refunded.\n",
    );
    let log = write(
        dir,
        "log.jsonl",
        "{\"task\": \"refund\", \"status\": \"final\", \"answer\": \"refunded O1001\"}\n",
    );
    let out = dir.join(out);
    let graded = run(proctor()
        .args(["grade", "--tasks"])
        .arg(&tasks)
        .arg("--outcomes")
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .args(["--judge-provider", "openai", "--judge-model", "my-model"])
        .args(judge)
        .env_remove("OPENAI_API_KEY"));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    results(&out).remove(0)
}

fn assert_graded_as(expected: &str, line: &Value, answer: &str) {
    let reasons = line["reasons"].to_string();
    match expected {
        "PASS" => assert_eq!(line["passed"], true, "{answer}\n{line}"),
        "FAIL" => {
            assert_eq!(line["passed"], false, "{answer}\n{line}");
            assert!(reasons.contains("rubric: FAIL"), "{answer}\n{line}");
        }
        "ungraded" => {
            assert_eq!(line["passed"], Value::Null, "{answer}\n{line}");
            assert!(reasons.contains("judge error: "), "{answer}\n{line}");
        }
        other => panic!("docs/judge.md marks an answer {other:?}"),
    }
    if expected != "ungraded" {
        assert_eq!(line["judge"]["verdict"], expected, "{answer}\n{line}");
    }
}

#[test]
fn every_documented_answer_grades_as_the_docs_say_recorded_and_replayed() {
    let answers = documented_answers();
    for kind in ["PASS", "FAIL", "ungraded"] {
        assert!(
            answers.iter().any(|(expected, _)| expected == kind),
            "docs/judge.md shows no answer that grades {kind}"
        );
    }
    for (expected, answer) in &answers {
        let dir = tempfile::tempdir().unwrap();
        let cassette = dir.path().join("cassette");
        let cassette_flag = cassette.to_str().unwrap();
        let (_runtime, server) = serve(answer);
        let uri = server.uri();
        let recorded = grade(
            dir.path(),
            &[
                "--judge-base-url",
                &uri,
                "--cassette",
                cassette_flag,
                "--cassette-mode",
                "record",
            ],
            "recorded.jsonl",
        );
        assert_graded_as(expected, &recorded, answer);
        // The cassette keeps the answer's text as the server gave it.
        let files: Vec<_> = std::fs::read_dir(&cassette).unwrap().flatten().collect();
        assert_eq!(files.len(), 1);
        let recording: Value =
            serde_json::from_str(&std::fs::read_to_string(files[0].path()).unwrap()).unwrap();
        assert_eq!(recording["response"]["text"], answer.as_str());
        // Replayed without the server, the verdict is the same.
        drop(server);
        let replayed = grade(dir.path(), &["--cassette", cassette_flag], "replayed.jsonl");
        assert_graded_as(expected, &replayed, answer);
        assert_eq!(replayed["reasons"], recorded["reasons"]);
        // A decided answer's reasoning is kept as the judge wrote it.
        if expected != "ungraded" {
            let reasoning = recorded["judge"]["reasoning"].as_str().unwrap();
            assert!(
                !reasoning.is_empty() && answer.contains(reasoning),
                "{recorded}"
            );
        }
    }
}
