//! Agent commands: `--agent CMD`, `--agent NAME=CMD` (repeatable) or `--agents FILE`.
//!
//! `NAME=CMD` names the agent when NAME is a plain name (letters, digits, `_ - . @ +`)
//! and the command follows the `=` directly; otherwise the whole text is the command. A
//! NAME written like an environment variable (capitals, digits and `_` only: `MODEL=x
//! python3 a.py`) is refused: a shell would set a variable there, and `--agent` sets none.
//!
//! The agent runs with its sandbox as working directory, so the program and any
//! argument naming an existing file relative to the agent's `cwd` (default: where
//! proctor was started) are made absolute first: `--agent "python3 agents/my.py"`
//! then works as typed.

use super::environment::PassEnv;
use crate::exit::InputContext;
use anyhow::Context;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An agent ready to start.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    /// Stored as `label` on every result.
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
    /// Values set in the agent's environment (an agents file's `env`).
    pub env: Vec<(String, String)>,
    /// Host variables passed on (an agents file's `pass_env`), besides `--pass-env`.
    pub pass_env: PassEnv,
}

/// One entry of an `--agents` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentEntry {
    name: String,
    command: CommandLine,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Names or globs of host variables to pass to this agent.
    #[serde(default)]
    pass_env: Vec<String>,
    cwd: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CommandLine {
    Line(String),
    Words(Vec<String>),
}

/// Reads the `--agent` flags. A single unnamed agent takes `label` (default `agent`).
pub fn from_flags(flags: &[String], label: Option<&str>) -> anyhow::Result<Vec<AgentSpec>> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let mut agents = Vec::new();
    for flag in flags {
        let (name, line) = match split_name(flag) {
            Some((name, _)) if looks_like_a_variable(name) => {
                let assignment = flag.split_whitespace().next().unwrap_or(flag);
                let rest = flag[assignment.len()..].trim_start();
                crate::exit::bail_input!(
                    "--agent {flag:?}: `{assignment}` reads as an environment variable, and --agent sets none: start the command with `env` (--agent \"env {assignment} {rest}\"), or give the variable in an agents file's `env:`; an agent's name needs a lower-case letter (`{}=...`)",
                    name.to_lowercase()
                )
            }
            Some((name, line)) => (Some(name.to_owned()), line),
            None => (None, flag.as_str()),
        };
        let words = shell_words::split(line)
            .with_input_context(|| format!("--agent {flag:?}: cannot split the command"))?;
        let name = match name {
            Some(name) => name,
            None if flags.len() == 1 => label.unwrap_or("agent").to_owned(),
            None => crate::exit::bail_input!(
                "--agent {flag:?}: with several agents, name each one: --agent NAME=CMD"
            ),
        };
        let named = split_name(flag).is_some();
        let context = || match named {
            true => format!("--agent {flag:?}: agent `{name}`"),
            false => format!("--agent {flag:?}"),
        };
        agents.push(resolve(name.clone(), words, Vec::new(), &cwd).with_context(context)?);
    }
    check_unique(&agents)?;
    Ok(agents)
}

/// Reads an agents file (YAML or JSON list of `{name, command, env, cwd}`).
pub fn from_file(path: &Path) -> anyhow::Result<Vec<AgentSpec>> {
    let bytes = std::fs::read(path)
        .with_input_context(|| format!("{}: cannot read agents file", path.display()))?;
    let text = proctor_core::utf8_text::utf8_text(&bytes).map_err(|at| {
        crate::exit::bad_input!(
            "{}:{}: {at}; an agents file must be UTF-8",
            path.display(),
            at.line
        )
    })?;
    let options = serde_saphyr::options! { strict_booleans: true };
    let entries: Vec<AgentEntry> = serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| crate::exit::bad_input!("{}: {e}", path.display()))?;
    // Paths in the file are relative to its own folder; a bare file name's folder is `.`.
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let base = folder
        .canonicalize()
        .with_input_context(|| format!("{}: cannot resolve its folder", path.display()))?;
    let mut agents = Vec::new();
    for entry in entries {
        let words = match entry.command {
            CommandLine::Line(line) => shell_words::split(&line).with_input_context(|| {
                format!(
                    "{}: agent `{}`: cannot split the command",
                    path.display(),
                    entry.name
                )
            })?,
            CommandLine::Words(words) => words,
        };
        let cwd = match entry.cwd {
            Some(dir) => base.join(dir),
            None => base.clone(),
        };
        let env = entry.env.into_iter().collect();
        let name = entry.name.clone();
        let context = || format!("{}: agent `{name}`", path.display());
        let mut agent = resolve(entry.name, words, env, &cwd).with_context(context)?;
        agent.pass_env = PassEnv::new(&entry.pass_env, "pass_env").with_context(context)?;
        agents.push(agent);
    }
    if agents.is_empty() {
        crate::exit::bail_input!("{}: no agents", path.display());
    }
    check_unique(&agents)?;
    Ok(agents)
}

