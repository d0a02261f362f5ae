//! Answer normalisation (docs/task-file.md item 2).
//!
//! Deliberately small: lowercase, trim, collapse whitespace, drop trailing `.` and `!`.
//! Anything more (punctuation stripping, number parsing) would hide real mistakes.

use std::cell::RefCell;

/// Normalises an answer for comparison: `"  Paris. "` becomes `"paris"`.
pub fn normalise_answer(text: &str) -> String {
    let mut normalised = String::new();
    normalise_into(text, &mut normalised);
    normalised
}

/// True when two answers are equal after normalisation.
pub fn answers_match(answer: &str, expected: &str) -> bool {
    with_normalised(answer, |ours| ours == normalise_answer(expected))
}

/// The patterns of `expected_all` that the answer does not hold: each pattern and the
/// answer normalised, then a substring search. Empty when all are there.
pub fn missing_patterns<'p>(answer: &str, patterns: &'p [String]) -> Vec<&'p str> {
    if patterns.is_empty() {
        return Vec::new();
    }
    with_normalised(answer, |ours| {
        patterns
            .iter()
            .filter(|pattern| !ours.contains(normalise_answer(pattern).as_str()))
            .map(String::as_str)
            .collect()
    })
}

/// Runs `compare` on the normalised `answer`. Every graded line normalises its answer, so
/// it is written into a buffer each thread keeps rather than into a new string.
fn with_normalised<T>(answer: &str, compare: impl FnOnce(&str) -> T) -> T {
    thread_local! {
        static BUFFER: RefCell<String> = const { RefCell::new(String::new()) };
    }
    BUFFER.with_borrow_mut(|ours| {
        normalise_into(answer, ours);
        compare(ours)
    })
}

/// How a task's `expected` was written (docs/task-file.md, Expected): one answer (normalised before
/// comparing), a list of answers any of which matches, or a regular expression matched
/// against the answer as the agent gave it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedForm {
    /// One answer, compared after normalising.
    #[default]
    Text,
    /// Any of these answers, each normalised.
    AnyOf(Vec<String>),
    /// A regular expression, matched against the raw answer.
    Regex(String),
}

impl ExpectedForm {
    /// What the check expects, for names and details: `"Paris"`, `one of ["a", "b"]`,
    /// `a match of /^4\d$/`.
    pub fn describe(&self, expected: &str) -> String {
        match self {
            ExpectedForm::Text => format!("{expected:?}"),
            ExpectedForm::AnyOf(answers) => format!("one of {answers:?}"),
            ExpectedForm::Regex(pattern) => format!("a match of /{pattern}/"),
        }
    }
}

/// A task's expected answer with its normalised form (or forms, or its compiled regular
/// expression), made once when the task is loaded rather than for every line graded.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExpectedAnswer {
    given: String,
    normalised: String,
    /// Every answer of a list, normalised.
    any_of: Vec<String>,
    regex: Option<regex::Regex>,
}

impl PartialEq for ExpectedAnswer {
    fn eq(&self, other: &Self) -> bool {
        self.given == other.given
            && self.any_of == other.any_of
            && self.regex.as_ref().map(regex::Regex::as_str)
                == other.regex.as_ref().map(regex::Regex::as_str)
    }
}

impl ExpectedAnswer {
    /// `given` is the task's `expected` text; `form` says how it was written. A regular
    /// expression was checked at load, so it compiles here.
    pub(crate) fn of(given: &str, form: &ExpectedForm) -> Self {
        ExpectedAnswer {
            given: given.to_owned(),
            normalised: normalise_answer(given),
            any_of: match form {
                ExpectedForm::AnyOf(answers) => {
                    answers.iter().map(|a| normalise_answer(a)).collect()
                }
                _ => Vec::new(),
            },
            regex: match form {
                ExpectedForm::Regex(pattern) => regex::Regex::new(pattern).ok(),
                _ => None,
            },
        }
    }

    /// Whether `answer` matches `expected`, the task's expected answer as it is now: the
    /// forms made at load are used while the answer is still the one they were made from.
    pub(crate) fn matches(&self, answer: &str, expected: &str) -> bool {
        if self.given != expected {
            return answers_match(answer, expected);
        }
        if let Some(regex) = &self.regex {
            return regex.is_match(answer);
        }
        if !self.any_of.is_empty() {
            return with_normalised(answer, |ours| self.any_of.iter().any(|a| a == ours));
        }
        with_normalised(answer, |ours| ours == self.normalised)
    }
}

