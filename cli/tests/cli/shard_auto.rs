//! `proctor run --shard auto` in a Kubernetes Indexed Job: its pods (`JOB_COMPLETION_INDEX`
//! with `--shard-count`, the run named by `JOB_NAME`) merge to what one unsharded run
//! reports (docs/cluster.md). What `--shard auto` refuses is in sharding.rs.

use crate::cluster_suite::{
    SHARDS, SLEEP, assert_lines_of, assert_merged_equals_unsharded, local_proctor, run_args,
    unsharded, whole_lines, work_dir,
};
use crate::common::{Output, run};
use std::path::{Path, PathBuf};

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

/// Pod `index` of the Indexed Job `eval-1`: its shard's results, in `dir`.
fn pod(index: usize, dir: &Path) -> PathBuf {
    let out = dir.join(format!("pod-{index}.jsonl"));
    let index_text = index.to_string();
    let env = [
        ("JOB_COMPLETION_INDEX", index_text.as_str()),
        ("JOB_NAME", "eval-1"),
    ];
    let output = run_auto(&["--shard-count", "4"], &env, &out);
    assert_eq!(output.code, 0, "pod {index}: {}", output.stderr);
    let lines = whole_lines(&out);
    assert_eq!(lines.len(), 10, "pod {index}");
    assert_lines_of(&lines, &format!("{}/{SHARDS}", index + 1), "k8s:eval-1");
    out
}

#[test]
fn kubernetes_indexed_pods_merge_to_the_unsharded_report() {
    let dir = work_dir("kubernetes");
    let dir = dir.path();
    // The pods run at once, as a cluster runs them, and beside the unsharded run.
    let shards: Vec<PathBuf> = std::thread::scope(|scope| {
        let pods: Vec<_> = (0..SHARDS)
            .map(|index| scope.spawn(move || pod(index, dir)))
            .collect();
        unsharded();
        pods.into_iter().map(|p| p.join().unwrap()).collect()
    });
    assert_merged_equals_unsharded(&shards, dir);
}
