//! Property tests (DESIGN 9): answer normalisation, and `proctor_core::stats` (DESIGN 3.6):
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
        fn is_idempotent(text in "\\PC{0,40}") {
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
        fn output_has_no_outer_or_double_space(text in "[ a-zA-Z.!\t]{0,40}") {
            let n = normalise_answer(&text);
            prop_assert!(!n.starts_with(' '));
            prop_assert!(!n.contains("  "));
            prop_assert!(!n.ends_with('.') && !n.ends_with('!'));
            prop_assert_eq!(n.to_lowercase(), n.clone());
        }
    }
}
