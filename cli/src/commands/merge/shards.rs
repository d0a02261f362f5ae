//! The shards a merge joins, told apart by their lines' `shard` (`I/N`) and `run_id`
//! (docs/merging.md): the shards no file holds, the shards two files (or two runs) hold,
//! shards of different counts or runs mixed, and lines of no shard among sharded ones.
//!
//! A run deals its units (label, base task, attempt: a variant goes with its base task) one
//! by one to the least-loaded shard, ties to the lowest index. So shard I is empty exactly
//! when the run has fewer than I units, and a shard that holds two units means that every
//! shard got one. A shard no file holds is missing unless the results (with `--tasks` and
//! `--attempts`) show that the run had fewer units than its index.

use super::wording::and_list;
use proctor_core::result::ResultLine;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// `I/N`: shard `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShardId {
    count: u64,
    index: u64,
}

impl ShardId {
    /// Reads a line's `shard` field; the message says what is wrong with it.
    fn parse(text: &str) -> Result<ShardId, String> {
        let bad = || format!("`shard` {text:?} is not I/N with 1 <= I <= N (e.g. 2/4)");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = index.parse().map_err(|_| bad())?;
        let count: u64 = count.parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(ShardId { count, index })
    }
}

impl std::fmt::Display for ShardId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The run a sharded line names; lines without `run_id` are told apart from every run.
type RunId = Option<String>;

/// (label, base task, attempt): what a run deals to its shards.
type Unit = (String, String, u64);

/// What the lines of one shard count show of the run's units.
#[derive(Debug, Default)]
struct Dealt {
    labels: HashSet<String>,
    base_tasks: HashSet<String>,
    /// The highest attempt number seen, plus one.
    attempts: u64,
    /// The first unit seen in each shard.
    first_unit: HashMap<u64, Unit>,
    /// Some shard holds two units: every shard of this count got at least one.
    crowded: bool,
}

/// What the merge expects from `--tasks` (with `--variants`) and `--attempts`.
#[derive(Debug, Default)]
pub struct Expected {
    /// The base tasks of the tasks chosen, when `--tasks` is given.
    pub base_tasks: BTreeSet<String>,
    pub attempts: Option<u64>,
}

/// The shards of the lines read so far.
#[derive(Debug, Default)]
pub struct ShardTally {
    /// Per shard, each (file, run) holding a line of it, in the order met.
    holders: BTreeMap<ShardId, Vec<(usize, RunId)>>,
    dealt: BTreeMap<u64, Dealt>,
    files_by_count: BTreeMap<u64, BTreeSet<usize>>,
    files_by_run: BTreeMap<RunId, BTreeSet<usize>>,
    /// Lines of no shard, per file.
    unsharded: BTreeMap<usize, u64>,
}

/// The messages of the shard checks, without `proctor: `.
#[derive(Debug, Default)]
pub struct ShardFindings {
    pub missing: Vec<String>,
    pub doubled: Vec<String>,
    /// Counts, runs, or lines of no shard mixed with shards.
    pub mixed: Vec<String>,
    /// Shards that are empty because the run had fewer units than shards.
    pub note: Option<String>,
}

impl ShardTally {
    /// Counts a line of file number `file`; an unreadable `shard` is refused with a message.
    pub fn record(&mut self, file: usize, line: &ResultLine) -> Result<(), String> {
        let Some(text) = &line.shard else {
            *self.unsharded.entry(file).or_default() += 1;
            return Ok(());
        };
        let shard = ShardId::parse(text)?;
        let run = line.run_id.clone();
        let holders = self.holders.entry(shard).or_default();
        if !holders.iter().any(|(f, r)| *f == file && *r == run) {
            holders.push((file, run.clone()));
        }
        self.files_by_count
            .entry(shard.count)
            .or_default()
            .insert(file);
        self.files_by_run.entry(run).or_default().insert(file);
        let label = line.label.clone().unwrap_or_default();
        let unit = (label.clone(), base_task(line).to_owned(), line.attempt);
        let dealt = self.dealt.entry(shard.count).or_default();
        dealt.attempts = dealt.attempts.max(line.attempt.saturating_add(1));
        dealt.labels.insert(label);
        dealt.base_tasks.insert(unit.1.clone());
        match dealt.first_unit.get(&shard.index) {
            None => {
                dealt.first_unit.insert(shard.index, unit);
            }
            Some(first) if *first != unit => dealt.crowded = true,
            Some(_) => {}
        }
        Ok(())
    }

