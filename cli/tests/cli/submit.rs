//! `proctor submit slurm` (docs/cluster.md): the scripts it writes, what it refuses, and
//! how it submits, with a fake `sbatch` that records its arguments.

use crate::common::{proctor, root, run, write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const TASKS: &str = "fixtures/run/refunds.yaml";

/// `text` with the paths that differ between machines named: proctor's binary, the
/// workspace (the folder submit runs in) and the results' folder.
fn stable(text: &str, out_dir: &Path) -> String {
    let proctor = assert_cmd::cargo::cargo_bin("proctor");
    text.replace(proctor.to_str().unwrap(), "[PROCTOR]")
        .replace(out_dir.to_str().unwrap(), "[OUT]")
        .replace(root().to_str().unwrap(), "[ROOT]")
}

fn submit(out_dir: &Path, options: &[&str], run_args: &[&str]) -> crate::common::Output {
    let out = out_dir.join("r.jsonl");
    run(proctor()
        .args(["submit", "slurm"])
        .args(options)
        .arg("--")
        .args(run_args)
        .arg("--out")
        .arg(out))
}

#[test]
fn submit_dry_run_prints_both_scripts_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let o = submit(
        dir.path(),
        &["--shards", "3", "--sbatch=--time=1:00:00", "--dry-run"],
        &[
            "--tasks",
            TASKS,
            "--agent",
            "python3 fixtures/agents/refund_agent.py --note \"it's $HOME\"",
            "--attempts",
            "2",
            "--jobs",
            "2",
            "--max-memory",
            "512M",
            "--variants",
            "none",
            "--run-id",
            "nightly-7",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    insta::assert_snapshot!(stable(&o.stdout, dir.path()));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn submit_refuses_run_args_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let agent = ["--agent", "python3 fixtures/agents/refund_agent.py"];
    let with = |extra: &[&'static str]| [&["--tasks", TASKS][..], &agent, extra].concat();
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        ("no --tasks", vec![], agent.to_vec()),
        ("a given --shard", vec![], with(&["--shard", "1/2"])),
        ("a given --resume", vec![], with(&["--resume"])),
        ("a typo", vec![], with(&["--atempts", "3"])),
        (
            "the word run first",
            vec![],
            [&["run"][..], &with(&[])].concat(),
        ),
        ("a bad --run-id", vec![], with(&["--run-id", "two words"])),
        (
            "an --sbatch value without --",
            vec!["--sbatch", "time=1:00:00"],
            with(&[]),
        ),
    ];
    let mut said = String::new();
    for (case, options, run_args) in cases {
        let o = submit(
            dir.path(),
            &[&["--shards", "2"][..], &options].concat(),
            &run_args,
        );
        said.push_str(&format!("{case}: exit {}\n{}\n", o.code, o.stderr));
    }
    // Without --out: the helper always adds one.
    let o = run(proctor()
        .args(["submit", "slurm", "--shards", "2", "--"])
        .args(with(&[])));
    said.push_str(&format!("no --out: exit {}\n{}\n", o.code, o.stderr));
    insta::assert_snapshot!(stable(&said, dir.path()));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A folder holding an `sbatch` that appends its arguments to `calls` and prints job ids
/// 41, 42, ... (or fails, saying so, with `fail`).
fn fake_sbatch(dir: &Path, fail: bool) -> std::path::PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let body = match fail {
        false => {
            "printf '%s\\n' \"$*\" >> \"$FAKE_SBATCH_CALLS\"\n\
                  echo $((40 + $(wc -l < \"$FAKE_SBATCH_CALLS\")))\n"
        }
        true => "echo 'sbatch: error: invalid partition specified: gpu' >&2\nexit 1\n",
    };
    let sbatch = write(&bin, "sbatch", &format!("#!/bin/sh\n{body}"));
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn with_path(bin: &Path) -> std::ffi::OsString {
    let mut path = bin.as_os_str().to_owned();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

#[test]
fn submit_writes_the_scripts_and_submits_the_merge_after_the_array() {
    let dir = tempfile::tempdir().unwrap();
    let bin = fake_sbatch(dir.path(), false);
    let calls = dir.path().join("calls");
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let o = run(proctor()
        .env("PATH", with_path(&bin))
        .env("FAKE_SBATCH_CALLS", &calls)
        .args(["submit", "slurm", "--shards", "2", "--"])
        .args([
            "--tasks",
            TASKS,
            "--agent",
            "python3 a.py",
            "--run-id",
            "r1",
        ])
        .arg("--out")
        .arg(results.join("r.jsonl")));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let jobs = results.join("r.slurm");
    for script in ["shards.sbatch", "merge.sbatch"] {
        let mode = std::fs::metadata(jobs.join(script))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755, "{script}");
    }
    let shards = std::fs::read_to_string(jobs.join("shards.sbatch")).unwrap();
    assert!(shards.contains("#SBATCH --array=1-2\n"), "{shards}");
    assert!(shards.contains("\nrun_id=r1\n"), "{shards}");
    assert!(
        shards.contains("--shard \"$shard/2\" --run-id \"$run_id\" --resume\n"),
        "{shards}"
    );
    let merge = std::fs::read_to_string(jobs.join("merge.sbatch")).unwrap();
    assert!(merge.contains(" merge "), "{merge}");
    let calls = std::fs::read_to_string(&calls).unwrap();
    let (shards_path, merge_path) = (jobs.join("shards.sbatch"), jobs.join("merge.sbatch"));
    assert_eq!(
        calls,
        format!(
            "--parsable {}\n--parsable --dependency=afterany:41 {}\n",
            shards_path.display(),
            merge_path.display()
        )
    );
    assert!(
        o.stdout
            .starts_with("submitted shards 1-2 as job 41 and their merge as job 42"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("squeue -j 41,42\n"), "{}", o.stdout);
    assert!(
        o.stdout
            .contains(&format!("sbatch --array=I {}\n", shards_path.display())),
        "{}",
        o.stdout
    );
}

#[test]
fn submit_quotes_sbatchs_error_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let bin = fake_sbatch(dir.path(), true);
    let o = run(proctor()
        .env("PATH", with_path(&bin))
        .args(["submit", "slurm", "--shards", "2", "--"])
        .args(["--tasks", TASKS, "--agent", "python3 a.py"])
        .arg("--out")
        .arg(dir.path().join("r.jsonl")));
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("sbatch: error: invalid partition specified: gpu"),
        "{}",
        o.stderr
    );
}

#[test]
fn submit_runs_the_merge_script_that_names_shards_with_no_file() {
    // The merge script itself, run by sh as Slurm would, before any shard wrote a file.
    let dir = tempfile::tempdir().unwrap();
    let bin = fake_sbatch(dir.path(), false);
    let o = run(proctor()
        .env("PATH", with_path(&bin))
        .env("FAKE_SBATCH_CALLS", dir.path().join("calls"))
        .args(["submit", "slurm", "--shards", "2", "--"])
        .args(["--tasks", TASKS, "--agent", "python3 a.py"])
        .arg("--out")
        .arg(dir.path().join("r.jsonl")));
    assert_eq!(o.code, 0, "{}", o.stderr);
    std::fs::write(dir.path().join("r.shard-1-of-2.jsonl"), "").unwrap();
    let merge = dir.path().join("r.slurm/merge.sbatch");
    let o = run(assert_cmd::Command::new("sh")
        .arg(&merge)
        .current_dir(root()));
    assert_eq!(o.code, 1, "{}", o.stderr);
    let rerun = format!(
        "shard 2/2 wrote no results; run it again with: sbatch --array=2 {}\n",
        dir.path().join("r.slurm/shards.sbatch").display()
    );
    assert!(o.stderr.starts_with(&rerun), "{}", o.stderr);
    assert!(!dir.path().join("r.jsonl").exists());
}
