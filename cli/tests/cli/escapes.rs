//! The agent cannot escape its attempt (docs/agent-protocol.md): it has no terminal to push input
//! into, no privilege over proctor or other attempts, no descriptor proctor's parent
//! left open, a clean signal state, and nothing it starts outlives its attempt, even
//! when its helper is killed or stopped or proctor itself is killed. Each test runs
//! the attack agent of `fixtures/agents/adversarial/` through `proctor run`, in the
//! mode this machine gives (`PROCTOR_BWRAP=/nonexistent` checks the fallback).

use crate::common::{namespaces, proctor, root, run, write};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The containment mode this machine gives, for messages.
fn mode() -> &'static str {
    if namespaces() {
        "namespaces"
    } else {
        "fallback"
    }
}

fn adversary(name: &str) -> String {
    root()
        .join("fixtures/agents/adversarial")
        .join(name)
        .display()
        .to_string()
}

fn proctor_program() -> PathBuf {
    assert_cmd::cargo::cargo_bin("proctor")
}

fn results(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn answer(line: &Value) -> String {
    line["answer"].as_str().unwrap_or_default().to_owned()
}

/// One task answered "ok", with this timeout and any extra YAML lines.
fn task(dir: &Path, timeout_s: u32, extra: &str) -> PathBuf {
    write(
        dir,
        "tasks.yaml",
        &format!("- id: t\n  input: go\n  expected: ok\n  timeout_s: {timeout_s}\n{extra}"),
    )
}

/// Runs `python3 -c SCRIPT ARGS...` from the workspace root; its output and code.
fn python(script: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs proctor on a pseudo-terminal (its controlling terminal, as in a user's shell),
/// printing everything that appeared on the terminal. Input pushed into it is echoed,
/// so it shows in that output.
const ON_A_TERMINAL: &str = r#"
import os, pty, sys
pid, master = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
seen = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
"#;

#[test]
fn the_agent_has_no_terminal_to_push_input_into() {
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let tasks = task(dir.path(), 30, "");
    let out = dir.path().join("r.jsonl");
    let marker = "touch /tmp/injected-by-the-agent-6d1f";
    let agent = format!("injector=python3 {}", adversary("tty_injector.py"));
    let proctor = proctor_program();
    let (code, terminal, stderr) = python(
        &format!("import os; os.environ['INJECT'] = {marker:?}\n{ON_A_TERMINAL}"),
        &[
            proctor.to_str().unwrap(),
            "run",
            "--tasks",
            tasks.to_str().unwrap(),
            "--pass-env",
            "INJECT",
            "--agent",
            &agent,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let lines = results(&out);
    assert_eq!(lines.len(), 1, "{code} {terminal} {stderr}");
    assert_eq!(answer(&lines[0]), "nothing", "{mode}: {}", lines[0]);
    assert!(
        !terminal.contains(marker),
        "{mode}: input reached the terminal:\n{terminal}"
    );
}

/// A task with served tools, so that every attempt holds a `PROCTOR_MCP_TOKEN`.
const SERVED: &str = "  tools:\n    - name: get_order\n      input_schema: {type: object}\n      responses:\n        - result: {ok: true}\n";

#[test]
fn a_root_agent_reads_no_other_environment_and_changes_no_host_setting() {
    let contained = namespaces();
    let dir = tempfile::tempdir().unwrap();
    let tasks = task(dir.path(), 60, SERVED);
    let out = dir.path().join("r.jsonl");
    // Two attempts side by side, each looking for a second and a half.
    let output = run(proctor()
        .arg("run")
        .arg("--tasks")
        .arg(&tasks)
        .args(["--attempts", "2", "--jobs", "2", "--agent"])
        .arg(format!(
            "probe=python3 {} ESCAPE_CANARY 1.5",
            adversary("privilege_probe.py")
        ))
        .arg("--out")
        .arg(&out)
        .env("ESCAPE_CANARY", "canary-5e0b7c")
        .timeout(Duration::from_secs(120)));
    let lines = results(&out);
    assert_eq!(lines.len(), 2, "{}", output.stderr);
    let own_uts = std::fs::read_link("/proc/self/ns/uts").unwrap();
    for line in &lines {
        let report: Value = serde_json::from_str(&answer(line)).expect("a report");
        assert_eq!(
            report["canary"], false,
            "proctor's environment read: {report}"
        );
        assert_eq!(
            report["foreign_tokens"], 0,
            "another attempt's token: {report}"
        );
        // The host name stays the host's: refused, or set in a namespace of its own.
        let own_namespace = report["uts"] != own_uts.to_str().unwrap();
        assert!(
            report["hostname"] == "refused" || (contained && own_namespace),
            "{report}"
        );
        if !contained {
            // Not even the helper's environment (the attempt's own, but the helper
            // is not the agent's to read): no capability is left to read it with.
            assert_eq!(report["ancestors_read"], 0, "{report}");
        }
    }
}

/// Every process whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) && !is_zombie(pid) {
            found.push(pid);
        }
    }
    found
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
        .unwrap_or(true)
}

/// The processes whose parent is `parent`.
fn children_of(parent: i32) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        if rest.split_whitespace().nth(1) == Some(&parent.to_string()) {
            found.push(pid);
        }
    }
    found
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// proctor running `daemon_leaver.py`, once its daemon runs (the daemon's command
/// line holds `MARKER-daemon`, which no other process's does).
fn start_daemon_leaver(dir: &Path, marker: &str, timeout_s: u32) -> Child {
    let mut proctor = Command::new(proctor_program());
    proctor.current_dir(root());
    let leaver = PathBuf::from(adversary("daemon_leaver.py"));
    let agent = agent_line(&leaver, marker, false);
    start_daemon_leaver_with(proctor, agent, dir, marker, timeout_s)
}

/// [`start_daemon_leaver`] with `proctor` as the command that starts proctor, and
/// `agent` as the agent line.
/// The leaver's agent line; `ignoring_sigterm` starts it with SIGTERM ignored, so that
/// only a kill ends it.
fn agent_line(leaver: &Path, marker: &str, ignoring_sigterm: bool) -> String {
    match ignoring_sigterm {
        false => format!("leaver=python3 {} {marker} 120", leaver.display()),
        true => format!(
            "leaver=sh -c 'trap \"\" TERM; exec python3 \"$0\" {marker} 120' {}",
            leaver.display()
        ),
    }
}

fn start_daemon_leaver_with(
    mut proctor: Command,
    agent: String,
    dir: &Path,
    marker: &str,
    timeout_s: u32,
) -> Child {
    let tasks = task(dir, timeout_s, "");
    let child = proctor
        .arg("run")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--agent")
        .arg(agent)
        .arg("--out")
        .arg(dir.join("r.jsonl"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(30), || {
            !processes_with(&format!("{marker}-daemon")).is_empty()
        }),
        "the daemon never started"
    );
    child
}

/// Asserts that the daemon is gone within a few seconds; kills it if not.
fn assert_daemon_gone(marker: &str, what: &str) {
    let marker = &format!("{marker}-daemon");
    let gone = wait_until(Duration::from_secs(10), || {
        processes_with(marker).is_empty()
    });
    let left = processes_with(marker);
    for pid in &left {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    assert!(gone, "{what}: the agent's daemon outlived it: {left:?}");
}

fn finish(mut proctor: Child) {
    let ended = wait_until(Duration::from_secs(60), || {
        proctor.try_wait().unwrap().is_some()
    });
    if !ended {
        let _ = proctor.kill();
    }
    let _ = proctor.wait();
    assert!(ended, "proctor did not finish");
}

/// proctor's child for the attempt: the `__contain` helper, or bubblewrap.
fn attempt_process(proctor: &Child) -> Pid {
    let pid = proctor.id() as i32;
    let mut children = Vec::new();
    assert!(
        wait_until(Duration::from_secs(10), || {
            children = children_of(pid);
            !children.is_empty()
        }),
        "proctor has no child"
    );
    assert_eq!(children.len(), 1, "{children:?}");
    Pid::from_raw(children[0])
}

#[test]
fn nothing_outlives_a_killed_helper() {
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("daemon-marker-helper-{}", std::process::id());
    let proctor = start_daemon_leaver(dir.path(), &marker, 120);
    kill(attempt_process(&proctor), Signal::SIGKILL).unwrap();
    assert_daemon_gone(&marker, &format!("{mode}: helper killed"));
    finish(proctor);
}

#[test]
fn nothing_outlives_a_killed_proctor() {
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("daemon-marker-proctor-{}", std::process::id());
    let mut proctor = start_daemon_leaver(dir.path(), &marker, 120);
    proctor.kill().unwrap();
    proctor.wait().unwrap();
    assert_daemon_gone(&marker, &format!("{mode}: proctor killed"));
}

#[test]
fn a_stopped_helper_still_ends_with_the_timeout() {
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("daemon-marker-stopped-{}", std::process::id());
    let proctor = start_daemon_leaver(dir.path(), &marker, 4);
    kill(attempt_process(&proctor), Signal::SIGSTOP).unwrap();
    finish(proctor);
    assert_daemon_gone(&marker, &format!("{mode}: helper stopped"));
    assert_eq!(results(&dir.path().join("r.jsonl"))[0]["status"], "timeout");
}

#[test]
fn the_agent_starts_with_no_signal_blocked_and_background_jobs_work() {
    use nix::libc as libc_signal;
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let tasks = task(dir.path(), 60, "");
    let report = "printf '{\"status\":\"final\",\"answer\":\"%s %s\"}\\n'";
    // The shell's own status: /proc/self as the shell opens it (its $$ may be a PID of
    // its namespace, not of the host's /proc).
    let masks = "while read -r name value; do case $name in SigBlk:) b=$value;; SigIgn:) i=$value;; esac; done < /proc/self/status";
    let mask = write(dir.path(), "mask.sh", &format!("{masks}\n{report} $b $i\n"));
    let jobs = write(
        dir.path(),
        "jobs.sh",
        &format!("sleep 0.2 & wait\n{report} o k\n"),
    );
    let out = dir.path().join("r.jsonl");
    let output = run(proctor()
        .arg("run")
        .arg("--tasks")
        .arg(&tasks)
        .arg("--agent")
        .arg(format!("mask=sh {}", mask.display()))
        .arg("--agent")
        .arg(format!("jobs=sh {}", jobs.display()))
        .arg("--out")
        .arg(&out)
        .timeout(Duration::from_secs(120)));
    let lines = results(&out);
    assert_eq!(lines.len(), 2, "{}", output.stderr);
    // What a shell started here inherits, for comparison (proctor's parent may ignore some,
    // as a job started in the background ignores SIGINT): less SIGINT and SIGTERM, which
    // proctor handles, so that they are back to their defaults in whatever it starts.
    let plain = Command::new("sh")
        .args(["-c", &format!("{masks}; echo $i")])
        .output()
        .unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    let handled = (1u64 << (libc_signal::SIGINT - 1)) | (1u64 << (libc_signal::SIGTERM - 1));
    let plain = u64::from_str_radix(plain.trim(), 16).unwrap() & !handled;
    let plain = format!("{plain:016x}");
    for line in &lines {
        if line["label"] == "mask" {
            assert_eq!(
                answer(line),
                format!("0000000000000000 {plain}"),
                "{mode}: {line}"
            );
        } else {
            assert_eq!(answer(line), "o k", "{mode}: {line}");
            let ms = line["timings"]["duration_ms"].as_u64().unwrap();
            assert!(ms < 20_000, "{mode}: `wait` hung for {ms} ms");
        }
    }
}

/// Opens argv[1] as an inheritable descriptor, then becomes argv[2:].
const WITH_AN_OPEN_FILE: &str = "import os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\nos.set_inheritable(fd, True)\nos.execv(sys.argv[2], sys.argv[2:])\n";

#[test]
fn descriptors_proctors_parent_left_open_never_reach_the_agent() {
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let tasks = task(dir.path(), 60, "");
    let secret = "secret-in-an-open-file-2b8d";
    let file = write(dir.path(), "secret.txt", secret);
    let agent = format!("reader=python3 {} {secret}", adversary("fd_reader.py"));
    let proctor = proctor_program();
    for isolate in ["auto", "none"] {
        let out = dir.path().join(format!("{isolate}.jsonl"));
        let (code, _, stderr) = python(
            WITH_AN_OPEN_FILE,
            &[
                file.to_str().unwrap(),
                proctor.to_str().unwrap(),
                "run",
                "--tasks",
                tasks.to_str().unwrap(),
                "--isolate",
                isolate,
                "--agent",
                &agent,
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let lines = results(&out);
        assert_eq!(lines.len(), 1, "{code} {stderr}");
        assert!(
            answer(&lines[0]).starts_with("nothing"),
            "{mode}, --isolate {isolate}: {}",
            lines[0]
        );
    }
}

/// Every live process below `root`, from /proc.
fn descendants_of(root: i32) -> Vec<i32> {
    let mut found = vec![root];
    let mut index = 0;
    while index < found.len() {
        let below = children_of(found[index]);
        found.extend(below);
        index += 1;
    }
    found.remove(0);
    found
}

/// Asserts that none of `pids` and no process carrying `marker` lives one second after
/// proctor ended (`what` names the ending).
fn assert_nothing_left(pids: &[i32], marker: &str, what: &str) {
    std::thread::sleep(Duration::from_secs(1));
    let left: Vec<i32> = pids
        .iter()
        .copied()
        .filter(|pid| !is_zombie(*pid))
        .chain(processes_with(&format!("{marker}-daemon")))
        .collect();
    for pid in &left {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    assert!(
        left.is_empty(),
        "{what}: still running a second later: {left:?}"
    );
}

/// proctor on two tasks at once: `a` answers after `a_after` seconds, `b` leaves a
/// daemon and works on; returns proctor once the daemon runs, with its folder.
fn start_two(dir: &Path, marker: &str, a_after: u32, out: &str) -> Child {
    write(
        dir,
        "tasks.yaml",
        "- {id: a, input: go, expected: ok, timeout_s: 120}\n- {id: b, input: go, expected: ok, timeout_s: 120}\n",
    );
    let leaver = adversary("daemon_leaver.py");
    let agent = format!(
        "sh -c 'if [ \"$PROCTOR_TASK_ID\" = a ]; then sleep {a_after}; echo ok; else exec python3 \"$0\" {marker} 120; fi' {leaver}"
    );
    let child = Command::new(proctor_program())
        .current_dir(dir)
        .args(["run", "--tasks", "tasks.yaml", "--jobs", "2", "--out", out])
        .arg("--agent")
        .arg(agent)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr.txt")).unwrap())
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(30), || {
            !processes_with(&format!("{marker}-daemon")).is_empty()
        }),
        "the daemon never started: {}",
        std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default()
    );
    child
}

/// Waits up to `limit` for `proctor` to end; its exit code.
fn ended_within(proctor: &mut Child, limit: Duration) -> Option<i32> {
    let ended = wait_until(limit, || proctor.try_wait().unwrap().is_some());
    if !ended {
        let _ = proctor.kill();
        let _ = proctor.wait();
        return None;
    }
    proctor.wait().unwrap().code()
}

/// Nothing the attempts started (agents, daemons, helpers, bubblewrap) outlives proctor
/// by a second: killed with SIGKILL, stopped with SIGTERM, or stopped by a write error.
#[test]
fn nothing_outlives_proctor_by_a_second_however_it_ends() {
    let mode = mode();
    for ending in ["kill -9", "SIGTERM", "write error"] {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!(
            "daemon-marker-{}-{}",
            ending.replace(' ', ""),
            std::process::id()
        );
        let (a_after, out) = match ending {
            "write error" => (2, "/dev/full"),
            _ => (0, "r.jsonl"),
        };
        let mut proctor = start_two(dir.path(), &marker, a_after, out);
        let below = descendants_of(proctor.id() as i32);
        let what = format!("{mode}, {ending}");
        match ending {
            "kill -9" => {
                proctor.kill().unwrap();
                proctor.wait().unwrap();
            }
            "SIGTERM" => {
                kill(Pid::from_raw(proctor.id() as i32), Signal::SIGTERM).unwrap();
                let code = ended_within(&mut proctor, Duration::from_secs(5));
                assert_eq!(code, Some(130), "{what}");
                // Task a had answered: its line is kept.
                let kept = results(&dir.path().join("r.jsonl"));
                assert!(kept.iter().any(|l| l["task"] == "a"), "{what}: {kept:?}");
            }
            _ => {
                let code = ended_within(&mut proctor, Duration::from_secs(30));
                assert!(code.is_some_and(|c| c != 0), "{what}: {code:?}");
            }
        }
        assert_nothing_left(&below, &marker, &what);
    }
}

/// SIGTERM while a check is still grading: proctor does not wait for it, ends 130 with
/// the finished results kept, and the check's processes end with it.
#[test]
fn sigterm_during_a_long_check_ends_the_run_at_once() {
    let mode = mode();
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("check-marker-{}", std::process::id());
    write(
        dir.path(),
        "tasks.yaml",
        &format!(
            "- {{id: a, input: go, expected: ok}}\n- id: b\n  input: go\n  expected: ok\n  verify:\n    - {{command: \"sh -c 'sleep 60; echo {marker}'\", timeout_s: 120}}\n"
        ),
    );
    let mut proctor = Command::new(proctor_program())
        .current_dir(dir.path())
        .args([
            "run",
            "--tasks",
            "tasks.yaml",
            "--jobs",
            "1",
            "--out",
            "r.jsonl",
        ])
        .args(["--agent", "sh -c 'echo ok'"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(30), || !processes_with(&marker)
            .is_empty()),
        "{mode}: the check never started"
    );
    let below = descendants_of(proctor.id() as i32);
    kill(Pid::from_raw(proctor.id() as i32), Signal::SIGTERM).unwrap();
    let code = ended_within(&mut proctor, Duration::from_secs(5));
    assert_eq!(code, Some(130), "{mode}: proctor waited for the check");
    let kept = results(&dir.path().join("r.jsonl"));
    assert_eq!(kept.len(), 1, "{mode}: {kept:?}");
    assert_eq!(kept[0]["task"], "a");
    assert_nothing_left(&below, &marker, &format!("{mode}, SIGTERM during a check"));
}

/// As a user without privileges, in the fallback (no PID namespace, a subreaper): a
/// killed proctor's helper kills what its agent left at once, and a proctor stopped with
/// SIGTERM kills what it adopted before it exits.
#[test]
fn nothing_outlives_a_killed_unprivileged_proctor_by_a_second() {
    for ending in ["kill -9", "SIGTERM"] {
        unprivileged_ending(ending);
    }
}

fn unprivileged_ending(ending: &str) {
    let dir = crate::unprivileged::their_folder();
    let marker = format!(
        "daemon-marker-unprivileged-{}-{}",
        ending.replace(' ', ""),
        std::process::id()
    );
    let mut starter = crate::unprivileged::as_unprivileged(dir.path());
    starter
        .env("PROCTOR_BWRAP", "/nonexistent")
        .current_dir(dir.path());
    // Where the user can read it, wherever the checkout lies.
    let leaver = dir.path().join("daemon_leaver.py");
    std::fs::copy(adversary("daemon_leaver.py"), &leaver).unwrap();
    // Under SIGTERM, an agent that ignores it outlives the grace proctor waits for.
    let agent = agent_line(&leaver, &marker, ending == "SIGTERM");
    let mut proctor = start_daemon_leaver_with(starter, agent, dir.path(), &marker, 120);
    let below = descendants_of(proctor.id() as i32);
    if ending == "SIGTERM" {
        kill(Pid::from_raw(proctor.id() as i32), Signal::SIGTERM).unwrap();
        let code = ended_within(&mut proctor, Duration::from_secs(5));
        assert_eq!(code, Some(130), "fallback without privileges, {ending}");
    } else {
        proctor.kill().unwrap();
        proctor.wait().unwrap();
    }
    assert_nothing_left(
        &below,
        &marker,
        &format!("fallback without privileges, {ending}"),
    );
}
