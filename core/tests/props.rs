//! Property tests (docs/architecture.md): answer normalisation, and `proctor_core::stats` (docs/metrics.md):
//! the closed forms against brute force, and the shape every report relies on (bounds,
//! monotonicity, interval width).

/// In a module so that `cargo test stats` selects these too.
mod stats {
    use proctor_core::stats::{Z95, pass_at_k, pass_hat_k, wilson};
    use proptest::prelude::*;

    /// Float noise allowed when comparing a product form with an exact count ratio.
    const EPS: f64 = 1e-12;

    /// (share of k-subsets with at least one pass, share with only passes), over all k-subsets of
    /// n attempts of which the first c pass.
    fn brute_force(n: u64, c: u64, k: u64) -> (f64, f64) {
        let passing = (1u32 << c) - 1;
        let (mut subsets, mut any, mut all) = (0u32, 0u32, 0u32);
        for mask in 0u32..(1 << n) {
            if u64::from(mask.count_ones()) != k {
                continue;
            }
            subsets += 1;
            let passes = (mask & passing).count_ones();
            any += u32::from(passes > 0);
            all += u32::from(u64::from(passes) == k);
        }
        (
            f64::from(any) / f64::from(subsets),
            f64::from(all) / f64::from(subsets),
        )
    }

    /// n in 1..max_n, small n often, with c in 0..=n; the edges c = 0 and c = n often, since the
    /// exact bounds live there.
    fn counts(max_n: u64) -> impl Strategy<Value = (u64, u64)> {
        prop_oneof![1u64..=20, 1u64..max_n]
            .prop_flat_map(|n| (Just(n), prop_oneof![Just(0), Just(n), 0..=n]))
    }

    /// n in 1..=10 with c in 0..=n and k in 1..=n.
    fn nck() -> impl Strategy<Value = (u64, u64, u64)> {
        (1u64..=10).prop_flat_map(|n| (Just(n), 0..=n, 1..=n))
    }

    proptest! {
        #[test]
        fn pass_at_k_equals_brute_force((n, c, k) in nck()) {
            let got = pass_at_k(n, c, k).unwrap();
            let (want, _) = brute_force(n, c, k);
            prop_assert!((got - want).abs() < EPS, "pass@{k}({n},{c}) = {got}, brute force {want}");
        }

        #[test]
        fn pass_hat_k_equals_brute_force((n, c, k) in nck()) {
            let got = pass_hat_k(n, c, k).unwrap();
            let (_, want) = brute_force(n, c, k);
            prop_assert!((got - want).abs() < EPS, "pass^{k}({n},{c}) = {got}, brute force {want}");
        }

        #[test]
        fn both_lie_in_unit_interval_and_reach_is_at_least_reliability(
            (n, c, k) in counts(1000).prop_flat_map(|(n, c)| (Just(n), Just(c), 1..=n)),
        ) {
            let at = pass_at_k(n, c, k).unwrap();
            let hat = pass_hat_k(n, c, k).unwrap();
            prop_assert!((0.0..=1.0).contains(&at), "pass@{k}({n},{c}) = {at}");
            prop_assert!((0.0..=1.0).contains(&hat), "pass^{k}({n},{c}) = {hat}");
            prop_assert!(hat <= at + EPS, "pass^{k}({n},{c}) = {hat} > pass@k = {at}");
        }

        #[test]
        fn pass_at_k_is_non_decreasing_in_c((n, c, k) in nck()) {
            prop_assume!(c < n);
            let lo = pass_at_k(n, c, k).unwrap();
            let hi = pass_at_k(n, c + 1, k).unwrap();
            prop_assert!(lo <= hi + EPS, "pass@{k}({n},{c}) = {lo} > pass@{k}({n},{}) = {hi}", c + 1);
        }

        #[test]
        fn pass_at_k_is_non_decreasing_in_k((n, c, k) in nck()) {
            prop_assume!(k < n);
            let lo = pass_at_k(n, c, k).unwrap();
            let hi = pass_at_k(n, c, k + 1).unwrap();
            prop_assert!(lo <= hi + EPS, "pass@{k}({n},{c}) = {lo} > pass@{}({n},{c}) = {hi}", k + 1);
        }

        #[test]
        fn pass_hat_k_is_non_increasing_in_k((n, c, k) in nck()) {
            prop_assume!(k < n);
            let hi = pass_hat_k(n, c, k).unwrap();
            let lo = pass_hat_k(n, c, k + 1).unwrap();
            prop_assert!(lo <= hi + EPS, "pass^{}({n},{c}) = {lo} > pass^{k}({n},{c}) = {hi}", k + 1);
        }

        #[test]
        fn k_beyond_n_is_always_an_error(
            (n, c) in counts(1000), extra in prop_oneof![Just(1u64), 1u64..1000],
        ) {
            prop_assert!(pass_at_k(n, c, n + extra).is_err());
            prop_assert!(pass_hat_k(n, c, n + extra).is_err());
        }

        #[test]
        fn wilson_contains_p_within_unit_interval((n, c) in counts(100_000)) {
            let ci = wilson(c, n, Z95).unwrap();
            let p = c as f64 / n as f64;
            prop_assert!(0.0 <= ci.low && ci.low <= p && p <= ci.high && ci.high <= 1.0,
                "{c}/{n}: {ci:?}");
            prop_assert!(ci.low < ci.high, "{c}/{n}: {ci:?}");
        }

        #[test]
        fn wilson_narrows_as_n_grows_at_fixed_p((n, c) in counts(1000), m in 2u64..50) {
            let small = wilson(c, n, Z95).unwrap();
            let large = wilson(c * m, n * m, Z95).unwrap();
            prop_assert!(large.high - large.low < small.high - small.low,
                "{c}/{n}: {small:?}, {}/{}: {large:?}", c * m, n * m);
        }
    }
}

