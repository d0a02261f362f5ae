//! `proctor report`: one scorecard per agent from result files.
//!
//! Results graded against different task files (different task digests) are refused
//! together: their pass rates measure different things. `--mixed` summarises each digest
//! on its own instead.

use crate::args::{ReportArgs, ReportFormat};
use crate::commands::calibrate::{LoadedCalibration, correct_results, load_calibration};
use crate::html::{self, EndStateDir, ReportInput};
use crate::ledger_file::report::weekly_chart;
use crate::outputs::AttemptSink;
use crate::outputs::gate::Gate;
use crate::problems::Problems;
use crate::render;
use crate::render::Shape;
use crate::render::calibrate::corrected;
use crate::results_file::for_each_result_at;
use anyhow::Context;
use proctor_core::result::ResultLine;
use proctor_core::summary::{ScorecardBuilder, Scorecards, Split};
use proctor_core::task::Suite;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The scorecards of the results of one task digest, computed.
struct Summarised {
    digest: String,
    file: PathBuf,
    title: String,
    cards: Scorecards,
}

/// The running scorecards of the results of one task digest.
struct DigestCards {
    digest: String,
    /// The first file holding a result of this digest, to name it.
    file: PathBuf,
    builder: ScorecardBuilder,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let calibration = args
        .calibration
        .as_deref()
        .map(load_calibration)
        .transpose()?;
    let Summaries {
        suite,
        all,
        title,
        problems,
    } = summaries(&args)?;
    let page = if args.format == ReportFormat::Html || args.summary.html.is_some() {
        if calibration.is_some() {
            crate::exit::bail_input!(
                "--calibration has no place in the HTML report yet; use table, markdown or json"
            );
        }
        Some(html_page(&args, &all, title, suite.as_ref())?)
    } else if args.ledger.is_some() || args.keep.is_some() {
        crate::exit::bail_input!(
            "--ledger and --keep are for the HTML report: add --format html or --html FILE"
        );
    } else {
        None
    };
    if let (Some(path), Some(page)) = (&args.summary.html, &page) {
        html::write_file(path, page)?;
    }
    match (&page, args.format) {
        (Some(page), ReportFormat::Html) => {
            let mut out = std::io::BufWriter::new(crate::exit::stdout());
            let written = html::write(&mut out, page);
            let flushed = out.flush().map_err(crate::exit::stdout_error);
            let out = out
                .into_inner()
                .map_err(|e| crate::exit::stdout_error(e.into_error()))?;
            out.close(written.and(flushed))?;
        }
        _ => print(&args, &all, calibration.as_ref())?,
    }
    problems.into_result("result lines")?;
    for summarised in &all {
        Gate {
            min_pass_rate: args.summary.min_pass_rate,
        }
        .check(&summarised.cards)?;
    }
    Ok(())
}

/// The scorecards of the results as the command computes them, before any is printed.
struct Summaries {
    suite: Option<Suite>,
    all: Vec<Summarised>,
    title: String,
    problems: Problems,
}

fn summaries(args: &ReportArgs) -> anyhow::Result<Summaries> {
    let options = args.summary.scorecard_options();
    let suite = match (&args.tasks, options.split) {
        (Some(tasks), _) => Some(Suite::load(tasks)?),
        (None, Some(Split::Tag)) => crate::exit::bail_input!(
            "--by tag needs --tasks T: result lines do not carry their task's tags, the task file does"
        ),
        (None, None | Some(Split::Variant)) => None,
    };
    let no_tags: &[String] = &[];
    let mut digests: Vec<DigestCards> = Vec::new();
    let mut problems = Problems::default();
    let mut attempts = args.duplicates.filter(&args.results)?;
    for_each_result_at(
        &args.results,
        |at, path, _, line| {
            if !attempts.admit(at, &line)? {
                return Ok(());
            }
            let tags = suite.as_ref().map_or(no_tags, |s| s.tags_of(&line.task));
            let at = digest_slot(&mut digests, &line.task_digest, path, args.mixed, options);
            digests[at].builder.add(&line, tags);
            Ok(())
        },
        |bad| problems.report(bad.to_string()),
        |_| {},
    )?;
    let title = title_of(args);
    let several = digests.len() > 1;
    let mut all = Vec::with_capacity(digests.len());
    for cards in digests {
        let scorecards = cards
            .builder
            .finish(args.summary.k)
            .context("cannot summarise the results")?;
        let title = if several {
            format!("{title} (task digest {})", short(&cards.digest))
        } else {
            title.clone()
        };
        all.push(Summarised {
            digest: cards.digest,
            file: cards.file,
            title,
            cards: scorecards,
        });
    }
    Ok(Summaries {
        suite,
        all,
        title,
        problems,
    })
}

