//! Traces as evidence: `proctor grade --traces` on trace files made by real instrumentation
//! (fixtures/traces/, see its README), bad trace input, and `proctor run` grading an agent
//! that only exports OpenTelemetry spans.

use crate::common::{Output, namespaces, proctor, results, root, run, write};
use serde_json::Value;
use std::path::Path;

const TASKS: &str = "fixtures/traces/tasks.yaml";
const PRICES: &str = "fixtures/traces/prices.toml";

fn grade(traces: &Path, out: &Path, extra: &[&str]) -> Output {
    run(proctor()
        .args(["grade", "--tasks", TASKS, "--prices", PRICES, "--traces"])
        .arg(traces)
        .arg("--out")
        .arg(out)
        .args(extra))
}

/// One line per result: what a reader checks first.
fn digest(result: &Value) -> String {
    let steps: Vec<String> = result["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}{}", s["tool"].as_str().unwrap(), s["args"]))
        .collect();
    let input: u64 = result["usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["input_tokens"].as_u64().unwrap())
        .sum();
    format!(
        "passed={} source={} uncaptured={} answer={} steps=[{}] model_calls={} input_tokens={} usd={}\n  reasons={}",
        result["passed"],
        result["trajectory_source"],
        result.get("uncaptured_args").unwrap_or(&Value::Null),
        result["answer"],
        steps.join(", "),
        result["usage"].as_array().unwrap().len(),
        input,
        result["cost"]["usd"],
        result["reasons"],
    )
}

#[test]
fn grade_traces_from_real_instrumentation() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = String::new();
    for name in [
        "current",
        "older_generation",
        "openinference",
        "agents_sdk",
        "agent_usage",
        "base64_ids",
        "no_content",
        "violation",
    ] {
        let out = dir.path().join(format!("{name}.jsonl"));
        let traces = root().join(format!("fixtures/traces/{name}.jsonl"));
        let graded = grade(&traces, &out, &[]);
        assert_eq!(graded.code, 0, "{name}: {}", graded.stderr);
        let lines = results(&out);
        assert_eq!(lines.len(), 1, "{name}: one trace, one attempt");
        seen.push_str(&format!("{name}: {}\n", digest(&lines[0])));
    }
    // Clean runs under every convention give the same trajectory, usage and cost:
    // 450 input and 60 output tokens at $0.15 / $0.60 per million = $0.0001035.
    insta::assert_snapshot!(seen);
}

#[test]
fn bad_trace_lines_are_reported_by_number_and_the_rest_graded() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(root().join("fixtures/traces/current.jsonl")).unwrap();
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(1, "this is not json");
    lines.insert(3, r#"{"task": "refund_traced", "status": "final"}"#);
    let traces = write(dir.path(), "mixed.jsonl", &(lines.join("\n") + "\n"));
    let out = dir.path().join("results.jsonl");
    let graded = grade(&traces, &out, &[]);
    assert_eq!(graded.code, 2, "{}", graded.stderr);
    assert!(
        graded.stderr.contains("mixed.jsonl:2: not JSON"),
        "{}",
        graded.stderr
    );
    assert!(
        graded
            .stderr
            .contains("mixed.jsonl:4: document: not OTLP: no resourceSpans or resourceLogs (found task, status)"),
        "{}",
        graded.stderr
    );
    let lines = results(&out);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["passed"], true);
}

#[test]
fn a_trace_that_names_no_task_needs_task() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("fixtures/traces/current.jsonl")).unwrap();
    let text = text.replace("proctor.task_id", "other.key");
    let traces = write(dir.path(), "anonymous.jsonl", &text);
    let out = dir.path().join("results.jsonl");
    let graded = grade(&traces, &out, &[]);
    assert_eq!(graded.code, 2);
    assert!(
        graded.stderr.contains(
            "no `proctor.task_id` attribute on its spans or resource; name the task with --task ID"
        ),
        "{}",
        graded.stderr
    );
    let graded = grade(&traces, &out, &["--task", "refund_traced"]);
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    assert_eq!(results(&out)[0]["passed"], true);
    let graded = grade(&traces, &out, &["--task-attr", "other.key"]);
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    assert_eq!(results(&out)[0]["task"], "refund_traced");
}