    /// Checks the shards of every file read; `paths` are the files, by number.
    pub fn check(&self, paths: &[PathBuf], expected: &Expected) -> ShardFindings {
        let mut findings = ShardFindings::default();
        if self.holders.is_empty() {
            // No line names a shard: these are whole runs, joined as they are.
            return findings;
        }
        let rerun_with = match self.files_by_run.keys().collect::<Vec<_>>()[..] {
            [Some(run)] => format!(" --run-id {}", shell_word(run)),
            _ => String::new(),
        };
        let mut empty = Vec::new();
        for (&count, dealt) in &self.dealt {
            let units = dealt.least_units(count, expected, self.highest_held(count));
            for index in 1..=count {
                let shard = ShardId { count, index };
                if self.holders.contains_key(&shard) {
                    continue;
                }
                if index > units {
                    empty.push((shard, units));
                } else {
                    findings.missing.push(format!(
                        "missing shard {shard}: no file given holds its results; \
                         run it again with --shard {shard}{rerun_with} --resume"
                    ));
                }
            }
        }
        findings.note = empty_note(&empty, expected);
        let identities: Vec<PathBuf> = paths.iter().map(|p| identity(p)).collect();
        for (shard, holders) in &self.holders {
            if let Some(said) = doubled(holders, paths, &identities) {
                findings
                    .doubled
                    .push(format!("doubled shard {shard}: {said}"));
            }
        }
        if self.files_by_count.len() > 1 {
            let each: Vec<String> = self
                .files_by_count
                .iter()
                .map(|(count, files)| format!("of {count} in {}", file_list(files, paths)))
                .collect();
            findings.mixed.push(format!(
                "shards of different counts mixed: {}; the shards of one run share their N",
                and_list(&each)
            ));
        }
        if self.files_by_run.len() > 1 {
            let each: Vec<String> = self
                .files_by_run
                .iter()
                .map(|(run, files)| format!("{} in {}", run_name(run), file_list(files, paths)))
                .collect();
            findings.mixed.push(format!(
                "shards of different runs mixed: {}; merge the shards of one run",
                and_list(&each)
            ));
        }
        if !self.unsharded.is_empty() {
            let each: Vec<String> = self
                .unsharded
                .iter()
                .map(|(&file, &lines)| {
                    let results = if lines == 1 { "result" } else { "results" };
                    format!("{} ({lines} {results})", paths[file].display())
                })
                .collect();
            findings.mixed.push(format!(
                "results of no shard mixed with shards: {}; the shard checks cannot place them",
                and_list(&each)
            ));
        }
        findings
    }

    /// The highest shard index of `count` that some file holds.
    fn highest_held(&self, count: u64) -> u64 {
        self.holders
            .keys()
            .filter(|s| s.count == count)
            .map(|s| s.index)
            .max()
            .unwrap_or(0)
    }
}

impl Dealt {
    /// The fewest units the run can have had, as far as the lines and `expected` show: at
    /// least the highest shard held, and every label times every base task times every
    /// attempt, since a run makes each attempt of each task for each agent.
    fn least_units(&self, count: u64, expected: &Expected, highest_held: u64) -> u64 {
        if self.crowded {
            return count;
        }
        let base_tasks = self
            .base_tasks
            .iter()
            .chain(&expected.base_tasks)
            .collect::<HashSet<_>>()
            .len() as u64;
        let attempts = self.attempts.max(expected.attempts.unwrap_or(0));
        let product = (self.labels.len() as u64)
            .saturating_mul(base_tasks)
            .saturating_mul(attempts);
        product.max(highest_held)
    }
}

