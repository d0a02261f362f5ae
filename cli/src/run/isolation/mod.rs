//! Containing the agent (docs/agent-protocol.md, "Containment"): namespaces through
//! bubblewrap, per-attempt memory and process limits, and, where namespaces are
//! unavailable, landlock and a subreaper (`fallback`) with a clear statement of what is
//! missing. In both modes the agent's file system is composed from what it needs
//! (`runtime`, `visible`, `sight`), never the host minus a list.

pub mod bubblewrap;
pub mod contained_command;
pub mod disk;
pub mod entry;
pub mod fallback;
pub mod forwarder;
mod grading_data;
pub mod helper_words;
pub mod limits;
pub mod relay;
pub mod runtime;
mod sight;
mod stale_groups;
mod visible;

pub use entry::Entry;
pub use limits::{AttemptGroups, Limits, MemoryUse, Requested};

use super::agent::AgentSpec;
use super::sandbox::AttemptFolders;
use clap::ValueEnum;
use disk::DiskQuota;
use relay::Relays;
use sight::{Found, Sight};
use std::net::SocketAddr;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// `--isolate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IsolateMode {
    /// Namespaces where the kernel allows them, else landlock and a subreaper
    /// with a warning naming what is missing.
    Auto,
    /// Namespaces or nothing: the run stops if they are unavailable.
    Namespaces,
    /// The agent runs as a plain process (in its own process group).
    None,
}

/// `--network`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NetworkMode {
    /// The host's network (agents call model APIs).
    Host,
    /// A network namespace with loopback only.
    None,
}

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct IsolationOptions {
    pub mode: IsolateMode,
    pub network: NetworkMode,
    pub allow: Vec<PathBuf>,
    pub limits: Requested,
}

/// How agents run in this run, decided once before any agent starts.
#[derive(Debug)]
pub struct Isolation {
    bwrap: Option<PathBuf>,
    /// `--isolate auto` without namespaces: landlock and a subreaper instead.
    fallback: bool,
    network: NetworkMode,
    /// The grading data the run names by path (task files and what they name, results,
    /// kept folders, the ledger, cassettes, proctor's private folders).
    hidden: Vec<PathBuf>,
    /// Per agent (by index): what it is shown, and what is hidden there.
    sights: Vec<Sight>,
    /// The grading data found in shown folders, for the commands started per attempt.
    found: Found,
    /// In namespaces, the run's copy of the shown part of `/etc`, bound in one mount.
    etc: Option<EtcCopy>,
    limits: Limits,
    /// proctor's own loopback endpoints, reachable from `network: none` namespaces.
    endpoints: Vec<SocketAddr>,
    /// Lines to print before the run starts (a fallback warning, the limits).
    pub notes: Vec<String>,
}

/// The run's copy of the shown part of `/etc` (`runtime::copy_etc`), removed at the end.
#[derive(Debug)]
struct EtcCopy {
    path: PathBuf,
    _folder: tempfile::TempDir,
}

impl EtcCopy {
    /// A fresh copy, or `None` where it cannot be made (each entry is then bound on its
    /// own, which costs each attempt more).
    fn make() -> Option<EtcCopy> {
        let folder = tempfile::Builder::new()
            .prefix("proctor-etc-")
            .rand_bytes(12)
            .tempdir()
            .ok()?;
        let path = folder.path().join("etc");
        runtime::copy_etc(&path).ok()?;
        Some(EtcCopy {
            path,
            _folder: folder,
        })
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

/// What preparing one attempt's command reads.
struct Attempt<'a> {
    agent: &'a AgentSpec,
    folders: &'a AttemptFolders,
    sight: &'a Sight,
    /// The attempt's own folders, the only ones it may write.
    writable: &'a [&'a Path; 4],
}

