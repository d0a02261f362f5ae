//! `proctor run` and `proctor merge` end to end with the fixture agents: pass, wrong,
//! crash, timeout with a grandchild killed, garbage output, interrupt and resume,
//! shards merged equal to one run, and what the agent may (not) see.

use crate::common::{JUDGE, Output, grade_kept, proctor, results, root, run, write};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

fn agent(name: &str) -> String {
    root()
        .join("fixtures/agents")
        .join(name)
        .display()
        .to_string()
}

fn run_misc(agent_cmd: &str, dir: &Path, extra: &[&str]) -> (Output, Vec<Value>) {
    let out = dir.join("r.jsonl");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--agent",
            agent_cmd,
            "--out",
        ])
        .arg(&out)
        .args(extra));
    let lines = if out.exists() {
        results(&out)
    } else {
        Vec::new()
    };
    (output, lines)
}

#[test]
fn refund_suite_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/refunds.yaml",
            "--attempts",
            "3",
            "--seed",
            "7",
        ])
        .args([
            "--agent",
            "python3 fixtures/agents/refund_agent.py",
            "--label",
            "v1",
        ])
        .args(JUDGE)
        .arg("--out")
        .arg(&out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    insta::assert_snapshot!(output.stdout);
    let lines = results(&out);
    let tasks = lines
        .iter()
        .map(|l| l["task"].as_str().unwrap())
        .collect::<BTreeSet<_>>();
    assert_eq!(lines.len(), tasks.len() * 3);
    for line in &lines {
        assert_eq!(line["label"], "v1");
        assert!(line["seed"].is_u64());
        assert!(line["timings"]["duration_ms"].is_u64());
    }
}

#[test]
fn the_guard_flag_removes_wrong_refunds() {
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/refunds.yaml",
            "--attempts",
            "3",
            "--format",
            "json",
        ])
        .args(["--agent", "python3 fixtures/agents/refund_agent.py --guard"])
        .args(JUDGE));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let summary: Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(summary["pass_rate"], 1.0, "{}", output.stdout);
}

#[test]
fn recovery_and_abort_variants() {
    let ok = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--format",
            "json",
        ])
        .args(["--agent", "python3 fixtures/agents/file_agent.py"])
        .args(JUDGE));
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let s: Value = serde_json::from_str(&ok.stdout).unwrap();
    assert_eq!(s["pass_rate"], 1.0, "{}", ok.stdout);
    let abort = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--format",
            "json",
        ])
        .args([
            "--agent",
            "python3 fixtures/agents/file_agent.py --abort-on-missing",
        ])
        .args(JUDGE));
    assert_eq!(
        abort.code, 0,
        "failed tasks are results, not errors: {}",
        abort.stderr
    );
    let s: Value = serde_json::from_str(&abort.stdout).unwrap();
    let reasons: Vec<String> = s["per_task"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| {
            t["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["reason"].as_str().unwrap().to_owned())
        })
        .collect();
    assert!(
        reasons.contains(&"error: FileNotFoundError".to_owned()),
        "{reasons:?}"
    );
}

#[test]
fn crash_garbage_and_plain_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (output, lines) = run_misc(&agent("exit_nonzero.sh"), dir.path(), &[]);
    // Every attempt of the only agent crashed: nothing was evaluated (exit 3, naming why).
    assert_eq!(output.code, 3, "{}", output.stderr);
    assert!(
        output.stderr.contains(
            "agent `agent`: every attempt failed to start or crashed; the first: error: exit status 3: exit_nonzero: cannot connect to the tool server"
        ),
        "{}",
        output.stderr
    );
    assert_eq!(
        lines[0]["reasons"],
        serde_json::json!(["error: exit status 3"])
    );
    assert_eq!(lines[0]["diagnosis"], "error");
    assert_eq!(lines[0]["process"]["exit_code"], 3);
    let (_, lines) = run_misc("python3 fixtures/agents/garbage.py", dir.path(), &[]);
    assert_eq!(
        lines[0]["reasons"],
        serde_json::json!(["error: invalid output"])
    );
    let (_, lines) = run_misc(&agent("minimal.sh"), dir.path(), &[]);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
    let (_, lines) = run_misc("python3 fixtures/agents/minimal.py", dir.path(), &[]);
    assert_eq!(lines[0]["passed"], true, "{}", lines[0]);
}

/// True when `pid` no longer runs (gone, or a zombie waiting for init).
fn dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