#[test]
fn one_pretty_printed_document_and_a_trace_without_tool_spans() {
    let dir = tempfile::tempdir().unwrap();
    // Every span of the violation trace but its tool spans, as one pretty-printed document.
    let text = std::fs::read_to_string(root().join("fixtures/traces/violation.jsonl")).unwrap();
    let mut spans = Vec::new();
    let mut resource = Value::Null;
    for line in text.lines() {
        let document: Value = serde_json::from_str(line).unwrap();
        resource = document["resourceSpans"][0]["resource"].clone();
        for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .unwrap()
        {
            if !span.to_string().contains("execute_tool") {
                spans.push(span.clone());
            }
        }
    }
    let document = serde_json::json!({"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]});
    let traces = write(
        dir.path(),
        "one.json",
        &serde_json::to_string_pretty(&document).unwrap(),
    );
    let out = dir.path().join("results.jsonl");
    let graded = grade(&traces, &out, &[]);
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let lines = results(&out);
    assert_eq!(lines[0]["passed"], false);
    assert_eq!(
        lines[0]["reasons"][0],
        "rule: refund only after check_eligibility (same order_id): could not decide: the trace holds no tool calls"
    );
}

/// The Python with pydantic-ai and the OpenTelemetry SDK (fixtures/traces/requirements.txt):
/// `PROCTOR_OTEL_PYTHON`, else the virtual environment `.ci/run` makes. Without one the
/// end-to-end tests say so and stop, unless `PROCTOR_REQUIRE_OTEL` is set (as in CI).
pub(crate) fn otel_python() -> Option<String> {
    let python = std::env::var("PROCTOR_OTEL_PYTHON")
        .ok()
        .unwrap_or_else(|| {
            root()
                .join("target/otel-venv/bin/python")
                .display()
                .to_string()
        });
    if Path::new(&python).exists() {
        return Some(python);
    }
    assert!(
        std::env::var_os("PROCTOR_REQUIRE_OTEL").is_none(),
        "{python} is missing: install fixtures/traces/requirements.txt (see .ci/run)"
    );
    crate::skips::skip(&format!(
        "no Python environment for the trace and MCP agents ({python} is missing: install fixtures/traces/requirements.txt, see .ci/run)"
    ));
    None
}

fn run_traced(agents: &[String], extra: &[&str], out: &Path) -> Output {
    let mut command = proctor();
    // The fixture agents import the loopback mock model from `fixtures/traces`, which isolation
    // hides unless it is named (the task file inside it stays hidden).
    command
        .args(["run", "--tasks", TASKS, "--prices", PRICES, "--out"])
        .arg(out)
        .args(["--isolate-allow", "fixtures/traces"]);
    for agent in agents {
        command.arg("--agent").arg(agent);
    }
    run(command.args(extra))
}

fn by_label_and_task(path: &Path) -> std::collections::BTreeMap<(String, String), Value> {
    results(path)
        .into_iter()
        .map(|r| {
            (
                (
                    r["label"].as_str().unwrap().to_owned(),
                    r["task"].as_str().unwrap().to_owned(),
                ),
                r,
            )
        })
        .collect()
}

#[test]
fn run_grades_an_agent_that_only_exports_spans() {
    let Some(python) = otel_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let agent = format!("{python} fixtures/agents/traced_refund_agent.py");
    let ran = run_traced(
        &[
            format!("resource={agent}"),
            format!("traceparent={agent} --traceparent"),
            format!("openinference={agent} --openinference"),
            format!("agents_sdk={python} fixtures/agents/traced_agents_sdk_agent.py"),
        ],
        &[],
        &out,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let results = by_label_and_task(&out);
    assert_eq!(results.len(), 8);
    for label in ["resource", "traceparent", "openinference", "agents_sdk"] {
        // Attributed by resource attributes, by trace id alone, and with OpenInference spans:
        // the same grade, trajectory and cost as if the agent had reported them itself.
        let clean = &results[&(label.to_owned(), "refund_traced".to_owned())];
        assert_eq!(clean["passed"], true, "{label}: {clean}");
        assert_eq!(clean["trajectory_source"], "trace");
        assert_eq!(clean["tool_calls"], 2);
        assert_eq!(
            clean["trajectory"][1]["args"],
            serde_json::json!({"order_id": "A1"})
        );
        assert_eq!(clean["usage"].as_array().unwrap().len(), 3, "{label}");
        assert_eq!(clean["cost"]["usd"], "0.0001035", "{label}");
        let pushy = &results[&(label.to_owned(), "refund_traced_pushy".to_owned())];
        assert_eq!(pushy["passed"], false);
        assert_eq!(
            pushy["reasons"],
            serde_json::json!([
                "rule: refund [\"A1\"] at step 1 has no earlier check_eligibility [\"A1\"]"
            ])
        );
    }
}

/// With `--network none` the agent has loopback only, yet the SDK's exporter reaches the
/// receiver at the same `OTEL_EXPORTER_OTLP_ENDPOINT`, through the forwarder; without
/// namespaces the combination is refused.
#[test]
fn an_agent_without_network_still_exports_its_spans() {
    let Some(python) = otel_python() else { return };
    let namespaces = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let agent = format!("{python} fixtures/agents/traced_refund_agent.py");
    let ran = run_traced(&[agent], &["--network", "none"], &out);
    if !namespaces {
        // The fallback has no network namespace: the combination is refused, as it must be.
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(
            ran.stderr.contains("--network none needs namespaces"),
            "{}",
            ran.stderr
        );
        return;
    }
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let results = results(&out);
    assert_eq!(results.len(), 2);
    let clean = results
        .iter()
        .find(|r| r["task"] == "refund_traced")
        .unwrap();
    assert_eq!(clean["passed"], true, "{clean}");
    assert_eq!(clean["trajectory_source"], "trace");
    assert_eq!(clean["tool_calls"], 2);
    assert_eq!(clean["usage"].as_array().unwrap().len(), 3);
    let pushy = results
        .iter()
        .find(|r| r["task"] == "refund_traced_pushy")
        .unwrap();
    assert_eq!(pushy["passed"], false);
    assert_eq!(pushy["trajectory_source"], "trace");
}

#[test]
fn a_lying_agent_is_flagged_and_graded_on_its_trace_when_asked() {
    let Some(python) = otel_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let agent = format!("{python} fixtures/agents/traced_refund_agent.py");
    let liar = format!("{agent} --claim");
    let ran = run_traced(
        &[format!("silent={agent}"), format!("claims={liar}")],
        &[],
        &out,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let graded = by_label_and_task(&out);
    let key = |label: &str, task: &str| (label.to_owned(), task.to_owned());
    // Where the claim is true, grading the trace alone gives what grading the report gives.
    let silent = &graded[&key("silent", "refund_traced")];
    let honest = &graded[&key("claims", "refund_traced")];
    assert_eq!(honest["trajectory_source"], "reported");
    for field in [
        "passed",
        "reasons",
        "answer",
        "trajectory",
        "tool_calls",
        "usage",
    ] {
        assert_eq!(silent[field], honest[field], "{field}");
    }
    assert_eq!(silent["cost"]["usd"], honest["cost"]["usd"]);
    assert_eq!(
        honest["checks"],
        serde_json::json!([{"category": "process", "check": "trajectory matches the trace", "passed": true, "gating": false}])
    );
    let result = &graded[&key("claims", "refund_traced_pushy")];
    // Its report is graded (it claims a clean process), and the claim is checked.
    assert_eq!(result["passed"], true);
    assert_eq!(result["trajectory_source"], "reported");
    assert_eq!(
        result["checks"],
        serde_json::json!([{"category": "process", "check": "trajectory matches the trace", "passed": false,
            "gating": false, "failure": "trajectory does not match the trace: reported 2 tool calls, the trace shows 1; \
            step 1: reported check_eligibility, the trace shows refund; step 2: refund is in the report only",
            "detail": "reported 2 tool calls, the trace shows 1; \
            step 1: reported check_eligibility, the trace shows refund; step 2: refund is in the report only"}])
    );
    let ran = run_traced(
        &[liar],
        &[
            "--only",
            "refund_traced_pushy",
            "--trajectory-from",
            "trace",
        ],
        &out,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let result = &results(&out)[0];
    assert_eq!(result["passed"], false);
    assert_eq!(result["trajectory_source"], "trace");
}

#[test]
fn a_rubric_task_is_judged_on_the_answer_its_trace_shows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let graded = run(proctor()
        .args([
            "grade",
            "--tasks",
            "fixtures/traces/rubric.yaml",
            "--traces",
            "fixtures/traces/current.jsonl",
        ])
        .args(["--judge-provider", "openai", "--judge-model", "gpt-4o-mini"])
        .args(["--cassette", "fixtures/cassettes/traces", "--out"])
        .arg(&out));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let result = &results(&out)[0];
    assert_eq!(result["passed"], true);
    assert_eq!(result["answer"], "refunded A1");
    assert_eq!(result["judge"]["verdict"], "PASS");
    assert_eq!(
        result["judge"]["samples"][0]["provenance"]["replayed"],
        true
    );
}

#[test]
fn the_receiver_answers_bad_bodies_with_a_reason_and_reports_spans_it_cannot_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    let ran = run(proctor()
        .args(["run", "--tasks", "fixtures/traces/probe.yaml"])
        .args(["--agent", "python3 fixtures/agents/otlp_probe.py", "--out"])
        .arg(&out));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "proctor: 1 spans or log records sent to the OTLP receiver matched no attempt and were not used"
        ),
        "{}",
        ran.stderr
    );
    let result = &results(&out)[0];
    // The agent saw the 400 and its reason, and the run went on.
    assert_eq!(
        result["process"]["stderr_tail"],
        "malformed: 400 document: not OTLP: no resourceSpans or resourceLogs (found not)\ntrace: 200 200"
    );
    // Graded on its own trace (JSON, attributed by its key): the forged span is not in it.
    assert_eq!(result["passed"], true, "{result}");
    assert_eq!(result["trajectory_source"], "trace");
    assert_eq!(
        result["trajectory"],
        serde_json::json!([{"tool": "lookup", "args": {"order_id": "A1"}}])
    );
    assert_eq!(result["answer"], "looked up A1");
}

/// The `grade --traces` benchmark's generator makes passing and failing attempts, so the
/// benchmark measures both; checked on a small file with the benchmark's own task file.
#[test]
fn the_benchmark_traces_pass_some_attempts_and_fail_others() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces.jsonl");
    let made = std::process::Command::new("python3")
        .current_dir(root())
        .args([
            "-c",
            "import sys; sys.path.insert(0, 'bench/traces'); import traces_bench; \
             traces_bench.trace_file(sys.argv[1], 200)",
        ])
        .arg(&traces)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let o = run(proctor()
        .args(["grade", "--tasks", "bench/traces/tasks.yaml", "--traces"])
        .arg(&traces)
        .args(["--format", "json"]));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let s: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        (
            s["attempts"].as_u64(),
            s["passed"].as_u64(),
            s["failed"].as_u64()
        ),
        (Some(20), Some(10), Some(10)),
        "{}",
        o.stdout
    );
}

