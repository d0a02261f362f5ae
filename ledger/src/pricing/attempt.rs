//! [`price_attempt`]: the [`Cost`] of one attempt, from its agent and judge usage.

use super::quote::{Call, quote};
use crate::prices::PriceTable;
use crate::time::{TIME_KEYS, TimeError, time_of};
use crate::usage::{UsageError, normalise_compact};
use jiff::Timestamp;
use proctor_core::compact_json::{CompactJson, members};
use proctor_core::result::{CallRole, Cost, ModelCost};
use rust_decimal::Decimal;
use serde_json::Value;
use std::borrow::Cow;
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
/// A usage object that cannot be read, or whose own time cannot be, is still counted: as
/// an unpriced call (its tokens too, when they can be read), so that the attempt's USD is a
/// lower bound and says so, never a silent 0 (docs/cost.md). What was wrong with it is in
/// [`PricedAttempt::problems`], for the command to say.
pub fn price_attempt(
    table: &PriceTable,
    agent: &[CompactJson],
    judge: &[CompactJson],
    at: Timestamp,
) -> PricedAttempt {
    let mut problems = Vec::new();
    let mut cost = Cost {
        priced_at: Some(rfc3339(at)),
        // Entries are per model, so a line of many calls to one model needs one.
        models: Vec::with_capacity((agent.len() + judge.len()).min(4)),
        ..Cost::default()
    };
    for (role, usage) in [(CallRole::Agent, agent), (CallRole::Judge, judge)] {
        for (index, value) in usage.iter().enumerate() {
            let mut read = match normalise_compact(value) {
                Ok(read) => read,
                Err(error) => {
                    // Nothing of it can be counted but the call itself, unpriced.
                    cost.unpriced_calls += 1;
                    problems.push(CostError::Usage {
                        role,
                        error: UsageError::Item {
                            index,
                            error: Box::new(error),
                        },
                    });
                    continue;
                }
            };
            let (own, timed) = match CallFacts::of(value) {
                Ok(own) => (own, true),
                Err(error) => {
                    problems.push(CostError::Time { role, index, error });
                    (CallFacts::default(), false)
                }
            };
            let call_at = own.at.unwrap_or(at);
            let tier = own.service_tier.as_deref();
            let call = Call::new(
                read.provider.as_deref(),
                read.model.as_deref(),
                &read.tokens,
                call_at,
                tier,
            );
            // A call whose cost would not fit in the attempt's total is left unpriced:
            // every other figure (the role's share, the model's entry) is at most the total.
            // A call whose own time cannot be read has no price time: it is counted unpriced.
            let priced = timed
                .then(|| quote(table, &call).ok())
                .flatten()
                .filter(|q| fits(cost.usd, q.usd));
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
    PricedAttempt { cost, problems }
}

/// The cost of one attempt, and what could not be priced in it.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedAttempt {
    /// Every call counted; those in `problems` as unpriced.
    pub cost: Cost,
    /// Each usage object that could not be read, or whose own time could not be, in order.
    pub problems: Vec<CostError>,
}

impl PricedAttempt {
    /// The cost when every usage object could be read; else the first problem.
    pub fn into_result(self) -> Result<Cost, CostError> {
        match self.problems.into_iter().next() {
            None => Ok(self.cost),
            Some(problem) => Err(problem),
        }
    }
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

/// Whether `usd` can be added to `total`.
fn fits(total: Option<Decimal>, usd: Decimal) -> bool {
    total.unwrap_or_default().checked_add(usd).is_some()
}

/// Adds a priced amount; callers check [`fits`] on the largest total first, so saturating
/// never changes a figure.
fn add(total: &mut Option<Decimal>, usd: Decimal) {
    *total = Some(total.unwrap_or_default().saturating_add(usd).normalize());
}

/// What a usage object records about its call besides tokens.
#[derive(Default)]
struct CallFacts<'a> {
    /// Its own time, under one of [`TIME_KEYS`].
    at: Option<Timestamp>,
    /// Its `service_tier` (or that of the `usage` inside a response).
    service_tier: Option<Cow<'a, str>>,
}

impl<'a> CallFacts<'a> {
    /// Reads them from the object's compact text, which is parsed only when it holds a
    /// time or an escape.
    fn of(usage: &'a CompactJson) -> Result<Self, TimeError> {
        let text = usage.as_str();
        // Most usage objects record neither: a key is written as `"key":`, and every time
        // key but `timestamp` ends in `_at`.
        if !["_at\":", "\"timestamp\":", "\"service_tier\":"]
            .iter()
            .any(|key| text.contains(key))
        {
            return Ok(CallFacts::default());
        }
        if !text.contains('\\')
            && let Some(tier) = plain_service_tier(text)
        {
            return Ok(CallFacts {
                at: None,
                service_tier: tier.map(Cow::Borrowed),
            });
        }
        let value = usage.to_value();
        let Some(object) = value.as_object() else {
            return Ok(CallFacts::default());
        };
        Ok(CallFacts {
            at: time_of(object)?,
            service_tier: service_tier(object).map(|t| Cow::Owned(t.to_owned())),
        })
    }
}

/// [`service_tier`] of an object's compact text without escapes, in one walk over its
/// members; `None` when it is no object or records a time, which is then read from the
/// parsed value.
fn plain_service_tier(text: &str) -> Option<Option<&str>> {
    let (mut own, mut response) = (None, None);
    for (key, value) in members(text)? {
        match key {
            "service_tier" => own = Some(value),
            "usage" => response = Some(value),
            key if TIME_KEYS.contains(&key) => return None,
            _ => {}
        }
    }
    let tier = own.or_else(|| {
        members(response?)?
            .find(|(key, _)| *key == "service_tier")
            .map(|(_, value)| value)
    });
    // No escapes: a string's text between its quotes is the string.
    Some(tier.and_then(|t| t.strip_prefix('"')?.strip_suffix('"')))
}

/// The `service_tier` a usage object (or the `usage` inside a response) reports.
fn service_tier(object: &serde_json::Map<String, Value>) -> Option<&str> {
    object
        .get("service_tier")
        .or_else(|| object.get("usage").and_then(|u| u.get("service_tier")))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// A time and a service tier as the parsed object gives them.
    fn from_value(value: &Value) -> Result<(Option<Timestamp>, Option<String>), TimeError> {
        let object = value.as_object().expect("an object");
        Ok((time_of(object)?, service_tier(object).map(str::to_owned)))
    }

    fn from_text(value: &Value) -> Result<(Option<Timestamp>, Option<String>), TimeError> {
        let compact = CompactJson::from_value(value);
        let facts = CallFacts::of(&compact)?;
        Ok((facts.at, facts.service_tier.map(Cow::into_owned)))
    }

    fn member_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!("flex")),
            Just(json!("batch \"x\"")),
            Just(json!("2026-11-23T09:00:00Z")),
            Just(json!("not a time")),
            Just(json!(1_763_888_400)),
            Just(Value::Null),
            Just(json!(3)),
            Just(json!({"service_tier": "priority"})),
            Just(json!({"service_tier": null})),
            Just(json!({"service_tier": 5})),
            Just(json!("usage")),
        ]
    }

    proptest! {
        #[test]
        fn call_facts_read_from_text_as_from_the_parsed_object(
            members in prop::collection::vec(
                (
                    // Every time key, so a new one is checked too.
                    prop::sample::select(
                        [&["service_tier", "usage", "input_tokens", "tier\\"][..], &TIME_KEYS[..]]
                            .concat(),
                    ),
                    member_value(),
                ),
                0..5,
            )
        ) {
            let object: serde_json::Map<String, Value> =
                members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            let value = Value::Object(object);
            prop_assert_eq!(from_text(&value), from_value(&value), "{}", value);
        }
    }

    #[test]
    fn each_attempt_records_its_own_price_time_whatever_was_priced_before() {
        let usage = [CompactJson::from(
            json!({"input_tokens": 1, "output_tokens": 1}),
        )];
        let priced_at = |at: &str| {
            price_attempt(&PriceTable::empty(), &usage, &[], at.parse().unwrap())
                .into_result()
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
