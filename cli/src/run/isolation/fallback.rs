//! Containment without namespaces (`--isolate auto` where bubblewrap is missing or
//! fails): what the kernel still offers. The `__contain` helper (a new session, dying
//! with proctor: `entry`) is non-dumpable and starts the agent confined: landlock,
//! `no_new_privs`, every capability dropped (a root agent could otherwise read
//! proctor's and other attempts' environment through `/proc`, or change the host).
//!
//! Nothing the agent starts may outlive its attempt, even if the helper is killed or
//! stopped, or proctor is killed. Where the helper may make a PID namespace (it has
//! CAP_SYS_ADMIN, as root), it does: it starts itself again (`__contain --init`, an
//! exec rather than a fork, so no unsafe code) as PID 1 of that namespace, which dies
//! with the helper (PDEATHSIG, the helper dying with proctor the same way), starts the
//! agent and reaps; when PID 1 ends, the kernel kills every process of the namespace,
//! `setsid()` or not, and no walk of `/proc` can miss one. This is chosen over a
//! subreaper because a subreaper only holds while it lives: killed or stopped, its
//! orphans go to the host's init. Without that privilege the helper stays the child
//! subreaper it was: when the agent exits, or a second after proctor asks it to
//! stop or dies (its PDEATHSIG is SIGTERM then), it kills every descendant left;
//! proctor is a child subreaper too, so that what a killed or stopped helper leaves
//! comes back to proctor, which kills it after the attempt (`kill_adopted`). Only a
//! kill -9 of proctor racing a stopped helper can then leave a process behind. The
//! warning line says which of the two applies.
//! (An unprivileged user namespace would allow a PID namespace too, but where one
//! can be made, bubblewrap normally runs.)

use anyhow::{Context, bail};
use caps::{CapSet, Capability};
use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use super::helper_words::{ENTRY_COMMAND, INIT_OPTION, LAST_STEP_OPTION};
use super::runtime;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

/// The variable that carries the view to the helper: the helper's environment is
/// unreadable to the agent (non-dumpable), its command line is not.
pub const VIEW_VARIABLE: &str = "PROCTOR_CONTAIN_VIEW";

/// The newest landlock ABI this code asks for.
const ABI_WANTED: ABI = ABI::V6;

/// How long after SIGTERM the helper waits for the agent before it kills every
/// descendant itself: the grace proctor gives every agent (`grace::GRACE`), so an
/// agent saving its work on SIGTERM has the same time in every mode.
const TERM_GRACE_SECONDS: u32 = crate::run::grace::GRACE.as_secs() as u32;

/// What one attempt may read and write: the runtime and `shown` read-only (without
/// what is `hidden` inside them), `writable` whole.
#[derive(Debug, Serialize, Deserialize)]
pub struct View {
    pub shown: Vec<PathBuf>,
    pub hidden: Vec<PathBuf>,
    pub writable: Vec<PathBuf>,
}

/// Read-only besides the runtime: the host's `/proc` (a PID namespace's own where the
/// helper can make one; other processes' secrets there stay behind ptrace checks, which
/// non-dumpable processes without capabilities fail) and the devices programs read.
const SYSTEM_READ: [&str; 3] = ["/proc", "/dev/random", "/dev/urandom"];

/// Devices every program may write.
const SYSTEM_WRITE: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// Limits of one process (`RLIMIT_AS`, `RLIMIT_NPROC`), where no cgroup could be made.
#[derive(Debug, Clone, Copy, Default)]
pub struct PerProcess {
    pub memory: Option<u64>,
    pub procs: Option<u64>,
}

impl PerProcess {
    fn any(&self) -> bool {
        self.memory.is_some() || self.procs.is_some()
    }

    /// Sets them on this process (and so on what it becomes and starts).
    pub fn apply(&self) -> anyhow::Result<()> {
        use nix::sys::resource::{Resource, setrlimit};
        if let Some(bytes) = self.memory {
            setrlimit(Resource::RLIMIT_AS, bytes, bytes).context("RLIMIT_AS")?;
        }
        if let Some(procs) = self.procs {
            setrlimit(Resource::RLIMIT_NPROC, procs, procs).context("RLIMIT_NPROC")?;
        }
        Ok(())
    }