/// The first ```` ```python ```` block after `heading` in docs/traces.md.
fn docs_python(heading: &str) -> String {
    let text = std::fs::read_to_string(root().join("docs/traces.md")).unwrap();
    let after = &text[text.find(heading).unwrap_or_else(|| panic!("no {heading}"))..];
    let block = &after[after.find("```python\n").unwrap() + "```python\n".len()..];
    block[..block.find("```").unwrap()].to_owned()
}

/// The docs' pydantic-ai agent, in a folder of its own beside the loopback mock model, which
/// it starts first and finds by `MODEL_BASE_URL`, as a local model server would be named.
fn docs_agent(dir: &Path, exporter: Option<&str>) -> std::path::PathBuf {
    let folder = dir.join("agent");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        root().join("fixtures/traces/mock_model.py"),
        folder.join("mock_model.py"),
    )
    .unwrap();
    let mut agent = docs_python("### pydantic-ai (its own instrumentation)");
    if let Some(exporter) = exporter {
        let line = "provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))";
        let at = agent
            .find(line)
            .expect("the exporter line of the docs' agent");
        let end = at + agent[at..].find('\n').unwrap();
        agent.replace_range(at..end, exporter);
    }
    let prelude = "import os, mock_model\nos.environ['MODEL_BASE_URL'] = mock_model.start()\n";
    write(&folder, "agent.py", &format!("{prelude}{agent}"))
}

