//! The agent's environment (docs/agent-protocol.md): a short list of harmless host variables,
//! a private `HOME` and `TMPDIR`, the `PROCTOR_*` variables, and exactly the
//! variables the user names. Nothing else of proctor's environment reaches the
//! agent, so a judge key reaches it only when the user passes it on purpose.
//!
//! Later sections add their own variables (`OTEL_*`, `TRACEPARENT`, `PROCTOR_MCP_*`)
//! through [`AgentEnvironment::set`].

use crate::exit::InputContext;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::ffi::OsString;

/// Host variables every agent gets when proctor has them: enough to find programs
/// and to print text in the user's language and time zone.
const ALWAYS_PASSED: &[&str] = &["PATH", "LANG", "TZ", "TERM"];

/// The host variables the user asked to pass (`--pass-env`, an agents file's
/// `pass_env`): names or globs such as `OPENAI_*`.
#[derive(Debug, Clone, Default)]
pub struct PassEnv {
    patterns: Vec<String>,
    globs: GlobSet,
}

impl PassEnv {
    /// Reads the patterns; `origin` names where they came from in error messages.
    pub fn new(patterns: &[String], origin: &str) -> anyhow::Result<PassEnv> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            if pattern.is_empty() || pattern.contains('=') {
                crate::exit::bail_input!(
                    "{origin} {pattern:?}: give a variable name or a glob such as OPENAI_*"
                );
            }
            builder.add(Glob::new(pattern).with_input_context(|| format!("{origin} {pattern:?}"))?);
        }
        Ok(PassEnv {
            patterns: patterns.to_vec(),
            globs: builder.build()?,
        })
    }

    /// These patterns and `more`'s.
    pub fn union(&self, more: &PassEnv) -> anyhow::Result<PassEnv> {
        let mut patterns = self.patterns.clone();
        patterns.extend(more.patterns.iter().cloned());
        PassEnv::new(&patterns, "pass_env")
    }

    fn passes(&self, name: &str) -> bool {
        self.globs.is_match(name)
    }
}

/// An agent's environment, built up in order; a later `set` of a name wins.
#[derive(Debug, Clone, Default)]
pub struct AgentEnvironment {
    vars: Vec<(String, String)>,
}

impl AgentEnvironment {
    /// The host variables an agent may see: `PATH`, `LANG`, `LC_*`, `TZ`, `TERM`, and
    /// those `pass` names. Variables whose name or value is not UTF-8 are left out.
    pub fn from_host(host: impl IntoIterator<Item = (OsString, OsString)>, pass: &PassEnv) -> Self {
        let mut environment = AgentEnvironment::default();
        for (name, value) in host {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            let always = ALWAYS_PASSED.contains(&name) || name.starts_with("LC_");
            if always || pass.passes(name) {
                environment.set(name, value);
            }
        }
        environment
    }

    /// Sets `name`, replacing an earlier value.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name.to_owned(), value)),
        }
    }

    /// The value of `name`, when set.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    #[cfg(test)]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn vars(&self) -> &[(String, String)] {
        &self.vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect()
    }

    #[test]
    fn only_harmless_and_named_variables_pass() {
        let host = host(&[
            ("PATH", "/usr/bin"),
            ("LC_ALL", "C.UTF-8"),
            ("ANTHROPIC_API_KEY", "sk-ant-secret"),
            ("OPENAI_API_KEY", "sk-openai"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9"),
            ("HOME", "/root"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
        ]);
        let nothing = AgentEnvironment::from_host(host.clone(), &PassEnv::default());
        let names: Vec<&str> = nothing.vars().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["PATH", "LC_ALL"]);
        let pass = PassEnv::new(&["OPENAI_*".to_owned()], "--pass-env").unwrap();
        let some = AgentEnvironment::from_host(host, &pass);
        assert_eq!(some.get("OPENAI_API_KEY"), Some("sk-openai"));
        assert_eq!(some.get("OPENAI_BASE_URL"), Some("http://127.0.0.1:9"));
        assert_eq!(some.get("ANTHROPIC_API_KEY"), None);
        assert_eq!(some.get("HOME"), None);
    }

    #[test]
    fn later_values_win_and_bad_patterns_are_refused() {
        let mut environment = AgentEnvironment::default();
        environment.set("HOME", "/a");
        environment.set("HOME", "/b");
        assert_eq!(environment.vars(), [("HOME".to_owned(), "/b".to_owned())]);
        let error = PassEnv::new(&["KEY=value".to_owned()], "--pass-env").unwrap_err();
        assert!(format!("{error:#}").contains("--pass-env \"KEY=value\""));
    }
}
