//! The commands proctor starts for an attempt, command checks and script tool backends,
//! run contained like the run's agents (docs/agent-protocol.md, "What an agent sees"):
//! the same mode (namespaces, the fallback, or a plain process group under `--isolate
//! none`), the same `--max-memory` and `--max-procs` (a group of their own per command),
//! the minimal environment with a private `HOME` and `TMPDIR`, the sandbox as working
//! folder, a view composed like an agent's, and nothing they start left running once they
//! end. Their own files (beside the task file) are shown to them read-only, though agents
//! never see them. At most a fixed number run at once across the run.

use super::{Entry, Isolation, NetworkMode, Prepared, Sight, bubblewrap, fallback, visible};
use crate::run::agent::AgentSpec;
use crate::run::environment::{AgentEnvironment, PassEnv};
use crate::run::process::{self, AgentRun, Exit, Launch};
use proctor_core::end_state::{CheckCommand, CommandEnd, CommandRunner};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// One command to start contained.
#[derive(Debug)]
pub struct Helper<'a> {
    pub argv: &'a [String],
    /// Its own files, beside the task file: shown read-only, though hidden from agents.
    pub files: &'a [PathBuf],
    /// The attempt's sandbox: the working folder.
    pub sandbox: &'a Path,
    /// Script backends keep their state in the sandbox; a command check only reads the
    /// end state it checks, so its sandbox is read-only (where the mode can say so).
    pub sandbox_writable: bool,
    /// The attempt's tool state folder, shown at its path (writable with the sandbox):
    /// agents never see it.
    pub state: Option<&'a Path>,
    /// Its private `HOME` and `TMPDIR`, the only other places it may write.
    pub home: &'a Path,
    pub tmp: &'a Path,
}

impl Isolation {
    /// The command that starts `helper` contained like this run's agents. Its view: what
    /// agents may not see stays hidden, except its own files; its program (and an
    /// interpreter's installation) is shown as an agent's would be.
    pub fn prepare_helper(&self, helper: &Helper<'_>) -> io::Result<Prepared> {
        let Some((program, args)) = helper.argv.split_first() else {
            return Err(io::Error::other("empty command line"));
        };
        let mut entry = Entry::default();
        let groups = self.limits.for_attempt(&mut entry)?;
        let mut writable = vec![helper.home, helper.tmp];
        if helper.sandbox_writable {
            writable.push(helper.sandbox);
            writable.extend(helper.state);
        }
        let (sight, shown) = self.helper_sight(helper, program, args)?;
        let mut env = Vec::new();
        match &self.bwrap {
            Some(bwrap) => {
                let mut words = bubblewrap::arguments(&bubblewrap::View {
                    shown: &sight.shown,
                    hidden: &sight.hidden,
                    forwarding: &shown,
                    writable: &writable,
                    etc: self.etc_copy(),
                    tmp: None,
                    working_dir: helper.sandbox,
                    network: self.network == NetworkMode::Host,
                });
                words.extend(helper.argv.iter().cloned());
                entry.bwrap = Some(bwrap.clone());
                let (program, args) = entry.command(&words[0], &words[1..])?;
                return Ok(Prepared {
                    program,
                    args,
                    env,
                    groups,
                    relays: None,
                    disk: None,
                    bubblewrap: true,
                });
            }
            None if self.fallback => {
                entry.fallback = true;
                let view = fallback::View {
                    shown: sight.shown,
                    hidden: sight.hidden,
                    writable: writable.iter().map(|p| p.to_path_buf()).collect(),
                };
                let view = serde_json::to_string(&view).map_err(io::Error::other)?;
                env.push((fallback::VIEW_VARIABLE.to_owned(), view));
            }
            None => {}
        }
        let (program, args) = entry.command(program, args)?;
        Ok(Prepared {
            program,
            args,
            env,
            groups,
            relays: None,
            disk: None,
            bubblewrap: false,
        })
    }