    /// The helper's words that carry them to the last step.
    fn words(&self) -> Vec<String> {
        let mut words = Vec::new();
        if let Some(bytes) = self.memory {
            words.extend(["--rlimit-as".to_owned(), bytes.to_string()]);
        }
        if let Some(procs) = self.procs {
            words.extend(["--rlimit-nproc".to_owned(), procs.to_string()]);
        }
        words
    }
}

/// What landlock offers on this kernel, checked once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// File-system rules (any ABI).
    pub filesystem: bool,
    /// Signals to processes outside the attempt refused (ABI 6).
    pub signals: bool,
}

impl Support {
    pub fn probe() -> Support {
        let filesystem = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(ABI::V1))
            .and_then(|r| r.create())
            .is_ok();
        let signals = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .scope(Scope::from_all(ABI::V6))
            .and_then(|r| r.create())
            .is_ok();
        Support {
            filesystem,
            signals,
        }
    }

    /// The one-line warning naming every protection that is missing.
    pub fn warning(&self, why: &str) -> String {
        let pid_namespace = pid_namespace_possible();
        let mut missing = Vec::new();
        if !pid_namespace {
            missing.push("no PID namespace: agents see host processes");
        }
        missing.extend([
            "no network namespace: agents use the host network",
            "no private /tmp or /dev/shm (only TMPDIR is writable; the host's /tmp cannot be read)",
        ]);
        if !self.filesystem {
            missing.push(
                "no landlock: agents can read the task files and your home folder and write wherever you can",
            );
        } else if !self.signals {
            missing.push("landlock before ABI 6: agents can signal your other processes");
        }
        let mut kept = Vec::new();
        if self.filesystem {
            kept.push(
                "landlock (only what the agent was given readable, its own folders writable)",
            );
        }
        kept.push(if pid_namespace {
            "a PID namespace per attempt that ends with it (and a /proc of its own where the kernel allows)"
        } else {
            "child subreapers (the helper, and proctor for a killed helper's orphans)"
        });
        kept.push("no capabilities, non-dumpable, a session of their own");
        format!(
            "warning: --isolate auto: no namespaces ({why}); agents run with {}; missing: {}",
            kept.join(", "),
            missing.join("; ")
        )
    }
}

/// Whether the helper can make a PID namespace (CAP_SYS_ADMIN, as root): then it
/// does, and nothing the agent starts outlives the namespace's init.
pub fn pid_namespace_possible() -> bool {
    caps::has_cap(None, CapSet::Effective, Capability::CAP_SYS_ADMIN).unwrap_or(false)
}

/// Paths readable under landlock: the runtime, then each shown path, each without what
/// is hidden inside it. Landlock only grants, so a hidden path's ancestors are not
/// granted themselves: their other children are.
pub fn readable(hidden: &[PathBuf], shown: &[PathBuf]) -> Vec<PathBuf> {
    let mut granted = Vec::new();
    let runtime = runtime::entries().iter().filter_map(|entry| match entry {
        runtime::Entry::Shown(path) => Some(path),
        // Followed by the kernel to what it points at, which needs the rule.
        runtime::Entry::Link { .. } => None,
    });
    // A shown path that is itself hidden stays hidden, as in namespaces.
    for path in runtime.chain(shown.iter().filter(|p| !hidden.contains(p))) {
        grant_around(path, hidden, &mut granted);
    }
    granted.extend(SYSTEM_READ.map(PathBuf::from));
    granted.sort();
    granted.dedup();
    granted
}

/// Folders listable under landlock although hidden paths lie inside them: the
/// shown folders (the agent's own, its interpreter's, `--isolate-allow`), so that a
/// program can list its own folder (Python imports a module beside its script so).
/// Landlock grants listing to a whole tree: the names below such a folder can be
/// listed, the hidden files' contents still not read.
pub fn listable(hidden: &[PathBuf], shown: &[PathBuf]) -> Vec<PathBuf> {
    let mut listed: Vec<PathBuf> = shown
        .iter()
        .filter(|v| v.is_dir() && hidden.iter().any(|h| h.starts_with(v) && h != *v))
        .cloned()
        .collect();
    listed.sort();
    listed.dedup();
    listed
}

/// Grants `path` whole, or, where a hidden path lies inside it, its children
/// one by one around the hidden ones.
fn grant_around(path: &Path, hidden: &[PathBuf], granted: &mut Vec<PathBuf>) {
    if !hidden.iter().any(|h| h.starts_with(path) && h != path) {
        granted.push(path.to_owned());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let child = entry.path();
        // A rule holds the inode a link points to, which may be hidden; the link
        // itself needs no rule to be followed.
        if hidden.contains(&child) || entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        grant_around(&child, hidden, granted);
    }
}

