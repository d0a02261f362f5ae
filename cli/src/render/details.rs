//! Every reason of a result with its detail after it, on one line, as progress lines,
//! tables and reports show them.

use proctor_core::result::ResultLine;

/// Longest detail shown after a reason in a progress line or a table cell.
const SHOWN_DETAIL_LIMIT: usize = 300;

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

#[cfg(test)]
mod tests {
    use super::*;

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