/// A command ready to start in its isolation.
#[derive(Debug)]
pub struct Prepared {
    pub program: String,
    pub args: Vec<String>,
    /// Variables for the entry helper only (it removes them before the agent starts).
    pub env: Vec<(String, String)>,
    /// The attempt's cgroups, removed when dropped (after the attempt).
    pub groups: Option<AttemptGroups>,
    /// The sockets into a `network: none` namespace, closed when dropped (after the
    /// attempt).
    pub relays: Option<Relays>,
    /// `--max-disk`: the host folders to watch while the agent runs.
    pub disk: Option<DiskQuota>,
    /// It runs under bubblewrap, which a SIGTERM ends at once with everything in its
    /// namespace: the timeout's SIGTERM goes to the processes inside instead.
    pub bubblewrap: bool,
}

/// The program bubblewrap is run as: `PROCTOR_BWRAP` when set (and not empty), else
/// `bwrap` on PATH.
fn bwrap_program() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PROCTOR_BWRAP").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
}

/// Why namespaces cannot be used here, or `None` when they can.
fn probe(bwrap: Option<&Path>) -> Result<(), String> {
    let Some(bwrap) = bwrap else {
        return Err("bubblewrap (bwrap) is not installed".to_owned());
    };
    let args = bubblewrap::arguments(&bubblewrap::View {
        shown: &[],
        hidden: &[],
        forwarding: &[],
        writable: &[],
        etc: None,
        tmp: None,
        working_dir: Path::new("/"),
        network: false,
    });
    let output = std::process::Command::new(bwrap)
        .args(&args)
        .arg("true")
        .env_clear()
        .stdin(std::process::Stdio::null())
        .output();
    match output {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            Err(format!(
                "{} cannot make namespaces: {}",
                bwrap.display(),
                stderr.trim()
            ))
        }
        Err(e) => Err(format!("{} cannot start: {e}", bwrap.display())),
    }
}

impl Isolation {
    /// Decides how agents run; `hidden` is what no agent may see (task files and
    /// what they name, results, kept sandboxes, proctor's private folders).
    pub fn set_up(
        options: &IsolationOptions,
        agents: &[AgentSpec],
        hidden: Vec<PathBuf>,
    ) -> anyhow::Result<Isolation> {
        // Agents run as the same user: keep them out of proctor's memory and
        // environment (/proc/PID/environ, ptrace) whatever the isolation.
        let _ = nix::sys::prctl::set_dumpable(false);
        let mut notes = Vec::new();
        let mut fallback = false;
        let bwrap = match options.mode {
            IsolateMode::None => None,
            mode => {
                let program = bwrap_program();
                match probe(program.as_deref()) {
                    Ok(()) => program,
                    Err(why) if mode == IsolateMode::Namespaces => {
                        crate::exit::bail_input!(
                            "--isolate namespaces: {why}; install bubblewrap (apt-get install bubblewrap) or use --isolate none"
                        )
                    }
                    Err(why) => {
                        notes.push(fallback::Support::probe().warning(&why));
                        fallback = true;
                        None
                    }
                }
            }
        };
        if options.network == NetworkMode::None && bwrap.is_none() {
            let how = match options.mode {
                IsolateMode::None => "drop --isolate none, or drop --network none",
                _ => {
                    "install bubblewrap (apt-get install bubblewrap) so that agents run in namespaces, or drop --network none"
                }
            };
            crate::exit::bail_input!(
                "--network none needs namespaces, and agents run without them here: {how}"
            );
        }
        let limits = Limits::choose(options.limits)?;
        notes.extend(limits.describe());
        // Resolved once (a file not written yet, `--out` on a first run, by its path).
        let hidden = sight::resolved(hidden);
        let found = Found::default();
        let etc = bwrap.as_ref().and_then(|_| EtcCopy::make());
        let mut sights = Vec::new();
        if options.mode != IsolateMode::None {
            for agent in agents {
                let shown = visible::for_agent(agent, &options.allow);
                let sight = Sight::compose(&shown, &hidden, &found).map_err(|too_large| {
                    crate::exit::bad_input!(
                        "agent `{}`: {too_large}; give the agent a folder of its own that holds its code only (tasks, results and kept folders elsewhere), and name it on the command line (python3 my-agent/main.py)",
                        agent.name
                    )
                })?;
                sights.push(sight);
            }
        }
        Ok(Isolation {
            bwrap,
            fallback,
            network: options.network,
            hidden,
            sights,
            found,
            etc,
            limits,
            endpoints: Vec::new(),
            notes,
        })
    }

