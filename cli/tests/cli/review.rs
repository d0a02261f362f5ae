//! `proctor review`: the server behind the labelling page, and the page itself in headless
//! Chromium. The judged runs are made here, offline: the fixture refund agent on
//! `refund_two_orders` (and a variant of it that changes nothing the judge sees), judged
//! from the recorded cassettes, with the sandboxes kept. Attempts 8 and 9 of each fail the
//! rubric, the rest pass it.
//!
//! The page's numbers are checked against `proctor calibrate --verdicts R --labels L
//! --results R --format json` on the same files; the labels file against what was clicked.

use crate::chromium::Browser;
use crate::common::{JUDGE, proctor, root, run};
use crate::loopback::{PAYLOAD, http, page_url, start_page_server};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// A judged run with kept sandboxes.
struct Judged {
    dir: tempfile::TempDir,
    tasks: PathBuf,
    results: PathBuf,
    keep: PathBuf,
}

impl Judged {
    fn labels(&self) -> PathBuf {
        self.dir.path().join("labels.csv")
    }

    /// The result lines, parsed.
    fn lines(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.results)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The judge's verdict of `task` attempt `attempt`.
    fn verdict(&self, task: &str, attempt: u64) -> String {
        self.lines()
            .into_iter()
            .find(|l| l["task"] == task && l["attempt"] == attempt)
            .map(|l| l["judge"]["verdict"].as_str().unwrap().to_owned())
            .unwrap()
    }
}

/// `refund_two_orders` and `refund_two_orders@calm`, 10 attempts each, judged and kept.
fn judged_run() -> Judged {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(root().join("fixtures/run/refunds.yaml")).unwrap();
    let start = source.find("- id: refund_two_orders").unwrap();
    let end = source[start + 5..]
        .find("\n- id:")
        .map_or(source.len(), |i| start + 5 + i);
    // A variant whose fault names a tool the agent never calls: the judge sees the same
    // prompt, so the recorded answers serve it too.
    let task = format!(
        "{}\n  variants:\n    calm: {{faults: [{{tool: no_such_tool, kind: timeout, calls: [1], ms: 1}}]}}\n",
        source[start..end].trim_end()
    );
    let tasks = dir.path().join("tasks.yaml");
    std::fs::write(&tasks, task).unwrap();
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(root().join("fixtures/run/seeds/refunds"))
        .arg(&seeds)
        .status()
        .unwrap();
    assert!(copied.success());
    let results = dir.path().join("r.jsonl");
    let keep = dir.path().join("keep");
    let out = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args([
            "--agent",
            "python3 fixtures/agents/refund_agent.py",
            "--attempts",
            "10",
        ])
        .args(JUDGE)
        .arg("--keep")
        .arg(&keep)
        .arg("--out")
        .arg(&results));
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let judged = Judged {
        dir,
        tasks,
        results,
        keep,
    };
    let verdicts: Vec<String> = judged
        .lines()
        .iter()
        .map(|l| l["judge"]["verdict"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(verdicts.len(), 20);
    assert_eq!(verdicts.iter().filter(|v| *v == "FAIL").count(), 4);
    judged
}

/// Puts [`PAYLOAD`] into the first judge-PASS line's answer and reasoning and into its kept
/// `outbox.log` (a file the judge reads); returns that task and attempt.
fn plant_payload(judged: &Judged) -> (String, u64) {
    let mut lines = judged.lines();
    let target = lines
        .iter_mut()
        .find(|l| l["judge"]["verdict"] == "PASS")
        .unwrap();
    target["answer"] = json!(PAYLOAD);
    target["judge"]["reasoning"] = json!(PAYLOAD);
    let task = target["task"].as_str().unwrap().to_owned();
    let attempt = target["attempt"].as_u64().unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&judged.results, text).unwrap();
    let outbox = judged
        .keep
        .join(&task)
        .join(attempt.to_string())
        .join("outbox.log");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(outbox)
        .unwrap();
    writeln!(file, "{PAYLOAD}").unwrap();
    (task, attempt)
}

/// A running `proctor review`; killed (SIGKILL) when dropped.
struct Server {
    child: Child,
    port: u16,
    token: String,
}

