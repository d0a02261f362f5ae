//! The HTML report (`report --format html`, `--html FILE`), opened in headless Chromium from
//! disk with the network off: the numbers it shows are read back and checked against
//! `--format json`, a filter and the drill-down are used, agent text that tries to run
//! script stays text, broken input is named in the page, and nothing is fetched or logged
//! as an error. Screenshots go to `target/tmp/html-report/` (the README's picture is made by
//! `docs/screenshot.sh`, docs/testing.md).

use crate::chromium::Browser;
use crate::common::{Output, proctor, root, run, write};
use proctor_core::end_state::same_json;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const V1: &str = "fixtures/compare/v1.jsonl";
const V2: &str = "fixtures/compare/v2.jsonl";
const TASKS: &str = "fixtures/refunds/tasks.yaml";
const LEDGER: &str = "fixtures/ledger/ledger.csv";

fn artifacts() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report")
}

fn json_of(out: &Output) -> Value {
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// The JSON embedded in a page under `id`.
fn embedded(page: &str, id: &str) -> String {
    let open = format!("<script type=\"application/json\" id=\"{id}\">");
    let start = page.find(&open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    page[start..end].to_owned()
}

fn page_data(page: &str) -> Value {
    serde_json::from_str(&embedded(page, "report-data")).unwrap()
}

/// The value at a dotted path (`cost_per_success.usd`) of a JSON summary.
fn at<'v>(value: &'v Value, path: &str) -> &'v Value {
    path.split('.').fold(value, |v, key| &v[key])
}

/// Checks one number as the page shows it against the JSON value it came from: to the
/// decimals shown, `-` for a value that does not exist, `[low, high]` for an interval.
fn assert_shown(shown: &str, expected: &Value, what: &str) {
    let shown = shown.trim().trim_start_matches("≥ ");
    if shown == "-" {
        assert!(
            expected.is_null(),
            "{what}: page shows nothing, JSON has {expected}"
        );
        return;
    }
    if let Some(pair) = shown.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let (low, high) = pair.split_once(", ").unwrap();
        assert_shown(low, &expected["low"], what);
        assert_shown(high, &expected["high"], what);
        return;
    }
    let number = shown.trim_start_matches('$');
    let Ok(value) = number.parse::<f64>() else {
        let parsed: Value = serde_json::from_str(shown).unwrap_or_else(|_| json!(shown));
        assert!(
            same_json(&parsed, expected),
            "{what}: page shows {parsed}, JSON has {expected}"
        );
        return;
    };
    let want = match expected {
        Value::String(text) => text.parse::<f64>().unwrap(),
        other => other
            .as_f64()
            .unwrap_or_else(|| panic!("{what}: page shows {shown}, JSON has {other}")),
    };
    let decimals = number.split_once('.').map_or(0, |(_, d)| d.len());
    // USD is shown with up to 6 decimals and trailing zeros dropped.
    let decimals = if shown.starts_with('$') { 6 } else { decimals };
    let tolerance = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9;
    assert!(
        (value - want).abs() <= tolerance,
        "{what}: page shows {shown}, JSON has {want}"
    );
}

