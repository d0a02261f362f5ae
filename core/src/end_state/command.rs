//! The `command` check: runs a command line against the directory, with a timeout, and
//! compares its exit code. How the process is started is the caller's: proctor passes a
//! [`CommandRunner`] that contains it like the agent; the words of the line that name
//! files beside the task file (the check's own script) were made absolute when the task
//! loaded, so a file the agent planted in its sandbox cannot stand in for them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::text::last_line;

#[cfg(test)]
mod plain;
#[cfg(test)]
pub(crate) use plain::PlainCommands;

/// Longest stderr line shown in a failure text (characters, before `…`).
const STDERR_LINE_CHARS: usize = 120;
/// Longest timeout honoured (about 115 days), so that a huge `timeout_s` cannot overflow.
const MAX_TIMEOUT_S: f64 = 1e7;

/// Splits a command line like a shell would (quotes, backslashes; no expansion).
pub(crate) fn split(run: &str) -> Result<Vec<String>, String> {
    let argv = shell_words::split(run).map_err(|e| e.to_string())?;
    if argv.is_empty() {
        return Err("empty command line".to_owned());
    }
    Ok(argv)
}

/// `run` split into words, every relative word (not an option) that names a regular file
/// in `task_dir` made absolute, and those files. A relative program path (`./check.sh`,
/// `checks/run`) must name such a file: it is never looked up in the sandbox.
pub(crate) fn resolve(run: &str, task_dir: &Path) -> Result<(Vec<String>, Vec<PathBuf>), String> {
    let words = split(run)?;
    let mut argv = Vec::with_capacity(words.len());
    let mut files = Vec::new();
    for (at, word) in words.into_iter().enumerate() {
        let relative = !Path::new(&word).is_absolute() && !word.starts_with('-');
        let candidate = task_dir.join(&word);
        // A bare program name is looked up in PATH, never in a folder.
        let may_name_a_file = relative && (at > 0 || word.contains('/'));
        if may_name_a_file && candidate.is_file() {
            let absolute = candidate
                .canonicalize()
                .map_err(|e| format!("{}: {e}", candidate.display()))?;
            argv.push(absolute.to_string_lossy().into_owned());
            files.push(absolute);
        } else if at == 0 && may_name_a_file {
            return Err(format!(
                "{} does not exist (a relative program is relative to the task file's folder)",
                candidate.display()
            ));
        } else {
            argv.push(word);
        }
    }
    Ok((argv, files))
}

/// One command check's process, as a [`CommandRunner`] starts it.
#[derive(Debug)]
pub struct CheckCommand<'a> {
    /// The program and its arguments, the check's own files absolute.
    pub argv: &'a [String],
    /// The check's own files (beside the task file), which it must be able to read.
    pub files: &'a [PathBuf],
    /// The end state: the working directory.
    pub dir: &'a Path,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

/// How a command check's process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandEnd {
    /// It exited with this code; the end of its stderr.
    Exited {
        /// The exit code.
        code: i32,
        /// The end of its stderr.
        stderr: Vec<u8>,
    },
    /// A signal ended it; the end of its stderr.
    Killed {
        /// The signal number.
        signal: i32,
        /// The end of its stderr.
        stderr: Vec<u8>,
    },
    /// It was still running at the timeout and was killed.
    TimedOut,
}

/// Starts command checks. The caller decides the containment: stdin empty or one empty
/// line, stdout dropped, and nothing the command started left running afterwards.
pub trait CommandRunner: std::fmt::Debug + Send + Sync {
    /// Runs `command` to its end or its timeout; `Err` when it could not start.
    fn run(&self, command: &CheckCommand<'_>) -> std::io::Result<CommandEnd>;

    /// The attempt's tool state folder, which `state:` paths name; `None` when it has
    /// none.
    fn state_dir(&self) -> Option<&Path> {
        None
    }

    /// Where the tool state folder was looked for and not found, when it was: a `state:`
    /// check then names that place rather than blaming the task.
    fn missing_state(&self) -> Option<&Path> {
        None
    }
}

/// A parsed `command` check, as [`check`] runs it.
#[derive(Debug)]
pub(crate) struct Check<'a> {
    pub run: &'a str,
    pub argv: &'a [String],
    pub files: &'a [PathBuf],
    pub exit_code: i32,
    pub timeout_s: f64,
}