impl Server {
    fn start(judged: &Judged, labels: &Path, rater: &str, extra: &[&str]) -> Server {
        let (child, port, token) = start_page_server(
            Command::new(assert_cmd::cargo::cargo_bin("proctor"))
                .current_dir(root())
                .arg("review")
                .arg(&judged.results)
                .arg("--keep")
                .arg(&judged.keep)
                .arg("--tasks")
                .arg(&judged.tasks)
                .arg("--labels")
                .arg(labels)
                .args(["--rater", rater])
                .args(extra),
        );
        Server { child, port, token }
    }

    fn url(&self) -> String {
        page_url(self.port, &self.token)
    }

    /// One request with the token in a header; the status and the body.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String) {
        let mut all = vec![("X-Proctor-Token", self.token.as_str())];
        all.extend_from_slice(headers);
        http(self.port, method, path, &all, body)
    }

    fn state(&self) -> Value {
        let (status, body) = self.request("GET", "/api/state", &[], "");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    fn label(&self, index: usize, human: &str, note: &str) -> (u16, String) {
        let body = json!({"index": index, "human": human, "note": note}).to_string();
        self.request(
            "POST",
            "/api/label",
            &[("Content-Type", "application/json")],
            &body,
        )
    }

    /// SIGKILL: nothing of the process's own gets to run.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The labels file's rows: task, attempt, human, rater, note (the timestamp is checked
/// for its form and left out).
fn rows(labels: &Path) -> Vec<[String; 5]> {
    let mut reader = csv::Reader::from_path(labels).unwrap();
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        ["task", "attempt", "human", "rater", "note", "timestamp"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert!(
                r[5].parse::<jiff::Timestamp>().is_ok() && r[5].ends_with('Z'),
                "timestamp {:?} is not RFC 3339 UTC",
                &r[5]
            );
            [0, 1, 2, 3, 4].map(|i| r[i].to_owned())
        })
        .collect()
}

fn row(task: &str, attempt: u64, human: &str, rater: &str, note: &str) -> [String; 5] {
    [task, &attempt.to_string(), human, rater, note].map(str::to_owned)
}