    /// What `helper` sees: its program as an agent's would be, and its own files'
    /// folders (its modules lie beside it, on PYTHONPATH), walked like an agent's, so
    /// that other grading data there stays hidden; its own files shown again after the
    /// hiding. With them, what is shown after everything is hidden: its files, and the
    /// sandbox and state read-only when it may not write them.
    fn helper_sight<'h>(
        &self,
        helper: &'h Helper<'_>,
        program: &str,
        args: &[String],
    ) -> io::Result<(Sight, Vec<&'h Path>)> {
        let as_agent = AgentSpec {
            name: String::new(),
            program: program.to_owned(),
            args: args.to_vec(),
            env: Vec::new(),
            pass_env: PassEnv::default(),
        };
        let allow: Vec<PathBuf> = helper
            .files
            .iter()
            .filter_map(|f| f.parent().map(Path::to_owned))
            .collect();
        let composed = match self.bwrap.is_some() || self.fallback {
            true => Sight::compose(
                &visible::for_agent(&as_agent, &allow),
                &self.hidden,
                &self.found,
            )
            .map_err(|e| io::Error::other(e.to_string()))?,
            false => Sight::default(),
        };
        let mut sight = Sight {
            hidden: composed
                .hidden
                .into_iter()
                .filter(|path| !helper.files.contains(path))
                .collect(),
            shown: composed.shown,
        };
        sight.shown.extend(helper.files.iter().cloned());
        let mut shown: Vec<&Path> = helper.files.iter().map(PathBuf::as_path).collect();
        if !helper.sandbox_writable {
            for folder in std::iter::once(helper.sandbox).chain(helper.state) {
                sight.shown.push(folder.to_owned());
                shown.push(folder);
            }
        }
        Ok((sight, shown))
    }
}

/// Runs command checks and script backends contained (see the module), at most
/// `at_once` across the run: a caller waits for a slot before its command starts.
#[derive(Debug, Clone)]
pub struct ContainedCommands {
    isolation: Arc<Isolation>,
    slots: Arc<Semaphore>,
    /// Where each command's private folder (its `HOME` and `TMPDIR`) is made: proctor's
    /// own folder of the run, hidden from agents.
    private: PathBuf,
    /// That folder, when it is this value's own (offline grading).
    _owned: Option<Arc<tempfile::TempDir>>,
}

/// A contained command ready to start: removed (its groups, its private folder) when
/// dropped, after its processes are gone.
#[derive(Debug)]
struct Ready {
    prepared: Prepared,
    vars: Vec<(String, String)>,
    _private: tempfile::TempDir,
}

impl Ready {
    fn launch<'a>(&'a self, call: &Call<'a>) -> Launch<'a> {
        Launch {
            program: &self.prepared.program,
            args: &self.prepared.args,
            env: &self.vars,
            cwd: call.sandbox,
            stdin_line: call.stdin_line.clone(),
            timeout: call.timeout,
            // The attempt's disk is watched while its agent runs; a command's files are
            // capped by RLIMIT_FSIZE through its entry like the agent's.
            disk: None,
            bubblewrap: self.prepared.bubblewrap,
        }
    }
}

/// A command left running ([`ContainedCommands::start`]), until [`Started::stop`].
#[derive(Debug)]
pub struct Started {
    pub spawned: process::Spawned,
    ready: Ready,
}

impl Started {
    /// Stops it and everything it started, then removes its groups and private folder.
    pub async fn stop(self) {
        let _ = self.spawned.stop().await;
        drop(self.ready);
    }
}

/// One command as [`ContainedCommands::run`] takes it.
#[derive(Debug)]
pub struct Call<'a> {
    pub argv: &'a [String],
    pub files: &'a [PathBuf],
    pub sandbox: &'a Path,
    pub sandbox_writable: bool,
    /// The tool state folder: `PROCTOR_STATE_DIR`, shown like the sandbox.
    pub state: Option<&'a Path>,
    /// Added to the minimal environment.
    pub env: &'a [(String, String)],
    /// Written to stdin, then a newline.
    pub stdin_line: String,
    pub timeout: Duration,
}

impl ContainedCommands {
    pub fn new(isolation: Arc<Isolation>, at_once: usize, private: PathBuf) -> ContainedCommands {
        ContainedCommands {
            isolation,
            slots: Arc::new(Semaphore::new(at_once.max(1))),
            private,
            _owned: None,
        }
    }

    /// The command checks of offline grading (`proctor grade --workdir`, `proctor
    /// judge`): no agent ran here, so they are contained as `--isolate auto` contains
    /// one, without limits, with `hidden` (the task files, the logs) out of their sight.
    pub fn offline(hidden: Vec<PathBuf>, at_once: usize) -> anyhow::Result<ContainedCommands> {
        let private = tempfile::Builder::new()
            .prefix("proctor-grade-")
            .rand_bytes(12)
            .tempdir()?;
        let mut hidden = hidden;
        hidden.push(private.path().to_owned());
        let options = super::IsolationOptions {
            mode: super::IsolateMode::Auto,
            network: NetworkMode::Host,
            allow: Vec::new(),
            limits: super::Requested::default(),
        };
        let isolation = Isolation::set_up(&options, &[], hidden)?;
        Ok(ContainedCommands {
            private: private.path().to_owned(),
            _owned: Some(Arc::new(private)),
            ..ContainedCommands::new(Arc::new(isolation), at_once, PathBuf::new())
        })
    }

