//! What proctor prints on standard output is written or reported: a full disk exits 3 with
//! a message; a reader that went away (`| head`) ends it quietly (docs/exit-codes.md).

use crate::common::root;
use std::fs::File;
use std::io::Read;
use std::process::{Command, Stdio};

const RESULTS: &str = "fixtures/compare/v1.jsonl";
const NEW_RESULTS: &str = "fixtures/compare/v2.jsonl";
const LEDGER: [&str; 4] = ["ledger", "report", "--ledger", "fixtures/ledger/ledger.csv"];

fn proctor(words: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("proctor"));
    cmd.current_dir(root()).args(words).stdin(Stdio::null());
    cmd
}

/// Runs `words` with standard output on /dev/full; the exit code and stderr.
fn into_full_disk(words: &[&str]) -> (Option<i32>, String) {
    let full = File::options().write(true).open("/dev/full").unwrap();
    let out = proctor(words)
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// Runs `words` with standard output a pipe whose reader is gone before anything is written.
fn into_closed_pipe(words: &[&str]) -> (Option<i32>, String) {
    let mut child = proctor(words)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

fn assert_full_disk(words: &[&str]) {
    let (code, stderr) = into_full_disk(words);
    assert_eq!(code, Some(3), "{words:?}: {stderr}");
    assert!(
        stderr.contains("proctor: cannot write to standard output: No space left on device"),
        "{words:?}: {stderr}"
    );
    assert!(!stderr.contains("internal error"), "{words:?}: {stderr}");
}

fn assert_quiet(words: &[&str]) {
    let (code, stderr) = into_closed_pipe(words);
    assert_eq!(code, Some(0), "{words:?}: {stderr}");
    assert!(!stderr.contains("proctor:"), "{words:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{words:?}: {stderr}");
}

#[test]
fn report_to_a_full_disk_exits_3_and_says_so() {
    assert_full_disk(&["report", RESULTS]);
}

#[test]
fn every_report_format_to_a_full_disk_exits_3() {
    for format in ["markdown", "json", "junit", "html"] {
        assert_full_disk(&["report", RESULTS, "--format", format]);
    }
}

#[test]
fn compare_and_ledger_report_to_a_full_disk_exit_3() {
    assert_full_disk(&["compare", RESULTS, NEW_RESULTS]);
    assert_full_disk(&LEDGER);
}

#[test]
fn grade_to_a_full_disk_exits_3() {
    assert_full_disk(&[
        "grade",
        "--tasks",
        "fixtures/arithmetic/tasks.json",
        "--outcomes",
        "fixtures/arithmetic/outcomes.jsonl",
    ]);
}

#[test]
fn report_into_a_closed_pipe_ends_quietly() {
    assert_quiet(&["report", RESULTS]);
}

#[test]
fn every_report_format_into_a_closed_pipe_ends_quietly() {
    for format in ["markdown", "json", "junit", "html"] {
        assert_quiet(&["report", RESULTS, "--format", format]);
    }
    assert_quiet(&["compare", RESULTS, NEW_RESULTS]);
    assert_quiet(&LEDGER);
}
