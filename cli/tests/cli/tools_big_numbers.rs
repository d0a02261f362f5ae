//! Numbers in a tool call's arguments reach the `script` and `server` backends as the agent
//! wrote them (docs/tools.md): an integer beyond 64 bits keeps every digit, a decimal its
//! trailing zero, on the fast path of a plain `tools/call` and on rmcp's path (a call with
//! `_meta`) alike.

use crate::common::{proctor, results, run, write};

/// Calls `echo` twice over plain JSON-RPC with the arguments as raw text: once as a plain
/// `tools/call`, once with `_meta`. Its answer is the two results' texts, one per line.
const AGENT: &str = r#"import json, os, sys, urllib.request
ARGS = '{"n": 123456789012345678901234567890, "m": -98765432109876543210987654321, "x": 1.10}'
def call(number, tool, meta):
    params = '{"name": "%s", "arguments": %s%s}' % (tool, ARGS, ', "_meta": {}' if meta else '')
    body = '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": %s}' % (number, params)
    request = urllib.request.Request(
        os.environ["PROCTOR_MCP_URL"], data=body.encode(), method="POST",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": "Bearer " + os.environ["PROCTOR_MCP_TOKEN"],
        })
    with urllib.request.urlopen(request, timeout=120) as response:
        reply = json.loads(response.read())
    if "error" in reply:
        return "error: " + json.dumps(reply["error"])
    text = reply["result"]["content"][0]["text"]
    return json.loads(text)["stdin"] if text.startswith("{") else text
sys.stdin.readline()
answer = "\n".join([call(1, "echo", False), call(2, "echo", True), call(3, "echo_server", False)])
print(json.dumps({"status": "final", "answer": answer}), flush=True)
"#;

/// Prints the call's JSON as it came on stdin, as text.
const ECHO: &str = "import sys\nprint('stdin: ' + sys.stdin.readline().strip())\n";

/// Answers each call with the line it came as.
const ECHO_SERVER: &str = r#"import json, sys
for line in sys.stdin:
    call = json.loads(line)
    print(json.dumps({"id": call["id"], "result": {"stdin": "stdin: " + line.strip()}}), flush=True)
"#;

const TASKS: &str = r#"- id: big
  input: call echo
  max_tool_calls: 10
  tools:
    - name: echo
      input_schema: {type: object, properties: {n: {type: integer}, m: {type: integer}, x: {type: number}}}
      script: python3 echo.py
    - name: echo_server
      input_schema: {type: object}
      server: python3 echo_server.py
"#;

#[test]
fn integers_beyond_64_bits_reach_a_script_backend_digit_for_digit() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "echo.py", ECHO);
    write(dir.path(), "echo_server.py", ECHO_SERVER);
    let agent = write(dir.path(), "agent.py", AGENT);
    let tasks = write(dir.path(), "tasks.yaml", TASKS);
    let out = dir.path().join("r.jsonl");
    let ran = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .arg("--agent")
        .arg(format!("python3 {}", agent.display()))
        .arg("--out")
        .arg(&out));
    assert!(ran.code <= 1, "{}", ran.stderr);
    let line = results(&out).remove(0);
    let answer = line["answer"].as_str().unwrap();
    let args = r#""args":{"n":123456789012345678901234567890,"m":-98765432109876543210987654321,"x":1.10}"#;
    let texts: Vec<&str> = answer.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(texts.len(), 3, "{answer}");
    for text in texts {
        assert!(text.starts_with("stdin: ") && text.contains(args), "{text}");
    }
    // The recorded calls hold the arguments parsed, where such an integer is a float.
    let trajectory = line["trajectory"].to_string();
    assert_eq!(
        trajectory.matches("1.2345678901234568e+29").count(),
        3,
        "{trajectory}"
    );
}
