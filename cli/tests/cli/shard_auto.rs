//! `proctor run --shard auto` in a Kubernetes Indexed Job: its pods (`JOB_COMPLETION_INDEX`
//! with `--shard-count`, the run named by `JOB_NAME`) merge to what one unsharded run
//! reports (docs/cluster.md). What `--shard auto` refuses is in sharding.rs.

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