/// `NAME=CMD` when the text before `=` is a plain name (no spaces, slashes or quotes) and
/// the command follows the `=` without a space.
fn split_name(flag: &str) -> Option<(&str, &str)> {
    let (name, rest) = flag.split_once('=')?;
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | '+'))
        && !rest.starts_with(char::is_whitespace);
    plain.then_some((name, rest))
}

/// A shell variable's name in capitals (`MODEL`, `OPENAI_BASE_URL`): in front of a
/// command, a shell reads `MODEL=x` as an assignment.
fn looks_like_a_variable(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn check_unique(agents: &[AgentSpec]) -> anyhow::Result<()> {
    for (i, agent) in agents.iter().enumerate() {
        if agents[..i].iter().any(|a| a.name == agent.name) {
            crate::exit::bail_input!(
                "two agents are named `{}`; names label results and must differ",
                agent.name
            );
        }
    }
    Ok(())
}

/// Finds the program and makes relative file arguments absolute.
fn resolve(
    name: String,
    words: Vec<String>,
    env: Vec<(String, String)>,
    cwd: &Path,
) -> anyhow::Result<AgentSpec> {
    let mut words = words.into_iter();
    let Some(program) = words.next() else {
        crate::exit::bail_input!("empty command");
    };
    let program = if program.contains('/') {
        let path = cwd.join(&program);
        if !path.is_file() {
            crate::exit::bail_input!("program {} does not exist", path.display());
        }
        if !is_executable(&path) {
            crate::exit::bail_input!(
                "program {} is not executable (chmod +x, or name its interpreter)",
                path.display()
            );
        }
        path.to_string_lossy().into_owned()
    } else {
        find_in_path(&program)
            .ok_or_else(|| crate::exit::bad_input!("program `{program}` is not on PATH"))?;
        program
    };
    let args = words
        .map(|arg| {
            let candidate = cwd.join(&arg);
            if !arg.starts_with('-') && !Path::new(&arg).is_absolute() && candidate.exists() {
                candidate.to_string_lossy().into_owned()
            } else {
                arg
            }
        })
        .collect();
    Ok(AgentSpec {
        name,
        program,
        args,
        env,
        pass_env: PassEnv::default(),
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file() && is_executable(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only_when_plain() {
        assert_eq!(split_name("v1=python3 a.py"), Some(("v1", "python3 a.py")));
        assert_eq!(split_name("python3 a.py --x=1"), None);
        assert_eq!(split_name("./agent --mode=fast"), None);
    }

    #[test]
    fn an_environment_assignment_is_no_name() {
        let err = from_flags(&["MODEL=x python3 a.py".to_owned()], None).unwrap_err();
        let message = format!("{err:#}");
        assert!(
            message.contains("`MODEL=x` reads as an environment variable"),
            "{message}"
        );
        let err = from_flags(&["fast=no-such-program-xyz a.py".to_owned()], None).unwrap_err();
        let message = format!("{err:#}");
        assert!(
            message.contains("agent `fast`: program `no-such-program-xyz` is not on PATH"),
            "{message}"
        );
        // A space after `=`: no name, the whole text is the command.
        assert_eq!(split_name("v1= sh"), None);
        assert!(looks_like_a_variable("OPENAI_BASE_URL") && looks_like_a_variable("_X1"));
        assert!(!looks_like_a_variable("v1") && !looks_like_a_variable("Gpt4"));
        assert!(!looks_like_a_variable("GPT-4") && !looks_like_a_variable("1A"));
    }

    #[test]
    fn flags_resolve_programs_and_names() {
        let agents = from_flags(&["sh -c 'echo hi'".to_owned()], Some("v2")).unwrap();
        assert_eq!(agents[0].name, "v2");
        assert_eq!(agents[0].args, vec!["-c", "echo hi"]);
        let err = from_flags(&["no-such-program-xyz".to_owned()], None).unwrap_err();
        assert!(format!("{err:#}").contains("`no-such-program-xyz` is not on PATH"));
        let err = from_flags(&["sh".to_owned(), "sh".to_owned()], None).unwrap_err();
        assert!(format!("{err:#}").contains("name each one"));
        let err = from_flags(&["a=sh".to_owned(), "a=sh".to_owned()], None).unwrap_err();
        assert!(format!("{err:#}").contains("two agents are named `a`"));
    }
}