/// `proctor calibrate --verdicts R --labels L --results R --format json`.
fn calibrate(judged: &Judged, labels: &Path, extra: &[&str]) -> Value {
    let out = run(proctor()
        .arg("calibrate")
        .arg("--verdicts")
        .arg(&judged.results)
        .arg("--labels")
        .arg(labels)
        .arg("--results")
        .arg(&judged.results)
        .args(["--format", "json"])
        .args(extra));
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// (task, attempt) of each offered attempt, in order.
fn offered(state: &Value) -> Vec<(String, u64)> {
    state["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["task"].as_str().unwrap().to_owned(),
                a["attempt"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_request_needs_the_token_and_posts_must_be_same_origin_json_and_small() {
    let judged = judged_run();
    let server = Server::start(&judged, &judged.labels(), "ann", &[]);
    let port = server.port;
    let token = server.token.clone();
    // No token, a wrong one, a token of the right length but other digits.
    assert_eq!(http(port, "GET", "/", &[], "").0, 403);
    assert_eq!(http(port, "GET", "/api/state", &[], "").0, 403);
    assert_eq!(http(port, "GET", "/?token=abc", &[], "").0, 403);
    let wrong = "0".repeat(token.len());
    assert_eq!(
        http(
            port,
            "GET",
            "/api/state",
            &[("X-Proctor-Token", &wrong)],
            ""
        )
        .0,
        403
    );
    // A name rebound to 127.0.0.1 by another site is not this server.
    let (status, _) = http(
        port,
        "GET",
        &format!("/?token={token}"),
        &[("Host", &format!("evil.example:{port}"))],
        "",
    );
    assert_eq!(status, 403);
    // With the token: the page, under its policy; nothing else is served.
    let (status, page) = http(port, "GET", &format!("/?token={token}"), &[], "");
    assert_eq!(status, 200);
    assert!(page.contains("Content-Security-Policy"), "{page}");
    for path in [
        "/../../etc/passwd",
        "/etc/passwd",
        "/review.js/../x",
        "/keep",
    ] {
        let (status, _) = server.request("GET", path, &[], "");
        assert_eq!(status, 404, "{path}");
    }
    let json = [("Content-Type", "application/json")];
    let label = r#"{"index":0,"human":"PASS","note":""}"#;
    // Cross-site posts, by either signal.
    for refused in [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let (status, body) = server.request("POST", "/api/label", &[json[0], refused], label);
        assert_eq!(status, 403, "{refused:?}: {body}");
    }
    // Not JSON (a form post needs no preflight), too large declared, too large sent.
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    assert_eq!(server.request("POST", "/api/label", &form, label).0, 415);
    let big = format!(
        r#"{{"index":0,"human":"PASS","note":"{}"}}"#,
        "x".repeat(20_000)
    );
    assert_eq!(server.request("POST", "/api/label", &json, &big).0, 413);
    // Not a label.
    for bad in [
        r#"{"index":0,"human":"maybe"}"#,
        r#"{"index":99,"human":"PASS"}"#,
        r#"{"index":0,"human":"PASS","extra":1}"#,
    ] {
        assert_eq!(
            server.request("POST", "/api/label", &json, bad).0,
            400,
            "{bad}"
        );
    }
    assert!(
        rows(&judged.labels()).is_empty(),
        "a refused post wrote a label"
    );
    // The same post from the page's own origin is saved.
    let ours = format!("http://127.0.0.1:{port}");
    let (status, body) = server.request(
        "POST",
        "/api/label",
        &[
            json[0],
            ("Origin", &ours),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        label,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(rows(&judged.labels()).len(), 1);
}

#[test]
fn labels_survive_a_kill_and_a_restart_never_asks_again() {
    let judged = judged_run();
    let labels = judged.labels();
    let server = Server::start(&judged, &labels, "ann", &[]);
    let state = server.state();
    let attempts = offered(&state);
    // Every judged attempt, judge-PASS first; the variant's under its own id.
    assert_eq!(attempts.len(), 20);
    let fail_from = attempts
        .iter()
        .position(|(t, a)| judged.verdict(t, *a) == "FAIL")
        .unwrap();
    assert_eq!(fail_from, 16);
    assert!(attempts.iter().any(|(t, _)| t == "refund_two_orders@calm"));
    // Blind: nothing of the judge's in the state.
    assert!(!state.to_string().contains("\"judge\""), "{state}");
    // The first attempt and the first of the other task: one is the variant's.
    let variant = attempts
        .iter()
        .position(|(t, _)| *t != attempts[0].0)
        .unwrap();
    assert!([&attempts[0].0, &attempts[variant].0].contains(&&"refund_two_orders@calm".to_owned()));
    let note = "says \"refunded\", but B7,\nthen A1";
    assert_eq!(server.label(0, "PASS", "").0, 200);
    assert_eq!(server.label(variant, "FAIL", note).0, 200);
    server.kill();
    let expected = vec![
        row(&attempts[0].0, attempts[0].1, "PASS", "ann", ""),
        row(
            &attempts[variant].0,
            attempts[variant].1,
            "FAIL",
            "ann",
            note,
        ),
    ];
    assert_eq!(rows(&labels), expected);

    let server = Server::start(&judged, &labels, "ann", &[]);
    let state = server.state();
    assert_eq!(
        offered(&state),
        attempts,
        "the same attempts in the same order"
    );
    assert_eq!(state["attempts"][0]["mine"]["human"], "PASS");
    assert_eq!(state["attempts"][variant]["mine"]["note"], note);
    let open = if variant == 1 { 2 } else { 1 };
    assert_eq!(state["attempts"][open]["mine"], Value::Null);
    // Asked again, the server refuses: a rater labels an attempt once.
    let (status, body) = server.label(0, "FAIL", "");
    assert_eq!(status, 409, "{body}");
    assert_eq!(rows(&labels), expected);
    // Another rater may.
    let other = Server::start(&judged, &labels, "bo", &[]);
    assert_eq!(other.label(0, "FAIL", "").0, 200);
    assert_eq!(server.state()["attempts"][0]["labels"], 2);
    // calibrate reads the file, note and timestamp columns included.
    let calibration = calibrate(&judged, &labels, &[]);
    assert_eq!(calibration["items"], 2);
    assert_eq!(calibration["human_ties"], 1);
}

#[test]
fn two_raters_label_one_file_at_once() {
    let judged = judged_run();
    let labels = judged.labels();
    let ann = Server::start(&judged, &labels, "ann", &[]);
    let bo = Server::start(&judged, &labels, "bo", &[]);
    let count = offered(&ann.state()).len();
    std::thread::scope(|scope| {
        for (server, human) in [(&ann, "PASS"), (&bo, "FAIL")] {
            scope.spawn(move || {
                for index in 0..count {
                    let (status, body) = server.label(index, human, "at once, with a comma");
                    assert_eq!(status, 200, "{body}");
                }
            });
        }
    });
    let written = rows(&labels);
    assert_eq!(written.len(), 2 * count, "every label whole, none lost");
    for rater in ["ann", "bo"] {
        let mut theirs: Vec<(String, String)> = written
            .iter()
            .filter(|r| r[3] == rater)
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect();
        theirs.sort();
        theirs.dedup();
        assert_eq!(theirs.len(), count, "{rater} labelled each attempt once");
    }
    let state = bo.state();
    assert!(
        state["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["labels"] == 2),
        "{state}"
    );
    assert_eq!(state["totals"]["raters"], 2);
    let calibration = calibrate(&judged, &labels, &[]);
    assert_eq!(calibration["items"], count);
    assert!(calibration["raters"].is_object(), "{calibration}");
}

#[test]
fn a_sample_is_drawn_the_same_again_and_split_as_calibrate_advises() {
    let judged = judged_run();
    let labels = judged.labels();
    let sample = ["--sample", "8", "--seed", "5"];
    let first = Server::start(&judged, &labels, "ann", &sample);
    let state = first.state();
    let drawn = offered(&state);
    assert_eq!(drawn.len(), 8);
    // No labels yet: no advice, an even split.
    assert_eq!(state["plan"]["rule"], "even");
    assert_eq!(
        (
            state["plan"]["judge_pass"].as_u64(),
            state["plan"]["judge_fail"].as_u64()
        ),
        (Some(4), Some(4))
    );
    let fails = drawn
        .iter()
        .filter(|(t, a)| judged.verdict(t, *a) == "FAIL")
        .count();
    assert_eq!(fails, 4);
    // Labelling does not move this rater's sample.
    assert_eq!(first.label(0, "PASS", "").0, 200);
    first.kill();
    let again = Server::start(&judged, &labels, "ann", &sample);
    assert_eq!(offered(&again.state()), drawn);
    drop(again);
    let other_seed = Server::start(&judged, &labels, "ann", &["--sample", "8", "--seed", "6"]);
    assert_ne!(offered(&other_seed.state()), drawn);
    drop(other_seed);

    // Another rater's labels of both classes: the split is calibrate's advice for them.
    let mut text = String::from("task,attempt,human,rater\n");
    for (i, line) in judged.lines().iter().enumerate().take(12) {
        let verdict = line["judge"]["verdict"].as_str().unwrap();
        // The judge is wrong on two of them.
        let human = match (verdict, i % 5) {
            ("PASS", 0) => "FAIL",
            (v, _) => v,
        };
        text.push_str(&format!(
            "{},{},{human},cy\n",
            line["task"].as_str().unwrap(),
            line["attempt"]
        ));
    }
    for line in judged
        .lines()
        .iter()
        .filter(|l| l["judge"]["verdict"] == "FAIL")
        .take(2)
    {
        text.push_str(&format!(
            "{},{},FAIL,cy\n",
            line["task"].as_str().unwrap(),
            line["attempt"]
        ));
    }
    let planned = judged.dir.path().join("planned.csv");
    std::fs::write(&planned, &text).unwrap();
    let advised = calibrate(&judged, &planned, &["--label-budget", "8"]);
    let pass = advised["label_split"]["pass_labels"].as_u64().unwrap();
    let server = Server::start(&judged, &planned, "ann", &sample);
    let plan = server.state()["plan"].clone();
    assert_eq!(plan["rule"], "calibrate --label-budget", "{plan}");
    // 16 judge-PASS and 4 judge-FAIL attempts: a class short of its share gives way.
    let judge_fail = (8 - pass.min(8)).min(4);
    let judge_pass = (8 - judge_fail).min(16);
    assert_eq!(
        (
            plan["judge_pass"].as_u64().unwrap(),
            plan["judge_fail"].as_u64().unwrap()
        ),
        (judge_pass, judge_fail),
        "advice {advised}"
    );
}

#[test]
fn results_of_several_agents_offer_the_line_calibrate_joins() {
    let judged = judged_run();
    // The same run again under another agent's name, with every verdict turned over.
    let mut text = std::fs::read_to_string(&judged.results).unwrap();
    for mut line in judged.lines() {
        line["label"] = json!("other");
        let flipped = if line["judge"]["verdict"] == "PASS" {
            "FAIL"
        } else {
            "PASS"
        };
        line["judge"]["verdict"] = json!(flipped);
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&judged.results, text).unwrap();
    let server = Server::start(&judged, &judged.labels(), "ann", &[]);
    let state = server.state();
    assert_eq!(offered(&state).len(), 20);
    assert!(
        state["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["agent"] == "agent")
    );
    // Labels agree with the first line's verdicts, which calibrate joins.
    for (index, (task, attempt)) in offered(&state).iter().enumerate().take(3) {
        assert_eq!(
            server.label(index, &judged.verdict(task, *attempt), "").0,
            200
        );
    }
    let out = run(proctor()
        .arg("calibrate")
        .arg("--verdicts")
        .arg(&judged.results)
        .arg("--labels")
        .arg(judged.labels())
        .args(["--format", "json"]));
    // Exit 2: calibrate names the repeated lines; it joined the first of each.
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("appears again"), "{}", out.stderr);
    let calibration: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(calibration["accuracy"], 1.0, "{calibration}");
}

/// The page's calibration panel, as shown.
fn shown_calibration(browser: &mut Browser) -> Value {
    browser.eval(
        "Object.fromEntries(['cal-n','cal-tpr','cal-tnr','cal-kappa','cal-raw','cal-corrected','cal-interval']\
         .map((id) => [id, document.getElementById(id).textContent]))",
    )
}

/// A number as the page shows it (`–` for none, 4 decimals) against calibrate's JSON.
fn assert_number(shown: &Value, expected: &Value, what: &str) {
    let shown = shown.as_str().unwrap();
    if shown == "–" {
        assert!(
            expected.is_null(),
            "{what}: page shows –, calibrate {expected}"
        );
        return;
    }
    let value: f64 = shown.parse().unwrap();
    let want = expected
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: page shows {shown}, calibrate {expected}"));
    assert!(
        (value - want).abs() <= 5e-5 + 1e-12,
        "{what}: page {shown}, calibrate {want}"
    );
}

fn assert_page_matches_calibrate(browser: &mut Browser, calibration: &Value) {
    let shown = shown_calibration(browser);
    assert_eq!(shown["cal-n"], json!(calibration["n"].to_string()));
    assert_number(&shown["cal-tpr"], &calibration["tpr"], "TPR");
    assert_number(&shown["cal-tnr"], &calibration["tnr"], "TNR");
    assert_number(&shown["cal-kappa"], &calibration["cohen_kappa"], "κ");
    let correction = &calibration["correction"];
    assert_number(
        &shown["cal-raw"],
        &correction["raw_pass_rate"],
        "raw pass rate",
    );
    assert_number(
        &shown["cal-corrected"],
        &correction["corrected_pass_rate"],
        "corrected pass rate",
    );
    let interval = shown["cal-interval"].as_str().unwrap();
    let ci = &correction["corrected_pass_rate_ci"];
    let (low, high) = interval
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split_once(", ")
        .unwrap_or_else(|| panic!("interval {interval:?}"));
    assert_number(&json!(low), &ci["low"], "interval low");
    assert_number(&json!(high), &ci["high"], "interval high");
}

/// The task and attempt the page shows now.
fn current(browser: &mut Browser) -> (String, u64) {
    browser.wait_for(
        "document.getElementById('attempt').dataset.loaded === document.getElementById('attempt').dataset.index",
    );
    let name = browser.eval("document.querySelector('#list .item.current .name').textContent");
    let name = name.as_str().unwrap();
    let (task, rest) = name.split_once(" #").unwrap();
    let attempt = rest.split(' ').next().unwrap().parse().unwrap();
    (task.to_owned(), attempt)
}

/// Waits until the page says the label was saved.
fn saved(browser: &mut Browser, count: usize) {
    browser.wait_for(&format!(
        "document.body.dataset.busy === 'false' && document.querySelectorAll('#list .item.done').length === {count}"
    ));
}

#[test]
fn keyboard_and_mouse_labels_survive_a_kill_and_the_page_shows_calibrates_numbers() {
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let judged = judged_run();
    let labels = judged.labels();
    let sample = ["--sample", "8", "--seed", "1"];
    let server = Server::start(&judged, &labels, "ann", &sample);
    browser.open_url(&server.url());
    let mut expected = Vec::new();
    // The judge's verdicts are hidden; the test knows them from the results, and the
    // labels disagree with the judge on one judge-PASS attempt so that every number exists.
    let mut disagreed = false;
    let mut label_as = |judged: &Judged, attempt: &(String, u64)| -> &'static str {
        let verdict = judged.verdict(&attempt.0, attempt.1);
        if verdict == "PASS" && !disagreed {
            disagreed = true;
            "FAIL"
        } else if verdict == "PASS" {
            "PASS"
        } else {
            "FAIL"
        }
    };
    // 1: by keyboard.
    let at = current(&mut browser);
    let human = label_as(&judged, &at);
    browser.press(if human == "PASS" { "p" } else { "f" });
    saved(&mut browser, 1);
    expected.push(row(&at.0, at.1, human, "ann", ""));
    // A skip by keyboard, then back with the left arrow and forward again: nothing written.
    let skipped = current(&mut browser);
    browser.press("s");
    assert_ne!(current(&mut browser), skipped);
    browser.press("ArrowLeft");
    assert_eq!(current(&mut browser), skipped);
    browser.press("ArrowRight");
    // 2: a note typed into the box, then a mouse click.
    let at = current(&mut browser);
    let human = label_as(&judged, &at);
    browser.click("#note");
    browser.type_text("typed, with \"quotes\" (and p f s keys)");
    browser.click(if human == "PASS" {
        "#btn-pass"
    } else {
        "#btn-fail"
    });
    saved(&mut browser, 2);
    expected.push(row(
        &at.0,
        at.1,
        human,
        "ann",
        "typed, with \"quotes\" (and p f s keys)",
    ));
    // 3: by mouse.
    let at = current(&mut browser);
    let human = label_as(&judged, &at);
    browser.click(if human == "PASS" {
        "#btn-pass"
    } else {
        "#btn-fail"
    });
    saved(&mut browser, 3);
    expected.push(row(&at.0, at.1, human, "ann", ""));
    assert_eq!(
        rows(&labels),
        expected,
        "every label is on disk before the page moves on"
    );
    let first_port = server.port;
    server.kill();

    let server = Server::start(&judged, &labels, "ann", &sample);
    browser.open_url(&server.url());
    // The page resumes at the first attempt not labelled: the skipped one.
    assert_eq!(current(&mut browser), skipped);
    for key in ["key", "mouse"] {
        let at = current(&mut browser);
        let human = label_as(&judged, &at);
        let done = expected.len() + 1;
        match (key, human) {
            ("key", "PASS") => browser.press("p"),
            ("key", _) => browser.press("f"),
            (_, "PASS") => browser.click("#btn-pass"),
            _ => browser.click("#btn-fail"),
        }
        saved(&mut browser, done);
        expected.push(row(&at.0, at.1, human, "ann", ""));
    }
    assert_eq!(rows(&labels), expected);
    let calibration = calibrate(&judged, &labels, &[]);
    assert_eq!(calibration["n"], 5);
    assert!(
        !calibration["correction"]["corrected_pass_rate"].is_null(),
        "{calibration}"
    );
    assert_page_matches_calibrate(&mut browser, &calibration);
    // The page talked to its own servers only.
    let origins = [first_port, server.port].map(|port| format!("http://127.0.0.1:{port}/"));
    for url in browser.requests() {
        assert!(
            origins.iter().any(|o| url.starts_with(o)) || url.starts_with("data:"),
            "the page requested {url}"
        );
    }
    assert_eq!(browser.console_errors(), Vec::<String>::new());
    browser.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("review/page.png"));
}

#[test]
fn agent_text_in_answers_files_and_reasoning_stays_text() {
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let judged = judged_run();
    let (task, attempt) = plant_payload(&judged);
    let server = Server::start(&judged, &judged.labels(), "ann", &["--show-judge"]);
    browser.open_url(&server.url());
    assert_eq!(current(&mut browser), (task, attempt));
    let shown =
        browser.eval("[...document.querySelectorAll('#attempt pre')].map((p) => p.textContent)");
    let shown: Vec<String> = serde_json::from_value(shown).unwrap();
    // The reasoning (shown with --show-judge), the answer and outbox.log, all as text.
    let holding = shown.iter().filter(|t| t.contains(PAYLOAD)).count();
    assert_eq!(holding, 3, "{shown:?}");
    assert_eq!(browser.eval("typeof window.__pwned"), json!("undefined"));
    assert_eq!(
        browser
            .eval("document.querySelectorAll('#attempt script, #attempt img, #attempt b').length"),
        json!(0)
    );
    // Label it, so the state and list are drawn again with the payload in them.
    browser.press("p");
    saved(&mut browser, 1);
    assert_eq!(browser.eval("typeof window.__pwned"), json!("undefined"));
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}
