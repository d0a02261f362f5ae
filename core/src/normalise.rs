//! Answer normalisation (DESIGN 3.2 item 2).
//!
//! Deliberately small: lowercase, trim, collapse whitespace, drop trailing `.` and `!`.
//! Anything more (punctuation stripping, number parsing) would hide real mistakes.

/// Normalises an answer for comparison: `"  Paris. "` becomes `"paris"`.
pub fn normalise_answer(text: &str) -> String {
    let lowered = text.to_lowercase();
    let mut collapsed = String::with_capacity(lowered.len());
    for word in lowered.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    let kept = collapsed.trim_end_matches(['.', '!']).len();
    collapsed.truncate(kept);
    collapsed
}

/// True when two answers are equal after normalisation.
pub fn answers_match(answer: &str, expected: &str) -> bool {
    normalise_answer(answer) == normalise_answer(expected)
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
    fn nothing_more() {
        assert_ne!(normalise_answer("5.0"), normalise_answer("5"));
        assert_ne!(normalise_answer("paris,"), normalise_answer("paris"));
        assert_ne!(normalise_answer("?"), normalise_answer(""));
        assert_eq!(normalise_answer("3.14"), "3.14");
    }
}
