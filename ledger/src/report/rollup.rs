//! Rolling ledger rows up into periods and groups, streaming.
//!
//! Memory holds one accumulator per period and group, and one 64-bit digest per attempt
//! (to count each attempt once however many rows it has, in whatever order they come),
//! kept per period.

use super::day::utc_day;
use super::group::{GroupBy, GroupKey};
use super::period::Period;
use crate::book::{Col, DigestSet, FastBuild, LedgerError, LedgerReader, attempt_key};
use jiff::civil::Date;
use proctor_core::result::CallRole;
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::io::Read;

/// What to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportOptions {
    /// The period length.
    pub period: Period,
    /// The grouping.
    pub by: GroupBy,
    /// Only rows recorded on or after this UTC day.
    pub since: Option<Date>,
    /// Only rows recorded on or before this UTC day.
    pub until: Option<Date>,
}

/// Sums of one period and group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Attempts (each counted once, whatever its number of rows).
    pub runs: u64,
    /// Attempts that passed.
    pub successes: u64,
    /// Priced agent calls' USD; `None` when none was priced.
    pub agent_cost: Option<Decimal>,
    /// Priced judge calls' USD; `None` when none was priced.
    pub judge_cost: Option<Decimal>,
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Cache reads.
    pub cache_read_tokens: u64,
    /// Cache writes, both lifetimes.
    pub cache_write_tokens: u64,
    /// Output, reasoning included.
    pub output_tokens: u64,
    /// Calls with no price.
    pub unpriced_calls: u64,
}

/// One row of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRow {
    /// First day of the period.
    pub start: Date,
    /// The group.
    pub group: GroupKey,
    /// Its sums.
    pub totals: Totals,
}

/// A finished report: rows sorted by period, then group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What was asked.
    pub options: ReportOptions,
    /// One row per period and group with any rows.
    pub rows: Vec<ReportRow>,
}

