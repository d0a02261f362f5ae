//! The agent is untrusted (docs/agent-protocol.md): the adversarial agents of
//! `fixtures/agents/adversarial/` run through `proctor run`, and every attack must be
//! contained. Where this machine cannot make namespaces, each test says so on stderr
//! and checks the fallback (a warning naming what is missing) instead.

use crate::common::{Output, namespaces, no_landlock, proctor, results, root, run, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const CANARY_KEY: &str = "sk-ant-canary-3c1d9e";

fn adversary(name: &str) -> String {
    root()
        .join("fixtures/agents/adversarial")
        .join(name)
        .display()
        .to_string()
}

fn by_label<'a>(lines: &'a [Value], label: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["label"] == label).collect()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn every_attack_is_contained() {
    let contained = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let keep = dir.path().join("keep");
    let agents = [
        format!("dumper=python3 {}", adversary("env_dumper.py")),
        format!("fifo=sh {} fifo", adversary("outcome_attack.sh")),
        format!("zero=sh {} zero", adversary("outcome_attack.sh")),
        format!("huge=sh {} huge", adversary("outcome_attack.sh")),
        format!("escaper=python3 {}", adversary("setsid_escaper.py")),
        format!("reader=python3 {}", adversary("task_reader.py")),
        format!("forger=python3 {}", adversary("forger.py")),
        "good=sh -c 'sleep 1; echo ok'".to_owned(),
    ];
    let mut cmd = proctor();
    cmd.args([
        "run",
        "--tasks",
        "fixtures/run/misc.yaml",
        "--attempts",
        "2",
        "--jobs",
        "8",
    ]);
    for agent in &agents {
        cmd.args(["--agent", agent]);
    }
    let output = run(cmd
        .arg("--out")
        .arg(&out)
        .arg("--keep")
        .arg(&keep)
        .env("ANTHROPIC_API_KEY", CANARY_KEY)
        .timeout(Duration::from_secs(120)));
    // The outcome-file attackers evaluated nothing (every attempt an invalid output): the run
    // exits 3 naming them, after every result was written.
    assert_eq!(output.code, 3, "{}", output.stderr);
    for attacker in ["fifo", "zero", "huge"] {
        assert!(
            output
                .stderr
                .contains(&format!("agent `{attacker}`: every attempt failed")),
            "{}",
            output.stderr
        );
    }
    let lines = results(&out);
    assert_eq!(lines.len(), 16, "{}", output.stderr);

    // 1. No secret reaches the agent, so none reaches a result, a kept folder or stderr_tail.
    for line in by_label(&lines, "dumper") {
        assert_eq!(line["answer"], "no secrets", "{line}");
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(CANARY_KEY), "the key reached the results");
    for file in files_under(&keep) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(CANARY_KEY),
            "the key reached {}",
            file.display()
        );
    }
    // 3. An outcome path made a FIFO, a link to /dev/zero or a 6 GiB file is refused, fast.
    for (label, why) in [
        ("fifo", "a FIFO, not a regular file"),
        ("zero", "a symlink, not a regular file"),
        ("huge", "over the 8 MiB limit"),
    ] {
        for line in by_label(&lines, label) {
            assert_eq!(line["status"], "error", "{line}");
            let message = line["error"]["message"].as_str().unwrap();
            assert!(message.contains(why), "{label}: {message}");
        }
    }
    if !contained {
        assert!(
            output
                .stderr
                .contains("warning: --isolate auto: no namespaces")
        );
        return;
    }
    // 4. A setsid() grandchild holding stdout neither erases the answer nor survives.
    for line in by_label(&lines, "escaper") {
        assert_eq!(line["passed"], true, "{line}");
    }
    let heartbeats: Vec<PathBuf> = files_under(&keep)
        .into_iter()
        .filter(|p| p.ends_with("escaped.txt"))
        .collect();
    assert_eq!(heartbeats.len(), 2);
    let sizes = || -> Vec<u64> {
        heartbeats
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .collect()
    };
    let before = sizes();
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(before, sizes(), "an escaped process still writes");
    // 7. The task file (and its `expected`) is out of the agent's sight.
    for line in by_label(&lines, "reader") {
        assert_eq!(line["answer"], "not found", "{line}");
        assert_eq!(line["passed"], false);
    }
    // 6. No attempt can write another's outcome.
    for line in by_label(&lines, "good") {
        assert_eq!(line["passed"], true, "{line}");
    }
}

