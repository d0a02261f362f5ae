//! `proctor compare` output: one renderer per format over the same [`Comparison`], plus the
//! notes every text format shows (what was left out, and why).

mod attacks;
pub mod json;
pub mod markdown;
pub mod table;

use super::numbers::{MISSING, interval, rate, tokens, usd};
use attacks::{attack_rows, formatted_attacks};
use proctor_core::compare::{
    Change, ClusteredDifference, Comparison, PairedTask, SIGN_FLIP_MAX_TASKS, TaskFiles,
};
use rust_decimal::Decimal;

/// A difference with its sign, so that "+0.0500" and "-0.0500" read as directions.
pub fn signed(value: Option<f64>) -> String {
    value.map_or_else(|| MISSING.to_owned(), |v| format!("{v:+.4}"))
}

/// `c/n` of one task on one side.
fn counts(passed: u64, graded: u64) -> String {
    format!("{passed}/{graded}")
}

/// "5 attempts each" or "1-5 attempts", for the headline.
fn attempts(c: &Comparison) -> String {
    if c.equal_attempts {
        let s = if c.k == 1 { "" } else { "s" };
        format!("{} attempt{s} each", c.k)
    } else {
        let most = c
            .per_task
            .iter()
            .map(|t| t.old.graded.max(t.new.graded))
            .max()
            .unwrap_or(c.k);
        format!("{}-{most} attempts per task", c.k)
    }
}

/// The verdict and its margin.
fn verdict_line(c: &Comparison) -> String {
    format!("{} (margin {})", c.verdict, c.margin)
}

/// The MDE, printed beside the verdict so that "inconclusive" says how blind the suite is.
fn power_line(c: &Comparison) -> String {
    let Some(mde) = c.mde else {
        if no_spread(c) {
            return "no minimum detectable effect: the paired differences have no spread (see the notes)".to_owned();
        }
        return "no minimum detectable effect without a spread between tasks".to_owned();
    };
    let mut text = format!("minimum detectable effect {mde:.4} (a drop seen with 80% power)");
    if let Some(n) = c.tasks_for_margin.filter(|_| mde > c.margin) {
        text.push_str(&format!(
            "; about {n} tasks at this spread would bring it to the margin {}",
            c.margin
        ));
    }
    text
}

/// The exact tests, as one line.
fn tests_line(c: &Comparison) -> String {
    let mut parts = Vec::new();
    match c.sign_flip_p {
        Some(p) => parts.push(format!("exact sign-flip p {p:.4}")),
        None => parts.push(format!(
            "no exact sign-flip p above {SIGN_FLIP_MAX_TASKS} tasks (the t interval is the test)"
        )),
    }
    if let Some(m) = c.mcnemar {
        parts.push(format!(
            "McNemar exact p {:.4} ({} regressed, {} fixed)",
            m.p, m.regressed, m.fixed
        ));
    }
    parts.join("; ")
}

/// Up to `shown` names, then how many more.
fn names(list: &[String], shown: usize) -> String {
    let mut text = list
        .iter()
        .take(shown)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if list.len() > shown {
        text.push_str(&format!(" and {} more", list.len() - shown));
    }
    text
}