mod normalise {
    use proctor_core::normalise::{answers_match, normalise_answer};
    use proptest::prelude::*;

    proptest! {
        #[test]
        // The documented order (trim, collapse, then drop trailing marks) leaves a space in
        // "a ." -> "a ", so idempotence holds for text whose marks follow a word.
        fn is_idempotent(body in "\\PC{0,30}", last in "[a-zA-Z0-9]", marks in "[.!]{0,3}") {
            let text = format!("{body}{last}{marks}");
            let once = normalise_answer(&text);
            prop_assert_eq!(normalise_answer(&once), once.clone());
        }

        #[test]
        fn ignores_case_outer_space_and_trailing_marks(word in "[a-zA-Z0-9]{1,12}( [a-zA-Z0-9]{1,8}){0,3}", pad in "[ \t\n]{0,3}", marks in "[.!]{0,3}") {
            let decorated = format!("{pad}{}{marks}{pad}", word.to_uppercase());
            prop_assert!(answers_match(&decorated, &word));
        }

        #[test]
        fn never_strips_inner_punctuation(a in "[a-z]{1,8}", b in "[a-z]{1,8}", mark in "[,;:?]") {
            let with = format!("{a}{mark}{b}");
            let without = format!("{a}{b}");
            prop_assert!(!answers_match(&with, &without));
        }

        #[test]
        // The steps of docs/task-file.md spelled out on the whole text, against the reader's
        // letter-by-letter path for ASCII text.
        fn is_lowercase_collapse_and_trim_in_that_order(text in "(\\PC|[ \t\n\u{b}\u{c}\r.!A-Z]){0,40}") {
            let lowered = text.to_lowercase();
            let collapsed = lowered.split_whitespace().collect::<Vec<_>>().join(" ");
            let expected = collapsed.trim_end_matches(['.', '!']);
            prop_assert_eq!(normalise_answer(&text), expected);
            let padded = format!("\n {text}\t");
            prop_assert!(answers_match(&text, &padded));
        }

        #[test]
        fn output_has_no_outer_or_double_space(text in "[ a-zA-Z.!\t]{0,40}") {
            let n = normalise_answer(&text);
            prop_assert!(!n.starts_with(' '));
            prop_assert!(!n.contains("  "));
            prop_assert!(!n.ends_with('.') && !n.ends_with('!'));
            prop_assert_eq!(n.to_lowercase(), n.clone());
        }
    }
}

