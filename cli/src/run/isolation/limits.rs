//! Memory and process limits per attempt (`--max-memory`, `--max-procs`): a cgroup
//! v2 child group where the hierarchy is unified, else groups under the cgroup v1
//! `memory` and `pids` controllers, else resource limits (`RLIMIT_AS`,
//! `RLIMIT_NPROC`), which bound each process rather than the attempt as a whole.

use super::entry::Entry;
use super::stale_groups::{RUN_GROUP_PREFIX, is_proctor, remove_stale};
use proctor_core::agent_file::human_size;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// The limits a user asked for, per attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Requested {
    /// Bytes.
    pub memory: Option<u64>,
    pub procs: Option<u64>,
    /// Bytes (see `disk`): enforced by tmpfs sizes, `RLIMIT_FSIZE` and a watcher,
    /// never by a cgroup.
    pub disk: Option<u64>,
}

impl Requested {
    /// True when a limit needs a cgroup (or, without one, resource limits).
    pub fn any(&self) -> bool {
        self.memory.is_some() || self.procs.is_some()
    }
}

/// How the limits are enforced, chosen once per run.
#[derive(Debug)]
pub enum Mechanism {
    /// A child group per attempt under this cgroup v2 folder.
    CgroupV2(PathBuf),
    /// Child groups per attempt under these cgroup v1 folders (memory, pids).
    CgroupV1 {
        memory: Option<PathBuf>,
        pids: Option<PathBuf>,
    },
    Rlimits,
}

/// The run's limits and the folder it made for them (removed at the end).
#[derive(Debug)]
pub struct Limits {
    pub requested: Requested,
    pub mechanism: Option<Mechanism>,
}

impl Limits {
    /// Picks the strongest mechanism this machine offers for `requested`. A process
    /// limit without a cgroup is refused: `RLIMIT_NPROC` counts every process of the
    /// user, so one attempt's fork bomb would fail the attempts beside it.
    pub fn choose(requested: Requested) -> anyhow::Result<Limits> {
        if !requested.any() {
            return Ok(Limits {
                requested,
                mechanism: None,
            });
        }
        let tag = format!("{RUN_GROUP_PREFIX}{}", std::process::id());
        let mechanism = cgroup_v2(&tag)
            .or_else(|| cgroup_v1(&tag, requested))
            .unwrap_or(Mechanism::Rlimits);
        if let (Mechanism::Rlimits, Some(procs)) = (&mechanism, requested.procs) {
            crate::exit::bail_input!(
                "--max-procs {procs}: no cgroup can be made here, and without one a process limit counts every process of your user together (one attempt's fork bomb would fail the attempts beside it); run as root, or in a cgroup delegated to you (systemd-run --user --scope -p Delegate=yes proctor run ...), or drop --max-procs"
            );
        }
        Ok(Limits {
            requested,
            mechanism: Some(mechanism),
        })
    }

    /// One line saying which limits apply and how, for the start of a run.
    pub fn describe(&self) -> Option<String> {
        let disk = self.requested.disk.map(|bytes| {
            format!(
                "disk {} per attempt (one budget over the sandbox, HOME, TMPDIR and /tmp, watched; each file capped)",
                human_size(bytes)
            )
        });
        let Some(mechanism) = self.mechanism.as_ref() else {
            return disk.map(|disk| format!("limits: {disk}"));
        };
        let mut what = Vec::new();
        if let Some(bytes) = self.requested.memory {
            what.push(format!("memory {}", human_size(bytes)));
        }
        if let Some(procs) = self.requested.procs {
            what.push(format!("{procs} processes"));
        }
        let how = match mechanism {
            Mechanism::CgroupV2(_) => "a cgroup v2 group per attempt",
            Mechanism::CgroupV1 { .. } => "cgroup v1 memory and pids groups per attempt",
            Mechanism::Rlimits => {
                "resource limits per process (no cgroup could be made: the memory limit is per process)"
            }
        };
        let disk = disk.map(|disk| format!("; {disk}")).unwrap_or_default();
        Some(format!(
            "limits per attempt: {} through {how}{disk}",
            what.join(", ")
        ))
    }