/// The same reader passes without isolation: the attack is real, and `none` says so.
#[test]
fn without_isolation_the_task_file_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--isolate",
            "none",
        ])
        .args([
            "--agent",
            &format!("python3 {}", adversary("task_reader.py")),
        ])
        .arg("--out")
        .arg(&out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(results(&out)[0]["answer"], "ok");
}

#[test]
fn pass_env_names_exactly_what_reaches_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let agents = write(
        dir.path(),
        "agents.yaml",
        &format!(
            "- name: open\n  command: python3 {}\n  pass_env: [MY_*]\n  env: {{EXTRA_TOKEN: given}}\n\
             - name: closed\n  command: python3 {}\n",
            adversary("env_dumper.py"),
            adversary("env_dumper.py")
        ),
    );
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml", "--agents"])
        .arg(&agents)
        .args(["--pass-env", "OTHER_SECRET", "--out"])
        .arg(&out)
        .env("MY_API_KEY", "mine")
        .env("OTHER_SECRET", "other")
        .env("ANTHROPIC_API_KEY", CANARY_KEY));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let lines = results(&out);
    assert_eq!(
        by_label(&lines, "open")[0]["answer"],
        "EXTRA_TOKEN=given MY_API_KEY=mine OTHER_SECRET=other"
    );
    assert_eq!(
        by_label(&lines, "closed")[0]["answer"],
        "OTHER_SECRET=other"
    );
}

#[test]
fn network_none_leaves_loopback_only() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let probe = |network: &str| -> (Output, Vec<Value>) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl");
        let output = run(proctor()
            .args([
                "run",
                "--tasks",
                "fixtures/run/misc.yaml",
                "--network",
                network,
            ])
            .args(["--pass-env", "PROBE_PORT", "--agent"])
            .arg(format!("python3 {}", adversary("network_probe.py")))
            .arg("--out")
            .arg(&out)
            .env("PROBE_PORT", &port));
        let lines = if out.exists() {
            results(&out)
        } else {
            Vec::new()
        };
        (output, lines)
    };
    let (output, host) = probe("host");
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(host[0]["answer"], "connected");
    let (output, none) = probe("none");
    // A task's `network: none` does the same for that task alone.
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: offline, input: x, expected: unreachable, network: none}\n",
    );
    let by_task = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--pass-env", "PROBE_PORT", "--agent"])
        .arg(format!("python3 {}", adversary("network_probe.py")))
        .args(["--format", "json"])
        .env("PROBE_PORT", &port));
    if namespaces() {
        assert_eq!(output.code, 0, "{}", output.stderr);
        assert_eq!(none[0]["answer"], "unreachable");
        assert_eq!(by_task.code, 0, "{}", by_task.stderr);
        assert!(
            by_task.stdout.contains("\"passed\": 1"),
            "{}",
            by_task.stdout
        );
    } else {
        assert_eq!(output.code, 2);
        assert!(output.stderr.contains("--network none needs namespaces"));
        assert_eq!(by_task.code, 2);
        assert!(by_task.stderr.contains("asks for network: none"));
    }
}

#[test]
fn network_none_reaches_proctors_endpoints_and_nothing_else() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: probe, input: x, expected: anything}\n",
    );
    let out = dir.path().join("r.jsonl");
    let started = std::time::Instant::now();
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--network", "none", "--pass-env", "PROBE_PORT", "--agent"])
        .arg(format!("python3 {}", adversary("forward_probe.py")))
        .arg("--out")
        .arg(&out)
        .env("PROBE_PORT", &port)
        .timeout(Duration::from_secs(120)));
    if !namespaces() {
        assert_eq!(output.code, 2, "{}", output.stderr);
        assert!(output.stderr.contains("--network none needs namespaces"));
        return;
    }
    // The run ends normally although the agent killed the forwarder.
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(
        !output.stderr.contains("cannot reach the OTLP receiver"),
        "{}",
        output.stderr
    );
    let lines = results(&out);
    let answer: Value = serde_json::from_str(lines[0]["answer"].as_str().unwrap()).unwrap();
    assert_eq!(
        answer,
        serde_json::json!({
            "export": "200",
            "host_port": "unreachable",
            "next_port": "unreachable",
            "outside": "unreachable",
            "forwarders_killed": 1,
            "export_after_kill": "unreachable",
        }),
        "{}",
        output.stderr
    );
}

