//! Checking a trajectory against a rule.
//!
//! Each check walks the trajectory once and stops at the first offending step, so a
//! reason always points at the earliest place a reader should look. Steps are numbered
//! from 1, as a person counts tool calls.

use super::{Rule, Same};
use crate::compact_json::CompactJson;
use crate::outcome::Step;
use crate::result::json_text::push_decimal;
use crate::short_text::same_text;
use smallvec::SmallVec;

/// Compared parts of calls' arguments: on the stack for the few calls a trajectory mostly
/// holds, so checking a rule allocates nothing.
type Parts<'a> = SmallVec<[&'a str; 8]>;

impl Rule {
    /// `None` when the trajectory satisfies the rule; otherwise the text that follows
    /// `rule: ` in the run's reasons, naming the rule and the first offending step.
    #[must_use]
    pub fn violation(&self, trajectory: &[Step]) -> Option<String> {
        match self {
            Rule::Before {
                tool,
                requires,
                same,
                ok,
            } => before(
                tool,
                &Required {
                    tools: requires,
                    ok: *ok,
                },
                same.as_ref(),
                trajectory,
            ),
            Rule::AtMost {
                max,
                tool,
                per_args,
            } => at_most(*max, tool, *per_args, trajectory),
            Rule::Never { tool } => never(tool, trajectory),
            Rule::Sequence { tools } => sequence(tools, trajectory),
        }
    }
}

/// The earlier calls a `before` rule looks for: of any of `tools`, and with `ok` only
/// those that succeeded.
struct Required<'r> {
    tools: &'r [String],
    ok: bool,
}

impl Required<'_> {
    /// Whether `step` is such a call.
    fn counts(&self, step: &Step) -> bool {
        self.tools.iter().any(|tool| same_text(&step.tool, tool)) && !(self.ok && failed(step))
    }
}

/// Whether a call failed: its `error` is set (and not `false`), or its result is a tool
/// error as MCP (`isError: true`) or a tool-use API (`is_error: true`) marks one.
fn failed(step: &Step) -> bool {
    let marked = |value: &serde_json::Value| {
        ["isError", "is_error"]
            .iter()
            .any(|key| value.get(key) == Some(&serde_json::Value::Bool(true)))
    };
    step.error.as_deref().is_some_and(|error| {
        !matches!(
            error,
            serde_json::Value::Bool(false) | serde_json::Value::Null
        )
    }) || step.result.as_deref().is_some_and(marked)
}

/// `refund ["A1"] at step 2 has no earlier check_eligibility ["A1"]`; with several
/// required tools `... no earlier a or b ...`, with `ok: true` `... no earlier successful
/// a ...`.
fn before(
    tool: &str,
    requires: &Required<'_>,
    same: Option<&Same>,
    trajectory: &[Step],
) -> Option<String> {
    let mut required_seen = false;
    // The compared parts of the earlier calls of `requires` that hold every compared key,
    // `width` texts each, read once per call, and the whole args of those calls.
    let width = same.map_or(0, Same::width);
    let mut required_parts = Parts::new();
    let mut required_args = Parts::new();
    let mut part = Parts::new();
    for (index, step) in trajectory.iter().enumerate() {
        // Checked before recording, so a tool that requires itself needs a strictly earlier call.
        if same_text(&step.tool, tool) {
            let satisfied = match same {
                None => required_seen,
                // No earlier call could be compared: nothing to look up in this one.
                Some(_) if required_args.is_empty() => false,
                // Args written exactly as those of an earlier comparable call compare
                // equal whatever is compared: no key needs to be looked up.
                Some(_)
                    if required_args
                        .iter()
                        .any(|earlier| same_text(earlier, step.args.as_str())) =>
                {
                    true
                }
                Some(same) => {
                    part.clear();
                    compared_part(&step.args, same, &mut part)
                        && required_parts.chunks_exact(width).any(|earlier| {
                            earlier
                                .iter()
                                .zip(&part)
                                .all(|(a, b)| CompactJson::same(a, b))
                        })
                }
            };
            if !satisfied {
                return Some(no_earlier(tool, requires, same, &step.args, index + 1));
            }
        }
        if requires.counts(step) {
            required_seen = true;
            if let Some(same) = same {
                let before = required_parts.len();
                if compared_part(&step.args, same, &mut required_parts) {
                    required_args.push(step.args.as_str());
                } else {
                    required_parts.truncate(before);
                }
            }
        }
    }
    None
}