/// What the reader must know to trust the numbers: tasks left out, ungraded attempts, unusual
/// shapes. Empty when the two files compare cleanly.
pub fn notes(c: &Comparison) -> Vec<String> {
    const SHOWN: usize = 10;
    let mut notes = Vec::new();
    match c.task_files {
        TaskFiles::Same => {}
        TaskFiles::Different => notes.push(format!(
            "OLD and NEW were graded against different task files ({} vs {}); compared only the {} tasks they share (--allow-different-tasks)",
            c.old.task_digest.as_deref().unwrap_or(MISSING),
            c.new.task_digest.as_deref().unwrap_or(MISSING),
            c.tasks
        )),
        TaskFiles::Unknown => notes.push(
            "a file records no task-file digest (older results): tasks matched by id, unchecked"
                .to_owned(),
        ),
    }
    for (side, list) in [("OLD", &c.only_old), ("NEW", &c.only_new)] {
        if !list.is_empty() {
            notes.push(format!(
                "{} task{} only in {side}, left out: {}",
                list.len(),
                if list.len() == 1 { "" } else { "s" },
                names(list, SHOWN)
            ));
        }
    }
    if !c.ungradable.is_empty() {
        let list: Vec<String> = c
            .ungradable
            .iter()
            .map(|u| {
                format!(
                    "{} (OLD {} graded, {} ungraded; NEW {} graded, {} ungraded)",
                    u.task, u.old_graded, u.old_ungraded, u.new_graded, u.new_ungraded
                )
            })
            .collect();
        notes.push(format!(
            "{} task{} without a graded attempt on a side, left out: {}",
            list.len(),
            if list.len() == 1 { "" } else { "s" },
            names(&list, SHOWN)
        ));
    }
    if c.old.ungraded + c.new.ungraded > 0 {
        let per_task: Vec<String> = c
            .per_task
            .iter()
            .filter(|t| t.old.ungraded + t.new.ungraded > 0)
            .map(|t| {
                format!(
                    "{} (OLD {}, NEW {})",
                    t.task, t.old.ungraded, t.new.ungraded
                )
            })
            .collect();
        notes.push(format!(
            "ungraded attempts left out of the counts: OLD {}, NEW {}: {}",
            c.old.ungraded,
            c.new.ungraded,
            names(&per_task, SHOWN)
        ));
    }
    if !c.equal_attempts {
        notes.push(format!(
            "tasks have different numbers of graded attempts: each task's pass rate is compared, and pass^k uses k = {} (the fewest) on both sides",
            c.k
        ));
    }
    if c.tasks == 1 {
        notes.push(
            "one task: no spread between tasks can be estimated, so no interval and no verdict"
                .to_owned(),
        );
    } else if no_spread(c) {
        notes.push(same_change_note(c));
    }
    let hat = format!("pass^{} Δ", c.k);
    notes.extend(point_note(&hat, &c.pass_hat_k_delta));
    if let Some(a) = &c.attacks {
        for (name, _, figure) in attacks::figures(a) {
            if let Some(f) = figure {
                notes.extend(point_note(&format!("{name} Δ"), &f.delta));
            }
        }
    }
    notes
}

/// Several tasks, and every one changed by the same amount (0 included).
fn no_spread(c: &Comparison) -> bool {
    point(&c.delta)
}

/// True when a difference's interval has no width: several tasks, every one of them with
/// the same difference (docs/comparing.md).
fn point(d: &ClusteredDifference) -> bool {
    d.n > 1 && d.sd == 0.0
}

/// What the text formats print after an interval of no width, so that `[1.0000, 1.0000]`
/// is never read as certainty.
pub(super) fn point_mark(d: &ClusteredDifference) -> &'static str {
    if point(d) {
        "  (a point: the same Δ on every task)"
    } else {
        ""
    }
}

/// The note for a figure other than Δ of the pass rate whose interval is a point.
fn point_note(name: &str, d: &ClusteredDifference) -> Option<String> {
    point(d).then(|| {
        format!(
            "{name}: every one of the {} tasks differed by the same {:+.4}, so its 95% interval is a point: the tasks showed no spread, which is not certainty",
            d.n, d.estimate
        )
    })
}

/// Why a point interval and no MDE: the t interval estimates the spread of the per-task
/// differences from the tasks, and these showed none. That says nothing about how far the
/// next tasks could differ, so the interval's lack of width is not certainty; the exact
/// sign-flip p, which needs no spread, is the test to read.
fn same_change_note(c: &Comparison) -> String {
    let what = if c.delta.estimate == 0.0 {
        "no task changed (every paired difference is 0)".to_owned()
    } else {
        format!("every task changed by the same {:+.4}", c.delta.estimate)
    };
    let test = match c.sign_flip_p {
        Some(p) => format!(" ({p:.4})"),
        None if c.delta.estimate == 0.0 => " (1.0000)".to_owned(),
        // Only the two all-alike sign patterns are as extreme: p = 2 / 2^n.
        None => format!(
            ", below {:.6} for more than {SIGN_FLIP_MAX_TASKS} tasks that all moved alike",
            2.0 / 2f64.powi(SIGN_FLIP_MAX_TASKS as i32)
        ),
    };
    format!(
        "{what}: the paired differences have no spread, so the 95% interval is a point and no minimum detectable effect can be computed; read the exact sign-flip p{test} instead, which does not rely on a spread (a point interval is not certainty)"
    )
}

