//! Bad inputs and files shared between runs: prices too large or negative, negative costs
//! in result lines, two runs writing one `--out`, duplicate attempts in the files `report`
//! and `compare` read, and a comparison whose tasks all changed by the same amount (its
//! note, and the page showing proctor's own formatted numbers).

use crate::chromium::Browser;
use crate::common::{Output, proctor, run, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const REFUNDS: [&str; 7] = [
    "grade",
    "--tasks",
    "fixtures/refunds/tasks.yaml",
    "--outcomes",
    "fixtures/refunds/outcomes.jsonl",
    "--workdir",
    "fixtures/refunds/workdir",
];

/// Exit 2 with `expected` on stderr, and never a panic (101).
fn assert_refused(out: &Output, expected: &str) {
    assert_ne!(out.code, 101, "panicked: {}", out.stderr);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(
        out.stderr.contains(expected),
        "{expected:?} not in:\n{}",
        out.stderr
    );
}

#[test]
fn a_huge_price_in_a_litellm_file_exits_2_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let prices = write(
        dir.path(),
        "prices.json",
        "{\n\"claude-sonnet-4-6\": {\"litellm_provider\": \"anthropic\",\n \"input_cost_per_token\": 1e25,\n \"output_cost_per_token\": 2e-06}}\n",
    );
    let out = run(proctor().args(REFUNDS).arg("--prices").arg(&prices));
    assert_refused(
        &out,
        &format!(
            "{}:3:2: model `claude-sonnet-4-6`: `input_cost_per_token`: 1e+25 is above",
            prices.display()
        ),
    );
    // Not finite or negative is refused the same way.
    let negative = write(
        dir.path(),
        "negative.json",
        "{\"m\": {\"litellm_provider\": \"openai\", \"input_cost_per_token\": 1e-6, \"output_cost_per_token\": \"-0.5\"}}",
    );
    let out = run(proctor().args(REFUNDS).arg("--prices").arg(&negative));
    assert_refused(
        &out,
        "`output_cost_per_token`: expected a non-negative price",
    );
}

#[test]
fn a_huge_price_in_a_toml_file_exits_2_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let prices = write(
        dir.path(),
        "p.toml",
        "[[price]]\nprovider = \"anthropic\"\nmodel = \"claude-sonnet-4-6\"\neffective = 2026-01-01\ninput = 1e27\noutput = 1\n",
    );
    let out = run(proctor().args(REFUNDS).arg("--prices").arg(&prices));
    assert_refused(&out, &format!("{}:5:9: `input`:", prices.display()));
    assert!(out.stderr.contains("is above"), "{}", out.stderr);
    // A multiplier large enough to overflow a cost is refused too.
    let tier = write(
        dir.path(),
        "tier.toml",
        "[[price]]\nprovider = \"anthropic\"\nmodel = \"claude-sonnet-4-6\"\neffective = 2026-01-01\ninput = 3\noutput = 15\nservice_tiers = { batch = \"1e20\" }\n",
    );
    let out = run(proctor().args(REFUNDS).arg("--prices").arg(&tier));
    assert_refused(&out, &format!("{}:7:", tier.display()));
    assert!(out.stderr.contains("`batch`"), "{}", out.stderr);
}

/// A result line; `cost` is the JSON of its cost object.
fn line(task: &str, attempt: u64, label: &str, passed: bool, cost: &str) -> String {
    format!(
        "{{\"format\": \"proctor.result/1\", \"task\": \"{task}\", \"attempt\": {attempt}, \"label\": \"{label}\", \"passed\": {passed}, \"steps\": 1, \"task_digest\": \"sha256:suite\", \"cost\": {cost}}}\n"
    )
}

const NO_COST: &str = "{\"usd\": null, \"tokens\": 0, \"unpriced_calls\": 0}";