/// The pydantic-ai example of docs/traces.md runs as written against a local
/// OpenAI-compatible server, and `proctor run` grades it on its spans.
#[test]
fn the_docs_pydantic_ai_example_reaches_a_local_server() {
    let Some(python) = otel_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let agent = docs_agent(dir.path(), None);
    let out = dir.path().join("results.jsonl");
    let ran = run(proctor()
        .args(["run", "--tasks", TASKS, "--only", "refund_traced", "--out"])
        .arg(&out)
        .arg("--agent")
        .arg(format!("{python} {}", agent.display())));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    assert_eq!(line["passed"], true, "{line}");
    assert_eq!(line["trajectory_source"], "trace");
    assert_eq!(line["tool_calls"], 2, "{line}");
    assert_eq!(line["answer"], "refunded A1");
}

/// The Collector-free trace file of docs/traces.md: the docs' exporter in the docs' agent
/// writes a file that `grade --traces` reads and grades.
#[test]
fn the_docs_trace_file_exporter_writes_what_grade_reads() {
    let Some(python) = otel_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let exporter = docs_python("### Writing a trace file without a Collector");
    let agent = docs_agent(dir.path(), Some(&exporter));
    let folder = agent.parent().unwrap();
    let mut child = std::process::Command::new(&python)
        .arg(&agent)
        .current_dir(folder)
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env("OTEL_RESOURCE_ATTRIBUTES", "proctor.task_id=refund_traced")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"input\": \"Please refund order A1, it arrived broken.\"}\n")
        .unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(done.status.success(), "{done:?}");
    let traces = folder.join("traces.jsonl");
    let out = dir.path().join("results.jsonl");
    let graded = grade(&traces, &out, &[]);
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    let lines = results(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["task"], "refund_traced");
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
    assert_eq!(lines[0]["trajectory_source"], "trace");
    assert_eq!(lines[0]["usage"].as_array().unwrap().len(), 3);
}