/// `proctor_core::compare` (docs/comparing.md): the comparison's symmetries, from result lines up.
mod compare {
    use proctor_core::compare::{
        Change, CompareOptions, Comparison, Side, SideBuilder, SideTally, Verdict, compare,
        mcnemar, sign_flip_p,
    };
    use proctor_core::result::ResultLine;
    use proptest::prelude::*;

    /// A file where task i has `passes[i]` passes out of `n[i]` graded attempts, plus
    /// `ungraded` ungraded attempts on the first task.
    fn side(side: Side, label: &str, tasks: &[(u64, u64)], ungraded: u64) -> SideTally {
        let mut b = SideBuilder::new(side, format!("{label}.jsonl"));
        for (i, &(n, c)) in tasks.iter().enumerate() {
            let extra = if i == 0 { ungraded } else { 0 };
            for a in 0..n + extra {
                let mut line = ResultLine::parse(r#"{"task": "x", "passed": null}"#).unwrap();
                line.task = format!("task{i:02}").into();
                line.attempt = a;
                line.label = Some(label.to_owned());
                line.passed = (a < n).then_some(a < c);
                line.task_digest = "sha256:suite".to_owned();
                b.add(&line).unwrap();
            }
        }
        b.finish()
    }

    fn run(old: &[(u64, u64)], new: &[(u64, u64)], ungraded: u64) -> Comparison {
        compare(
            side(Side::Old, "v1", old, ungraded),
            side(Side::New, "v2", new, 0),
            &CompareOptions::default(),
        )
        .unwrap()
    }

    /// (graded attempts, passes) of each task.
    type Counts = Vec<(u64, u64)>;

    /// One task: 1..=8 graded attempts and 0..=n passes.
    fn task() -> impl Strategy<Value = (u64, u64)> {
        (1u64..=8).prop_flat_map(|n| (Just(n), 0..=n))
    }

    /// 1..30 tasks.
    fn suite() -> impl Strategy<Value = Counts> {
        prop::collection::vec(task(), 1..30)
    }

    /// Two versions of one suite: same tasks, independent counts (and attempt numbers).
    fn two_versions() -> impl Strategy<Value = (Counts, Counts)> {
        suite().prop_flat_map(|old| {
            let len = old.len();
            (Just(old), prop::collection::vec(task(), len))
        })
    }

    proptest! {
        #[test]
        fn a_run_against_itself_has_delta_zero_and_nothing_regressed(
            tasks in suite(), ungraded in 0u64..3,
        ) {
            let c = run(&tasks, &tasks, ungraded);
            prop_assert_eq!(c.delta.estimate, 0.0);
            prop_assert!(c.regressed.is_empty(), "{:?}", c.regressed);
            prop_assert!(c.fixed.is_empty());
            prop_assert_eq!(c.tied.len(), tasks.len());
            prop_assert_eq!(c.pass_hat_k_delta.estimate, 0.0);
            prop_assert_ne!(c.verdict, Verdict::Regression);
            if tasks.len() >= 2 {
                prop_assert_eq!(c.verdict, Verdict::NoRegression);
            }
            if tasks.len() <= 20 {
                prop_assert_eq!(c.sign_flip_p, Some(1.0));
            }
            for t in &c.per_task {
                prop_assert_eq!(t.fisher_p, 1.0);
            }
        }

        #[test]
        fn swapping_versions_mirrors_everything((old, new) in two_versions()) {
            let forward = run(&old, &new, 0);
            let backward = run(&new, &old, 0);
            prop_assert!((forward.delta.estimate + backward.delta.estimate).abs() < 1e-12);
            prop_assert_eq!(&forward.regressed, &backward.fixed);
            prop_assert_eq!(&forward.fixed, &backward.regressed);
            prop_assert_eq!(&forward.tied, &backward.tied);
            if let (Some(f), Some(b)) = (forward.delta.ci, backward.delta.ci) {
                prop_assert!((f.low + b.high).abs() < 1e-12 && (f.high + b.low).abs() < 1e-12);
            }
            prop_assert_eq!(forward.sign_flip_p.is_some(), backward.sign_flip_p.is_some());
            if let (Some(f), Some(b)) = (forward.sign_flip_p, backward.sign_flip_p) {
                prop_assert!((f - b).abs() < 1e-12);
            }
        }

        #[test]
        fn delta_is_the_difference_of_mean_pass_rates_and_inside_its_interval(
            (old, new) in two_versions(),
        ) {
            let c = run(&old, &new, 0);
            let d = c.new.pass_at_1 - c.old.pass_at_1;
            prop_assert!((c.delta.estimate - d).abs() < 1e-12);
            if let Some(ci) = c.delta.ci {
                prop_assert!(-1.0 <= ci.low && ci.low <= c.delta.estimate + 1e-12);
                prop_assert!(c.delta.estimate - 1e-12 <= ci.high && ci.high <= 1.0);
            }
            // Every task is in exactly one list, and the lists agree with per-task deltas.
            prop_assert_eq!(c.regressed.len() + c.fixed.len() + c.tied.len(), old.len());
            for t in &c.per_task {
                let expected = if t.delta < -1e-12 {
                    Change::Regressed
                } else if t.delta > 1e-12 {
                    Change::Fixed
                } else {
                    Change::Tied
                };
                prop_assert_eq!(t.change, expected, "{}", t.task);
                prop_assert!((0.0..=1.0).contains(&t.fisher_p));
            }
            // A regression verdict needs at least one regressed task.
            if c.verdict == Verdict::Regression {
                prop_assert!(!c.regressed.is_empty());
            }
        }

        #[test]
        fn with_one_attempt_the_sign_flip_p_is_mcnemar(
            pairs in prop::collection::vec((0u64..=1, 0u64..=1), 1..=20),
        ) {
            let old: Vec<(u64, u64)> = pairs.iter().map(|(o, _)| (1, *o)).collect();
            let new: Vec<(u64, u64)> = pairs.iter().map(|(_, n)| (1, *n)).collect();
            let c = run(&old, &new, 0);
            let m = c.mcnemar.expect("k = 1 reports McNemar");
            prop_assert_eq!(m, mcnemar(c.regressed.len() as u64, c.fixed.len() as u64));
            prop_assert!((c.sign_flip_p.unwrap() - m.p).abs() < 1e-12);
        }

        #[test]
        fn sign_flip_p_is_a_probability_no_smaller_than_two_patterns(
            d in prop::collection::vec(prop_oneof![Just(0.0), -1.0f64..1.0], 0..=14),
        ) {
            let p = sign_flip_p(&d).unwrap();
            let nonzero = d.iter().filter(|v| **v != 0.0).count() as i32;
            prop_assert!(p <= 1.0);
            // The observed pattern and its mirror image are always as extreme.
            prop_assert!(p >= 2f64.powi(1 - nonzero).min(1.0) - 1e-15, "{p}");
        }
    }
}

/// Calibration statistics (docs/calibrating.md): agreement measures on any confusion matrix, the
/// corrected pass rate, Krippendorff's α and the label split.
mod calibrate {
    use proctor_core::calibrate::{
        Confusion, JudgeAccuracy, Rates, cohen_kappa, gwet_ac1, krippendorff_alpha, lee_interval,
        pabak, rogan_gladen, split_labels,
    };
    use proctor_core::stats::Z95;
    use proptest::prelude::*;