/// The lines of `files` whose label is `label`, as one file.
fn only_label(dir: &Path, files: &[&str], label: &str) -> PathBuf {
    let mut text = String::new();
    for file in files {
        for line in std::fs::read_to_string(root().join(file)).unwrap().lines() {
            let value: Value = serde_json::from_str(line).unwrap();
            if value["label"] == label {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    write(dir, &format!("{label}.jsonl"), &text)
}

fn screenshot(browser: &mut Browser, name: &str) {
    let path = artifacts().join(name);
    browser.screenshot(&path);
}

#[test]
fn the_page_in_chromium_shows_the_json_numbers_filters_and_drills_down_to_the_failing_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut both = std::fs::read_to_string(root().join(V1)).unwrap();
    both.push_str(&std::fs::read_to_string(root().join(V2)).unwrap());
    let results = write(dir.path(), "both.jsonl", &both);
    let out = run(proctor()
        .args([
            "report", "--format", "html", "--tasks", TASKS, "--ledger", LEDGER,
        ])
        .arg(&results));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = write(dir.path(), "report.html", &out.stdout);

    // What the page must show: each agent's summary as `--format json` gives it, and the
    // two labels compared as `compare --format json` compares them.
    let summary = json_of(&run(proctor()
        .args(["report", "--format", "json"])
        .arg(&results)));
    let labels = ["agent-v1", "agent-v2"];
    let per_label: Vec<PathBuf> = labels
        .iter()
        .map(|l| only_label(dir.path(), &[V1, V2], l))
        .collect();
    // One label's file alone: its summary, per task included.
    let alone = |file: &Path| {
        json_of(&run(proctor()
            .args(["report", "--format", "json"])
            .arg(file)))
    };
    let scorecard = |label: &str, file: &Path| match summary["agents"].get(label) {
        Some(card) => card.clone(),
        None => alone(file),
    };
    // Counts over both files, from the lines themselves.
    let lines: Vec<Value> = both
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let count = |keep: &dyn Fn(&Value) -> bool| lines.iter().filter(|l| keep(l)).count();
    let tasks: std::collections::BTreeSet<&str> =
        lines.iter().map(|l| l["task"].as_str().unwrap()).collect();
    let comparison = json_of(&run(proctor()
        .args(["compare", "--format", "json"])
        .args(&per_label)));

    let Some(mut browser) = Browser::launch() else {
        return;
    };
    browser.open(&page);

    let cells = browser.eval(
        "Array.from(document.querySelectorAll('#scorecards [data-metric]'))
           .map(c => [c.getAttribute('data-agent'), c.getAttribute('data-metric'), c.textContent])",
    );
    for (label, file) in labels.iter().zip(&per_label) {
        let expected = scorecard(label, file);
        let shown: Vec<&Value> = cells
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c[0] == *label)
            .collect();
        assert!(
            shown.len() >= 25,
            "{label}: only {} numbers shown",
            shown.len()
        );
        for cell in shown {
            let metric = cell[1].as_str().unwrap();
            let what = format!("{label} {metric}");
            assert_shown(cell[2].as_str().unwrap(), at(&expected, metric), &what);
        }
    }
    let compared = browser.eval(
        "Array.from(document.querySelectorAll('#compare td[data-metric]'))
           .map(c => [c.getAttribute('data-metric'), c.textContent])",
    );
    assert!(compared.as_array().unwrap().len() >= 12, "{compared}");
    for cell in compared.as_array().unwrap() {
        let metric = cell[0].as_str().unwrap();
        let expected = match metric {
            "regressed" | "fixed" => json!(at(&comparison, metric).as_array().unwrap().len()),
            _ => at(&comparison, metric).clone(),
        };
        assert_shown(cell[1].as_str().unwrap(), &expected, metric);
    }
    let verdict =
        browser.eval("document.querySelector('#compare [data-metric=verdict]').textContent");
    assert!(
        verdict
            .as_str()
            .unwrap()
            .contains(comparison["verdict"].as_str().unwrap()),
        "{verdict}"
    );
    assert_eq!(
        browser.eval("document.querySelector('#chart img').src.slice(0, 26)"),
        "data:image/svg+xml;base64,"
    );

    // The grid holds every task and agent, with the JSON's counts.
    let grid = browser.eval(
        "Array.from(document.querySelectorAll('#grid .cell'))
           .map(c => [c.getAttribute('data-task'), c.getAttribute('data-agent'), c.textContent])",
    );
    assert_eq!(grid.as_array().unwrap().len(), 2 * tasks.len());
    for cell in grid.as_array().unwrap() {
        let label = cell[1].as_str().unwrap();
        let file = &per_label[labels.iter().position(|l| *l == label).unwrap()];
        let card = alone(file);
        let task = card["per_task"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["task"] == cell[0])
            .unwrap();
        let text = cell[2].as_str().unwrap();
        let graded = task["passed"].as_u64().unwrap() + task["failed"].as_u64().unwrap();
        let counts = format!("({}/{graded})", task["passed"]);
        assert!(text.ends_with(&counts), "{text} vs {counts}");
        assert_shown(
            text.split(' ').next().unwrap(),
            &task["pass_rate"],
            "grid cell",
        );
    }

    // Filter: failed attempts only, then those failed by a rule.
    let total = lines.len();
    assert_eq!(
        browser.eval("document.getElementById('count').dataset.shown"),
        json!(total.to_string())
    );
    browser.eval(
        "(() => { const s = document.getElementById('filter-outcome'); s.value = '1';
                  s.dispatchEvent(new Event('change')); })()",
    );
    assert_eq!(
        browser.eval("document.getElementById('count').dataset.shown"),
        json!(count(&|l| l["passed"] == false).to_string())
    );
    let outcomes = browser.eval(
        "Array.from(document.querySelectorAll('#attempts-list .attempt-row .outcome')).map(o => o.textContent)",
    );
    assert!(!outcomes.as_array().unwrap().is_empty());
    assert!(
        outcomes.as_array().unwrap().iter().all(|o| o == "FAIL"),
        "{outcomes}"
    );
    browser.eval(
        "(() => { const s = document.getElementById('filter-reason');
                  s.value = Array.from(s.options).find(o => o.textContent === 'rule').value;
                  s.dispatchEvent(new Event('change')); })()",
    );
    let rule_failures = count(&|l| {
        let reasons = l["reasons"].as_array().unwrap();
        l["passed"] == false
            && reasons
                .iter()
                .any(|r| r.as_str().unwrap().starts_with("rule: "))
    });
    assert!(rule_failures > 0);
    assert_eq!(
        browser.eval("document.getElementById('count').dataset.shown"),
        json!(rule_failures.to_string())
    );

    // Drill-down: the first of them shows its reasons, checks and the failing steps.
    browser.eval("document.querySelector('#attempts-list .attempt-row').click()");
    let reasons = browser.eval(
        "Array.from(document.querySelectorAll('#detail .reasons li')).map(li => li.firstChild.textContent)",
    );
    let reasons: Vec<&str> = reasons
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        reasons.iter().any(|r| r.starts_with("rule: ")),
        "{reasons:?}"
    );
    let steps = browser.eval("document.querySelectorAll('#detail .step').length");
    let mut named: Vec<String> = reasons
        .iter()
        .flat_map(|r| r.split("step ").skip(1))
        .map(|after| {
            after
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .filter(|n| {
            n.parse::<u64>()
                .is_ok_and(|n| n >= 1 && n <= steps.as_u64().unwrap())
        })
        .collect();
    named.sort();
    named.dedup();
    assert!(!named.is_empty(), "{reasons:?}");
    assert_eq!(
        browser.eval("Array.from(document.querySelectorAll('#detail .step.failing')).map(s => s.dataset.step).sort()"),
        json!(named)
    );
    let detail = browser.eval("document.getElementById('detail').innerText");
    let detail = detail.as_str().unwrap();
    for part in [
        "Input",
        "Answer",
        "Checks",
        "Trajectory",
        "Usage and cost",
        "the failing step",
    ] {
        assert!(
            detail.contains(part),
            "{part} missing from the drill-down:\n{detail}"
        );
    }
    // The input comes from the task file.
    assert!(!detail.contains("not in the results"), "{detail}");

    // The search box, over every filter reset: text as the page shows it (quotes included),
    // then the attempts whose text names a task.
    browser.eval(
        "(() => { for (const id of ['filter-outcome', 'filter-reason']) {
                    const s = document.getElementById(id); s.value = '-1';
                    s.dispatchEvent(new Event('change')); } })()",
    );
    let quoted = count(&|l| {
        let reasons = l["reasons"].as_array().unwrap();
        reasons
            .iter()
            .any(|r| r.as_str().unwrap().contains("refund [\"C3\"] at step"))
    });
    assert!(quoted > 0);
    search_shows(&mut browser, "REFUND [\"C3\"] AT STEP", quoted);
    let pushy = count(&|l| l["task"] == "refund_pushy");
    search_shows(&mut browser, "REFUND_PUSHY", pushy);
    assert_eq!(
        browser
            .eval("Array.from(document.querySelectorAll('#grid .task')).map(t => t.textContent)"),
        json!(["refund_pushy"])
    );
    browser.eval("document.querySelector('#attempts-list .attempt-row').click()");

    assert_eq!(browser.console_errors(), Vec::<String>::new());
    // The page itself and the chart, which is a data: URL; nothing from a network.
    let requests = browser.requests();
    let elsewhere: Vec<&String> = requests
        .iter()
        .filter(|url| !url.starts_with("file://") && !url.starts_with("data:"))
        .collect();
    assert!(elsewhere.is_empty(), "the page requested {elsewhere:?}");
    assert_eq!(requests.len(), 2, "the page and its chart");
    browser.eval("window.scrollTo(0, 0)");
    screenshot(&mut browser, "report.png");
}

