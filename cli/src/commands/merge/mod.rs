//! `proctor merge`: join the result files of shards into one, and check that together they
//! are one whole run (docs/merging.md).
//!
//! Results from different task files are refused. A second line for an attempt is an exact
//! duplicate (a file given twice) or a rerun that differs only in its timings, both dropped
//! and counted, or else a conflict: the first line is kept ([`repeats`]). The lines' `shard`
//! and `run_id` say which shards no file holds, which are held twice, and whether the shards
//! are of one run and one count ([`shards`]); attempts missing between 0 and the highest seen
//! (or `--attempts K`), and tasks of `--tasks` with no result at all, are listed
//! ([`missing`]). Whatever is missing, doubled or mixed exits 2 unless `--partial` accepts it;
//! conflicts and unreadable lines always exit 2 ([`verdict`](mod@verdict)). The output is written to a
//! temporary file and renamed into place, so it is whole.

mod missing;
mod repeats;
mod shards;
mod verdict;
mod wording;

use crate::args::MergeArgs;
use crate::exit::infrastructure;
use crate::results_file::{for_each_result_at, partial_path};
use crate::run::variants::VariantChoice;
use anyhow::Context;
use missing::AttemptsSeen;
use proctor_core::task::Suite;
use repeats::{FirstLines, Repeat, attempt_key};
use shards::{Expected, ShardTally};
use std::io::Write;
use std::path::PathBuf;
use verdict::{Problems, verdict};
use wording::counted;

/// How many timing-only reruns are named one by one; the rest are counted. A shard given
/// twice after a rerun would otherwise name every one of its attempts.
const RERUNS_NAMED: usize = 10;

pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let suite = args.tasks.as_deref().map(Suite::load).transpose()?;
    if let Some(suite) = &suite {
        // A name no task defines is refused before anything is read or written.
        VariantChoice::parse(&args.variants, suite)?;
    }
    let temporary = partial_path(&args.out);
    let file = std::fs::File::create(&temporary)
        .with_context(|| format!("{}: cannot write", temporary.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let result = merge_into(&args, suite.as_ref(), &mut out);
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(report), Ok(())) => {
            std::fs::rename(&temporary, &args.out)
                .map_err(|e| infrastructure(args.out.display(), e))?;
            finish(&args, report)
        }
        (Err(error), _) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
        (_, Err(error)) => {
            let _ = std::fs::remove_file(&temporary);
            Err(infrastructure(temporary.display(), error))
        }
    }
}

#[derive(Debug, Default)]
struct MergeReport {
    written: usize,
    exact_duplicates: usize,
    timing_only: usize,
    /// The first [`RERUNS_NAMED`] timing-only reruns, said.
    reruns_named: Vec<String>,
    conflicts: Vec<String>,
    /// Lines that do not read as results.
    bad_lines: usize,
    /// Results whose `shard` does not read as `I/N`.
    bad_shards: usize,
    seen: AttemptsSeen,
    shards: ShardTally,
    suite_tasks: Vec<String>,
    expected: Expected,
}

fn merge_into(
    args: &MergeArgs,
    suite: Option<&Suite>,
    out: &mut impl Write,
) -> anyhow::Result<MergeReport> {
    let mut report = MergeReport::default();
    let mut digest: Option<(String, PathBuf)> =
        suite.map(|s| (s.digest.clone(), args.tasks.clone().unwrap_or_default()));
    let mut first_lines = FirstLines::default();
    for_each_result_at(
        &args.results,
        |at, path, _, mut line| {
            if !line.task_digest.is_empty() {
                match &digest {
                    Some((first, from)) if *first != line.task_digest => crate::exit::bail_input!(
                        "{}: results of other task files ({}) than {} ({first}); refusing to merge",
                        path.display(),
                        line.task_digest,
                        from.display()
                    ),
                    Some(_) => {}
                    None => digest = Some((line.task_digest.clone(), path.to_owned())),
                }
            }
            if let Err(message) = report.shards.record(at.file, &line) {
                report.bad_shards += 1;
                eprintln!("proctor: skipped {}:{}: {message}", path.display(), at.line);
                return Ok(());
            }
            let text = line.to_json();
            let (label, task, attempt) = attempt_key(&line);
            let who = if label.is_empty() {
                String::new()
            } else {
                format!(" [{label}]")
            };
            let first_path = |file: usize| args.results[file].display().to_string();
            match first_lines.classify(&mut line, &text, at.file) {
                Repeat::First => {
                    writeln!(out, "{text}").map_err(|e| infrastructure("merged output", e))?;
                    report.written += 1;
                    report.seen.record(&label, &task, attempt);
                }
                Repeat::Exact { .. } => report.exact_duplicates += 1,
                Repeat::TimingsOnly { first_file } => {
                    report.timing_only += 1;
                    if report.reruns_named.len() < RERUNS_NAMED {
                        report.reruns_named.push(format!(
                            "task `{task}` attempt {attempt}{who} in {} differs from {} only in its timings; kept the first as a duplicate",
                            path.display(),
                            first_path(first_file)
                        ));
                    }
                }
                Repeat::Conflict { first_file } => report.conflicts.push(format!(
                    "{}: task `{task}` attempt {attempt}{who} differs from the result in {}; kept the first",
                    path.display(),
                    first_path(first_file)
                )),
            }
            Ok(())
        },
        |bad| {
            report.bad_lines += 1;
            eprintln!(
                "proctor: skipped {}:{}: {}",
                bad.path.display(),
                bad.line,
                bad.message
            );
        },
        |_| {},
    )?;
    report.expected.attempts = args.attempts;
    if let Some(suite) = suite {
        let variants = VariantChoice::parse(&args.variants, suite)?;
        let chosen = suite.tasks.iter().filter(|t| variants.chooses(t));
        for task in chosen {
            report.suite_tasks.push(task.id.clone());
            report.expected.base_tasks.insert(task.base_id().to_owned());
        }
    }
    Ok(report)
}

fn finish(args: &MergeArgs, report: MergeReport) -> anyhow::Result<()> {
    eprintln!(
        "proctor: merged {} from {} into {} ({} and {} dropped)",
        counted(report.written, "result", "results"),
        counted(args.results.len(), "file", "files"),
        args.out.display(),
        counted(
            report.exact_duplicates,
            "exact duplicate",
            "exact duplicates"
        ),
        counted(
            report.timing_only,
            "timing-only rerun",
            "timing-only reruns"
        ),
    );
    for rerun in &report.reruns_named {
        eprintln!("proctor: {rerun}");
    }
    if report.timing_only > report.reruns_named.len() {
        eprintln!(
            "proctor: and {} more results that differ from an earlier one only in their timings",
            report.timing_only - report.reruns_named.len()
        );
    }
    let shards = report.shards.check(&args.results, &report.expected);
    let missing = report.seen.missing(args.attempts, &report.suite_tasks);
    let said = shards
        .note
        .iter()
        .chain(&shards.missing)
        .chain(&shards.doubled);
    for line in said.chain(&shards.mixed).chain(&missing) {
        eprintln!("proctor: {line}");
    }
    for conflict in &report.conflicts {
        eprintln!("proctor: conflict: {conflict}");
    }
    let problems = Problems {
        missing_shards: shards.missing.len(),
        doubled_shards: shards.doubled.len(),
        mixed: shards.mixed.len(),
        missing_attempts: missing.len(),
        conflicts: report.conflicts.len(),
        bad_lines: report.bad_lines + report.bad_shards,
    };
    verdict(&problems, args.partial, &args.out)
}
