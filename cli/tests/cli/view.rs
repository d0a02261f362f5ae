//! `proctor view`: the server's gate, and the page in headless Chromium checked against the
//! commands whose figures it shows (`report`, `compare`), a run followed live, and agent text
//! kept as text (docs/viewing.md).
//!
//! The runs are made here, offline, by `proctor run` with a small agent for the ten sums of
//! `fixtures/cluster/tasks.yaml` that reports its token usage (so that runs have a cost), and
//! their start times moved a week apart.

use crate::chromium::Browser;
use crate::common::{proctor, root, run, write};
use crate::loopback::{PAYLOAD, http, http_full, page_url, start_page_server};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

/// Answers `add A B` with the sum (one more on about a quarter of the seeds) after sleeping
/// its first argument's seconds, and reports usage of a priced model; with a second argument,
/// of a model without a price on odd seeds (its cost per success is then a lower bound).
const AGENT: &str = r#"import json, sys, time
task = json.loads(sys.stdin.readline())
time.sleep(float(sys.argv[1]))
words = task["input"].split()
if len(words) == 3 and words[0] == "add":
    answer = str(int(words[1]) + int(words[2]) + (1 if task["seed"] % 4 == 0 else 0))
else:
    answer = "I only add"
model = "claude-sonnet-4-6"
if len(sys.argv) > 2 and task["seed"] % 2 == 1:
    model = "no-such-model"
print(json.dumps({"status": "final", "answer": answer, "steps": 1,
    "usage": [{"provider": "anthropic", "model": model, "input_tokens": 800, "output_tokens": 60}]}))
"#;

/// A test's folder: the viewed folder `results/`, the summary cache beside it (never inside),
/// and the agent.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let lab = Lab {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(lab.results()).unwrap();
        write(lab.dir.path(), "agent.py", AGENT);
        lab
    }

    fn results(&self) -> PathBuf {
        self.dir.path().join("results")
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// The agent's command line.
    fn agent(&self, sleep: f64, unpriced: bool) -> String {
        let script = self.dir.path().join("agent.py");
        let extra = if unpriced { " unpriced" } else { "" };
        format!("python3 {} {sleep}{extra}", script.display())
    }

    /// `proctor run` of the ten sums, once each, into `out`.
    fn run(&self, out: &Path, label: &str, seed: u64, unpriced: bool) {
        let done = run(proctor()
            .args(["run", "--tasks", "fixtures/cluster/tasks.yaml", "--agent"])
            .arg(self.agent(0.0, unpriced))
            .args(["--label", label, "--seed", &seed.to_string(), "--out"])
            .arg(out));
        assert!(done.code == 0 || done.code == 1, "{}", done.stderr);
    }
}

