//! Gate options shared by the summarising commands.

use crate::args::SummaryArgs;
use crate::exit::Failure;
use proctor_core::summary::Scorecards;

/// Checks `--min-pass-rate` for every agent (and the pooled figures when shown): a
/// missing pass rate (nothing graded) fails the gate, because missing data is never a pass.
pub fn check(args: &SummaryArgs, cards: &Scorecards) -> anyhow::Result<()> {
    let Some(min) = args.min_pass_rate else {
        return Ok(());
    };
    let several = cards.agents.len() > 1;
    let mut failed = Vec::new();
    let pooled = cards.pooled.iter().map(|s| ("pooled", s));
    let agents = cards.agents.iter().map(|a| (a.label.as_str(), &a.summary));
    for (name, summary) in pooled.chain(agents) {
        let whose = if several || name == "pooled" {
            format!("{name}: ")
        } else {
            String::new()
        };
        match summary.pass_rate {
            Some(rate) if rate >= min => {}
            Some(rate) => failed.push(format!(
                "{whose}pass rate {rate:.4} is below --min-pass-rate {min}"
            )),
            None => failed.push(format!(
                "{whose}no graded attempts, so the pass rate cannot reach --min-pass-rate {min}"
            )),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Gate(failed.join("; ")).into())
    }
}