/// Runs the check in `dir` through `runner` and checks that it exits with its `exit_code`
/// within its `timeout_s`.
///
/// Failure texts: `command "LINE": exit code N, expected M (stderr: LAST LINE)`,
/// `command "LINE": killed by signal N, expected exit code M (stderr: ...)`,
/// `command "LINE": timed out after Ss`, `command "LINE": could not start: ERROR`.
pub(crate) fn check(
    dir: &Path,
    command: &Check<'_>,
    runner: &dyn CommandRunner,
) -> Result<(), String> {
    let Check {
        run,
        argv,
        files,
        exit_code,
        timeout_s,
    } = *command;
    if argv.is_empty() {
        return Err(format!(
            "command {run:?}: invalid command line: empty command line"
        ));
    }
    // Absolute, so that a runner changing its root first (bubblewrap's `--chdir`) finds
    // the same folder as `proctor grade --workdir work` meant.
    let dir = &absolute_dir(dir);
    let timeout = Duration::from_secs_f64(if timeout_s > 0.0 {
        timeout_s.min(MAX_TIMEOUT_S)
    } else {
        0.0
    });
    let ended = runner
        .run(&CheckCommand {
            argv,
            files,
            dir,
            timeout,
        })
        .map_err(|e| format!("command {run:?}: could not start: {e}"))?;
    let (mut text, stderr) = match ended {
        CommandEnd::TimedOut => {
            return Err(format!("command {run:?}: timed out after {timeout_s}s"));
        }
        CommandEnd::Exited { code, .. } if code == exit_code => return Ok(()),
        CommandEnd::Exited { code, stderr } => (
            format!("command {run:?}: exit code {code}, expected {exit_code}"),
            stderr,
        ),
        CommandEnd::Killed { signal, stderr } => (
            format!("command {run:?}: killed by signal {signal}, expected exit code {exit_code}"),
            stderr,
        ),
    };
    if let Some(line) = last_line(&String::from_utf8_lossy(&stderr), STDERR_LINE_CHARS) {
        text.push_str(&format!(" (stderr: {line})"));
    }
    Err(text)
}