#[test]
fn process_limits_apply_and_say_how() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--max-procs",
            "10",
        ])
        .args(["--max-memory", "256M", "--agent"])
        .arg(format!("python3 {}", adversary("fork_bomb.py")))
        .arg("--out")
        .arg(&out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("limits per attempt: memory 256 MiB, 10 processes through"),
        "{}",
        output.stderr
    );
    let on_cgroups = output.stderr.contains("through cgroup");
    if !on_cgroups {
        eprintln!("NOTE: no cgroup could be made here: checking resource limits instead");
    }
    let started: u64 = results(&out)[0]["answer"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        started < 10,
        "{started} children started under --max-procs 10"
    );
}

#[test]
fn isolate_namespaces_stops_where_there_are_none_and_auto_warns() {
    let strict = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--isolate",
            "namespaces",
        ])
        .args(["--agent", "sh -c 'echo ok'"])
        .env("PROCTOR_BWRAP", "/nonexistent/bwrap"));
    assert_eq!(strict.code, 2, "{}", strict.stderr);
    assert!(
        strict.stderr.contains("--isolate namespaces"),
        "{}",
        strict.stderr
    );
    assert!(strict.stderr.contains("cannot start"), "{}", strict.stderr);
    let auto = run(proctor()
        .args(["run", "--tasks", "fixtures/run/misc.yaml"])
        .args(["--agent", "sh -c 'echo ok'"])
        .env("PROCTOR_BWRAP", "/nonexistent/bwrap"));
    assert_eq!(auto.code, 0, "{}", auto.stderr);
    let warning = auto
        .stderr
        .lines()
        .find(|l| l.contains("warning: --isolate auto: no namespaces"))
        .unwrap_or_else(|| panic!("no warning: {}", auto.stderr));
    for missing in ["no network namespace", "no private /tmp"] {
        assert!(warning.contains(missing), "{warning}");
    }
    if no_landlock(warning) {
        assert!(warning.contains("task files"), "{warning}");
    } else {
        assert!(warning.contains("agents run with landlock"), "{warning}");
    }
}

/// Sizes of every `name` under `dir`, to tell whether a process still writes them.
fn sizes_of(dir: &Path, name: &str) -> Vec<u64> {
    let mut files: Vec<PathBuf> = files_under(dir)
        .into_iter()
        .filter(|p| p.ends_with(name))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .collect()
}

/// Without namespaces (`--isolate auto`, bubblewrap missing), the `__contain`
/// helper still contains: landlock hides the task file and keeps the file system
/// read-only, and the subreaper kills setsid() grandchildren when the agent ends
/// and when it times out.
#[test]
fn the_fallback_without_namespaces_still_contains() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        // Long enough for the escaper to start and answer on a loaded machine.
        "- id: short\n  input: say ok\n  expected: ok\n  timeout_s: 3\n",
    );
    let out = dir.path().join("r.jsonl");
    let keep = dir.path().join("keep");
    let probe_tmp = dir.path().join("written-by-agent");
    let reader = format!(
        "reader=sh -c 'if head -c1 {} >/dev/null 2>&1; then echo readable; else echo hidden; fi'",
        tasks.display()
    );
    let writer = format!(
        "writer=sh -c 'touch {} 2>/dev/null; echo > $TMPDIR/mine && echo ok'",
        probe_tmp.display()
    );
    let output = run(proctor()
        .arg("run")
        .arg("--tasks")
        .arg(&tasks)
        .args(["--jobs", "4"])
        .args([
            "--agent",
            &format!("escaper=python3 {}", adversary("setsid_escaper.py")),
        ])
        .args([
            "--agent",
            "stuck=sh -c 'setsid sh -c \"while :; do echo beat >> late.txt; sleep 0.1; done\" & sleep 30'",
        ])
        .args(["--agent", &reader, "--agent", &writer])
        .arg("--out")
        .arg(&out)
        .arg("--keep")
        .arg(&keep)
        .env("PROCTOR_BWRAP", "/nonexistent/bwrap")
        .timeout(Duration::from_secs(60)));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let warning = output
        .stderr
        .lines()
        .find(|l| l.contains("warning: --isolate auto: no namespaces"))
        .unwrap_or_else(|| panic!("no warning: {}", output.stderr));
    for missing in ["no network namespace", "no private /tmp"] {
        assert!(warning.contains(missing), "{warning}");
    }
    let lines = results(&out);
    assert_eq!(lines.len(), 4, "{}", output.stderr);

    // The setsid() grandchildren died with their attempts, ended or timed out.
    let escaper = by_label(&lines, "escaper")[0];
    assert_eq!(escaper["passed"], true, "{escaper}");
    assert_eq!(by_label(&lines, "stuck")[0]["status"], "timeout");
    let before = (sizes_of(&keep, "escaped.txt"), sizes_of(&keep, "late.txt"));
    assert_eq!((before.0.len(), before.1.len()), (1, 1), "{before:?}");
    std::thread::sleep(Duration::from_millis(600));
    let after = (sizes_of(&keep, "escaped.txt"), sizes_of(&keep, "late.txt"));
    assert_eq!(before, after, "an escaped process still writes");

    if no_landlock(warning) {
        eprintln!(
            "NOTE: this kernel has no landlock: only the warning and the subreaper are checked"
        );
        assert!(warning.contains("can read the task files"), "{warning}");
        return;
    }
    // Landlock: the task file is unreadable, the host read-only, TMPDIR writable.
    assert_eq!(by_label(&lines, "reader")[0]["answer"], "hidden");
    assert_eq!(by_label(&lines, "writer")[0]["answer"], "ok");
    assert!(!probe_tmp.exists(), "the agent wrote outside its folders");
}