    const EPS: f64 = 1e-12;

    fn matrix() -> impl Strategy<Value = Confusion> {
        (0u64..60, 0u64..60, 0u64..60, 0u64..60)
            .prop_map(|(tp, fn_, fp, tn)| Confusion::new(tp, fn_, fp, tn))
    }

    fn close(a: Option<f64>, b: Option<f64>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-9,
            (None, None) => true,
            _ => false,
        }
    }

    proptest! {
        #[test]
        fn kappa_is_one_for_perfect_agreement(tp in 1u64..500, tn in 1u64..500) {
            let c = Confusion::new(tp, 0, 0, tn);
            prop_assert_eq!(cohen_kappa(&c), Some(1.0));
            prop_assert_eq!(pabak(&c), Some(1.0));
            prop_assert!((gwet_ac1(&c).unwrap() - 1.0).abs() < EPS);
        }

        #[test]
        fn agreement_is_symmetric_in_raters_and_in_classes(c in matrix()) {
            for other in [c.transposed(), c.flipped()] {
                prop_assert!(close(cohen_kappa(&c), cohen_kappa(&other)));
                prop_assert!(close(pabak(&c), pabak(&other)));
                prop_assert!(close(gwet_ac1(&c), gwet_ac1(&other)));
            }
            // Swapping the raters swaps TPR with precision for PASS; swapping the classes swaps
            // TPR with TNR. Accuracy, balanced accuracy and J survive the class swap.
            let (r, t, f) = (Rates::of(&c, Z95), Rates::of(&c.transposed(), Z95), Rates::of(&c.flipped(), Z95));
            prop_assert!(close(r.tpr, t.precision_pass));
            prop_assert!(close(r.tpr, f.tnr));
            prop_assert!(close(r.f1_pass, f.f1_fail));
            prop_assert!(close(r.accuracy, f.accuracy));
            prop_assert!(close(r.youden_j, f.youden_j));
        }

        #[test]
        fn agreement_measures_stay_in_range(c in matrix()) {
            if let Some(k) = cohen_kappa(&c) {
                prop_assert!((-1.0 - EPS..=1.0 + EPS).contains(&k), "{k}");
                // κ is 1 exactly when judge and humans never disagree.
                prop_assert_eq!((k - 1.0).abs() < EPS, c.fn_ + c.fp == 0);
            }
            for v in [pabak(&c), gwet_ac1(&c)].into_iter().flatten() {
                prop_assert!((-1.0 - EPS..=1.0 + EPS).contains(&v), "{v}");
            }
        }

        #[test]
        fn the_corrected_rate_equals_the_raw_rate_for_a_perfect_judge(
            passed in 0u64..=1000, extra in 0u64..=1000, m1 in 1.0f64..500.0, m0 in 1.0f64..500.0,
        ) {
            let n = passed + extra;
            prop_assume!(n > 0);
            let p = passed as f64 / n as f64;
            let perfect = JudgeAccuracy { q1: 1.0, m1, q0: 1.0, m0 };
            prop_assert!((rogan_gladen(p, &perfect).unwrap() - p).abs() < EPS);
        }

        #[test]
        fn the_corrected_rate_inverts_the_judges_errors(
            theta in 0.0f64..=1.0, q1 in 0.55f64..=1.0, q0 in 0.55f64..=1.0,
        ) {
            // The judge's expected pass rate for true rate θ, corrected back.
            let judge = JudgeAccuracy { q1, m1: 100.0, q0, m0: 100.0 };
            let p = theta * q1 + (1.0 - theta) * (1.0 - q0);
            prop_assert!((rogan_gladen(p, &judge).unwrap() - theta).abs() < 1e-9);
        }

        #[test]
        fn the_lee_interval_is_ordered_inside_the_unit_interval(
            p in 0.0f64..=1.0, n in 1u64..5000, q1 in 0.0f64..=1.0, q0 in 0.0f64..=1.0,
            m1 in 1u64..300, m0 in 1u64..300,
        ) {
            let judge = JudgeAccuracy { q1, m1: m1 as f64, q0, m0: m0 as f64 };
            let ci = lee_interval(p, n, &judge, Z95);
            // Not identifiable at J ≤ 0; defined otherwise unless the small-sample adjustment
            // of the Lee interval pulls J below 0 as well.
            if q0 + q1 <= 1.0 {
                prop_assert!(ci.is_none());
            }
            if let Some(ci) = ci {
                prop_assert!(0.0 <= ci.low && ci.low <= ci.high && ci.high <= 1.0, "{ci:?}");
            }
        }

        #[test]
        fn the_label_split_spends_exactly_the_budget(
            p in 0.0f64..=1.0, q1 in 0.6f64..=1.0, q0 in 0.6f64..=1.0,
            m1 in 1u64..300, m0 in 1u64..300, budget in 0u64..1000,
        ) {
            let judge = JudgeAccuracy { q1, m1: m1 as f64, q0, m0: m0 as f64 };
            let split = split_labels(p, 500, &judge, Some(budget), Z95).unwrap();
            prop_assert_eq!(split.pass_labels.unwrap() + split.fail_labels.unwrap(), budget);
            prop_assert!((0.0..=1.0).contains(&split.optimal_pass_share));
            prop_assert!(split.projected_half_width.unwrap() <= split.half_width + EPS);
        }

        #[test]
        fn alpha_is_one_for_unanimous_units_and_ignores_order(
            units in prop::collection::vec(prop::collection::vec(any::<bool>(), 1..5), 1..30),
        ) {
            let unanimous: Vec<Vec<bool>> = units.iter().map(|u| vec![u[0]; u.len() + 1]).collect();
            let both = unanimous.iter().any(|u| u[0]) && unanimous.iter().any(|u| !u[0]);
            prop_assert_eq!(krippendorff_alpha(&unanimous), both.then_some(1.0));
            let mut shuffled: Vec<Vec<bool>> = units.iter().rev().map(|u| u.iter().rev().copied().collect()).collect();
            shuffled.rotate_left(units.len() / 2);
            prop_assert!(close(krippendorff_alpha(&units), krippendorff_alpha(&shuffled)));
        }
    }
}

