//! Pricing calls and attempts: the worked example of docs/calibrating.md, cache and thinking tokens, long-context
//! thresholds, service tiers, unknown models, and property tests on money.

use crate::common::{dec, test_prices, ts};
use proctor_core::compact_json::CompactJson;
use proctor_core::result::CallRole;
use proctor_core::result::Cost;
use proctor_ledger::TokenCounts;
use proctor_ledger::prices::{PriceTable, Unpriced};
use proctor_ledger::pricing::{Call, CostError, quote};
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};

const AT: &str = "2026-11-23T09:00:00Z";

/// [`proctor_ledger::pricing::price_attempt`] of usage objects written as values.
fn price_attempt(
    table: &PriceTable,
    agent: &[Value],
    judge: &[Value],
    at: jiff::Timestamp,
) -> Result<Cost, CostError> {
    let compact = |values: &[Value]| {
        values
            .iter()
            .map(CompactJson::from_value)
            .collect::<Vec<_>>()
    };
    proctor_ledger::pricing::price_attempt(table, &compact(agent), &compact(judge), at)
        .into_result()
}

#[test]
fn design_6_2_check_through_the_default_table() {
    let usage = [json!({
        "provider": "anthropic", "model": "claude-sonnet-4-6",
        "input_tokens": 3, "output_tokens": 550, "cache_creation_input_tokens": 12304,
    })];
    let cost = price_attempt(&PriceTable::builtin(), &usage, &[], ts(AT)).unwrap();
    assert_eq!(cost.usd.unwrap().to_string(), "0.054399");
    assert_eq!(cost.agent_usd, cost.usd);
    assert_eq!(cost.judge_usd, None);
    assert_eq!(cost.price_ids(), ["anthropic/claude-sonnet-4-6@2026-02-17"]);
    assert_eq!(cost.priced_at.as_deref(), Some("2026-11-23T09:00:00Z"));
    assert_eq!((cost.tokens, cost.unpriced_calls), (12_857, 0));
}

#[test]
fn openai_cached_tokens_are_not_charged_twice() {
    // 2,210 prompt tokens of which 1,024 cached: 1,186 at $0.25 and 1,024 at $0.025, plus
    // 140 output at $2 = 0.0002965 + 0.0000256 + 0.00028.
    let usage = [json!({
        "provider": "openai", "model": "gpt-5-mini",
        "prompt_tokens": 2210, "completion_tokens": 140,
        "prompt_tokens_details": {"cached_tokens": 1024},
    })];
    let cost = price_attempt(&test_prices(), &usage, &[], ts(AT)).unwrap();
    assert_eq!(cost.usd, Some(dec("0.0006021")));
    let m = &cost.models[0];
    assert_eq!((m.input_tokens, m.cache_read_tokens), (1186, 1024));
    assert_eq!(cost.tokens, 2350, "every token once");
}

#[test]
fn gemini_thinking_tokens_are_billed_as_output() {
    let usage = [json!({"model": "gemini-2.5-flash", "usageMetadata": {
        "promptTokenCount": 1000, "candidatesTokenCount": 200, "thoughtsTokenCount": 800,
    }})];
    let cost = price_attempt(&test_prices(), &usage, &[], ts(AT)).unwrap();
    // 1,000 input at $0.30 + (200 + 800) output at $2.50.
    assert_eq!(cost.usd, Some(dec("0.0028")));
    let m = &cost.models[0];
    assert_eq!((m.output_tokens, m.reasoning_tokens), (1000, 800));
}

fn sonnet(tokens: &TokenCounts, tier: Option<&str>) -> Result<(Decimal, String), Unpriced> {
    let table = test_prices();
    let call = Call::new(
        Some("anthropic"),
        Some("claude-sonnet-4-6"),
        tokens,
        ts(AT),
        tier,
    );
    quote(&table, &call).map(|q| (q.usd, q.price_id))
}

#[test]
fn long_context_reprices_the_whole_request_only_above_the_threshold() {
    // Input counts uncached, cache-read and cache-write tokens together.
    let at_limit = TokenCounts {
        input_tokens: 100_000,
        cache_read_tokens: 60_000,
        cache_write_5m_tokens: 40_000,
        output_tokens: 1_000,
        ..Default::default()
    };
    let (usd, id) = sonnet(&at_limit, None).unwrap();
    // 0.3 + 0.018 + 0.15 + 0.015
    assert_eq!(usd, dec("0.483"));
    assert_eq!(id, "anthropic/claude-sonnet-4-6@2026-02-17");
    let one_above = TokenCounts {
        input_tokens: 100_001,
        ..at_limit
    };
    let (usd, id) = sonnet(&one_above, None).unwrap();
    // 100,001 at $6 + 60,000 at $0.60 + 40,000 at $7.50 + 1,000 at $22.50, all long.
    assert_eq!(
        usd,
        dec("0.600006") + dec("0.036") + dec("0.3") + dec("0.0225")
    );
    assert_eq!(id, "anthropic/claude-sonnet-4-6@2026-02-17+long_context");
}

