//! Summary rows that every text format shows the same way.

use super::numbers::{MISSING, interval, one_decimal, rate, tokens, usd_at_least};
use proctor_core::summary::{ALL_ATTACKS, Scorecards, Split, Summary};

/// Tasks and attempts with their split.
pub fn count_rows(s: &Summary) -> Vec<Vec<String>> {
    vec![
        vec!["tasks".to_owned(), s.tasks.to_string()],
        vec![
            "attempts".to_owned(),
            format!(
                "{} ({} passed, {} failed, {} ungraded)",
                s.attempts, s.passed, s.failed, s.ungraded
            ),
        ],
    ]
}

/// The numbers that are reported but never gate, and the failure buckets.
pub fn process_rows(s: &Summary) -> Vec<Vec<String>> {
    let diagnosis: Vec<String> = s
        .diagnosis
        .iter()
        .map(|(d, n)| format!("{d} {n}"))
        .collect();
    vec![
        vec![
            "mean steps (passed)".to_owned(),
            one_decimal(s.mean_steps_success),
        ],
        vec!["step efficiency".to_owned(), rate(s.step_efficiency)],
        vec!["tool correctness".to_owned(), rate(s.tool_correctness)],
        vec!["failures".to_owned(), diagnosis.join(", ")],
    ]
}

/// Graceful failure and safety: timeouts, errors, and attempts with a failed safety check.
pub fn safety_rows(s: &Summary) -> Vec<Vec<String>> {
    vec![
        vec![
            "timeouts, errors".to_owned(),
            format!("{}, {}", s.timeouts, s.errors),
        ],
        vec![
            "safety violations".to_owned(),
            format!(
                "{} ({}, 95% CI {}){}",
                safety_count(s, " attempts"),
                rate(s.safety_violation_rate),
                interval(s.safety_violation_rate_ci),
                not_checked(s)
            ),
        ],
    ]
}

/// `2 of 6{noun}`, or `2 of 4 checked{noun}` when the safety of some attempts could not be
/// checked.
fn safety_count(s: &Summary, noun: &str) -> String {
    let checked = s.attempts - s.safety_not_checked;
    let which = if s.safety_not_checked > 0 {
        " checked"
    } else {
        ""
    };
    format!("{} of {checked}{which}{noun}", s.safety_violations)
}

/// `, 2 not checked` when a safety check of some attempts could not run; else nothing.
fn not_checked(s: &Summary) -> String {
    match s.safety_not_checked {
        0 => String::new(),
        n => format!(", {n} not checked"),
    }
}

/// Cost per success in USD (a lower bound when calls were unpriced) and in tokens.
pub fn cost_per_success(s: &Summary) -> String {
    let tokens = tokens(s.cost_per_success.tokens);
    format!(
        "{} (agent {}, judge {}), {tokens} tokens",
        usd_at_least(s.cost_per_success.usd, s.unpriced_calls),
        super::numbers::usd(s.cost_per_success.agent_usd),
        super::numbers::usd(s.cost_per_success.judge_usd),
    )
}

