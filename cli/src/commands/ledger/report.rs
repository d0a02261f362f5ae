//! `proctor ledger report --ledger L.csv --period week ... --out R.csv [--chart R.svg]`.

use crate::args::LedgerReportArgs as ReportArgs;
use crate::exit::infrastructure;
use crate::ledger_file::report::read_report;
use proctor_ledger::chart::render_chart;
use proctor_ledger::report::{ReportOptions, write_report_csv};
use std::io::Write;
use std::path::Path;

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if let (Some(since), Some(until)) = (args.since, args.until)
        && since > until
    {
        anyhow::bail!("--since {since} is after --until {until}");
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
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a non-zero exit.
            let _ = write_report_csv(&report, &mut out);
            let _ = out.flush();
        }
    }
    if let Some(path) = &args.chart {
        write_file(path, render_chart(&report).as_bytes())?;
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", parent.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| infrastructure(path.display(), e))
}
