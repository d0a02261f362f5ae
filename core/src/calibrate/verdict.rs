//! The judge's verdict as a result line records it.
//!
//! The judge writes `judge: {"verdict": "PASS"|"FAIL"|null, "reasoning", "error", ...}`
//! (proctor-judge's `JudgeOutcome`). Lines written without that field still say something
//! through their reasons: `rubric: FAIL` is a FAIL verdict and `judge error: ...` an undecided
//! one (docs/task-file.md, item 7).

use super::Label;
use super::item::JudgeVerdict;
use crate::result::ResultLine;
use serde_json::Value;

const RUBRIC_FAIL: &str = "rubric: FAIL";
const JUDGE_ERROR: &str = "judge error: ";

/// The recorded verdict, or `None` when the line shows no sign of a judge.
pub fn recorded_verdict(line: &ResultLine) -> Option<JudgeVerdict> {
    match &line.judge {
        Some(Value::Object(judge)) => Some(from_object(judge)),
        Some(Value::String(text)) => Some(from_text(text, String::new())),
        Some(Value::Null) | None => from_reasons(&line.reasons),
        Some(_) => Some(JudgeVerdict::Undecided(
            "the `judge` field is neither a verdict nor an object".to_owned(),
        )),
    }
}

/// True when the only thing that failed the run is the judge's FAIL: the run passed every
/// deterministic check, so a different rubric verdict would have passed it.
pub fn failed_only_the_rubric(line: &ResultLine) -> bool {
    line.passed == Some(false) && line.reasons.len() == 1 && line.reasons[0] == RUBRIC_FAIL
}

fn from_object(judge: &serde_json::Map<String, Value>) -> JudgeVerdict {
    let reasoning = judge
        .get("reasoning")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match judge.get("verdict") {
        Some(Value::String(text)) => from_text(text, reasoning),
        Some(Value::Null) | None => JudgeVerdict::Undecided(
            judge
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("the judge gave no verdict")
                .to_owned(),
        ),
        Some(other) => JudgeVerdict::Undecided(format!("unreadable judge verdict {other}")),
    }
}

fn from_text(text: &str, reasoning: String) -> JudgeVerdict {
    match text.parse::<Label>() {
        Ok(label) => JudgeVerdict::Decided { label, reasoning },
        Err(_) => JudgeVerdict::Undecided(format!("unreadable judge verdict {text:?}")),
    }
}

fn from_reasons(reasons: &[String]) -> Option<JudgeVerdict> {
    if reasons.iter().any(|r| r == RUBRIC_FAIL) {
        return Some(JudgeVerdict::Decided {
            label: Label::Fail,
            reasoning: String::new(),
        });
    }
    reasons
        .iter()
        .find_map(|r| r.strip_prefix(JUDGE_ERROR))
        .map(|why| JudgeVerdict::Undecided(why.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(json: &str) -> ResultLine {
        ResultLine::parse(json).unwrap()
    }

    #[test]
    fn reads_the_judge_outcome_object() {
        let l = line(
            r#"{"task": "t", "passed": true, "judge": {"verdict": "PASS", "reasoning": "log found", "flip_rate": 0.0, "samples": []}}"#,
        );
        assert_eq!(
            recorded_verdict(&l),
            Some(JudgeVerdict::Decided {
                label: Label::Pass,
                reasoning: "log found".into()
            })
        );
        let undecided = line(
            r#"{"task": "t", "passed": null, "judge": {"verdict": null, "error": "no majority of 2 samples", "samples": []}}"#,
        );
        assert_eq!(
            recorded_verdict(&undecided),
            Some(JudgeVerdict::Undecided("no majority of 2 samples".into()))
        );
    }

    #[test]
    fn falls_back_to_the_reasons() {
        let failed = line(r#"{"task": "t", "passed": false, "reasons": ["rubric: FAIL"]}"#);
        assert!(matches!(
            recorded_verdict(&failed),
            Some(JudgeVerdict::Decided {
                label: Label::Fail,
                ..
            })
        ));
        assert!(failed_only_the_rubric(&failed));
        let error = line(r#"{"task": "t", "passed": null, "reasons": ["judge error: timeout"]}"#);
        assert_eq!(
            recorded_verdict(&error),
            Some(JudgeVerdict::Undecided("timeout".into()))
        );
        let plain = line(r#"{"task": "t", "passed": true}"#);
        assert_eq!(recorded_verdict(&plain), None);
    }

    #[test]
    fn odd_shapes_are_undecided_not_guessed() {
        let text = line(r#"{"task": "t", "passed": true, "judge": "pass"}"#);
        assert!(matches!(
            recorded_verdict(&text),
            Some(JudgeVerdict::Decided {
                label: Label::Pass,
                ..
            })
        ));
        let number = line(r#"{"task": "t", "passed": true, "judge": 3}"#);
        assert!(matches!(
            recorded_verdict(&number),
            Some(JudgeVerdict::Undecided(_))
        ));
        let bad = line(r#"{"task": "t", "passed": true, "judge": {"verdict": "MAYBE"}}"#);
        assert!(matches!(
            recorded_verdict(&bad),
            Some(JudgeVerdict::Undecided(_))
        ));
        let several =
            line(r#"{"task": "t", "passed": false, "reasons": ["wrong answer", "rubric: FAIL"]}"#);
        assert!(!failed_only_the_rubric(&several));
    }
}