#[test]
fn a_negative_cost_in_a_result_line_is_named_and_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let text = line(
        "a",
        0,
        "v1",
        true,
        "{\"usd\": \"0.5\", \"tokens\": 10, \"unpriced_calls\": 0}",
    ) + &line(
        "b",
        0,
        "v1",
        true,
        "{\"usd\": \"-1000\", \"tokens\": 10, \"unpriced_calls\": 0}",
    );
    let results = write(dir.path(), "r.jsonl", &text);
    let out = run(proctor().arg("report").arg(&results));
    assert_refused(
        &out,
        &format!("{}:2: `cost.usd` is negative (-1000)", results.display()),
    );
    assert!(!out.stdout.contains("-1000"), "{}", out.stdout);
    // Reported and skipped: the other line is still summarised.
    assert!(out.stdout.contains("$0.5"), "{}", out.stdout);
    let agent = line(
        "a",
        0,
        "v1",
        true,
        "{\"usd\": \"1\", \"agent_usd\": \"-1\", \"tokens\": 10, \"unpriced_calls\": 0}",
    );
    let results = write(dir.path(), "agent.jsonl", &agent);
    let out = run(proctor().arg("report").arg(&results));
    assert_refused(&out, ":1: `cost.agent_usd` is negative (-1)");
}

/// An agent that says it started (creates `argv[1]`), then waits for `argv[2]` to exist.
const WAITING_AGENT: &str = r#"
import json, os, sys, time
sys.stdin.readline()
open(sys.argv[1], "w").close()
deadline = time.time() + 120
while not os.path.exists(sys.argv[2]) and time.time() < deadline:
    time.sleep(0.02)
print(json.dumps({"status": "final", "answer": "ok"}))
"#;

const ONE_TASK: &str = "- id: t\n  input: say ok\n  expected: ok\n  timeout_s: 150\n";

/// Waits for `path` to exist, for at most `limit`.
fn wait_for(path: &Path, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_second_run_on_the_same_out_is_refused_and_the_first_file_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", ONE_TASK);
    let agent = write(dir.path(), "wait.py", WAITING_AGENT);
    let started = dir.path().join("started");
    let release = dir.path().join("release");
    let out = dir.path().join("same.jsonl");
    let first = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"))
        .current_dir(crate::common::root())
        .args([
            "run",
            "--isolate",
            "none",
            "--label",
            "first",
            "--attempts",
            "2",
            "--jobs",
            "1",
            "--tasks",
        ])
        .arg(&tasks)
        .arg("--agent")
        .arg(format!(
            "python3 {} {} {}",
            agent.display(),
            started.display(),
            release.display()
        ))
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Make sure the first run is dropped (and its agent released) whatever happens below.
    struct Release<'a>(&'a Path);
    impl Drop for Release<'_> {
        fn drop(&mut self) {
            let _ = std::fs::write(self.0, "");
        }
    }
    let guard = Release(&release);
    assert!(
        wait_for(&started, Duration::from_secs(90)),
        "the first run's agent never started"
    );
    let second = run(proctor()
        .args(["run", "--label", "second", "--tasks"])
        .arg(&tasks)
        .args(["--agent", "python3 fixtures/agents/minimal.py", "--out"])
        .arg(&out));
    assert_refused(
        &second,
        &format!("{} is being written by another proctor run", out.display()),
    );
    if Path::new("/proc/locks").exists() {
        let pid = format!("(pid {})", first.id());
        assert!(second.stderr.contains(&pid), "{pid}: {}", second.stderr);
    }
    // The second run's resume is refused as well, before it reads anything.
    let resumed = run(proctor()
        .args(["run", "--resume", "--label", "first", "--tasks"])
        .arg(&tasks)
        .args(["--agent", "python3 fixtures/agents/minimal.py", "--out"])
        .arg(&out));
    assert_refused(&resumed, "is being written by another proctor run");
    drop(guard);
    let finished = first.wait_with_output().unwrap();
    assert_eq!(
        finished.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&finished.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines.iter().all(|l| l["label"] == "first"), "{text}");
    let mut attempts: Vec<u64> = lines
        .iter()
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    attempts.sort_unstable();
    assert_eq!(attempts, [0, 1]);
    // Once the first run has ended, the file is free again.
    let again = run(proctor()
        .args(["run", "--label", "second", "--tasks"])
        .arg(&tasks)
        .args(["--agent", "python3 fixtures/agents/minimal.py", "--out"])
        .arg(&out));
    assert_eq!(again.code, 0, "{}", again.stderr);
}

