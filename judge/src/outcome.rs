//! What judging one run produced: the combined verdict, its reasoning, the flip rate,
//! and every sample with its provenance. Serialises to the result line's `judge` field.

use crate::provenance::Provenance;
use crate::verdict::{Decision, majority};
use proctor_core::grade::RubricVerdict;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One sample's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleVerdict {
    /// `None` when this sample gave no verdict; `error` then says why.
    pub verdict: Option<Decision>,
    /// Why this sample gave no verdict: the answer had none, or was not in the API's shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The judge's reasoning; empty without a verdict.
    #[serde(default)]
    pub reasoning: String,
    /// Where the verdict came from and what it cost.
    pub provenance: Provenance,
}

/// The judge's decision on one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeOutcome {
    /// `"PASS"`, `"FAIL"`, or `null` when the judge could not decide.
    pub verdict: Option<Decision>,
    /// Why there is no verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The reasoning of the first sample that agrees with the verdict.
    #[serde(default)]
    pub reasoning: String,
    /// The share of decided samples against the majority; `null` when none decided.
    pub flip_rate: Option<f64>,
    /// Every sample in order of its index, decided or not.
    pub samples: Vec<SampleVerdict>,
}

impl JudgeOutcome {
    /// Combines samples by strict majority (see [`crate::verdict::Tally`]).
    pub fn from_samples(samples: Vec<SampleVerdict>) -> Self {
        let decisions: Vec<Option<Decision>> = samples.iter().map(|s| s.verdict).collect();
        let tally = majority(&decisions);
        let flip_rate = tally.flip_rate();
        match tally.verdict() {
            Ok(decision) => JudgeOutcome {
                verdict: Some(decision),
                error: None,
                reasoning: samples
                    .iter()
                    .find(|s| s.verdict == Some(decision))
                    .map(|s| s.reasoning.clone())
                    .unwrap_or_default(),
                flip_rate,
                samples,
            },
            Err(why) => {
                let first_error = samples.iter().find_map(|s| s.error.clone());
                let error = match (samples.len(), first_error) {
                    (1, Some(error)) => error,
                    (_, Some(error)) => format!("{why}; first: {error}"),
                    (_, None) => why,
                };
                JudgeOutcome {
                    verdict: None,
                    error: Some(error),
                    reasoning: String::new(),
                    flip_rate,
                    samples,
                }
            }
        }
    }

    /// The decision as grading sees it: an undecided judge leaves the run ungraded.
    pub fn rubric_verdict(&self) -> RubricVerdict {
        match (self.verdict, &self.error) {
            (Some(Decision::Pass), _) => RubricVerdict::Pass,
            (Some(Decision::Fail), _) => RubricVerdict::Fail,
            (None, Some(error)) => RubricVerdict::Error(error.clone()),
            (None, None) => RubricVerdict::Error("no verdict".to_owned()),
        }
    }

    /// The value for the result line's `judge` field.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a judge outcome always serialises")
    }

    /// Reads a `judge` field back (re-reporting, calibration).
    pub fn from_json(value: &Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value.clone())
    }

    /// The judge's usage, one tagged object per sample that got an answer, for cost
    /// accounting in the role `judge`.
    pub fn usage(&self) -> Vec<Value> {
        self.samples
            .iter()
            .map(|s| &s.provenance.usage)
            .filter(|u| !u.is_null())
            .cloned()
            .collect()
    }

    /// True when every sample was replayed from a cassette.
    pub fn replayed(&self) -> bool {
        self.samples.iter().all(|s| s.provenance.replayed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(index: u32, verdict: Option<Decision>, reasoning: &str) -> SampleVerdict {
        SampleVerdict {
            verdict,
            error: verdict
                .is_none()
                .then(|| "the judge's answer is empty".to_owned()),
            reasoning: reasoning.to_owned(),
            provenance: Provenance {
                provider: "anthropic".into(),
                model: "m".into(),
                served_model: None,
                template_version: "proctor-v1".into(),
                rubric_sha256: "r".into(),
                bundle_sha256: "b".into(),
                sample: index,
                replayed: true,
                cassette_key: "k".into(),
                usage: json!({"provider": "anthropic", "model": "m", "input_tokens": 1}),
            },
        }
    }

    #[test]
    fn majority_reasoning_and_round_trip() {
        let outcome = JudgeOutcome::from_samples(vec![
            sample(0, Some(Decision::Fail), "no log"),
            sample(1, Some(Decision::Pass), "log"),
            sample(2, Some(Decision::Pass), "log found"),
        ]);
        assert_eq!(outcome.rubric_verdict(), RubricVerdict::Pass);
        assert_eq!(outcome.reasoning, "log");
        assert_eq!(outcome.flip_rate, Some(1.0 / 3.0));
        assert_eq!(outcome.usage().len(), 3);
        assert!(outcome.replayed());
        let json = outcome.to_json();
        assert_eq!(json["verdict"], "PASS");
        assert_eq!(json["samples"][2]["provenance"]["sample"], 2);
        assert!(json.get("error").is_none());
        assert_eq!(JudgeOutcome::from_json(&json).unwrap(), outcome);
    }

    #[test]
    fn an_undecided_single_sample_keeps_its_error() {
        let outcome = JudgeOutcome::from_samples(vec![sample(0, None, "")]);
        assert_eq!(
            outcome.rubric_verdict(),
            RubricVerdict::Error("the judge's answer is empty".into())
        );
        assert_eq!(outcome.to_json()["verdict"], Value::Null);
        assert_eq!(outcome.flip_rate, None);
    }

    #[test]
    fn a_split_names_the_counts_and_the_first_error() {
        let outcome = JudgeOutcome::from_samples(vec![
            sample(0, Some(Decision::Pass), ""),
            sample(1, None, ""),
        ]);
        assert_eq!(
            outcome.error.as_deref(),
            Some(
                "no majority of 2 samples: 1 PASS, 0 FAIL, 1 undecided; first: the judge's answer is empty"
            )
        );
    }
}