/// The reason of a `before` rule, built piece by piece into one string: in a large log it
/// is made for every line that breaks the rule.
fn no_earlier(
    tool: &str,
    requires: &Required<'_>,
    same: Option<&Same>,
    args: &CompactJson,
    step_number: usize,
) -> String {
    let names: usize = requires.tools.iter().map(|t| t.len() + 4).sum();
    let mut text = String::with_capacity(tool.len() + names + 2 * args.as_str().len() + 60);
    text.push_str(tool);
    let shown = same.map(|same| {
        text.push(' ');
        let start = text.len();
        render_into(&mut text, args, same);
        start..text.len()
    });
    text.push_str(" at step ");
    push_decimal(&mut text, step_number as u64);
    text.push_str(" has no earlier ");
    if requires.ok {
        text.push_str("successful ");
    }
    match requires.tools {
        [one] => text.push_str(one),
        several => text.push_str(&super::alternatives(several)),
    }
    if let Some(shown) = shown {
        text.push(' ');
        text.extend_from_within(shown);
    }
    text
}

/// `refund called more than 1 times at step 3`, or with `per: args`
/// `refund {"order_id":"A1"} called more than 1 times at step 3`.
fn at_most(max: u64, tool: &str, per_args: bool, trajectory: &[Step]) -> Option<String> {
    // Calls so far per distinct argument value (one entry for all calls without `per_args`).
    let mut calls: SmallVec<[(&CompactJson, u64); 8]> = SmallVec::new();
    for (index, step) in trajectory
        .iter()
        .enumerate()
        .filter(|(_, s)| s.tool == tool)
    {
        let position = calls.iter().position(|(args, _)| {
            !per_args || CompactJson::same(args.as_str(), step.args.as_str())
        });
        let count = match position {
            Some(position) => &mut calls[position].1,
            None => {
                calls.push((&step.args, 0));
                &mut calls.last_mut().expect("just pushed").1
            }
        };
        *count += 1;
        if *count > max {
            let step_number = index + 1;
            return Some(if per_args {
                let args = &step.args;
                format!("{tool} {args} called more than {max} times at step {step_number}")
            } else {
                format!("{tool} called more than {max} times at step {step_number}")
            });
        }
    }
    None
}

/// `delete_file is never allowed, called at step 4`.
fn never(tool: &str, trajectory: &[Step]) -> Option<String> {
    let index = trajectory.iter().position(|step| step.tool == tool)?;
    Some(format!(
        "{tool} is never allowed, called at step {}",
        index + 1
    ))
}

/// `sequence a -> b -> c: c not found after step 4`, or `...: a not found` when not even
/// the first tool was called. Matching greedily (earliest call of each tool) finds the
/// subsequence whenever one exists, and names the first tool that no order could place.
fn sequence(tools: &[String], trajectory: &[Step]) -> Option<String> {
    let mut matched = 0;
    let mut last_step = None;
    for (index, step) in trajectory.iter().enumerate() {
        if matched < tools.len() && step.tool == tools[matched] {
            matched += 1;
            last_step = Some(index + 1);
        }
    }
    let missing = tools.get(matched)?;
    let rule = format!("sequence {}", tools.join(" -> "));
    Some(match last_step {
        Some(step_number) => format!("{rule}: {missing} not found after step {step_number}"),
        None => format!("{rule}: {missing} not found"),
    })
}