#[test]
fn a_forbidden_call_inside_a_parent_cycle_still_fails_the_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: cycle\n  input: Look up order A1.\n  forbidden_tools: [delete_order]\n",
    );
    let span = |id: &str, parent: &str, tool: &str| {
        let mut attributes = vec![serde_json::json!(
            {"key": "proctor.task_id", "value": {"stringValue": "cycle"}}
        )];
        if !tool.is_empty() {
            attributes.push(serde_json::json!(
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}
            ));
            attributes.push(serde_json::json!(
                {"key": "gen_ai.tool.name", "value": {"stringValue": tool}}
            ));
        }
        serde_json::json!({
            "traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": id, "parentSpanId": parent,
            "name": "span", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
            "attributes": attributes,
        })
    };
    // Two tool spans, each the other's parent: the forbidden call is inside the cycle.
    let spans = [
        span("00f067aa0ba902b7", "", ""),
        span("00f067aa0ba902b8", "00f067aa0ba902b9", "lookup_order"),
        span("00f067aa0ba902b9", "00f067aa0ba902b8", "delete_order"),
    ];
    let document = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
    let traces = write(dir.path(), "traces.jsonl", &format!("{document}\n"));
    let out = dir.path().join("results.jsonl");
    let graded = run(proctor()
        .args(["grade", "--tasks"])
        .arg(&tasks)
        .arg("--traces")
        .arg(&traces)
        .arg("--out")
        .arg(&out));
    let lines = results(&out);
    assert_eq!(lines.len(), 1, "{}", graded.stderr);
    assert_eq!(lines[0]["passed"], false, "{}", lines[0]);
    assert_eq!(
        lines[0]["reasons"][0], "forbidden tool: delete_order",
        "{}",
        lines[0]
    );
}
