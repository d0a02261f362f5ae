//! Every reader of the user's files names the place of bad input: a file that is not UTF-8,
//! or a line that does not read, gets a message naming the file and its line (`FILE:N:`),
//! or the byte offset where it is not UTF-8, and exits 2. Each reader is fed a few broken
//! files through the command that reads it.

use crate::common::{Output, proctor, run, write};
use assert_cmd::Command;
use std::path::{Path, PathBuf};

const TASK: &str = "- id: t\n  input: say ok\n  expected: ok\n";
const OUTCOME: &str = "{\"task\": \"t\", \"status\": \"final\", \"answer\": \"ok\"}\n";
const RESULT: &str = "{\"format\": \"proctor.result/1\", \"task\": \"t\", \"attempt\": 0, \"passed\": true, \"steps\": 1}\n";
const LEDGER_HEADER: &str = "recorded_at,run_id,suite,label,task,attempt,passed,role,provider,model,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens,cost_usd,price_id,cache_write_1h_tokens,service_tier,calls,format\n";
const LEDGER_ROW: &str = "2026-11-02T10:32:32Z,a52e4eca8963,refunds,v1,refund_eligible,0,false,agent,anthropic,claude-sonnet-4-6,1929,16558,6722,1873,0,0.0640569,anthropic/claude-sonnet-4-6@2026-02-17,0,,3,proctor.ledger/1\n";

fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// True when `text` names `path` followed by `:N` (its line), or says `line N` or `byte N`.
fn names_a_place(text: &str, path: &Path) -> bool {
    let path = path.display().to_string();
    let digit_after = |text: &str, mark: &str| {
        text.match_indices(mark).any(|(at, _)| {
            text[at + mark.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
    };
    digit_after(text, &format!("{path}:"))
        || digit_after(text, "line ")
        || digit_after(text, "byte ")
}

/// Exit 2, no panic, and a message naming the file and a place in it.
fn assert_placed(what: &str, out: &Output, path: &Path) {
    assert_eq!(out.code, 2, "{what}: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
    assert!(
        out.stderr.contains(&path.display().to_string()) && names_a_place(&out.stderr, path),
        "{what}: no file and place in:\n{}",
        out.stderr
    );
}

/// Three files that are not UTF-8: `good`, the line `bad`, `good` again; `good` and a lone
/// continuation byte; `bad` alone.
fn not_utf8(good: &str, bad: &[u8]) -> Vec<Vec<u8>> {
    let mut first = good.as_bytes().to_vec();
    first.extend_from_slice(bad);
    first.extend_from_slice(b"\n");
    first.extend_from_slice(good.as_bytes());
    let mut lone = good.as_bytes().to_vec();
    lone.extend_from_slice(b"\x80\n");
    let mut alone = bad.to_vec();
    alone.push(b'\n');
    vec![first, lone, alone]
}

fn each_file(
    dir: &Path,
    reader: &str,
    name: &str,
    files: Vec<Vec<u8>>,
    command: impl Fn(&Path) -> Command,
) {
    for (i, bytes) in files.into_iter().enumerate() {
        let path = write_bytes(dir, &format!("{i}-{name}"), &bytes);
        let out = run(&mut command(&path));
        assert_placed(&format!("{reader} #{i}"), &out, &path);
    }
}

#[test]
fn price_files_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", TASK);
    let outcomes = write(dir.path(), "o.jsonl", OUTCOME);
    let grade = |prices: &Path| {
        let mut cmd = proctor();
        cmd.arg("grade")
            .arg("--tasks")
            .arg(&tasks)
            .arg("--outcomes")
            .arg(&outcomes);
        cmd.arg("--prices").arg(prices);
        cmd
    };
    let mut toml = not_utf8(
        "[[price]]\nprovider = \"anthropic\"\n",
        b"model = \"caf\xe9\"",
    );
    toml.push(b"[[price]]\nprovider = \n".to_vec());
    toml.push(b"[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = 2026-01-01\ninput = -1\noutput = 1\n".to_vec());
    each_file(dir.path(), "price TOML", "p.toml", toml, grade);
    let mut json = not_utf8(
        "{\"m\": {\"litellm_provider\": \"openai\",\n",
        b"\"mode\": \"\xff\"}}",
    );
    json.push(b"{\"m\": {\"input_cost_per_token\": }}\n".to_vec());
    each_file(dir.path(), "price JSON", "p.json", json, grade);
}

#[test]
fn agents_files_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", TASK);
    let mut files = not_utf8("- name: a\n", b"  command: caf\xe9");
    files.push(b"- name: a\n  command: [echo\n".to_vec());
    files.push(b"- name: a\n  commmand: echo\n".to_vec());
    each_file(dir.path(), "agents file", "agents.yaml", files, |agents| {
        let mut cmd = proctor();
        cmd.arg("run")
            .arg("--tasks")
            .arg(&tasks)
            .arg("--agents")
            .arg(agents);
        cmd.arg("--out").arg(dir.path().join("r.jsonl"));
        cmd
    });
}

#[test]
fn labels_files_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = not_utf8(
        "task,attempt,human\nrecovery_log,0,pass\n",
        b"recovery_log,1,\xff",
    );
    files.push(b"task,\xffattempt,human\nrecovery_log,0,pass\n".to_vec());
    files.push(b"task,attempt,human\nrecovery_log,0,pass\nrecovery_log,1\n".to_vec());
    each_file(dir.path(), "labels", "labels.csv", files, |labels| {
        let mut cmd = proctor();
        cmd.args([
            "calibrate",
            "--verdicts",
            "fixtures/calibration/verdicts.jsonl",
            "--labels",
        ]);
        cmd.arg(labels);
        cmd
    });
}

#[test]
fn task_files_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let outcomes = write(dir.path(), "o.jsonl", OUTCOME);
    let mut files = not_utf8("- id: t\n", b"  input: caf\xe9");
    files.push(b"- id: t\n  input: [say\n".to_vec());
    files.push(b"- id: t\n  input: say ok\n  expectd: ok\n".to_vec());
    each_file(dir.path(), "task file", "tasks.yaml", files, |tasks| {
        let mut cmd = proctor();
        cmd.arg("grade")
            .arg("--tasks")
            .arg(tasks)
            .arg("--outcomes")
            .arg(&outcomes);
        cmd
    });
}