    /// Plain commands (`--isolate none`, no limits), for unit tests.
    #[cfg(test)]
    pub fn plain(private: PathBuf) -> ContainedCommands {
        let options = super::IsolationOptions {
            mode: super::IsolateMode::None,
            network: NetworkMode::Host,
            allow: Vec::new(),
            limits: super::Requested::default(),
        };
        let isolation = Isolation::set_up(&options, &[], Vec::new()).unwrap();
        ContainedCommands::new(Arc::new(isolation), 4, private)
    }

    /// What the containment says of itself (a warning naming what is missing without
    /// namespaces), to print before the first command runs.
    pub fn notes(&self) -> &[String] {
        &self.isolation.notes
    }

    /// Runs `call` once a slot is free, contained, to its end or its timeout.
    pub async fn run(&self, call: Call<'_>) -> io::Result<AgentRun> {
        let _slot = self.slots.acquire().await.map_err(io::Error::other)?;
        let ready = self.ready(&call)?;
        // A sender dropped at once: the command is never cancelled, only timed out.
        let (_, never) = tokio::sync::watch::channel(false);
        let ran = process::run(ready.launch(&call), never).await;
        // Its processes are gone: its groups and private folder can go too.
        drop(ready);
        ran
    }

    /// Starts `call` contained and leaves it running (a `server` backend), without
    /// taking a slot: it lives as long as its attempt. Its stdin line is not written.
    pub fn start(&self, call: Call<'_>) -> io::Result<Started> {
        let ready = self.ready(&call)?;
        let spawned = process::spawn(&ready.launch(&call))?;
        Ok(Started { spawned, ready })
    }

    /// The contained command of `call`, with its private `HOME` and `TMPDIR` and its
    /// environment.
    fn ready(&self, call: &Call<'_>) -> io::Result<Ready> {
        let private = tempfile::Builder::new()
            .prefix("command-")
            .rand_bytes(12)
            .tempdir_in(&self.private)?;
        let home = private.path().join("home");
        let tmp = private.path().join("tmp");
        std::fs::create_dir(&home)?;
        std::fs::create_dir(&tmp)?;
        let prepared = self.isolation.prepare_helper(&Helper {
            argv: call.argv,
            files: call.files,
            sandbox: call.sandbox,
            sandbox_writable: call.sandbox_writable,
            state: call.state,
            home: &home,
            tmp: &tmp,
        })?;
        // The harmless host variables only: nothing of proctor's environment (a judge key).
        let mut environment = AgentEnvironment::from_host(std::env::vars_os(), &PassEnv::default());
        environment.set("HOME", home.to_string_lossy());
        environment.set("TMPDIR", tmp.to_string_lossy());
        for (name, value) in python_paths(call.files) {
            environment.set(name, value);
        }
        for (name, value) in call.env {
            environment.set(name, value.clone());
        }
        if let Some(state) = call.state {
            environment.set(STATE_VARIABLE, state.to_string_lossy());
        }
        let mut vars = environment.vars().to_vec();
        vars.extend(prepared.env.iter().cloned());
        Ok(Ready {
            prepared,
            vars,
            _private: private,
        })
    }

    async fn check(
        &self,
        command: &CheckCommand<'_>,
        state: Option<&Path>,
    ) -> io::Result<CommandEnd> {
        let ran = self
            .run(Call {
                argv: command.argv,
                files: command.files,
                sandbox: command.dir,
                sandbox_writable: false,
                state,
                env: &[],
                stdin_line: String::new(),
                timeout: command.timeout,
            })
            .await?;
        let stderr = ran.stderr.bytes;
        Ok(match (ran.stopped, ran.exit) {
            (Some(_), _) => CommandEnd::TimedOut,
            (None, Exit::Code(code)) => CommandEnd::Exited { code, stderr },
            (None, Exit::Signal(signal)) => CommandEnd::Killed { signal, stderr },
        })
    }
}