#[test]
fn service_tiers_multiply_and_unknown_tiers_are_unpriced() {
    let tokens = TokenCounts {
        input_tokens: 100_000,
        output_tokens: 10_000,
        ..Default::default()
    };
    assert_eq!(sonnet(&tokens, None).unwrap().0, dec("0.45"));
    assert_eq!(sonnet(&tokens, Some("standard")).unwrap().0, dec("0.45"));
    let (usd, id) = sonnet(&tokens, Some("Batch")).unwrap();
    assert_eq!(usd, dec("0.225"));
    assert_eq!(id, "anthropic/claude-sonnet-4-6@2026-02-17+batch");
    assert_eq!(
        sonnet(&tokens, Some("priority")),
        Err(Unpriced::UnknownServiceTier {
            price_id: "anthropic/claude-sonnet-4-6@2026-02-17".into(),
            tier: "priority".into()
        })
    );
}

#[test]
fn unknown_models_are_unpriced_and_counted_never_zero() {
    let usage = [
        json!({"provider": "anthropic", "model": "claude-haiku-5-preview", "input_tokens": 10, "output_tokens": 5}),
        json!({"input_tokens": 10, "output_tokens": 5}),
    ];
    let cost = price_attempt(&test_prices(), &usage, &[], ts(AT)).unwrap();
    assert_eq!(cost.usd, None);
    assert_eq!(cost.agent_usd, None);
    assert_eq!(cost.unpriced_calls, 2);
    assert_eq!(cost.tokens, 30);
    assert!(cost.price_ids().is_empty());
    assert!(
        cost.models
            .iter()
            .all(|m| m.usd.is_none() && m.price_id.is_none())
    );
    // Priced and unpriced calls together: the priced part is known, the rest counted.
    let mixed = [
        usage[0].clone(),
        json!({"provider": "anthropic", "model": "claude-haiku-4-5", "input_tokens": 1000000, "output_tokens": 0}),
    ];
    let cost = price_attempt(&test_prices(), &mixed, &[], ts(AT)).unwrap();
    assert_eq!((cost.usd, cost.unpriced_calls), (Some(dec("1")), 1));
}

#[test]
fn agent_and_judge_are_priced_apart_and_calls_grouped_per_model() {
    let agent = [
        json!({"provider": "anthropic", "model": "claude-haiku-4-5", "input_tokens": 1000, "output_tokens": 100}),
        json!({"provider": "anthropic", "model": "claude-haiku-4-5", "input_tokens": 1000, "output_tokens": 100}),
    ];
    let judge = [
        json!({"provider": "openai", "model": "gpt-5-mini", "prompt_tokens": 4000, "completion_tokens": 500}),
    ];
    let cost = price_attempt(&test_prices(), &agent, &judge, ts(AT)).unwrap();
    assert_eq!(cost.agent_usd, Some(dec("0.003")));
    assert_eq!(cost.judge_usd, Some(dec("0.002")));
    assert_eq!(cost.usd, Some(dec("0.005")));
    assert_eq!(cost.models.len(), 2);
    assert_eq!(
        (cost.models[0].role, cost.models[0].calls),
        (CallRole::Agent, 2)
    );
    assert_eq!(cost.models[1].role, CallRole::Judge);
}

#[test]
fn a_call_that_records_its_own_time_is_priced_then() {
    let call = |time: &str| {
        json!({"provider": "anthropic", "model": "claude-sonnet-4-6",
               "input_tokens": 100_000, "output_tokens": 0, "timestamp": time})
    };
    let usage = [call("2026-12-08T12:00:00Z"), call("2026-12-10T12:00:00Z")];
    let cost = price_attempt(&test_prices(), &usage, &[], ts("2026-12-07T00:00:00Z")).unwrap();
    assert_eq!(
        cost.usd,
        Some(dec("0.54")),
        "$3 before the cut, $2.40 after"
    );
    assert_eq!(
        cost.price_ids(),
        [
            "anthropic/claude-sonnet-4-6@2026-02-17",
            "anthropic/claude-sonnet-4-6@2026-12-09"
        ]
    );
    let bad = [json!({"model": "m", "input_tokens": 1, "output_tokens": 1, "timestamp": "soon"})];
    let err = price_attempt(&test_prices(), &[], &bad, ts(AT)).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("judge usage[0]: field `timestamp`"),
        "{err}"
    );
}

#[test]
fn negative_or_non_numeric_counts_are_refused_not_priced() {
    for bad in [
        json!({"model": "claude-haiku-4-5", "input_tokens": -3, "output_tokens": 1}),
        json!({"model": "claude-haiku-4-5", "input_tokens": "many", "output_tokens": 1}),
        json!({"model": "claude-haiku-4-5", "input_tokens": 1.5, "output_tokens": 1}),
    ] {
        let err = price_attempt(&test_prices(), &[bad], &[], ts(AT)).unwrap_err();
        assert!(
            err.to_string().contains("expected a non-negative integer"),
            "{err}"
        );
    }
}