/// [`normalise_answer`] into `out` (emptied first).
fn normalise_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        normalise_ascii(text, out);
    } else {
        // Other text than ASCII needs `to_lowercase` first, whose rules depend on context
        // (a final sigma).
        normalise_words(&text.to_lowercase(), out);
    }
    let kept = out.trim_end_matches(['.', '!']).len();
    out.truncate(kept);
}

/// Lowercased words of `lowered`, one space between each, before trailing `.` and `!` go.
fn normalise_words(lowered: &str, out: &mut String) {
    for word in lowered.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// [`normalise_words`] for ASCII text, lowercasing as it goes: one pass over the bytes
/// instead of a search for each word. ASCII white space is what `split_whitespace` splits
/// at in ASCII text, the vertical tab included.
fn normalise_ascii(text: &str, out: &mut String) {
    let mut space = false;
    for &byte in text.as_bytes() {
        if matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(char::from(byte.to_ascii_lowercase()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_example() {
        assert!(answers_match("Paris.", "paris"));
    }

    #[test]
    fn each_step() {
        assert_eq!(normalise_answer("  HeLLo   World \n"), "hello world");
        assert_eq!(normalise_answer("done!!.."), "done");
        assert_eq!(normalise_answer("a\t\tb"), "a b");
    }

    #[test]
    fn ascii_and_other_text_take_the_same_steps() {
        for (text, normalised) in [
            ("  Refunded ORDER A3\n", "refunded order a3"),
            ("\u{b}A\u{c}b\r", "a b"),
            ("ÉTÉ  Fini!", "été fini"),
            ("ΣΑΣ.", "σας"),
        ] {
            assert_eq!(normalise_answer(text), normalised, "{text:?}");
        }
        assert!(answers_match("Refunded order A3.", " refunded ORDER a3"));
        assert!(!answers_match("Refunded order A3", "Refunded order A33"));
    }

    proptest::proptest! {
        #[test]
        fn ascii_text_normalises_as_the_general_steps_do(
            text in "[ \t\n\x0b\x0c\ra-zA-Z.!,0-9]{0,24}",
        ) {
            let mut fast = String::new();
            normalise_ascii(&text, &mut fast);
            let mut general = String::new();
            normalise_words(&text.to_lowercase(), &mut general);
            proptest::prop_assert_eq!(fast, general);
        }

        #[test]
        fn a_task_made_answer_matches_as_answers_match_does(
            answer in "[ \tAaBb.!é]{0,8}",
            expected in "[ \tAaBb.!é]{0,8}",
            edited in "[ Ab.]{0,4}",
        ) {
            let made = ExpectedAnswer::of(&expected, &ExpectedForm::Text);
            proptest::prop_assert_eq!(
                made.matches(&answer, &expected),
                answers_match(&answer, &expected)
            );
            // The task's answer changed after it was loaded: the new one counts.
            proptest::prop_assert_eq!(
                made.matches(&answer, &edited),
                answers_match(&answer, &edited)
            );
        }
    }

    #[test]
    fn missing_patterns_are_searched_in_the_normalised_answer() {
        let patterns = [
            "W1".to_owned(),
            "Cancelled.".to_owned(),
            "refund  issued".to_owned(),
        ];
        assert_eq!(
            missing_patterns("Order w1 is CANCELLED; refund\n issued!", &patterns),
            Vec::<&str>::new()
        );
        assert_eq!(
            missing_patterns("Order W1 is pending", &patterns),
            ["Cancelled.", "refund  issued"]
        );
        assert_eq!(missing_patterns("", &patterns).len(), 3);
        // Nothing more than normalising: no punctuation stripping.
        assert_eq!(missing_patterns("order W-1", &patterns[..1]), ["W1"]);
        assert!(missing_patterns("anything", &[]).is_empty());
    }

    #[test]
    fn nothing_more() {
        assert_ne!(normalise_answer("5.0"), normalise_answer("5"));
        assert_ne!(normalise_answer("paris,"), normalise_answer("paris"));
        assert_ne!(normalise_answer("?"), normalise_answer(""));
        assert_eq!(normalise_answer("3.14"), "3.14");
    }
}