/// Restricts this process (and what it starts) to `view`; says how far.
fn restrict(view: &View) -> anyhow::Result<RulesetStatus> {
    let read = AccessFs::from_read(ABI_WANTED);
    let all = AccessFs::from_all(ABI_WANTED);
    let mut writable = view.writable.clone();
    // Not /dev/tty: an agent that could open its user's terminal could push input
    // into it (TIOCSTI), and it has none of its own (its session is new).
    writable.extend(SYSTEM_WRITE.map(PathBuf::from));
    writable.retain(|p| p.exists());
    let status = Ruleset::default()
        .handle_access(all)?
        .scope(Scope::from_all(ABI_WANTED))?
        .create()?
        .add_rules(path_beneath_rules(
            // A dangling link, or an entry gone since it was listed, grants nothing.
            readable(&view.hidden, &view.shown)
                .into_iter()
                .filter(|p| p.exists()),
            read,
        ))?
        .add_rules(path_beneath_rules(
            listable(&view.hidden, &view.shown),
            BitFlags::from(AccessFs::ReadDir),
        ))?
        .add_rules(path_beneath_rules(writable, all))?
        .restrict_self()
        .context("landlock")?;
    Ok(status.ruleset)
}

/// Runs `program args` contained as described in the module doc; returns the
/// agent's exit status as the helper's own.
pub fn supervise(
    program: &str,
    args: &[String],
    parent: i32,
    limits: PerProcess,
) -> anyhow::Result<WaitStatus> {
    let _ = nix::sys::prctl::set_dumpable(false);
    // The next child is PID 1 of a namespace of its own: when it ends, the kernel
    // kills every process left in it. A mount namespace too, for a /proc of its own.
    if unshare(CloneFlags::CLONE_NEWPID | CloneFlags::CLONE_NEWNS).is_ok() {
        return through_init(program, args, parent, limits);
    }
    nix::sys::prctl::set_child_subreaper(true).context("PR_SET_CHILD_SUBREAPER")?;
    let signals = waited_for();
    let agent = start_confined(program, args, &signals, limits)?;
    let status = wait_for(agent, &signals, Some(parent))?;
    kill_descendants();
    Ok(status)
}

/// Starts `__contain --init` as PID 1 of the new namespace and waits for it; the
/// agent's status comes back through a pipe, since an init cannot die of a signal.
fn through_init(
    program: &str,
    args: &[String],
    parent: i32,
    limits: PerProcess,
) -> anyhow::Result<WaitStatus> {
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).context("pipe")?;
    fcntl(&write, FcntlArg::F_SETFD(FdFlag::empty())).context("fcntl")?;
    // Blocked before the init starts, so that it inherits them blocked: the group's
    // SIGTERM waits for it, and this helper stays until the init has ended.
    // With SIGTERM blocked (below), only SIGKILL ends this helper when proctor dies (and
    // the init, dying with it, the namespace): set it first, block, then make sure
    // proctor did not die in between (its SIGTERM would wait, blocked, forever).
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).context("PR_SET_PDEATHSIG")?;
    let signals = waited_for();
    signals.thread_block().context("sigprocmask")?;
    if nix::unistd::getppid().as_raw() != parent {
        bail!("proctor is gone");
    }
    let mut init = std::process::Command::new(std::env::current_exe()?)
        .args([
            ENTRY_COMMAND,
            INIT_OPTION,
            "--parent",
            &std::process::id().to_string(),
            "--status-fd",
            &write.as_raw_fd().to_string(),
        ])
        .args(limits.words())
        .args(["--", program])
        .args(args)
        .spawn()
        .context("cannot start the namespace's init")?;
    drop(write);
    let ended = init.wait().context("wait")?;
    let pid = Pid::from_raw(init.id() as i32);
    let mut said = String::new();
    let _ = std::fs::File::from(read).read_to_string(&mut said);
    let mut words = said.split_whitespace();
    let status = match (words.next(), words.next().and_then(|n| n.parse().ok())) {
        (Some("exit"), Some(code)) => WaitStatus::Exited(pid, code),
        (Some("signal"), Some(number)) => match Signal::try_from(number) {
            Ok(signal) => WaitStatus::Signaled(pid, signal, false),
            Err(_) => WaitStatus::Exited(pid, 128 + number),
        },
        // The init itself was killed (proctor's SIGKILL to the group).
        _ => match (ended.code(), ended.signal()) {
            (Some(code), _) => WaitStatus::Exited(pid, code),
            (None, Some(number)) => WaitStatus::Signaled(
                pid,
                Signal::try_from(number).unwrap_or(Signal::SIGKILL),
                false,
            ),
            _ => WaitStatus::Exited(pid, 1),
        },
    };
    Ok(status)
}