/// The base task of a line: `id` for a variant `id@NAME`.
fn base_task(line: &ResultLine) -> &str {
    match &line.variant {
        Some(name) => line
            .task
            .strip_suffix(name.as_str())
            .and_then(|t| t.strip_suffix('@'))
            .unwrap_or(&line.task),
        None => &line.task,
    }
}

/// The note for the top shards that are empty, rightly: `(shard, units)` of each.
fn empty_note(empty: &[(ShardId, u64)], expected: &Expected) -> Option<String> {
    let (first, units) = *empty.first()?;
    let shards = match empty.last() {
        Some((last, _)) if last.index == first.index + 1 => {
            format!("shards {first} and {last} are")
        }
        Some((last, _)) if *last != first => format!("shards {first} to {last} are"),
        _ => format!("shard {first} is"),
    };
    let plural = if units == 1 { "" } else { "s" };
    let unchecked = if expected.base_tasks.is_empty() && expected.attempts.is_none() {
        " (--tasks and --attempts check this against the suite)"
    } else {
        ""
    };
    Some(format!(
        "note: {shards} in no file, rightly: the run has only {units} attempt{plural} to deal \
         (a task's variants go with it), fewer than its {} shards{unchecked}",
        first.count
    ))
}

/// What is doubled about a shard held by `holders`, if anything.
fn doubled(
    holders: &[(usize, RunId)],
    paths: &[PathBuf],
    identities: &[PathBuf],
) -> Option<String> {
    let runs: BTreeMap<&RunId, BTreeSet<usize>> =
        holders
            .iter()
            .fold(BTreeMap::new(), |mut runs, (file, run)| {
                runs.entry(run).or_default().insert(*file);
                runs
            });
    if runs.len() > 1 {
        let each: Vec<String> = runs
            .iter()
            .map(|(run, files)| format!("{} ({})", run_name(run), file_list(files, paths)))
            .collect();
        return Some(format!("runs {} both made it", and_list(&each)));
    }
    // One run: the same file given twice, or two files. Each file once, with how often
    // it is given, named as it was given first.
    let mut files: Vec<(&PathBuf, usize, usize)> = Vec::new();
    for (file, _) in holders {
        match files
            .iter_mut()
            .find(|(id, _, _)| **id == identities[*file])
        {
            Some((_, _, times)) => *times += 1,
            None => files.push((&identities[*file], *file, 1)),
        }
    }
    let named = |file: usize| paths[file].display().to_string();
    match files[..] {
        [] | [(_, _, 1)] => None,
        [(_, file, times)] => Some(format!("{} is given {}", named(file), times_said(times))),
        _ => {
            let each: Vec<String> = files
                .iter()
                .map(|&(_, file, times)| match times {
                    1 => named(file),
                    _ => format!("{} ({})", named(file), times_said(times)),
                })
                .collect();
            Some(format!(
                "{} hold it; give each shard's file once",
                and_list(&each)
            ))
        }
    }
}

fn times_said(times: usize) -> String {
    match times {
        2 => "twice".to_owned(),
        _ => format!("{times} times"),
    }
}

/// The same file under two names (`a.jsonl`, `./a.jsonl`) is one file.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

fn run_name(run: &RunId) -> String {
    match run {
        Some(run) => format!("`{run}`"),
        None => "no run id".to_owned(),
    }
}

