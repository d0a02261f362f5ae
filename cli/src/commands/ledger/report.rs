//! `proctor ledger report --ledger L.csv --period week ... --out R.csv [--chart R.svg]`.

use crate::args::LedgerReportArgs as ReportArgs;
use crate::exit::infrastructure;
use crate::ledger_file::report::read_report;
use proctor_ledger::chart::render_chart;
use proctor_ledger::report::{ReportOptions, write_report_csv};
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

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            crate::exit::infrastructure(format!("{}: cannot create folder", parent.display()), e)
        })?;
    }
    std::fs::write(path, bytes).map_err(|e| infrastructure(path.display(), e))
}