    /// Makes the attempt's groups; the returned value joins them before exec and
    /// removes them when dropped.
    pub fn for_attempt(&self, entry: &mut Entry) -> io::Result<Option<AttemptGroups>> {
        entry.file_size = self.requested.disk;
        let Some(mechanism) = &self.mechanism else {
            return Ok(None);
        };
        let requested = self.requested;
        let mut groups = AttemptGroups::default();
        groups.memory_limit = requested.memory;
        match mechanism {
            Mechanism::CgroupV2(parent) => {
                let group = groups.make(parent)?;
                if let Some(bytes) = requested.memory {
                    write_value(&group.join("memory.max"), bytes)?;
                    // Swap would let the agent grow past the limit.
                    let _ = write_value(&group.join("memory.swap.max"), 0);
                    groups.memory_group = Some(group.clone());
                }
                if let Some(procs) = requested.procs {
                    write_value(&group.join("pids.max"), procs)?;
                }
                entry.cgroups.push(group.join("cgroup.procs"));
            }
            Mechanism::CgroupV1 { memory, pids } => {
                if let (Some(parent), Some(bytes)) = (memory, requested.memory) {
                    let group = groups.make(parent)?;
                    write_value(&group.join("memory.limit_in_bytes"), bytes)?;
                    let _ = write_value(&group.join("memory.memsw.limit_in_bytes"), bytes);
                    entry.cgroups.push(group.join("cgroup.procs"));
                    groups.memory_group = Some(group);
                }
                if let (Some(parent), Some(procs)) = (pids, requested.procs) {
                    let group = groups.make(parent)?;
                    write_value(&group.join("pids.max"), procs)?;
                    entry.cgroups.push(group.join("cgroup.procs"));
                }
            }
            Mechanism::Rlimits => {
                entry.memory = requested.memory;
                entry.procs = requested.procs;
            }
        }
        Ok(Some(groups))
    }
}

impl Drop for Limits {
    fn drop(&mut self) {
        match &self.mechanism {
            Some(Mechanism::CgroupV2(parent)) => {
                let _ = std::fs::remove_dir(parent);
            }
            Some(Mechanism::CgroupV1 { memory, pids }) => {
                for parent in [memory, pids].into_iter().flatten() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
            _ => {}
        }
    }
}

/// The cgroups of one attempt, removed (once empty) when dropped.
#[derive(Debug, Default)]
pub struct AttemptGroups {
    made: Vec<PathBuf>,
    /// `--max-memory`, bytes.
    memory_limit: Option<u64>,
    /// The group that enforces it, when a cgroup does.
    memory_group: Option<PathBuf>,
}

/// What an attempt's `--max-memory` limit saw, read before its group is removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryUse {
    /// The limit, bytes.
    pub limit: u64,
    /// Whether the kernel killed a process of the attempt at the limit; `None` where
    /// nothing counts that (resource limits, or a kernel without the counter).
    pub killed: Option<bool>,
}

impl AttemptGroups {
    /// The memory limit and whether it killed a process, so that an agent killed at the
    /// limit is shown as such rather than as a bare `signal 9`. Call after the attempt's
    /// processes are gone and before the groups are dropped.
    pub fn memory_use(&self) -> Option<MemoryUse> {
        let limit = self.memory_limit?;
        let killed = self
            .memory_group
            .as_deref()
            .and_then(oom_kills)
            .map(|n| n > 0);
        Some(MemoryUse { limit, killed })
    }

    fn make(&mut self, parent: &Path) -> io::Result<PathBuf> {
        let name = format!("attempt-{:016x}", rand_u64());
        let group = parent.join(name);
        std::fs::create_dir(&group)?;
        self.made.push(group.clone());
        Ok(group)
    }
}

