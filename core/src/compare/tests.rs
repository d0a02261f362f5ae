//! The comparison end to end, from result lines to verdict.

use super::*;
use crate::result::{Cost, ResultLine};
use rust_decimal::Decimal;

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// A result line with the fields a comparison reads.
fn line(task: &str, attempt: u64, passed: Option<bool>, label: &str, digest: &str) -> ResultLine {
    let mut l = ResultLine::parse(r#"{"task": "x", "passed": null}"#).unwrap();
    l.task = task.into();
    l.attempt = attempt;
    l.passed = passed;
    l.label = Some(label.to_owned());
    l.task_digest = digest.to_owned();
    l
}

/// A side from pass counts: task i gets `c[i]` passes out of `k` attempts.
fn side(side: Side, label: &str, c: &[u64], k: u64) -> SideTally {
    let mut b = SideBuilder::new(side, format!("{label}.jsonl"));
    for (i, &passes) in c.iter().enumerate() {
        for a in 0..k {
            b.add(&line(
                &format!("t{i:02}"),
                a,
                Some(a < passes),
                label,
                "sha256:suite",
            ))
            .unwrap();
        }
    }
    b.finish()
}

fn run(old: &[u64], new: &[u64], k: u64) -> Comparison {
    compare(
        side(Side::Old, "v1", old, k),
        side(Side::New, "v2", new, k),
        &CompareOptions::default(),
    )
    .unwrap()
}

#[test]
fn design_check_values() {
    // docs/comparing.md: Δ −0.2000, SE 0.1193, t₉ interval [−0.4698, 0.0698].
    let c = run(
        &[5, 4, 3, 5, 2, 4, 1, 5, 0, 3],
        &[2, 4, 1, 5, 4, 0, 1, 5, 0, 0],
        5,
    );
    assert_eq!(round4(c.delta.estimate), -0.2);
    assert_eq!(round4(c.delta.se.unwrap()), 0.1193);
    assert_eq!(c.delta.df, 9);
    let ci = c.delta.ci.unwrap();
    assert_eq!((round4(ci.low), round4(ci.high)), (-0.4698, 0.0698));
    assert_eq!(c.verdict, Verdict::Inconclusive);
    assert_eq!(round4(c.mde.unwrap()), 0.3751);
    assert_eq!(c.sign_flip_p, Some(0.1875));
    assert_eq!((c.k, c.equal_attempts, c.mcnemar), (5, true, None));
    assert_eq!(c.regressed, vec!["t00", "t02", "t05", "t09"]);
    assert_eq!(c.fixed, vec!["t04"]);
    assert_eq!(c.tied, vec!["t01", "t03", "t06", "t07", "t08"]);
    assert_eq!(c.task_files, TaskFiles::Same);
    // Δ is the difference of the two sides' mean-over-task pass rates.
    assert!((c.new.pass_at_1 - c.old.pass_at_1 - c.delta.estimate).abs() < 1e-12);
    assert_eq!((c.old.passed, c.new.passed), (32, 22));
    assert_eq!((c.old.pass_rate, c.new.pass_rate), (0.64, 0.44));
}

#[test]
fn one_attempt_uses_mcnemar_which_equals_the_sign_flip_p() {
    // 12 tasks, k = 1: 1 regressed, 6 fixed, 5 tied.
    let old = [1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0];
    let new = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0];
    let c = run(&old, &new, 1);
    let m = c.mcnemar.unwrap();
    assert_eq!((m.regressed, m.fixed), (1, 6));
    assert_eq!(m.p, 0.125);
    assert_eq!(c.sign_flip_p, Some(m.p));
    assert_eq!(c.regressed, vec!["t00"]);
    assert_eq!(c.fixed.len(), 6);
    assert_eq!(c.k, 1);
}

#[test]
fn sign_flip_equals_mcnemar_for_every_small_k1_pattern() {
    for regressed in 0..=6u64 {
        for fixed in 0..=6u64 {
            // `regressed` tasks 1 → 0, then `fixed` tasks 0 → 1, then two tied passes.
            let (r, f) = (regressed as usize, fixed as usize);
            let old: Vec<u64> = (0..r + f + 2)
                .map(|i| u64::from(!(r..r + f).contains(&i)))
                .collect();
            let new: Vec<u64> = (0..r + f + 2).map(|i| u64::from(i >= r)).collect();
            let c = run(&old, &new, 1);
            let m = c.mcnemar.unwrap();
            assert!(
                (c.sign_flip_p.unwrap() - m.p).abs() < 1e-12,
                "{regressed}/{fixed}"
            );
        }
    }
}

