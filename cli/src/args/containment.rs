//! The command-line options that contain agents (`proctor run`).

use crate::run::isolation::limits::parse_size;
use crate::run::isolation::{IsolateMode, IsolationOptions, NetworkMode, Requested};
use clap::Args;
use std::path::PathBuf;

/// How `run` contains its agents: isolation mode, network, visible paths and limits.
#[derive(Debug, Args)]
pub struct ContainmentArgs {
    /// Pass this host variable to every agent (repeatable; globs such as 'OPENAI_*').
    /// Agents get only PATH, LANG, LC_*, TZ, TERM, a private HOME and TMPDIR, the
    /// PROCTOR_* variables and what is passed this way.
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// Run agents in their own namespaces: auto (where the kernel allows, else a
    /// warning), namespaces (or stop), none.
    #[arg(long, value_enum, default_value_t = IsolateMode::Auto)]
    pub isolate: IsolateMode,
    /// Show this path to isolated agents, read-only (repeatable).
    #[arg(long = "isolate-allow", value_name = "PATH")]
    pub isolate_allow: Vec<PathBuf>,
    /// The agents' network: host, or none (loopback only, in a namespace).
    #[arg(long, value_enum, default_value_t = NetworkMode::Host)]
    pub network: NetworkMode,
    /// Memory per attempt, e.g. 512M or 2G.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Processes per attempt.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_procs: Option<u64>,
    /// Disk per attempt, e.g. 1G: HOME, TMPDIR and /tmp are tmpfs mounts of this size
    /// in namespaces; the sandbox (and, in the fallback, every writable folder) is
    /// watched, and each file is capped at this size.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_disk: Option<u64>,
}

impl ContainmentArgs {
    /// What the runner is asked for, as it takes it.
    pub fn options(&self) -> IsolationOptions {
        IsolationOptions {
            mode: self.isolate,
            network: self.network,
            allow: self.isolate_allow.clone(),
            limits: Requested {
                memory: self.max_memory,
                procs: self.max_procs,
                disk: self.max_disk,
            },
        }
    }
}
