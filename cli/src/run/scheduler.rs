//! `--shard auto` and the run id: which shard this process is, and which run it belongs
//! to, read from the scheduler that started it (docs/cluster.md).
//!
//! A Slurm job array tells a task its own index and the array's bounds; a Kubernetes
//! Indexed Job tells a pod its index only, so the count comes from `--shard-count`.

use crate::run::plan::Shard;

/// What `--shard` asks for: a given shard, or the one the scheduler says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardChoice {
    Given(Shard),
    Auto,
}

impl std::str::FromStr for ShardChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<ShardChoice, String> {
        if text.trim() == "auto" {
            return Ok(ShardChoice::Auto);
        }
        text.parse()
            .map(ShardChoice::Given)
            .map_err(|e| format!("{e}, or auto"))
    }
}

/// The shard a scheduler gave this process, and the run id all its shards share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scheduled {
    pub shard: Shard,
    /// `slurm:CLUSTER:ARRAY_JOB_ID` or `k8s:JOB_NAME`, when the scheduler names the run.
    pub run_id: Option<String>,
}

/// This process's shard, if the run is sharded, and the run id its scheduler gives.
#[derive(Debug, Default)]
pub struct Sharding {
    pub shard: Option<Shard>,
    pub run_id: Option<String>,
}

impl Sharding {
    /// From `--shard` and `--shard-count`; `auto` reads this process's environment.
    pub fn of(choice: Option<ShardChoice>, count: Option<u64>) -> anyhow::Result<Sharding> {
        match choice {
            None => Ok(Sharding::default()),
            Some(ShardChoice::Given(shard)) => {
                if let Some(count) = count {
                    crate::exit::bail_input!(
                        "--shard-count {count} goes with --shard auto; --shard {shard} already says the count"
                    );
                }
                Ok(Sharding {
                    shard: Some(shard),
                    run_id: None,
                })
            }
            Some(ShardChoice::Auto) => {
                let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
                let scheduled =
                    from_scheduler(var, count).map_err(|e| crate::exit::bad_input!("{e}"))?;
                Ok(Sharding {
                    shard: Some(scheduled.shard),
                    run_id: scheduled.run_id,
                })
            }
        }
    }
}

/// The variables `--shard auto` reads, for the message when none is set.
const LOOKED_FOR: &str = "SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX) of a Slurm job array, or JOB_COMPLETION_INDEX of a Kubernetes Indexed Job (with --shard-count N)";

/// Reads the shard from the environment `var` gives: a Slurm array first, then a
/// Kubernetes Indexed Job. `count` is `--shard-count`.
pub fn from_scheduler(
    var: impl Fn(&str) -> Option<String>,
    count: Option<u64>,
) -> Result<Scheduled, String> {
    if let Some(id) = var("SLURM_ARRAY_TASK_ID") {
        return slurm(&var, &id, count);
    }
    if let Some(index) = var("JOB_COMPLETION_INDEX") {
        return kubernetes(&var, &index, count);
    }
    Err(format!(
        "--shard auto: no scheduler found: it looks for {LOOKED_FOR}; outside a scheduler give the shard as --shard I/N"
    ))
}

fn number(var: &impl Fn(&str) -> Option<String>, name: &str) -> Result<u64, String> {
    let text = var(name).ok_or_else(|| {
        format!("--shard auto: {name} is not set, so the job array's size is unknown")
    })?;
    text.trim()
        .parse()
        .map_err(|_| format!("--shard auto: {name} is {text:?}, not a number"))
}