/// Appends what a `before` rule compares of a call to `part`: the whole args, or the value
/// of each key ([`Same::width`] texts). False when the call cannot be compared: with `same:
/// [keys]` it needs every key, because a missing key can equal nothing (not even another
/// missing key); `part` may then hold some of them.
fn compared_part<'a>(args: &'a CompactJson, same: &Same, part: &mut Parts<'a>) -> bool {
    match same {
        Same::Args => {
            part.push(args.as_str());
            true
        }
        Same::Keys(keys) => keys.written().all(|key| match args.get_written(key) {
            Some(value) => {
                part.push(value);
                true
            }
            None => false,
        }),
    }
}

/// Appends the compared part of a call's arguments for a reason: the whole args, or the
/// list of the keys' values (a missing key shows as `null`).
fn render_into(text: &mut String, args: &CompactJson, same: &Same) {
    match same {
        // Compact JSON in the agent's own key order, for people to read.
        Same::Args => text.push_str(args.as_str()),
        Same::Keys(keys) => {
            text.push('[');
            for (at, key) in keys.written().enumerate() {
                if at > 0 {
                    text.push(',');
                }
                text.push_str(args.get_written(key).unwrap_or("null"));
            }
            text.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn rule(value: Value) -> Rule {
        Rule::from_json(&value).unwrap()
    }

    fn step(tool: &str, args: Value) -> Step {
        Step::call(tool, &args)
    }

    fn order(tool: &str, id: &str) -> Step {
        step(tool, json!({"order_id": id}))
    }

    // ---- before ----

    /// `before` as the rule reads: each call of `tool` against every earlier call of
    /// `requires`, comparing the keys afresh each time.
    fn before_by_definition(
        tool: &str,
        requires: &Required<'_>,
        same: Option<&Same>,
        trajectory: &[Step],
    ) -> Option<usize> {
        let comparable = |args: &CompactJson, same: &Same| match same {
            Same::Args => true,
            Same::Keys(keys) => keys.iter().all(|key| args.get(key).is_some()),
        };
        let agree = |a: &CompactJson, b: &CompactJson, same: &Same| {
            match same {
            Same::Args => CompactJson::same(a.as_str(), b.as_str()),
            Same::Keys(keys) => keys.iter().all(|key| {
                matches!((a.get(key), b.get(key)), (Some(x), Some(y)) if CompactJson::same(x, y))
            }),
        }
        };
        trajectory.iter().enumerate().position(|(index, step)| {
            step.tool == tool
                && !trajectory[..index].iter().any(|earlier| {
                    requires.tools.iter().any(|t| earlier.tool == t)
                        && !(requires.ok && (earlier.error.is_some() || earlier.result.is_some()))
                        && same.is_none_or(|same| {
                            comparable(&step.args, same)
                                && comparable(&earlier.args, same)
                                && agree(&earlier.args, &step.args, same)
                        })
                })
        })
    }

    #[test]
    fn a_call_missing_one_of_two_keys_leaves_no_part_behind() {
        let same = Same::Keys(vec!["order_id".into(), "amount".into()].into());
        let trajectory = [
            order("check", "A1"),
            step("check", json!({"order_id": "B2", "amount": 5})),
            step("refund", json!({"amount": 5, "order_id": "B2"})),
        ];
        let check = ["check".to_owned()];
        let requires = Required {
            tools: &check,
            ok: false,
        };
        assert_eq!(before("refund", &requires, Some(&same), &trajectory), None);
    }

    proptest::proptest! {
        #[test]
        fn before_finds_the_step_its_definition_finds(
            calls in proptest::collection::vec((0usize..3, 0usize..6, 0usize..3), 0..8),
            same_kind in 0usize..4,
            ok: bool,
        ) {
            let tools = ["check", "refund", "lookup"];
            let args = [
                json!({"order_id": "A1"}),
                json!({"order_id": "B2", "amount": 5}),
                json!({"amount": 5, "order_id": "A1"}),
                json!({"amount": 5}),
                json!({"order_id": {"n": 1, "m": [2]}, "amount": 7}),
                json!({"amount": 7, "order_id": {"m": [2], "n": 1}}),
            ];
            // Each call succeeded, returned an error, or a result marked as a tool error.
            let trajectory: Vec<Step> = calls
                .iter()
                .map(|&(tool, arg, end)| {
                    let mut call = step(tools[tool], args[arg].clone());
                    match end {
                        1 => call.error = Some(Box::new(json!("failed"))),
                        2 => call.result = Some(Box::new(json!({"isError": true}))),
                        _ => {}
                    }
                    call
                })
                .collect();
            let same = [
                None,
                Some(Same::Args),
                Some(Same::Keys(vec!["order_id".into()].into())),
                Some(Same::Keys(vec!["order_id".into(), "amount".into()].into())),
            ][same_kind]
                .clone();
            let cases: [(&str, &[&str]); 4] = [
                ("refund", &["check"]),
                ("check", &["check"]),
                ("refund", &["check", "lookup"]),
                ("lookup", &["refund", "check"]),
            ];
            for (tool, names) in cases {
                let required: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
                let requires = Required { tools: &required, ok };
                let found = before(tool, &requires, same.as_ref(), &trajectory);
                let expected = before_by_definition(tool, &requires, same.as_ref(), &trajectory);
                let step_named = found.as_deref().map(|reason| {
                    let after = reason.split(" at step ").nth(1).unwrap();
                    after.split(' ').next().unwrap().parse::<usize>().unwrap() - 1
                });
                proptest::prop_assert_eq!(step_named, expected, "{:?}", found);
            }
        }
    }

    #[test]
    fn design_example_reason() {
        let rule = rule(
            json!({"before": "refund", "requires": "check_eligibility", "same": ["order_id"]}),
        );
        let trajectory = [order("check_eligibility", "B2"), order("refund", "A1")];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some(r#"refund ["A1"] at step 2 has no earlier check_eligibility ["A1"]"#)
        );
    }

    #[test]
    fn before_with_keys_passes_when_each_refund_was_checked() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": ["order_id"]}));
        let trajectory = [
            order("check", "A1"),
            order("check", "B2"),
            // Other keys may differ: only order_id is compared.
            step("refund", json!({"order_id": "B2", "amount": 5})),
            step("refund", json!({"amount": 7, "order_id": "A1"})),
        ];
        assert_eq!(rule.violation(&trajectory), None);
    }

    #[test]
    fn before_requires_an_earlier_call_not_a_later_one() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": ["order_id"]}));
        let trajectory = [order("refund", "A1"), order("check", "A1")];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some(r#"refund ["A1"] at step 1 has no earlier check ["A1"]"#)
        );
    }

    #[test]
    fn before_reports_the_first_offending_call() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": ["order_id"]}));
        let trajectory = [
            order("check", "A1"),
            order("refund", "A1"),
            order("refund", "C3"),
            order("refund", "D4"),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some(r#"refund ["C3"] at step 3 has no earlier check ["C3"]"#)
        );
    }

    #[test]
    fn before_with_several_keys_compares_all_of_them() {
        let rule =
            rule(json!({"before": "refund", "requires": "check", "same": ["order_id", "sku"]}));
        let checked = step("check", json!({"order_id": "A1", "sku": "X"}));
        let same = step("refund", json!({"sku": "X", "order_id": "A1"}));
        let other_sku = step("refund", json!({"order_id": "A1", "sku": "Y"}));
        assert_eq!(rule.violation(&[checked.clone(), same]), None);
        assert_eq!(
            rule.violation(&[checked, other_sku]).as_deref(),
            Some(r#"refund ["A1","Y"] at step 2 has no earlier check ["A1","Y"]"#)
        );
    }

    #[test]
    fn before_with_a_missing_key_is_a_violation() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": ["order_id"]}));
        // Both calls lack the key: they are not "the same order", so the refund is unchecked.
        let trajectory = [
            step("check", json!({"id": "A1"})),
            step("refund", json!({"id": "A1"})),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some("refund [null] at step 2 has no earlier check [null]")
        );
        // An explicit null is a value like any other.
        let trajectory = [
            step("check", json!({"order_id": null})),
            step("refund", json!({"order_id": null})),
        ];
        assert_eq!(rule.violation(&trajectory), None);
    }

    #[test]
    fn before_with_keys_on_non_object_args_is_a_violation() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": ["order_id"]}));
        let trajectory = [step("check", json!("A1")), step("refund", json!("A1"))];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some("refund [null] at step 2 has no earlier check [null]")
        );
    }

    #[test]
    fn before_same_args_compares_the_whole_value() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": "args"}));
        let checked = step("check", json!({"order_id": "A1", "amount": 5}));
        // Key order does not matter.
        let same = step("refund", json!({"amount": 5, "order_id": "A1"}));
        assert_eq!(rule.violation(&[checked.clone(), same]), None);
        // Any other key differing does.
        let more = step("refund", json!({"order_id": "A1", "amount": 7}));
        assert_eq!(
            rule.violation(&[checked, more]).as_deref(),
            Some(
                r#"refund {"order_id":"A1","amount":7} at step 2 has no earlier check {"order_id":"A1","amount":7}"#
            )
        );
    }

    #[test]
    fn before_same_args_works_on_pair_steps() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": "args"}));
        assert_eq!(
            rule.violation(&[step("check", json!("A1")), step("refund", json!("A1"))]),
            None
        );
        assert_eq!(
            rule.violation(&[step("check", json!("A1")), step("refund", json!("B2"))])
                .as_deref(),
            Some(r#"refund "B2" at step 2 has no earlier check "B2""#)
        );
    }

    #[test]
    fn before_without_same_accepts_any_earlier_call() {
        let rule = rule(json!({"before": "refund", "requires": "check"}));
        let trajectory = [
            order("check", "A1"),
            order("refund", "B2"),
            order("refund", "C3"),
        ];
        assert_eq!(rule.violation(&trajectory), None);
        let trajectory = [
            order("lookup", "A1"),
            order("refund", "B2"),
            order("check", "B2"),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some("refund at step 2 has no earlier check")
        );
    }

    #[test]
    fn before_is_satisfied_when_the_tool_is_never_called() {
        let rule = rule(json!({"before": "refund", "requires": "check", "same": "args"}));
        assert_eq!(rule.violation(&[]), None);
        assert_eq!(rule.violation(&[order("lookup", "A1")]), None);
    }

    #[test]
    fn before_on_itself_needs_a_strictly_earlier_call() {
        let rule = rule(json!({"before": "retry", "requires": "retry"}));
        assert_eq!(
            rule.violation(&[step("retry", json!(null))]).as_deref(),
            Some("retry at step 1 has no earlier retry")
        );
    }

    #[test]
    fn before_any_of_accepts_an_earlier_call_of_either_tool() {
        let rule = rule(json!({
            "before": "cancel",
            "requires": {"any_of": ["by_email", "by_zip"]},
            "same": ["user"]
        }));
        let user = |tool: &str, id: &str| step(tool, json!({"user": id}));
        assert_eq!(
            rule.violation(&[user("by_zip", "u1"), user("cancel", "u1")]),
            None
        );
        assert_eq!(
            rule.violation(&[user("by_email", "u1"), user("cancel", "u1")]),
            None
        );
        assert_eq!(
            rule.violation(&[
                user("by_email", "u2"),
                user("lookup", "u1"),
                user("cancel", "u1")
            ])
            .as_deref(),
            Some(r#"cancel ["u1"] at step 3 has no earlier by_email or by_zip ["u1"]"#)
        );
        let three =
            self::rule(json!({"before": "cancel", "requires": {"any_of": ["a", "b", "c"]}}));
        assert_eq!(
            three.violation(&[user("cancel", "u1")]).as_deref(),
            Some("cancel at step 1 has no earlier a, b or c")
        );
        assert_eq!(
            three.violation(&[user("c", "x"), user("cancel", "u1")]),
            None
        );
    }

    #[test]
    fn before_ok_counts_only_earlier_calls_that_succeeded() {
        let rule = rule(json!({
            "before": "cancel",
            "requires": {"any_of": ["by_email", "by_zip"]},
            "ok": true
        }));
        let mut errored = step("by_email", json!({"email": "x"}));
        errored.error = Some(Box::new(json!("no such user")));
        let mut flagged = step("by_zip", json!({"zip": "1"}));
        flagged.result = Some(Box::new(json!({"isError": true, "content": []})));
        let mut flagged_api = step("by_zip", json!({"zip": "2"}));
        flagged_api.result = Some(Box::new(json!({"is_error": true})));
        let cancel = step("cancel", json!({"order": "W1"}));
        for failed_call in [&errored, &flagged, &flagged_api] {
            assert_eq!(
                rule.violation(&[failed_call.clone(), cancel.clone()])
                    .as_deref(),
                Some("cancel at step 2 has no earlier successful by_email or by_zip"),
                "{failed_call:?}"
            );
        }
        // A result that is not an error, or an error of `false`, is a success.
        let mut fine = step("by_zip", json!({"zip": "1"}));
        fine.result = Some(Box::new(json!({"isError": false, "user": "u1"})));
        assert_eq!(rule.violation(&[fine, cancel.clone()]), None);
        let mut not_an_error = step("by_email", json!({"email": "x"}));
        not_an_error.error = Some(Box::new(json!(false)));
        assert_eq!(rule.violation(&[not_an_error, cancel.clone()]), None);
        // Without `ok`, the errored call counts as before.
        let lenient = self::rule(json!({"before": "cancel", "requires": "by_email"}));
        assert_eq!(lenient.violation(&[errored.clone(), cancel.clone()]), None);
        let strict = self::rule(json!({"before": "cancel", "requires": "by_email", "ok": true}));
        assert_eq!(
            strict.violation(&[errored, cancel]).as_deref(),
            Some("cancel at step 2 has no earlier successful by_email")
        );
    }

    #[test]
    fn before_ok_with_same_args_needs_a_successful_call_of_those_args() {
        let rule = rule(
            json!({"before": "refund", "requires": "check", "same": ["order_id"], "ok": true}),
        );
        let mut failed_a1 = order("check", "A1");
        failed_a1.error = Some(Box::new(json!("timeout")));
        assert_eq!(
            rule.violation(&[
                failed_a1.clone(),
                order("check", "B2"),
                order("refund", "A1")
            ])
            .as_deref(),
            Some(r#"refund ["A1"] at step 3 has no earlier successful check ["A1"]"#)
        );
        assert_eq!(
            rule.violation(&[failed_a1, order("check", "A1"), order("refund", "A1")]),
            None
        );
    }

    // ---- at_most ----

    #[test]
    fn at_most_counts_all_calls() {
        let rule = rule(json!({"at_most": 2, "tool": "search"}));
        let two = [
            step("search", json!("a")),
            step("read", json!(null)),
            step("search", json!("b")),
        ];
        assert_eq!(rule.violation(&two), None);
        let three = [
            step("search", json!("a")),
            step("read", json!(null)),
            step("search", json!("b")),
            step("search", json!("c")),
            step("search", json!("d")),
        ];
        assert_eq!(
            rule.violation(&three).as_deref(),
            Some("search called more than 2 times at step 4")
        );
    }

    #[test]
    fn at_most_zero_forbids_the_first_call() {
        let rule = rule(json!({"at_most": 0, "tool": "refund"}));
        assert_eq!(rule.violation(&[step("read", json!(null))]), None);
        assert_eq!(
            rule.violation(&[step("read", json!(null)), order("refund", "A1")])
                .as_deref(),
            Some("refund called more than 0 times at step 2")
        );
    }

    #[test]
    fn at_most_per_args_catches_a_duplicate_refund() {
        let rule = rule(json!({"at_most": 1, "tool": "refund", "per": "args"}));
        let trajectory = [
            order("check", "A1"),
            order("refund", "A1"),
            order("refund", "B2"),
            order("refund", "A1"),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some(r#"refund {"order_id":"A1"} called more than 1 times at step 4"#)
        );
    }

    #[test]
    fn at_most_per_args_allows_refunds_of_different_orders() {
        let rule = rule(json!({"at_most": 1, "tool": "refund", "per": "args"}));
        let trajectory = [order("refund", "A1"), order("refund", "B2")];
        assert_eq!(rule.violation(&trajectory), None);
        // Without `per: args` the same trajectory is one refund too many.
        let global = self::rule(json!({"at_most": 1, "tool": "refund"}));
        assert_eq!(
            global.violation(&trajectory).as_deref(),
            Some("refund called more than 1 times at step 2")
        );
    }

    #[test]
    fn at_most_per_args_ignores_key_order() {
        let rule = rule(json!({"at_most": 1, "tool": "refund", "per": "args"}));
        let trajectory = [
            step(
                "refund",
                json!({"order_id": "A1", "amount": {"value": 5, "currency": "EUR"}}),
            ),
            step(
                "refund",
                json!({"amount": {"currency": "EUR", "value": 5}, "order_id": "A1"}),
            ),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some(
                r#"refund {"amount":{"currency":"EUR","value":5},"order_id":"A1"} called more than 1 times at step 2"#
            )
        );
    }

    // ---- never ----

    #[test]
    fn never_passes_without_the_tool_and_names_its_first_call() {
        let rule = rule(json!({"never": "delete_file"}));
        assert_eq!(rule.violation(&[step("read_file", json!("a"))]), None);
        let trajectory = [
            step("read_file", json!("a")),
            step("delete_file", json!("a")),
            step("delete_file", json!("b")),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some("delete_file is never allowed, called at step 2")
        );
    }

    // ---- sequence ----

    #[test]
    fn sequence_accepts_interleaved_other_tools() {
        let rule = rule(json!({"sequence": ["search", "read", "write"]}));
        let trajectory = [
            step("plan", json!(null)),
            step("search", json!("q")),
            step("search", json!("q2")),
            step("write", json!("early")),
            step("read", json!("a")),
            step("think", json!(null)),
            step("write", json!("b")),
        ];
        assert_eq!(rule.violation(&trajectory), None);
    }

    #[test]
    fn sequence_in_the_wrong_order_fails() {
        let rule = rule(json!({"sequence": ["search", "read", "write"]}));
        let trajectory = [
            step("search", json!("q")),
            step("write", json!("b")),
            step("read", json!("a")),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some("sequence search -> read -> write: write not found after step 3")
        );
    }

    #[test]
    fn sequence_names_the_missing_tool_after_the_last_match() {
        let rule = rule(json!({"sequence": ["search", "read", "write"]}));
        let trajectory = [
            step("read", json!("a")),
            step("search", json!("q")),
            step("plan", json!(null)),
            step("write", json!("b")),
        ];
        assert_eq!(
            rule.violation(&trajectory).as_deref(),
            Some("sequence search -> read -> write: read not found after step 2")
        );
    }

    #[test]
    fn sequence_with_nothing_matched_says_so() {
        let rule = rule(json!({"sequence": ["search", "read"]}));
        assert_eq!(
            rule.violation(&[step("read", json!("a"))]).as_deref(),
            Some("sequence search -> read: search not found")
        );
        assert_eq!(
            rule.violation(&[]).as_deref(),
            Some("sequence search -> read: search not found")
        );
    }

    #[test]
    fn sequence_with_a_repeated_tool_needs_two_calls() {
        let rule = rule(json!({"sequence": ["read", "write", "read"]}));
        let once = [step("read", json!("a")), step("write", json!("b"))];
        assert_eq!(
            rule.violation(&once).as_deref(),
            Some("sequence read -> write -> read: read not found after step 2")
        );
        let twice = [
            step("read", json!("a")),
            step("write", json!("b")),
            step("read", json!("b")),
        ];
        assert_eq!(rule.violation(&twice), None);
    }

    // ---- helpers ----

    #[test]
    fn errored_calls_still_count() {
        let rule = rule(json!({"at_most": 1, "tool": "refund", "per": "args"}));
        let mut failed = order("refund", "A1");
        failed.error = Some(Box::new(json!("timeout")));
        assert_eq!(
            rule.violation(&[failed, order("refund", "A1")]).as_deref(),
            Some(r#"refund {"order_id":"A1"} called more than 1 times at step 2"#)
        );
    }
}
