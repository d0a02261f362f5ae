//! The run record `R.run.json` that `proctor run` writes beside its results file `R`
//! (docs/result-format.md, "The run record"): written at the start of every run into a
//! regular file, rewritten by `--resume`, never for standard output.

use crate::common::{proctor, results, run, write};
use serde_json::Value;
use std::path::Path;

const AGENT: &str = "sh -c 'echo ok'";

fn record(out: &Path) -> Value {
    let path = out.with_file_name(format!(
        "{}.run.json",
        out.file_name().unwrap().to_str().unwrap()
    ));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_run_records_its_plan_beside_its_results_and_resume_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: a, input: say ok, expected: ok}\n- {id: b, input: say ok, expected: ok}\n",
    );
    let out = dir.path().join("r.jsonl");
    let keep = dir.path().join("kept");
    let first = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--attempts", "3", "--agent", AGENT, "--keep"])
        .arg(&keep)
        .arg("--out")
        .arg(&out));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let lines = results(&out);
    assert_eq!(lines.len(), 6);
    let r = record(&out);
    assert_eq!(r["format"], "proctor.run/1");
    assert_eq!(r["results"], "r.jsonl");
    assert_eq!(r["tasks"], tasks.canonicalize().unwrap().to_str().unwrap());
    assert_eq!(r["agents"], serde_json::json!(["agent"]));
    assert_eq!(r["planned"], 6);
    assert_eq!(r["done_at_start"], 0);
    assert_eq!(r["shard"], Value::Null);
    assert_eq!(r["keep"], keep.canonicalize().unwrap().to_str().unwrap());
    assert_eq!(r["run_id"], lines[0]["run_id"]);
    assert!(r["pid"].as_u64().is_some_and(|pid| pid > 0), "{r}");
    let started = r["started_at"].as_str().unwrap();
    assert!(started.parse::<jiff::Timestamp>().is_ok(), "{started}");
    // Nothing of the agent's command is written.
    let text = std::fs::read_to_string(dir.path().join("r.jsonl.run.json")).unwrap();
    assert!(!text.contains("echo"), "{text}");
    assert!(!dir.path().join("r.jsonl.run.json.partial").exists());

    // Four lines kept: --resume runs the last two, and says it started with four.
    let text = std::fs::read_to_string(&out).unwrap();
    let kept: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    std::fs::write(&out, kept).unwrap();
    let resumed = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--attempts", "3", "--agent", AGENT, "--resume", "--out"])
        .arg(&out));
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert_eq!(results(&out).len(), 6);
    let again = record(&out);
    assert_eq!(again["planned"], 6);
    assert_eq!(again["done_at_start"], 4);
    assert_eq!(again["run_id"], r["run_id"]);
    assert_eq!(again["keep"], Value::Null);
    assert!(again["started_at"].as_str().unwrap() >= started);
}

#[test]
fn a_shard_records_its_own_share_of_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: a, input: say ok, expected: ok}\n- {id: b, input: say ok, expected: ok}\n",
    );
    let out = dir.path().join("shard.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args([
            "--attempts",
            "3",
            "--shard",
            "2/2",
            "--agent",
            AGENT,
            "--out",
        ])
        .arg(&out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let r = record(&out);
    assert_eq!(r["shard"], "2/2");
    assert_eq!(r["planned"], 3);
    assert_eq!(results(&out).len(), 3);
}

#[test]
fn standard_output_gets_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: a, input: say ok, expected: ok}\n",
    );
    let output = run(proctor().args(["run", "--tasks"]).arg(&tasks).args([
        "--agent",
        AGENT,
        "--out",
        "/dev/stdout",
    ]));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(
        output.stdout.contains("proctor.result/1"),
        "{}",
        output.stdout
    );
    assert!(!output.stderr.contains("run record"), "{}", output.stderr);
    assert!(!Path::new("/dev/stdout.run.json").exists());
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["t.yaml"]);
}