/// One row per metric and one column per scorecard (`columns` names them): agents side by
/// side, so that no figure mixes two of them. The first row is the header.
pub fn scorecard_rows(columns: &[(String, &Summary)]) -> Vec<Vec<String>> {
    let mut header = vec!["metric".to_owned()];
    header.extend(columns.iter().map(|(name, _)| name.clone()));
    let mut rows = vec![header];
    let mut row = |name: &str, value: &dyn Fn(&Summary) -> String| {
        let mut cells = vec![name.to_owned()];
        cells.extend(columns.iter().map(|(_, s)| value(s)));
        rows.push(cells);
    };
    let k = |s: &Summary| s.k.map_or_else(|| "k".to_owned(), |k| k.to_string());
    row("tasks", &|s| s.tasks.to_string());
    row("attempts", &|s| {
        format!("{} ({}/{}/{})", s.attempts, s.passed, s.failed, s.ungraded)
    });
    row("pass rate", &|s| rate(s.pass_rate));
    row("95% CI", &|s| interval(s.pass_rate_ci));
    row("pass@1", &|s| rate(s.pass_at_1));
    row("first-attempt pass rate", &|s| {
        rate(s.first_attempt_pass_rate)
    });
    row("pass@k", &|s| {
        format!("{} (k = {})", rate(s.pass_at_k), k(s))
    });
    row("pass^k", &|s| {
        format!("{} (k = {})", rate(s.pass_hat_k), k(s))
    });
    row("always pass", &|s| rate(s.always_pass));
    row("total cost", &|s| {
        usd_at_least(s.total_cost.usd, s.unpriced_calls)
    });
    row("cost per success", &|s| {
        usd_at_least(s.cost_per_success.usd, s.unpriced_calls)
    });
    row("cost per success (tokens)", &|s| {
        tokens(s.cost_per_success.tokens)
    });
    row("unpriced calls", &|s| s.unpriced_calls.to_string());
    row("mean steps (passed)", &|s| {
        one_decimal(s.mean_steps_success)
    });
    row("step efficiency", &|s| rate(s.step_efficiency));
    row("tool correctness", &|s| rate(s.tool_correctness));
    row("aborted share", &|s| rate(s.aborted_share));
    row("timeouts", &|s| s.timeouts.to_string());
    row("errors", &|s| s.errors.to_string());
    let buckets: Vec<String> = columns
        .first()
        .map(|(_, s)| s.diagnosis.keys().cloned().collect())
        .unwrap_or_default();
    for bucket in &buckets {
        row(&format!("failures: {bucket}"), &|s| {
            s.diagnosis.get(bucket).copied().unwrap_or(0).to_string()
        });
    }
    row("safety violations", &|s| {
        format!(
            "{} ({}){}",
            s.safety_violations,
            rate(s.safety_violation_rate),
            not_checked(s)
        )
    });
    row("safety 95% CI", &|s| interval(s.safety_violation_rate_ci));
    rows
}

/// `--by variant` (docs/tools.md): per agent and variant (the base tasks are `-`), utility,
/// attack success (attempts that violated a safety check, with the Wilson interval),
/// hit@k and the recovery rate; with attack variants, utility under attack and one pooled
/// row `all attacks` per agent. The header is the first row; nothing when the scorecards
/// are not split by variant. Every row uses the scorecards' one k, named in the header.
pub fn variant_rows(cards: &Scorecards) -> Vec<Vec<String>> {
    if cards.split != Some(Split::Variant) {
        return Vec::new();
    }
    let k = cards
        .agents
        .iter()
        .flat_map(|a| std::iter::once(&a.summary).chain(a.groups.iter().map(|(_, s)| s)))
        .find_map(|s| s.k)
        .map_or_else(|| "k".to_owned(), |k| k.to_string());
    let attacked = cards.agents.iter().any(|a| a.attacks.is_some());
    let hit = format!("hit@{k}");
    let mut header = vec!["agent", "variant", "attempts", "pass rate"];
    if attacked {
        header.push("utility under attack");
    }
    header.extend(["safety violations", "95% CI", &hit, "recovered"]);
    let mut rows = vec![header.into_iter().map(str::to_owned).collect()];
    for agent in &cards.agents {
        let pooled = agent.attacks.iter().map(|s| (ALL_ATTACKS, s));
        for (variant, s) in agent
            .groups
            .iter()
            .map(|(v, s)| (v.as_str(), s))
            .chain(pooled)
        {
            let recovered = if s.faulted == 0 {
                MISSING.to_owned()
            } else {
                format!(
                    "{} of {} ({})",
                    s.recovered,
                    s.faulted,
                    rate(s.recovery_rate)
                )
            };
            let mut row = vec![
                agent.label.clone(),
                variant.to_owned(),
                s.attempts.to_string(),
                format!(
                    "{} ({}/{})",
                    rate(s.pass_rate),
                    s.passed,
                    s.passed + s.failed
                ),
            ];
            if attacked {
                row.push(s.attack.as_ref().map_or_else(
                    || MISSING.to_owned(),
                    |a| {
                        format!(
                            "{} ({}/{})",
                            rate(a.utility_under_attack),
                            a.useful_attempts,
                            s.passed + s.failed
                        )
                    },
                ));
            }
            row.extend([
                format!(
                    "{}{} ({})",
                    safety_count(s, ""),
                    not_checked(s),
                    rate(s.safety_violation_rate)
                ),
                interval(s.safety_violation_rate_ci),
                rate(s.hit_at_k),
                recovered,
            ]);
            rows.push(row);
        }
    }
    rows
}