fn read_pid(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn timeout_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- id: slow\n  input: wait\n  expected: ok\n  timeout_s: 3\n",
    );
    let pids = dir.path().join("pids");
    std::fs::create_dir(&pids).unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args([
            // Outside namespaces, so the pids it writes are the host's.
            "--isolate",
            "none",
            "--pass-env",
            "STUBBORN_PID_FILE",
            "--agent",
            "python3 fixtures/agents/stubborn_fork.py",
            "--out",
        ])
        .arg(&out)
        .env("STUBBORN_PID_FILE", pids.join("child.pid")));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let line = &results(&out)[0];
    assert_eq!(line["status"], "timeout");
    assert_eq!(line["diagnosis"], "hit_cap");
    assert_eq!(line["process"]["timed_out"], true);
    let child = read_pid(&pids.join("child.pid"));
    let parent = read_pid(&pids.join("parent.pid"));
    assert!(dead(child), "grandchild {child} survived");
    assert!(dead(parent), "agent {parent} survived");
    let (_, lines) = run_misc(&agent("hang.sh"), dir.path(), &["--timeout", "1"]);
    assert_eq!(lines[0]["status"], "timeout");
}

#[test]
fn flooding_stdout_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (output, lines) = run_misc("python3 fixtures/agents/flood.py", dir.path(), &[]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(lines[0]["answer"], "done");
    assert!(lines[0]["process"]["stdout_bytes"].as_u64().unwrap() > 100_000_000);
}

#[test]
fn the_agent_never_sees_grading_fields() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/spy.yaml",
            "--agent",
            "python3 fixtures/agents/spy.py",
            "--keep",
        ])
        .arg(&keep));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let received =
        std::fs::read_to_string(keep.join("spy_grading_fields/0/received.json")).unwrap();
    assert!(
        received.contains("say ok"),
        "the input is shown: {received}"
    );
    assert!(received.contains("PROCTOR_OUTCOME"), "{received}");
    assert!(
        !received.contains("canary"),
        "a grading field leaked: {received}"
    );
}

#[test]
fn interrupt_then_resume_completes_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    // Attempt 2 hangs while HANG is set; the others answer at once.
    let cmd =
        "sh -c 'if [ -n \"$HANG\" ] && [ \"$PROCTOR_ATTEMPT\" = 2 ]; then sleep 600; fi; echo ok'";
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"));
    first
        .current_dir(root())
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--attempts",
            "3",
            "--jobs",
            "1",
            "--pass-env",
            "HANG",
            "--agent",
            cmd,
            "--out",
        ])
        .arg(&out)
        .env("HANG", "1");
    let mut child = first
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            Instant::now() < deadline,
            "the first two attempts never finished"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let kept: Vec<u64> = results(&out)
        .iter()
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(kept, vec![0, 1]);
    let resumed = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--attempts",
            "3",
            "--jobs",
            "1",
            "--agent",
            cmd,
            "--resume",
            "--out",
        ])
        .arg(&out)
        .args(["--format", "json"]));
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let attempts: Vec<u64> = results(&out)
        .iter()
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(attempts, vec![0, 1, 2]);
    let s: Value = serde_json::from_str(&resumed.stdout).unwrap();
    assert_eq!(
        s["attempts"], 3,
        "the summary covers the resumed attempts too"
    );
}

/// What must agree between a sharded and an unsharded run.
fn essence(lines: &[Value]) -> BTreeSet<String> {
    lines
        .iter()
        .map(|l| {
            serde_json::json!([
                l["task"],
                l["attempt"],
                l["passed"],
                l["reasons"],
                l["answer"],
                l["seed"],
                l["trajectory"]
            ])
            .to_string()
        })
        .collect()
}

#[test]
fn three_shards_merged_equal_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "run",
        "--tasks",
        "fixtures/run/refunds.yaml",
        "--attempts",
        "2",
        "--seed",
        "3",
        "--agent",
        "python3 fixtures/agents/refund_agent.py",
        "--judge-model",
        "claude-sonnet-4-6",
        "--cassette",
        "fixtures/cassettes/run",
    ];
    let whole = dir.path().join("whole.jsonl");
    assert_eq!(run(proctor().args(base).arg("--out").arg(&whole)).code, 0);
    let mut shards = Vec::new();
    for i in 1..=3 {
        let path = dir.path().join(format!("shard{i}.jsonl"));
        let o = run(proctor()
            .args(base)
            .args(["--shard", &format!("{i}/3"), "--out"])
            .arg(&path));
        assert_eq!(o.code, 0, "{}", o.stderr);
        shards.push(path);
    }
    let merged = dir.path().join("all.jsonl");
    let mut merge = proctor();
    merge
        .arg("merge")
        .args(&shards)
        .arg(&shards[0])
        .arg("--out")
        .arg(&merged);
    merge.args(["--tasks", "fixtures/run/refunds.yaml", "--attempts", "2"]);
    // A shard's file given twice is a doubled shard, which --partial accepts.
    merge.arg("--partial");
    let o = run(&mut merge);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains(" exact duplicates and "), "{}", o.stderr);
    assert_eq!(essence(&results(&merged)), essence(&results(&whole)));
    assert_eq!(results(&merged).len(), results(&whole).len());
}

