//! N samples: majority, ties, undecided samples, the flip rate.

use crate::support::{Scripted, config, request, verdict};
use proctor_core::grade::RubricVerdict;
use proctor_judge::{Decision, Judge, JudgeConfig, Seed};
use std::sync::Arc;

async fn judge_with(script: &[&str], samples: u32) -> proctor_judge::JudgeOutcome {
    let script = script.iter().map(|s| Ok(s.to_string())).collect();
    let client = Arc::new(Scripted::new(script, "unused"));
    let config = JudgeConfig {
        samples,
        ..config("m")
    };
    let judge = Judge::with_client(config, client.clone()).unwrap();
    let outcome = judge.judge(request(None, Seed::default())).await.unwrap();
    assert_eq!(client.calls(), samples as usize);
    outcome
}

#[tokio::test]
async fn majority_decides_and_the_flip_rate_is_reported() {
    let outcome = judge_with(
        &[
            &verdict("PASS", "a"),
            &verdict("FAIL", "b"),
            &verdict("PASS", "c"),
        ],
        3,
    )
    .await;
    assert_eq!(outcome.verdict, Some(Decision::Pass));
    assert_eq!(outcome.rubric_verdict(), RubricVerdict::Pass);
    assert_eq!(outcome.flip_rate, Some(1.0 / 3.0));
    let indices: Vec<u32> = outcome
        .samples
        .iter()
        .map(|s| s.provenance.sample)
        .collect();
    assert_eq!(indices, [0, 1, 2]);
    let keys: std::collections::HashSet<&str> = outcome
        .samples
        .iter()
        .map(|s| s.provenance.cassette_key.as_str())
        .collect();
    assert_eq!(keys.len(), 3, "each sample has its own key");
    assert_eq!(outcome.usage().len(), 3);
}

#[tokio::test]
async fn a_tie_leaves_the_run_ungraded() {
    let outcome = judge_with(&[&verdict("PASS", "a"), &verdict("FAIL", "b")], 2).await;
    assert_eq!(outcome.verdict, None);
    assert_eq!(
        outcome.rubric_verdict(),
        RubricVerdict::Error("samples tied 1 PASS to 1 FAIL (a tie is not a verdict)".into())
    );
    assert_eq!(outcome.flip_rate, Some(0.5));
}

#[tokio::test]
async fn an_unparsable_answer_is_a_judge_error_never_a_default() {
    let outcome = judge_with(&["Looks fine to me!"], 1).await;
    assert_eq!(outcome.verdict, None);
    let RubricVerdict::Error(why) = outcome.rubric_verdict() else {
        panic!("expected a judge error");
    };
    assert!(
        why.contains("does not end with a VERDICT: PASS|FAIL line"),
        "{why}"
    );
    // The answer still cost tokens.
    assert_eq!(outcome.usage().len(), 1);
}

#[tokio::test]
async fn undecided_samples_count_against_the_majority() {
    let outcome = judge_with(&[&verdict("FAIL", "a"), "???", &verdict("FAIL", "c")], 3).await;
    assert_eq!(outcome.verdict, Some(Decision::Fail));
    assert_eq!(outcome.flip_rate, Some(0.0));
    let split = judge_with(&[&verdict("FAIL", "a"), "???", "!!!"], 3).await;
    assert_eq!(split.verdict, None);
    assert!(
        split
            .error
            .unwrap()
            .starts_with("no majority of 3 samples: 0 PASS, 1 FAIL, 2 undecided; first: ")
    );
}

#[tokio::test]
async fn outcome_serialises_for_the_result_line() {
    let outcome = judge_with(&[&verdict("PASS", "the log is there")], 1).await;
    let json = outcome.to_json();
    assert_eq!(json["verdict"], "PASS");
    assert_eq!(json["reasoning"], "the log is there");
    assert_eq!(json["flip_rate"], 0.0);
    let provenance = &json["samples"][0]["provenance"];
    for field in [
        "provider",
        "model",
        "template_version",
        "rubric_sha256",
        "bundle_sha256",
        "sample",
        "replayed",
        "cassette_key",
        "usage",
    ] {
        assert!(provenance.get(field).is_some(), "provenance lacks {field}");
    }
    assert_eq!(provenance["template_version"], "proctor-v1");
    assert_eq!(
        proctor_judge::JudgeOutcome::from_json(&json).unwrap(),
        outcome
    );
}

#[test]
fn zero_samples_is_a_configuration_error() {
    let config = JudgeConfig {
        samples: 0,
        ..config("m")
    };
    let err = Judge::with_client(config, Arc::new(Scripted::always("x"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid judge configuration: judge samples must be at least 1"
    );
    assert!(!err.is_infrastructure());
}
