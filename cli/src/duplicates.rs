//! One line per attempt: what `report` and `compare` do with a second result line for the
//! same (label, task, attempt) of one task file, e.g. from two runs that wrote one file, or
//! a file given twice. Counting both would inflate every figure silently, so by default it
//! is an error naming both lines; `--duplicates first|last` keeps one of them, and
//! `--duplicates all` counts them all (as `grade` counts a log that repeats an attempt).
//! (`merge` has its own rule, docs/merging.md: exact copies and copies that differ only in
//! their timings are dropped, other differing ones are conflicts.)

use crate::results_file::{LineAt, for_each_result_at};
use proctor_core::outcome::CompactString;
use proctor_core::result::ResultLine;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// `--duplicates`: what to do with a second line for the same attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Duplicates {
    /// Refuse the files (exit 2), naming the first duplicate and the line it repeats.
    #[default]
    Error,
    /// Keep the first line of each attempt, in the order the files are given.
    First,
    /// Keep the last line of each attempt (the latest write).
    Last,
    /// Count every line, as `grade` counts a log that repeats an attempt number.
    All,
}

/// (label, task, attempt, task digest): one attempt. The digest keeps results of different
/// task files apart, as `--mixed` does.
type Key = (Option<String>, CompactString, u64, String);

fn key(line: &ResultLine) -> Key {
    (
        line.label.clone(),
        line.task.clone(),
        line.attempt,
        line.task_digest.clone(),
    )
}

/// Decides, line by line, which result lines a summary takes. Made afresh for each pass
/// over the files ([`Duplicates::filter`]).
#[derive(Debug)]
pub struct AttemptFilter {
    policy: Duplicates,
    paths: Vec<PathBuf>,
    seen: HashMap<Key, LineAt>,
    /// With `last`: the lines a later line of the same attempt replaces.
    replaced: HashSet<LineAt>,
}

impl Duplicates {
    /// A filter for one pass over `paths`; `last` reads them once first, to know which line
    /// of each attempt comes last.
    pub fn filter(self, paths: &[PathBuf]) -> anyhow::Result<AttemptFilter> {
        let mut replaced = HashSet::new();
        if self == Duplicates::Last {
            let mut last: HashMap<Key, LineAt> = HashMap::new();
            for_each_result_at(
                paths,
                |at, _, _, line| {
                    if let Some(earlier) = last.insert(key(&line), at) {
                        replaced.insert(earlier);
                    }
                    Ok(())
                },
                |_| {},
                |_| {},
            )?;
        }
        Ok(AttemptFilter {
            policy: self,
            paths: paths.to_owned(),
            seen: HashMap::new(),
            replaced,
        })
    }
}

impl AttemptFilter {
    /// Whether the line at `at` counts; an error for a duplicate under `error`.
    pub fn admit(&mut self, at: LineAt, line: &ResultLine) -> anyhow::Result<bool> {
        match self.policy {
            Duplicates::All => Ok(true),
            Duplicates::Last => Ok(!self.replaced.contains(&at)),
            Duplicates::First => Ok(self.seen.insert(key(line), at).is_none()),
            Duplicates::Error => match self.seen.get(&key(line)) {
                None => {
                    self.seen.insert(key(line), at);
                    Ok(true)
                }
                Some(&first) => crate::exit::bail_input!(
                    "{}:{}: task `{}` attempt {}{} is already on {}:{}; a result file holds one line per attempt (did two runs write to one file, or is a file given twice?). Pass --duplicates first|last to keep one of them (or all to count every line), or join shards with `proctor merge`",
                    self.name(at),
                    at.line,
                    line.task,
                    line.attempt,
                    line.label
                        .as_deref()
                        .map_or_else(String::new, |l| format!(" [{l}]")),
                    self.name(first),
                    first.line
                ),
            },
        }
    }

    fn name(&self, at: LineAt) -> std::path::Display<'_> {
        self.paths
            .get(at.file)
            .map_or(Path::new("?"), PathBuf::as_path)
            .display()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(task: &str, attempt: u64, passed: bool) -> String {
        format!(
            "{{\"format\": \"proctor.result/1\", \"task\": \"{task}\", \"attempt\": {attempt}, \"label\": \"v1\", \"passed\": {passed}}}\n"
        )
    }

    /// The (line, passed) of each admitted line.
    fn admitted(policy: Duplicates, paths: &[PathBuf]) -> anyhow::Result<Vec<(usize, bool)>> {
        let mut filter = policy.filter(paths)?;
        let mut kept = Vec::new();
        for_each_result_at(
            paths,
            |at, _, _, line| {
                if filter.admit(at, &line)? {
                    kept.push((at.line, line.passed == Some(true)));
                }
                Ok(())
            },
            |_| {},
            |_| {},
        )?;
        Ok(kept)
    }

    #[test]
    fn each_policy_keeps_one_line_per_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let text = line("a", 0, true) + &line("b", 0, true) + &line("a", 0, false);
        std::fs::write(&path, text).unwrap();
        let paths = [path.clone()];
        assert_eq!(
            admitted(Duplicates::First, &paths).unwrap(),
            [(1, true), (2, true)]
        );
        assert_eq!(
            admitted(Duplicates::Last, &paths).unwrap(),
            [(2, true), (3, false)]
        );
        assert_eq!(admitted(Duplicates::All, &paths).unwrap().len(), 3);
        let err = admitted(Duplicates::Error, &paths).unwrap_err().to_string();
        let name = path.display();
        assert!(
            err.starts_with(&format!(
                "{name}:3: task `a` attempt 0 [v1] is already on {name}:1;"
            )),
            "{err}"
        );
    }
}
