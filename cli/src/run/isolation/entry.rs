//! How an agent's process enters its containment. proctor starts itself as
//! `proctor __contain ... -- PROGRAM ARGS...`, which starts a session of its own (so
//! the agent has no controlling terminal to push input into, and proctor still
//! signals the whole attempt as the helper's process group), dies with proctor,
//! joins the attempt's cgroups, sets resource limits, and replaces itself with the
//! program (or with bubblewrap, reading its arguments from a descriptor). Doing this in a process of its own keeps
//! proctor free of code between fork and exec. When bubblewrap has nothing to wait
//! for (no limits), proctor starts it directly.

use anyhow::{Context, bail};
use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::Signal;
use std::io::{Seek, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::helper_words::{ENTRY_COMMAND, INIT_OPTION, LAST_STEP_OPTION};

/// What the helper does before it becomes the agent.
#[derive(Debug, Default)]
pub struct Entry {
    /// `cgroup.procs` files to join.
    pub cgroups: Vec<PathBuf>,
    /// `RLIMIT_AS` in bytes, where no cgroup could be made.
    pub memory: Option<u64>,
    /// `RLIMIT_NPROC`, where no cgroup could be made.
    pub procs: Option<u64>,
    /// `RLIMIT_FSIZE` in bytes (`--max-disk`): no file the agent writes grows past it.
    pub file_size: Option<u64>,
    /// Run `PROGRAM ARGS...` as bubblewrap's `--args` (they start with bwrap's own).
    pub bwrap: Option<PathBuf>,
    /// No namespaces: landlock, a subreaper that kills what the agent leaves
    /// (see `fallback`).
    pub fallback: bool,
}

impl Entry {
    /// True when limits must be applied in the helper before anything else starts.
    fn limits_anything(&self) -> bool {
        !self.cgroups.is_empty()
            || self.memory.is_some()
            || self.procs.is_some()
            || self.file_size.is_some()
    }

    fn is_empty(&self) -> bool {
        !self.limits_anything() && self.bwrap.is_none() && !self.fallback
    }

    /// The program and arguments that start `program args` contained.
    pub fn command(
        &self,
        program: &str,
        args: &[String],
    ) -> std::io::Result<(String, Vec<String>)> {
        if self.is_empty() {
            return Ok((program.to_owned(), args.to_vec()));
        }
        if let Some(bwrap) = &self.bwrap
            && !self.limits_anything()
        {
            // Nothing to do before bubblewrap: start it directly, an exec less per
            // attempt. Its arguments are then on the command line of the namespace's
            // init, but they name nothing the agent cannot already read in its mount
            // table (/proc/self/mountinfo lists every hidden path).
            let mut words = vec![program.to_owned()];
            words.extend(args.iter().cloned());
            return Ok((bwrap.to_string_lossy().into_owned(), words));
        }
        let me = std::env::current_exe()?;
        let mut words = vec![ENTRY_COMMAND.to_owned()];
        for cgroup in &self.cgroups {
            words.push("--cgroup".to_owned());
            words.push(cgroup.to_string_lossy().into_owned());
        }
        if let Some(memory) = self.memory {
            words.extend(["--rlimit-as".to_owned(), memory.to_string()]);
        }
        if let Some(procs) = self.procs {
            words.extend(["--rlimit-nproc".to_owned(), procs.to_string()]);
        }
        if let Some(bytes) = self.file_size {
            words.extend(["--rlimit-fsize".to_owned(), bytes.to_string()]);
        }
        if let Some(bwrap) = &self.bwrap {
            words.extend(["--bwrap".to_owned(), bwrap.to_string_lossy().into_owned()]);
        }
        if self.fallback {
            words.push("--fallback".to_owned());
        }
        words.extend(["--parent".to_owned(), std::process::id().to_string()]);
        words.push("--".to_owned());
        words.push(program.to_owned());
        words.extend(args.iter().cloned());
        Ok((me.to_string_lossy().into_owned(), words))
    }
}

/// True when `program args` is the helper, which makes its own session: its
/// starter must not put it in a process group (a group leader cannot setsid()).
pub fn starts_own_session(args: &[String]) -> bool {
    args.first().map(String::as_str) == Some(ENTRY_COMMAND)
}

/// True when `args` start a fallback helper that will have no PID namespace: proctor
/// must then adopt and end what a killed helper leaves (`fallback::kill_adopted`).
pub fn leaves_orphans(args: &[String]) -> bool {
    static NO_PID_NAMESPACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // Only the helper's own options, before `--`: the agent's arguments may say anything.
    let options = args.iter().take_while(|a| *a != "--");
    starts_own_session(args)
        && options.into_iter().any(|a| a == "--fallback")
        && *NO_PID_NAMESPACE.get_or_init(|| !super::fallback::pid_namespace_possible())
}

/// The helper's main: returns only when it could not become the agent.
pub fn enter(args: &[String]) -> anyhow::Result<()> {
    let Words {
        entry,
        parent,
        init,
        status_fd,
        last_step,
        command,
    } = Words::read(args)?;
    let Some((program, rest)) = command.split_first() else {
        bail!("{ENTRY_COMMAND}: no command after --");
    };
    // The fallback's per-process limits are set by the last step alone: set here, they
    // would bound this helper (a large program) and its supervision, and a small
    // `--max-memory` would leave it no room to start the agent.
    let per_process = super::fallback::PerProcess {
        memory: entry.memory,
        procs: entry.procs,
    };
    if last_step {
        return super::fallback::last_step(program, rest, per_process);
    }
    let parent = parent.context("--parent is missing")?;
    let inherited = crate::run::descriptors::inherited_descriptors();
    if init {
        let fd = status_fd.context("--status-fd is missing")?;
        let status = take_descriptor(fd)?;
        close_all(&inherited);
        return super::fallback::init(program, rest, parent, status, per_process);
    }
    // Nothing but stdin, stdout and stderr reaches the agent.
    close_all(&inherited);
    // First, while proctor's SIGTERM to this process alone still suffices: a new
    // session whose group is this process, which proctor signals at the timeout.
    nix::unistd::setsid().context("setsid")?;
    // SIGTERM: bubblewrap dies of it (and its sandbox with it); a fallback helper
    // without a PID namespace takes it as a stop and kills what the agent started.
    nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).context("PR_SET_PDEATHSIG")?;
    if nix::unistd::getppid().as_raw() != parent {
        bail!("proctor is gone");
    }
    for cgroup in &entry.cgroups {
        // "0" names the writing process; children it starts stay in the group.
        std::fs::write(cgroup, "0")
            .with_context(|| format!("{}: cannot join", cgroup.display()))?;
    }
    if let Some(bytes) = entry.file_size {
        setrlimit(Resource::RLIMIT_FSIZE, bytes, bytes).context("RLIMIT_FSIZE")?;
    }
    if entry.fallback {
        super::fallback::end_as(super::fallback::supervise(
            program,
            rest,
            parent,
            per_process,
        )?);
    }
    per_process.apply()?;
    Err(become_agent(entry.bwrap.as_deref(), &command))
}

