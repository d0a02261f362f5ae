//! The pages of one run and of two runs compared: made by the commands' own code for the
//! command lines they name, so the served page is the file `report --format html` or
//! `compare --html` writes (docs/viewing.md#one-run).

use crate::args::{Cli, Command, CompareArgs, ReportArgs};
use crate::html::ReportInput;
use crate::run_record::RunRecord;
use clap::Parser;
use serde_json::Value;
use std::path::Path;

/// The options of `report --format html` for one results file, with the task file and kept
/// sandboxes its run recorded when they are still there (a task file that no longer loads
/// is left out, with the sandboxes it would name); and the command they are.
pub fn run_page(path: &Path, record: Option<&RunRecord>) -> anyhow::Result<(String, ReportArgs)> {
    let mut argv = vec![
        "report".to_owned(),
        path.display().to_string(),
        "--format".to_owned(),
        "html".to_owned(),
    ];
    if let Some(record) = record
        && proctor_core::task::Suite::load(Path::new(&record.tasks)).is_ok()
    {
        argv.extend(["--tasks".to_owned(), record.tasks.clone()]);
        if let Some(keep) = record.keep.as_ref().filter(|k| Path::new(k).is_dir()) {
            argv.extend(["--keep".to_owned(), keep.clone()]);
        }
    }
    Ok((command_line(&argv), report_args(&argv)?))
}

/// Writes the page of `args` to `out`, its summary made while the attempts are written: the
/// bytes `report --format html` writes.
pub fn write_run_page(out: &mut dyn std::io::Write, args: &ReportArgs) -> anyhow::Result<()> {
    let (page, summary) = crate::commands::report::page_in_parts(args)?;
    crate::html::write_with_late_summary(out, &page, summary)
}

/// `proctor compare OLD NEW`, its lines of `agent` only when given.
pub fn comparison(
    old: &Path,
    new: &Path,
    agent: Option<&str>,
) -> anyhow::Result<(String, CompareArgs)> {
    let argv = vec![
        "compare".to_owned(),
        old.display().to_string(),
        new.display().to_string(),
        "--format".to_owned(),
        "json".to_owned(),
    ];
    let parsed =
        Cli::try_parse_from(std::iter::once("proctor".to_owned()).chain(argv.iter().cloned()))?;
    let Command::Compare(mut args) = parsed.command else {
        unreachable!("a compare command line parses as one")
    };
    let mut command = command_line(&argv);
    if let Some(agent) = agent {
        // `--labels` takes two different labels of one file; here one label of each file.
        args.labels = Some((agent.to_owned(), agent.to_owned()));
        command.push_str(&format!(" (the lines of agent {agent:?} in each)"));
    }
    Ok((command, args))
}

/// The comparison as `compare --format json` prints it.
pub fn comparison_json(args: &CompareArgs) -> anyhow::Result<Value> {
    let compared = crate::commands::compare::comparison(args)?;
    Ok(crate::render::compare::json::value(&compared.comparison))
}

/// The page `compare --html` writes, ready to write.
pub fn compare_page(args: &CompareArgs) -> anyhow::Result<ReportInput> {
    let compared = crate::commands::compare::comparison(args)?;
    crate::commands::compare::compare_page(args, &compared.comparison)
}

fn report_args(argv: &[String]) -> anyhow::Result<ReportArgs> {
    let parsed =
        Cli::try_parse_from(std::iter::once("proctor".to_owned()).chain(argv.iter().cloned()))?;
    match parsed.command {
        Command::Report(args) => Ok(args),
        _ => unreachable!("a report command line parses as one"),
    }
}

fn command_line(argv: &[String]) -> String {
    let words: Vec<String> = argv
        .iter()
        .map(|w| shell_words::quote(w).into_owned())
        .collect();
    format!("proctor {}", words.join(" "))
}
