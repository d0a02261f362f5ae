//! `proctor merge`: join the result files of shards into one.
//!
//! Results from different task files are refused; exact duplicates (a shard
//! uploaded twice) are dropped; two different results for the same label, task and
//! attempt are a conflict; attempts missing between 0 and the highest seen (or
//! `--attempts K`), and tasks of `--tasks` with no result at all, are listed. The
//! output is written to a temporary file and renamed into place, so it is whole.

use crate::args::MergeArgs;
use crate::exit::{Failure, infrastructure};
use crate::results_file::{for_each_result, partial_path};
use crate::run::variants::VariantChoice;
use anyhow::Context;
use proctor_core::task::Suite;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;

/// (label, task, attempt): what identifies one attempt across shards.
type Key = (String, String, u64);

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
    written: u64,
    duplicates: u64,
    conflicts: Vec<String>,
    bad_lines: u64,
    seen: BTreeMap<(String, String), BTreeSet<u64>>,
    suite_tasks: Vec<String>,
}

fn merge_into(
    args: &MergeArgs,
    suite: Option<&Suite>,
    out: &mut impl Write,
) -> anyhow::Result<MergeReport> {
    let mut report = MergeReport::default();
    let mut digest: Option<(String, PathBuf)> =
        suite.map(|s| (s.digest.clone(), args.tasks.clone().unwrap_or_default()));
    let mut hashes: HashMap<Key, [u8; 32]> = HashMap::new();
    for_each_result(
        &args.results,
        |path, line| {
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
            let text = line.to_json();
            let hash: [u8; 32] = Sha256::digest(text.as_bytes()).into();
            let key = (
                line.label.clone().unwrap_or_default(),
                line.task.to_string(),
                line.attempt,
            );
            match hashes.get(&key) {
                Some(existing) if *existing == hash => report.duplicates += 1,
                Some(_) => report.conflicts.push(format!(
                    "{}: task `{}` attempt {}{} differs from an earlier result; kept the first",
                    path.display(),
                    key.1,
                    key.2,
                    if key.0.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", key.0)
                    }
                )),
                None => {
                    writeln!(out, "{text}").map_err(|e| infrastructure("merged output", e))?;
                    report.written += 1;
                    report
                        .seen
                        .entry((key.0.clone(), key.1.clone()))
                        .or_default()
                        .insert(key.2);
                    hashes.insert(key, hash);
                }
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
    )?;
    if let Some(suite) = suite {
        let variants = VariantChoice::parse(&args.variants, suite)?;
        report.suite_tasks = suite
            .tasks
            .iter()
            .filter(|t| variants.chooses(t))
            .map(|t| t.id.clone())
            .collect();
    }
    Ok(report)
}

fn finish(args: &MergeArgs, report: MergeReport) -> anyhow::Result<()> {
    eprintln!(
        "proctor: merged {} results from {} files into {} ({} exact duplicates dropped)",
        report.written,
        args.results.len(),
        args.out.display(),
        report.duplicates
    );
    let mut missing = Vec::new();
    for ((label, task), attempts) in &report.seen {
        let expected = args
            .attempts
            .unwrap_or_else(|| attempts.last().map_or(0, |a| a + 1));
        let absent: Vec<String> = (0..expected)
            .filter(|a| !attempts.contains(a))
            .map(|a| a.to_string())
            .collect();
        if !absent.is_empty() {
            let who = if label.is_empty() {
                String::new()
            } else {
                format!(" [{label}]")
            };
            missing.push(format!(
                "task `{task}`{who}: attempts {}",
                absent.join(", ")
            ));
        }
    }
    for task in &report.suite_tasks {
        if !report.seen.keys().any(|(_, t)| t == task) {
            missing.push(format!("task `{task}`: no results at all"));
        }
    }
    for line in &missing {
        eprintln!("proctor: missing {line}");
    }
    for conflict in &report.conflicts {
        eprintln!("proctor: conflict: {conflict}");
    }
    let problems = missing.len() + report.conflicts.len() + report.bad_lines as usize;
    if problems > 0 {
        return Err(Failure::PartialInput(format!(
            "merged with {} missing, {} conflicting and {} unreadable results; {} was still written",
            missing.len(),
            report.conflicts.len(),
            report.bad_lines,
            args.out.display()
        ))
        .into());
    }
    Ok(())
}