/// PID 1 of the attempt's namespace: dies with the helper, confines itself, starts
/// the agent, reaps, and exits when the agent has (taking every process left in the
/// namespace with it). Writes the agent's status to `status` first.
pub fn init(
    program: &str,
    args: &[String],
    parent: i32,
    status: OwnedFd,
    limits: PerProcess,
) -> anyhow::Result<()> {
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).context("PR_SET_PDEATHSIG")?;
    // The helper may have died before the line above: then nothing must start.
    if parent_of_self() != Some(parent) {
        bail!("the helper that started this init is gone");
    }
    let _ = nix::sys::prctl::set_dumpable(false);
    private_proc();
    let signals = waited_for();
    let agent = start_confined(program, args, &signals, limits)?;
    let ended = wait_for(agent, &signals, None)?;
    let line = match ended {
        WaitStatus::Signaled(_, signal, _) => format!("signal {}", signal as i32),
        WaitStatus::Exited(_, code) => format!("exit {code}"),
        _ => "exit 1".to_owned(),
    };
    let _ = std::fs::File::from(status).write_all(line.as_bytes());
    std::process::exit(0);
}

/// Mounts a /proc of the namespace's own (its mounts private first, so nothing
/// propagates to the host's): the agent sees only its attempt's processes, and its
/// own PIDs (`$$`) name its own entries. Where the kernel refuses (a /proc with
/// masked paths, as in some containers), the host's stays.
fn private_proc() {
    let none: Option<&str> = None;
    let private = mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none);
    if private.is_ok() {
        let _ = mount(
            Some("proc"),
            "/proc",
            Some("proc"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
            none,
        );
    }
}

/// Landlock (when the view is given), then no privileges at all: `no_new_privs`
/// and every capability dropped, so a root agent can neither read proctor's or
/// another attempt's environment (`/proc/PID/environ` of a non-dumpable process
/// needs CAP_SYS_PTRACE) nor change the host (its name, mounts, network).
fn confine() -> anyhow::Result<()> {
    if let Some(text) = std::env::var_os(VIEW_VARIABLE) {
        let view: View = serde_json::from_str(&text.to_string_lossy())
            .with_context(|| format!("{VIEW_VARIABLE} is not a view"))?;
        restrict(&view)?;
    }
    nix::sys::prctl::set_no_new_privs().context("PR_SET_NO_NEW_PRIVS")?;
    // Emptying the bounding set takes CAP_SETPCAP; without it there is nothing to
    // drop (an unprivileged user's other sets are empty, and no_new_privs keeps
    // them so across exec).
    if caps::has_cap(None, CapSet::Effective, Capability::CAP_SETPCAP).unwrap_or(false) {
        caps::clear(None, CapSet::Bounding).context("capabilities (bounding set)")?;
    }
    for set in [
        CapSet::Ambient,
        CapSet::Inheritable,
        CapSet::Effective,
        CapSet::Permitted,
    ] {
        caps::clear(None, set).with_context(|| format!("capabilities ({set:?})"))?;
    }
    Ok(())
}

/// The signals the helper waits for in its loop (blocked, taken by sigwait).
fn waited_for() -> SigSet {
    let mut signals = SigSet::empty();
    for signal in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGALRM,
    ] {
        signals.add(signal);
    }
    signals
}

/// Starts the agent confined: this process confines itself and starts it, or, with
/// per-process limits, starts the last step, which confines itself, sets them and becomes
/// the agent (set here, they would bound this process too).
fn start_confined(
    program: &str,
    args: &[String],
    signals: &SigSet,
    limits: PerProcess,
) -> anyhow::Result<Pid> {
    if !limits.any() {
        confine()?;
        return start(program, args, signals);
    }
    let me = std::env::current_exe()?;
    let mut words = vec![ENTRY_COMMAND.to_owned(), LAST_STEP_OPTION.to_owned()];
    words.extend(limits.words());
    words.extend(["--".to_owned(), program.to_owned()]);
    words.extend(args.iter().cloned());
    start_keeping_view(&me.to_string_lossy(), &words, signals)
}