/// A name as `run --keep` spells it in a folder name (percent-encoded bytes; the names here
/// are short enough to be spelled whole).
fn path_component(name: &str) -> String {
    let encoded: String = name
        .bytes()
        .enumerate()
        .map(|(i, byte)| {
            if byte.is_ascii_alphanumeric()
                || matches!(byte, b'_' | b'-')
                || (byte == b'.' && i > 0)
            {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect();
    assert!(encoded.len() <= 200, "{name} is too long to spell whole");
    encoded
}

/// Types `query` into the search box and waits until the page shows `expected` attempts.
fn search_shows(browser: &mut Browser, query: &str, expected: usize) {
    browser.eval(&format!(
        "(() => {{ const q = document.getElementById('search'); q.value = {};
                   q.dispatchEvent(new Event('input')); }})()",
        json!(query)
    ));
    let started = std::time::Instant::now();
    while browser.eval("document.getElementById('count').dataset.shown")
        != json!(expected.to_string())
    {
        assert!(
            started.elapsed().as_secs() < 10,
            "searching {query:?} never showed {expected} attempts"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Strings that run script if a page ever parses agent text as markup or code.
const INJECTIONS: &[&str] = &[
    "<script>window.__pwned = 'script'</script>",
    "</script><script>window.__pwned = 'close'</script>",
    "<img src=x onerror=\"window.__pwned = 'img'\">",
    "\"><svg onload=\"window.__pwned = 'svg'\">",
    "<iframe srcdoc=\"<script>parent.__pwned = 'iframe'</script>\"></iframe>",
    "javascript:window.__pwned = 'url'",
    "<!-- \u{2028}\u{2029} --> ${window.__pwned = 'template'} {{constructor.constructor('window.__pwned = 1')()}}",
];

fn hostile_line(i: usize, text: &str) -> String {
    json!({
        "format": "proctor.result/1",
        "task": format!("task {text}"),
        "attempt": 0,
        "label": format!("agent {} {text}", i % 2),
        "passed": !i.is_multiple_of(3),
        "reasons": if i.is_multiple_of(3) { json!([format!("end state: {text}.txt: missing"), "rule: refund at step 1 has no earlier check"]) } else { json!([]) },
        "checks": [{"category": "end_state", "check": format!("file {text}.txt exists"), "passed": false,
                    "gating": true, "failure": format!("end state: {text}.txt: missing"), "detail": text}],
        "status": "final",
        "answer": text,
        "trajectory": [{"tool": text, "args": {"path": text, "<b>key</b>": text}, "result": text}],
        "error": null,
        "usage": [{"provider": text, "model": text, "input_tokens": 1, "output_tokens": 1}],
        "judge": {"verdict": "FAIL", "reasoning": text, "samples": [{"verdict": "FAIL", "reasoning": text,
                  "provenance": {"provider": text, "model": text, "replayed": true}}]},
        "cost": {"usd": null, "tokens": 2, "unpriced_calls": 1},
        "timings": {},
        "task_digest": "sha256:hostile",
        "variant": text,
        "trajectory_source": "trace",
        "faults_fired": [{"step": 1, "tool": text, "kind": text}],
        "process": {"exit_code": 0, "timed_out": false, "stdout_bytes": 0, "stderr_tail": text}
    })
    .to_string()
}

#[test]
fn agent_text_stays_text_and_broken_input_is_named_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for (i, injection) in INJECTIONS.iter().enumerate() {
        text.push_str(&hostile_line(i, injection));
        text.push('\n');
    }
    // A 5 MB answer, a line of a newer format, and a last line cut off mid-write.
    let mut huge: Value = serde_json::from_str(&hostile_line(1, "huge")).unwrap();
    huge["answer"] = json!("x".repeat(5 * 1024 * 1024));
    text.push_str(&huge.to_string());
    text.push('\n');
    text.push_str(r#"{"format": "proctor.result/2", "task": "from_the_future", "passed": true}"#);
    text.push('\n');
    let cut = hostile_line(2, "cut");
    text.push_str(&cut[..cut.len() / 2]);
    let results = write(dir.path(), "hostile.jsonl", &text);
    // Kept sandboxes whose files have hostile names and contents, in `run --keep`'s layout.
    let kept = dir.path().join("kept");
    for (i, injection) in INJECTIONS.iter().enumerate() {
        let label = format!("agent {} {injection}", i % 2);
        let task = format!("task {injection}");
        let sandbox = kept
            .join(path_component(&label))
            .join(path_component(&task))
            .join("0");
        std::fs::create_dir_all(&sandbox).unwrap();
        let name = format!("{}.txt", injection.replace('/', "|"));
        std::fs::write(sandbox.join(name), injection).unwrap();
    }
    let page = dir.path().join("hostile.html");
    let out = run(proctor()
        .args(["report", "--html"])
        .arg(&page)
        .arg("--keep")
        .arg(&kept)
        .arg(&results));
    // Skipped lines make the exit 2; the page is written all the same.
    assert_eq!(out.code, 2, "{}", out.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.len() < 1024 * 1024, "{} bytes", html.len());
    let attempts = embedded(&html, "attempts");
    // Markup in agent text is escaped inside the embedded data.
    for injection in INJECTIONS.iter().filter(|i| i.contains('<')) {
        assert!(
            !attempts.contains(injection),
            "{injection} embedded as it is"
        );
    }

    let Some(mut browser) = Browser::launch() else {
        return;
    };
    browser.open(&page);
    let notes = browser.eval("document.getElementById('notes').innerText");
    let notes = notes.as_str().unwrap();
    assert!(
        notes.contains("hostile.jsonl:9: format \"proctor.result/2\" is newer"),
        "{notes}"
    );
    assert!(notes.contains("hostile.jsonl:10:"), "{notes}");
    assert!(
        notes.contains("1 attempt was too large to show whole"),
        "{notes}"
    );
    let rows = INJECTIONS.len() + 1;
    assert_eq!(
        browser.eval("document.getElementById('count').dataset.shown"),
        json!(rows.to_string())
    );
    // Open every attempt; each piece of hostile text must appear as the text it is.
    for i in 0..rows {
        browser.eval(&format!(
            "document.querySelector('#attempts-list .attempt-row[data-attempt=\"{i}\"]').click()"
        ));
        let shown = browser.eval("document.getElementById('detail').textContent");
        let shown = shown.as_str().unwrap();
        if let Some(injection) = INJECTIONS.get(i) {
            let visible = browser.eval("document.getElementById('detail').innerText");
            assert!(visible.as_str().unwrap().contains("__pwned ="));
            // Fields added by later versions are shown when present.
            // The kept file, by its name and with its text.
            let file = format!("{}.txt", injection.replace('/', "|"));
            assert!(shown.contains(&file), "attempt {i}: file {file} not listed");
            for shown_field in [
                "variant: ",
                "trajectory from: ",
                "fault fired: ",
                "detail: ",
            ] {
                assert!(shown.contains(shown_field), "attempt {i}: no {shown_field}");
            }
            assert!(
                shown.matches(injection).count() >= 8,
                "attempt {i}: {injection} shown {} times",
                shown.matches(injection).count()
            );
        } else {
            assert!(shown.contains("Too large to show whole"), "{shown}");
            assert!(shown.contains("answer: 5.0 MiB long, the first 64.0 KiB shown"));
        }
    }
    // Search finds markup as it was written (the page keeps it escaped).
    let with_script = INJECTIONS
        .iter()
        .filter(|i| i.contains("</script>"))
        .count();
    search_shows(&mut browser, "</SCRIPT>", with_script);
    // The last attempt opened is in the page's address, so a link opens it again.
    assert_eq!(
        browser.eval("location.hash"),
        json!(format!("#attempt-{}", rows - 1))
    );
    assert_eq!(browser.eval("typeof window.__pwned"), json!("undefined"));
    assert_eq!(
        browser.eval("document.querySelectorAll('img, iframe, svg, script:not([type])').length"),
        json!(1),
        "only the report's own script"
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
    assert!(
        browser
            .requests()
            .iter()
            .all(|url| url.starts_with("file://"))
    );
    screenshot(&mut browser, "hostile.png");

    let Some(mut linked) = Browser::launch() else {
        return;
    };
    linked.open_at(&page, "#attempt-2");
    let heading = linked.eval("document.querySelector('#detail h2').textContent");
    assert!(
        heading.as_str().unwrap().contains(INJECTIONS[2]),
        "{heading}"
    );
    assert_eq!(linked.console_errors(), Vec::<String>::new());
}

#[test]
fn the_page_is_self_contained_and_the_same_bytes_for_the_same_input() {
    let make = || {
        let out = run(proctor().args(["report", V1, V2, "--format", "html", "--tasks", TASKS]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let page = make();
    assert_eq!(page, make());
    // Outside the embedded data nothing names another resource.
    let mut markup = page.clone();
    for id in ["attempts", "report-data"] {
        markup = markup.replace(&embedded(&page, id), "");
    }
    for reference in [
        "src=", "href=", "url(", "@import", "http:", "https:", "//cdn",
    ] {
        assert!(
            !markup.contains(reference),
            "the page refers to {reference}"
        );
    }
    assert!(markup.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    // Every attempt of both files is in the page, grouped by label.
    let data = page_data(&page);
    assert_eq!(data["index"].as_array().unwrap().len(), 60);
    assert_eq!(data["agents"], json!(["agent-v1", "agent-v2"]));
    assert_eq!(embedded(&page, "attempts").lines().count(), 60);
}

fn grade_arithmetic(format: &str) -> assert_cmd::Command {
    let mut command = proctor();
    command
        .args(["grade", "--tasks", "fixtures/arithmetic/tasks.json"])
        .args([
            "--outcomes",
            "fixtures/arithmetic/outcomes.jsonl",
            "--format",
            format,
        ]);
    command
}

#[test]
fn run_grade_and_compare_write_the_page_with_html() {
    let dir = tempfile::tempdir().unwrap();
    let graded = dir.path().join("grade.html");
    let out = run(grade_arithmetic("json").arg("--html").arg(&graded));
    let summary = json_of(&out);
    let data = page_data(&std::fs::read_to_string(&graded).unwrap());
    assert_eq!(crate::common::without_shown(&data["summary"]), summary);
    assert!(
        data["summary"].to_string().contains("\"shown\""),
        "no display strings in the page"
    );
    assert_eq!(
        data["index"].as_array().unwrap().len() as u64,
        summary["attempts"].as_u64().unwrap()
    );
    // Inputs come from the task file.
    assert!(
        data["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["input"].is_string())
    );

    let compared = dir.path().join("compare.html");
    let out = run(proctor()
        .args(["compare", V1, V2, "--format", "json", "--html"])
        .arg(&compared));
    let comparison = json_of(&out);
    let data = page_data(&std::fs::read_to_string(&compared).unwrap());
    assert_eq!(data["comparison"], comparison);
    assert_eq!(
        data["agents"],
        json!([
            "agent-v1 (fixtures/compare/v1.jsonl)",
            "agent-v2 (fixtures/compare/v2.jsonl)"
        ])
    );

    let ran = dir.path().join("run.html");
    let kept = dir.path().join("kept");
    let out = run(proctor()
        .args(["run", "--tasks", "fixtures/run/refunds.yaml", "--agent"])
        .arg("python3 fixtures/agents/refund_agent.py")
        .arg("--keep")
        .arg(&kept)
        .args([
            "--judge-model",
            "claude-sonnet-4-6",
            "--cassette",
            "fixtures/cassettes/run",
        ])
        .args(["--format", "json", "--html"])
        .arg(&ran));
    let summary = json_of(&out);
    let page = std::fs::read_to_string(&ran).unwrap();
    let data = page_data(&page);
    assert_eq!(crate::common::without_shown(&data["summary"]), summary);
    assert!(
        data["summary"].to_string().contains("\"shown\""),
        "no display strings in the page"
    );
    assert_eq!(
        data["index"].as_array().unwrap().len() as u64,
        summary["attempts"].as_u64().unwrap()
    );
    // With --keep, each attempt lists the files its sandbox ended with, against the seed.
    for line in embedded(&page, "attempts").lines() {
        let attempt: Value = serde_json::from_str(line).unwrap();
        let files = attempt["end_state"]["files"].as_array().unwrap();
        let status = |path: &str| {
            files
                .iter()
                .find(|f| f["path"] == path)
                .map(|f| f["status"].as_str().unwrap().to_owned())
        };
        assert_eq!(
            status("orders.json").as_deref(),
            Some("unchanged"),
            "{files:?}"
        );
        if attempt["answer"]
            .as_str()
            .unwrap_or("")
            .starts_with("refunded")
        {
            assert_eq!(
                status("refunds.json").as_deref(),
                Some("added"),
                "{files:?}"
            );
            let refunds = files.iter().find(|f| f["path"] == "refunds.json").unwrap();
            assert!(refunds["text"].as_str().unwrap().contains("refunded"));
        }
    }

    let out = run(&mut grade_arithmetic("html"));
    assert_eq!(out.code, 2);
    // `--format` offers only what a command supports; the page is `--html FILE` here.
    assert!(
        out.stderr.contains("invalid value 'html'"),
        "{}",
        out.stderr
    );
    // The page never replaces the results it is made from.
    let same = dir.path().join("same.jsonl");
    let out = run(grade_arithmetic("json")
        .arg("--out")
        .arg(&same)
        .arg("--html")
        .arg(&same));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("--out and --html both name"),
        "{}",
        out.stderr
    );
    assert!(!same.exists());
}

#[test]
fn what_the_page_embeds_beside_the_numbers() {
    let out = run(proctor().args(["report", V1, "--format", "html", "--tasks", TASKS]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let data = page_data(&out.stdout);
    // The summary and scorecards are `--format json`'s (checked above); this is the rest.
    let rest = json!({
        "title": data["title"],
        "sources": data["sources"],
        "agents": data["agents"],
        "tasks": data["tasks"],
        "reason_kinds": data["reason_kinds"],
        "variants": data["variants"],
        "notes": data["notes"],
        "index": data["index"],
        "comparison": data["comparison"],
        "chart": data["chart"],
    });
    insta::assert_json_snapshot!(rest);
}

#[test]
fn the_by_variant_table_and_the_attack_deltas_show_the_json_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (v1, v2) = crate::attacks::files(dir.path());
    let by_variant = ["--by", "variant", "--k", "2"];
    let out = run(proctor()
        .arg("report")
        .args([&v1, &v2])
        .args(by_variant)
        .args(["--format", "html"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = write(dir.path(), "variants.html", &out.stdout);
    let summary = json_of(&run(proctor()
        .arg("report")
        .args([&v1, &v2])
        .args(by_variant)
        .args(["--format", "json"])));
    let compared = dir.path().join("compare.html");
    let comparison = json_of(&run(proctor()
        .arg("compare")
        .args([&v1, &v2])
        .args(["--format", "json", "--html"])
        .arg(&compared)));

    let Some(mut browser) = Browser::launch() else {
        return;
    };
    browser.open(&page);
    let cells = browser.eval(
        "Array.from(document.querySelectorAll('#by-variant td[data-metric]'))
           .map(c => [c.getAttribute('data-agent'), c.getAttribute('data-variant'),
                      c.getAttribute('data-metric'), c.textContent])",
    );
    let cells = cells.as_array().unwrap();
    // 2 agents × (3 variants + all attacks) rows of 11 numbers.
    assert_eq!(cells.len(), 2 * 4 * 11, "{cells:?}");
    let mut attack_cells = 0;
    for cell in cells {
        let [agent, variant, metric, shown] =
            [0, 1, 2, 3].map(|i| cell[i].as_str().unwrap().to_owned());
        let card = &summary["agents"][&agent];
        let group = match variant.as_str() {
            "" => &card["all_attacks"],
            name => &card["by_variant"][name],
        };
        assert!(group.is_object(), "{agent} {variant}: no such group");
        let what = format!("{agent} [{variant}] {metric}");
        // "3 / 8": the count over the graded attempts.
        if let Some((count, graded)) = shown.split_once(" / ") {
            let graded_attempts =
                group["passed"].as_u64().unwrap() + group["failed"].as_u64().unwrap();
            let denominator = match metric.as_str() {
                "recovered" => group["faulted"].clone(),
                _ => json!(graded_attempts),
            };
            assert_shown(count, &group[&metric], &what);
            assert_shown(graded, &denominator, &what);
            continue;
        }
        if metric == "utility_under_attack" && shown != "-" {
            attack_cells += 1;
        }
        let expected = match (metric.as_str(), &group[&metric]) {
            // Rows that are no attack have no utility under attack, nor a recovery.
            ("recovered" | "useful_attempts", _) | (_, Value::Null) => Value::Null,
            (_, value) => value.clone(),
        };
        assert_shown(&shown, &expected, &what);
    }
    // Each agent's steal row and its pooled row.
    assert_eq!(attack_cells, 4);
    assert_eq!(
        browser.eval("document.querySelectorAll('#by-variant tr.pooled').length"),
        2
    );
    assert!(browser.console_errors().is_empty());

    browser.open(&compared);
    let shown = browser.eval(
        "Array.from(document.querySelectorAll('#compare td[data-metric^=\"attacks.\"]'))
           .map(c => [c.getAttribute('data-metric'), c.textContent])",
    );
    let shown = shown.as_array().unwrap();
    assert_eq!(shown.len(), 3 * 4, "{shown:?}");
    for cell in shown {
        let metric = cell[0].as_str().unwrap();
        assert_shown(cell[1].as_str().unwrap(), at(&comparison, metric), metric);
        assert_eq!(
            cell[1], comparison["formatted"][metric],
            "{metric}: the page shows proctor's own string"
        );
    }
}

/// Two agents on the refund tasks: `a` passes four attempts of `refund_eligible` in 2, 2, 2
/// and 3 steps with 3154 and 3155 tokens in turn (3154.5 tokens per success and 2.25 mean
/// steps, both halfway between two shown values), `b` passes and fails `refund_expired`.
fn halfway_results(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for (attempt, (steps, tokens)) in [(2, 3154), (2, 3155), (2, 3154), (3, 3155)]
        .into_iter()
        .enumerate()
    {
        text.push_str(
            &json!({"format": "proctor.result/1", "task": "refund_eligible", "attempt": attempt,
                "label": "a", "passed": true, "status": "final", "steps": steps,
                "cost": {"tokens": tokens}})
            .to_string(),
        );
        text.push('\n');
    }
    for (attempt, passed) in [true, false].into_iter().enumerate() {
        text.push_str(
            &json!({"format": "proctor.result/1", "task": "refund_expired", "attempt": attempt,
                "label": "b", "passed": passed, "status": "final", "steps": 1,
                "reasons": if passed { vec![] } else { vec!["wrong answer"] }})
            .to_string(),
        );
        text.push('\n');
    }
    write(dir, "halfway.jsonl", &text)
}

/// The value of `metric` in the table's row `name` for agent column `column` (0 the first).
fn table_cell(table: &str, name: &str, column: usize) -> String {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("{name}  ")))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"));
    let cells: Vec<&str> = line[name.len()..]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    cells[column].to_owned()
}

#[test]
fn the_page_shows_the_strings_the_table_prints_and_splits_by_tag_into_tables() {
    let dir = tempfile::tempdir().unwrap();
    let results = halfway_results(dir.path());
    let report = |format: &str| {
        let out = run(proctor()
            .args([
                "report",
                "--by",
                "tag",
                "--tasks",
                "fixtures/run/refunds.yaml",
            ])
            .args(["--format", format])
            .arg(&results));
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let table = report("table");
    // Ties to even, as Rust formats: 3154.5 → 3154, 2.25 → 2.2.
    assert_eq!(
        table_cell(&table, "cost per success (tokens)", 0),
        "3154",
        "{table}"
    );
    assert_eq!(
        table_cell(&table, "mean steps (passed)", 0),
        "2.2",
        "{table}"
    );
    let page = write(dir.path(), "halfway.html", &report("html"));
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    browser.open(&page);
    let cells = browser.eval(
        "Array.from(document.querySelectorAll('#scorecards [data-metric]'))
           .map(c => [c.getAttribute('data-agent'), c.getAttribute('data-metric'), c.textContent])",
    );
    let shown = |agent: &str, metric: &str| -> String {
        cells
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c[0] == agent && c[1] == metric)
            .unwrap_or_else(|| panic!("no {agent} {metric} in {cells}"))[2]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // Each figure of the page is the table's string, for every agent.
    for agent in ["a", "b"] {
        // Each agent's block of the table has the agent's own column first.
        let block = table
            .split("\n\n")
            .find(|b| {
                b.lines()
                    .any(|l| l.split_whitespace().take(2).eq(["metric", agent]))
            })
            .unwrap_or_else(|| panic!("no block of {agent} in\n{table}"));
        for (row, metric) in [
            ("cost per success (tokens)", "cost_per_success.tokens"),
            ("mean steps (passed)", "mean_steps_success"),
            ("pass rate", "pass_rate"),
            ("95% CI", "pass_rate_ci"),
            ("pass@1", "pass_at_1"),
            ("always pass", "always_pass"),
            ("step efficiency", "step_efficiency"),
            ("aborted share", "aborted_share"),
        ] {
            assert_eq!(
                shown(agent, metric),
                table_cell(block, row, 0),
                "{agent} {metric}"
            );
        }
    }
    assert_eq!(shown("a", "cost_per_success.tokens"), "3154");
    assert_eq!(shown("a", "mean_steps_success"), "2.2");
    // By tag: one table per agent, a row per tag, the figures as strings, no raw JSON.
    assert_eq!(
        browser.eval("document.querySelectorAll('#by-tag table.by-tag').length"),
        json!(2)
    );
    let tags = browser.eval(
        "Array.from(document.querySelectorAll('#by-tag td[data-metric=pass_rate]'))
           .map(c => [c.getAttribute('data-agent'), c.getAttribute('data-tag'), c.textContent])",
    );
    assert!(
        tags.as_array()
            .unwrap()
            .contains(&json!(["a", "happy_path", "1.0000"])),
        "{tags}"
    );
    assert!(
        tags.as_array()
            .unwrap()
            .contains(&json!(["b", "policy", "0.5000"])),
        "{tags}"
    );
    let scorecard_text = browser.eval("document.getElementById('scorecards').textContent");
    assert!(
        !scorecard_text.as_str().unwrap().contains("\"attempts\""),
        "per-tag figures printed as JSON: {scorecard_text}"
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}
