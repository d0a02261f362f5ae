//! proctor's listeners under attack, end to end (docs/tools.md and docs/traces.md,
//! "Limits"): a served call the agent fires as it exits is graded, and the tool server and
//! the OTLP receiver stay within their byte and count limits while honest agents still run.

use crate::common::{namespaces, proctor, results, root, write};
use serde_json::Value;
use std::time::Duration;

const AGENT: &str = "fixtures/agents/adversarial/listener_abuse.py";

fn mode() -> &'static str {
    if namespaces() {
        "namespaces"
    } else {
        "fallback"
    }
}

/// The `proctor run` it starts, and the most memory (VmHWM, KiB) and descriptors proctor
/// held while it ran.
struct Watched {
    code: i32,
    stderr: String,
    peak_kib: u64,
    peak_fds: usize,
}

fn run_watched(args: &[&str]) -> Watched {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"))
        .current_dir(root())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let reading = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let (mut peak_kib, mut peak_fds) = (0, 0);
    let status = loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Ok(fds) = std::fs::read_dir(format!("/proc/{}/fd", child.id())) {
            peak_fds = peak_fds.max(fds.count());
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Watched {
        code: status.code().unwrap_or(-1),
        stderr: reading.join().unwrap(),
        peak_kib,
        peak_fds,
    }
}

const FORBIDDEN: &str = r#"
- id: fire
  input: Do not refund anything.
  expected: done
  forbidden_tools: [refund]
  tools:
    - name: refund
      input_schema: {type: object}
      responses:
        - result: {refunded: A1}
- id: slow
  input: Do not refund anything.
  expected: done
  forbidden_tools: [refund]
  tools:
    - name: refund
      input_schema: {type: object}
      responses:
        - result: {refunded: A1}
  faults:
    - {tool: refund, kind: latency, ms: 1500, calls: [1]}
- id: stuck
  input: Do not refund anything.
  expected: done
  forbidden_tools: [refund]
  tools:
    - name: refund
      input_schema: {type: object}
      responses:
        - result: {refunded: A1}
  faults:
    - {tool: refund, kind: latency, ms: 60000, calls: [1]}
"#;

#[test]
fn a_forbidden_call_fired_as_the_agent_exits_fails_every_attempt() {
    eprintln!("containment mode: {}", mode());
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", FORBIDDEN);
    let out = dir.path().join("results.jsonl");
    let fire = format!("fire=python3 {AGENT} fire");
    let close = format!("close=python3 {AGENT} close");
    let ran = proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &fire, "--agent", &close])
        .args(["--attempts", "12", "--jobs", "6", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    let lines = results(&out);
    assert_eq!(lines.len(), 2 * 3 * 12, "{stderr}");
    for line in &lines {
        let steps = line["trajectory"].as_array().unwrap();
        // Through the namespace's forwarder a request can die with the agent before it
        // reaches proctor: then nothing ran, and there is nothing to record.
        if steps.is_empty() && namespaces() {
            continue;
        }
        assert_eq!(line["passed"], false, "{line}");
        assert_eq!(steps.len(), 1, "{line}");
        assert_eq!(steps[0]["tool"], "refund", "{line}");
        let reasons = line["reasons"].to_string();
        assert!(reasons.contains("refund"), "{reasons}");
        match line["task"].as_str().unwrap() {
            // Answered after the agent exited, within the wait: recorded with its result.
            "fire" | "slow" => assert_eq!(steps[0]["result"]["refunded"], "A1", "{line}"),
            // Still running at the end of the wait: stopped, and recorded as cut off.
            _ => assert!(
                steps[0]["error"]
                    .as_str()
                    .unwrap()
                    .starts_with("cut off: the agent exited"),
                "{line}"
            ),
        }
    }
    let recorded = lines
        .iter()
        .filter(|l| !l["trajectory"].as_array().unwrap().is_empty())
        .count();
    assert!(
        recorded * 4 >= lines.len() * 3,
        "{recorded} of {}",
        lines.len()
    );
}

#[test]
fn floods_of_empty_spans_and_a_gzip_bomb_leave_proctor_up_and_small() {
    eprintln!("containment mode: {}", mode());
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- {id: flood, input: x, expected: done}\n- {id: bomb, input: x, expected: done}\n",
    );
    let out = dir.path().join("results.jsonl");
    let flood = format!("flood=python3 {AGENT} flood");
    let bomb = format!("bomb=python3 {AGENT} bomb");
    let tasks = tasks.display().to_string();
    let out_arg = out.display().to_string();
    let watched = run_watched(&[
        "run", "--tasks", &tasks, "--agent", &flood, "--agent", &bomb, "--jobs", "2", "--out",
        &out_arg,
    ]);
    assert_eq!(watched.code, 0, "{}", watched.stderr);
    let lines = results(&out);
    assert_eq!(lines.len(), 4, "{}", watched.stderr);
    assert!(
        watched
            .stderr
            .contains("requests to the OTLP receiver were refused (HTTP 413)"),
        "{}",
        watched.stderr
    );
    // Six requests of up to 16 MiB each in flight at once: proctor's peak stays a small
    // multiple of the 8 MiB body limit, never the gigabytes the spans would take decoded.
    assert!(
        watched.peak_kib < 600 * 1024,
        "proctor's peak memory: {} MiB",
        watched.peak_kib / 1024
    );
}