    /// Makes `endpoint`, one of proctor's own listeners on 127.0.0.1 (the OTLP
    /// receiver, the tool server), reachable at the same address from agents whose
    /// network is none. Call before the first attempt, within the run's async runtime.
    pub fn forward(&mut self, endpoint: SocketAddr) {
        self.endpoints.push(endpoint);
    }

    /// `path` (a `PATH` value) less the folders agent `agent_index` cannot see: a
    /// program found in one would be found and then refused (landlock lets a program
    /// look a path up, not run it), and `sys.executable` and the like would name it.
    pub fn path_seen_by(&self, agent_index: usize, path: &str) -> String {
        let Some(sight) = self.sights.get(agent_index) else {
            return path.to_owned();
        };
        let seen: Vec<&str> = path
            .split(':')
            .filter(|entry| {
                let folder = Path::new(entry);
                let resolved = folder.canonicalize().unwrap_or_else(|_| folder.to_owned());
                folder.is_absolute() && sight.reveals(&resolved, &[])
            })
            .collect();
        seen.join(":")
    }

    /// The run's copy of `/etc`'s shown part, where there is one.
    fn etc_copy(&self) -> Option<&Path> {
        self.etc.as_ref().map(EtcCopy::path)
    }

    /// True when agents run in namespaces.
    pub fn namespaces(&self) -> bool {
        self.bwrap.is_some()
    }

