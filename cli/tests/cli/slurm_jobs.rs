//! Slurm for the cluster tests: whether one answers here (`scripts/slurm-up` starts a
//! one-node Slurm, docs/testing.md), submitting a job script, waiting for a job with a bound,
//! and reading how its tasks ended from `scontrol` (the node keeps no accounting: `sacct`
//! cannot be asked).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// True when `sbatch` is on PATH and the controller answers. Without them a test says it was
/// skipped and why, unless `PROCTOR_REQUIRE_SLURM` is set (as in CI, which starts one with
/// `scripts/slurm-up`): then it fails.
pub fn slurm() -> bool {
    let why = if !which("sbatch") {
        "no Slurm here (no sbatch on PATH); scripts/slurm-up installs and starts a one-node Slurm as root".to_owned()
    } else {
        match Command::new("sinfo").args(["-h", "-o", "%T"]).output() {
            Ok(out) if out.status.success() => return true,
            Ok(out) => format!(
                "Slurm does not answer here (sinfo: {}); start it as root with scripts/slurm-up",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => format!("sbatch is here but sinfo cannot run ({e}); install slurm-client"),
        }
    };
    assert!(
        std::env::var_os("PROCTOR_REQUIRE_SLURM").is_none(),
        "PROCTOR_REQUIRE_SLURM is set, but {why}"
    );
    crate::skips::skip(&why);
    false
}

fn which(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| dir.join(program).is_file())
}

/// Quotes a word for `sh`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A job script that runs `command` (its words quoted) after the `before` lines, with `exec`
/// so that the signals Slurm sends reach proctor itself.
pub fn script(before: &[&str], command: &[String], after: &str) -> String {
    let words: Vec<String> = command.iter().map(|w| quote(w)).collect();
    format!(
        "#!/bin/sh\n{}exec {} {after}\n",
        before.iter().map(|l| format!("{l}\n")).collect::<String>(),
        words.join(" ")
    )
}

/// Options every test job gets: a name to find it by, little memory (the node's default
/// is all of it, which would run one job at a time), a time limit that ends a runaway test
/// job, its log in the test folder.
fn common_options(dir: &Path) -> Vec<String> {
    vec![
        "--parsable".to_owned(),
        "--job-name=proctor-test".to_owned(),
        "--mem=500M".to_owned(),
        "--time=10".to_owned(),
        format!("--chdir={}", dir.display()),
        format!("--output={}/slurm-%A_%a.log", dir.display()),
    ]
}

/// Writes `text` to `dir/name` and submits it with `options` (which may override the common
/// ones: the last one given wins) and `env` added to this process's environment, which
/// `sbatch` hands to the job. Returns the job.
pub fn sbatch(dir: &Path, name: &str, text: &str, options: &[&str], env: &[(&str, &str)]) -> Job {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::new("sbatch")
        .args(common_options(dir))
        .args(options)
        .arg(&path)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .expect("sbatch");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "sbatch {name}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --parsable prints `ID` or `ID;CLUSTER`.
    let id = stdout.trim().split(';').next().unwrap().to_owned();
    assert!(
        id.parse::<u64>().is_ok(),
        "sbatch printed no job id: {stdout:?}"
    );
    Job(id)
}

/// A job a test submitted, by its id. A test that fails while it is still queued cancels it:
/// it would go on writing into a folder that is being removed.
pub struct Job(pub String);

impl std::ops::Deref for Job {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if std::thread::panicking() && queued(&self.0) {
            let _ = Command::new("scancel").arg(&self.0).status();
        }
    }
}

/// True while `job` (a job, an array or one of its tasks, `ID_INDEX`) is pending, running
/// or completing.
pub fn queued(job: &str) -> bool {
    let out = Command::new("squeue")
        .args(["-h", "-o", "%i", "-j", job])
        .output()
        .expect("squeue");
    if !out.status.success() {
        // Once the controller forgets the job squeue refuses its id: it is not queued. Any
        // other failure (a controller slow to answer) says nothing: ask again.
        return !String::from_utf8_lossy(&out.stderr).contains("Invalid job id");
    }
    !String::from_utf8_lossy(&out.stdout).trim().is_empty()
}

/// Waits until `done` holds, at most `limit`; fails naming `what` with the job's state and
/// the logs in `dir`.
pub fn wait_until(
    what: &str,
    limit: Duration,
    job: &str,
    dir: &Path,
    mut done: impl FnMut() -> bool,
) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < limit,
            "waited {limit:?} for {what}, in vain\n{}",
            diagnostics(job, dir)
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Waits until `job` has left the queue, at most `limit`.
pub fn wait_gone(job: &str, limit: Duration, dir: &Path) {
    wait_until(&format!("job {job} to end"), limit, job, dir, || {
        !queued(job)
    });
}

/// One record of `scontrol show job`: its `Key=Value` fields.
pub type Record = BTreeMap<String, String>;

/// How `job` stands: one record per job, or per task of an array whose tasks have started.
/// A finished job is kept there some minutes (MinJobAge).
pub fn records(job: &str) -> Vec<Record> {
    let out = Command::new("scontrol")
        .args(["-o", "show", "job", job])
        .output()
        .expect("scontrol");
    assert!(
        out.status.success(),
        "scontrol show job {job}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            line.split_whitespace()
                .filter_map(|field| field.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// `(JobState, ExitCode)` of each task of an array, by task index.
pub fn task_ends(array: &str) -> BTreeMap<String, (String, String)> {
    records(array)
        .into_iter()
        .map(|r| {
            let index = r.get("ArrayTaskId").cloned().unwrap_or_default();
            (index, (r["JobState"].clone(), r["ExitCode"].clone()))
        })
        .collect()
}

/// What to show when a job did not do what a test expected: `scontrol show job` and every
/// log in the test folder.
pub fn diagnostics(job: &str, dir: &Path) -> String {
    let shown = Command::new("scontrol")
        .args(["show", "job", job])
        .output()
        .map(|o| {
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        })
        .unwrap_or_else(|e| format!("scontrol: {e}"));
    let mut text = format!("scontrol show job {job}:\n{shown}");
    let mut logs = files_below(dir);
    logs.retain(|p| p.extension().is_some_and(|e| e == "log" || e == "out"));
    logs.sort();
    for log in logs {
        let body = std::fs::read_to_string(&log).unwrap_or_default();
        text += &format!("--- {}:\n{body}", log.display());
    }
    text
}

/// The files in `dir` and in the folders directly in it.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let entries = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let mut files = Vec::new();
    for path in entries(dir) {
        match path.is_dir() {
            true => files.extend(entries(&path).into_iter().filter(|p| p.is_file())),
            false => files.push(path),
        }
    }
    files
}

/// The cluster's name, as a Slurm run id names it (`slurm:CLUSTER:ARRAY_JOB_ID`).
pub fn cluster_name() -> String {
    let out = Command::new("scontrol")
        .args(["show", "config"])
        .output()
        .expect("scontrol");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "ClusterName").then(|| value.trim().to_owned())
        })
        .expect("scontrol show config names no ClusterName")
}
