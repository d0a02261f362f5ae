//! Which attempts a run makes: tasks filtered by `--only` and `--shard`, times
//! attempts, times agents, minus those `--resume` finds already done.

use proctor_core::task::Task;
use sha2::{Digest, Sha256};
use std::collections::HashSet;

/// One attempt to run: indexes into the agent and task lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    pub agent: usize,
    pub task: usize,
    pub attempt: u64,
}

/// `--shard I/N`: the tasks whose stable hash falls in shard I (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("{text:?} is not I/N (e.g. 2/4)"))?;
        let index: u64 = i
            .trim()
            .parse()
            .map_err(|_| format!("shard index {i:?} is not a number"))?;
        let count: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("shard count {n:?} is not a number"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard {index}/{count}: I must be between 1 and N"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// All attempts of a task stay in one shard, whatever the machine.
    pub fn holds(&self, task_id: &str) -> bool {
        stable_hash(task_id.as_bytes()) % self.count == self.index - 1
    }
}

/// The first 8 bytes of SHA-256: stable across machines, versions and platforms.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let digest = Sha256::digest(bytes);
    u64::from_le_bytes(digest[..8].try_into().expect("sha256 has 32 bytes"))
}

/// The seed of one attempt: a hash of the run seed, the task and the attempt,
/// kept below 2^53 so every JSON reader holds it exactly.
pub fn attempt_seed(seed: u64, task: &str, attempt: u64) -> u64 {
    let mut bytes = Vec::with_capacity(task.len() + 17);
    bytes.extend_from_slice(&seed.to_le_bytes());
    bytes.extend_from_slice(task.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(&attempt.to_le_bytes());
    stable_hash(&bytes) & ((1 << 53) - 1)
}

/// True when the task's id, its base task's id (so `--only ID` takes a task with its
/// variants) or one of its tags matches a pattern (or there are none).
pub fn selected(task: &Task, only: &globset::GlobSet) -> bool {
    only.is_empty()
        || only.is_match(&task.id)
        || only.is_match(task.base_id())
        || task.tags.iter().any(|t| only.is_match(t))
}

/// Attempt 0 of every task first, so early results cover the whole suite.
pub fn plan(
    tasks: &[usize],
    agents: usize,
    attempts: u64,
    done: &HashSet<(usize, usize, u64)>,
) -> Vec<Planned> {
    let mut planned = Vec::new();
    for attempt in 0..attempts {
        for &task in tasks {
            for agent in 0..agents {
                if !done.contains(&(agent, task, attempt)) {
                    planned.push(Planned {
                        agent,
                        task,
                        attempt,
                    });
                }
            }
        }
    }
    planned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parsing() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "x/2", "3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_partition_the_tasks() {
        let ids: Vec<String> = (0..100).map(|i| format!("task_{i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|i| Shard { index: i, count: 3 }).collect();
        for id in &ids {
            assert_eq!(shards.iter().filter(|s| s.holds(id)).count(), 1);
        }
        assert!(shards.iter().all(|s| ids.iter().any(|id| s.holds(id))));
    }

    #[test]
    fn seeds_are_stable_and_distinct() {
        assert_eq!(attempt_seed(7, "a", 1), attempt_seed(7, "a", 1));
        assert_ne!(attempt_seed(7, "a", 1), attempt_seed(7, "a", 2));
        assert_ne!(attempt_seed(7, "a", 1), attempt_seed(8, "a", 1));
        assert!(attempt_seed(0, "a", 0) < 1 << 53);
    }

    #[test]
    fn resume_skips_done_attempts() {
        let done: HashSet<_> = [(0, 1, 0)].into_iter().collect();
        let p = plan(&[0, 1], 1, 2, &done);
        let keys: Vec<_> = p.iter().map(|p| (p.task, p.attempt)).collect();
        assert_eq!(keys, vec![(0, 0), (0, 1), (1, 1)]);
    }
}