/// `dir` with its links resolved, or at least absolute, as a runner is handed it.
fn absolute_dir(dir: &Path) -> PathBuf {
    dir.canonicalize()
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// The check of `run`, its own files resolved beside a task file in `task_dir`.
    fn check_in(
        dir: &Path,
        task_dir: &Path,
        run: &str,
        exit_code: i32,
        timeout_s: f64,
    ) -> Result<(), String> {
        let (argv, files) = resolve(run, task_dir).unwrap_or_default();
        let command = Check {
            run,
            argv: &argv,
            files: &files,
            exit_code,
            timeout_s,
        };
        super::check(dir, &command, &PlainCommands)
    }

    fn check(dir: &Path, run: &str, exit_code: i32, timeout_s: f64) -> Result<(), String> {
        check_in(
            dir,
            Path::new("/nonexistent-task-dir"),
            run,
            exit_code,
            timeout_s,
        )
    }

    #[test]
    fn passes_on_the_expected_exit_code() {
        let dir = sandbox();
        std::fs::write(dir.path().join("answer.txt"), "42\n").unwrap();
        assert_eq!(check(dir.path(), "grep -q 42 answer.txt", 0, 30.0), Ok(()));
        assert_eq!(check(dir.path(), "sh -c 'exit 3'", 3, 30.0), Ok(()));
    }

    #[test]
    fn runs_in_the_directory_with_its_own_files_beside_the_task_file() {
        let dir = sandbox();
        let task = sandbox();
        std::fs::write(task.path().join("check.sh"), "test -f marker\n").unwrap();
        // The agent's own check.sh is never the one that runs.
        std::fs::write(dir.path().join("check.sh"), "exit 0\n").unwrap();
        for run in ["sh check.sh", "./check.sh"] {
            if run == "./check.sh" {
                let script = task.path().join("check.sh");
                std::fs::write(&script, "#!/bin/sh\ntest -f marker\n").unwrap();
                let mut mode = std::fs::metadata(&script).unwrap().permissions();
                std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
                std::fs::set_permissions(&script, mode).unwrap();
            }
            let _ = std::fs::remove_file(dir.path().join("marker"));
            assert_eq!(
                check_in(dir.path(), task.path(), run, 0, 30.0),
                Err(format!("command {run:?}: exit code 1, expected 0"))
            );
            std::fs::write(dir.path().join("marker"), "").unwrap();
            assert_eq!(check_in(dir.path(), task.path(), run, 0, 30.0), Ok(()));
        }
    }

    #[test]
    fn resolves_the_checks_own_files_against_the_task_folder() {
        let task = sandbox();
        std::fs::create_dir(task.path().join("checks")).unwrap();
        std::fs::write(task.path().join("checks/verify.py"), "").unwrap();
        let folder = task.path().canonicalize().unwrap();
        let verify = folder.join("checks/verify.py");
        assert_eq!(
            resolve("python3 checks/verify.py report.json -v", task.path()),
            Ok((
                vec![
                    "python3".to_owned(),
                    verify.display().to_string(),
                    "report.json".to_owned(),
                    "-v".to_owned()
                ],
                vec![verify.clone()]
            ))
        );
        // A bare program name is looked up in PATH; a relative program must exist.
        std::fs::write(task.path().join("true"), "").unwrap();
        assert_eq!(resolve("true", task.path()).unwrap().0, ["true"]);
        let missing = resolve("./check.sh", task.path()).unwrap_err();
        assert!(
            missing.ends_with(
                "check.sh does not exist (a relative program is relative to the task file's folder)"
            ),
            "{missing}"
        );
    }

    /// Notes the folder each command is handed.
    #[derive(Debug, Default)]
    struct Recorder(std::sync::Mutex<Vec<PathBuf>>);

    impl CommandRunner for Recorder {
        fn run(&self, command: &CheckCommand<'_>) -> std::io::Result<CommandEnd> {
            self.0.lock().unwrap().push(command.dir.to_owned());
            Ok(CommandEnd::Exited {
                code: 0,
                stderr: Vec::new(),
            })
        }
    }

    #[test]
    fn the_runner_gets_the_folder_absolute() {
        // A relative folder (`grade --workdir work`) reaches the runner absolute: a
        // runner that changes its root first would otherwise look elsewhere.
        let recorder = Recorder::default();
        let argv = ["true".to_owned()];
        let command = Check {
            run: "true",
            argv: &argv,
            files: &[],
            exit_code: 0,
            timeout_s: 1.0,
        };
        assert_eq!(super::check(Path::new("src"), &command, &recorder), Ok(()));
        let seen = recorder.0.lock().unwrap().clone();
        assert_eq!(seen, [Path::new("src").canonicalize().unwrap()]);
        assert!(seen[0].is_absolute());
    }

    #[test]
    fn fails_with_the_last_stderr_line() {
        let dir = sandbox();
        let run = "sh -c 'echo first >&2; echo \"assert 7 == 8\" >&2; echo out; exit 1'";
        assert_eq!(
            check(dir.path(), run, 0, 30.0),
            Err(format!(
                "command {run:?}: exit code 1, expected 0 (stderr: assert 7 == 8)"
            ))
        );
    }

    #[test]
    fn long_stderr_keeps_its_end_and_cuts_the_line() {
        let dir = sandbox();
        // 200 KiB of noise, then a 200-char last line.
        let run = "sh -c 'head -c 204800 /dev/zero | tr \"\\0\" x >&2; echo >&2; \
                   printf \"%0200d\\n\" 0 >&2; exit 2'";
        assert_eq!(
            check(dir.path(), run, 0, 30.0),
            Err(format!(
                "command {run:?}: exit code 2, expected 0 (stderr: {}…)",
                "0".repeat(120)
            ))
        );
    }

    #[test]
    fn wrong_zero_exit_has_no_stderr_suffix() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "true", 1, 30.0),
            Err("command \"true\": exit code 0, expected 1".to_owned())
        );
    }

    #[test]
    fn reports_a_signal() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "sh -c 'kill -9 $$'", 0, 30.0),
            Err(
                "command \"sh -c 'kill -9 $$'\": killed by signal 9, expected exit code 0"
                    .to_owned()
            )
        );
    }

    #[test]
    fn times_out() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "sleep 5", 0, 0.5),
            Err("command \"sleep 5\": timed out after 0.5s".to_owned())
        );
    }

    #[test]
    fn could_not_start() {
        let dir = sandbox();
        assert_eq!(
            check(dir.path(), "definitely-not-a-program-xyz --flag", 0, 30.0),
            Err(
                "command \"definitely-not-a-program-xyz --flag\": could not start: \
                 No such file or directory (os error 2)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn bad_command_lines() {
        let dir = sandbox();
        assert_eq!(
            split("a 'b c' d\\ e"),
            Ok(vec!["a".into(), "b c".into(), "d e".into()])
        );
        assert!(split("echo 'unclosed").is_err());
        assert_eq!(split("  "), Err("empty command line".to_owned()));
        assert_eq!(
            check(dir.path(), "", 0, 30.0),
            Err("command \"\": invalid command line: empty command line".to_owned())
        );
    }

    /// State letter of a process from /proc, `None` once it is gone.
    fn proc_state(pid: &str) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(") ").next()?.chars().next()
    }

    /// Waits (generously) until `pid` is gone or a zombie; a live process fails the test.
    fn assert_dies(pid: &str) {
        for _ in 0..200 {
            match proc_state(pid) {
                None | Some('Z' | 'X') => return,
                Some(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        panic!("process {pid} survived: {:?}", proc_state(pid));
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = sandbox();
        let run = "sh -c 'sleep 60 & echo $! > bg.pid; wait'";
        assert_eq!(
            check(dir.path(), run, 0, 0.5),
            Err(format!("command {run:?}: timed out after 0.5s"))
        );
        let pid = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap();
        assert_dies(pid.trim());
    }

    #[test]
    fn background_processes_do_not_outlive_the_check() {
        let dir = sandbox();
        // The background sleep keeps stderr open: without the group kill the check would
        // wait for it, and it would survive.
        let run = "sh -c 'sleep 60 & echo $! > bg.pid; exit 0'";
        assert_eq!(check(dir.path(), run, 0, 30.0), Ok(()));
        let pid = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap();
        assert_dies(pid.trim());
    }
}
