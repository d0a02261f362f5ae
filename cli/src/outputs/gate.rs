//! `--min-pass-rate`, the gate of the commands that print scorecards.

use super::AttemptSink;
use crate::exit::Failure;
use proctor_core::summary::Scorecards;

/// Exits 1 when a pass rate is below `--min-pass-rate`.
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    pub min_pass_rate: Option<f64>,
}

impl AttemptSink for Gate {
    fn check(&self, cards: &Scorecards) -> anyhow::Result<()> {
        match self.min_pass_rate {
            Some(min) => check(min, cards),
            None => Ok(()),
        }
    }
}

/// Checks `min` for every agent (and the pooled figures when shown): a missing pass rate
/// (nothing graded) fails the gate, because missing data is never a pass.
pub fn check(min: f64, cards: &Scorecards) -> anyhow::Result<()> {
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