/// What proctor told the helper, before and after `--`.
struct Words {
    entry: Entry,
    parent: Option<i32>,
    init: bool,
    status_fd: Option<i32>,
    last_step: bool,
    /// What follows `--`: the agent's command, or bwrap's options and then it.
    command: Vec<String>,
}

impl Words {
    fn read(args: &[String]) -> anyhow::Result<Words> {
        let mut read = Words {
            entry: Entry::default(),
            parent: None,
            init: false,
            status_fd: None,
            last_step: false,
            command: Vec::new(),
        };
        let mut words = args.iter();
        read.command = loop {
            let Some(word) = words.next() else {
                bail!("{ENTRY_COMMAND}: no command after --");
            };
            let mut value = || {
                words
                    .next()
                    .with_context(|| format!("{ENTRY_COMMAND}: {word} needs a value"))
            };
            let entry = &mut read.entry;
            match word.as_str() {
                "--cgroup" => entry.cgroups.push(PathBuf::from(value()?)),
                "--rlimit-as" => entry.memory = Some(value()?.parse()?),
                "--rlimit-nproc" => entry.procs = Some(value()?.parse()?),
                "--rlimit-fsize" => entry.file_size = Some(value()?.parse()?),
                "--bwrap" => entry.bwrap = Some(PathBuf::from(value()?)),
                "--fallback" => entry.fallback = true,
                "--parent" => read.parent = Some(value()?.parse()?),
                INIT_OPTION => read.init = true,
                LAST_STEP_OPTION => read.last_step = true,
                "--status-fd" => read.status_fd = Some(value()?.parse()?),
                "--" => break words.cloned().collect(),
                other => bail!("{ENTRY_COMMAND}: unknown option {other}"),
            }
        };
        Ok(read)
    }
}