#[test]
fn kept_folders_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "t.yaml",
        "- {id: report/v1, input: a, expected: ok}\n- {id: report_v1, input: b, expected: ok}\n",
    );
    let keep = dir.path().join("keep");
    let agent = "sh -c 'echo \"$PROCTOR_TASK_ID $PROCTOR_ATTEMPT\" > who.txt; echo ok'";
    let output = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .args(["--attempts", "2", "--agent"])
        .arg(format!("a+b={agent}"))
        .arg("--agent")
        .arg(format!("a_b={agent}"))
        .arg("--keep")
        .arg(&keep));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let mut seen: Vec<String> = files_under(&keep)
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "who.txt"))
        .map(|p| std::fs::read_to_string(p).unwrap().trim().to_owned())
        .collect();
    seen.sort();
    // 2 agents × 2 tasks × 2 attempts, each in a folder of its own.
    assert_eq!(seen.len(), 8, "{seen:?}");
    seen.dedup();
    assert_eq!(seen.len(), 4);
    assert!(keep.join("a%2Bb/report%2Fv1/1/who.txt").is_file());
    assert!(keep.join("a_b/report_v1/0/who.txt").is_file());
    // The marker that tells proctor (and you) what the folder is, wherever it lies.
    assert!(keep.join(".proctor-keep").is_file());
}

/// 2 and 9: what the agent leaves is read bounded; too big is a FAIL naming the limit,
/// and a tree deeper than PATH_MAX neither breaks the run nor a later `--keep` reuse.
#[test]
fn oversized_and_deep_end_states_fail_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let keep = dir.path().join("keep");
    let go = || {
        run(proctor()
            .args(["run", "--tasks", "fixtures/run/adversarial.yaml"])
            .args([
                "--agent",
                &format!("huge=python3 {}", adversary("huge_file.py")),
            ])
            .args([
                "--agent",
                &format!("deep=python3 {}", adversary("deep_tree.py")),
            ])
            .arg("--out")
            .arg(&out)
            .arg("--keep")
            .arg(&keep))
    };
    for _ in 0..2 {
        let output = go();
        assert_eq!(output.code, 0, "{}", output.stderr);
        let lines = results(&out);
        let huge = by_label(&lines, "huge")[0];
        assert_eq!(huge["passed"], false);
        assert_eq!(
            huge["reasons"][0],
            "end state: report.txt: 6.0 GiB is over the 16 MiB limit"
        );
        let deep = by_label(&lines, "deep")[0];
        assert_eq!(deep["reasons"][0], "end state: report.txt: missing");
    }
}

/// The results file is hidden too, also on a first run when it does not exist yet at
/// start: the second attempt cannot read the first one's line.
#[test]
fn the_results_file_is_out_of_sight() {
    namespaces();
    // Outside /tmp, which namespaced agents never see anyway; the checkout's `target/`
    // may not exist when CARGO_TARGET_DIR points elsewhere.
    let parent = root().join("target");
    std::fs::create_dir_all(&parent).unwrap();
    let dir = tempfile::tempdir_in(parent).unwrap();
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .args([
            "run",
            "--tasks",
            "fixtures/run/misc.yaml",
            "--attempts",
            "2",
        ])
        .args(["--jobs", "1", "--pass-env", "RESULTS", "--agent"])
        .arg("sh -c 'cat \"$RESULTS\" 2>/dev/null | wc -c'")
        .arg("--out")
        .arg(&out)
        .env("RESULTS", &out));
    assert_eq!(output.code, 0, "{}", output.stderr);
    let lines = results(&out);
    assert_eq!(lines[1]["answer"], "0", "{}", lines[1]);
}