impl Drop for AttemptGroups {
    fn drop(&mut self) {
        for group in &self.made {
            // The attempt's processes are gone (their PID namespace or group was
            // killed); the kernel may need a moment to release the group.
            for _ in 0..50 {
                if std::fs::remove_dir(group).is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

/// How many processes of `group` the kernel killed at its memory limit: the `oom_kill`
/// counter of `memory.events` (v2) or `memory.oom_control` (v1, Linux 4.13 and later).
fn oom_kills(group: &Path) -> Option<u64> {
    ["memory.events", "memory.oom_control"]
        .iter()
        .find_map(|file| std::fs::read_to_string(group.join(file)).ok())
        .and_then(|text| oom_kill_count(&text))
}

/// The `oom_kill N` line of a cgroup's memory events.
fn oom_kill_count(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        (key == "oom_kill").then(|| value.trim().parse().ok())?
    })
}

/// The cgroup this process is in, for a hierarchy named `controller` (v1) or the
/// unified one (`""`), as a folder under `root`.
fn own_group(root: &Path, controller: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = if controller.is_empty() {
            names.is_empty()
        } else {
            names.split(',').any(|n| n == controller)
        };
        matches.then(|| root.join(path.trim_start_matches('/')))
    })
}

fn cgroup_v2(tag: &str) -> Option<Mechanism> {
    let root = Path::new(CGROUP_ROOT);
    let controllers = std::fs::read_to_string(root.join("cgroup.controllers")).ok()?;
    if !(controllers.contains("memory") && controllers.contains("pids")) {
        return None;
    }
    let parent = run_group(&own_group(root, "")?, tag)?;
    // Child groups need the controllers enabled in this one.
    let enabled = std::fs::write(parent.join("cgroup.subtree_control"), "+memory +pids");
    if enabled.is_err() {
        let _ = std::fs::remove_dir(&parent);
        return None;
    }
    Some(Mechanism::CgroupV2(parent))
}

fn cgroup_v1(tag: &str, requested: Requested) -> Option<Mechanism> {
    let make = |controller: &str| -> Option<PathBuf> {
        let root = Path::new(CGROUP_ROOT).join(controller);
        run_group(&own_group(&root, controller)?, tag)
    };
    let memory = requested.memory.and_then(|_| make("memory"));
    let pids = requested.procs.and_then(|_| make("pids"));
    let complete = requested.memory.is_none() == memory.is_none()
        && requested.procs.is_none() == pids.is_none();
    if !complete {
        for parent in [&memory, &pids].into_iter().flatten() {
            let _ = std::fs::remove_dir(parent);
        }
        return None;
    }
    Some(Mechanism::CgroupV1 { memory, pids })
}

/// Makes this run's group under `base`, once the groups of runs that were killed are
/// removed.
fn run_group(base: &Path, tag: &str) -> Option<PathBuf> {
    let removed = remove_stale(base, std::process::id(), is_proctor);
    if !removed.is_empty() {
        eprintln!(
            "proctor: removed cgroups left by runs that were killed: {}",
            removed
                .iter()
                .map(|name| base.join(name).display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let group = base.join(tag);
    std::fs::create_dir(&group).ok()?;
    Some(group)
}

fn write_value(path: &Path, value: u64) -> io::Result<()> {
    std::fs::write(path, value.to_string())
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// A random number for group names, from the kernel's random source.
fn rand_u64() -> u64 {
    let mut bytes = [0u8; 8];
    if let Ok(mut file) = File::open("/dev/urandom") {
        use std::io::Read;
        let _ = file.read_exact(&mut bytes);
    }
    u64::from_ne_bytes(bytes) ^ u64::from(std::process::id())
}

/// Reads `512M`, `2G`, `1.5GiB`, `1048576`: a size in bytes (K, M, G, T are powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 512M or 2G"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (use K, M, G or T)"
            ));
        }
    };
    let bytes = number * scale as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("{text:?} is not a usable size"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oom_kills_are_read_from_either_version() {
        let v2 = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(oom_kill_count(v2), Some(1));
        let v1 = "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n";
        assert_eq!(oom_kill_count(v1), Some(0));
        assert_eq!(oom_kill_count("oom_kill_disable 0\nunder_oom 0\n"), None);
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(
            parse_size("12 parsecs")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(parse_size("0").is_err());
    }
}
