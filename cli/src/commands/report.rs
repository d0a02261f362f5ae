//! `proctor report`: the suite summary from result files.

use crate::args::{Format, ReportArgs};
use crate::commands::calibrate::{correct_results, load_calibration};
use crate::problems::Problems;
use crate::render::calibrate::corrected;
use crate::results_file::for_each_result;
use crate::{gate, render};
use anyhow::Context;
use proctor_core::summary::SummaryBuilder;

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