/// The last step before the agent: confined, limited, then the agent itself.
pub fn last_step(program: &str, args: &[String], limits: PerProcess) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    confine()?;
    limits.apply()?;
    let error = std::process::Command::new(program)
        .args(args)
        .env_remove(VIEW_VARIABLE)
        .exec();
    Err(anyhow::Error::new(error).context(format!("cannot start {program}")))
}

/// Starts the agent with no signal blocked (a child inherits the mask, and std
/// leaves it as it is), then blocks `signals` for the loop. A SIGCHLD that came
/// in between is found by the first reap.
fn start(program: &str, args: &[String], signals: &SigSet) -> anyhow::Result<Pid> {
    spawn_unblocked(
        std::process::Command::new(program)
            .args(args)
            .env_remove(VIEW_VARIABLE),
        program,
        signals,
    )
}

/// [`start`] for the last step, which reads the view itself.
fn start_keeping_view(program: &str, args: &[String], signals: &SigSet) -> anyhow::Result<Pid> {
    spawn_unblocked(
        std::process::Command::new(program).args(args),
        program,
        signals,
    )
}

fn spawn_unblocked(
    command: &mut std::process::Command,
    program: &str,
    signals: &SigSet,
) -> anyhow::Result<Pid> {
    SigSet::all().thread_unblock().context("sigprocmask")?;
    let agent = command
        .spawn()
        .with_context(|| format!("cannot start {program}"));
    signals.thread_block().context("sigprocmask")?;
    Ok(Pid::from_raw(agent?.id() as i32))
}

/// Waits for the agent, reaping whatever else ends; SIGTERM (the group got it
/// too) gives the agent a moment before everything is killed, unless proctor (the
/// subreaper's `parent`) is gone: its death signal kills at once, since nobody is left to
/// read what the agent would save. An init (no `parent`) kills by exiting: the kernel
/// then kills its namespace.
fn wait_for(agent: Pid, signals: &SigSet, parent: Option<i32>) -> anyhow::Result<WaitStatus> {
    let init = parent.is_none();
    if let Some(status) = reap(agent) {
        return Ok(status);
    }
    loop {
        match signals.wait().context("sigwait")? {
            Signal::SIGCHLD => {
                if let Some(status) = reap(agent) {
                    return Ok(status);
                }
            }
            // The grace is over: the agent and all it started are killed (and reaped,
            // so its status is no longer there to wait for).
            Signal::SIGALRM => {
                if !init {
                    kill_descendants();
                }
                return Ok(WaitStatus::Signaled(agent, Signal::SIGKILL, false));
            }
            _ if parent.is_some_and(|p| nix::unistd::getppid().as_raw() != p) => {
                kill_descendants();
                return Ok(WaitStatus::Signaled(agent, Signal::SIGKILL, false));
            }
            _ => {
                nix::unistd::alarm::set(TERM_GRACE_SECONDS);
            }
        }
    }
}

/// The parent of this process as the host sees it: read from the host's `/proc`, before
/// the init mounts one of its own (getppid() says 0 for a parent outside the namespace).
fn parent_of_self() -> Option<i32> {
    parent_in(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// Ends the helper as the agent ended: its exit code, or its signal.
pub fn end_as(status: WaitStatus) -> ! {
    if let WaitStatus::Signaled(_, signal, _) = status {
        let _ = SigSet::all().thread_unblock();
        let _ = nix::sys::signal::raise(signal);
        std::process::exit(128 + signal as i32);
    }
    match status {
        WaitStatus::Exited(_, code) => std::process::exit(code),
        _ => std::process::exit(1),
    }
}

/// Reaps every child that has ended; the agent's status once it is among them.
fn reap(agent: Pid) -> Option<WaitStatus> {
    let mut found = None;
    while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
        match status {
            WaitStatus::StillAlive => break,
            status if status.pid() == Some(agent) => found = Some(status),
            _ => {}
        }
    }
    found
}

/// SIGKILL to every process below this one until none is left. Killed parents'
/// children come to this subreaper, so each round finds what the last one left.
fn kill_descendants() {
    let me = std::process::id() as i32;
    loop {
        let below = descendants(me);
        if below.is_empty() {
            // Reap what the last round killed.
            while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                if status == WaitStatus::StillAlive {
                    break;
                }
            }
            return;
        }
        for pid in &below {
            let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
        }
        // Blocks until one of them is reaped; ECHILD ends the rounds.
        if waitpid(None, None).is_err() {
            return;
        }
    }
}

