//! `server:` backends (docs/tools.md): one process per command line per attempt, started on
//! the first call, shared by the tools naming it, answering JSON lines; a bad answer is a
//! tool error for its call, never a crash, and nothing it started outlives the attempt.

use crate::common::{namespaces, proctor, results, root, run, write};
use crate::contained_helpers::{assert_no_daemon, daemon_seconds};
use std::time::Duration;

const SERVER: &str = r#"import json, os, subprocess, sys, time
count = 0
for line in sys.stdin:
    request = json.loads(line)
    count += 1
    tool, rid = request["tool"], request["id"]
    print(f"request {rid}", file=sys.stderr, flush=True)
    if tool in ("bump", "bump_too"):
        with open(os.path.join(os.environ["PROCTOR_STATE_DIR"], "count.txt"), "w") as f:
            f.write(str(count))
        reply = {"id": rid, "result": {"count": count, "sandbox": os.path.exists(".mcp.json")}}
    elif tool == "fail":
        reply = {"id": rid, "error": "no such order"}
    elif tool == "garbage":
        print("not json", flush=True)
        continue
    elif tool == "huge":
        reply = {"id": rid, "result": "x" * (2 << 20)}
    elif tool == "slow":
        time.sleep(60)
        continue
    else:
        subprocess.Popen(["sleep", sys.argv[1]])
        reply = {"id": rid, "result": "started"}
    print(json.dumps(reply), flush=True)
"#;

#[test]
fn a_server_serves_every_call_in_order_and_survives_bad_answers() {
    let _ = namespaces();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "server.py", SERVER);
    let seconds = daemon_seconds(3);
    let tool = |name: &str, extra: &str| {
        format!("    - {{name: {name}, server: python3 server.py {seconds}{extra}}}\n")
    };
    let mut tasks = "- id: served\n  input: x\n  verify:\n    - {file_equals: \"state:count.txt\", text: \"1\"}\n  tools:\n".to_owned();
    for name in ["bump", "bump_too", "fail", "garbage", "huge", "daemon"] {
        tasks.push_str(&tool(name, ""));
    }
    tasks.push_str(&tool("slow", ", timeout_s: 1"));
    let tasks = write(dir.path(), "tasks.yaml", &tasks);
    let calls = [
        "bump", "bump_too", "fail", "garbage", "bump", "huge", "bump", "slow", "bump", "daemon",
    ];
    let agent = format!(
        "python3 {} {}",
        root().join("fixtures/agents/mcp/call_tools.py").display(),
        calls.join(" ")
    );
    let out = dir.path().join("r.jsonl");
    let ran = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", &agent, "--out"])
        .arg(&out)
        .timeout(Duration::from_secs(240)));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    let answers: Vec<String> = serde_json::from_str(line["answer"].as_str().unwrap()).unwrap();
    let quoted = |text: &str| format!("{text:?}");
    let expected_start = [
        // One process for both tools, counting every request.
        "ok: {\"count\":1,\"sandbox\":true}".to_owned(),
        "ok: {\"count\":2,\"sandbox\":true}".to_owned(),
        format!("error: {{\"error\":{}}}", quoted("no such order")),
    ];
    assert_eq!(answers[..3], expected_start, "{answers:?}");
    assert!(
        answers[3].starts_with("error: {\"error\":\"server \\\"python3 server.py")
            && answers[3].contains("is not a JSON object")
            && answers[3].contains("not json"),
        "{}",
        answers[3]
    );
    // A malformed line leaves the process running: its count goes on.
    assert_eq!(answers[4], "ok: {\"count\":5,\"sandbox\":true}");
    assert!(
        answers[5].contains("answered with a line over 1048576 bytes and was stopped")
            && answers[5].contains("stderr: request"),
        "{}",
        answers[5]
    );
    // Stopped, it starts again on the next call.
    assert_eq!(answers[6], "ok: {\"count\":1,\"sandbox\":true}");
    assert!(
        answers[7].contains("did not answer within 1s and was stopped"),
        "{}",
        answers[7]
    );
    assert_eq!(answers[8], "ok: {\"count\":1,\"sandbox\":true}");
    // A process it started in the background goes with it at the attempt's end.
    assert_eq!(answers[9], "ok: \"started\"");
    assert_eq!(line["passed"], true, "{line}");
    let tools: Vec<&str> = line["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools, calls);
    assert_no_daemon(&seconds);
}