#[test]
fn grade_refuses_an_out_another_process_holds_and_leaves_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = write(dir.path(), "held.jsonl", "written by someone else\n");
    let holder = std::fs::File::open(&out).unwrap();
    holder.try_lock().unwrap();
    let graded = run(proctor().args(REFUNDS).arg("--out").arg(&out));
    assert_refused(
        &graded,
        &format!("{} is being written by another proctor run", out.display()),
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "written by someone else\n",
        "refused before truncating"
    );
    drop(holder);
    let graded = run(proctor().args(REFUNDS).arg("--out").arg(&out));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
}

fn duplicated(dir: &Path) -> PathBuf {
    let text = line("a", 0, "v1", true, NO_COST)
        + &line("a", 1, "v1", true, NO_COST)
        + &line("b", 0, "v1", true, NO_COST)
        + &line("a", 0, "v1", false, NO_COST);
    write(dir, "dup.jsonl", &text)
}

fn report_json(extra: &[&str], files: &[&Path]) -> Value {
    let out = run(proctor()
        .arg("report")
        .args(files)
        .args(["--format", "json"])
        .args(extra));
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn report_refuses_duplicate_attempts_unless_told_which_to_keep() {
    let dir = tempfile::tempdir().unwrap();
    let results = duplicated(dir.path());
    let out = run(proctor().arg("report").arg(&results));
    assert_refused(
        &out,
        &format!(
            "{0}:4: task `a` attempt 0 [v1] is already on {0}:1",
            results.display()
        ),
    );
    assert!(
        out.stderr.contains("--duplicates first|last"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);

    let first = report_json(&["--duplicates", "first"], &[&results]);
    assert_eq!(first["attempts"], 3, "{first}");
    assert_eq!(first["passed"], 3);
    let last = report_json(&["--duplicates", "last"], &[&results]);
    assert_eq!(last["attempts"], 3, "{last}");
    assert_eq!(last["passed"], 2, "the last line of a/0 failed");
    let all = report_json(&["--duplicates", "all"], &[&results]);
    assert_eq!(
        (all["attempts"].as_u64(), all["passed"].as_u64()),
        (Some(4), Some(3))
    );
    // The page lists and counts the attempts the summary counted.
    let page = run(proctor().arg("report").arg(&results).args([
        "--duplicates",
        "last",
        "--format",
        "html",
    ]));
    assert_eq!(page.code, 0, "{}", page.stderr);
    let open = "<script type=\"application/json\" id=\"report-data\">";
    let start = page.stdout.find(open).unwrap() + open.len();
    let end = start + page.stdout[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page.stdout[start..end]).unwrap();
    assert_eq!(
        data["index"].as_array().unwrap().len(),
        3,
        "{}",
        data["index"]
    );
    assert_eq!(crate::common::without_shown(&data["summary"]), last);

    // Across files: the same attempt in two files names both.
    let other = write(
        dir.path(),
        "other.jsonl",
        &line("b", 0, "v1", false, NO_COST),
    );
    let single = write(
        dir.path(),
        "single.jsonl",
        &(line("a", 0, "v1", true, NO_COST) + &line("b", 0, "v1", true, NO_COST)),
    );
    let out = run(proctor().arg("report").arg(&single).arg(&other));
    assert_refused(
        &out,
        &format!(
            "{}:1: task `b` attempt 0 [v1] is already on {}:2",
            other.display(),
            single.display()
        ),
    );
    let last = report_json(&["--duplicates", "last"], &[&single, &other]);
    assert_eq!(
        (last["attempts"].as_u64(), last["passed"].as_u64()),
        (Some(2), Some(1))
    );
    // Different labels are different attempts.
    let labels = write(
        dir.path(),
        "labels.jsonl",
        &(line("a", 0, "v1", true, NO_COST) + &line("a", 0, "v2", true, NO_COST)),
    );
    let out = run(proctor().arg("report").arg(&labels));
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn compare_refuses_duplicate_attempts_unless_told_which_to_keep() {
    let dir = tempfile::tempdir().unwrap();
    let old = duplicated(dir.path());
    let new = write(
        dir.path(),
        "new.jsonl",
        &(line("a", 0, "v2", true, NO_COST)
            + &line("a", 1, "v2", true, NO_COST)
            + &line("b", 0, "v2", true, NO_COST)),
    );
    let out = run(proctor().arg("compare").arg(&old).arg(&new));
    assert_refused(&out, &format!("{}:4: task `a` attempt 0", old.display()));
    let out = run(proctor().arg("compare").arg(&old).arg(&new).args([
        "--duplicates",
        "first",
        "--format",
        "json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(c["old"]["passed"], 3, "{c}");
}

/// Six tasks, five attempts each: every task drops by one pass, three from 5/5 to 4/5 and
/// three from 4/5 to 3/5 (as floats, 0.8 − 1.0 and 0.6 − 0.8 differ in their last bits).
fn same_drop(dir: &Path) -> (PathBuf, PathBuf) {
    let side = |label: &str, drop: u64| {
        let mut text = String::new();
        for task in 0..6 {
            let passes = if task < 3 { 5 } else { 4 } - drop;
            for attempt in 0..5 {
                text.push_str(&line(
                    &format!("task_{task}"),
                    attempt,
                    label,
                    attempt < passes,
                    NO_COST,
                ));
            }
        }
        text
    };
    (
        write(dir, "old.jsonl", &side("v1", 0)),
        write(dir, "new.jsonl", &side("v2", 1)),
    )
}

const SAME_CHANGE: &str = "every task changed by the same -0.2000: the paired differences have no spread, so the 95% interval is a point and no minimum detectable effect can be computed; read the exact sign-flip p";

#[test]
fn every_task_changed_by_the_same_amount_says_what_the_point_interval_means() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = same_drop(dir.path());
    for format in ["table", "markdown"] {
        let out = run(proctor()
            .arg("compare")
            .arg(&old)
            .arg(&new)
            .args(["--format", format]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains(SAME_CHANGE),
            "{format}:\n{}",
            out.stdout
        );
        assert!(
            !out.stdout.contains("minimum detectable effect 0.0000"),
            "{format}:\n{}",
            out.stdout
        );
        assert!(out.stdout.contains("sign-flip p 0.0312"), "{}", out.stdout);
    }
    let out = run(proctor()
        .arg("compare")
        .arg(&old)
        .arg(&new)
        .args(["--format", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(c["mde"], Value::Null, "{c}");
    let notes: Vec<&str> = c["notes"]
        .as_array()
        .unwrap_or_else(|| panic!("no notes in {c}"))
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(notes.iter().any(|n| n.contains(SAME_CHANGE)), "{notes:?}");
}

#[test]
fn the_compare_page_shows_the_strings_the_cli_prints() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = same_drop(dir.path());
    let page = dir.path().join("compare.html");
    let out = run(proctor()
        .arg("compare")
        .arg(&old)
        .arg(&new)
        .arg("--html")
        .arg(&page));
    assert_eq!(out.code, 0, "{}", out.stderr);
    // 2 of the 64 sign patterns are at least as extreme: 0.03125, which proctor prints as
    // 0.0312 (the nearest even digit); JavaScript's toFixed would print 0.0313.
    assert!(
        out.stdout.contains("exact sign-flip p 0.0312"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("-0.2000  95% CI [-0.2000, -0.2000]"),
        "{}",
        out.stdout
    );
    let Some(mut browser) = Browser::launch() else {
        return;
    };
    browser.open(&page);
    let shown = |browser: &mut Browser, metric: &str| {
        browser
            .eval(&format!(
                "document.querySelector('#compare td[data-metric=\"{metric}\"]').textContent"
            ))
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(shown(&mut browser, "sign_flip_p"), "0.0312");
    assert_eq!(shown(&mut browser, "delta.ci"), "[-0.2000, -0.2000]");
    assert_eq!(shown(&mut browser, "delta.estimate"), "-0.2000");
    assert_eq!(shown(&mut browser, "delta.se"), "0.0000");
    assert_eq!(shown(&mut browser, "old.pass_at_1"), "0.9000");
    assert_eq!(shown(&mut browser, "new.pass_at_1"), "0.7000");
    let text = browser.eval("document.querySelector('#compare').textContent");
    assert!(
        text.as_str().unwrap().contains(SAME_CHANGE),
        "the page shows the note: {text}"
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}