#[test]
fn merge_refuses_other_task_files_and_lists_missing_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    assert_eq!(
        run_misc(&agent("minimal.sh"), dir.path(), &["--attempts", "3"])
            .0
            .code,
        0
    );
    std::fs::rename(dir.path().join("r.jsonl"), &a).unwrap();
    let mut lines = std::fs::read_to_string(&a).unwrap();
    lines = lines
        .lines()
        .filter(|l| !l.contains("\"attempt\":1"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&a, lines + "\n").unwrap();
    let merged = dir.path().join("all.jsonl");
    let o = run(proctor().arg("merge").arg(&a).arg("--out").arg(&merged));
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("missing task `trivial` [agent]: attempts 1"),
        "{}",
        o.stderr
    );
    assert_eq!(
        results(&merged).len(),
        2,
        "the merged file is still written"
    );
    let other = std::fs::read_to_string(&a)
        .unwrap()
        .replace("sha256:", "sha256:0");
    std::fs::write(&b, other).unwrap();
    let o = run(proctor()
        .arg("merge")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(dir.path().join("x.jsonl")));
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("refusing to merge"), "{}", o.stderr);
    assert!(!dir.path().join("x.jsonl").exists());
}

#[test]
fn bad_input_stops_before_any_agent_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (o, _) = run_misc("no-such-agent-binary", dir.path(), &[]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("`no-such-agent-binary` is not on PATH"),
        "{}",
        o.stderr
    );
    let (o, _) = run_misc("./missing/agent.sh", dir.path(), &[]);
    assert_eq!(o.code, 2);
    for shard in ["0/3", "4/3", "x"] {
        let (o, _) = run_misc(&agent("minimal.sh"), dir.path(), &["--shard", shard]);
        assert_eq!(o.code, 2, "--shard {shard}");
    }
    let escape = write(
        dir.path(),
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files:\n    ../out.txt: x\n",
    );
    let o = run(proctor()
        .args(["run", "--tasks"])
        .arg(&escape)
        .args(["--agent", "true"]));
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("../out.txt"), "{}", o.stderr);
}

#[test]
fn several_agents_get_a_grid() {
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--format",
            "json",
        ])
        .args(["--agent", &format!("shell={}", agent("minimal.sh"))])
        .args(["--agent", "python=python3 fixtures/agents/minimal.py"])
        .args(["--agent", &format!("broken={}", agent("exit_nonzero.sh"))]));
    // The broken agent evaluated nothing: exit 3 naming it, after every summary was printed.
    assert_eq!(output.code, 3, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("agent `broken`: every attempt failed")
            && !output.stderr.contains("agent `shell`"),
        "{}",
        output.stderr
    );
    let s: Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(
        s["labels"],
        serde_json::json!(["broken", "python", "shell"])
    );
    let rates: Vec<(String, f64)> = s["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["label"].as_str().unwrap().to_owned(),
                c["pass_rate"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rates,
        vec![
            ("broken".into(), 0.0),
            ("python".into(), 1.0),
            ("shell".into(), 1.0)
        ]
    );
}

#[test]
fn rubric_runs_are_judged_from_the_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--only",
            "recovery_missing_invoice",
        ])
        .args(["--agent", "python3 fixtures/agents/file_agent.py"])
        .args(JUDGE)
        .arg("--out")
        .arg(&out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let line = &results(&out)[0];
    assert_eq!(line["passed"], true, "{line}");
    let judge = &line["judge"];
    assert_eq!(judge["verdict"], "PASS", "{judge}");
    let provenance = &judge["samples"][0]["provenance"];
    assert_eq!(provenance["provider"], "anthropic");
    assert_eq!(provenance["replayed"], true);
    assert!(
        line["cost"]["models"].to_string().contains("judge"),
        "judge usage is costed: {}",
        line["cost"]
    );
}