/// The page `proctor report --format html` writes for these options, in two parts to write
/// while its summary is made (`proctor view` serves it so): all but the summary, and the
/// summary's own pass over the results (bad lines said on stderr as the command says them).
/// Written with [`html::write_with_late_summary`], they are the command's page byte for byte.
pub fn page_in_parts(
    args: &ReportArgs,
) -> anyhow::Result<(
    ReportInput,
    impl FnOnce() -> anyhow::Result<serde_json::Value> + Send + '_,
)> {
    let suite = args.tasks.as_deref().map(Suite::load).transpose()?;
    let page = page_around(
        args,
        serde_json::Value::Null,
        title_of(args),
        suite.as_ref(),
    )?;
    let summary = move || summaries(args).map(|s| summary_value(&s.all));
    Ok((page, summary))
}

/// `report R1 R2 …`: the title of the page and of each summary.
fn title_of(args: &ReportArgs) -> String {
    let names: Vec<String> = args
        .results
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    format!("report {}", names.join(" "))
}

/// Where a line of `digest` is summarised, refusing a second task digest unless `mixed`.
fn digest_slot(
    digests: &mut Vec<DigestCards>,
    digest: &str,
    path: &Path,
    mixed: bool,
    options: proctor_core::summary::ScorecardOptions,
) -> usize {
    // Lines of older versions carry no digest; they join whatever the others are.
    let found = digests
        .iter()
        .position(|d| d.digest == digest || (!mixed && (digest.is_empty() || d.digest.is_empty())));
    if let Some(at) = found {
        if digests[at].digest.is_empty() {
            digests[at].digest = digest.to_owned();
        }
        return at;
    }
    digests.push(DigestCards {
        digest: digest.to_owned(),
        file: path.to_owned(),
        builder: ScorecardBuilder::new(options),
    });
    digests.len() - 1
}

/// The HTML page of the results: the summary `--format json` prints, with the task inputs,
/// the kept sandboxes and the ledger chart when given.
fn html_page(
    args: &ReportArgs,
    all: &[Summarised],
    title: String,
    suite: Option<&Suite>,
) -> anyhow::Result<ReportInput> {
    page_around(args, summary_value(all), title, suite)
}

/// The summary the page embeds: the JSON `--format json` prints, with the strings the table
/// prints beside each figure.
fn summary_value(all: &[Summarised]) -> serde_json::Value {
    let shown = |cards: &proctor_core::summary::Scorecards| {
        let mut value = render::json::cards_value(cards);
        render::shown::add_shown(&mut value, cards);
        value
    };
    match all {
        [one] => shown(&one.cards),
        _ => serde_json::json!({
            "digests": all
                .iter()
                .map(|s| (s.digest.clone(), shown(&s.cards)))
                .collect::<serde_json::Map<_, _>>()
        }),
    }
}

/// Everything of the page but what the summary pass computes.
fn page_around(
    args: &ReportArgs,
    summary: serde_json::Value,
    title: String,
    suite: Option<&Suite>,
) -> anyhow::Result<ReportInput> {
    let mut page = ReportInput::of_results(title, args.results.clone(), summary, args.summary.k);
    page.duplicates = args.duplicates;
    if let Some(suite) = suite {
        page.tasks = html::task_infos(suite);
    }
    page.end_states = args
        .keep
        .as_deref()
        .map(|dir| EndStateDir::new(dir, false, suite));
    if let Some(ledger) = &args.ledger {
        page.chart_svg = Some(weekly_chart(ledger)?);
    }
    Ok(page)
}