/// Moves every line's start to `day` (`2026-11-02`), a minute apart in file order.
fn redate(path: &Path, day: &str) {
    let text: String = crate::common::results(path)
        .into_iter()
        .enumerate()
        .map(|(i, mut line)| {
            line["timings"]["started_at"] = json!(format!("{day}T10:{:02}:00Z", i % 60));
            format!("{line}\n")
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

/// A running `proctor view`; killed when dropped.
struct Viewer {
    child: Child,
    port: u16,
    token: String,
}

impl Viewer {
    fn start(paths: &[&Path], cache: &Path) -> Viewer {
        let (child, port, token) = start_page_server(
            Command::new(assert_cmd::cargo::cargo_bin("proctor"))
                .current_dir(root())
                .arg("view")
                .args(paths)
                .arg("--cache")
                .arg(cache),
        );
        Viewer { child, port, token }
    }

    fn url(&self) -> String {
        page_url(self.port, &self.token)
    }

    /// A GET with the token in a header: the status and the body.
    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        let (status, _, body) = http_full(
            self.port,
            "GET",
            path,
            &[("X-Proctor-Token", &self.token)],
            b"",
        );
        (status, body)
    }

    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }

    /// `/api/runs` once it lists `count` runs, all summarised and none being written.
    fn runs(&self, count: usize) -> Value {
        let started = Instant::now();
        loop {
            let list = self.json("/api/runs");
            let runs = list["runs"].as_array().unwrap();
            if list["scanning"] == false
                && runs.len() == count
                && runs.iter().all(|r| r["live"] == false)
            {
                return list;
            }
            assert!(started.elapsed() < WAIT, "never {count} runs: {list}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The run of `/api/runs` shown as `file`.
fn run_of<'v>(list: &'v Value, file: &str) -> &'v Value {
    list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"] == file)
        .unwrap_or_else(|| panic!("no run {file} in {list}"))
}

fn agent_of<'v>(run: &'v Value, agent: &str) -> &'v Value {
    run["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == agent)
        .unwrap_or_else(|| panic!("no agent {agent} in {run}"))
}

/// A command's standard output, the command having succeeded.
fn stdout_of(cmd: &mut assert_cmd::Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `proctor report FILE --format json`, and per agent the strings its HTML page shows
/// (`pass_rate`, `pass_rate_ci`, `cost_per_success.usd`).
fn report(file: &Path) -> (Value, Value) {
    let json: Value = serde_json::from_slice(&stdout_of(
        proctor().arg("report").arg(file).args(["--format", "json"]),
    ))
    .unwrap();
    let page = String::from_utf8(stdout_of(
        proctor().arg("report").arg(file).args(["--format", "html"]),
    ))
    .unwrap();
    let open = "<script type=\"application/json\" id=\"report-data\">";
    let start = page.find(open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    (json, data["scorecards"].clone())
}

/// `proctor compare OLD NEW --format json`.
fn compare(old: &Path, new: &Path) -> Value {
    let out = run(proctor()
        .arg("compare")
        .arg(old)
        .arg(new)
        .args(["--format", "json"]));
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// Every run row of the page: its id, file, progress, whether it shows a live badge, and per
/// agent the text of each `[data-metric]`.
const ROWS: &str = "[...document.querySelectorAll('#runs tr.run')].map((tr) => { \
    const agents = {}; \
    for (const m of tr.querySelectorAll('[data-metric]')) { \
      const a = m.closest('[data-agent]').getAttribute('data-agent'); \
      (agents[a] = agents[a] || {})[m.getAttribute('data-metric')] = m.textContent; } \
    return {id: tr.getAttribute('data-id'), \
      file: tr.querySelector('[data-field=file] a').textContent, \
      progress: tr.querySelector('[data-field=progress] .progress').textContent, \
      live: tr.querySelector('.badge.live') !== null || tr.classList.contains('live'), \
      names: [...tr.querySelectorAll('[data-field=agents] .agent-name')].map((n) => n.textContent), \
      agents: agents}; })";

#[test]
fn the_server_answers_only_its_own_page_with_the_token_and_only_gets() {
    let lab = Lab::new();
    let viewer = Viewer::start(&[&lab.results()], &lab.cache());
    let port = viewer.port;
    let token = viewer.token.clone();
    let wrong = "0".repeat(token.len());
    // No token, a wrong one (in the query, in the header).
    for (path, headers) in [
        ("/".to_owned(), vec![]),
        ("/api/runs".to_owned(), vec![]),
        ("/view.js".to_owned(), vec![]),
        (format!("/?token={wrong}"), vec![]),
        (
            "/api/runs".to_owned(),
            vec![("X-Proctor-Token", wrong.as_str())],
        ),
        ("/api/runs?token=abc".to_owned(), vec![]),
    ] {
        let (status, body) = http(port, "GET", &path, &headers, "");
        assert_eq!(status, 403, "{path} {headers:?}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap();
        assert!(error["error"].is_string(), "{body}");
    }
    // A name rebound to 127.0.0.1 by another site is not this server.
    let evil = format!("evil.example:{port}");
    for path in [
        format!("/?token={token}"),
        format!("/api/runs?token={token}"),
    ] {
        assert_eq!(
            http(port, "GET", &path, &[("Host", &evil)], "").0,
            403,
            "{path}"
        );
    }
    // Another site's page asking for the list, by either signal.
    for refused in [
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
        ("Origin", "http://evil.example"),
    ] {
        let (status, body) = http(
            port,
            "GET",
            "/api/runs",
            &[("X-Proctor-Token", &token), refused],
            "",
        );
        assert_eq!(status, 403, "{refused:?}: {body}");
    }
    // Nothing but GET, even with the token and from the page's own origin.
    let ours = format!("http://127.0.0.1:{port}");
    for method in ["POST", "PUT", "DELETE"] {
        let (status, body) = http(
            port,
            method,
            "/api/runs",
            &[
                ("X-Proctor-Token", &token),
                ("Origin", &ours),
                ("Sec-Fetch-Site", "same-origin"),
                ("Content-Type", "application/json"),
            ],
            "{}",
        );
        assert!(status == 405 || status == 403, "{method}: {status} {body}");
    }
    // With the token: the list, as JSON, and the page under its policy.
    let (status, head, body) = http_full(
        port,
        "GET",
        "/api/runs",
        &[
            ("X-Proctor-Token", &token),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        b"",
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let list: Value = serde_json::from_slice(&body).unwrap();
    assert!(list["version"].as_u64().is_some(), "{list}");
    assert_eq!(
        list["roots"],
        json!([lab.results().canonicalize().unwrap().display().to_string()])
    );
    let (status, head, page) = http_full(port, "GET", &format!("/?token={token}"), &[], b"");
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-security-policy: default-src 'none'"),
        "{head}"
    );
    assert!(
        String::from_utf8(page)
            .unwrap()
            .contains("<table id=\"runs\">")
    );
    // Unknown routes and runs are not found; no request names a file.
    for path in [
        "/etc/passwd",
        "/../../etc/passwd",
        "/run?id=..%2F..%2Fetc%2Fpasswd",
    ] {
        assert_eq!(viewer.get(path).0, 404, "{path}");
    }
}

#[test]
fn the_page_shows_the_figures_verdicts_comparison_and_pages_of_the_commands() {
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let lab = Lab::new();
    let results = lab.results();
    // Three weeks: two runs of agent v1 with their run records, then a file (no record, not
    // named .jsonl, deep down) with a third run of v1 (unpriced calls: a lower bound) and a
    // first of v2.
    let week1 = results.join("week1.jsonl");
    let week2 = results.join("week2.jsonl");
    lab.run(&week1, "v1", 1, false);
    redate(&week1, "2026-11-02");
    lab.run(&week2, "v1", 2, false);
    redate(&week2, "2026-11-09");
    let third_v1 = lab.dir.path().join("third-v1.jsonl");
    let third_v2 = lab.dir.path().join("third-v2.jsonl");
    lab.run(&third_v1, "v1", 3, true);
    lab.run(&third_v2, "v2", 3, false);
    redate(&third_v1, "2026-11-16");
    redate(&third_v2, "2026-11-16");
    let deep_dir = results.join("team/a/b/c");
    std::fs::create_dir_all(&deep_dir).unwrap();
    let deep = deep_dir.join("latest.log");
    let text = [&third_v1, &third_v2]
        .map(|p| std::fs::read_to_string(p).unwrap())
        .concat();
    std::fs::write(&deep, text).unwrap();
    // Not results: found by content, these are not listed.
    write(&results, "notes.jsonl", "{\"not\": \"a result\"}\n");
    write(&deep_dir, "empty.jsonl", "");

    let viewer = Viewer::start(&[&results], &lab.cache());
    let list = viewer.runs(3);
    let files = ["team/a/b/c/latest.log", "week2.jsonl", "week1.jsonl"];
    let listed: Vec<&str> = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(listed, files, "newest first");

    // Every agent's figures: report's own strings, and its numbers to four decimals.
    for (file, path, agents) in [
        (files[0], &deep, &["v1", "v2"][..]),
        (files[1], &week2, &["v1"][..]),
        (files[2], &week1, &["v1"][..]),
    ] {
        let shown = run_of(&list, file);
        assert_eq!(shown["bad_lines"], 0, "{shown}");
        assert_eq!(shown["done"], json!((10 * agents.len()).to_string()));
        let (json, cards) = report(path);
        let listed: Vec<&str> = shown["agents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["agent"].as_str().unwrap())
            .collect();
        assert_eq!(listed, agents, "{file}");
        for agent in agents {
            let a = agent_of(shown, agent);
            let summary = json
                .get("agents")
                .and_then(|all| all.get(*agent))
                .unwrap_or(&json);
            let card = &cards[*agent]["shown"];
            let rate = summary["pass_rate"].as_f64().unwrap();
            let ci = &summary["pass_rate_ci"];
            assert_eq!(
                a["pass_rate"],
                json!(format!("{rate:.4}")),
                "{file} {agent}"
            );
            assert_eq!(
                a["pass_rate_ci"],
                json!(format!(
                    "[{:.4}, {:.4}]",
                    ci["low"].as_f64().unwrap(),
                    ci["high"].as_f64().unwrap()
                )),
                "{file} {agent}"
            );
            assert_eq!(a["pass_rate"], card["pass_rate"], "{file} {agent}");
            assert_eq!(a["pass_rate_ci"], card["pass_rate_ci"], "{file} {agent}");
            // As the table prints it: a lower bound says so and counts the unpriced calls.
            assert_eq!(
                a["cost_usd"], card["cost_per_success.usd"],
                "{file} {agent}"
            );
            let usd = card["cost_per_success.usd"].as_str().unwrap();
            let expected = match summary["unpriced_calls"].as_u64().unwrap() {
                0 => usd.to_owned(),
                1 => format!("≥ {usd}, 1 unpriced call"),
                n => format!("≥ {usd}, {n} unpriced calls"),
            };
            assert_eq!(a["cost_per_success"], json!(expected), "{file} {agent}");
            assert!(usd.starts_with('$'), "{a}");
            assert_eq!(
                a["cost_is_lower_bound"], summary["cost_per_success"]["cost_is_lower_bound"],
                "{file} {agent}"
            );
        }
    }
    assert_eq!(
        agent_of(run_of(&list, files[0]), "v1")["cost_is_lower_bound"],
        true
    );

    // Verdicts: against the previous run of the same suite and agent, as compare says.
    let id = |file: &str| run_of(&list, file)["id"].as_str().unwrap().to_owned();
    let week2_v1 = agent_of(run_of(&list, files[1]), "v1");
    assert_eq!(week2_v1["previous"], json!(id(files[2])));
    assert_eq!(week2_v1["verdict"], compare(&week1, &week2)["verdict"]);
    let deep_v1 = agent_of(run_of(&list, files[0]), "v1");
    assert_eq!(deep_v1["previous"], json!(id(files[1])));
    assert_eq!(deep_v1["verdict"], compare(&week2, &third_v1)["verdict"]);
    for (file, agent) in [(files[2], "v1"), (files[0], "v2")] {
        let first = agent_of(run_of(&list, file), agent);
        assert_eq!(first["previous"], Value::Null, "{first}");
        assert_eq!(first["verdict"], Value::Null, "{first}");
    }

    // The page shows what the list holds, a row per file.
    browser.open_url(&viewer.url());
    browser.wait_for("document.querySelectorAll('#runs tr.run').length === 3");
    let rows = browser.eval(ROWS);
    let rows = rows.as_array().unwrap();
    let shown_files: Vec<&str> = rows.iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(shown_files, files);
    for row in rows {
        let file = row["file"].as_str().unwrap();
        let listed = run_of(&list, file);
        assert_eq!(row["id"], listed["id"]);
        assert_eq!(row["live"], false);
        for a in listed["agents"].as_array().unwrap() {
            let label = a["agent"].as_str().unwrap();
            let on_page = &row["agents"][label];
            // The server's string, which says a lower bound itself.
            let cost = a["cost_per_success"].as_str().unwrap();
            let verdict = a["verdict"].as_str().unwrap_or("-");
            assert_eq!(
                on_page,
                &json!({
                    "pass_rate": a["pass_rate"],
                    "pass_rate_ci": a["pass_rate_ci"],
                    "cost_per_success": cost,
                    "verdict": verdict,
                }),
                "{file} {label}"
            );
        }
    }
    // History: one chart per suite and agent, a point per run, the lower bound hollow.
    assert_eq!(
        browser.eval("[...document.querySelectorAll('#history figure.series')].map((f) => f.getAttribute('data-agent'))"),
        json!(["v1", "v2"])
    );
    assert_eq!(
        browser.eval(
            "document.querySelectorAll('#history figure.series[data-agent=v1] .rate-chart circle[data-run]').length"
        ),
        json!(3)
    );
    assert_eq!(
        browser.eval(
            "[...document.querySelectorAll('#history circle.lower-bound')].map((c) => c.getAttribute('data-run'))"
        ),
        json!([id(files[0])])
    );

    // Two runs picked and compared: compare's own strings.
    browser.click(&format!("input.pick[data-id=\"{}\"]", id(files[2])));
    browser.click(&format!("input.pick[data-id=\"{}\"]", id(files[1])));
    browser.click("#compare");
    browser.wait_for("document.getElementById('comparison').getAttribute('data-state') === 'done'");
    let cli = compare(&week1, &week2);
    let shown = browser.eval(
        "Object.fromEntries([...document.querySelectorAll('#comparison [data-metric]')].map((m) => [m.getAttribute('data-metric'), m.textContent]))",
    );
    let shown = shown.as_object().unwrap();
    assert!(shown.len() >= 8, "{shown:?}");
    for (key, text) in shown {
        let expected = match key.as_str() {
            "verdict" => &cli["verdict"],
            _ => &cli["formatted"][key],
        };
        assert_eq!(
            text.as_str(),
            Some(expected.as_str().unwrap_or("-")),
            "{key}"
        );
    }
    assert_eq!(browser.eval("typeof window.__pwned"), json!("undefined"));
    assert_eq!(browser.console_errors(), Vec::<String>::new());
    for url in browser.requests() {
        assert!(
            url.starts_with(&format!("http://127.0.0.1:{}/", viewer.port))
                || url.starts_with("data:"),
            "the page requested {url}"
        );
    }

    // The same comparison by the API: compare's JSON, whole.
    let week1 = week1.canonicalize().unwrap();
    let week2 = week2.canonicalize().unwrap();
    let deep = deep.canonicalize().unwrap();
    let answer = viewer.json(&format!(
        "/api/compare?old={}&new={}",
        id(files[2]),
        id(files[1])
    ));
    assert_eq!(answer["comparison"], compare(&week1, &week2));
    assert_eq!(
        answer["command"],
        json!(format!(
            "proctor compare {} {} --format json",
            week1.display(),
            week2.display()
        ))
    );
    // One agent of a file holding two.
    let answer = viewer.json(&format!(
        "/api/compare?old={}&new={}&agent=v1",
        id(files[1]),
        id(files[0])
    ));
    let cli = compare(&week2, &third_v1);
    assert_eq!(answer["comparison"]["formatted"], cli["formatted"]);
    assert_eq!(answer["comparison"]["verdict"], cli["verdict"]);
    // The whole comparison page: what `compare --html` writes.
    let html = lab.dir.path().join("compare.html");
    let out = run(proctor()
        .arg("compare")
        .arg(&week1)
        .arg(&week2)
        .arg("--html")
        .arg(&html));
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let (status, page) = viewer.get(&format!(
        "/compare?old={}&new={}",
        id(files[2]),
        id(files[1])
    ));
    assert_eq!(status, 200);
    assert!(
        page == std::fs::read(&html).unwrap(),
        "the compare page differs"
    );

    // One run's page: what `report --format html` writes, with the task file its run
    // recorded; a file without a record, without.
    let (status, page) = viewer.get(&format!("/run?id={}", id(files[2])));
    assert_eq!(status, 200);
    let tasks = root().join("fixtures/cluster/tasks.yaml");
    let expected = stdout_of(
        proctor()
            .arg("report")
            .arg(&week1)
            .args(["--format", "html", "--tasks"])
            .arg(&tasks),
    );
    assert!(page == expected, "the run page of week1 differs");
    let without = stdout_of(
        proctor()
            .arg("report")
            .arg(&week1)
            .args(["--format", "html"]),
    );
    assert!(page != without, "the task file made no difference");
    let (status, page) = viewer.get(&format!("/run?id={}", id(files[0])));
    assert_eq!(status, 200);
    let expected = stdout_of(
        proctor()
            .arg("report")
            .arg(&deep)
            .args(["--format", "html"]),
    );
    assert!(page == expected, "the run page of the deep file differs");
    assert!(
        !lab.cache().starts_with(&results) && lab.cache().read_dir().unwrap().count() >= 3,
        "the summaries are cached outside the viewed folder"
    );
}

#[test]
fn a_run_is_followed_live_until_it_ends() {
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let lab = Lab::new();
    let tasks = write(
        lab.dir.path(),
        "tasks.yaml",
        "- {id: s1, input: add 1 2, expected: \"3\"}\n\
         - {id: s2, input: add 2 2, expected: \"4\"}\n\
         - {id: s3, input: add 3 2, expected: \"5\"}\n\
         - {id: s4, input: add 4 2, expected: \"6\"}\n\
         - {id: s5, input: add 5 2, expected: \"7\"}\n",
    );
    let viewer = Viewer::start(&[&lab.results()], &lab.cache());
    browser.open_url(&viewer.url());
    browser.wait_for("document.getElementById('empty').hidden === false");
    browser.eval("window.__same_page = true");
    let out = lab.results().join("live.jsonl");
    let mut writer = Command::new(assert_cmd::cargo::cargo_bin("proctor"))
        .current_dir(root())
        .args(["run", "--tasks"])
        .arg(&tasks)
        .arg("--agent")
        .arg(lab.agent(0.4, false))
        .args(["--attempts", "3", "--jobs", "1", "--label", "slow", "--out"])
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Watch the row as the run writes: its progress while live, until it ends.
    let started = Instant::now();
    let mut seen: Vec<u64> = Vec::new();
    let ended = loop {
        assert!(
            started.elapsed() < WAIT,
            "the run never showed as ended; live progress seen {seen:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
        let rows = browser.eval(ROWS);
        let Some(row) = rows.as_array().unwrap().first() else {
            continue;
        };
        let progress = row["progress"].as_str().unwrap();
        let done: u64 = progress
            .strip_suffix(" of 15")
            .unwrap_or_else(|| panic!("progress {progress:?}"))
            .parse()
            .unwrap();
        if row["live"] == true {
            if seen.last() != Some(&done) {
                assert!(
                    seen.last().is_none_or(|&last| last < done),
                    "{seen:?} then {done}"
                );
                seen.push(done);
            }
        } else if writer.try_wait().unwrap().is_some() {
            break row.clone();
        }
    };
    assert!(writer.wait().unwrap().code().is_some_and(|c| c <= 1));
    assert!(
        seen.iter().filter(|&&n| n < 15).count() >= 2,
        "live progress seen: {seen:?}"
    );
    assert_eq!(ended["progress"], "15 of 15", "{ended}");
    assert_eq!(ended["names"], json!(["slow"]));
    assert_eq!(
        browser.eval("document.querySelectorAll('#runs .badge.live, #runs .time-left').length"),
        json!(0)
    );
    assert_eq!(
        browser.eval("window.__same_page"),
        json!(true),
        "the page was reloaded"
    );
    // The ended run's figures are report's.
    let list = viewer.runs(1);
    let (json, _) = report(&out);
    let a = agent_of(run_of(&list, "live.jsonl"), "slow");
    assert_eq!(
        a["pass_rate"],
        json!(format!("{:.4}", json["pass_rate"].as_f64().unwrap()))
    );
    assert_eq!(
        browser.eval("document.querySelector('#runs tr.run [data-metric=pass_rate]').textContent"),
        a["pass_rate"]
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}

#[test]
fn agent_text_in_labels_tasks_reasons_and_file_names_stays_text() {
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let lab = Lab::new();
    let made = lab.dir.path().join("made.jsonl");
    lab.run(&made, "v1", 1, false);
    let text: String = crate::common::results(&made)
        .into_iter()
        .map(|mut line| {
            line["label"] = json!(PAYLOAD);
            if line["task"] == "sum-10" {
                line["task"] = json!(PAYLOAD);
            }
            if line["passed"] == false {
                line["reasons"] = json!([PAYLOAD]);
                line["checks"][0]["failure"] = json!(PAYLOAD);
            }
            format!("{line}\n")
        })
        .collect();
    // A file name cannot hold `/`: the payload without its closing tags.
    let name = "<script>window.__pwned=1<script><img src=x onerror=window.__pwned=1>.jsonl";
    std::fs::write(lab.results().join(name), text).unwrap();
    let viewer = Viewer::start(&[&lab.results()], &lab.cache());
    let list = viewer.runs(1);
    browser.open_url(&viewer.url());
    browser.wait_for("document.querySelectorAll('#runs tr.run').length === 1");
    let rows = browser.eval(ROWS);
    let row = &rows[0];
    assert_eq!(row["file"], name);
    assert_eq!(row["names"], json!([PAYLOAD]));
    assert_eq!(
        row["agents"][PAYLOAD]["pass_rate"],
        agent_of(&list["runs"][0], PAYLOAD)["pass_rate"]
    );
    assert_eq!(
        browser.eval("document.querySelector('#history figure.series .agent-name').textContent"),
        json!(PAYLOAD)
    );
    assert_eq!(browser.eval("typeof window.__pwned"), json!("undefined"));
    assert_eq!(
        browser.eval("document.querySelectorAll('main script, main img, main b').length"),
        json!(0)
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
    // The run's page, with the payload as task id, label and reason.
    let id = list["runs"][0]["id"].as_str().unwrap();
    browser.open_url(&format!(
        "http://127.0.0.1:{}/run?id={id}&token={}",
        viewer.port, viewer.token
    ));
    assert_eq!(browser.eval("typeof window.__pwned"), json!("undefined"));
    let body = browser.eval("document.body.textContent");
    assert!(
        body.as_str().unwrap().matches(PAYLOAD).count() >= 2,
        "the payload is not shown as text"
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}

#[test]
fn a_file_report_refuses_says_why_on_its_row() {
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    let lab = Lab::new();
    let file = lab.results().join("twice.jsonl");
    lab.run(&file, "v1", 1, false);
    // The first attempt again, as when two runs write to one file.
    let text = std::fs::read_to_string(&file).unwrap();
    let first = text.lines().next().unwrap().to_owned();
    std::fs::write(&file, format!("{text}{first}\n")).unwrap();
    let refused = run(proctor()
        .arg("report")
        .arg(&file)
        .args(["--format", "json"]));
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    let viewer = Viewer::start(&[&lab.results()], &lab.cache());
    let list = viewer.runs(1);
    let error = list["runs"][0]["error"].as_str().unwrap().to_owned();
    assert!(error.contains("already on"), "{error}");
    browser.open_url(&viewer.url());
    browser.wait_for("document.querySelectorAll('#runs tr.run').length === 1");
    let shown =
        browser.eval("document.querySelector('#runs tr.run [data-field=file]').textContent");
    assert!(
        shown.as_str().unwrap().contains(&error),
        "the row does not say why report refuses the file: {shown}"
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}