fn counts() -> impl Strategy<Value = TokenCounts> {
    let n = 0u64..=400_000;
    (n.clone(), n.clone(), n.clone(), n.clone(), n).prop_map(|(a, b, c, d, e)| TokenCounts {
        input_tokens: a,
        cache_read_tokens: b,
        cache_write_5m_tokens: c,
        cache_write_1h_tokens: d,
        output_tokens: e,
        reasoning_tokens: e / 2,
    })
}

fn tier() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![Just(None), Just(Some("batch")), Just(Some("standard"))]
}

proptest! {
    /// Through the table: long-context tier (a premium), dated rows and tiers included.
    #[test]
    fn quoted_cost_is_monotone_in_every_count_and_never_negative(
        t in counts(), tier in tier(), which in 0usize..6, delta in 0u64..=300_000,
        day in 0i64..400,
    ) {
        let table = test_prices();
        let at = ts("2026-03-01T00:00:00Z").checked_add(jiff::SignedDuration::from_hours(24 * day)).unwrap();
        let price = |t: &TokenCounts| {
            quote(&table, &Call::new(Some("anthropic"), Some("claude-sonnet-4-6"), t, at, tier)).unwrap().usd
        };
        let before = price(&t);
        prop_assert!(before >= Decimal::ZERO);
        let mut more = t;
        match which {
            0 => more.input_tokens += delta,
            1 => more.cache_read_tokens += delta,
            2 => more.cache_write_5m_tokens += delta,
            3 => more.cache_write_1h_tokens += delta,
            4 => more.output_tokens += delta,
            _ => more.reasoning_tokens += delta,
        }
        let after = price(&more);
        prop_assert!(after >= before, "bucket {which}: {after} < {before}");
    }
}

#[test]
fn a_quote_follows_the_table_and_the_time_it_is_asked_for_in_any_order() {
    // One thread remembers the row it found last: changing the table, the time across a
    // price cut, or the model must each find the row again.
    let test = test_prices();
    let builtin = PriceTable::builtin();
    let mut overridden = test_prices();
    overridden.override_with(PriceTable::builtin());
    let tokens = TokenCounts {
        input_tokens: 100_000,
        output_tokens: 1_000,
        ..TokenCounts::default()
    };
    let asks = [
        (&test, "claude-sonnet-4-6", "2026-12-10T00:00:00Z"),
        (&test, "claude-sonnet-4-6", "2026-12-08T23:59:59Z"),
        (&test, "claude-sonnet-4-6", "2026-12-09T00:00:00Z"),
        (&builtin, "claude-sonnet-4-6", "2026-12-10T00:00:00Z"),
        (&overridden, "claude-sonnet-4-6", "2026-12-10T00:00:00Z"),
        (&test, "claude-sonnet-4-6", "2026-12-10T00:00:00Z"),
        (&test, "claude-haiku-4-5", "2026-12-10T00:00:00Z"),
        (&test, "claude-sonnet-4-6", "2020-01-01T00:00:00Z"),
        (&test, "claude-sonnet-4-6", "2026-12-10T00:00:00Z"),
    ];
    let mut ids = std::collections::BTreeSet::new();
    for (table, model, at) in asks {
        let call = Call::new(Some("anthropic"), Some(model), &tokens, ts(at), None);
        let expected = table.find(Some("anthropic"), model, ts(at));
        match (quote(table, &call), expected) {
            (Ok(q), Ok(row)) => {
                assert_eq!(q.price_id, row.id, "{model} at {at}");
                assert_eq!(
                    q.usd,
                    proctor_ledger::cost_usd(&tokens, &row.prices).unwrap()
                );
                ids.insert(q.price_id);
            }
            (Err(got), Err(expected)) => assert_eq!(got, expected, "{model} at {at}"),
            (got, expected) => panic!("{model} at {at}: {got:?} but find gives {expected:?}"),
        }
    }
    assert!(ids.len() >= 3, "the asks cross rows: {ids:?}");
}

#[test]
fn a_call_that_cannot_be_read_or_timed_is_counted_unpriced_and_said() {
    let agent = [
        json!({"model": "claude-haiku-4-5", "input_tokens": 1000, "output_tokens": 100}),
        json!({"model": "claude-haiku-4-5", "input_tokens": 7, "output_tokens": 3, "timestamp": "soon"}),
        json!({"model": "claude-haiku-4-5", "input_tokens": "many", "output_tokens": 1}),
    ];
    let compact: Vec<_> = agent.iter().map(CompactJson::from_value).collect();
    let priced = proctor_ledger::pricing::price_attempt(&test_prices(), &compact, &[], ts(AT));
    let only_first = price_attempt(&test_prices(), &agent[..1], &[], ts(AT)).unwrap();
    // The first call is priced; the other two are counted, unpriced, never as 0.
    assert_eq!(priced.cost.usd, only_first.usd);
    assert_eq!(priced.cost.unpriced_calls, 2);
    // The untimed call's tokens are counted; the unreadable one's cannot be.
    assert_eq!(priced.cost.tokens, 1100 + 10);
    let said: Vec<String> = priced.problems.iter().map(ToString::to_string).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0].starts_with("usage[1]: field `timestamp`"),
        "{said:?}"
    );
    assert!(said[1].starts_with("usage[2]"), "{said:?}");
}
