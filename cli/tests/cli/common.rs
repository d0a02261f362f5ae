//! Helpers shared by the CLI tests.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The judge for the fixture rubrics, answered from the recorded cassettes (offline).
pub const JUDGE: [&str; 4] = [
    "--judge-model",
    "claude-sonnet-4-6",
    "--cassette",
    "fixtures/cassettes/run",
];

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// `proctor` run from the workspace root, so fixture paths in output are stable.
pub fn proctor() -> Command {
    let mut cmd = Command::cargo_bin("proctor").unwrap();
    cmd.current_dir(root());
    cmd
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// `proctor grade` of the outcomes in `log` against `tasks`; add what else a test needs.
pub fn grade_log(tasks: &Path, log: &Path) -> Command {
    let mut cmd = proctor();
    cmd.arg("grade")
        .arg("--tasks")
        .arg(tasks)
        .arg("--outcomes")
        .arg(log);
    cmd
}

/// `proctor grade` of the outcomes in `log` against `tasks`, its end-state checks run on
/// `workdir` (kept sandboxes, or one folder), result lines to `out`; add what else a test
/// needs.
pub fn grade_kept(tasks: &Path, log: &Path, workdir: &Path, out: &Path) -> Command {
    let mut cmd = grade_log(tasks, log);
    cmd.arg("--workdir").arg(workdir).arg("--out").arg(out);
    cmd
}

/// `proctor judge` of the results in `results`, their sandboxes kept under `keep`; add the
/// judge's options.
pub fn judge_kept(tasks: &Path, results: &Path, keep: &Path) -> Command {
    let mut cmd = proctor();
    cmd.arg("judge")
        .arg("--tasks")
        .arg(tasks)
        .arg("--results")
        .arg(results)
        .arg("--keep")
        .arg(keep);
    cmd
}

/// Writes a file into a test folder.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// True when `proctor run --isolate auto` would use namespaces here: bubblewrap (the one
/// `PROCTOR_BWRAP` names, else `bwrap` on PATH) can make them. CI runs the suite twice,
/// once with `PROCTOR_BWRAP` naming a missing program, so every containment test runs in
/// both modes; each says on stderr which one it checks. `PROCTOR_REQUIRE_NAMESPACES`
/// (set by CI's first pass) turns missing namespaces into a failure.
pub fn namespaces() -> bool {
    let program = std::env::var_os("PROCTOR_BWRAP")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "bwrap".into());
    let ok = std::process::Command::new(&program)
        .args([
            "--unshare-user",
            "--unshare-pid",
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "true",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok || std::env::var_os("PROCTOR_REQUIRE_NAMESPACES").is_none(),
        "PROCTOR_REQUIRE_NAMESPACES is set, but {} cannot make namespaces here",
        program.to_string_lossy()
    );
    match ok {
        true => eprintln!("NOTE: checking namespaces (bubblewrap)"),
        false => eprintln!(
            "NOTE: no namespaces here ({} missing or refused): checking the fallback",
            program.to_string_lossy()
        ),
    }
    ok
}

/// Whether the fallback's warning says this kernel has no landlock, so only the warning and
/// the subreaper can be checked. `PROCTOR_REQUIRE_LANDLOCK` (set by CI) turns a kernel
/// without landlock into a failure.
pub fn no_landlock(warning: &str) -> bool {
    let missing = warning.contains("no landlock");
    assert!(
        !missing || std::env::var_os("PROCTOR_REQUIRE_LANDLOCK").is_none(),
        "PROCTOR_REQUIRE_LANDLOCK is set, but this kernel has no landlock: {warning}"
    );
    missing
}

/// The result lines of a results file (it must exist), parsed.
pub fn results(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A page's embedded summary without the display strings (`shown`) it adds beside each
/// figure: the rest is the JSON `--format json` prints.
pub fn without_shown(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(fields) => fields
            .iter()
            .filter(|(key, _)| key.as_str() != "shown")
            .map(|(key, v)| (key.clone(), without_shown(v)))
            .collect(),
        serde_json::Value::Array(items) => items.iter().map(without_shown).collect(),
        other => other.clone(),
    }
}
