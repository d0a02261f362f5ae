//! What a failed check found, as people read it (DESIGN 10 "Say why"): the details that
//! only the runner knows (how long the timeout was, whether the agent printed anything,
//! what the judge reasoned) are added to the checks grading recorded, and every reason is
//! shown with its detail after it.

use proctor_core::grade::{CheckResult, RAN_CHECK};
use proctor_core::result::ResultLine;
use std::time::Duration;

/// Longest detail shown after a reason in a progress line or a table cell.
const SHOWN_DETAIL_LIMIT: usize = 300;

/// Adds what grading alone does not know to the failed checks of `line`: a timeout says how
/// long it was and an agent that printed nothing says so (from the runner's `process`
/// record), and a rubric FAIL gives the judge's reasoning (from the verdict).
pub fn add_runner_details(line: &mut ResultLine, timeout: Option<Duration>) {
    let timed_out = line.process.as_ref().is_some_and(|p| p.timed_out);
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

/// Each reason of `line` with its detail after it (`wrong answer (got "41", expected
/// "42")`), in the order of the reasons. A detail the reason already says is left out.
pub fn reasons_with_details(line: &ResultLine) -> Vec<String> {
    line.reasons
        .iter()
        .map(|reason| {
            let check = line
                .checks
                .iter()
                .find(|c| !c.passed && c.failure.as_deref() == Some(reason));
            with_detail(reason, check.and_then(|c| c.detail.as_deref()))
        })
        .collect()
}

/// `reason (detail)`, the detail cut to [`SHOWN_DETAIL_LIMIT`] and on one line. A crash's
/// detail (`error: ...`) is the end of stderr, whose last line says why (a traceback's
/// exception), so its end is kept; other details keep their start.
pub fn with_detail(reason: &str, detail: Option<&str>) -> String {
    match detail {
        Some(detail) if !detail.is_empty() && !reason.contains(detail) => {
            let keep_end = reason.starts_with("error: ");
            format!("{reason} ({})", one_line(detail, keep_end))
        }
        _ => reason.to_owned(),
    }
}

/// `detail` on one line, cut to [`SHOWN_DETAIL_LIMIT`] characters at its end (`…` last)
/// or, with `keep_end`, at its start (`…` first).
fn one_line(detail: &str, keep_end: bool) -> String {
    let joined = detail
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    let chars = joined.chars().count();
    if chars <= SHOWN_DETAIL_LIMIT {
        return joined;
    }
    if keep_end {
        let (cut, _) = joined
            .char_indices()
            .nth(chars - SHOWN_DETAIL_LIMIT)
            .unwrap_or((0, ' '));
        format!("…{}", &joined[cut..])
    } else {
        let (cut, _) = joined
            .char_indices()
            .nth(SHOWN_DETAIL_LIMIT)
            .unwrap_or((joined.len(), ' '));
        format!("{}…", &joined[..cut])
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
            ..ProcessInfo::default()
        });
        add_runner_details(&mut timed_out, Some(Duration::from_secs(20)));
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
        add_runner_details(&mut judged, None);
        assert_eq!(
            reasons_with_details(&judged),
            ["rubric: FAIL (the judge: refunds.json lists B7.)"]
        );
    }

    #[test]
    fn a_crash_shows_the_end_of_its_detail_where_the_exception_is() {
        let traceback = format!(
            "Traceback (most recent call last):\n{}ValueError: the real reason",
            "  File \"agent.py\", line 9, in <module>\n".repeat(40)
        );
        let shown = with_detail("error: exit status 1", Some(&traceback));
        assert!(
            shown.starts_with("error: exit status 1 (…")
                && shown.ends_with("ValueError: the real reason)"),
            "{shown}"
        );
        assert!(shown.chars().count() < 340, "{shown}");
    }

    #[test]
    fn long_details_are_cut_and_joined_on_one_line() {
        let long = format!("first\n\n{}", "x".repeat(1000));
        let shown = with_detail("rubric: FAIL", Some(&long));
        assert!(shown.starts_with("rubric: FAIL (first | xxx"));
        assert!(shown.chars().count() < 340, "{shown}");
        assert_eq!(
            with_detail("end state: a: missing", Some("a: missing")),
            "end state: a: missing"
        );
    }
}
