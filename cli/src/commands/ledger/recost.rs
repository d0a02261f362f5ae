//! `proctor ledger recost --ledger L.csv --prices FILE --out L2.csv`.

use crate::args::RecostArgs;
use crate::exit::infrastructure;
use crate::ledger_file::error::ledger_error;
use crate::usage_cost::load_pricer;
use proctor_ledger::book::LedgerReader;
use proctor_ledger::recost::recost;
use std::io::BufWriter;

pub fn run(args: RecostArgs) -> anyhow::Result<()> {
    let same = match (args.out.canonicalize(), args.ledger.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => args.out == args.ledger,
    };
    if same {
        crate::exit::bail_input!(
            "--out {} is the ledger itself; recost writes a new ledger and never rewrites history in place",
            args.out.display()
        );
    }
    let pricer = load_pricer(&args.prices)?;
    let mut reader = LedgerReader::open(&args.ledger).map_err(ledger_error)?;
    let out =
        std::fs::File::create(&args.out).map_err(|e| infrastructure(args.out.display(), e))?;
    let summary = recost(&mut reader, pricer.table(), BufWriter::new(out), &args.out)
        .map_err(ledger_error)?;
    eprintln!(
        "proctor: re-priced {} rows into {}: {} changed, {} priced, {} unpriced",
        summary.rows,
        args.out.display(),
        summary.changed,
        summary.priced,
        summary.unpriced
    );
    Ok(())
}