/// Per-task rows in reading order: regressed (largest drop first), fixed (largest gain first),
/// then tied, each by task id.
fn ordered(c: &Comparison) -> Vec<&PairedTask> {
    let mut rows: Vec<&PairedTask> = c.per_task.iter().collect();
    let rank = |t: &PairedTask| match t.change {
        Change::Regressed => 0,
        Change::Fixed => 1,
        Change::Tied => 2,
    };
    rows.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| match a.change {
                Change::Regressed => a.delta.total_cmp(&b.delta),
                Change::Fixed => b.delta.total_cmp(&a.delta),
                Change::Tied => std::cmp::Ordering::Equal,
            })
            .then_with(|| a.task.cmp(&b.task))
    });
    rows
}

/// A USD difference with its sign, rounded only here.
fn signed_usd(value: Option<Decimal>) -> String {
    value.map_or_else(
        || MISSING.to_owned(),
        |v| {
            let sign = if v.is_sign_negative() && !v.is_zero() {
                "-"
            } else {
                "+"
            };
            format!("{sign}${}", v.abs().round_dp(6).normalize())
        },
    )
}

/// A relative change as a percentage, in parentheses; empty when undefined.
fn relative(value: Option<f64>) -> String {
    value.map_or_else(String::new, |r| format!(" ({:+.1}%)", r * 100.0))
}

/// The rows of the old/new/Δ metrics table, header first; shared by table and markdown.
fn metric_rows(c: &Comparison) -> Vec<Vec<String>> {
    let d = &c.delta;
    let hat = &c.pass_hat_k_delta;
    let cost = &c.cost_per_success_delta;
    let steps = |s: Option<f64>| s.map_or_else(|| MISSING.to_owned(), |s| format!("{s:.2}"));
    let with_ci = |d: &ClusteredDifference| {
        format!(
            "{}  95% CI {}{}",
            signed(Some(d.estimate)),
            interval(d.ci),
            point_mark(d)
        )
    };
    vec![
        vec![
            "metric".to_owned(),
            "old".to_owned(),
            "new".to_owned(),
            "Δ (new − old)".to_owned(),
        ],
        vec![
            "pass rate (mean over tasks)".to_owned(),
            rate(Some(c.old.pass_at_1)),
            rate(Some(c.new.pass_at_1)),
            format!("{}  SE {}, df {}", with_ci(d), rate(d.se), d.df),
        ],
        vec![
            format!("pass^{}", c.k),
            rate(Some(c.old.pass_hat_k)),
            rate(Some(c.new.pass_hat_k)),
            with_ci(hat),
        ],
        vec![
            "cost per success".to_owned(),
            usd(c.old.cost_per_success.usd),
            usd(c.new.cost_per_success.usd),
            format!("{}{}", signed_usd(cost.usd), relative(cost.usd_relative)),
        ],
        vec![
            "cost per success (tokens)".to_owned(),
            tokens(c.old.cost_per_success.tokens),
            tokens(c.new.cost_per_success.tokens),
            format!(
                "{}{}",
                cost.tokens
                    .map_or_else(|| MISSING.to_owned(), |t| format!("{t:+.0}")),
                relative(cost.tokens_relative)
            ),
        ],
        vec![
            "mean steps (passed)".to_owned(),
            steps(c.old.mean_steps_success),
            steps(c.new.mean_steps_success),
            c.mean_steps_success_delta
                .map_or_else(|| MISSING.to_owned(), |s| format!("{s:+.2}")),
        ],
        vec![
            "passed / graded (pooled)".to_owned(),
            format!(
                "{} {}",
                counts(c.old.passed, c.old.passed + c.old.failed),
                rate(Some(c.old.pass_rate))
            ),
            format!(
                "{} {}",
                counts(c.new.passed, c.new.passed + c.new.failed),
                rate(Some(c.new.pass_rate))
            ),
            String::new(),
        ],
        vec![
            "ungraded (left out)".to_owned(),
            c.old.ungraded.to_string(),
            c.new.ungraded.to_string(),
            String::new(),
        ],
        vec![
            "unpriced calls".to_owned(),
            c.old.unpriced_calls.to_string(),
            c.new.unpriced_calls.to_string(),
            String::new(),
        ],
    ]
}

/// "label (file)" for one side.
pub fn side_name(file: &str, label: Option<&str>) -> String {
    match label {
        Some(label) => format!("{label} ({file})"),
        None => file.to_owned(),
    }
}
