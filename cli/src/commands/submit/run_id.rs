//! The run id every shard of one submission writes (docs/cluster.md): made once at submit
//! and written into the array script, so a requeued or rerun shard keeps it.

use sha2::{Digest, Sha256};

/// `slurm-<UTC yyyymmddThhmmss>-<6 hex>`: sorts by time, and two submissions in the same
/// second (of one user or two) still differ.
pub fn new_run_id(submit_dir: &str) -> String {
    let now = jiff::Timestamp::now();
    let mut hasher = Sha256::new();
    hasher.update(now.as_nanosecond().to_le_bytes());
    hasher.update(std::process::id().to_le_bytes());
    hasher.update(submit_dir.as_bytes());
    let digest = hasher.finalize();
    let hex: String = digest[..3].iter().map(|b| format!("{b:02x}")).collect();
    format!("slurm-{}-{hex}", now.strftime("%Y%m%dT%H%M%S"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_have_the_time_and_differ() {
        let (a, b) = (new_run_id("/a"), new_run_id("/a"));
        assert_ne!(a, b);
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(parts[0], "slurm");
        assert_eq!(parts[1].len(), "20261207T181500".len());
        assert_eq!(parts[2].len(), 6);
    }
}