#[test]
fn stable_pass_rate_still_lists_the_regressed_and_the_fixed_task() {
    let old = [5, 4, 1, 3, 4, 5];
    let new = [5, 4, 5, 3, 0, 5];
    let c = run(&old, &new, 5);
    assert_eq!(c.old.pass_rate, c.new.pass_rate);
    assert_eq!(c.delta.estimate, 0.0);
    assert_eq!(c.regressed, vec!["t04"]);
    assert_eq!(c.fixed, vec!["t02"]);
    assert_eq!(c.verdict, Verdict::Inconclusive);
    let broken = c.per_task.iter().find(|t| t.task == "t04").unwrap();
    assert_eq!((broken.old.passed, broken.new.passed), (4, 0));
    assert!((broken.fisher_p - 10.0 / 210.0).abs() < 1e-12);
}

#[test]
fn a_run_against_itself_is_no_regression() {
    let c = run(&[5, 0, 3, 2], &[5, 0, 3, 2], 5);
    assert_eq!(c.delta.estimate, 0.0);
    assert_eq!(
        c.delta.ci,
        Some(crate::stats::Interval {
            low: 0.0,
            high: 0.0
        })
    );
    assert_eq!(c.verdict, Verdict::NoRegression);
    assert!(c.regressed.is_empty() && c.fixed.is_empty());
    assert_eq!(c.sign_flip_p, Some(1.0));
    assert_eq!(c.tasks_for_margin, None);
}

#[test]
fn a_clear_drop_is_a_regression_and_a_clear_tie_is_not() {
    let c = run(&[5; 12], &[3; 12], 5);
    // Every task dropped by 0.4: SD 0, the interval is the point −0.4.
    assert_eq!(c.verdict, Verdict::Regression);
    let old = [5, 5, 5, 5, 5, 5, 5, 5, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5];
    let new = [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4, 5, 5, 5];
    let c = run(&old, &new, 5);
    assert_eq!(c.verdict, Verdict::NoRegression, "{:?}", c.delta.ci);
    assert_eq!((c.regressed.len(), c.fixed.len()), (1, 1));
}

#[test]
fn pass_hat_k_uses_one_k_for_both_sides() {
    // Old has 5 attempts per task, new 3: k = 3 on both sides.
    let old = side(Side::Old, "v1", &[5, 3], 5);
    let new = side(Side::New, "v2", &[3, 1], 3);
    let c = compare(old, new, &CompareOptions::default()).unwrap();
    assert_eq!((c.k, c.equal_attempts), (3, false));
    // pass^3: old (1 + C(3,3)/C(5,3)) / 2 = (1 + 0.1)/2, new (1 + 0)/2.
    assert!((c.old.pass_hat_k - 0.55).abs() < 1e-12);
    assert!((c.new.pass_hat_k - 0.5).abs() < 1e-12);
    assert!((c.pass_hat_k_delta.estimate - -0.05).abs() < 1e-12);
    // Rates per task: t00 5/5 → 3/3 tied, t01 3/5 → 1/3 regressed.
    assert_eq!(c.tied, vec!["t00"]);
    assert_eq!(c.regressed, vec!["t01"]);
    assert_eq!(c.mcnemar, None);
}

