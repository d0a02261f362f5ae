//! The CPUs and memory a shard asks Slurm for, read from RUN-ARGS (docs/cluster.md).

/// Memory for proctor itself beside its attempts: its threads, the result lines it holds
/// and the judge's requests are well under this.
pub const PROCTOR_MEMORY: u64 = 256 << 20;

/// `#SBATCH` options of one shard: `--cpus-per-task` from `--jobs J` (attempts at once),
/// and `--mem` from `--max-memory SIZE` per attempt, J × SIZE plus [`PROCTOR_MEMORY`].
/// Without `--jobs` nothing is asked for: proctor runs as many attempts as the CPUs Slurm
/// gives it, and how many that is is the cluster's default.
pub fn shard_resources(jobs: Option<u64>, max_memory: Option<u64>) -> Vec<String> {
    let Some(jobs) = jobs else {
        return Vec::new();
    };
    let mut options = vec![format!("--cpus-per-task={jobs}")];
    if let Some(per_attempt) = max_memory {
        let bytes = per_attempt
            .saturating_mul(jobs)
            .saturating_add(PROCTOR_MEMORY);
        // Slurm counts --mem in mebibytes by default; round up so nothing is cut.
        options.push(format!("--mem={}M", bytes.div_ceil(1 << 20)));
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_jobs_cpus_and_jobs_times_the_memory_plus_proctors_own() {
        assert_eq!(
            shard_resources(Some(4), Some(1 << 30)),
            ["--cpus-per-task=4", "--mem=4352M"]
        );
        assert_eq!(
            shard_resources(Some(2), Some(1_000_000)),
            ["--cpus-per-task=2", "--mem=258M"]
        );
        assert_eq!(shard_resources(Some(3), None), ["--cpus-per-task=3"]);
        assert!(shard_resources(None, Some(1 << 30)).is_empty());
    }
}
