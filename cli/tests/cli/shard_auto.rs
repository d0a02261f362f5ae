//! `proctor run --shard auto` outside Slurm: a Kubernetes indexed job's pods
//! (`JOB_COMPLETION_INDEX` with `--shard-count`) merge to what one unsharded run reports;
//! with no scheduler's variables, or those of one Slurm task resubmitted alone, it refuses
//! to guess (exit 2) (docs/cluster.md).

use crate::cluster_suite::{
    SHARDS, SLEEP, assert_lines_of, assert_merged_equals_unsharded, local_proctor, run_args,
    whole_lines, work_dir,
};
use crate::common::{Output, run};
use std::path::Path;

/// `proctor run` of the suite with `--shard auto`, the scheduler's variables `env`, into `out`.
fn run_auto(extra: &[&str], env: &[(&str, &str)], out: &Path) -> Output {
    run(local_proctor()
        .args(run_args())
        .args(["--shard", "auto"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .envs(env.iter().copied())
        .env_remove(SLEEP))
}

#[test]
fn kubernetes_indexed_pods_merge_to_the_unsharded_report() {
    let dir = work_dir("kubernetes");
    let dir = dir.path();
    let mut shards = Vec::new();
    for index in 0..SHARDS {
        let out = dir.join(format!("pod-{index}.jsonl"));
        let env = [
            ("JOB_COMPLETION_INDEX", index.to_string()),
            ("JOB_NAME", "eval-1".to_owned()),
        ];
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let output = run_auto(&["--shard-count", "4"], &env, &out);
        assert_eq!(output.code, 0, "pod {index}: {}", output.stderr);
        let lines = whole_lines(&out);
        assert_eq!(lines.len(), 10, "pod {index}");
        assert_lines_of(&lines, &format!("{}/{SHARDS}", index + 1), "k8s:eval-1");
        shards.push(out);
    }
    assert_merged_equals_unsharded(&shards, dir);
}

#[test]
fn shard_auto_outside_a_scheduler_names_what_it_looked_for() {
    let dir = work_dir("no-scheduler");
    let out = dir.path().join("r.jsonl");
    let output = run_auto(&[], &[], &out);
    assert_eq!(output.code, 2, "{}", output.stderr);
    for variable in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] {
        assert!(output.stderr.contains(variable), "{}", output.stderr);
    }
    assert_eq!(crate::cluster_suite::line_count(&out), 0, "an attempt ran");
}

/// One task of an array submitted again alone (`sbatch --array=2`) sees an array of one:
/// taken as shard 1 of 1 it would run every attempt again, so it is refused.
#[test]
fn shard_auto_refuses_one_array_task_resubmitted_alone() {
    let dir = work_dir("resubmitted");
    let out = dir.path().join("r.jsonl");
    let env = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_MIN", "2"),
        ("SLURM_ARRAY_TASK_MAX", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "1"),
        ("SLURM_ARRAY_JOB_ID", "41"),
        ("SLURM_CLUSTER_NAME", "ci"),
    ];
    let output = run_auto(&[], &env, &out);
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("SLURM_ARRAY_TASK"),
        "{}",
        output.stderr
    );
    assert_eq!(crate::cluster_suite::line_count(&out), 0, "an attempt ran");
}