#[test]
fn cost_per_success_and_steps_are_new_minus_old() {
    let mut old = SideBuilder::new(Side::Old, "old.jsonl");
    let mut new = SideBuilder::new(Side::New, "new.jsonl");
    for (b, usd, tokens, steps) in [(&mut old, 10, 1000, 4), (&mut new, 15, 1200, 6)] {
        let label = if usd == 10 { "v1" } else { "v2" };
        for a in 0..4 {
            let mut l = line("t", a, Some(a < 2), label, "sha256:s");
            l.cost = Cost {
                usd: Some(Decimal::new(usd, 3)),
                tokens,
                unpriced_calls: 0,
                ..Cost::default()
            };
            l.steps = steps;
            b.add(&l).unwrap();
        }
    }
    let c = compare(old.finish(), new.finish(), &CompareOptions::default()).unwrap();
    // Old: 4 · $0.010 over 2 successes = $0.02; new $0.03.
    assert_eq!(c.old.cost_per_success.usd, Some(Decimal::new(2, 2)));
    assert_eq!(c.cost_per_success_delta.usd, Some(Decimal::new(1, 2)));
    assert!((c.cost_per_success_delta.usd_relative.unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(c.cost_per_success_delta.tokens, Some(400.0));
    assert!((c.cost_per_success_delta.tokens_relative.unwrap() - 0.2).abs() < 1e-12);
    assert_eq!(c.mean_steps_success_delta, Some(2.0));
    // One task: no spread, no interval, inconclusive.
    assert_eq!((c.delta.ci, c.verdict), (None, Verdict::Inconclusive));
}

#[test]
fn different_task_files_are_refused_unless_allowed() {
    let old = side(Side::Old, "v1", &[5, 4], 5);
    let mut new = SideBuilder::new(Side::New, "v2.jsonl");
    for (task, passed) in [("t01", true), ("t09", false)] {
        new.add(&line(task, 0, Some(passed), "v2", "sha256:other"))
            .unwrap();
    }
    let new = new.finish();
    let err = compare(old.clone(), new.clone(), &CompareOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "OLD v1.jsonl and NEW v2.jsonl were graded against different task files (sha256:suite vs sha256:other); pass --allow-different-tasks to compare the tasks they share"
    );
    let allowed = CompareOptions {
        allow_different_tasks: true,
        ..CompareOptions::default()
    };
    let c = compare(old, new, &allowed).unwrap();
    assert_eq!(c.task_files, TaskFiles::Different);
    assert_eq!(c.tasks, 1);
    assert_eq!(
        (c.only_old.clone(), c.only_new.clone()),
        (vec!["t00".to_owned()], vec!["t09".to_owned()])
    );
    assert_eq!(c.old.tasks_in_file, 2);
    assert_eq!(c.old.attempts, 5, "only the shared task's attempts");
}

#[test]
fn no_shared_task_names_both_files_and_their_tasks() {
    let old = side(Side::Old, "v1", &[5], 5);
    let mut new = SideBuilder::new(Side::New, "v2.jsonl");
    new.add(&line("other", 0, Some(true), "v2", "sha256:suite"))
        .unwrap();
    new.add(&line("t00", 0, None, "v2", "sha256:suite"))
        .unwrap();
    let err = compare(old, new.finish(), &CompareOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "OLD v1.jsonl and NEW v2.jsonl share no task with graded attempts on both sides (OLD: t00; NEW: other, t00 (no graded attempt))"
    );
}

#[test]
fn ungraded_attempts_are_left_out_and_counted() {
    let mut old = SideBuilder::new(Side::Old, "old.jsonl");
    let mut new = SideBuilder::new(Side::New, "new.jsonl");
    for (a, p) in [Some(true), Some(true), None].into_iter().enumerate() {
        old.add(&line("a", a as u64, p, "v1", "")).unwrap();
        new.add(&line("a", a as u64, Some(true), "v2", "")).unwrap();
    }
    for a in 0..2 {
        old.add(&line("b", a, Some(true), "v1", "")).unwrap();
        new.add(&line("b", a, None, "v2", "")).unwrap();
    }
    let c = compare(old.finish(), new.finish(), &CompareOptions::default()).unwrap();
    assert_eq!(c.task_files, TaskFiles::Unknown);
    assert_eq!(c.tasks, 1);
    let a = &c.per_task[0];
    assert_eq!((a.old.passed, a.old.graded, a.old.ungraded), (2, 2, 1));
    assert_eq!(a.change, Change::Tied);
    assert_eq!((c.old.ungraded, c.new.ungraded), (1, 0));
    assert_eq!(
        c.ungradable,
        vec![Ungradable {
            task: "b".into(),
            old_graded: 2,
            new_graded: 0,
            old_ungraded: 0,
            new_ungraded: 2,
        }]
    );
}

#[test]
fn empty_files_and_bad_margins_are_errors() {
    let old = side(Side::Old, "v1", &[5], 5);
    let empty = SideBuilder::new(Side::New, "empty.jsonl").finish();
    assert_eq!(
        compare(old.clone(), empty, &CompareOptions::default())
            .unwrap_err()
            .to_string(),
        "NEW empty.jsonl holds no result lines"
    );
    for margin in [-0.1, 1.0, f64::NAN] {
        let options = CompareOptions {
            margin,
            ..CompareOptions::default()
        };
        assert!(matches!(
            compare(old.clone(), old.clone(), &options),
            Err(CompareError::Margin(_))
        ));
    }
}

#[test]
fn sign_flip_is_left_out_above_twenty_tasks() {
    let c = run(&[3; 21], &[2; 21], 5);
    assert_eq!(c.sign_flip_p, None);
    assert_eq!(c.tasks, 21);
}
