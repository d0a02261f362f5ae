//! Answer normalisation (DESIGN 3.2 item 2).
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

/// A task's expected answer with its normalised form, made once when the task is loaded
/// rather than for every line graded against it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExpectedAnswer {
    given: String,
    normalised: String,
}

impl ExpectedAnswer {
    pub(crate) fn of(given: &str) -> Self {
        ExpectedAnswer {
            given: given.to_owned(),
            normalised: normalise_answer(given),
        }
    }

    /// Whether `answer` matches `expected`, the task's expected answer as it is now: the
    /// normalised form made at load is used while the answer is still the one it was made
    /// from.
    pub(crate) fn matches(&self, answer: &str, expected: &str) -> bool {
        if self.given == expected {
            with_normalised(answer, |ours| ours == self.normalised)
        } else {
            answers_match(answer, expected)
        }
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
            let made = ExpectedAnswer::of(&expected);
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
    fn nothing_more() {
        assert_ne!(normalise_answer("5.0"), normalise_answer("5"));
        assert_ne!(normalise_answer("paris,"), normalise_answer("paris"));
        assert_ne!(normalise_answer("?"), normalise_answer(""));
        assert_eq!(normalise_answer("3.14"), "3.14");
    }
}
