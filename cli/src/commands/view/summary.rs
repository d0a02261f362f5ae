//! One results file summarised for the runs list: per agent the figures `proctor report`
//! prints (by its own scorecard code and its own strings), and per agent the per-task tally
//! `proctor compare` reads, so that the verdict against the previous run is computed without
//! reading either file again (docs/viewing.md#the-runs).

use crate::duplicates::Duplicates;
use crate::render::shown::summary_shown;
use crate::results_file::for_each_result_at;
use proctor_core::compare::{Side, SideBuilder, SideTally};
use proctor_core::result::ResultLine;
use proctor_core::summary::{ScorecardBuilder, ScorecardOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The label a report gives lines that carry none.
pub const NO_LABEL: &str = proctor_core::summary::NO_GROUP;

/// Distinct shards remembered per file.
pub const MAX_SHARDS: usize = 1024;

/// What the list shows of one results file, and what the verdicts need.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileSummary {
    /// The run id of the first line that has one.
    pub run_id: Option<String>,
    /// The task digest of the lines (the suite); empty for older lines without one.
    pub digest: String,
    /// The earliest and latest `timings.started_at` (RFC 3339).
    pub first_start: Option<String>,
    pub last_start: Option<String>,
    /// The distinct `shard` values of the lines (at most [`MAX_SHARDS`]): one for a shard's
    /// file, several for a merge of shards.
    #[serde(default)]
    pub shards: Vec<String>,
    /// Result lines read (attempts done).
    pub done: u64,
    /// Lines that are not result lines.
    pub bad_lines: u64,
    /// Why the file cannot be summarised as `report` would (mixed task files, a repeated
    /// attempt), when so.
    pub error: Option<String>,
    pub agents: Vec<AgentFigures>,
}

/// One agent's figures in one file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AgentFigures {
    /// The label, or [`NO_LABEL`].
    pub agent: String,
    pub attempts: u64,
    /// The strings the report's table prints.
    pub pass_rate: String,
    pub pass_rate_ci: String,
    pub cost_per_success: String,
    /// The USD figure alone (`$0.0105`), for a chart's axis.
    pub cost_usd: String,
    pub cost_is_lower_bound: bool,
    /// The numbers behind them, only to place points on a chart.
    pub chart: ChartPoint,
    /// What `compare` reads of this agent's lines; `None` when they cannot be compared
    /// (the reason is in `tally_error`).
    pub tally: Option<SideTally>,
    pub tally_error: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ChartPoint {
    pub pass_rate: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub cost: Option<f64>,
}

/// The running summary of one file, fed line by line (a live file is fed as it grows).
#[derive(Debug, Clone)]
pub struct Summariser {
    shown_path: String,
    cards: ScorecardBuilder,
    sides: Vec<(String, Result<SideBuilder, String>)>,
    summary: FileSummary,
}

impl Summariser {
    /// `shown_path` names the file in `compare`'s tallies (and so in its errors).
    pub fn new(shown_path: impl Into<String>) -> Summariser {
        Summariser {
            shown_path: shown_path.into(),
            cards: ScorecardBuilder::new(ScorecardOptions::default()),
            sides: Vec::new(),
            summary: FileSummary::default(),
        }
    }

    pub fn add(&mut self, line: &ResultLine) {
        let summary = &mut self.summary;
        summary.done += 1;
        if summary.run_id.is_none() {
            summary.run_id.clone_from(&line.run_id);
        }
        if !line.task_digest.is_empty() {
            if summary.digest.is_empty() {
                summary.digest.clone_from(&line.task_digest);
            } else if summary.digest != line.task_digest && summary.error.is_none() {
                summary.error = Some(format!(
                    "results of different task files (task digests {} and {}); report them apart",
                    summary.digest, line.task_digest
                ));
            }
        }
        if let Some(shard) = &line.shard
            && summary.shards.len() < MAX_SHARDS
            && !summary.shards.contains(shard)
        {
            summary.shards.push(shard.clone());
        }
        if let Some(start) = &line.timings.started_at {
            let earlier = |than: &String| instant_order(start, than).is_lt();
            if summary.first_start.as_ref().is_none_or(earlier) {
                summary.first_start = Some(start.clone());
            }
            let later = |than: &String| instant_order(start, than).is_gt();
            if summary.last_start.as_ref().is_none_or(later) {
                summary.last_start = Some(start.clone());
            }
        }
        self.cards.add(line, &[]);
        let label = line.label.as_deref().unwrap_or(NO_LABEL);
        let at = match self.sides.iter().position(|(l, _)| l == label) {
            Some(at) => at,
            None => {
                let side = SideBuilder::new(Side::New, self.shown_path.clone());
                self.sides.push((label.to_owned(), Ok(side)));
                self.sides.len() - 1
            }
        };
        let (_, side) = &mut self.sides[at];
        if let Ok(builder) = side
            && let Err(e) = builder.add(line)
        {
            *side = Err(e.to_string());
        }
    }