/// Reads every row of `reader` and rolls it up.
///
/// # Errors
///
/// The first malformed row ([`LedgerError`] with its line and column): a report that
/// skipped a row would state the wrong money.
pub fn build_report<R: Read>(
    reader: &mut LedgerReader<R>,
    options: ReportOptions,
) -> Result<Report, LedgerError> {
    let mut groups: HashMap<Vec<u8>, usize, FastBuild> = HashMap::default();
    let mut keys: Vec<GroupKey> = Vec::new();
    let mut totals: HashMap<(Date, usize), Totals, FastBuild> = HashMap::default();
    // Attempts seen, per period: an attempt's rows share one time, so one period; small
    // sets stay in cache where one set of every attempt would not.
    let mut attempts: HashMap<Date, DigestSet, FastBuild> = HashMap::default();
    let mut group_bytes: Vec<u8> = Vec::with_capacity(128);
    let by = options.by;

    while let Some(row) = reader.next_row()? {
        let day = utc_day(row.bytes(Col::RecordedAt)).ok_or_else(|| bad_time(&row))?;
        let role = row.role()?;
        let passed = row.passed()?;
        let input = row.count(Col::InputTokens)?;
        let cache_read = row.count(Col::CacheReadTokens)?;
        let cache_write = row.count(Col::CacheWriteTokens)?;
        let output = row.count(Col::OutputTokens)?;
        row.count(Col::ReasoningTokens)?;
        row.count(Col::Attempt)?;
        let cost = row.cost()?;
        let calls = row.calls()?;
        if options.since.is_some_and(|s| day < s) || options.until.is_some_and(|u| day > u) {
            continue;
        }
        group_bytes.clear();
        for (on, col) in [
            (by.label, Col::Label),
            (by.model, Col::Model),
            (by.suite, Col::Suite),
        ] {
            if on {
                group_bytes.extend_from_slice(row.bytes(col));
            }
            group_bytes.push(0);
        }
        let group = match groups.get(group_bytes.as_slice()) {
            Some(g) => *g,
            None => {
                let text = |on: bool, col: Col| -> Result<String, LedgerError> {
                    Ok(if on {
                        row.text(col)?.to_owned()
                    } else {
                        String::new()
                    })
                };
                keys.push(GroupKey {
                    label: text(by.label, Col::Label)?,
                    model: text(by.model, Col::Model)?,
                    suite: text(by.suite, Col::Suite)?,
                });
                groups.insert(group_bytes.clone(), keys.len() - 1);
                keys.len() - 1
            }
        };
        let start = options.period.start_of(day);
        let t = totals.entry((start, group)).or_default();
        if attempts
            .entry(start)
            .or_default()
            .insert(attempt_key(&row, group))
        {
            t.runs += 1;
            if passed == Some(true) {
                t.successes += 1;
            }
        }
        // Sums never saturate or panic: an overflow is an error naming the row.
        let overflow = |col: Col| row.error(col, "the period's total overflows here");
        let add = |total: &mut u64, n: u64, col: Col| -> Result<(), LedgerError> {
            *total = total.checked_add(n).ok_or_else(|| overflow(col))?;
            Ok(())
        };
        add(&mut t.input_tokens, input, Col::InputTokens)?;
        add(&mut t.cache_read_tokens, cache_read, Col::CacheReadTokens)?;
        add(
            &mut t.cache_write_tokens,
            cache_write,
            Col::CacheWriteTokens,
        )?;
        add(&mut t.output_tokens, output, Col::OutputTokens)?;
        match cost {
            Some(usd) => {
                let share = match role {
                    CallRole::Agent => &mut t.agent_cost,
                    CallRole::Judge => &mut t.judge_cost,
                };
                let sum = share.unwrap_or_default().checked_add(usd);
                *share = Some(sum.ok_or_else(|| overflow(Col::CostUsd))?);
                // The report adds agent and judge cost: that sum must fit too.
                let agent = t.agent_cost.unwrap_or_default();
                agent
                    .checked_add(t.judge_cost.unwrap_or_default())
                    .ok_or_else(|| overflow(Col::CostUsd))?;
            }
            None => add(&mut t.unpriced_calls, calls, Col::Calls)?,
        }
    }
    let mut rows: Vec<ReportRow> = totals
        .into_iter()
        .map(|((start, group), totals)| ReportRow {
            start,
            group: keys[group].clone(),
            totals,
        })
        .collect();
    rows.sort_by(|a, b| a.start.cmp(&b.start).then_with(|| a.group.cmp(&b.group)));
    Ok(Report { options, rows })
}

fn bad_time(row: &crate::book::RawRow<'_>) -> LedgerError {
    row.error(
        Col::RecordedAt,
        format!(
            "expected an RFC 3339 time, found {:?}",
            String::from_utf8_lossy(row.bytes(Col::RecordedAt))
        ),
    )
}

impl Totals {
    /// Agent and judge cost together; `None` when nothing was priced.
    pub fn total_cost(&self) -> Option<Decimal> {
        match (self.agent_cost, self.judge_cost) {
            (None, None) => None,
            (a, j) => Some(a.unwrap_or_default() + j.unwrap_or_default()),
        }
    }

    /// `successes / runs`.
    pub fn success_rate(&self) -> Option<Decimal> {
        (self.runs > 0).then(|| Decimal::from(self.successes) / Decimal::from(self.runs))
    }

    /// All spend, failed runs included, per success; `None` with no success.
    pub fn cost_per_success(&self) -> Option<Decimal> {
        self.total_cost()
            .filter(|_| self.successes > 0)
            .map(|c| c / Decimal::from(self.successes))
    }

    /// All spend per run.
    pub fn cost_per_run(&self) -> Option<Decimal> {
        self.total_cost()
            .filter(|_| self.runs > 0)
            .map(|c| c / Decimal::from(self.runs))
    }
}
