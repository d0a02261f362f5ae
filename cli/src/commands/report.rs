//! `proctor report`: the suite summary from result files.

use crate::args::{Format, ReportArgs};
use crate::commands::calibrate::{correct_results, load_calibration};
use crate::commands::ledger::report::weekly_chart;
use crate::problems::Problems;
use crate::render::calibrate::corrected;
use crate::render::html::{self, EndStateDir, ReportInput};
use crate::results_file::for_each_result;
use crate::{gate, render};
use anyhow::Context;
use proctor_core::summary::SummaryBuilder;
use proctor_core::task::Suite;
use std::io::Write;

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let calibration = args
        .calibration
        .as_deref()
        .map(load_calibration)
        .transpose()?;
    let mut builder = SummaryBuilder::new();
    let mut problems = Problems::default();
    for_each_result(
        &args.results,
        |_, line| {
            builder.add(&line);
            Ok(())
        },
        |bad| problems.report(bad.to_string()),
    )?;
    let summary = builder
        .finish(args.summary.k)
        .context("cannot compute pass@k")?;
    let names: Vec<String> = args
        .results
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let title = format!("report {}", names.join(" "));
    if args.summary.format == Format::Html || args.summary.html.is_some() {
        if args.calibration.is_some() {
            anyhow::bail!(
                "--calibration has no place in the HTML report yet; use table, markdown or json"
            );
        }
        let mut page = ReportInput::of_results(
            title.clone(),
            args.results.clone(),
            serde_json::to_value(&summary)?,
            args.summary.k,
        );
        let suite = args.tasks.as_deref().map(Suite::load).transpose()?;
        if let Some(suite) = &suite {
            page.tasks = html::task_infos(suite);
        }
        page.end_states = args
            .keep
            .as_deref()
            .map(|dir| EndStateDir::new(dir, false, suite.as_ref()));
        if let Some(ledger) = &args.ledger {
            page.chart_svg = Some(weekly_chart(ledger)?);
        }
        if let Some(path) = &args.summary.html {
            html::write_file(path, &page)?;
        }
        if args.summary.format == Format::Html {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            html::write(&mut out, &page)?;
            out.flush()
                .map_err(|e| crate::exit::infrastructure("standard output", e))?;
            problems.into_result("result lines")?;
            return gate::check(&args.summary, &summary);
        }
    } else if args.tasks.is_some() || args.ledger.is_some() {
        anyhow::bail!(
            "--tasks and --ledger are for the HTML report: add --format html or --html FILE"
        );
    }
    if args.summary.format == Format::Junit {
        // A second pass streams the test cases, so memory stays flat.
        let mut out = std::io::stdout().lock();
        render::junit::write(&mut out, &summary, &title, |each| {
            for_each_result(&args.results, |_, line| each(&line), |_| {})
        })?;
    } else if let Some(calibration) = &calibration {
        let corrected = correct_results(&args.results, calibration)?;
        let format = args.summary.format;
        let source = calibration.source();
        let text = corrected::report(format, &title, &summary, &corrected, source)?;
        render::calibrate::print(&text);
    } else {
        render::print_summary(args.summary.format, &title, &summary)?;
    }
    problems.into_result("result lines")?;
    gate::check(&args.summary, &summary)
}
