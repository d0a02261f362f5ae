//! The ledger rows of one result line: one per role, provider, model, service tier and
//! price row of its [`Cost::models`](proctor_core::result::Cost::models).

use super::row::LedgerRow;
use crate::TokenCounts;
use crate::time::parse_time_text;
use crate::usage::normalise_compact;
use jiff::Timestamp;
use proctor_core::result::{CallRole, ResultLine};

/// What a result line does not say about itself.
#[derive(Debug, Clone, Copy)]
pub struct RowContext<'a> {
    /// The invocation adding the rows.
    pub run_id: &'a str,
    /// The suite the results are of.
    pub suite: &'a str,
    /// The attempt's time when the line records none (`cost.priced_at`, then
    /// `timings.started_at`).
    pub fallback_time: Timestamp,
}

/// The rows for `line`.
///
/// Costs are the ones stored on the line: history is never re-priced here (that is
/// `recost`'s job). An attempt that reported no usage still gets one agent row with no
/// model and no calls, so that it counts as a run. A line written before costs were
/// stored has its usage read again for the tokens, and stays unpriced.
pub fn rows_of_result(line: &ResultLine, ctx: &RowContext<'_>) -> Vec<LedgerRow> {
    let recorded_at = [
        line.cost.priced_at.as_deref(),
        line.timings.started_at.as_deref(),
    ]
    .into_iter()
    .flatten()
    .find_map(parse_time_text)
    .unwrap_or(ctx.fallback_time)
    .to_string();
    let base = LedgerRow {
        recorded_at,
        run_id: ctx.run_id.to_owned(),
        suite: ctx.suite.to_owned(),
        label: line.label.clone().unwrap_or_default(),
        task: line.task.to_string(),
        attempt: line.attempt,
        passed: line.passed,
        role: CallRole::Agent,
        provider: String::new(),
        model: String::new(),
        tokens: TokenCounts::default(),
        cost_usd: None,
        price_id: String::new(),
        service_tier: String::new(),
        calls: 0,
    };
    let mut rows: Vec<LedgerRow> = line
        .cost
        .models
        .iter()
        .map(|m| LedgerRow {
            role: m.role,
            provider: m.provider.as_deref().unwrap_or_default().to_owned(),
            model: m.model.as_deref().unwrap_or_default().to_owned(),
            tokens: TokenCounts {
                input_tokens: m.input_tokens,
                cache_read_tokens: m.cache_read_tokens,
                cache_write_5m_tokens: m.cache_write_5m_tokens,
                cache_write_1h_tokens: m.cache_write_1h_tokens,
                output_tokens: m.output_tokens,
                reasoning_tokens: m.reasoning_tokens,
            },
            cost_usd: m.usd,
            price_id: m.price_id.clone().unwrap_or_default(),
            service_tier: m.service_tier.clone().unwrap_or_default(),
            calls: m.calls,
            ..base.clone()
        })
        .collect();
    if rows.is_empty() {
        rows = older_usage_rows(line, &base);
    }
    if rows.is_empty() {
        rows.push(base);
    }
    rows
}

/// Unpriced rows from the raw usage of a line that stored no per-model costs.
fn older_usage_rows(line: &ResultLine, base: &LedgerRow) -> Vec<LedgerRow> {
    let mut rows: Vec<LedgerRow> = Vec::new();
    for usage in line.usage.iter().filter_map(|v| normalise_compact(v).ok()) {
        let provider = usage.provider.unwrap_or_default().into_string();
        let model = usage.model.unwrap_or_default().into_string();
        match rows
            .iter_mut()
            .find(|r| r.provider == provider && r.model == model)
        {
            Some(row) => {
                row.tokens.add(&usage.tokens);
                row.calls += 1;
            }
            None => rows.push(LedgerRow {
                provider,
                model,
                tokens: usage.tokens,
                calls: 1,
                ..base.clone()
            }),
        }
    }
    rows
}
