//! Gate options shared by the summarising commands.

use crate::args::SummaryArgs;
use crate::exit::Failure;
use proctor_core::summary::Summary;

/// Checks `--min-pass-rate`: a missing pass rate (nothing graded) fails the gate,
/// because missing data is never a pass.
pub fn check(args: &SummaryArgs, summary: &Summary) -> anyhow::Result<()> {
    if let Some(min) = args.min_pass_rate {
        match summary.pass_rate {
            Some(rate) if rate >= min => {}
            Some(rate) => {
                return Err(Failure::Gate(format!(
                    "pass rate {rate:.4} is below --min-pass-rate {min}"
                ))
                .into());
            }
            None => {
                return Err(Failure::Gate(format!(
                    "no graded attempts, so the pass rate cannot reach --min-pass-rate {min}"
                ))
                .into());
            }
        }
    }
    Ok(())
}
