//! `proctor ledger report --ledger L.csv --period week ... --out R.csv [--chart R.svg]`.

use super::add::ledger_error;
use crate::args::LedgerReportArgs as ReportArgs;
use crate::exit::infrastructure;
use proctor_ledger::book::LedgerReader;
use proctor_ledger::chart::render_chart;
use proctor_ledger::report::{
    GroupBy, Period, Report, ReportOptions, build_report, write_report_csv,
};
use std::path::Path;

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if let (Some(since), Some(until)) = (args.since, args.until)
        && since > until
    {
        crate::exit::bail_input!("--since {since} is after --until {until}");
    }
    let report = read_report(
        &args.ledger,
        ReportOptions {
            period: args.period,
            by: args.by,
            since: args.since,
            until: args.until,
        },
    )?;
    match &args.out {
        Some(path) => {
            let mut text = Vec::new();
            write_report_csv(&report, &mut text).expect("writing to memory");
            write_file(path, &text)?;
        }
        None => {
            // A closed pipe (`| head`) ends quietly; a full disk exits 3.
            let mut out = crate::exit::stdout();
            let written = write_report_csv(&report, &mut out);
            out.close(written.map_err(crate::exit::stdout_error))?;
        }
    }
    if let Some(path) = &args.chart {
        write_file(path, render_chart(&report).as_bytes())?;
    }
    Ok(())
}

/// The weekly cost-per-success chart of a whole ledger, one line per label (`--ledger` on
/// the HTML report).
pub fn weekly_chart(ledger: &Path) -> anyhow::Result<String> {
    let options = ReportOptions {
        period: Period::Week,
        by: GroupBy::label(),
        since: None,
        until: None,
    };
    Ok(render_chart(&read_report(ledger, options)?))
}

/// Reads a ledger under a shared lock and rolls it up.
fn read_report(ledger: &Path, options: ReportOptions) -> anyhow::Result<Report> {
    let file = std::fs::File::open(ledger)
        .map_err(|e| crate::exit::bad_input!("{}: cannot read ledger: {e}", ledger.display()))?;
    // A shared lock: an append in progress finishes before the report reads.
    file.lock_shared()
        .map_err(|e| infrastructure(ledger.display(), e))?;
    let mut reader = LedgerReader::new(ledger, &file).map_err(ledger_error)?;
    let report = build_report(&mut reader, options).map_err(ledger_error)?;
    drop(reader);
    let _ = file.unlock();
    Ok(report)
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            crate::exit::infrastructure(format!("{}: cannot create folder", parent.display()), e)
        })?;
    }
    std::fs::write(path, bytes).map_err(|e| infrastructure(path.display(), e))
}