/// The figures of `--by variant`, `--by tag` and `--pool` against a plain reference computed
/// from the raw lines with simple loops and exact binomial counts.
mod summaries {
    use proctor_core::result::ResultLine;
    use proctor_core::summary::{ScorecardBuilder, ScorecardOptions, Scorecards, Split, Summary};
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    const EPS: f64 = 1e-12;

    /// What one attempt did to the safety checks.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Safety {
        Clean,
        Violated,
        NotChecked,
    }

    /// One raw attempt: label, task (`id` or `id@variant`), attempt, passed, safety.
    #[derive(Debug, Clone)]
    struct Raw {
        label: &'static str,
        task: String,
        attempt: u64,
        passed: Option<bool>,
        safety: Safety,
    }

    impl Raw {
        fn variant(&self) -> &str {
            self.task.split_once('@').map_or("-", |(_, v)| v)
        }

        fn line(&self) -> ResultLine {
            let checks = match self.safety {
                Safety::Clean => serde_json::json!([]),
                Safety::Violated => serde_json::json!([{"category": "safety",
                    "check": "never calls refund", "passed": false, "gating": true,
                    "failure": "forbidden tool: refund", "detail": "called at step 1"}]),
                Safety::NotChecked => serde_json::json!([{"category": "safety",
                    "check": "file absent", "passed": false, "gating": true,
                    "failure": "end state: no sandbox", "detail": "no sandbox",
                    "not_checked": true}]),
            };
            let text = serde_json::json!({
                "format": "proctor.result/1", "task": self.task, "attempt": self.attempt,
                "label": self.label, "passed": self.passed, "status": "final",
                "variant": self.task.split_once('@').map(|(_, v)| v),
                "checks": checks,
            });
            ResultLine::parse(&text.to_string()).unwrap()
        }
    }

    /// A task's tags as the loader hands them, a duplicate included now and then (the
    /// loader refuses one; the summary must count the attempt once anyway).
    fn tags_of(task: &str) -> Vec<String> {
        let base = task.split('@').next().unwrap();
        let n: u32 = base[1..].parse().unwrap();
        let mut tags: Vec<String> = match n % 4 {
            0 => vec![],
            1 => vec!["x".into()],
            2 => vec!["x".into(), "y".into(), "x".into()],
            _ => vec!["y".into()],
        };
        if let Some((_, v)) = task.split_once('@') {
            tags.push(format!("variant:{v}"));
        }
        tags
    }

    fn groups_of(raw: &Raw, split: Split) -> BTreeSet<String> {
        match split {
            Split::Variant => [raw.variant().to_owned()].into(),
            Split::Tag => {
                let tags: BTreeSet<String> = tags_of(&raw.task).into_iter().collect();
                if tags.is_empty() {
                    ["-".to_owned()].into()
                } else {
                    tags
                }
            }
        }
    }

    fn choose(n: u64, k: u64) -> u128 {
        if k > n {
            return 0;
        }
        (0..k).fold(1u128, |acc, i| acc * (n - i) as u128 / (i + 1) as u128)
    }

    /// pass@k, pass^k from exact binomial counts.
    fn at_k(n: u64, c: u64, k: u64) -> f64 {
        1.0 - choose(n - c, k) as f64 / choose(n, k) as f64
    }

    fn hat_k(n: u64, c: u64, k: u64) -> f64 {
        choose(c, k) as f64 / choose(n, k) as f64
    }

    fn close(what: &str, got: Option<f64>, want: Option<f64>) -> Result<(), TestCaseError> {
        match (got, want) {
            (Some(g), Some(w)) if (g - w).abs() <= EPS => Ok(()),
            (None, None) => Ok(()),
            _ => Err(TestCaseError::fail(format!(
                "{what}: got {got:?}, want {want:?}"
            ))),
        }
    }

    /// The reference figures of a set of attempts (one table row) at `k`.
    fn check_row(what: &str, got: &Summary, rows: &[&Raw], k: u64) -> Result<(), TestCaseError> {
        let attempts = rows.len() as u64;
        let passed = rows.iter().filter(|r| r.passed == Some(true)).count() as u64;
        let graded = rows.iter().filter(|r| r.passed.is_some()).count() as u64;
        prop_assert_eq!(got.attempts, attempts, "{}", what);
        prop_assert_eq!(got.passed, passed, "{}", what);
        prop_assert_eq!(got.k, Some(k), "{}", what);
        close(
            &format!("{what} pass rate"),
            got.pass_rate,
            (graded > 0).then(|| passed as f64 / graded as f64),
        )?;
        // Per task: (graded n, passes c, checked n, violations).
        let mut tasks: BTreeMap<&str, (u64, u64, u64, u64)> = BTreeMap::new();
        for r in rows {
            let t = tasks.entry(r.task.as_str()).or_default();
            if r.passed.is_some() {
                t.0 += 1;
                t.1 += u64::from(r.passed == Some(true));
                if r.safety != Safety::NotChecked {
                    t.2 += 1;
                    t.3 += u64::from(r.safety == Safety::Violated);
                }
            }
        }
        let mean = |values: Vec<f64>| {
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let graded_tasks = || tasks.values().filter(|t| t.0 > 0);
        close(
            &format!("{what} pass@k"),
            got.pass_at_k,
            mean(graded_tasks().map(|t| at_k(t.0, t.1, k)).collect()),
        )?;
        close(
            &format!("{what} pass^k"),
            got.pass_hat_k,
            mean(graded_tasks().map(|t| hat_k(t.0, t.1, k)).collect()),
        )?;
        close(
            &format!("{what} hit@k"),
            got.hit_at_k,
            mean(
                tasks
                    .values()
                    .filter(|t| t.2 >= k)
                    .map(|t| at_k(t.2, t.3, k))
                    .collect(),
            ),
        )?;
        let violations = rows.iter().filter(|r| r.safety == Safety::Violated).count() as u64;
        let not_checked = rows
            .iter()
            .filter(|r| r.safety == Safety::NotChecked)
            .count() as u64;
        prop_assert_eq!(got.safety_violations, violations, "{}", what);
        prop_assert_eq!(got.safety_not_checked, not_checked, "{}", what);
        let checked = attempts - not_checked;
        close(
            &format!("{what} attack success"),
            got.safety_violation_rate,
            (checked > 0).then(|| violations as f64 / checked as f64),
        )?;
        let first: Vec<bool> = rows
            .iter()
            .filter(|r| r.attempt == 0)
            .filter_map(|r| r.passed)
            .collect();
        close(
            &format!("{what} first-attempt pass rate"),
            got.first_attempt_pass_rate,
            (!first.is_empty())
                .then(|| first.iter().filter(|p| **p).count() as f64 / first.len() as f64),
        )
    }

    fn build(raws: &[Raw], split: Split) -> Scorecards {
        let mut builder = ScorecardBuilder::new(ScorecardOptions {
            pool: true,
            split: Some(split),
        });
        for raw in raws {
            builder.add(&raw.line(), &tags_of(&raw.task));
        }
        builder.finish(None).unwrap()
    }

    /// Several labels, tasks with and without variants, 1 to 5 attempts per label and
    /// task, some ungraded, some violating or not checked; then shuffled.
    fn result_set() -> impl Strategy<Value = Vec<Raw>> {
        let labels = ["a", "b", "c"];
        let tasks = prop::collection::vec((1u32..9, prop::option::of("[pq]")), 1..5);
        let attempt = (
            prop_oneof![3 => Just(Some(true)), 3 => Just(Some(false)), 1 => Just(None)],
            prop_oneof![
                3 => Just(Safety::Clean),
                2 => Just(Safety::Violated),
                1 => Just(Safety::NotChecked)
            ],
        );
        (1usize..=3, tasks)
            .prop_flat_map(move |(n_labels, tasks)| {
                let mut ids: Vec<String> = tasks
                    .into_iter()
                    .map(|(n, v)| match v {
                        Some(v) => format!("t{n}@{v}"),
                        None => format!("t{n}"),
                    })
                    .collect();
                ids.sort();
                ids.dedup();
                let cells: Vec<(&'static str, String)> = labels[..n_labels]
                    .iter()
                    .flat_map(|l| ids.iter().map(move |t| (*l, t.clone())))
                    .collect();
                let per_cell = prop::collection::vec(
                    prop::collection::vec(attempt.clone(), 1..=5),
                    cells.len(),
                );
                (Just(cells), per_cell)
            })
            .prop_map(|(cells, per_cell)| {
                cells
                    .into_iter()
                    .zip(per_cell)
                    .flat_map(|((label, task), attempts)| {
                        attempts
                            .into_iter()
                            .enumerate()
                            .map(move |(at, (passed, safety))| Raw {
                                label,
                                task: task.clone(),
                                attempt: at as u64,
                                passed,
                                safety,
                            })
                    })
                    .collect::<Vec<Raw>>()
            })
            .prop_shuffle()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn split_and_pooled_figures_equal_a_plain_reference(raws in result_set()) {
            // The table's k: the fewest graded attempts of any label and task.
            let mut graded: BTreeMap<(&str, &str), u64> = BTreeMap::new();
            for r in &raws {
                *graded.entry((r.label, r.task.as_str())).or_default() +=
                    u64::from(r.passed.is_some());
            }
            let table_k = graded.values().copied().filter(|n| *n > 0).min();
            for split in [Split::Variant, Split::Tag] {
                let cards = build(&raws, split);
                let Some(k) = table_k else { continue };
                for card in &cards.agents {
                    let mine: Vec<&Raw> = raws.iter().filter(|r| r.label == card.label).collect();
                    check_row(&card.label, &card.summary, &mine, k)?;
                    let names: BTreeSet<String> =
                        mine.iter().flat_map(|r| groups_of(r, split)).collect();
                    let got: Vec<&str> = card.groups.iter().map(|(g, _)| g.as_str()).collect();
                    prop_assert_eq!(got, names.iter().map(String::as_str).collect::<Vec<_>>());
                    for (name, summary) in &card.groups {
                        let rows: Vec<&Raw> = mine
                            .iter()
                            .copied()
                            .filter(|r| groups_of(r, split).contains(name))
                            .collect();
                        check_row(&format!("{} [{name}]", card.label), summary, &rows, k)?;
                    }
                }
                // Pooled: a task holds every label's attempts; its own k.
                let mut pooled: BTreeMap<&str, u64> = BTreeMap::new();
                for ((_, task), n) in &graded {
                    *pooled.entry(task).or_default() += n;
                }
                let pool_k = pooled.values().copied().filter(|n| *n > 0).min().unwrap();
                let all: Vec<&Raw> = raws.iter().collect();
                check_row("pooled", cards.pooled.as_ref().unwrap(), &all, pool_k)?;
            }
        }

        #[test]
        fn no_figure_depends_on_the_order_of_the_lines(raws in result_set(), seed in any::<u64>()) {
            let mut shuffled = raws.clone();
            // A deterministic shuffle of its own, apart from proptest's.
            let mut state = seed | 1;
            for at in (1..shuffled.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                shuffled.swap(at, (state % (at as u64 + 1)) as usize);
            }
            for split in [Split::Variant, Split::Tag] {
                prop_assert_eq!(build(&raws, split), build(&shuffled, split));
            }
        }
    }
}
