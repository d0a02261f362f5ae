//! What a failed check found, as people read it (docs/metrics.md, Diagnosis): the details that
//! only the runner knows (how long the timeout was, whether the agent printed anything,
//! what the judge reasoned) are added to the checks grading recorded;
//! [`crate::render::details`] shows every reason with its detail after it.

use proctor_core::grade::{CheckResult, RAN_CHECK};
use proctor_core::result::ResultLine;
use std::time::Duration;

/// Adds what grading alone does not know to the failed checks of `line`: a timeout says how
/// long it was and an agent that printed nothing says so (from the runner's `process`
/// record), and a rubric FAIL gives the judge's reasoning (from the verdict). Read from
/// the line alone, so that every command that settles it gives the same details.
pub fn add_runner_details(line: &mut ResultLine) {
    // Each detail comes from the runner's record or the judge's: most graded logs have
    // neither, and their lines are left as they are.
    if line.process.is_none() && line.judge.is_none() {
        return;
    }
    let timed_out = line.process.as_ref().is_some_and(|p| p.timed_out);
    let timeout = line
        .process
        .as_ref()
        .and_then(|p| p.timeout_s)
        .and_then(|s| Duration::try_from_secs_f64(s).ok());
    let printed_nothing = line.process.as_ref().is_some_and(|p| p.stdout_bytes == 0)
        && line.answer.as_deref().is_none_or(str::is_empty);
    let reasoning = line
        .judge
        .as_ref()
        .and_then(|judge| judge.get("reasoning"))
        .and_then(|r| r.as_str())
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    for check in line.checks.iter_mut().filter(|c| !c.passed) {
        let reason = check.failure.as_deref().unwrap_or_default();
        let detail = match reason {
            "not final" if timed_out => match timeout {
                Some(limit) => format!("timed out after {} s", seconds(limit)),
                None => "timed out".to_owned(),
            },
            "wrong answer" if printed_nothing => "printed nothing".to_owned(),
            "rubric: FAIL" => match &reasoning {
                Some(reasoning) => format!("the judge: {reasoning}"),
                None => continue,
            },
            _ => continue,
        };
        check.detail = Some(detail);
    }
}

/// `20`, `2.5`: seconds as people write them.
fn seconds(duration: Duration) -> String {
    let s = duration.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// The detail of the crash of `line`, when it ended in `error:`.
pub fn crash_detail(line: &ResultLine) -> Option<&str> {
    line.checks
        .iter()
        .find(|c: &&CheckResult| &*c.check == RAN_CHECK && !c.passed)
        .and_then(|c| c.detail.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::details::reasons_with_details;
    use proctor_core::result::ProcessInfo;

    fn line(json: serde_json::Value) -> ResultLine {
        ResultLine::parse(&json.to_string()).unwrap()
    }

    #[test]
    fn a_timeout_says_how_long_and_silence_says_printed_nothing() {
        let mut timed_out = line(serde_json::json!({
            "task": "t", "passed": false, "status": "timeout",
            "reasons": ["not final", "wrong answer"],
            "checks": [
                {"category": "outcome", "check": "status is final", "passed": false,
                 "gating": true, "failure": "not final", "detail": "timed out"},
                {"category": "outcome", "check": "answer is \"5\"", "passed": false,
                 "gating": true, "failure": "wrong answer", "detail": "got no answer, expected \"5\""},
            ],
        }));
        timed_out.process = Some(ProcessInfo {
            timed_out: true,
            timeout_s: Some(20.0),
            ..ProcessInfo::default()
        });
        add_runner_details(&mut timed_out);
        assert_eq!(
            reasons_with_details(&timed_out),
            [
                "not final (timed out after 20 s)",
                "wrong answer (printed nothing)"
            ]
        );
    }

    #[test]
    fn a_rubric_fail_shows_the_judges_reasoning() {
        let mut judged = line(serde_json::json!({
            "task": "t", "passed": false, "status": "final", "reasons": ["rubric: FAIL"],
            "checks": [{"category": "rubric", "check": "rubric", "passed": false, "gating": true,
                        "failure": "rubric: FAIL", "detail": "the judge said FAIL"}],
            "judge": {"verdict": "FAIL", "reasoning": "refunds.json lists B7.", "samples": []},
        }));
        add_runner_details(&mut judged);
        assert_eq!(
            reasons_with_details(&judged),
            ["rubric: FAIL (the judge: refunds.json lists B7.)"]
        );
    }
}
