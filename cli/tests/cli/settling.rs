//! One attempt settled by each command that settles attempts (docs/architecture.md,
//! "Settling an attempt"): `run` settles it as the agent ends, `grade` from its result line
//! and the kept sandbox, `judge` again from the kept sandbox. The same attempt must get the
//! same grade, cost and details, the same messages and the same exit code from all three,
//! here for an outcome whose usage records a time nobody can read: its call is counted
//! unpriced and said, never priced as 0 without a word. And every output is given the same
//! attempt by each command: an output that reads every field (`PROCTOR_ATTEMPTS_SEEN`) gets
//! the line the command writes, also from `grade` when it writes none.

use crate::common::{Output, grade_kept, grade_log, judge_kept, proctor, results, run, write};
use crate::judge_concurrency::Model;
use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

/// A task whose rubric the mock judge passes (it says `zqgood`), whose answer is checked,
/// and whose end state is read.
const TASKS: &str = r#"
- id: unreadable-time
  input: write done.txt and answer done
  expected: done
  verify:
    - {file_contains: done.txt, text: done}
  rubric: PASS when done.txt says done (zqgood).
"#;

/// Writes `done.txt` and an outcome whose one usage object has a time that is no time.
const AGENT: &str = r#"
import json, os
open("done.txt", "w").write("done\n")
json.dump({
    "status": "final",
    "answer": "done",
    "usage": [{"provider": "anthropic", "model": "claude-sonnet-4-6",
               "input_tokens": 1000, "output_tokens": 100, "timestamp": "last tuesday"}],
}, open(os.environ["PROCTOR_OUTCOME"], "w"))
"#;

/// What every command must agree on about the attempt: all that settling writes.
fn settled(line: &Value) -> Value {
    let cost = line["cost"].clone();
    serde_json::json!({
        "passed": line["passed"],
        "reasons": line["reasons"],
        "diagnosis": line["diagnosis"],
        "checks": line["checks"],
        "judge_verdict": line["judge"]["verdict"],
        "cost": cost,
    })
}

/// The one message about the unreadable time, from the attempt's name on.
fn message(stderr: &str) -> String {
    let at = stderr
        .find("task `unreadable-time` attempt 0: usage not priced")
        .unwrap_or_else(|| panic!("no message about the usage in\n{stderr}"));
    stderr[at..].lines().next().unwrap().to_owned()
}

/// What an attempt recorded, which no command changes when it settles it again.
fn recorded(line: &Value) -> Value {
    let keys = [
        "format",
        "task",
        "attempt",
        "status",
        "answer",
        "tool_calls",
        "tools_used",
        "trajectory",
        "trajectory_source",
        "steps",
        "usage",
        "evidence",
        "task_digest",
        "variant",
        "seed",
        "process",
        "timings",
        "faults_fired",
        "faults_missed",
    ];
    keys.iter()
        .map(|key| (key.to_string(), line[key].clone()))
        .collect()
}

/// The attempt settled by each command, in one folder: `run` (keeping its sandbox),
/// `grade` of its result line with `--out` and without, and `judge` of a copy of its
/// results; each with an output that reads every field (`PROCTOR_ATTEMPTS_SEEN`).
struct Settled {
    dir: tempfile::TempDir,
    /// Each command's output, by name: run, grade, summary, judge.
    outputs: Vec<(&'static str, Output)>,
}

impl Settled {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// What the output that reads every field was given by command `name`.
    fn seen(&self, name: &str) -> Vec<Value> {
        results(&self.path(&format!("{name}.seen")))
    }

    /// The one line command `name` wrote.
    fn written(&self, name: &str) -> Value {
        let mut lines = results(&self.path(&format!("{name}.jsonl")));
        assert_eq!(lines.len(), 1, "{name}");
        lines.remove(0)
    }
}

fn settle_each_way() -> Settled {
    let model = Model::start(0, 1);
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let tasks = write(dir.path(), "tasks.yaml", TASKS);
    let agent = write(dir.path(), "agent.py", AGENT);
    let (ran_out, keep) = (path("run.jsonl"), path("kept"));
    let command = |name: &'static str, command: &mut Command| {
        let out = run(command
            .env("PROCTOR_ATTEMPTS_SEEN", path(&format!("{name}.seen")))
            .args(model.flags()));
        (name, out)
    };
    let mut outputs = vec![command(
        "run",
        proctor()
            .args(["run", "--tasks"])
            .arg(&tasks)
            .arg("--agent")
            .arg(format!("python3 {}", agent.display()))
            .arg("--keep")
            .arg(&keep)
            .arg("--out")
            .arg(&ran_out),
    )];
    outputs.push(command(
        "grade",
        &mut grade_kept(&tasks, &ran_out, &keep, &path("grade.jsonl")),
    ));
    // `grade` with nothing but the summary to show keeps the least of a line.
    outputs.push(command(
        "summary",
        grade_log(&tasks, &ran_out).arg("--workdir").arg(&keep),
    ));
    let judged = path("judge.jsonl");
    std::fs::copy(&ran_out, &judged).unwrap();
    outputs.push(command("judge", &mut judge_kept(&tasks, &judged, &keep)));
    Settled { dir, outputs }
}

#[test]
fn run_grade_and_judge_settle_an_unreadable_usage_time_alike() {
    let settled_each_way = settle_each_way();
    let ran = &settled_each_way.outputs[0].1;
    let said = message(&ran.stderr);
    assert!(
        said.contains("usage[0]: field `timestamp`") && said.ends_with("counted unpriced"),
        "{said}"
    );
    for (command, output) in &settled_each_way.outputs {
        assert_eq!(output.code, 2, "{command}: {}", output.stderr);
        assert_eq!(message(&output.stderr), said, "{command}");
        assert!(
            !output.stderr.contains("skipped"),
            "{command} graded and wrote the line: nothing was skipped\n{}",
            output.stderr
        );
    }
    let ran_line = settled(&settled_each_way.written("run"));
    assert_eq!(ran_line["passed"], true, "{ran_line}");
    assert_eq!(ran_line["judge_verdict"], "PASS", "{ran_line}");
    // The agent's call is counted, tokens and all, and unpriced; so is the mock judge's
    // (no price for model `mock`): the cost is unknown, never 0.
    assert_eq!(ran_line["cost"]["tokens"], 1000 + 100 + 15, "{ran_line}");
    assert_eq!(ran_line["cost"]["unpriced_calls"], 2, "{ran_line}");
    assert_eq!(ran_line["cost"]["usd"], Value::Null, "{ran_line}");
    for command in ["grade", "judge"] {
        assert_eq!(
            settled(&settled_each_way.written(command)),
            ran_line,
            "{command}"
        );
    }
}

#[test]
fn every_output_is_given_the_line_each_command_writes() {
    let settled_each_way = settle_each_way();
    // Each command's outputs are given exactly the line it writes.
    for command in ["run", "grade", "judge"] {
        let written = settled_each_way.written(command);
        assert_eq!(settled_each_way.seen(command), [written], "{command}");
    }
    // `grade` writing nothing gives the same line as `grade` writing it.
    assert_eq!(
        settled_each_way.seen("summary"),
        [settled_each_way.written("grade")]
    );
    // And the commands keep what the attempt recorded when they settle it again.
    let ran = recorded(&settled_each_way.written("run"));
    for command in ["grade", "judge"] {
        assert_eq!(
            recorded(&settled_each_way.written(command)),
            ran,
            "{command}"
        );
    }
}