/// Where helpers run without a PID namespace, proctor is a child subreaper too, so
/// that what a killed helper leaves comes back to proctor rather than to the host's
/// init, and `kill_adopted` ends it after the attempt.
pub fn adopt_orphans() {
    let _ = nix::sys::prctl::set_child_subreaper(true);
}

/// Kills and reaps every process proctor adopted, with all it started: a child of
/// proctor in a session other than proctor's (every other child proctor starts stays
/// in proctor's session) that is none of the `helpers` still running.
pub fn kill_adopted(helpers: &[i32]) {
    let me = std::process::id() as i32;
    let own = nix::unistd::getsid(None).ok();
    loop {
        let adopted: Vec<i32> = children_of(me)
            .into_iter()
            .filter(|pid| !helpers.contains(pid))
            .filter(|pid| nix::unistd::getsid(Some(Pid::from_raw(*pid))).ok() != own)
            .collect();
        if adopted.is_empty() {
            return;
        }
        for pid in &adopted {
            for below in descendants(*pid).into_iter().chain([*pid]) {
                let _ = kill(Pid::from_raw(below), Signal::SIGKILL);
            }
        }
        // Their children come to proctor in turn: the next round finds them.
        for pid in &adopted {
            let _ = waitpid(Pid::from_raw(*pid), None);
        }
    }
}

/// The live children of `parent`, from /proc.
fn children_of(parent: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|pid| parent_of(*pid) == Some(parent))
        .collect()
}

/// Every live process whose chain of parents leads to `root`, from /proc.
pub fn descendants(root: i32) -> Vec<i32> {
    let mut parents: Vec<(i32, i32)> = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if let Some(parent) = parent_of(pid) {
            parents.push((pid, parent));
        }
    }
    let mut found = vec![root];
    let mut index = 0;
    while index < found.len() {
        let parent = found[index];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        index += 1;
    }
    found.remove(0);
    found
}

/// The parent in `/proc/PID/stat` (after the command name, which may hold
/// spaces and parentheses); zombies are left to waitpid.
fn parent_of(pid: i32) -> Option<i32> {
    parent_in(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn parent_in(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" {
        return None;
    }
    fields.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_runtime_and_shown_paths_are_granted_without_what_is_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let results = project.join("results");
        std::fs::create_dir_all(&results).unwrap();
        std::fs::write(results.join("old.jsonl"), "x").unwrap();
        std::fs::write(project.join("tasks.yaml"), "x").unwrap();
        std::fs::write(project.join("agent.py"), "x").unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        let hidden = [results.clone(), project.join("tasks.yaml")];
        let granted = readable(&hidden, std::slice::from_ref(&project));
        assert!(granted.contains(&project.join("agent.py")), "{granted:?}");
        assert!(granted.contains(&PathBuf::from("/usr")), "{granted:?}");
        for path in [
            &results.join("old.jsonl"),
            &project.join("tasks.yaml"),
            &project,
            &root.join("other"),
            &PathBuf::from("/etc/shadow"),
            &PathBuf::from("/etc"),
            &PathBuf::from("/root"),
        ] {
            assert!(
                !granted.iter().any(|g| path.starts_with(g)),
                "{} readable: {granted:?}",
                path.display()
            );
        }
        assert!(!granted.iter().any(|g| g == Path::new("/")));
    }

    #[test]
    fn shown_folders_holding_hidden_files_stay_listable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let agent = root.join("agent");
        let plain = root.join("plain");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&plain).unwrap();
        std::fs::write(agent.join("tasks.yaml"), "x").unwrap();
        let hidden = [agent.join("tasks.yaml"), root.join("results.jsonl")];
        let listed = listable(&hidden, &[agent.clone(), plain.clone()]);
        // `plain` holds nothing hidden: it is readable whole already.
        assert_eq!(listed, [agent]);
    }
}