    pub fn bad_line(&mut self) {
        self.summary.bad_lines += 1;
    }

    /// Marks the file as not summarised the way `report` would.
    pub fn fail(&mut self, why: String) {
        self.summary.error.get_or_insert(why);
    }

    /// The summary so far (the builders stay, so a live file can be fed further).
    pub fn summary(&self) -> FileSummary {
        let mut summary = self.summary.clone();
        let cards = match self.cards.clone().finish(None) {
            Ok(cards) => cards,
            Err(e) => {
                summary.error.get_or_insert_with(|| e.to_string());
                return summary;
            }
        };
        summary.agents = cards
            .agents
            .iter()
            .map(|card| {
                let s = &card.summary;
                let shown = summary_shown(s);
                let text = |key: &str| {
                    shown
                        .get(key)
                        .and_then(|v| v.as_str())
                        .unwrap_or(crate::render::numbers::MISSING)
                        .to_owned()
                };
                let side = self.sides.iter().find(|(l, _)| *l == card.label);
                let (tally, tally_error) = match side.map(|(_, s)| s) {
                    Some(Ok(builder)) => (Some(builder.clone().finish()), None),
                    Some(Err(e)) => (None, Some(e.clone())),
                    None => (None, Some("no lines of this agent".to_owned())),
                };
                AgentFigures {
                    agent: card.label.clone(),
                    attempts: s.attempts,
                    pass_rate: text("pass_rate"),
                    pass_rate_ci: text("pass_rate_ci"),
                    // As the table prints it: `≥ $0.0105, 1 unpriced call` for a lower bound.
                    cost_per_success: crate::render::numbers::usd_at_least(
                        s.cost_per_success.usd,
                        s.unpriced_calls,
                    ),
                    cost_usd: text("cost_per_success.usd"),
                    cost_is_lower_bound: s.cost_per_success.cost_is_lower_bound,
                    chart: ChartPoint {
                        pass_rate: s.pass_rate,
                        low: s.pass_rate_ci.map(|i| i.low),
                        high: s.pass_rate_ci.map(|i| i.high),
                        cost: s
                            .cost_per_success
                            .usd
                            .and_then(|d| d.to_string().parse().ok()),
                    },
                    tally,
                    tally_error,
                }
            })
            .collect();
        summary
    }
}

/// The order of two RFC 3339 times as instants (`10Z` before `10.5Z`, offsets applied);
/// a text that is no time sorts after every time, and among such texts as text.
pub fn instant_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<jiff::Timestamp>(), b.parse::<jiff::Timestamp>()) {
        (Ok(a), Ok(b)) => a.cmp(&b),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// Summarises a whole file as `report` reads it (a repeated attempt is an error there, and so
/// a note here).
pub fn summarise(path: &Path, shown_path: &str) -> anyhow::Result<FileSummary> {
    let paths: [PathBuf; 1] = [path.to_owned()];
    let mut summariser = Summariser::new(shown_path);
    let mut attempts = Duplicates::Error.filter(&paths)?;
    let mut repeated = None;
    let mut bad = 0u64;
    for_each_result_at(
        &paths,
        |at, _, _, line| {
            match attempts.admit(at, &line) {
                Ok(true) => summariser.add(&line),
                Ok(false) => {}
                Err(e) => {
                    repeated.get_or_insert_with(|| format!("{e:#}"));
                }
            }
            Ok(())
        },
        |_| bad += 1,
        |_| {},
    )?;
    for _ in 0..bad {
        summariser.bad_line();
    }
    if let Some(why) = repeated {
        summariser.fail(why);
    }
    Ok(summariser.summary())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn times_are_ordered_as_instants_not_as_text() {
        assert_eq!(
            instant_order("2026-11-30T10:00:10Z", "2026-11-30T10:00:10.5Z"),
            Ordering::Less
        );
        assert_eq!(
            instant_order("2026-11-30T12:00:00+02:00", "2026-11-30T11:00:00Z"),
            Ordering::Less
        );
        assert_eq!(
            instant_order("yesterday", "2026-11-30T11:00:00Z"),
            Ordering::Greater
        );
    }
}