#[test]
fn rubric_tasks_need_a_judge_before_any_agent_starts() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("started");
    let cmd = format!("sh -c 'touch {}; echo ok'", marker.display());
    let o = run(proctor().args([
        "run",
        "--tasks",
        "fixtures/run/recovery.yaml",
        "--agent",
        &cmd,
    ]));
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("has a rubric") && o.stderr.contains("--no-judge"),
        "{}",
        o.stderr
    );
    assert!(!marker.exists(), "an agent started");
    let o = run(proctor().args([
        "run",
        "--tasks",
        "fixtures/run/recovery.yaml",
        "--agent",
        &cmd,
        "--no-judge",
        "--format",
        "json",
    ]));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let s: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        s["ungraded"], 1,
        "the rubric task is not judged, so never a pass: {}",
        o.stdout
    );
    assert!(
        o.stdout.contains("judge error: not judged (--no-judge)"),
        "{}",
        o.stdout
    );
}

#[test]
fn a_cassette_miss_exits_3_and_keeps_finished_results() {
    let dir = tempfile::tempdir().unwrap();
    // A cassette that holds a recording, but not the one these runs ask for.
    let empty = dir.path().join("cassette");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(
        empty.join("0000000000000000000000000000000000000000000000000000000000000000.json"),
        "{}",
    )
    .unwrap();
    let out = dir.path().join("r.jsonl");
    let o = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--jobs",
            "1",
        ])
        .args(["--agent", "python3 fixtures/agents/file_agent.py"])
        .args(["--judge-model", "claude-sonnet-4-6", "--cassette"])
        .arg(&empty)
        .arg("--out")
        .arg(&out));
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains("judge"), "{}", o.stderr);
    let kept: Vec<String> = results(&out)
        .iter()
        .map(|l| l["task"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        !kept.contains(&"recovery_missing_invoice".to_owned()),
        "an unjudged run is not recorded"
    );
}

#[test]
fn judge_rejudges_kept_sandboxes_without_running_agents() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let keep = dir.path().join("keep");
    let first = run(proctor()
        .args(["run", "--tasks", "fixtures/run/recovery.yaml", "--no-judge"])
        .args(["--agent", "python3 fixtures/agents/file_agent.py", "--keep"])
        .arg(&keep)
        .arg("--out")
        .arg(&out));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let before = results(&out);
    let missing = before
        .iter()
        .find(|l| l["task"] == "recovery_missing_invoice")
        .unwrap();
    assert_eq!(missing["passed"], Value::Null, "not judged yet");
    let judged = run(proctor()
        .args([
            "judge",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--results",
        ])
        .arg(&out)
        .arg("--keep")
        .arg(&keep)
        .args(JUDGE)
        .args(["--format", "json"]));
    assert_eq!(judged.code, 0, "{}", judged.stderr);
    let after = results(&out);
    assert_eq!(after.len(), before.len());
    let missing = after
        .iter()
        .find(|l| l["task"] == "recovery_missing_invoice")
        .unwrap();
    assert_eq!(missing["passed"], true, "{missing}");
    assert_eq!(missing["judge"]["verdict"], "PASS");
    let other = after
        .iter()
        .find(|l| l["task"] == "recovery_all_present")
        .unwrap();
    let other_before = before
        .iter()
        .find(|l| l["task"] == "recovery_all_present")
        .unwrap();
    assert_eq!(
        other, other_before,
        "lines without a rubric are copied unchanged"
    );
}

#[test]
fn run_appends_ledger_rows_for_agent_and_judge() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.csv");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--attempts",
            "2",
        ])
        .args([
            "--agent",
            "python3 fixtures/agents/file_agent.py",
            "--ledger",
        ])
        .arg(&ledger)
        .args(JUDGE));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let text = std::fs::read_to_string(&ledger).unwrap();
    let mut rows = csv_rows(&text);
    let header = rows.remove(0);
    let role = header.iter().position(|h| h == "role").unwrap();
    let suite = header.iter().position(|h| h == "suite").unwrap();
    let agent_rows = rows.iter().filter(|r| r[role] == "agent").count();
    let judge_rows = rows.iter().filter(|r| r[role] == "judge").count();
    assert_eq!(agent_rows, 4, "one agent row per attempt: {text}");
    assert_eq!(judge_rows, 2, "one judge row per judged attempt: {text}");
    assert!(rows.iter().all(|r| r[suite] == "recovery"), "{text}");
}

