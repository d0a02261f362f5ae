//! Small text helpers for failure messages: cutting long values, finding the first
//! differing line.

/// Longest line shown by `file_equals` (in characters, before `…`).
pub(crate) const LINE_CHARS: usize = 60;

/// Keeps the first `max` characters of `s`, followed by `…` when anything was cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// Removes one final newline (`\n` or `\r\n`), if any.
pub(crate) fn strip_final_newline(s: &str) -> &str {
    s.strip_suffix('\n')
        .map(|rest| rest.strip_suffix('\r').unwrap_or(rest))
        .unwrap_or(s)
}

/// A line as shown in a failure text: quoted, or `end of file` when there is none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shown(pub(crate) Option<String>);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(line) => write!(f, "{line:?}"),
            None => f.write_str("end of file"),
        }
    }
}

/// The first line (1-based) where `expected` and `found` differ, with both lines cut for
/// display; `None` when they are equal. A line missing on one side shows as `end of file`.
///
/// Lines are cut to [`LINE_CHARS`] characters; when they agree on more than that, the window
/// shown starts shortly before the first differing character, behind a leading `…`, so that
/// the difference is visible.
pub(crate) fn first_difference(expected: &str, found: &str) -> Option<(usize, Shown, Shown)> {
    let mut e_lines = expected.split('\n');
    let mut f_lines = found.split('\n');
    let mut n = 0;
    loop {
        n += 1;
        match (e_lines.next(), f_lines.next()) {
            (None, None) => return None,
            (Some(e), Some(f)) if e == f => {}
            (e, f) => {
                let common = match (e, f) {
                    (Some(e), Some(f)) => {
                        e.chars().zip(f.chars()).take_while(|(a, b)| a == b).count()
                    }
                    _ => 0,
                };
                let skip = if common >= LINE_CHARS {
                    common.saturating_sub(LINE_CHARS / 3)
                } else {
                    0
                };
                let show = |line: Option<&str>| Shown(line.map(|l| window(l, skip)));
                return Some((n, show(e), show(f)));
            }
        }
    }
}

/// `line` without its first `skip` characters (marked by a leading `…`), cut to
/// [`LINE_CHARS`].
fn window(line: &str, skip: usize) -> String {
    if skip == 0 {
        return truncate(line, LINE_CHARS);
    }
    let start = line.char_indices().nth(skip).map_or(line.len(), |(i, _)| i);
    format!("…{}", truncate(&line[start..], LINE_CHARS))
}

/// The last non-blank line of `text`, trimmed at the end and cut to `max` characters.
pub(crate) fn last_line(text: &str, max: usize) -> Option<String> {
    text.lines()
        .map(str::trim_end)
        .rfind(|l| !l.trim().is_empty())
        .map(|l| truncate(l, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_keeps_short_and_cuts_long() {
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcd", 3), "abc…");
        assert_eq!(truncate("ééééé", 2), "éé…");
        assert_eq!(truncate("", 0), "");
    }

    #[test]
    fn strips_one_final_newline() {
        assert_eq!(strip_final_newline("a\n"), "a");
        assert_eq!(strip_final_newline("a\r\n"), "a");
        assert_eq!(strip_final_newline("a\n\n"), "a\n");
        assert_eq!(strip_final_newline("a"), "a");
        assert_eq!(strip_final_newline("a\r"), "a\r");
    }

    fn diff(e: &str, f: &str) -> Option<String> {
        first_difference(e, f).map(|(n, e, f)| format!("{n}: {e} / {f}"))
    }

    #[test]
    fn finds_first_differing_line() {
        assert_eq!(diff("a\nb", "a\nb"), None);
        assert_eq!(
            diff("a\nb\nc", "a\nx\nc"),
            Some("2: \"b\" / \"x\"".to_owned())
        );
        assert_eq!(diff("a\nb", "a"), Some("2: \"b\" / end of file".to_owned()));
        assert_eq!(diff("a", "a\nb"), Some("2: end of file / \"b\"".to_owned()));
        assert_eq!(diff("a", "a\r"), Some("1: \"a\" / \"a\\r\"".to_owned()));
    }

    #[test]
    fn long_lines_are_cut_to_sixty_chars() {
        let e = format!("x{}", "a".repeat(99));
        let f = format!("y{}", "a".repeat(99));
        let (_, se, sf) = first_difference(&e, &f).unwrap();
        assert_eq!(se.to_string(), format!("\"x{}…\"", "a".repeat(59)));
        assert_eq!(sf.to_string(), format!("\"y{}…\"", "a".repeat(59)));
    }

    #[test]
    fn late_difference_in_long_lines_is_shown() {
        let e = format!("{}X{}", "a".repeat(100), "b".repeat(100));
        let f = format!("{}Y{}", "a".repeat(100), "b".repeat(100));
        let (n, se, sf) = first_difference(&e, &f).unwrap();
        assert_eq!(n, 1);
        // 100 common chars, skip 100 - 20 = 80: 20 `a`s, the difference, then 39 `b`s.
        let tail = |c: char| format!("\"…{}{c}{}…\"", "a".repeat(20), "b".repeat(39));
        assert_eq!(se.to_string(), tail('X'));
        assert_eq!(sf.to_string(), tail('Y'));
    }

    #[test]
    fn last_line_skips_blank_lines_and_cuts() {
        assert_eq!(last_line("one\ntwo  \n\n  \n", 120), Some("two".to_owned()));
        assert_eq!(last_line("\n \n", 120), None);
        assert_eq!(
            last_line(&"z".repeat(200), 120),
            Some(format!("{}…", "z".repeat(120)))
        );
    }
}