/// A Slurm array task: index `ID - MIN + 1` of `MAX - MIN + 1`. An array that does not
/// start at 0 or 1, has gaps, or has one task is not a whole array of shards: it is
/// what a single task resubmitted on its own (`sbatch --array=3`) sees, and reading it
/// as one would run the whole suite in that task.
fn slurm(
    var: &impl Fn(&str) -> Option<String>,
    id: &str,
    given: Option<u64>,
) -> Result<Scheduled, String> {
    let id: u64 = id
        .trim()
        .parse()
        .map_err(|_| format!("--shard auto: SLURM_ARRAY_TASK_ID is {id:?}, not a number"))?;
    let min = number(var, "SLURM_ARRAY_TASK_MIN")?;
    let max = number(var, "SLURM_ARRAY_TASK_MAX")?;
    let span = max.saturating_sub(min) + 1;
    let tasks = var("SLURM_ARRAY_TASK_COUNT").and_then(|c| c.trim().parse::<u64>().ok());
    let whole = min <= 1 && max >= min && id >= min && id <= max && span > 1;
    if !whole || tasks.is_some_and(|t| t != span) {
        return Err(format!(
            "--shard auto: this Slurm array is tasks {min}..{max}{} and this is task {id}: not a whole array of shards numbered from 0 or 1 (a single task resubmitted with sbatch --array=I sees only itself), so the shard count is unknown; give the shard as --shard I/N",
            tasks.map_or_else(String::new, |t| format!(
                " ({t} task{})",
                if t == 1 { "" } else { "s" }
            )),
        ));
    }
    if let Some(given) = given
        && given != span
    {
        return Err(format!(
            "--shard auto: --shard-count is {given} but the Slurm array has {span} tasks ({min}..{max})"
        ));
    }
    let run_id = var("SLURM_ARRAY_JOB_ID").map(|job| match var("SLURM_CLUSTER_NAME") {
        Some(cluster) => format!("slurm:{cluster}:{job}"),
        None => format!("slurm:{job}"),
    });
    Ok(Scheduled {
        shard: Shard {
            index: id - min + 1,
            count: span,
        },
        run_id,
    })
}

/// A Kubernetes Indexed Job's pod: index `JOB_COMPLETION_INDEX + 1` of `--shard-count`.
/// The run is the job, named by `JOB_NAME` (set from the pod's job-name label), else by
/// the pod's host name, which an Indexed Job makes `JOBNAME-INDEX`.
fn kubernetes(
    var: &impl Fn(&str) -> Option<String>,
    index: &str,
    count: Option<u64>,
) -> Result<Scheduled, String> {
    let index: u64 = index
        .trim()
        .parse()
        .map_err(|_| format!("--shard auto: JOB_COMPLETION_INDEX is {index:?}, not a number"))?;
    let Some(count) = count else {
        return Err(format!(
            "--shard auto: JOB_COMPLETION_INDEX is {index} (a Kubernetes Indexed Job), which does not say how many pods there are; give it as --shard-count N (the job's completions)"
        ));
    };
    if index >= count {
        return Err(format!(
            "--shard auto: JOB_COMPLETION_INDEX is {index}, outside 0..{} for --shard-count {count}",
            count - 1
        ));
    }
    let job = var("JOB_NAME").filter(|n| !n.is_empty()).or_else(|| {
        var("HOSTNAME")?
            .strip_suffix(&format!("-{index}"))
            .map(str::to_owned)
    });
    Ok(Scheduled {
        shard: Shard {
            index: index + 1,
            count,
        },
        run_id: job.map(|job| format!("k8s:{job}")),
    })
}

/// Checks a `--run-id`: it is written into result lines, ledger rows and file names of
/// scripts, so it is a short word of letters, digits and `. _ : @ / + -`.
pub fn check_run_id(id: &str) -> Result<String, String> {
    let fits = |c: char| c.is_ascii_alphanumeric() || "._:@/+-".contains(c);
    if id.is_empty() || id.len() > 128 || !id.chars().all(fits) {
        return Err(format!(
            "{id:?} is not a run id: 1 to 128 letters, digits and . _ : @ / + -"
        ));
    }
    Ok(id.to_owned())
}

/// The run id of shards given by hand (`--shard I/N`, no `--run-id`): a digest of what
/// makes the run (the task files, the seed, attempts, agents, choices and shard count),
/// so the same command in each shard names the same run.
pub fn shared_run_id(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.len().to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let hex: String = hasher.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sharded-{hex}")
}

