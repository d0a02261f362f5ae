//! Which attempts a run makes: tasks filtered by `--only`, times attempts, times agents,
//! dealt among `--shard`s, minus those `--resume` finds already done.

use proctor_core::task::Task;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// One attempt to run: indexes into the agent and task lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    pub agent: usize,
    pub task: usize,
    pub attempt: u64,
}

/// `--shard I/N`: shard I (1-based) of N, dealt every N-th group of attempts
/// ([`deal`]).
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

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The attempts of shard `shard` among `all` (the whole run's plan, in its order).
///
/// Attempts are dealt in groups: one agent's attempt number `a` of a base task and of
/// its variants, so each shard holds a variant's attempt beside its base attempt (the
/// pairs the by-variant figures compare). Group `j`, counted in the order of the plan,
/// goes to shard `j mod N + 1`: shard sizes differ by at most one group (one attempt
/// when the suite has no variants), and when there are fewer groups than shards the
/// highest shards are empty. The dealing depends only on the plan, never on `--resume`
/// or the machine, so every shard of a run deals alike (docs/cluster.md).
pub fn deal<'a>(
    all: Vec<Planned>,
    shard: Shard,
    base_of: impl Fn(usize) -> &'a str,
) -> Vec<Planned> {
    let mut groups: HashMap<(usize, &str, u64), u64> = HashMap::new();
    all.into_iter()
        .filter(|p| {
            let next = groups.len() as u64;
            let group = *groups
                .entry((p.agent, base_of(p.task), p.attempt))
                .or_insert(next);
            group % shard.count == shard.index - 1
        })
        .collect()
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

/// Every attempt of the run, attempt 0 of every task first, so early results cover the
/// whole suite.
pub fn plan(tasks: &[usize], agents: usize, attempts: u64) -> Vec<Planned> {
    let mut planned = Vec::new();
    for attempt in 0..attempts {
        for &task in tasks {
            for agent in 0..agents {
                planned.push(Planned {
                    agent,
                    task,
                    attempt,
                });
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

    /// The base task of each task id (`base@variant`).
    fn bases<'a>(ids: &'a [String]) -> impl Fn(usize) -> &'a str {
        |task| ids[task].split('@').next().unwrap()
    }

    #[test]
    fn shards_partition_the_attempts_evenly() {
        // 100 one-attempt tasks in 4 shards: 25 each, whatever their ids.
        let ids: Vec<String> = (0..100).map(|i| format!("task_{i}")).collect();
        let tasks: Vec<usize> = (0..100).collect();
        let all = plan(&tasks, 1, 1);
        let mut seen = Vec::new();
        for index in 1..=4 {
            let shard = deal(all.clone(), Shard { index, count: 4 }, bases(&ids));
            assert_eq!(shard.len(), 25, "shard {index}/4");
            seen.extend(shard);
        }
        seen.sort_by_key(|p| (p.task, p.attempt));
        assert_eq!(seen, all);
        // 10 tasks of 4 attempts in 4 shards: 10 each; 7 tasks of 3: 6, 5, 5, 5.
        let sizes = |tasks: usize, attempts: u64| -> Vec<usize> {
            let all = plan(&(0..tasks).collect::<Vec<_>>(), 1, attempts);
            (1..=4)
                .map(|index| deal(all.clone(), Shard { index, count: 4 }, bases(&ids)).len())
                .collect()
        };
        assert_eq!(sizes(10, 4), [10, 10, 10, 10]);
        assert_eq!(sizes(7, 3), [6, 5, 5, 5]);
        // Fewer attempts than shards: the highest shards are empty.
        assert_eq!(sizes(2, 1), [1, 1, 0, 0]);
    }

    #[test]
    fn a_variant_attempt_is_dealt_with_its_base_attempt() {
        let ids: Vec<String> = ["a", "a@pushy", "b", "b@pushy", "c"]
            .map(String::from)
            .to_vec();
        let all = plan(&[0, 1, 2, 3, 4], 2, 3);
        for index in 1..=2 {
            let shard = deal(all.clone(), Shard { index, count: 2 }, bases(&ids));
            for p in &shard {
                let base = ids[p.task].split('@').next().unwrap();
                let partners = all
                    .iter()
                    .filter(|q| q.agent == p.agent && q.attempt == p.attempt)
                    .filter(|q| ids[q.task].split('@').next().unwrap() == base);
                for q in partners {
                    assert!(shard.contains(q), "{q:?} is not with {p:?}");
                }
            }
        }
    }

    #[test]
    fn seeds_are_stable_and_distinct() {
        assert_eq!(attempt_seed(7, "a", 1), attempt_seed(7, "a", 1));
        assert_ne!(attempt_seed(7, "a", 1), attempt_seed(7, "a", 2));
        assert_ne!(attempt_seed(7, "a", 1), attempt_seed(8, "a", 1));
        assert!(attempt_seed(0, "a", 0) < 1 << 53);
    }

    #[test]
    fn attempt_zero_of_every_task_comes_first() {
        let p = plan(&[0, 1], 1, 2);
        let keys: Vec<_> = p.iter().map(|p| (p.task, p.attempt)).collect();
        assert_eq!(keys, vec![(0, 0), (1, 0), (0, 1), (1, 1)]);
    }
}