const REFUND: &str = r#"
- id: refund
  input: Refund A1.
  expected: done
  tools:
    - name: refund
      input_schema: {type: object}
      responses:
        - result: {refunded: A1}
"#;

#[test]
fn a_50_mb_argument_is_refused_and_the_result_line_stays_bounded() {
    eprintln!("containment mode: {}", mode());
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", REFUND);
    let out = dir.path().join("results.jsonl");
    let ran = proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &format!("python3 {AGENT} huge"), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(text.lines().count(), 1, "{stderr}");
    // At most 16 MiB of recorded arguments and results, and a little around them.
    assert!(
        text.len() < 17 << 20,
        "a result line of {} bytes",
        text.len()
    );
    let line: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(line["passed"], false, "{stderr}");
    let reasons = line["reasons"].to_string();
    assert!(
        reasons.contains("tools: 1 requests refused over the limits per request (4 MiB"),
        "{reasons}"
    );
    assert!(reasons.contains("47.7 MiB"), "{reasons}");
    assert!(
        reasons.contains("calls recorded without their arguments and results, over the 16 MiB"),
        "{reasons}"
    );
    // Every call that was served is a step, those over the budget by their tool name.
    let steps = line["trajectory"].as_array().unwrap();
    assert_eq!(steps.len(), 6, "{line}");
    assert!(steps.iter().all(|s| s["tool"] == "refund"));
}

#[test]
fn idle_connections_by_the_thousand_starve_no_other_attempt() {
    eprintln!("containment mode: {}", mode());
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", REFUND);
    let out = dir.path().join("results.jsonl");
    let idle = format!("idle=python3 {AGENT} idle");
    let honest = format!("honest=python3 {AGENT} honest");
    let tasks = tasks.display().to_string();
    let out_arg = out.display().to_string();
    let watched = run_watched(&[
        "run", "--tasks", &tasks, "--agent", &idle, "--agent", &honest, "--jobs", "2", "--out",
        &out_arg,
    ]);
    let lines = results(&out);
    assert_eq!(lines.len(), 2, "{}", watched.stderr);
    let honest = lines.iter().find(|l| l["label"] == "honest").unwrap();
    assert_eq!(honest["passed"], true, "{honest}");
    let steps = honest["trajectory"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{honest}");
    assert!(
        steps.iter().all(|s| s["result"]["refunded"] == "A1"),
        "{honest}"
    );
    // Two listeners of at most 256 connections each, and what proctor holds besides.
    assert!(
        watched.peak_fds < 800,
        "proctor held {} descriptors",
        watched.peak_fds
    );
}

#[test]
fn requests_stalled_in_their_body_free_the_tool_server_for_other_attempts() {
    eprintln!("containment mode: {}", mode());
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", REFUND);
    let out = dir.path().join("results.jsonl");
    // 300 requests whose bodies never come hold every connection and the whole memory
    // budget; they are answered within the body deadline (10 s), so an agent starting its
    // calls at 13 s is served, long before the staller's attempt ends.
    let stall = format!("stall=python3 {AGENT} stall");
    let honest = format!("honest=python3 {AGENT} honest 13");
    let tasks = tasks.display().to_string();
    let out_arg = out.display().to_string();
    let watched = run_watched(&[
        "run", "--tasks", &tasks, "--agent", &stall, "--agent", &honest, "--jobs", "2", "--out",
        &out_arg,
    ]);
    let lines = results(&out);
    assert_eq!(lines.len(), 2, "{}", watched.stderr);
    let honest = lines.iter().find(|l| l["label"] == "honest").unwrap();
    assert_eq!(honest["passed"], true, "{honest}");
    let steps = honest["trajectory"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{honest}");
    let took = honest["timings"]["duration_ms"].as_u64().unwrap();
    assert!(
        took < 22_000,
        "served only after the staller ended: {honest}"
    );
}