fn short(digest: &str) -> &str {
    let digest = digest.strip_prefix("sha256:").unwrap_or(digest);
    digest.get(..12).unwrap_or(digest)
}

fn print(
    args: &ReportArgs,
    all: &[Summarised],
    calibration: Option<&LoadedCalibration>,
) -> anyhow::Result<()> {
    if all.len() > 1 && !args.mixed {
        let (a, b) = (&all[0], &all[1]);
        crate::exit::bail_input!(
            "results of different task files: {} (task digest {}) and {} (task digest {}); their pass rates measure different suites. Report them apart, or pass --mixed to summarise each task digest on its own",
            a.file.display(),
            short(&a.digest),
            b.file.display(),
            short(&b.digest),
        );
    }
    let format = match args.format {
        ReportFormat::Junit => {
            if calibration.is_some() {
                crate::exit::bail_input!(
                    "--calibration has no place in JUnit output; use table, markdown or json"
                );
            }
            if all.len() > 1 {
                crate::exit::bail_input!(
                    "one JUnit document holds the results of one task file; with --mixed, use table, markdown or json, or report each task file on its own"
                );
            }
            let mut out = crate::exit::stdout();
            for summarised in all {
                // Another pass per agent streams its test cases, so memory stays flat.
                let digest = &summarised.digest;
                let cases = |each: &mut dyn FnMut(&ResultLine) -> anyhow::Result<()>| {
                    let mut attempts = args.duplicates.filter(&args.results)?;
                    for_each_result_at(
                        &args.results,
                        |at, _, _, line| {
                            if attempts.admit(at, &line)?
                                && (&line.task_digest == digest || all.len() == 1)
                            {
                                each(&line)?;
                            }
                            Ok(())
                        },
                        |_| {},
                        |_| {},
                    )
                };
                let io = crate::exit::stdout_error;
                let written =
                    render::junit::write(&mut out, &summarised.cards, &summarised.title, cases, io);
                if written.is_err() {
                    return out.close(written);
                }
            }
            return out.close(Ok(()));
        }
        // Written by the caller.
        ReportFormat::Html => return Ok(()),
        ReportFormat::Table => Shape::Table,
        ReportFormat::Json => Shape::Json,
        ReportFormat::Markdown => Shape::Markdown,
    };
    if let Some(calibration) = calibration {
        let [Summarised { title, cards, .. }] = all else {
            crate::exit::bail_input!(
                "--calibration corrects the results of one task file; drop --mixed"
            );
        };
        let Some(summary) = cards.headline() else {
            crate::exit::bail_input!(
                "--calibration corrects one pass rate: these results hold several agents ({}); report one of them, or pass --pool",
                cards.labels().join(", ")
            );
        };
        let corrected = correct_results(&args.results, calibration)?;
        let text = corrected::report(format, title, summary, &corrected, calibration.source())?;
        crate::exit::print(&text)?;
        return Ok(());
    }
    if all.len() > 1 && format == Shape::Json {
        let digests: serde_json::Map<String, serde_json::Value> = all
            .iter()
            .map(|s| (s.digest.clone(), render::json::cards_value(&s.cards)))
            .collect();
        let mut text = serde_json::to_string_pretty(&serde_json::json!({ "digests": digests }))
            .expect("JSON values serialise");
        text.push('\n');
        crate::exit::print(&text)?;
        return Ok(());
    }
    for (at, summarised) in all.iter().enumerate() {
        if at > 0 {
            crate::exit::print("\n")?;
        }
        crate::exit::print(&render::scorecards(
            format,
            &summarised.title,
            &summarised.cards,
        ))?;
    }
    Ok(())
}
