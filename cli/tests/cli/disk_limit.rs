//! `--max-disk`: an agent that fills its sandbox or TMPDIR is stopped (or refused more
//! space) at the limit, in both containment modes, while another agent of the same run
//! is not disturbed, and an honest agent under the limit passes.

use crate::common::{namespaces, proctor, results, root, run, write};
use serde_json::Value;
use std::path::Path;

fn filler(args: &str) -> String {
    let script = root().join("fixtures/agents/adversarial/disk_filler.py");
    format!("python3 {} {args}", script.display())
}

fn suite(dir: &Path) -> std::path::PathBuf {
    write(
        dir,
        "tasks.yaml",
        "- id: fill\n  input: fill the disk\n  expected: ok\n  timeout_s: 60\n",
    )
}

/// Runs `agents` (NAME=CMD) on one task with `--max-disk 8M`; the result lines by label.
fn run_filled(agents: &[String]) -> (Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let tasks = suite(dir.path());
    let out = dir.path().join("results.jsonl");
    let mut command = proctor();
    command
        .args(["run", "--max-disk", "8M", "--jobs", "3", "--tasks"])
        .arg(&tasks)
        .arg("--out")
        .arg(&out);
    for agent in agents {
        command.arg("--agent").arg(agent);
    }
    let ran = run(&mut command);
    // An agent stopped at the limit failed on its own account: the run goes on and ends 0.
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("disk 8 MiB per attempt"),
        "{}",
        ran.stderr
    );
    (results(&out), ran.stderr)
}

fn labelled<'a>(lines: &'a [Value], label: &str) -> &'a Value {
    lines.iter().find(|l| l["label"] == label).unwrap()
}

#[test]
fn an_agent_filling_its_sandbox_is_stopped_at_the_limit() {
    let mode = namespaces();
    let (lines, _) = run_filled(&[
        format!("burst={}", filler("sandbox 64")),
        format!("steady={}", filler("sandbox 64 20")),
        "honest=sh -c 'echo note > notes.txt; echo ok > \"$TMPDIR/x\"; echo ok'".to_owned(),
        // Beside its outcome file, outside the sandbox: watched too.
        "outcome=sh -c 'for i in 1 2 3 4 5 6; do head -c 4000000 /dev/zero > \"$PROCTOR_OUTCOME.$i\"; done; echo ok'"
            .to_owned(),
    ]);
    for label in ["burst", "steady", "outcome"] {
        let line = labelled(&lines, label);
        assert_eq!(line["passed"], false, "{line}");
        assert_eq!(line["status"], "error", "{line}");
        let reason = line["reasons"].to_string();
        assert!(reason.contains("disk limit"), "namespaces {mode}: {line}");
        // Stopped once the folder held more than 8 MiB: not left to run on.
        assert!(
            line["timings"]["duration_ms"].as_u64().unwrap() < 15_000,
            "namespaces {mode}: {line}"
        );
    }
    let honest = labelled(&lines, "honest");
    assert_eq!(honest["passed"], true, "{honest}");
}

#[test]
fn an_agent_filling_tmpdir_gets_no_more_than_the_limit() {
    let mode = namespaces();
    let (lines, _) = run_filled(&[
        format!("filler={}", filler("tmpdir 64 2")),
        "other=sh -c 'head -c 4000000 /dev/zero > \"$TMPDIR/y\" && echo ok'".to_owned(),
    ]);
    let filler = labelled(&lines, "filler");
    assert_eq!(filler["passed"], false, "{filler}");
    assert_eq!(
        filler["reasons"][0], "error: disk limit",
        "namespaces {mode}: {filler}"
    );
    // The other agent's TMPDIR is its own: the filler takes nothing from it.
    let other = labelled(&lines, "other");
    assert_eq!(other["passed"], true, "{other}");
}

/// One budget per attempt over every place it can write: the sandbox, HOME, TMPDIR and
/// /tmp together, in both modes; the only agent over it in every attempt is a failing
/// agent, not a broken run (exit 0).
#[test]
fn one_budget_covers_every_place_the_agent_writes() {
    let mode = namespaces();
    let (lines, _) = run_filled(&[format!("filler={}", filler("spread 40 3"))]);
    let filler = labelled(&lines, "filler");
    assert_eq!(filler["passed"], false, "{filler}");
    assert_eq!(
        filler["reasons"][0], "error: disk limit",
        "namespaces {mode}: {filler}"
    );
}

#[test]
fn no_file_grows_past_the_limit() {
    let mode = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let tasks = suite(dir.path());
    let kept = dir.path().join("kept");
    let out = dir.path().join("results.jsonl");
    let ran = run(proctor()
        .args(["run", "--max-disk", "8M", "--tasks"])
        .arg(&tasks)
        .arg("--keep")
        .arg(&kept)
        .arg("--out")
        .arg(&out)
        .arg("--agent")
        .arg("sh -c 'head -c 20000000 /dev/zero > big.bin; echo ok'"));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = &results(&out)[0];
    // `head` got SIGXFSZ at 8 MiB; the shell went on and answered.
    assert_eq!(
        line["process"]["stderr_tail"], "File size limit exceeded",
        "namespaces {mode}: {line}"
    );
    let big = std::fs::metadata(kept.join("fill/0/big.bin")).unwrap();
    assert_eq!(big.len(), 8 << 20, "namespaces {mode}");
}