/// The files numbered `files`, comma-separated.
fn file_list(files: &BTreeSet<usize>, paths: &[PathBuf]) -> String {
    files
        .iter()
        .map(|&file| paths[file].display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` as one shell word: as it is when it holds nothing a shell reads, else quoted.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@+=,%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(task: &str, attempt: u64, shard: &str, run: &str) -> ResultLine {
        let text = format!(
            r#"{{"format":"proctor.result/1","task":"{task}","attempt":{attempt},"passed":true,"shard":"{shard}","run_id":"{run}"}}"#
        );
        ResultLine::parse(&text).expect("a valid line")
    }

    fn paths(n: usize) -> Vec<PathBuf> {
        (0..n)
            .map(|i| PathBuf::from(format!("f{i}.jsonl")))
            .collect()
    }

    #[test]
    fn merge_reads_shard_fields_and_refuses_bad_ones() {
        assert_eq!(ShardId::parse("2/4"), Ok(ShardId { count: 4, index: 2 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3", " 1/2", "1/2/3"] {
            assert!(ShardId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn merge_names_a_missing_shard_with_how_to_run_it_again() {
        let mut tally = ShardTally::default();
        for (i, task) in ["a", "b", "c", "d"].iter().enumerate().take(3) {
            tally
                .record(i, &line(task, 0, &format!("{}/4", i + 1), "r1"))
                .unwrap();
        }
        let expected = Expected {
            base_tasks: ["a", "b", "c", "d"].map(str::to_owned).into(),
            attempts: None,
        };
        let findings = tally.check(&paths(3), &expected);
        assert_eq!(
            findings.missing,
            [
                "missing shard 4/4: no file given holds its results; run it again with --shard 4/4 --run-id r1 --resume"
            ]
        );
        assert!(findings.note.is_none());
        // Without --tasks, three units in shards 1 to 3 of 4 are all the run had.
        let findings = tally.check(&paths(3), &Expected::default());
        assert!(findings.missing.is_empty());
        assert!(findings.note.unwrap().contains("shard 4/4 is in no file"));
    }

    #[test]
    fn merge_a_crowded_shard_means_every_shard_had_units() {
        let mut tally = ShardTally::default();
        tally.record(0, &line("a", 0, "1/3", "r")).unwrap();
        tally.record(0, &line("b", 0, "1/3", "r")).unwrap();
        let findings = tally.check(&paths(1), &Expected::default());
        assert_eq!(findings.missing.len(), 2, "{findings:?}");
    }

    #[test]
    fn merge_a_variant_counts_with_its_base_task() {
        let mut tally = ShardTally::default();
        let mut variant = line("a@loud", 0, "1/3", "r");
        variant.variant = Some("loud".to_owned());
        tally.record(0, &line("a", 0, "1/3", "r")).unwrap();
        tally.record(0, &variant).unwrap();
        let findings = tally.check(&paths(1), &Expected::default());
        assert!(findings.missing.is_empty(), "{findings:?}");
        assert!(findings.note.unwrap().contains("shards 2/3 and 3/3"));
    }

    #[test]
    fn merge_a_shard_above_a_gap_shows_the_gap_is_missing() {
        let mut tally = ShardTally::default();
        tally.record(0, &line("a", 0, "1/4", "r")).unwrap();
        tally.record(1, &line("b", 0, "3/4", "r")).unwrap();
        let findings = tally.check(&paths(2), &Expected::default());
        assert_eq!(findings.missing.len(), 1, "{findings:?}");
        assert!(findings.missing[0].starts_with("missing shard 2/4"));
        assert!(findings.note.unwrap().contains("shard 4/4 is"));
    }

    #[test]
    fn merge_names_a_shard_that_two_runs_made() {
        let mut tally = ShardTally::default();
        tally.record(0, &line("a", 0, "1/1", "r1")).unwrap();
        tally.record(1, &line("a", 0, "1/1", "r2")).unwrap();
        let findings = tally.check(&paths(2), &Expected::default());
        assert_eq!(
            findings.doubled,
            ["doubled shard 1/1: runs `r1` (f0.jsonl) and `r2` (f1.jsonl) both made it"]
        );
        assert_eq!(findings.mixed.len(), 1, "{findings:?}");
        assert!(findings.missing.is_empty());
    }

    #[test]
    fn merge_quotes_a_run_id_for_the_shell() {
        assert_eq!(shell_word("slurm:ci:41"), "slurm:ci:41");
        assert_eq!(shell_word("it's mine"), r"'it'\''s mine'");
    }
}