/// A run id made at the start of a run: the start time in UTC and 6 random hex digits.
pub fn new_run_id(now: jiff::Timestamp) -> String {
    let mut bytes = [0u8; 3];
    if let Ok(mut file) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = file.read_exact(&mut bytes);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", now.strftime("%Y%m%dT%H%M%SZ"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn shard(index: u64, count: u64) -> Shard {
        Shard { index, count }
    }

    #[test]
    fn a_slurm_array_from_zero_or_one_gives_its_shard_and_job() {
        let from_zero = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_JOB_ID", "41"),
            ("SLURM_CLUSTER_NAME", "ci"),
        ]);
        assert_eq!(
            from_scheduler(from_zero, None),
            Ok(Scheduled {
                shard: shard(3, 4),
                run_id: Some("slurm:ci:41".into())
            })
        );
        let from_one = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
            ("SLURM_ARRAY_JOB_ID", "7"),
        ]);
        let got = from_scheduler(from_one, Some(4)).unwrap();
        assert_eq!(got.shard, shard(4, 4));
        assert_eq!(got.run_id.as_deref(), Some("slurm:7"));
    }

    #[test]
    fn a_resubmitted_slurm_task_is_refused() {
        for (id, min, max, count) in [
            ("2", "2", "2", "1"), // sbatch --array=2 of a 0..3 array
            ("1", "1", "1", "1"), // sbatch --array=1: one task is no array of shards
            ("3", "1", "5", "3"), // --array=1,3,5: gaps
        ] {
            let vars = env(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_MAX", max),
                ("SLURM_ARRAY_TASK_COUNT", count),
            ]);
            let err = from_scheduler(vars, None).unwrap_err();
            assert!(
                err.contains("not a whole array") && err.contains("--shard I/N"),
                "{err}"
            );
        }
        let no_bounds = env(&[("SLURM_ARRAY_TASK_ID", "2")]);
        assert!(
            from_scheduler(no_bounds, None)
                .unwrap_err()
                .contains("SLURM_ARRAY_TASK_MIN is not set")
        );
        let wrong_count = env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
        ]);
        assert!(
            from_scheduler(wrong_count, Some(5))
                .unwrap_err()
                .contains("--shard-count is 5 but the Slurm array has 4 tasks")
        );
    }

    #[test]
    fn a_kubernetes_index_needs_the_count_and_names_the_job() {
        let pod = env(&[("JOB_COMPLETION_INDEX", "0"), ("HOSTNAME", "eval-7-0")]);
        assert_eq!(
            from_scheduler(&pod, Some(4)),
            Ok(Scheduled {
                shard: shard(1, 4),
                run_id: Some("k8s:eval-7".into())
            })
        );
        assert!(
            from_scheduler(&pod, None)
                .unwrap_err()
                .contains("give it as --shard-count N")
        );
        let named = env(&[("JOB_COMPLETION_INDEX", "3"), ("JOB_NAME", "nightly")]);
        let got = from_scheduler(&named, Some(4)).unwrap();
        assert_eq!(got.shard, shard(4, 4));
        assert_eq!(got.run_id.as_deref(), Some("k8s:nightly"));
        assert!(
            from_scheduler(&named, Some(3))
                .unwrap_err()
                .contains("outside 0..2")
        );
    }

    #[test]
    fn outside_a_scheduler_it_says_what_it_looked_for() {
        let err = from_scheduler(env(&[]), None).unwrap_err();
        assert!(
            err.contains("SLURM_ARRAY_TASK_ID") && err.contains("JOB_COMPLETION_INDEX"),
            "{err}"
        );
    }

    #[test]
    fn shard_choices_and_run_ids_parse() {
        assert_eq!("auto".parse(), Ok(ShardChoice::Auto));
        assert_eq!("2/4".parse(), Ok(ShardChoice::Given(shard(2, 4))));
        assert!("5/4".parse::<ShardChoice>().is_err());
        assert!(check_run_id("slurm:ci:41").is_ok());
        assert!(check_run_id("gh-123/2").is_ok());
        for bad in ["", "a b", "x\ny", &"a".repeat(129)] {
            assert!(check_run_id(bad).is_err(), "{bad:?}");
        }
        let shared = shared_run_id(&["sha256:ab", "0", "4"]);
        assert_eq!(shared, shared_run_id(&["sha256:ab", "0", "4"]));
        assert_ne!(shared, shared_run_id(&["sha256:ab", "0", "5"]));
        assert_ne!(shared, shared_run_id(&["sha256:ab0", "", "4"]));
        assert!(
            shared.starts_with("sharded-") && shared.len() == 20,
            "{shared}"
        );
        let id = new_run_id("2026-12-07T18:00:00Z".parse().unwrap());
        assert!(
            id.starts_with("20261207T180000Z-") && id.len() == 23,
            "{id}"
        );
    }
}