/// Becomes the agent: bubblewrap with its options in a file and the agent's command
/// after them, or the agent itself. Returns only the reason it could not.
fn become_agent(bwrap: Option<&Path>, command: &[String]) -> anyhow::Error {
    let error = match bwrap {
        Some(bwrap) => {
            // bwrap's options go through the file; the agent's command stays on argv.
            let Some(split) = command.iter().position(|w| w == "--") else {
                return anyhow::anyhow!("bubblewrap's options end with --");
            };
            let file = match argument_file(&command[..split]) {
                Ok(file) => file,
                Err(error) => return anyhow::Error::new(error).context("bubblewrap's options"),
            };
            // bwrap reads the descriptor and closes it before the agent starts.
            if let Err(error) = fcntl(&file, FcntlArg::F_SETFD(FdFlag::empty())) {
                return anyhow::Error::new(error).context("fcntl");
            }
            std::process::Command::new(bwrap)
                .arg("--args")
                .arg(file.as_raw_fd().to_string())
                .args(&command[split..])
                .exec()
        }
        None => std::process::Command::new(&command[0])
            .args(&command[1..])
            .exec(),
    };
    anyhow::Error::new(error).context(format!("cannot start {}", command[0]))
}

/// The descriptor `fd` this process inherited, opened again by its path: a new
/// descriptor of the same pipe (close-on-exec), owned without unsafe code.
fn take_descriptor(fd: i32) -> anyhow::Result<OwnedFd> {
    let path = format!("/proc/self/fd/{fd}");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .with_context(|| format!("{path}: no status descriptor"))?;
    Ok(OwnedFd::from(file))
}

/// Closes descriptors by number: called before anything here owns them.
fn close_all(fds: &[i32]) {
    for fd in fds {
        let _ = nix::unistd::close(*fd);
    }
}

/// Arguments as bwrap's `--args` reads them: NUL-separated, in an unnamed file.
fn argument_file(args: &[String]) -> std::io::Result<std::fs::File> {
    let mut file = tempfile::tempfile()?;
    for arg in args {
        file.write_all(arg.as_bytes())?;
        file.write_all(b"\0")?;
    }
    file.rewind()?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bubblewrap_starts_directly_unless_limits_need_the_helper() {
        let agent = [
            "--unshare-pid".to_owned(),
            "--".to_owned(),
            "true".to_owned(),
        ];
        let bare = Entry {
            bwrap: Some(PathBuf::from("/usr/bin/bwrap")),
            ..Entry::default()
        };
        let (program, args) = bare.command("--unshare-user", &agent).unwrap();
        assert_eq!(program, "/usr/bin/bwrap");
        assert_eq!(args, ["--unshare-user", "--unshare-pid", "--", "true"]);
        let limited = Entry {
            bwrap: Some(PathBuf::from("/usr/bin/bwrap")),
            procs: Some(8),
            ..Entry::default()
        };
        let (_, args) = limited.command("--unshare-user", &agent).unwrap();
        let parent = std::process::id().to_string();
        assert_eq!(
            args[..8],
            [
                ENTRY_COMMAND,
                "--rlimit-nproc",
                "8",
                "--bwrap",
                "/usr/bin/bwrap",
                "--parent",
                &parent,
                "--"
            ]
        );
        assert!(starts_own_session(&args));
    }
}