#[test]
fn outcome_logs_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(dir.path(), "tasks.yaml", TASK);
    let mut files = not_utf8(OUTCOME, b"{\"task\": \"t\", \"answer\": \"caf\xe9\"}");
    files.push(format!("{OUTCOME}{{\"task\": \"t\", \"status\": \n{OUTCOME}").into_bytes());
    each_file(dir.path(), "outcome log", "o.jsonl", files, |outcomes| {
        let mut cmd = proctor();
        cmd.arg("grade")
            .arg("--tasks")
            .arg(&tasks)
            .arg("--outcomes")
            .arg(outcomes);
        cmd
    });
}

#[test]
fn result_files_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = not_utf8(RESULT, b"{\"task\": \"caf\xe9\", \"passed\": true}");
    files.push(format!("{RESULT}{{\"task\": \"t\", \"passed\": \n{RESULT}").into_bytes());
    each_file(dir.path(), "results", "r.jsonl", files, |results| {
        let mut cmd = proctor();
        cmd.arg("report").arg(results);
        cmd
    });
}

#[test]
fn ledger_files_name_the_place_of_bad_bytes_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let header_and_row = format!("{LEDGER_HEADER}{LEDGER_ROW}");
    // The suite `caf` and a Latin-1 `é`.
    let latin1: Vec<u8> = LEDGER_ROW
        .trim_end()
        .replace("refunds", "caf#")
        .bytes()
        .map(|b| if b == b'#' { 0xe9 } else { b })
        .collect();
    let mut files = not_utf8(&header_and_row, &latin1);
    files.push(format!("{header_and_row}2026-11-02T10:32:32Z,a52e4eca8963\n").into_bytes());
    each_file(dir.path(), "ledger", "ledger.csv", files, |ledger| {
        let mut cmd = proctor();
        cmd.args(["ledger", "report", "--ledger"]).arg(ledger);
        cmd
    });
}