    /// Refuses to start a command with `sight` where it could reach the tool state
    /// folder: the folder must lie outside what it is shown (or hidden there) and outside
    /// every folder it writes; in the fallback, the kernel must have landlock at all.
    /// Under `--isolate none` nothing is hidden, so nothing is checked.
    fn check_state_hidden(
        &self,
        sight: &Sight,
        state: &Path,
        writable: &[&Path],
    ) -> std::io::Result<()> {
        if self.bwrap.is_none() && !self.fallback {
            return Ok(());
        }
        let state = state.canonicalize()?;
        let unenforced = self.fallback && !fallback::Support::probe().filesystem;
        if unenforced || sight.reveals(&state, writable) {
            return Err(std::io::Error::other(format!(
                "the tool state folder {} would be visible to the agent{}",
                state.display(),
                if unenforced {
                    " (no landlock on this kernel); install bubblewrap, or use --isolate none to run without hiding it"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// The command that starts agent `agent_index` in `folders`; `loopback_only` is a
    /// task's `network: none`.
    pub fn prepare(
        &self,
        agent_index: usize,
        agent: &AgentSpec,
        folders: &AttemptFolders,
        loopback_only: bool,
    ) -> std::io::Result<Prepared> {
        let mut entry = Entry::default();
        let groups = self.limits.for_attempt(&mut entry)?;
        let writable = [
            folders.sandbox.as_path(),
            folders.home.as_path(),
            folders.tmp.as_path(),
            folders.outcome_dir.as_path(),
        ];
        let no_sight = Sight::default();
        let sight = self.sights.get(agent_index).unwrap_or(&no_sight);
        if let Some(state) = &folders.state {
            self.check_state_hidden(sight, state, &writable)?;
        }
        let attempt = Attempt {
            agent,
            folders,
            sight,
            writable: &writable,
        };
        match &self.bwrap {
            None => self.prepare_without_namespaces(entry, groups, &attempt),
            Some(bwrap) => {
                entry.bwrap = Some(bwrap.clone());
                self.prepare_in_namespaces(entry, groups, &attempt, loopback_only)
            }
        }
    }

    /// `--max-disk` over `folders`: the one budget of every place the agent can write.
    fn disk_quota(&self, folders: &[&Path]) -> Option<DiskQuota> {
        self.limits.requested.disk.map(|bytes| DiskQuota {
            folders: folders.iter().map(|p| p.to_path_buf()).collect(),
            bytes,
        })
    }

    /// The agent started by the entry helper alone: in the fallback, with the landlock
    /// view it applies (docs/agent-protocol.md, "What an agent sees"); under `--isolate
    /// none`, as it is.
    fn prepare_without_namespaces(
        &self,
        mut entry: Entry,
        groups: Option<AttemptGroups>,
        attempt: &Attempt<'_>,
    ) -> std::io::Result<Prepared> {
        let mut env = Vec::new();
        if self.fallback {
            entry.fallback = true;
            let view = fallback::View {
                shown: attempt.sight.shown.clone(),
                hidden: attempt.sight.hidden.clone(),
                writable: attempt.writable.iter().map(|p| p.to_path_buf()).collect(),
            };
            let view = serde_json::to_string(&view).map_err(std::io::Error::other)?;
            env.push((fallback::VIEW_VARIABLE.to_owned(), view));
        }
        let (program, args) = entry.command(&attempt.agent.program, &attempt.agent.args)?;
        Ok(Prepared {
            program,
            args,
            env,
            groups,
            relays: None,
            disk: self.disk_quota(attempt.writable),
            bubblewrap: false,
        })
    }

    /// The agent started by bubblewrap in its composed root, behind the forwarder when
    /// its network is loopback only and proctor's endpoints must reach it.
    fn prepare_in_namespaces(
        &self,
        entry: Entry,
        groups: Option<AttemptGroups>,
        attempt: &Attempt<'_>,
        loopback_only: bool,
    ) -> std::io::Result<Prepared> {
        let (agent, folders) = (attempt.agent, attempt.folders);
        // Under `--max-disk`, the namespace's `/tmp` is a folder of the attempt's own, so
        // that the one budget covers every place the agent can write.
        let slash_tmp = match self.limits.requested.disk {
            Some(_) => {
                let folder = folders.private.join("slash-tmp");
                std::fs::DirBuilder::new().mode(0o700).create(&folder)?;
                Some(folder)
            }
            None => None,
        };
        let network = self.network == NetworkMode::Host && !loopback_only;
        let relays = match network || self.endpoints.is_empty() {
            true => None,
            false => Some(Relays::start(
                &folders.private.join("forward"),
                &self.endpoints,
            )?),
        };
        // The forwarder is proctor itself: its program is shown, wherever it lies.
        let me = match &relays {
            Some(_) => Some(std::env::current_exe()?),
            None => None,
        };
        let shown: Vec<&Path> = relays
            .iter()
            .map(Relays::folder)
            .chain(me.as_deref())
            .collect();
        let mut args = bubblewrap::arguments(&bubblewrap::View {
            shown: &attempt.sight.shown,
            hidden: &attempt.sight.hidden,
            forwarding: &shown,
            writable: attempt.writable,
            etc: self.etc_copy(),
            tmp: slash_tmp.as_deref(),
            working_dir: &folders.sandbox,
            network,
        });
        match (&relays, &me) {
            (Some(relays), Some(me)) => {
                args.push(me.to_string_lossy().into_owned());
                args.extend(forwarder::arguments(
                    relays.routes(),
                    &agent.program,
                    &agent.args,
                ));
            }
            _ => {
                args.push(agent.program.clone());
                args.extend(agent.args.iter().cloned());
            }
        }
        let (program, args) = entry.command(&args[0], &args[1..])?;
        let written: Vec<&Path> = attempt
            .writable
            .iter()
            .copied()
            .chain(slash_tmp.as_deref())
            .collect();
        Ok(Prepared {
            program,
            args,
            env: Vec::new(),
            groups,
            relays,
            disk: self.disk_quota(&written),
            bubblewrap: true,
        })
    }
}