/// How Python finds modules in a contained command: never in its working folder, the
/// sandbox, where a `json.py` the agent left would stand in for the standard library of a
/// `python3 -c` check (`PYTHONSAFEPATH`, Python 3.11 and later), but beside the command's own
/// files (`PYTHONPATH`), where a check script's helper modules are.
fn python_paths(files: &[PathBuf]) -> Vec<(&'static str, String)> {
    let mut folders: Vec<&Path> = Vec::new();
    for folder in files.iter().filter_map(|file| file.parent()) {
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    let mut vars = vec![("PYTHONSAFEPATH", "1".to_owned())];
    if let Ok(joined) = std::env::join_paths(&folders)
        && !folders.is_empty()
    {
        vars.push(("PYTHONPATH", joined.to_string_lossy().into_owned()));
    }
    vars
}

impl ContainedCommands {
    /// Grading is synchronous: the command runs on a thread of its own with a small
    /// runtime, whether or not the caller is inside one.
    fn check_blocking(
        &self,
        command: &CheckCommand<'_>,
        state: Option<&Path>,
    ) -> io::Result<CommandEnd> {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()?
                        .block_on(self.check(command, state))
                })
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the command's thread panicked")))
        })
    }

    /// The command checks of one attempt, which see its tool state folder.
    pub fn with_state<'a>(&'a self, state: Option<&'a Path>) -> AttemptCommands<'a> {
        AttemptCommands {
            commands: self,
            state,
            missing_state: None,
        }
    }
}

impl CommandRunner for ContainedCommands {
    fn run(&self, command: &CheckCommand<'_>) -> io::Result<CommandEnd> {
        self.check_blocking(command, None)
    }
}

/// The variable that tells backends and command checks where the tool state folder is.
pub const STATE_VARIABLE: &str = "PROCTOR_STATE_DIR";

/// One attempt's command checks: `state:` paths and `PROCTOR_STATE_DIR` name its tool
/// state folder.
#[derive(Debug, Clone, Copy)]
pub struct AttemptCommands<'a> {
    commands: &'a ContainedCommands,
    state: Option<&'a Path>,
    /// Where the state folder was looked for and not found, for the checks' messages.
    missing_state: Option<&'a Path>,
}

impl<'a> AttemptCommands<'a> {
    /// The same commands, having looked for the state folder at `looked` and not found it.
    pub fn state_missing_at(self, looked: Option<&'a Path>) -> AttemptCommands<'a> {
        AttemptCommands {
            missing_state: looked,
            ..self
        }
    }
}

impl CommandRunner for AttemptCommands<'_> {
    fn run(&self, command: &CheckCommand<'_>) -> io::Result<CommandEnd> {
        self.commands.check_blocking(command, self.state)
    }

    fn state_dir(&self) -> Option<&Path> {
        self.state
    }

    fn missing_state(&self) -> Option<&Path> {
        self.missing_state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_gets_the_minimal_environment_and_a_private_home() {
        let private = tempfile::tempdir().unwrap();
        let sandbox = tempfile::tempdir().unwrap();
        let commands = ContainedCommands::plain(private.path().to_owned());
        let argv: Vec<String> = [
            "sh",
            "-c",
            "test -z \"$CARGO\" && test -d \"$HOME\" && test \"$HOME\" != \"$TMPDIR\"",
        ]
        .map(String::from)
        .to_vec();
        let ended = CommandRunner::run(
            &commands,
            &CheckCommand {
                argv: &argv,
                files: &[],
                dir: sandbox.path(),
                timeout: Duration::from_secs(30),
            },
        )
        .unwrap();
        assert_eq!(
            ended,
            CommandEnd::Exited {
                code: 0,
                stderr: Vec::new()
            }
        );
        // Its private folder is gone with it.
        assert_eq!(std::fs::read_dir(private.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_timed_out_check_says_so() {
        let private = tempfile::tempdir().unwrap();
        let sandbox = tempfile::tempdir().unwrap();
        let commands = ContainedCommands::plain(private.path().to_owned());
        let argv: Vec<String> = ["sleep", "10"].map(String::from).to_vec();
        let ended = CommandRunner::run(
            &commands,
            &CheckCommand {
                argv: &argv,
                files: &[],
                dir: sandbox.path(),
                timeout: Duration::from_millis(200),
            },
        )
        .unwrap();
        assert_eq!(ended, CommandEnd::TimedOut);
    }
}
