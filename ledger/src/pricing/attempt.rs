//! [`price_attempt`]: the [`Cost`] of one attempt, from its agent and judge usage.

use super::quote::{Call, quote};
use crate::prices::PriceTable;
use crate::time::{TimeError, time_of};
use crate::usage::{UsageError, normalise};
use jiff::Timestamp;
use proctor_core::json_field::{get, map_get};
use proctor_core::result::{CallRole, Cost, ModelCost};
use rust_decimal::Decimal;
use serde_json::Value;
use std::cell::RefCell;

/// Why an attempt's usage could not be counted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    /// A usage object could not be read.
    #[error("{}{error}", role_prefix(*role))]
    Usage {
        /// Whose usage.
        role: CallRole,
        /// What was wrong, with the object's position (`usage[2]: …`).
        error: UsageError,
    },
    /// A usage object's own time could not be read.
    #[error("{}usage[{index}]: {error}", role_prefix(*role))]
    Time {
        /// Whose usage.
        role: CallRole,
        /// Position in the list, from 0.
        index: usize,
        /// What was wrong.
        error: TimeError,
    },
}

fn role_prefix(role: CallRole) -> &'static str {
    match role {
        CallRole::Agent => "",
        CallRole::Judge => "judge ",
    }
}

/// Prices every call of one attempt.
///
/// Each usage object is priced at its own time when it records one (`timestamp`,
/// `recorded_at`, `started_at` or `created_at`), else at `at` (the attempt's time). Its
/// service tier is its `service_tier` key (or `usage.service_tier`). Calls are summed per
/// role, provider, model, service tier and price row into [`Cost::models`]; unpriced
/// calls count in `unpriced_calls` and leave their cost empty, never 0.
///
/// # Errors
///
/// [`CostError`] for the first usage object that cannot be read; nothing is priced then.
pub fn price_attempt(
    table: &PriceTable,
    agent: &[Value],
    judge: &[Value],
    at: Timestamp,
) -> Result<Cost, CostError> {
    let mut cost = Cost {
        priced_at: Some(rfc3339(at)),
        // Entries are per model, so a line of many calls to one model needs one.
        models: Vec::with_capacity((agent.len() + judge.len()).min(4)),
        ..Cost::default()
    };
    for (role, usage) in [(CallRole::Agent, agent), (CallRole::Judge, judge)] {
        for (index, value) in usage.iter().enumerate() {
            let mut read = normalise(value).map_err(|error| CostError::Usage {
                role,
                error: UsageError::Item {
                    index,
                    error: Box::new(error),
                },
            })?;
            let object = value.as_object();
            let call_at = match object.map(time_of).transpose() {
                Ok(time) => time.flatten().unwrap_or(at),
                Err(error) => return Err(CostError::Time { role, index, error }),
            };
            let tier = object.and_then(service_tier);
            let call = Call::new(
                read.provider.as_deref(),
                read.model.as_deref(),
                &read.tokens,
                call_at,
                tier,
            );
            let priced = quote(table, &call).ok();
            cost.tokens = cost.tokens.saturating_add(read.tokens.total());
            let usd = priced.as_ref().map(|q| q.usd);
            match &priced {
                Some(q) => {
                    add(&mut cost.usd, q.usd);
                    let share = match role {
                        CallRole::Agent => &mut cost.agent_usd,
                        CallRole::Judge => &mut cost.judge_usd,
                    };
                    add(share, q.usd);
                    if let Err(slot) = cost.price_ids.binary_search(&q.price_id) {
                        cost.price_ids.insert(slot, q.price_id.clone());
                    }
                }
                None => cost.unpriced_calls += 1,
            }
            let price_id = priced.map(|q| q.price_id);
            let entry = match cost.models.iter_mut().find(|m| {
                m.role == role
                    && m.provider == read.provider
                    && m.model == read.model
                    && m.service_tier.as_deref() == tier
                    && m.price_id == price_id
            }) {
                Some(entry) => entry,
                None => {
                    // The names are not read again: moved, not copied.
                    cost.models.push(ModelCost {
                        role,
                        provider: read.provider.take(),
                        model: read.model.take(),
                        service_tier: tier.map(str::to_owned),
                        price_id,
                        ..ModelCost::default()
                    });
                    cost.models.last_mut().expect("just pushed")
                }
            };
            entry.calls += 1;
            let t = &read.tokens;
            entry.input_tokens = entry.input_tokens.saturating_add(t.input_tokens);
            entry.cache_read_tokens = entry.cache_read_tokens.saturating_add(t.cache_read_tokens);
            entry.cache_write_5m_tokens = entry
                .cache_write_5m_tokens
                .saturating_add(t.cache_write_5m_tokens);
            entry.cache_write_1h_tokens = entry
                .cache_write_1h_tokens
                .saturating_add(t.cache_write_1h_tokens);
            entry.output_tokens = entry.output_tokens.saturating_add(t.output_tokens);
            entry.reasoning_tokens = entry.reasoning_tokens.saturating_add(t.reasoning_tokens);
            if let Some(usd) = usd {
                add(&mut entry.usd, usd);
            }
        }
    }
    Ok(cost)
}

/// `at` in RFC 3339. The lines of a log are mostly priced at one time (the command's start,
/// or a shared timestamp), so each thread keeps the text of the last time it wrote.
fn rfc3339(at: Timestamp) -> String {
    thread_local! {
        static LAST: RefCell<Option<(Timestamp, String)>> = const { RefCell::new(None) };
    }
    LAST.with_borrow_mut(|last| match last {
        Some((time, text)) if *time == at => text.clone(),
        _ => {
            let text = at.to_string();
            *last = Some((at, text.clone()));
            text
        }
    })
}

fn add(total: &mut Option<Decimal>, usd: Decimal) {
    *total = Some((total.unwrap_or_default() + usd).normalize());
}

/// The `service_tier` a usage object (or the `usage` inside a response) reports.
fn service_tier(object: &serde_json::Map<String, Value>) -> Option<&str> {
    map_get(object, "service_tier")
        .or_else(|| map_get(object, "usage").and_then(|u| get(u, "service_tier")))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_attempt_records_its_own_price_time_whatever_was_priced_before() {
        let usage = [json!({"input_tokens": 1, "output_tokens": 1})];
        let priced_at = |at: &str| {
            price_attempt(&PriceTable::empty(), &usage, &[], at.parse().unwrap())
                .unwrap()
                .priced_at
        };
        for at in [
            "2026-03-01T00:00:00Z",
            "2026-03-02T12:30:00Z",
            "2026-03-02T12:30:00Z",
            "2026-03-01T00:00:00Z",
        ] {
            assert_eq!(priced_at(at).as_deref(), Some(at));
        }
    }
}