/// Splits simple CSV (no quoted commas in these fixtures' cells).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| {
            l.split(',')
                .map(|c| c.trim_matches('"').to_owned())
                .collect()
        })
        .collect()
}

#[test]
fn grade_judges_kept_sandboxes_offline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let keep = dir.path().join("keep");
    let first = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/recovery.yaml",
            "--agent",
            "python3 fixtures/agents/file_agent.py",
        ])
        .args(JUDGE)
        .arg("--keep")
        .arg(&keep)
        .arg("--out")
        .arg(&out));
    assert_eq!(first.code, 0, "{}", first.stderr);
    // Result lines are outcome lines too: grade them again, offline, with the kept end state.
    let graded = dir.path().join("graded.jsonl");
    let second = run(grade_kept(
        Path::new("fixtures/run/recovery.yaml"),
        &out,
        &keep,
        &graded,
    )
    .args(JUDGE));
    assert_eq!(second.code, 0, "{}", second.stderr);
    let essence = |lines: Vec<Value>| -> Vec<(Value, Value, Value)> {
        let mut v: Vec<_> = lines
            .into_iter()
            .map(|l| {
                (
                    l["task"].clone(),
                    l["passed"].clone(),
                    l["judge"]["verdict"].clone(),
                )
            })
            .collect();
        v.sort_by_key(|t| t.0.to_string());
        v
    };
    assert_eq!(essence(results(&graded)), essence(results(&out)));
}

/// A crash can leave a torn last line, cut even inside a UTF-8 character: every reader
/// drops it with a note, and `--resume` cuts it before appending and runs it again.
#[test]
fn a_torn_last_line_is_dropped_everywhere_and_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: t, input: say café, expected: café}\n",
    );
    let out = dir.path().join("r.jsonl");
    let agent = "sh -c 'echo café'";
    let first = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        // One at a time, so the torn last line is attempt 2 and merge sees no gap.
        .args(["--attempts", "3", "--jobs", "1", "--agent", agent, "--out"])
        .arg(&out));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let text = std::fs::read(&out).unwrap();
    // Cut the last line just after the first byte of its last "é".
    let last_start = text[..text.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let cut = last_start
        + text[last_start..]
            .windows(2)
            .rposition(|w| w == "é".as_bytes())
            .unwrap()
        + 1;
    std::fs::write(&out, &text[..cut]).unwrap();
    for command in [
        vec!["report".to_owned()],
        vec!["merge".to_owned()],
        vec!["ledger".to_owned(), "add".to_owned()],
    ] {
        let mut cmd = proctor();
        cmd.args(&command).arg(&out);
        match command[0].as_str() {
            "merge" => cmd.arg("--out").arg(dir.path().join("m.jsonl")),
            "ledger" => cmd.arg("--ledger").arg(dir.path().join("l.csv")),
            _ => &mut cmd,
        };
        let output = run(&mut cmd);
        assert_eq!(output.code, 0, "{command:?}: {}", output.stderr);
        assert!(
            output.stderr.contains("dropped a torn last line"),
            "{command:?}: {}",
            output.stderr
        );
    }
    let resumed = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--attempts", "3", "--agent", agent, "--resume", "--out"])
        .arg(&out));
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(
        resumed.stderr.contains("cut a torn last line"),
        "{}",
        resumed.stderr
    );
    let lines = results(&out);
    let attempts: BTreeSet<u64> = lines
        .iter()
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(attempts, BTreeSet::from([0, 1, 2]));
}

/// Ctrl-C while a judge call is in flight (a server that never answers, with the default
/// 120 s judge timeout): the call is dropped and proctor exits at once.
#[test]
fn interrupt_cancels_a_judge_call_in_flight() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (accepted, connected) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: r, input: x, rubric: PASS if the answer is ok}\n",
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("proctor"))
        .current_dir(root())
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--agent", "sh -c 'echo ok'", "--judge-provider", "openai"])
        .args(["--judge-model", "m", "--judge-base-url"])
        .arg(format!("http://127.0.0.1:{port}/v1"))
        .env("OPENAI_API_KEY", "sk-test")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    connected
        .recv_timeout(Duration::from_secs(60))
        .expect("the judge was never called");
    let interrupted = Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = interrupted + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("proctor still waits for the judge 10 s after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    assert!(
        interrupted.elapsed() < Duration::from_secs(2),
        "exit took {:?}",
        interrupted.elapsed()
    );
}
